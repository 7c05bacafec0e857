// SPDX-License-Identifier: MIT
/*
 * probe_site: the counting site of a function.
 *
 * Hand-made x86-64 code exercises each rule of the choice. On the fixtures,
 * the ground truth comes from `objdump -d` of the same binary and the
 * runtime.morestack addresses from `nm`: for every function, the last
 * prologue jcc whose target block calls runtime.morestack* and jumps back to
 * the entry must be the site; elsewhere the site must be the entry or an
 * emulated instruction that no branch of the function reaches.
 */
#include <stdbool.h>
#include <stdint.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "x86/probe_site.h"
#include "objdump.h"
#include "test.h"

#define ENTRY 0x401000ull

/* The name callback for hand-made code: one morestack, one other. */
#define MORESTACK 0x400100ull
#define OTHER_FUNC 0x400200ull

static const char *fake_name_at(void *ctx, uint64_t addr)
{
	if (addr == MORESTACK)
		return "runtime.morestack_noctxt.abi0";
	if (addr == OTHER_FUNC)
		return "runtime.other";
	return NULL;
}

/* Encode `call TO` / `jmp TO` (rel32) at offset OFF of CODE. */
static void put_rel32(uint8_t *code, size_t off, uint8_t op, uint64_t to)
{
	int32_t rel = (int32_t)(to - (ENTRY + off + 5));

	code[off] = op;
	memcpy(code + off + 1, &rel, 4);
}

static struct probe_site choose(const uint8_t *code, size_t len)
{
	struct probe_site s = { .addr = 1, .skip_flags = 99, .kind = 99 };

	CHECK_EQ_INT(probe_site__choose_x86(code, len, ENTRY, fake_name_at,
					    NULL, NULL, &s), 0);
	return s;
}

/*
 * Go 1.17+ small frame:
 *  0: 49 3b 66 10      cmp 0x10(%r14),%rsp
 *  4: 76 0d            jbe 13
 *  6: 55               push %rbp
 *  7: 48 89 e5         mov %rsp,%rbp
 *  a: 5d               pop %rbp
 *  b: c3               ret
 *  c: cc ... cc        int3 padding
 * 13: e8 ..            call morestack
 * 18: e9 ..            jmp entry
 */
static size_t small_frame(uint8_t *c, uint64_t callee, uint64_t back)
{
	static const uint8_t head[] = { 0x49, 0x3b, 0x66, 0x10, 0x76, 0x0d,
					0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3,
					0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
					0xcc };

	memcpy(c, head, sizeof(head));
	put_rel32(c, 0x13, 0xe8, callee);
	put_rel32(c, 0x18, 0xe9, back);
	return 0x1d;
}

TEST(small_frame_stack_check)
{
	uint8_t c[64];
	size_t n = small_frame(c, MORESTACK, ENTRY);
	struct probe_site s = choose(c, n);

	CHECK_EQ_INT(s.addr, ENTRY + 4);
	CHECK_EQ_INT(s.kind, PROBE_SITE_STACK_CHECK);
	CHECK_EQ_INT(s.skip_flags, 0x41);
	CHECK(s.at_entry_state);
	CHECK(s.g_in_reg);
}

/*
 * Go 1.15: g from TLS into CX, then the same check.
 *  0: 64 48 8b 0c 25 f8 ff ff ff   mov %fs:0xfffffffffffffff8,%rcx
 *  9: 48 3b 61 10                  cmp 0x10(%rcx),%rsp
 *  d: 76 04                        jbe 13
 *  f: 55 5d c3 cc                  push %rbp; pop %rbp; ret; int3
 * 13: call morestack; jmp entry
 */
