// SPDX-License-Identifier: MIT
/*
 * lib/arm64: the counting site and the exits of every function of the
 * arm64 count fixtures (Go 1.19 to 1.27; default, stripped, PIE and cgo
 * builds, the C functions of cgo's included), checked on this machine
 * whatever it is.
 *
 * Ground truth, independent of capstone and of lib/arm64's reading of
 * instruction words: `go tool objdump` of the same binary, by the
 * toolchain that built it (GT_CACHE/go/1.NN; of a stripped binary, which
 * it does not read, that of the default build, whose code is the same:
 * every word is checked):
 *   - the site is the last conditional branch of the prologue (before SP
 *     is written) to a block that calls runtime.morestack* and jumps back
 *     to the function (`JMP F(SB)`); BLS counts when C is set and Z clear,
 *     BCC when C is set; the instructions before it write only R16, R17,
 *     R27 or flags (the entry state), and one loads 16(R28) or 24(R28)
 *     (g in R28); the morestack tail spans the block, its JMP included.
 *     Without one, the site is the entry or a simulated instruction that
 *     no branch precedes;
 *   - the exits are every RET, every JMP to another function or to an
 *     address outside this one, every JMP through a register that is not
 *     a jump table's (`MOVD (Rt)(Ri<<3), Rn; JMP (Rn)`): the same with the
 *     sweep of the pcsp runs, stepping over what the choice decoded, and
 *     with the sweep of the whole body.
 */
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "arm64/disasm.h"
#include "arm64/exit_sites.h"
#include "arm64/probe_site.h"
#include "core/error.h"
#include "gobin/go_binary.h"
#include "gobin/pclntab.h"
#include "go_fixture.h"
#include "go_objdump.h"
#include "restart_runs.h"
#include "test.h"

static const int versions[] = { 19, 21, 23, 25, 27 };
static const char *const forms[] = { "", "-stripped", "-pie", "-cgo" };
#define NVERSIONS	(sizeof(versions) / sizeof(versions[0]))
#define NFORMS		(sizeof(forms) / sizeof(forms[0]))
/* as site/site_code.c scans: the prologue's instructions */
#define PROLOGUE_LINES	12

static bool is_branch(const char *mn)
{
	return is_bcond(mn) || !strcmp(mn, "JMP") || !strcmp(mn, "CALL") ||
	       !strcmp(mn, "RET") || !strncmp(mn, "CBZ", 3) ||
	       !strncmp(mn, "CBNZ", 4) || !strncmp(mn, "TBZ", 3) ||
	       !strncmp(mn, "TBNZ", 4);
}

/* Does the kernel simulate IN, by objdump: a branch, ADR, ADRP, or a load
 * of a literal (`MOVD 78(PC), R27`)? */
static bool is_simulated(const struct line *in)
{
	size_t w = strcspn(in->ops, "(");

	if (is_branch(in->mn) || !strcmp(in->mn, "ADR") ||
	    !strcmp(in->mn, "ADRP"))
		return true;
	return !strncmp(in->mn, "MOV", 3) && w &&
	       strspn(in->ops, "-0123456789") == w &&
	       !strncmp(in->ops + w, "(PC), ", 6);
}

/* Does the line write SP: writeback on (RSP), or RSP as destination? */
static bool writes_sp(const struct line *in)
{
	size_t n = strlen(in->ops);
	size_t m = strlen(in->mn);

	if (m > 2 && (!strcmp(in->mn + m - 2, ".W") ||
		      !strcmp(in->mn + m - 2, ".P")))
		return strstr(in->ops, "(RSP)") != NULL;
	if (strcmp(in->mn, "MOVD") && strcmp(in->mn, "SUB") &&
	    strcmp(in->mn, "ADD"))
		return false;
	return n > 5 && !strcmp(in->ops + n - 5, ", RSP");
}

/* Of F (lines [k, end)), is the block at T a morestack tail, which calls
 * runtime.morestack* and jumps back to F? *TAIL_END: after its JMP. */
