// SPDX-License-Identifier: MIT
/*
 * call_sites: where a call begins and ends, on every function of the
 * fixtures of every Go version and form, and of gccgo.
 *
 * Ground truth, independent of capstone: `objdump -d` of the same binary
 * and its program headers from `readelf -lW`. For each function that
 * func_probes finds for '*':
 *  - the entry is an instruction of the function; the entry byte, or an
 *    instruction the kernel emulates (a jump, call, nop or push);
 *  - no instruction before it moves SP or writes a register the function
 *    may take an argument in (AT&T: the last operand is the destination):
 *    register-ABI code may write R12 (the stack check's scratch), ABI0
 *    code (Go 1.15, assembly, which reads g from %fs) any register but SP,
 *    gccgo nothing;
 *  - g: none for gccgo, TLS for Go 1.15, R14 exactly when the stack check
 *    before the entry compares against 0x10(%r14);
 *  - the exits are instructions of the function, each a RET or a JMP, and
 *    every RET of the function is one of them;
 *  - every file offset is where readelf's segments put the address.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "probe/call_sites.h"
#include "probe/func_probes.h"
#include "objdump.h"
#include "test.h"

struct segment {
	uint64_t off, vaddr, filesz;
};

struct segments {
	struct segment v[16];
	size_t n;
};

static bool segments_load(struct segments *s, const char *path)
{
	char cmd[4200], buf[512], type[32];
	unsigned long long off, va, pa, fsz;
	FILE *f;

	s->n = 0;
	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, " %31s %llx %llx %llx %llx", type, &off, &va,
			   &pa, &fsz) == 5 && !strcmp(type, "LOAD") &&
		    s->n < sizeof(s->v) / sizeof(*s->v))
			s->v[s->n++] = (struct segment){ off, va, fsz };
	return pclose(f) == 0 && s->n > 0;
}

static bool offset_is(const struct segments *s, uint64_t addr, uint64_t off)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (addr >= s->v[i].vaddr && addr - s->v[i].vaddr < s->v[i].filesz)
			return off == addr - s->v[i].vaddr + s->v[i].off;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool is_ret(const char *mn)
{
	return !strcmp(mn, "ret") || !strcmp(mn, "retq");
}

static bool is_jmp(const char *mn)
{
	return !strcmp(mn, "jmp") || !strcmp(mn, "jmpq");
}

/* An instruction x86 uprobes emulate, by objdump's name for it. */
static bool is_emulated(const struct objdump_line *l)
{
	return (l->mn[0] == 'j' && strcmp(l->mn, "jmpq")) ||
	       starts(l->mn, "call") || starts(l->mn, "nop") ||
	       (!strcmp(l->mn, "xchg") && !strcmp(l->ops, "%ax,%ax")) ||
	       (starts(l->mn, "push") && l->ops[0] == '%');
}

/* The register an instruction writes, "" for none but flags, or NULL
 * when it moves SP. */
static const char *written_reg(const struct objdump_line *l)
{
	const char *comma;

	if (starts(l->mn, "push") || starts(l->mn, "pop") ||
	    starts(l->mn, "call") || is_ret(l->mn) || starts(l->mn, "leave"))
		return NULL;
	if (starts(l->mn, "cmp") || starts(l->mn, "test") ||
	    starts(l->mn, "nop") || l->mn[0] == 'j' ||
	    (!strcmp(l->mn, "xchg") && !strcmp(l->ops, "%ax,%ax")))
		return "";
	comma = strrchr(l->ops, ',');
	comma = comma ? comma + 1 : l->ops;
	if (*comma != '%')
		return "";	/* a store to memory */
	if (!strcmp(comma, "%rsp") || !strcmp(comma, "%esp"))
		return NULL;
	return comma;
}

struct tally {
	size_t funcs, r14, exits, entry_kind[4];
	size_t xchg_r8;		/* entries refused: an xchg with r8 */
};

/* Is the instruction at ADDR, by objdump, an exchange of rax with r8
 * (xchg %rax,%r8 or a narrower form), which the kernel takes for a nop? */
static bool is_xchg_r8(const struct objdump_listing *l, uint64_t addr)
{
	long at = objdump_listing__find(l, addr);

	return at >= 0 && !strcmp(l->v[at].mn, "xchg") &&
	       (!strcmp(l->v[at].ops, "%rax,%r8") ||
		!strcmp(l->v[at].ops, "%eax,%r8d") ||
		!strcmp(l->v[at].ops, "%ax,%r8w"));
}