TEST(tls_stack_check_has_no_g_in_r14)
{
	static const uint8_t head[] = {
		0x64, 0x48, 0x8b, 0x0c, 0x25, 0xf8, 0xff, 0xff, 0xff,
		0x48, 0x3b, 0x61, 0x10, 0x76, 0x04, 0x55, 0x5d, 0xc3, 0xcc,
	};
	uint8_t c[64];
	struct probe_site s;

	memcpy(c, head, sizeof(head));
	put_rel32(c, 0x13, 0xe8, MORESTACK);
	put_rel32(c, 0x18, 0xe9, ENTRY);
	s = choose(c, 0x1d);
	CHECK_EQ_INT(s.kind, PROBE_SITE_STACK_CHECK);
	CHECK_EQ_INT(s.addr, ENTRY + 0xd);
	CHECK(s.at_entry_state);
	CHECK(!s.g_in_reg);
}

TEST(tail_without_morestack_is_not_a_stack_check)
{
	uint8_t c[64];
	size_t n = small_frame(c, OTHER_FUNC, ENTRY);
	struct probe_site s = choose(c, n);

	/* The jbe is still the first emulated instruction, run once. */
	CHECK_EQ_INT(s.addr, ENTRY + 4);
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.skip_flags, 0);
}

TEST(tail_not_back_to_entry_is_not_a_stack_check)
{
	uint8_t c[64];
	size_t n = small_frame(c, MORESTACK, ENTRY + 6);
	struct probe_site s = choose(c, n);

	/* The jmp lands on the push: the first emulated instruction that
	 * runs once per call is the jbe. */
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY + 4);
}

TEST(near_jbe_and_other_conditions)
{
	uint8_t c[64];
	size_t n = small_frame(c, MORESTACK, ENTRY);
	struct probe_site s;

	/* jle (7e) to the tail: a condition we do not handle. */
	c[4] = 0x7e;
	s = choose(c, n);
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY + 4);
	CHECK_EQ_INT(s.skip_flags, 0);

	/* jb (72): counted when CF is clear. */
	c[4] = 0x72;
	s = choose(c, n);
	CHECK_EQ_INT(s.kind, PROBE_SITE_STACK_CHECK);
	CHECK_EQ_INT(s.skip_flags, 0x01);
}

/*
 * Go 1.17+ frame over 4 KiB, near jumps:
 *  0: 49 89 e4               mov %rsp,%r12
 *  3: 49 81 ec 00 20 00 00   sub $0x2000,%r12
 *  a: 0f 82 LL LL LL LL      jb tail
 * 10: 4d 3b 66 10            cmp 0x10(%r14),%r12
 * 14: 0f 86 LL LL LL LL      jbe tail
 * 1a: 55                     push %rbp
 * 1b: c3                     ret
 * 1c: tail: call morestack; jmp entry
 */
TEST(large_frame_last_jcc_wins)
{
	static const uint8_t head[] = {
		0x49, 0x89, 0xe4, 0x49, 0x81, 0xec, 0x00, 0x20, 0x00, 0x00,
		0x0f, 0x82, 0x0c, 0x00, 0x00, 0x00,
		0x4d, 0x3b, 0x66, 0x10,
		0x0f, 0x86, 0x02, 0x00, 0x00, 0x00,
		0x55, 0xc3,
	};
	uint8_t c[64];
	struct probe_site s;

	memcpy(c, head, sizeof(head));
	put_rel32(c, 0x1c, 0xe8, MORESTACK);
	put_rel32(c, 0x21, 0xe9, ENTRY);
	s = choose(c, 0x26);
	CHECK_EQ_INT(s.addr, ENTRY + 0x14);
	CHECK_EQ_INT(s.kind, PROBE_SITE_STACK_CHECK);
	CHECK_EQ_INT(s.skip_flags, 0x41);
	/* R12 is the prologue's scratch: no argument lives there */
	CHECK(s.at_entry_state);
	CHECK(s.g_in_reg);

}