static bool is_morestack_tail(const struct listing *l, const struct func *f,
			      uint64_t t, uint64_t *tail_end)
{
	char back[4096];
	bool called = false;
	size_t k;

	snprintf(back, sizeof(back), "%s(SB)", f->name);
	for (k = f->first; k < f->first + f->n && l->lines[k].addr != t; k++)
		;
	for (; k < f->first + f->n; k++) {
		const struct line *in = &l->lines[k];

		if (!strcmp(in->mn, "CALL"))
			called = !strncmp(in->ops, "runtime.morestack", 17);
		if (!strcmp(in->mn, "JMP")) {
			*tail_end = in->addr + 4;
			return called && !strcmp(in->ops, back);
		}
		if (!strcmp(in->mn, "RET"))
			return false;
	}
	return false;
}

/* Is the JMP at K of F an exit, by objdump? */
static bool jmp_leaves(const struct listing *l, const struct func *f,
		       size_t k, bool *table)
{
	const struct line *in = &l->lines[k];
	const struct line *last = &l->lines[f->first + f->n - 1];
	uint64_t first = l->lines[f->first].addr, t;
	char own[4096], want[64];
	size_t n = strlen(in->ops);

	*table = false;
	snprintf(own, sizeof(own), "%s(SB)", f->name);
	if (pc_target(in, &t))
		return t < first || t > last->addr;
	if (n > 4 && !strcmp(in->ops + n - 4, "(SB)"))
		return strcmp(in->ops, own) != 0;
	/* JMP (Rn): a jump table's when the line before loads Rn indexed */
	if (in->ops[0] == '(' && k > f->first) {
		const struct line *prev = &l->lines[k - 1];

		snprintf(want, sizeof(want), ", %.*s",
			 (int)strcspn(in->ops + 1, ")"), in->ops + 1);
		*table = !strcmp(prev->mn, "MOVD") && strstr(prev->ops, "<<3)") &&
			 strlen(prev->ops) > strlen(want) &&
			 !strcmp(prev->ops + strlen(prev->ops) - strlen(want), want);
		return !*table;
	}
	return true;
}

/*
 * Is the word W of the binary the word L of the listing? The same, or,
 * where a stripped binary is checked against its default build's
 * listing, the same but for a data address: the immediates of ADRP, and
 * of the ADD or load/store (unsigned offset) that completes it (the data
 * moves when the symbol table goes). Branches, and the stack check's
 * loads and compares, must be the same words.
 */
static bool same_code(uint32_t w, uint32_t l)
{
	uint32_t d = w ^ l;

	if (!d)
		return true;
	if ((w & 0x9f000000) == 0x90000000)		/* adrp */
		return !(d & ~0x60ffffe0u);
	if ((w & 0x7f800000) == 0x11000000 ||		/* add imm */
	    (w & 0x3b000000) == 0x39000000)		/* ldr/str uimm */
		return !(d & ~0x003ffc00u);
	return false;
}

struct totals {
	size_t funcs, empty, stack_checks, huge, g, emulated, entry;
	size_t restarts;	/* entries that begin a restartable sequence */
	size_t rets, tails, tables, mismatches;
};

static bool same_exits(const struct exit_site *e, size_t ne,
		       const uint64_t *want, size_t nwant)
{
	size_t i;

	if (ne != nwant)
		return false;
	for (i = 0; i < ne; i++)
		if (e[i].addr != want[i] || !e[i].emulated)
			return false;
	return true;
}