static bool check_entry(const char *name, const struct objdump_listing *l,
			const struct segments *seg, int minor,
			const struct go_func *fn, const struct call_sites *cs,
			struct tally *t)
{
	long first = objdump_listing__find(l, fn->addr), at = objdump_listing__find(l, cs->entry.addr);
	bool r14 = false, abi0 = false, ok = true;
	const char *w;
	long k;

	if (first < 0 || at < first || (fn->size && cs->entry.addr >= fn->addr + fn->size)) {
		fprintf(stderr, "%s: %s: entry 0x%llx is no instruction of it\n",
			name, fn->name, (unsigned long long)cs->entry.addr);
		return false;
	}
	if (cs->entry.addr != fn->addr && !is_emulated(&l->v[at])) {
		fprintf(stderr, "%s: %s: entry %s at 0x%llx is single-stepped\n",
			name, fn->name, l->v[at].mn,
			(unsigned long long)cs->entry.addr);
		ok = false;
	}
	if (cs->entry.skip_flags && cs->entry.kind != PROBE_SITE_STACK_CHECK)
		ok = false;
	for (k = first; k < at; k++)
		abi0 |= strstr(l->v[k].ops, "%fs:") != NULL;
	for (k = first; k < at; k++) {
		const struct objdump_line *in = &l->v[k];

		r14 |= starts(in->mn, "cmp") && strstr(in->ops, "0x10(%r14)");
		w = written_reg(in);
		if (w && (!*w || minor == 15 || (abi0 && minor >= 0) ||
			  (minor > 15 && !strcmp(w, "%r12"))))
			continue;
		fprintf(stderr, "%s: %s: `%s %s` at 0x%llx before the entry 0x%llx\n",
			name, fn->name, in->mn, in->ops,
			(unsigned long long)in->addr,
			(unsigned long long)cs->entry.addr);
		ok = false;
	}
	if (cs->g != (minor < 0 ? CALL_G_NONE : r14 ? CALL_G_R14 : CALL_G_TLS)) {
		fprintf(stderr, "%s: %s: %s, objdump %s\n", name, fn->name,
			call_g__str(cs->g), r14 ? "cmp 0x10(%r14)" : "no R14");
		ok = false;
	}
	if (!offset_is(seg, cs->entry.addr, cs->entry_offset)) {
		fprintf(stderr, "%s: %s: entry offset 0x%llx\n", name, fn->name,
			(unsigned long long)cs->entry_offset);
		ok = false;
	}
	t->r14 += cs->g == CALL_G_R14;
	t->entry_kind[cs->entry.kind & 3]++;
	return ok;
}

static bool check_exits(const char *name, const struct objdump_listing *l,
			const struct segments *seg, const struct go_func *fn,
			const struct call_sites *cs, struct tally *t)
{
	long first = objdump_listing__find(l, fn->addr), k, at;
	size_t i, nrets = 0, found = 0;
	bool ok = true;

	for (i = 0; i < cs->nexits; i++) {
		const struct call_exit *e = &cs->exits[i];

		at = objdump_listing__find(l, e->addr);
		if (at < 0 || e->addr < fn->addr ||
		    (fn->size && e->addr >= fn->addr + fn->size) ||
		    !(e->kind == EXIT_RET ? is_ret(l->v[at].mn) : is_jmp(l->v[at].mn)) ||
		    !offset_is(seg, e->addr, e->offset)) {
			fprintf(stderr, "%s: %s: exit 0x%llx (%s) is %s\n", name,
				fn->name, (unsigned long long)e->addr,
				exit_kind__str(e->kind), at < 0 ? "no instruction" :
				l->v[at].mn);
			ok = false;
		}
		found += e->kind == EXIT_RET;
	}
	/* every RET of the body, when its end is known */
	for (k = first; fn->size && k >= 0 && (size_t)k < l->n &&
	     l->v[k].addr < fn->addr + fn->size; k++)
		nrets += is_ret(l->v[k].mn);
	if (fn->size && nrets != found) {
		fprintf(stderr, "%s: %s: %zu RETs, objdump %zu\n", name, fn->name,
			found, nrets);
		ok = false;
	}
	t->exits += cs->nexits;
	return ok;
}