TEST(prefixed_branches_are_not_emulated)
{
	/*
	 * 0: 48 01 d8   add %rbx,%rax
	 * 3: 66 75 01   jne (0x66-prefixed: refused by the kernel)
	 * 6: c3         ret
	 * 7: c3         ret
	 */
	static const uint8_t jne66[] = { 0x48, 0x01, 0xd8, 0x66, 0x75, 0x01,
					 0xc3, 0xc3 };
	/* Same with a 2e (cs, "not taken" hint) prefix: also refused. */
	static const uint8_t jne2e[] = { 0x48, 0x01, 0xd8, 0x2e, 0x75, 0x01,
					 0xc3, 0xc3 };
	/* And a plain jne: emulated. */
	static const uint8_t jne[] = { 0x48, 0x01, 0xd8, 0x75, 0x01, 0xc3,
				       0xc3 };
	struct probe_site s;

	s = choose(jne66, sizeof(jne66));
	CHECK_EQ_INT(s.kind, PROBE_SITE_ENTRY);
	CHECK_EQ_INT(s.addr, ENTRY);
	s = choose(jne2e, sizeof(jne2e));
	CHECK_EQ_INT(s.kind, PROBE_SITE_ENTRY);
	s = choose(jne, sizeof(jne));
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY + 3);
	CHECK_EQ_INT(s.skip_flags, 0);
}

TEST(push_encodings)
{
	/* mov %rdi,%rax; push %r13 (41 55): emulated. */
	static const uint8_t push_r13[] = { 0x48, 0x89, 0xf8, 0x41, 0x55,
					    0x41, 0x5d, 0xc3 };
	/* mov %rdi,%rax; rex.W push %rbp (48 55): single-stepped. */
	static const uint8_t push_w[] = { 0x48, 0x89, 0xf8, 0x48, 0x55,
					  0x5d, 0xc3 };
	/* push %rbp first: the entry itself is emulated. */
	static const uint8_t push_first[] = { 0x55, 0x48, 0x89, 0xe5, 0x5d,
					      0xc3 };
	struct probe_site s;

	s = choose(push_r13, sizeof(push_r13));
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY + 3);
	/* the mov changed RAX: arguments are not as at entry there */
	CHECK(!s.at_entry_state);
	s = choose(push_w, sizeof(push_w));
	CHECK_EQ_INT(s.kind, PROBE_SITE_ENTRY);
	CHECK(s.at_entry_state);
	s = choose(push_first, sizeof(push_first));
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY);
	CHECK(s.at_entry_state);
	CHECK(!s.g_in_reg);
}

TEST(site_reached_by_a_branch_is_refused)
{
	/*
	 * 0: 48 89 f8   mov %rdi,%rax
	 * 3: 90         nop             <- first emulated
	 * 4: 48 ff c8   dec %rax
	 * 7: 75 fa      jne 3           loops back onto the nop
	 * 9: c3         ret
	 */
	static const uint8_t loop_nop[] = { 0x48, 0x89, 0xf8, 0x90, 0x48,
					    0xff, 0xc8, 0x75, 0xfa, 0xc3 };
	/* The same loop back to the entry itself: the nop is no worse. */
	static const uint8_t loop_entry[] = { 0x48, 0x89, 0xf8, 0x90, 0x48,
					      0xff, 0xc8, 0x75, 0xf7, 0xc3 };
	/* An indirect jump may land anywhere. */
	static const uint8_t indirect[] = { 0x48, 0x89, 0xf8, 0x90, 0xff,
					    0xe0 };
	struct probe_site s;

	s = choose(loop_nop, sizeof(loop_nop));
	CHECK_EQ_INT(s.kind, PROBE_SITE_ENTRY);
	CHECK_EQ_INT(s.addr, ENTRY);
	s = choose(loop_entry, sizeof(loop_entry));
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY + 3);
	s = choose(indirect, sizeof(indirect));
	CHECK_EQ_INT(s.kind, PROBE_SITE_ENTRY);
}