static void check_func(const char *name, const struct go_binary *bin,
		       const struct go_func *fn, const struct listing *l,
		       const struct func *f, struct totals *t)
{
	struct probe_site s;
	struct exit_site *e = NULL, *w = NULL;
	uint64_t *want, check = 0, target = 0, tail_end = 0, end;
	size_t k, ne = 0, nw = 0, nwant = 0, nchecks = 0;
	bool found = false, keeps = true, keeps_before = true;
	bool g = false, g_before = false, ok = true, table;
	const char *mn = "";
	const uint8_t *code;
	size_t len;
	int err;

	/* the listing is of this code (a stripped binary's is its default
	 * build's) */
	err = arm64_disasm__func_code(bin, fn, &code, &len);
	/* a marker of no code (go:textfipsstart): objdump lists the
	 * padding at its address */
	if (!err && !len) {
		for (k = f->first; k < f->first + f->n; k++)
			err |= l->lines[k].word != 0;
		if (err) {
			fprintf(stderr, "%s: %s: no code, objdump lists some\n",
				name, fn->name);
			t->mismatches++;
		}
		t->empty++;
		return;
	}
	for (k = f->first; !err && k < f->first + f->n; k++)
		if (l->lines[k].addr - fn->addr + 4 > len ||
		    !same_code(arm64_insn__word(code + (l->lines[k].addr -
							 fn->addr)),
			       l->lines[k].word))
			err = -EINVAL;
	if (err) {
		fprintf(stderr, "%s: %s: code unlike objdump's (%zu bytes, at 0x%llx)\n",
			name, fn->name, len,
			(unsigned long long)l->lines[k - 1].addr);
		t->mismatches++;
		return;
	}
	t->funcs++;
	/* the truth: the prologue's last branch to the morestack tail */
	for (k = f->first; k < f->first + f->n && k < f->first + PROLOGUE_LINES;
	     k++) {
		const struct line *in = &l->lines[k];
		size_t n = strlen(in->ops);

		if (found && writes_sp(in))
			break;
		if (is_bcond(in->mn)) {
			uint64_t tg;

			if (pc_target(in, &tg) &&
			    is_morestack_tail(l, f, tg, &end)) {
				found = true;
				nchecks++;
				check = in->addr;
				target = tg;
				tail_end = end;
				mn = in->mn;
				keeps_before = keeps;
				g_before = g;
			}
		} else if (is_branch(in->mn)) {
			break;
		}
		g |= !strcmp(in->mn, "MOVD") &&
		     (!strcmp(in->ops, "16(R28), R16") ||
		      !strcmp(in->ops, "24(R28), R16"));
		keeps &= !strcmp(in->mn, "CMP") ||
			 (n > 5 && (!strcmp(in->ops + n - 5, ", R16") ||
				    !strcmp(in->ops + n - 5, ", R17") ||
				    !strcmp(in->ops + n - 5, ", R27")));
	}
	err = probe_site__for_entry_arm64(bin, fn, &s);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", name, fn->name, gt_last_error());
		t->mismatches++;
		return;
	}
	if (found) {
		uint32_t flags = !strcmp(mn, "BLS") ?
			ARM64_PSTATE_C | ARM64_PSTATE_Z : ARM64_PSTATE_C;

		ok = (!strcmp(mn, "BLS") || !strcmp(mn, "BCC")) &&
		     s.kind == PROBE_SITE_STACK_CHECK && s.addr == check &&
		     s.skip_flags == flags && s.skip_clear == ARM64_PSTATE_C &&
		     s.at_entry_state == keeps_before &&
		     s.g_in_reg == g_before && s.emulated &&
		     s.morestack_tail.from == target &&
		     s.morestack_tail.to == tail_end;
		t->stack_checks++;
		t->huge += nchecks > 1;
		t->g += s.g_in_reg;
	} else if (s.kind == PROBE_SITE_EMULATED) {
		/* the first simulated instruction that no restart runs
		 * again, and no branch before it */
		for (k = f->first; k < f->first + f->n &&
		     l->lines[k].addr < s.addr; k++)
			ok &= !is_branch(l->lines[k].mn) &&
			      (!is_simulated(&l->lines[k]) ||
			       restarted(bin, l->lines[k].addr));
		ok &= k < f->first + f->n && l->lines[k].addr == s.addr &&
		      is_simulated(&l->lines[k]) && !restarted(bin, s.addr);
		ok &= s.skip_flags == 0 && s.emulated;
		t->emulated++;
	} else {
		/* the entry, or past the restartable sequence it begins */
		uint64_t end = restart_end(bin, fn->addr);

		ok = s.kind == PROBE_SITE_ENTRY && s.skip_flags == 0 &&
		     s.addr == (end ? end - 4 : fn->addr);
		t->entry++;
	}
	/* where the entry state is seen once per call */
	{
		uint64_t end = restart_end(bin, fn->addr);

		ok &= s.entry_addr == (end ? end - 4 : fn->addr);
		t->restarts += end != 0;
	}
	if (!ok) {
		fprintf(stderr, "%s: %s: site %s at 0x%llx (skip 0x%x/0x%x, entry state %d, g %d, tail [0x%llx,0x%llx)); objdump: %s at 0x%llx (entry state %d, g %d, tail [0x%llx,0x%llx))\n",
			name, fn->name, probe_site_kind__str(s.kind),
			(unsigned long long)s.addr, s.skip_flags, s.skip_clear,
			s.at_entry_state, s.g_in_reg,
			(unsigned long long)s.morestack_tail.from,
			(unsigned long long)s.morestack_tail.to,
			found ? mn : "no stack check",
			(unsigned long long)check, keeps_before, g_before,
			(unsigned long long)target, (unsigned long long)tail_end);
		t->mismatches++;
	}

	/* the truth: the exits */
	want = calloc(f->n ? f->n : 1, sizeof(*want));
	if (!want) {
		t->mismatches++;
		return;
	}
	for (k = f->first; k < f->first + f->n; k++) {
		const struct line *in = &l->lines[k];

		if (!strcmp(in->mn, "RET")) {
			want[nwant++] = in->addr;
			t->rets++;
		} else if (!strcmp(in->mn, "JMP")) {
			if (jmp_leaves(l, f, k, &table)) {
				want[nwant++] = in->addr;
				t->tails++;
			}
			t->tables += table;
		}
	}
	if (arm64_exit_sites__find(bin, fn, &s, false, &e, &ne) ||
	    arm64_exit_sites__find(bin, fn, NULL, true, &w, &nw) ||
	    !same_exits(e, ne, want, nwant) || !same_exits(w, nw, want, nwant)) {
		fprintf(stderr, "%s: %s: %zu exits swept (%zu whole), objdump %zu:",
			name, fn->name, ne, nw, nwant);
		for (k = 0; k < ne; k++)
			fprintf(stderr, " 0x%llx", (unsigned long long)e[k].addr);
		fprintf(stderr, " /");
		for (k = 0; k < nwant; k++)
			fprintf(stderr, " 0x%llx", (unsigned long long)want[k]);
		fprintf(stderr, "\n");
		t->mismatches++;
	}
	free(want);
	free(e);
	free(w);
}

