// SPDX-License-Identifier: MIT
/*
 * The argument registers a morestack tail spills (site/arg_spills.h), on
 * tails as gc writes them. x86-64: the bytes below are what objdump shows
 * of the args fixture's (main.widthU8: movb %al / %bl; main.splitStruct:
 * four movq), and a float's movsd. arm64: every stack check's tail in the
 * arm64 args and count fixtures (Go 1.19 to 1.27), against the stores to
 * RSP go tool objdump lists there (MOVD, MOVW, MOVH, MOVB, FMOVD, FMOVS,
 * STP, FSTPD, FSTPS).
 */
#include <errno.h>
#include <stdio.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "probe/machine_code.h"
#include "x86/arg_spills.h"
#include "go_fixture.h"
#include "go_objdump.h"
#include "test.h"

TEST(spills_in_slot_order)
{
	static const uint8_t tail[] = {
		0x48, 0x89, 0x5c, 0x24, 0x10,		/* mov %rbx,0x10(%rsp) */
		0x48, 0x89, 0x44, 0x24, 0x08,		/* mov %rax,0x8(%rsp) */
		0x88, 0x4c, 0x24, 0x18,			/* mov %cl,0x18(%rsp) */
		0xf2, 0x0f, 0x11, 0x44, 0x24, 0x20,	/* movsd %xmm0,0x20(%rsp) */
		0x44, 0x89, 0x44, 0x24, 0x28,		/* mov %r8d,0x28(%rsp) */
		0x0f, 0x1f, 0x00,			/* nopl (%rax) */
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* call */
	};
	struct arg_spill s[ARG_SPILLS_MAX];
	size_t n = 0;

	CHECK_EQ_INT(arg_spills__decode(tail, sizeof(tail), 0x1000, s, &n), 0);
	CHECK_EQ_INT(n, 5);
	if (n != 5)
		return;
	CHECK(s[0].reg == GO_REG_RAX && s[0].size == 8 && s[0].sp_offset == 8 &&
	      !s[0].freg);
	CHECK(s[1].reg == GO_REG_RBX && s[1].size == 8 && s[1].sp_offset == 16);
	CHECK(s[2].reg == GO_REG_RCX && s[2].size == 1 && s[2].sp_offset == 24);
	CHECK(s[3].freg && s[3].reg == 0 && s[3].size == 8 && s[3].sp_offset == 32);
	CHECK(s[4].reg == GO_REG_R8 && s[4].size == 4 && !s[4].freg);
}