TEST(gccgo_split_stack)
{
	/*
	 *  0: 64 48 3b 24 25 70 00 00 00   cmp %fs:0x70,%rsp
	 *  9: 73 0d                        jae 18
	 *  b: 41 ba 08 00 00 00            mov $0x8,%r10d
	 * 11: e8 ..                        call __morestack
	 * 16: c3 c3                        ret; ret
	 * 18: 55 5d c3                     push %rbp; pop %rbp; ret
	 */
	uint8_t c[64] = { 0x64, 0x48, 0x3b, 0x24, 0x25, 0x70, 0x00, 0x00,
			  0x00, 0x73, 0x0d, 0x41, 0xba, 0x08, 0x00, 0x00,
			  0x00 };
	struct probe_site s;

	put_rel32(c, 0x11, 0xe8, OTHER_FUNC);
	c[0x16] = 0xc3;
	c[0x17] = 0xc3;
	c[0x18] = 0x55;
	c[0x19] = 0x5d;
	c[0x1a] = 0xc3;
	s = choose(c, 0x1b);
	CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(s.addr, ENTRY + 9);
	CHECK_EQ_INT(s.skip_flags, 0);
	/* the cmp sets flags only: SP and arguments as at entry */
	CHECK(s.at_entry_state);
	CHECK(!s.g_in_reg);
}

TEST(truncated_and_garbage_code)
{
	uint8_t c[64], r[512];
	size_t n = small_frame(c, MORESTACK, ENTRY), len, i;
	uint32_t x = 12345;
	struct probe_site s;

	s = choose(c, 0);
	CHECK_EQ_INT(s.kind, PROBE_SITE_ENTRY);
	CHECK_EQ_INT(s.addr, ENTRY);
	/* Cut anywhere: no stack check without the whole tail. */
	for (len = 1; len < n; len++) {
		s = choose(c, len);
		CHECK(s.kind != PROBE_SITE_STACK_CHECK);
		CHECK(s.addr >= ENTRY && s.addr < ENTRY + len);
	}
	/* Random bytes: a site inside the code, never a crash. */
	for (i = 0; i < 2000; i++) {
		size_t k;

		for (k = 0; k < sizeof(r); k++) {
			x = x * 1103515245 + 12345;
			r[k] = x >> 16;
		}
		len = 1 + (x >> 8) % sizeof(r);
		s = choose(r, len);
		CHECK(s.addr >= ENTRY && s.addr < ENTRY + len);
		CHECK(s.kind != PROBE_SITE_STACK_CHECK);
	}
}

TEST(kind_names)
{
	CHECK_EQ_STR(probe_site_kind__str(PROBE_SITE_ENTRY), "entry");
	CHECK_EQ_STR(probe_site_kind__str(PROBE_SITE_STACK_CHECK),
		     "stack-check");
	CHECK_EQ_STR(probe_site_kind__str(PROBE_SITE_EMULATED), "emulated");
	CHECK_EQ_STR(probe_site_kind__str(PROBE_SITE_INLINE), "inline");
}

/* ---- ground truth from objdump and nm ---- */

enum {
	MARK_FS = 1,		/* the operands read %fs: */
	MARK_R14 = 2,		/* the operands read a field of g in R14 */
	MARK_FS70 = 4,		/* gccgo's split-stack limit %fs:0x70 */
	MARK_NOP2 = 8,		/* 66 90, which objdump calls xchg %ax,%ax */
	MARK_REG = 16,		/* the only operand is a register */
};

struct addrs {
	uint64_t v[16];
	size_t n;
};

/* What the operands of LN read or are. */
static uint8_t line_marks(const struct objdump_line *ln)
{
	const char *ops = ln->ops;

	return (strstr(ops, "%fs:") ? MARK_FS : 0) |
	       (strstr(ops, "(%r14)") ? MARK_R14 : 0) |
	       (strstr(ops, "%fs:0x70") ? MARK_FS70 : 0) |
	       (!strcmp(ops, "%ax,%ax") ? MARK_NOP2 : 0) |
	       (ops[0] == '%' && !strpbrk(ops, ",(:") ? MARK_REG : 0);
}

