// SPDX-License-Identifier: MIT
/*
 * exit_sites: every ret and tail jmp of a function.
 *
 * Ground truth is `objdump -d` of the same binary, read through popen:
 * its ret instructions, and its jmps whose target lies outside the
 * function, or that go through a register or a non-indexed memory operand
 * (exit_sites.c explains why those leave and indexed ones do not). The
 * functions and their bounds come from `nm -S` (of the default twin for a
 * stripped fixture). Checked for every main.* function of every count
 * fixture, and for every function of three whole binaries: every one
 * decodes, AVX-512 included (capstone 5).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include "core/error.h"
#include "x86/exit_sites.h"
#include "x86/probe_site.h"
#include "gobin/go_binary.h"
#include "cached_output.h"
#include "test.h"

static const int versions[] = { 15, 19, 21, 23, 25, 27 };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

/* One ret or jmp in objdump's listing. */
struct truth_insn {
	uint64_t addr;
	/* r ret, D direct jmp, R *%reg, T *(b,i,s), M other *mem */
	char kind;
	uint64_t target;
};

struct truth {
	struct truth_insn *v;
	size_t n;
};

static bool truth_load(const char *path, struct truth *t)
{
	static const char awk[] =
		"$1 ~ /^[0-9a-f]+:$/ {\n"
		"  a = substr($1, 1, length($1) - 1); m = $2; op = $3\n"
		"  if (m == \"bnd\" || m == \"repz\" || m == \"notrack\") { m = $3; op = $4 }\n"
		"  if (m == \"ret\" || m == \"retq\") print a, \"r\", 0\n"
		"  else if (m == \"jmp\" || m == \"jmpq\") {\n"
		"    if (op ~ /^\\*%/) print a, \"R\", 0\n"
		"    else if (op ~ /^\\*.*,%[a-z0-9]+,[1248]\\)$/) print a, \"T\", 0\n"
		"    else if (op ~ /^\\*/) print a, \"M\", 0\n"
		"    else print a, \"D\", op\n"
		"  }\n"
		"}\n";
	char cmd[4096 + sizeof(awk)], line[256], kind;
	unsigned long long a, target;
	size_t cap = 0;
	void *v;
	FILE *p;

	t->v = NULL;
	t->n = 0;
	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn '%s' | awk '%s'", path, awk);
	p = cached_output__open(cmd, path, "objdump");
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %c %llx", &a, &kind, &target) != 3)
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 4096;
			v = realloc(t->v, cap * sizeof(*t->v));
			if (!v)
				break;
			t->v = v;
		}
		t->v[t->n].addr = a;
		t->v[t->n].kind = kind;
		t->v[t->n].target = target;
		t->n++;
	}
	fclose(p);
	return t->n > 0;
}

/*
 * Expected exits of [start, start+size) from objdump. Returns how many
 * were written to OUT (at most MAX); -1 when there are more.
 */
static long truth_exits(const struct truth *t, uint64_t start, uint64_t size,
			struct exit_site *out, size_t max)
{
	size_t lo = 0, hi = t->n, mid, n = 0;
	const struct truth_insn *in;
	enum exit_kind kind;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].addr < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && t->v[lo].addr - start < size; lo++) {
		in = &t->v[lo];
		switch (in->kind) {
		case 'r':
			kind = EXIT_RET;
			break;
		case 'D':
			if (in->target - start < size)
				continue;
			kind = EXIT_TAIL_JMP;
			break;
		case 'R':
		case 'M':
			kind = EXIT_TAIL_JMP;
			break;
		default:
			continue;
		}
		if (n == max)
			return -1;
		out[n].addr = in->addr;
		out[n].kind = kind;
		n++;
	}
	return (long)n;
}

#define MAX_EXITS 4096

/* Compare the library's exits of FN with objdump's over SIZE bytes.
 * Counts the exits seen into *NRET and *NTAIL. */
