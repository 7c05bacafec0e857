// SPDX-License-Identifier: MIT
/*
 * gstate_tracker: the wait reasons the tracker names, and where it finds
 * the runtime's transitions.
 *
 * Ground truth for the wait reasons is gdb's print of
 * runtime.waitReasonStrings (from DWARF and .symtab) in the default build
 * of each Go version; the tracker reads them from the machine code of
 * runtime.waitReason.String and the table's relocated pointers, in the
 * default, stripped, PIE and cgo (externally linked) builds, and in
 * Debian's caddy (Go 1.19, externally linked PIE, stripped).
 */
#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include "core/error.h"
#include "elf/elf_file.h"
#include "gobin/go_binary.h"
#include "probe/gstate_tracker.h"
#include "objdump.h"
#include "test.h"

static const int versions[] = { 15, 19, 21, 23, 25, 27 };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))
#define MAX_REASONS 64

struct reasons {
	char *s[MAX_REASONS];
	size_t n;
};

/* runtime.waitReasonStrings of PATH per gdb. */
static bool gdb_reasons(const char *path, struct reasons *r)
{
	char cmd[8192], *line = NULL, *p;
	size_t cap = 0;
	regmatch_t m[2];
	regex_t re;
	FILE *f;
	bool ok = false;

	r->n = 0;
	snprintf(cmd, sizeof(cmd),
		 "gdb -batch -iex 'set auto-load no' -ex 'set print elements 0' "
		 "-ex \"p 'runtime.waitReasonStrings'\" '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f || regcomp(&re, "0x[0-9a-f]+ \"([^\"]*)\"", REG_EXTENDED))
		return false;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "$1 = {", 6))
			continue;
		for (p = line; r->n < MAX_REASONS &&
		     !regexec(&re, p, 2, m, 0); p += m[0].rm_eo)
			r->s[r->n++] = strndup(p + m[1].rm_so,
					       m[1].rm_eo - m[1].rm_so);
		ok = r->n > 0;
	}
	free(line);
	regfree(&re);
	return pclose(f) == 0 && ok;
}

static void reasons_free(struct reasons *r)
{
	while (r->n)
		free(r->s[--r->n]);
}

static struct gstate_tracker *open_tracker(const char *path)
{
	struct goroutine_layout layout;
	struct gstate_tracker *t = NULL;
	struct go_binary *bin;
	int err;

	err = go_binary__open(path, &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return NULL;
	err = goroutine_layout__find(bin, &layout);
	if (!err)
		err = gstate_tracker__open(bin, &layout, &t);
	if (err)
		fprintf(stderr, "%s: %s\n", path, gt_last_error());
	CHECK_EQ_INT(err, 0);
	go_binary__close(bin);
	return t;
}

/* Does the kernel emulate the instruction at file offset OFF of PATH,
 * per objdump: a push, a jump, a call or a nop, which arch/x86/kernel/
 * uprobes.c emulates (it single-steps the rest)? 1, 0, or -1 when
 * objdump does not say. */
static int objdump_emulated(const char *path, uint64_t off)
{
	struct objdump_line line;
	char cmd[4400], buf[1024];
	struct elf_file *ef;
	uint64_t va;
	int r = -1;
	FILE *p;

	if (elf_file__open(path, &ef))
		return -1;
	r = elf_file__offset_to_vaddr(ef, off, &va);
	elf_file__close(ef);
	if (r)
		return -1;
	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn --start-address=0x%llx --stop-address=0x%llx '%s'",
		 (unsigned long long)va, (unsigned long long)va + 1, path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	r = -1;
	while (fgets(buf, sizeof(buf), p))
		if (objdump_line__parse(buf, &line) && line.addr == va)
			r = !strcmp(line.mn, "push") || line.mn[0] == 'j' ||
			    !strcmp(line.mn, "call") ||
			    !strncmp(line.mn, "nop", 3);
	pclose(p);
	return r;
}

/* The tracker of PATH names the reasons of WANT, and finds its sites. */
static void check_tracker(const char *path, const struct reasons *want,
			  int minor)
{
	struct gstate_tracker *t = open_tracker(path);
	size_t i;

	if (!t)
		return;
	CHECK_EQ_INT(t->nreasons, want->n);
	for (i = 0; i < t->nreasons && i < want->n; i++)
		CHECK_EQ_STR(t->reasons[i], want->s[i]);
	CHECK_EQ_STR(gstate_tracker__reason(t, t->config.preempted_reason),
		     "preempted");
	CHECK_EQ_STR(gstate_tracker__slot_name(t, GSTATE_PARKED + 2),
		     want->s[2]);
	CHECK_EQ_STR(gstate_tracker__slot_name(t, GSTATE_SYSCALL), "syscall");
	/* casgstatus, preemptPark; from 1.27 the syscall fast path's two */
	CHECK_EQ_INT(t->sites.n, minor >= 27 ? 4 : 2);
	/* what a hit of each costs (--max-overhead): emulated or not */
	for (i = 0; i < t->sites.n; i++)
		CHECK_EQ_INT(t->emulated[t->sites.cookies[i]],
			     objdump_emulated(path, t->sites.offsets[i]));
	/* abi-internal.md: gp, oldval, newval in RAX, RBX, RCX; before 1.17
	 * on the stack after the return address */
	if (minor >= 17) {
		CHECK(t->config.gp.in_reg && t->config.gp.reg == 0);
		CHECK(t->config.newval.in_reg && t->config.newval.reg == 2);
	} else {
		CHECK(!t->config.gp.in_reg && t->config.gp.sp_offset == 8);
		CHECK(!t->config.newval.in_reg &&
		      t->config.newval.sp_offset == 20);
	}
	gstate_tracker__close(t);
}

TEST(reasons_equal_gdb)
{
	static const char *forms[] = { "default", "stripped", "pie", "cgo" };
	struct reasons want;
	char name[64], path[4096];
	size_t i, f;

	for (i = 0; i < NVERSIONS; i++) {
		snprintf(name, sizeof(name), "count-go1.%d-default",
			 versions[i]);
		snprintf(path, sizeof(path), "%s", test_fixture(name));
		CHECK(gdb_reasons(path, &want));
		if (!want.n)
			continue;
		for (f = 0; f < 4; f++) {
			snprintf(name, sizeof(name), "count-go1.%d-%s",
				 versions[i], forms[f]);
			snprintf(path, sizeof(path), "%s", test_fixture(name));
			check_tracker(path, &want, versions[i]);
		}
		/* Debian's caddy: Go 1.19, externally linked, PIE */
		if (versions[i] == 19)
			check_tracker(test_fixture("caddy-2.6.2"), &want, 19);
		reasons_free(&want);
	}
}

TEST(gccgo_refused)
{
	struct gstate_tracker *t = (void *)1;
	struct goroutine_layout layout = { 0 };
	struct go_binary *bin;
	int err;

	err = go_binary__open(test_fixture("count-gccgo"), &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	CHECK_EQ_INT(gstate_tracker__open(bin, &layout, &t), -ENOTSUP);
	CHECK(t == NULL);
	CHECK(strstr(gt_last_error(), "gccgo") != NULL);
	go_binary__close(bin);
}

int main(void)
{
	RUN(reasons_equal_gdb);
	RUN(gccgo_refused);
	return TEST_SUMMARY();
}