static bool addrs_load_morestack(struct addrs *a, const char *path)
{
	char cmd[4200], buf[1024], name[512], type;
	unsigned long long addr;
	FILE *f;

	a->n = 0;
	snprintf(cmd, sizeof(cmd), "nm '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "%llx %c %511s", &addr, &type, name) == 3 &&
		    !strncmp(name, "runtime.morestack", 17) &&
		    a->n < sizeof(a->v) / sizeof(*a->v))
			a->v[a->n++] = addr;
	return pclose(f) == 0;
}

static bool addrs_has(const struct addrs *a, uint64_t addr)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->v[i] == addr)
			return true;
	return false;
}

static bool is_jcc(const char *mn)
{
	return mn[0] == 'j' && strcmp(mn, "jmp") != 0;
}

/* Does the block at TARGET call runtime.morestack* (and nothing else) and
 * jump to ENTRY? */
static bool truth_is_tail(const struct objdump_listing *l, const struct addrs *ms,
			  uint64_t target, uint64_t entry)
{
	long i = objdump_listing__find(l, target);
	bool called = false;
	int k;

	for (k = 0; i >= 0 && (size_t)i < l->n && k < 40; i++, k++) {
		const struct objdump_line *ln = &l->v[i];

		/* a bounds check's block calls panicIndex first and may
		 * fall into the tail: not a tail itself */
		if (!strcmp(ln->mn, "call")) {
			if (called || !ln->has_target || !addrs_has(ms, ln->target))
				return false;
			called = true;
		} else if (!strcmp(ln->mn, "jmp"))
			return called && ln->has_target &&
			       ln->target == entry;
		else if (!strcmp(ln->mn, "ret"))
			return false;
	}
	return false;
}

/* The last prologue jcc of the function at line index I to a morestack
 * tail, as a line index, or -1. */
static long truth_stack_check(const struct objdump_listing *l, const struct addrs *ms,
			      long i)
{
	uint64_t entry = l->v[i].addr;
	long last = -1;
	int k;

	for (k = 0; (size_t)i < l->n && k < 12; i++, k++) {
		const char *mn = l->v[i].mn;

		if (!strcmp(mn, "jmp") || !strcmp(mn, "ret") ||
		    !strcmp(mn, "call"))
			break;
		if (is_jcc(mn) && l->v[i].has_target &&
		    truth_is_tail(l, ms, l->v[i].target, entry))
			last = i;
	}
	return last;
}

static bool is_emulated(const struct objdump_line *ln)
{
	const char *mn = ln->mn;

	if (!strcmp(mn, "push"))
		return line_marks(ln) & MARK_REG;
	if (!strcmp(mn, "call") || !strcmp(mn, "jmp") || is_jcc(mn))
		return ln->has_target;
	return !strcmp(mn, "nop") ||
	       (!strcmp(mn, "xchg") && (line_marks(ln) & MARK_NOP2));
}

/* Does no branch of [entry, end) land in (entry, site]? */
static bool truth_runs_once(const struct objdump_listing *l, long i, uint64_t end,
			    uint64_t site)
{
	uint64_t entry = l->v[i].addr;

	/* the entry itself: (entry, entry] is empty, even for a jump
	 * through a register */
	if (site == entry)
		return true;
	for (; (size_t)i < l->n && l->v[i].addr < end; i++) {
		const struct objdump_line *ln = &l->v[i];

		if (!strcmp(ln->mn, "jmp") && !ln->has_target)
			return false;
		if ((is_jcc(ln->mn) || !strcmp(ln->mn, "jmp") ||
		     !strcmp(ln->mn, "call")) && ln->has_target &&
		    ln->target > entry && ln->target <= site)
			return false;
	}
	return true;
}

struct sweep {
	int checks, emulated, entries;
};

/* Check the site of FN against the listing; returns false on a mismatch
 * (after reporting it). */