/* Anything else before the call, or no call: not read. */
TEST(not_a_tail)
{
	static const uint8_t other[] = {
		0x48, 0x89, 0x44, 0x24, 0x08,		/* mov %rax,0x8(%rsp) */
		0x48, 0x89, 0xc3,			/* mov %rax,%rbx */
		0xe8, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t no_call[] = {
		0x48, 0x89, 0x44, 0x24, 0x08,
	};
	static const uint8_t not_an_arg[] = {
		0x4c, 0x89, 0x74, 0x24, 0x08,		/* mov %r14,0x8(%rsp) */
		0xe8, 0x00, 0x00, 0x00, 0x00,
	};
	struct arg_spill s[ARG_SPILLS_MAX];
	size_t n;

	CHECK_EQ_INT(arg_spills__decode(other, sizeof(other), 0x1000, s, &n), -EINVAL);
	CHECK_EQ_INT(arg_spills__decode(no_call, sizeof(no_call), 0x1000, s, &n), -EINVAL);
	CHECK_EQ_INT(arg_spills__decode(not_an_arg, sizeof(not_an_arg), 0x1000, s, &n),
		     -EINVAL);
	gt_error_clear();
}

/* The register REG ("R3", "F0") into *N and *FREG. */
static bool reg_of(const char *reg, size_t len, uint8_t *n, bool *freg)
{
	char *end;
	long v;

	if (len < 2 || (reg[0] != 'R' && reg[0] != 'F'))
		return false;
	v = strtol(reg + 1, &end, 10);
	if ((size_t)(end - reg) != len || v < 0 || v > 15)
		return false;
	*n = (uint8_t)v;
	*freg = reg[0] == 'F';
	return true;
}

/* The spills go tool objdump lists in IN: `MOVB R0, 8(RSP)`, `STP (R0,
 * R1), 8(RSP)`, `FMOVD F0, 16(RSP)`..., into OUT (one or two); how many. */
static size_t listed_spills(const struct line *in, struct arg_spill *out)
{
	static const struct {
		const char *mn;
		uint8_t size;
		bool pair;
	} stores[] = {
		{ "MOVD", 8, false }, { "MOVW", 4, false }, { "MOVH", 2, false },
		{ "MOVB", 1, false }, { "FMOVD", 8, false }, { "FMOVS", 4, false },
		{ "STP", 8, true }, { "STPW", 4, true }, { "FSTPD", 8, true },
		{ "FSTPS", 4, true },
	};
	const char *ops = in->ops, *comma;
	bool f1, f2;
	size_t i;
	long off;

	for (i = 0; i < sizeof(stores) / sizeof(stores[0]); i++)
		if (!strcmp(in->mn, stores[i].mn))
			break;
	if (i == sizeof(stores) / sizeof(stores[0]))
		return 0;
	if (stores[i].pair) {
		const char *close = strchr(ops, ')');

		comma = strchr(ops, ',');
		if (ops[0] != '(' || !comma || !close || comma > close ||
		    !reg_of(ops + 1, (size_t)(comma - ops - 1), &out[0].reg, &f1) ||
		    !reg_of(comma + 2, (size_t)(close - comma - 2), &out[1].reg, &f2) ||
		    sscanf(close + 1, ", %ld(RSP)", &off) != 1)
			return 0;
	} else {
		comma = strchr(ops, ',');
		if (!comma || !reg_of(ops, (size_t)(comma - ops), &out[0].reg, &f1) ||
		    sscanf(comma, ", %ld(RSP)", &off) != 1)
			return 0;
		f2 = f1;
	}
	out[0].sp_offset = (int32_t)off;
	out[0].size = stores[i].size;
	out[0].freg = f1;
	if (!stores[i].pair)
		return 1;
	out[1].sp_offset = (int32_t)off + stores[i].size;
	out[1].size = stores[i].size;
	out[1].freg = f2;
	return 2;
}

/* FN's tail's spills against the listing: the same, in slot order. */
static bool tail_matches(const struct go_binary *bin, const struct go_func *fn,
			 const struct listing *l, size_t *nspills)
{
	struct arg_spill got[ARG_SPILLS_MAX], want[ARG_SPILLS_MAX + 1];
	const struct code_span *t;
	const struct func *f;
	const uint8_t *code;
	struct probe_site s;
	size_t n = 0, nwant = 0, k;

	if (machine_code__probe_site(bin, fn, &s) ||
	    s.kind != PROBE_SITE_STACK_CHECK)
		return true;
	t = &s.morestack_tail;
	if (elf_file__read_vaddr(bin->elf, t->from, t->to - t->from, &code) ||
	    machine_code__arg_spills(bin, code, t->to - t->from, t->from, got,
				     &n)) {
		fprintf(stderr, "%s: tail at 0x%llx not read: %s\n", fn->name,
			(unsigned long long)t->from, gt_last_error());
		return false;
	}
	f = listing__func_at(l, fn->addr);
	for (k = f ? f->first : 0; f && k < f->first + f->n; k++) {
		const struct line *in = &l->lines[k];

		if (in->addr < t->from || in->addr >= t->to)
			continue;
		if (!strcmp(in->mn, "CALL") || nwant + 2 > ARG_SPILLS_MAX + 1)
			break;
		nwant += listed_spills(in, &want[nwant]);
	}
	arg_spills__sort(want, nwant);
	*nspills += n;
	if (n != nwant)
		goto differ;
	for (k = 0; k < n; k++)
		if (got[k].sp_offset != want[k].sp_offset ||
		    got[k].reg != want[k].reg || got[k].size != want[k].size ||
		    got[k].freg != want[k].freg)
			goto differ;
	return true;
differ:
	fprintf(stderr, "%s: %zu spills read, go tool objdump lists %zu\n",
		fn->name, n, nwant);
	return false;
}

TEST(arm64_tails_match_go_objdump)
{
	static const int versions[] = { 19, 21, 23, 25, 27 };
	static const char *const programs[] = { "args", "count" };
	size_t v, p, i;

	for (v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		for (p = 0; p < sizeof(programs) / sizeof(programs[0]); p++) {
			size_t funcs = 0, spills = 0, bad = 0;
			struct go_binary *bin;
			struct listing l;
			char name[64];

			snprintf(name, sizeof(name), "%s-go1.%d-arm64",
				 programs[p], versions[v]);
			bin = go_fixture__open(name, true);
			CHECK(bin != NULL);
			if (!bin)
				continue;
			CHECK(listing__load(&l, versions[v], test_fixture(name)));
			for (i = 0; i < bin->nfuncs; i++) {
				funcs++;
				bad += !tail_matches(bin, &bin->funcs[i], &l,
						     &spills);
			}
			printf("%s: %zu functions, %zu spills, %zu differ\n",
			       name, funcs, spills, bad);
			CHECK(funcs > 1000 && spills > 1000);
			CHECK_EQ_INT(bad, 0);
			listing__free(&l);
			go_binary__close(bin);
		}
	}
}

int main(void)
{
	RUN(spills_in_slot_order);
	RUN(not_a_tail);
	RUN(arm64_tails_match_go_objdump);
	return TEST_SUMMARY();
}