TEST(every_function_matches_go_objdump)
{
	struct totals all = { 0 };
	char name[64], listed[64];
	size_t v, m, i, nbins = 0;

	for (v = 0; v < NVERSIONS; v++) {
		for (m = 0; m < NFORMS; m++) {
			struct totals t = { 0 };
			struct go_binary *bin;
			struct listing l;
			size_t unlisted = 0;

			snprintf(name, sizeof(name), "count-go1.%d-arm64%s",
				 versions[v], forms[m]);
			bin = go_fixture__open(name, true);
			CHECK(bin != NULL);
			if (!bin)
				continue;
			/* go tool objdump reads no stripped binary: its
			 * default build's code, the same, checked word by
			 * word */
			snprintf(listed, sizeof(listed), "count-go1.%d-arm64%s",
				 versions[v],
				 strcmp(forms[m], "-stripped") ? forms[m] : "");
			CHECK(listing__load(&l, versions[v],
					    test_fixture(listed)));
			for (i = 0; i < bin->nfuncs; i++) {
				const struct func *f =
					listing__func_at(&l, bin->funcs[i].addr);

				if (!f) {
					unlisted++;
					continue;
				}
				check_func(name, bin, &bin->funcs[i], &l, f, &t);
			}
			printf("%s: %zu functions (%zu not in objdump, %zu without code): %zu stack checks (%zu with a second, %zu reading g), %zu emulated, %zu entry, %zu entries restartable; %zu rets, %zu tail jumps, %zu jump tables; %zu mismatches\n",
			       name, t.funcs, unlisted, t.empty, t.stack_checks, t.huge,
			       t.g, t.emulated, t.entry, t.restarts, t.rets,
			       t.tails, t.tables, t.mismatches);
			/* the fixture was read, and holds every shape */
			CHECK(t.funcs > 1000);
			CHECK_EQ_INT(unlisted, 0);
			CHECK(t.stack_checks > t.funcs / 2);
			CHECK(t.huge > 0);
			CHECK(t.g == t.stack_checks);
			CHECK(t.emulated > 0);
			CHECK(t.restarts > 0);
			CHECK(t.tails > 0);
			CHECK(t.tables > 0);
			CHECK(t.rets > t.funcs);
			CHECK_EQ_INT(t.mismatches, 0);
			all.funcs += t.funcs;
			all.mismatches += t.mismatches;
			nbins++;
			listing__free(&l);
			go_binary__close(bin);
		}
	}
	CHECK_EQ_INT(nbins, NVERSIONS * NFORMS);
	printf("all: %zu binaries, %zu functions, %zu mismatches\n", nbins,
	       all.funcs, all.mismatches);
}