static bool check_func(const char *fixture, const struct go_binary *bin,
		       const struct go_func *fn, const struct objdump_listing *l,
		       const struct addrs *ms, int minor, struct sweep *sw)
{
	struct probe_site s;
	long i, chk, at;
	uint64_t end = fn->addr + fn->size;
	bool ok = true;

	if (probe_site__for_entry_x86(bin, fn, &s) != 0) {
		fprintf(stderr, "%s: %s: %s\n", fixture, fn->name,
			gt_last_error());
		return false;
	}
	i = objdump_listing__find(l, fn->addr);
	if (i < 0)		/* not in .text (e.g. in another section) */
		return true;
	at = objdump_listing__find(l, s.addr);
	chk = truth_stack_check(l, ms, i);
	if (chk >= 0 && (!strcmp(l->v[chk].mn, "jbe") ||
			 !strcmp(l->v[chk].mn, "jb"))) {
		uint32_t want = strcmp(l->v[chk].mn, "jbe") ? 0x01 : 0x41;
		/* Where the check reads g from: TLS before the register
		 * ABI and in assembly (ABI0) functions, else R14. */
		uint8_t g = 0, g_want = minor <= 16 ? MARK_FS :
			    !strncmp(fn->name, "main.", 5) ? MARK_R14 :
			    MARK_FS | MARK_R14;
		long k;

		for (k = i; k < chk; k++)
			g |= line_marks(&l->v[k]);
		ok = s.kind == PROBE_SITE_STACK_CHECK &&
		     s.addr == l->v[chk].addr && s.skip_flags == want &&
		     (g & g_want);
		sw->checks++;
	} else if (s.kind == PROBE_SITE_EMULATED) {
		ok = at >= 0 && s.addr < end &&
		     is_emulated(&l->v[at]) && s.skip_flags == 0 &&
		     truth_runs_once(l, i, end, s.addr);
		sw->emulated++;
	} else {
		ok = s.kind == PROBE_SITE_ENTRY && s.addr == fn->addr &&
		     s.skip_flags == 0;
		sw->entries++;
	}
	if (!ok)
		fprintf(stderr, "%s: %s at 0x%llx: site 0x%llx %s flags 0x%x,"
			" objdump's stack check %s at 0x%llx\n", fixture,
			fn->name, (unsigned long long)fn->addr,
			(unsigned long long)s.addr,
			probe_site_kind__str(s.kind), s.skip_flags,
			chk >= 0 ? l->v[chk].mn : "none",
			chk >= 0 ? (unsigned long long)l->v[chk].addr : 0ull);
	return ok;
}