/* Every out-of-line function of FIXTURE. */
static void check_fixture(const char *fixture, int minor)
{
	const char *path = test_fixture(fixture);
	struct func_probes fp = { 0 };
	struct tally t = { 0 };
	struct segments seg;
	struct go_binary *bin;
	struct call_sites cs;
	struct objdump_listing l;
	size_t i, bad = 0;
	int err;

	if (go_binary__open(path, &bin)) {
		fprintf(stderr, "%s: %s\n", path, gt_last_error());
		CHECK(!"fixture opens");
		return;
	}
	CHECK(objdump_listing__load(&l, path, NULL));
	CHECK(segments_load(&seg, path));
	CHECK_EQ_INT(func_probes__collect(bin, "*", false, &fp), 0);
	for (i = 0; i < fp.n && bad < 20; i++) {
		const struct func_probe *p = &fp.probes[i];
		const struct go_func *fn = go_binary__func_at(bin, p->func_addr);

		if (p->inlined)
			continue;
		/* Every function decodes, AVX-512 included (capstone 5); the
		 * only entry refused is an xchg with r8, which the kernel
		 * would skip as a nop (runtime.gcWriteBarrierR8, Go 1.17 to
		 * 1.20): objdump says which instruction that is. */
		err = call_sites__find(bin, p, CALL_SITES_ENTRY | CALL_SITES_EXITS,
				       NULL, &cs);
		if (err == -EPERM && is_xchg_r8(&l, fn->addr)) {
			t.xchg_r8++;
			call_sites__free(&cs);
			continue;
		}
		if (err || is_xchg_r8(&l, cs.entry.addr)) {
			fprintf(stderr, "%s: %s: %s\n", fixture, fn->name,
				err ? gt_last_error() : "its entry probe is an xchg with r8");
			bad++;
			call_sites__free(&cs);
			continue;
		}
		t.funcs++;
		if (!check_entry(fixture, &l, &seg, minor, fn, &cs, &t) ||
		    !check_exits(fixture, &l, &seg, fn, &cs, &t))
			bad++;
		call_sites__free(&cs);
	}
	CHECK_EQ_INT(bad, 0);
	CHECK(t.funcs > (minor < 0 ? 10 : 500));
	/* the write barrier's trampolines: Go 1.15 to 1.20 */
	CHECK_EQ_INT(t.xchg_r8, minor >= 0 && minor <= 20);
	/* What the fixtures are known to hold: register-ABI code with g in
	 * R14 from Go 1.17 on, stack checks in most functions. */
	if (minor >= 17)
		CHECK(t.r14 > t.funcs / 3);
	else
		CHECK_EQ_INT(t.r14, 0);
	if (minor >= 0)
		CHECK(t.entry_kind[PROBE_SITE_STACK_CHECK] > t.funcs / 3);
	else
		CHECK(t.entry_kind[PROBE_SITE_EMULATED] > 10);
	objdump_listing__free(&l);
	func_probes__free(&fp);
	go_binary__close(bin);
}

static const int minors[] = { 15, 19, 21, 23, 25, 27 };

static void check_versions(const char *program, const char *form)
{
	char name[64];
	size_t i;

	for (i = 0; i < sizeof(minors) / sizeof(*minors); i++) {
		snprintf(name, sizeof(name), "%s-go1.%d-%s", program, minors[i],
			 form);
		check_fixture(name, minors[i]);
	}
}

TEST(count_default) { check_versions("count", "default"); }
TEST(count_stripped) { check_versions("count", "stripped"); }
TEST(count_pie) { check_versions("count", "pie"); }
TEST(count_cgo) { check_versions("count", "cgo"); }
TEST(args_default) { check_versions("args", "default"); }

TEST(gccgo)
{
	check_fixture("count-gccgo", -1);
	check_fixture("args-gccgo", -1);
}

/* An inlined copy has no call of its own: no sites, an error. */
TEST(inlined_copy_is_refused)
{
	struct func_probes fp = { 0 };
	struct go_binary *bin;
	struct call_sites cs;
	size_t i, n = 0;

	if (go_binary__open(test_fixture("count-go1.21-default"), &bin)) {
		CHECK(!"fixture opens");
		return;
	}
	CHECK_EQ_INT(func_probes__collect(bin, "main.*", false, &fp), 0);
	for (i = 0; i < fp.n; i++) {
		if (!fp.probes[i].inlined)
			continue;
		n++;
		CHECK(call_sites__find(bin, &fp.probes[i], CALL_SITES_ENTRY,
				       NULL, &cs) < 0);
		CHECK(strstr(gt_last_error(), fp.probes[i].name) != NULL);
		call_sites__free(&cs);
	}
	CHECK(n > 0);
	func_probes__free(&fp);
	go_binary__close(bin);
}

int main(void)
{
	RUN(count_default);
	RUN(count_stripped);
	RUN(count_pie);
	RUN(count_cgo);
	RUN(args_default);
	RUN(gccgo);
	RUN(inlined_copy_is_refused);
	return TEST_SUMMARY();
}