static void check_func(const struct go_binary *bin, const struct go_func *fn,
		       uint64_t size, const struct truth *t, const char *where,
		       size_t *nret, size_t *ntail)
{
	static struct exit_site want[MAX_EXITS];
	struct exit_site *got;
	size_t n, i;
	long nwant;
	bool same;
	int err;

	nwant = truth_exits(t, fn->addr, size, want, MAX_EXITS);
	CHECK(nwant >= 0);
	err = exit_sites__find(bin, fn, &got, &n);
	if (err)
		fprintf(stderr, "%s %s: %s\n", where, fn->name,
			gt_last_error());
	CHECK_EQ_INT(err, 0);
	if (err || nwant < 0)
		return;
	same = n == (size_t)nwant;
	for (i = 0; same && i < n; i++)
		same = got[i].addr == want[i].addr &&
		       got[i].kind == want[i].kind;
	if (!same) {
		fprintf(stderr, "%s %s at 0x%" PRIx64 ": got", where,
			fn->name, fn->addr);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %" PRIx64 "%s", got[i].addr,
				got[i].kind == EXIT_RET ? "r" : "j");
		fprintf(stderr, ", objdump");
		for (i = 0; i < (size_t)nwant; i++)
			fprintf(stderr, " %" PRIx64 "%s", want[i].addr,
				want[i].kind == EXIT_RET ? "r" : "j");
		fprintf(stderr, "\n");
		CHECK(same);
	}
	for (i = 0; i < n; i++) {
		if (got[i].kind == EXIT_RET)
			(*nret)++;
		else
			(*ntail)++;
	}
	free(got);
}

/*
 * The function nm calls NAME at ADDR. The library drops the ".abi0" of
 * assembly functions, and the pclntab of Go 1.18-1.19 writes everything
 * from the first '[' to the last ']' as "[...]": main.Sum[go.shape.int_0]
 * is main.Sum[...], main.(*Box[go.shape.int_0]).Get main.(*Box[...]).Get.
 */
static const struct go_func *func_named(const struct go_binary *bin,
					char *name, uint64_t addr)
{
	const struct go_func *fn;
	size_t len = strlen(name);
	const char *open = strchr(name, '['), *close = strrchr(name, ']');

	if (len > 5 && !strcmp(name + len - 5, ".abi0"))
		name[len - 5] = '\0';
	fn = go_binary__func_by_name(bin, name);
	if (fn || !open || !close || close < open)
		return fn;
	fn = go_binary__func_at(bin, addr);
	if (fn && !strncmp(fn->name, name, open - name + 1) &&
	    !strncmp(fn->name + (open - name), "[...]", 5) &&
	    !strcmp(fn->name + (open - name) + 5, close + 1))
		return fn;
	return NULL;
}

/* Every main.* function by `nm -S` of SYMS, looked up in the binary PATH. */
static void check_main_funcs(const char *path, const char *syms)
{
	char cmd[8300], line[1024], name[900], type;
	unsigned long long addr, size;
	size_t nfuncs = 0, nret = 0, ntail = 0;
	const struct go_func *fn;
	struct go_binary *bin;
	struct truth t;
	FILE *p;
	int err;

	err = go_binary__open(path, &bin);
	if (err)
		fprintf(stderr, "%s: %s\n", path, gt_last_error());
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	if (!truth_load(path, &t)) {
		fprintf(stderr, "%s: no objdump listing\n", path);
		CHECK(0);
		go_binary__close(bin);
		return;
	}
	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s'", syms);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%llx %llx %c %899s", &addr, &size, &type,
			   name) != 4 || (type != 'T' && type != 't') ||
		    strncmp(name, "main.", 5))
			continue;
		fn = func_named(bin, name, addr);
		if (!fn) {
			fprintf(stderr, "%s: no function %s\n", path, name);
			CHECK(0);
			continue;
		}
		CHECK_EQ_INT(fn->addr, addr);
		check_func(bin, fn, size, &t, path, &nret, &ntail);
		nfuncs++;
	}
	if (p)
		CHECK_EQ_INT(pclose(p), 0);
	/* main.main, add, inc, sum, recurse, bigframe, worker, step... */
	if (nfuncs < 10 || nret < 10)
		fprintf(stderr, "%s: %zu functions, %zu rets\n", path, nfuncs,
			nret);
	CHECK(nfuncs >= 10);
	CHECK(nret >= 10);
	free(t.v);
	go_binary__close(bin);
}