/* ldr x16, [x28, #16]; cmp sp, x16; b.ls tail; ret; tail: mov x3, x30;
 * bl 0x2000; b entry: the small frame's stack check, at 0x1000. */
static const uint8_t small_frame[] = {
	0x90, 0x0b, 0x40, 0xf9,	/* ldr x16, [x28, #16] */
	0xff, 0x63, 0x30, 0xeb,	/* cmp sp, x16 */
	0x49, 0x00, 0x00, 0x54,	/* b.ls 0x1010 */
	0xc0, 0x03, 0x5f, 0xd6,	/* ret */
	0xe3, 0x03, 0x1e, 0xaa,	/* mov x3, x30 */
	0xfb, 0x03, 0x00, 0x94,	/* bl 0x2000 */
	0xfa, 0xff, 0xff, 0x17,	/* b 0x1000 */
};

static const char *morestack_at_0x2000(void *ctx, uint64_t addr)
{
	return addr == 0x2000 ? "runtime.morestack_noctxt.abi0" : "main.f";
}

static const char *no_morestack(void *ctx, uint64_t addr)
{
	return "main.f";
}

/* The b.ls is the site; it is taken on C clear or Z set, which the
 * site's skip_flags and skip_clear say for every NZCV. */
TEST(bls_is_the_site_counted_when_c_set_and_z_clear)
{
	struct probe_site s;
	uint32_t nzcv, pstate;
	bool taken;

	CHECK_EQ_INT(probe_site__choose_arm64(small_frame, sizeof(small_frame),
					      0x1000, morestack_at_0x2000,
					      NULL, NULL, &s), 0);
	CHECK_EQ_INT(s.kind, PROBE_SITE_STACK_CHECK);
	CHECK_EQ_INT(s.addr, 0x1008);
	CHECK_EQ_INT(s.skip_flags, ARM64_PSTATE_C | ARM64_PSTATE_Z);
	CHECK_EQ_INT(s.skip_clear, ARM64_PSTATE_C);
	CHECK(s.at_entry_state);
	CHECK(s.g_in_reg);
	CHECK(s.emulated);
	CHECK_EQ_INT(s.morestack_tail.from, 0x1010);
	CHECK_EQ_INT(s.morestack_tail.to, 0x101c);
	for (nzcv = 0; nzcv < 16; nzcv++) {
		pstate = nzcv << 28;
		taken = !(pstate & ARM64_PSTATE_C) || (pstate & ARM64_PSTATE_Z);
		CHECK_EQ_INT(((pstate ^ s.skip_clear) & s.skip_flags) == 0,
			     !taken);
	}
}

/* A block that calls something else is no morestack tail: no stack check,
 * but the first simulated instruction of the entry block, the b.ls, which
 * no branch lands before (the b back goes to the entry itself), counting
 * every hit; after the ldr into R16, not the entry state. */
TEST(no_morestack_no_stack_check)
{
	struct probe_site s;

	CHECK_EQ_INT(probe_site__choose_arm64(small_frame, sizeof(small_frame),
					      0x1000, no_morestack, NULL, NULL,
					      &s),
		     0);
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, 0x1008);
	CHECK_EQ_INT(s.skip_flags, 0);
	CHECK_EQ_INT(s.skip_clear, 0);
	CHECK(!s.at_entry_state);
}

/* The capstone linked decodes AArch64 (scripts/capstone.sh's diet build
 * of x86 alone does not: make deps builds it again). */
TEST(capstone_decodes_aarch64)
{
	csh cs;

	if (arm64_disasm__handle(&cs)) {
		fprintf(stderr, "%s\n", gt_last_error());
		CHECK(!"capstone decodes AArch64");
	}
}

int main(void)
{
	RUN(capstone_decodes_aarch64);
	if (test_failed)
		return TEST_SUMMARY();
	RUN(bls_is_the_site_counted_when_c_set_and_z_clear);
	RUN(no_morestack_no_stack_check);
	RUN(every_function_matches_go_objdump);
	return TEST_SUMMARY();
}