/* Every function of FIXTURE, and the named ones with known shapes. */
static void check_fixture(const char *fixture, const char *symtab_of,
			  int minor)
{
	static const char *const with_check[] = {
		"main.bigframe", "main.recurse", "main.worker", "main.main",
	};
	static const char *const leaves[] = { "main.add", "main.step" };
	char path[4096], sympath[4096];
	struct sweep sw = { 0 };
	struct go_binary *bin;
	struct objdump_listing l;
	struct addrs ms;
	size_t i;
	int bad = 0;

	snprintf(path, sizeof(path), "%s", test_fixture(fixture));
	snprintf(sympath, sizeof(sympath), "%s", test_fixture(symtab_of));
	if (go_binary__open(path, &bin) != 0) {
		fprintf(stderr, "%s: %s\n", path, gt_last_error());
		CHECK(!"fixture opens");
		return;
	}
	CHECK(objdump_listing__load(&l, path, ".text"));
	/* Stripped binaries keep the layout of their unstripped twin. */
	CHECK(addrs_load_morestack(&ms, sympath));
	CHECK(ms.n > 0 || minor < 0);
	for (i = 0; i < bin->nfuncs; i++)
		if (!check_func(fixture, bin, &bin->funcs[i], &l, &ms, minor,
				&sw) && ++bad > 20)
			break;
	CHECK_EQ_INT(bad, 0);
	for (i = 0; i < sizeof(with_check) / sizeof(*with_check); i++) {
		const struct go_func *fn =
			go_binary__func_by_name(bin, with_check[i]);
		struct probe_site s;

		struct go_func unsized, unmapped;
		struct probe_site s2;

		CHECK(fn != NULL);
		if (!fn || probe_site__for_entry_x86(bin, fn, &s))
			continue;
		/* Without a size, the code up to the next function. */
		unsized = *fn;
		unsized.size = 0;
		CHECK_EQ_INT(probe_site__for_entry_x86(bin, &unsized, &s2), 0);
		CHECK_EQ_INT(s2.addr, s.addr);
		CHECK_EQ_INT(s2.kind, s.kind);
		/* Code that is not in the file: an error, with a reason. */
		unmapped = *fn;
		unmapped.addr = 0x7fff00000000ull;
		gt_error_clear();
		CHECK(probe_site__for_entry_x86(bin, &unmapped, &s2) < 0);
		CHECK(strstr(gt_last_error(), fn->name) != NULL);
		unmapped.size = 0;
		CHECK(probe_site__for_entry_x86(bin, &unmapped, &s2) < 0);
		if (minor < 0) {	/* gccgo: the split-stack jae/jb */
			long at = objdump_listing__find(&l, s.addr);

			CHECK_EQ_INT(s.kind, PROBE_SITE_EMULATED);
			CHECK(at > 0 && is_jcc(l.v[at].mn) &&
			      (line_marks(&l.v[at - 1]) & MARK_FS70));
		} else {
			CHECK_EQ_INT(s.kind, PROBE_SITE_STACK_CHECK);
		}
	}
	for (i = 0; i < sizeof(leaves) / sizeof(*leaves); i++) {
		const struct go_func *fn =
			go_binary__func_by_name(bin, leaves[i]);
		struct probe_site s;

		CHECK(fn != NULL);
		if (fn && !probe_site__for_entry_x86(bin, fn, &s))
			CHECK(s.kind != PROBE_SITE_STACK_CHECK);
	}
	/* The Go runtime is mostly functions with a stack check. */
	if (minor >= 0)
		CHECK(sw.checks > (int)bin->nfuncs / 3);
	else
		CHECK(sw.emulated > 10);
	objdump_listing__free(&l);
	go_binary__close(bin);
}

static const int minors[] = { 15, 19, 21, 23, 25, 27 };

#define FIXTURE_TEST(form)						\
TEST(fixtures_##form)							\
{									\
	char name[64], twin[64];					\
	size_t i;							\
									\
	for (i = 0; i < sizeof(minors) / sizeof(*minors); i++) {	\
		snprintf(name, sizeof(name), "count-go1.%d-%s",		\
			 minors[i], #form);				\
		snprintf(twin, sizeof(twin), "count-go1.%d-%s",		\
			 minors[i], strcmp(#form, "stripped") ?		\
			 #form : "default");				\
		check_fixture(name, twin, minors[i]);			\
	}								\
}

FIXTURE_TEST(default)
FIXTURE_TEST(stripped)
FIXTURE_TEST(pie)
FIXTURE_TEST(cgo)

TEST(fixture_gccgo)
{
	check_fixture("count-gccgo", "count-gccgo", -1);
}

int main(void)
{
	RUN(small_frame_stack_check);
	RUN(tls_stack_check_has_no_g_in_r14);
	RUN(tail_without_morestack_is_not_a_stack_check);
	RUN(tail_not_back_to_entry_is_not_a_stack_check);
	RUN(near_jbe_and_other_conditions);
	RUN(large_frame_last_jcc_wins);
	RUN(prefixed_branches_are_not_emulated);
	RUN(push_encodings);
	RUN(site_reached_by_a_branch_is_refused);
	RUN(gccgo_split_stack);
	RUN(truncated_and_garbage_code);
	RUN(kind_names);
	RUN(fixtures_default);
	RUN(fixtures_stripped);
	RUN(fixtures_pie);
	RUN(fixtures_cgo);
	RUN(fixture_gccgo);
	return TEST_SUMMARY();
}