TEST(main_funcs_match_objdump)
{
	static const char *forms[] = { "default", "pie", "cgo" };
	char name[64], twin[64], path[4096];
	size_t i, f;

	for (i = 0; i < NVERSIONS; i++) {
		for (f = 0; f < 3; f++) {
			snprintf(name, sizeof(name), "count-go1.%d-%s",
				 versions[i], forms[f]);
			snprintf(path, sizeof(path), "%s", test_fixture(name));
			check_main_funcs(path, path);
		}
		/* No symbols: the functions and bounds of the default twin,
		 * built from the same source at the same addresses. */
		snprintf(name, sizeof(name), "count-go1.%d-stripped",
			 versions[i]);
		snprintf(twin, sizeof(twin), "count-go1.%d-default",
			 versions[i]);
		snprintf(path, sizeof(path), "%s", test_fixture(name));
		check_main_funcs(path, test_fixture(twin));
	}
}

/* Every function of a whole binary, runtime assembly included. */
static void check_all_funcs(const char *name)
{
	const char *path = test_fixture(name);
	size_t i, nret = 0, ntail = 0;
	struct go_binary *bin;
	struct truth t;
	int err;

	err = go_binary__open(path, &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	CHECK_EQ_INT(bin->source, GO_FUNCS_SYMTAB);
	if (!truth_load(path, &t)) {
		CHECK(0);
		go_binary__close(bin);
		return;
	}
	for (i = 0; i < bin->nfuncs; i++)
		check_func(bin, &bin->funcs[i], bin->funcs[i].size, &t, path,
			   &nret, &ntail);
	/* Tail calls: wrappers, runtime.reflectcall, runtime.systemstack... */
	CHECK(nret > 1000);
	CHECK(ntail > 30);
	free(t.v);
	go_binary__close(bin);
}

TEST(whole_binaries_match_objdump)
{
	check_all_funcs("count-go1.15-default");
	check_all_funcs("count-go1.27-default");
	check_all_funcs("count-go1.21-cgo");
}

/* Do the exits A and B, and the errors EA and EB of their sweeps, agree? */
static bool same_exits(const struct exit_site *a, size_t na, int ea,
		       const struct exit_site *b, size_t nb, int eb)
{
	size_t k;

	/* bytes that do not decode, where both sweep them */
	if (ea || eb)
		return ea == eb;
	if (na != nb)
		return false;
	for (k = 0; k < na; k++)
		if (a[k].addr != b[k].addr || a[k].kind != b[k].kind ||
		    a[k].emulated != b[k].emulated)
			return false;
	return true;
}

/* exit_sites__find() sweeps only where the pcsp table says SP is as at
 * entry, and exit_sites__find_known() not the prologue and morestack tail
 * that choosing the counting site decoded: each must find what the whole
 * sweep finds, in every function of BINARY (those whose code does not
 * decode excepted, alike in all). */
static void check_narrowed(const char *name)
{
	struct exit_site *a, *b, *c;
	size_t i, na, nb, nc, nexits = 0, nfailed = 0, nskipped = 0;
	size_t nbodies = 0;
	struct go_binary *bin;
	struct probe_site site;
	int err, ea, eb, ec;

	err = go_binary__open(test_fixture(name), &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	for (i = 0; i < bin->nfuncs; i++) {
		const struct go_func *fn = &bin->funcs[i];

		ea = exit_sites__find(bin, fn, &a, &na);
		eb = exit_sites__find_whole(bin, fn, &b, &nb);
		CHECK_EQ_INT(probe_site__for_entry_x86(bin, fn, &site), 0);
		ec = exit_sites__find_known(bin, fn, &site, &c, &nc);
		nskipped += site.no_exit[1].to > site.no_exit[1].from;
		nbodies += site.kind != PROBE_SITE_STACK_CHECK &&
			   site.no_exit[0].to > site.no_exit[0].from;
		if ((!same_exits(a, na, ea, b, nb, eb) ||
		     !same_exits(c, nc, ec, b, nb, eb)) && nfailed++ < 5)
			fprintf(stderr, "%s: %s: %zu exits narrowed (%d), %zu known (%d), %zu whole (%d)\n",
				name, fn->name, na, ea, nc, ec, nb, eb);
		nexits += na;
		free(a);
		free(b);
		free(c);
	}
	CHECK_EQ_INT(nfailed, 0);
	CHECK(nexits > 1000);
	/* morestack tails were there to step over, and bodies swept
	 * before the site of a function without a stack check */
	CHECK(nskipped > 1000);
	CHECK(nbodies > 100);
	go_binary__close(bin);
}

TEST(narrowed_sweep_finds_every_exit)
{
	char name[64];
	size_t i;

	check_narrowed("buf-1.75.0");
	check_narrowed("esbuild-latest");
	check_narrowed("esbuild-go1.15");
	for (i = 0; i < NVERSIONS; i++) {
		snprintf(name, sizeof(name), "count-go1.%d-stripped", versions[i]);
		check_narrowed(name);
		snprintf(name, sizeof(name), "count-go1.%d-pie", versions[i]);
		check_narrowed(name);
	}
}

/* Some tail calls the rule is meant for. */
TEST(known_tail_calls)
{
	static const char *names[] = {
		"runtime.reflectcall",	/* jmp *%rax to runtime.callNN */
		"runtime.systemstack",	/* jmp *%rdi on the system stack */
		"runtime.mcall",	/* to badmcall: jmp *%rax or jmp rel */
	};
	char name[64];
	struct exit_site *s;
	const struct go_func *fn;
	struct go_binary *bin;
	size_t i, j, n, ntail;
	int err;

	for (i = 0; i < NVERSIONS; i++) {
		snprintf(name, sizeof(name), "count-go1.%d-default",
			 versions[i]);
		err = go_binary__open(test_fixture(name), &bin);
		CHECK_EQ_INT(err, 0);
		if (err)
			continue;
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			fn = go_binary__func_by_name(bin, names[j]);
			CHECK(fn != NULL);
			if (!fn || exit_sites__find(bin, fn, &s, &n)) {
				CHECK(0);
				continue;
			}
			for (ntail = 0; n--; )
				ntail += s[n].kind == EXIT_TAIL_JMP;
			if (!ntail)
				fprintf(stderr, "%s %s: no tail jmp\n", name,
					names[j]);
			CHECK(ntail > 0);
			free(s);
		}
		go_binary__close(bin);
	}
}

/* runtime.goexit (nop; call goexit1; nop) and runtime.abort (int $3; a
 * jmp to itself) never return: no exit, and objdump agrees. */
TEST(never_returns)
{
	static const char *names[] = { "runtime.goexit", "runtime.abort" };
	struct exit_site *s, want[4];
	const struct go_func *fn;
	struct go_binary *bin;
	char name[64];
	struct truth t;
	size_t i, j, n;
	int err;

	for (i = 0; i < NVERSIONS; i++) {
		snprintf(name, sizeof(name), "count-go1.%d-default",
			 versions[i]);
		err = go_binary__open(test_fixture(name), &bin);
		CHECK_EQ_INT(err, 0);
		if (err)
			continue;
		CHECK(truth_load(test_fixture(name), &t));
		for (j = 0; j < 2; j++) {
			fn = go_binary__func_by_name(bin, names[j]);
			CHECK(fn != NULL);
			if (!fn)
				continue;
			CHECK(fn->size > 0);
			CHECK_EQ_INT(truth_exits(&t, fn->addr, fn->size, want,
						 4), 0);
			s = (void *)1;
			n = 99;
			CHECK_EQ_INT(exit_sites__find(bin, fn, &s, &n), 0);
			CHECK_EQ_INT(n, 0);
			free(s);
		}
		free(t.v);
		go_binary__close(bin);
	}
}

/* Without a size: up to the next function, stopping at the int3 padding;
 * the same exits. */
TEST(unknown_size_reads_to_next_function)
{
	struct exit_site *a, *b;
	struct go_binary *bin;
	struct go_func f;
	size_t i, j, na, nb, checked = 0;
	int err;

	err = go_binary__open(test_fixture("count-go1.23-default"), &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	for (i = 0; i < bin->nfuncs; i++) {
		if (strncmp(bin->funcs[i].name, "main.", 5) &&
		    strncmp(bin->funcs[i].name, "runtime.m", 9))
			continue;
		f = bin->funcs[i];
		CHECK_EQ_INT(exit_sites__find(bin, &f, &a, &na), 0);
		f.size = 0;
		CHECK_EQ_INT(exit_sites__find(bin, &f, &b, &nb), 0);
		CHECK_EQ_INT(nb, na);
		for (j = 0; na == nb && j < na; j++) {
			CHECK_EQ_INT(b[j].addr, a[j].addr);
			CHECK_EQ_INT(b[j].kind, a[j].kind);
		}
		free(a);
		free(b);
		checked++;
	}
	CHECK(checked > 50);
	go_binary__close(bin);
}

/* A minimal ELF: one PT_LOAD holding CODE at CODE_VADDR. */
#define CODE_OFF	0x80
#define CODE_VADDR	(0x400000 + CODE_OFF)

static struct elf_file *code_elf(const uint8_t *code, size_t len,
				 char *path, size_t path_len)
{
	char tmpl[] = "/tmp/test_exit_sites.XXXXXX";
	uint8_t file[CODE_OFF + 256] = { 0 };
	Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
	Elf64_Phdr *ph = (Elf64_Phdr *)(file + sizeof(*eh));
	struct elf_file *ef = NULL;
	size_t size = CODE_OFF + len;
	int fd;

	if (len > sizeof(file) - CODE_OFF)
		return NULL;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_vaddr = ph->p_paddr = 0x400000;
	ph->p_filesz = ph->p_memsz = size;
	ph->p_align = 0x1000;
	memcpy(file + CODE_OFF, code, len);
	fd = mkstemp(tmpl);
	if (fd < 0)
		return NULL;
	if (write(fd, file, size) == (ssize_t)size &&
	    elf_file__open(tmpl, &ef))
		ef = NULL;
	close(fd);
	snprintf(path, path_len, "%s", tmpl);
	return ef;
}

/*
 * Every rule on hand-made code (at CODE_VADDR, 0x2c bytes):
 *  0: 49 3b 66 10        cmp 0x10(%r14),%rsp
 *  4: 76 0f              jbe 0x15
 *  6: 48 85 c0           test %rax,%rax
 *  9: 74 01              je 0xc
 *  b: c3                 ret                  exit
 *  c: c2 08 00           ret $8               exit
 *  f: e9 18 00 00 00     jmp 0x2c (just past the end)   exit
 * 14: cc                 int3 (not padding: code follows)
 * 15: e8 00 00 00 00     call 0x1a
 * 1a: eb e4              jmp 0 (back to the entry)
 * 1c: ff e0              jmp *%rax            exit
 * 1e: ff 24 c1           jmp *(%rcx,%rax,8)   a jump table
 * 21: ff 25 00 00 00 00  jmp *0x0(%rip)       exit
 * 27: cc cc cc cc cc     padding
 */
TEST(synthetic_code)
{
	static const uint8_t code[] = {
		0x49, 0x3b, 0x66, 0x10, 0x76, 0x0f, 0x48, 0x85, 0xc0, 0x74,
		0x01, 0xc3, 0xc2, 0x08, 0x00, 0xe9, 0x18, 0x00, 0x00, 0x00,
		0xcc, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xeb, 0xe4, 0xff, 0xe0,
		0xff, 0x24, 0xc1, 0xff, 0x25, 0x00, 0x00, 0x00, 0x00, 0xcc,
		0xcc, 0xcc, 0xcc, 0xcc,
	};
	/* the kernel single-steps a ret and an indirect jmp, emulates a
	 * direct one */
	static const struct exit_site want[] = {
		{ CODE_VADDR + 0x0b, EXIT_RET, false },
		{ CODE_VADDR + 0x0c, EXIT_RET, false },
		{ CODE_VADDR + 0x0f, EXIT_TAIL_JMP, true },
		{ CODE_VADDR + 0x1c, EXIT_TAIL_JMP, false },
		{ CODE_VADDR + 0x21, EXIT_TAIL_JMP, false },
	};
	static const uint8_t bad[] = { 0x90, 0x06, 0xc3 };	/* 06: invalid */
	struct go_func fn = { .name = "main.f", .addr = CODE_VADDR,
			      .size = sizeof(code) };
	struct go_binary bin = { .funcs = &fn, .nfuncs = 1 };
	struct exit_site *s;
	char path[64];
	size_t n, i;

	bin.elf = code_elf(code, sizeof(code), path, sizeof(path));
	CHECK(bin.elf != NULL);
	if (!bin.elf)
		return;
	CHECK_EQ_INT(exit_sites__find(&bin, &fn, &s, &n), 0);
	CHECK_EQ_INT(n, 5);
	for (i = 0; n == 5 && i < n; i++) {
		CHECK_EQ_INT(s[i].addr, want[i].addr);
		CHECK_EQ_INT(s[i].kind, want[i].kind);
		CHECK_EQ_INT(s[i].emulated, want[i].emulated);
	}
	free(s);
	/* The last function, size unknown: what the segment holds. */
	fn.size = 0;
	CHECK_EQ_INT(exit_sites__find(&bin, &fn, &s, &n), 0);
	CHECK_EQ_INT(n, 5);
	free(s);
	elf_file__close(bin.elf);
	unlink(path);

	bin.elf = code_elf(bad, sizeof(bad), path, sizeof(path));
	CHECK(bin.elf != NULL);
	if (!bin.elf)
		return;
	fn.size = sizeof(bad);
	s = (void *)1;
	CHECK_EQ_INT(exit_sites__find(&bin, &fn, &s, &n), -EINVAL);
	CHECK(s == NULL);
	CHECK(strstr(gt_last_error(), "cannot decode") != NULL);
	elf_file__close(bin.elf);
	unlink(path);
}

static const char *no_name_at(void *ctx, uint64_t addr)
{
	return NULL;
}

/*
 * AVX-512, as in Go 1.27's runtime.asyncPreempt (kmovq to memory) and
 * AVX-512 scanning (vpermb), or github.com/zeebo/xxh3.accumAVX512
 * (vpternlogd on zmm): capstone 4.0 decodes none of them. An assembly
 * function with no stack check, at CODE_VADDR (from `as` and objdump):
 *  0: 62 f3 75 48 25 c2 96  vpternlogd $0x96,%zmm2,%zmm1,%zmm0
 *  7: c4 e1 f8 91 0c 24     kmovq %k1,(%rsp)
 *  d: 62 f2 6d 48 8d d9     vpermb %zmm1,%zmm2,%zmm3
 * 13: 55                    push %rbp       the probe site: emulated
 * 14: 62 f1 fe 48 7f 07     vmovdqu64 %zmm0,(%rdi)
 * 1a: c4 e1 f8 90 0c 24     kmovq (%rsp),%k1
 * 20: 5d                    pop %rbp
 * 21: c5 f8 77              vzeroupper
 * 24: c3                    ret             the exit
 * 25: cc cc                 padding
 */
TEST(avx512_decodes)
{
	static const uint8_t code[] = {
		0x62, 0xf3, 0x75, 0x48, 0x25, 0xc2, 0x96, 0xc4, 0xe1, 0xf8,
		0x91, 0x0c, 0x24, 0x62, 0xf2, 0x6d, 0x48, 0x8d, 0xd9, 0x55,
		0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x07, 0xc4, 0xe1, 0xf8, 0x90,
		0x0c, 0x24, 0x5d, 0xc5, 0xf8, 0x77, 0xc3, 0xcc, 0xcc,
	};
	struct go_func fn = { .name = "main.avx512", .addr = CODE_VADDR,
			      .size = sizeof(code) };
	struct go_binary bin = { .funcs = &fn, .nfuncs = 1 };
	struct probe_site site;
	struct exit_site *s;
	char path[64];
	size_t n;
	int err;

	bin.elf = code_elf(code, sizeof(code), path, sizeof(path));
	CHECK(bin.elf != NULL);
	if (!bin.elf)
		return;
	err = exit_sites__find(&bin, &fn, &s, &n);
	if (err)
		fprintf(stderr, "%s\n", gt_last_error());
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(n, 1);
	if (!err && n == 1) {
		CHECK_EQ_INT(s[0].addr, CODE_VADDR + 0x24);
		CHECK_EQ_INT(s[0].kind, EXIT_RET);
	}
	free(s);
	/* Size unknown: the same sweep, up to the padding. */
	fn.size = 0;
	err = exit_sites__find(&bin, &fn, &s, &n);
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(n, 1);
	if (!err && n == 1)
		CHECK_EQ_INT(s[0].addr, CODE_VADDR + 0x24);
	free(s);
	elf_file__close(bin.elf);
	unlink(path);

	/* The site is the push only when all three before it decode, and
	 * nothing of the body (decoded to its end) branches back into them.
	 * vpternlogd wrote zmm0 (X0, an argument register): not the entry
	 * state. */
	CHECK_EQ_INT(probe_site__choose_x86(code, sizeof(code), CODE_VADDR,
					    no_name_at, NULL, NULL, &site), 0);
	CHECK_EQ_INT(site.kind, PROBE_SITE_EMULATED);
	CHECK_EQ_INT(site.addr, CODE_VADDR + 0x13);
	CHECK_EQ_INT(site.skip_flags, 0);
	CHECK(!site.at_entry_state);
}

TEST(arm64_not_supported)
{
	struct elf_file ef = { .path = "fake", .machine = EM_AARCH64 };
	struct go_binary bin = { .elf = &ef };
	struct go_func fn = { .name = "main.f", .addr = 0x10000, .size = 8 };
	struct exit_site *s = (void *)1;
	size_t n = 99;

	CHECK_EQ_INT(exit_sites__find(&bin, &fn, &s, &n), -ENOTSUP);
	CHECK(s == NULL);
	CHECK_EQ_INT(n, 0);
	CHECK(strstr(gt_last_error(), "arm64") != NULL);
}

TEST(unreadable_code)
{
	struct exit_site *s;
	struct go_binary *bin;
	struct go_func fn;
	size_t n;
	int err;

	err = go_binary__open(test_fixture("count-go1.21-default"), &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	fn = bin->funcs[0];
	fn.addr = 0x10;		/* below every segment */
	CHECK_EQ_INT(exit_sites__find(bin, &fn, &s, &n), -ERANGE);
	fn.addr = UINT64_MAX - 4;
	fn.size = 64;
	CHECK_EQ_INT(exit_sites__find(bin, &fn, &s, &n), -EINVAL);
	go_binary__close(bin);
}

int main(void)
{
	RUN(main_funcs_match_objdump);
	RUN(whole_binaries_match_objdump);
	RUN(narrowed_sweep_finds_every_exit);
	RUN(known_tail_calls);
	RUN(never_returns);
	RUN(unknown_size_reads_to_next_function);
	RUN(synthetic_code);
	RUN(avx512_decodes);
	RUN(arm64_not_supported);
	RUN(unreadable_code);
	return TEST_SUMMARY();
}
