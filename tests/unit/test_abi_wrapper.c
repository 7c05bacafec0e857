// SPDX-License-Identifier: MIT
/*
 * abi_wrapper: of the functions that share a name, which ones wrap
 * another, as probe/machine_code.h asks each machine. Ground truth is
 * `objdump -d` (x86-64) or `go tool objdump` (arm64): a member is a
 * wrapper when its first 512 bytes hold a call or jmp to another member's
 * entry. Checked on every name that several functions share, in stripped
 * fixtures (where the pclntab names a body and its wrapper alike) of Go
 * 1.21 and 1.27, for both machines, and in buf, where closures share names
 * too (14 are named ...NewBreakingFieldPairRuleHandler.func1) and wrap
 * nothing.
 */
#include <stdlib.h>
#include <string.h>
#include "gobin/go_binary.h"
#include "probe/machine_code.h"
#include "site/abi_wrapper.h"
#include "go_objdump.h"
#include "objdump.h"
#include "test.h"

#define WINDOW ABI_WRAPPER_MAX_BYTES

/* A fixture's calls and jumps by address, from either listing. */
struct branch {
	uint64_t addr, target;
};

struct branches {
	struct branch *v;
	size_t n;
};

/* objdump -d's call and jmp instructions (x86-64). */
static bool branches_of_objdump(struct branches *b, const char *path)
{
	struct objdump_listing l;
	size_t i;

	memset(b, 0, sizeof(*b));
	if (!objdump_listing__load(&l, path, ".text"))
		return false;
	b->v = calloc(l.n ? l.n : 1, sizeof(*b->v));
	for (i = 0; b->v && i < l.n; i++)
		if ((!strcmp(l.v[i].mn, "call") || !strcmp(l.v[i].mn, "jmp")) &&
		    l.v[i].has_target)
			b->v[b->n++] = (struct branch){ l.v[i].addr,
							l.v[i].target };
	free(l.v);
	return b->v != NULL;
}

/* The target of IN, a branch to "name(SB)", a function of L, into *T. */
static bool symbol_target(const struct listing *l, const struct line *in,
			  uint64_t *t)
{
	size_t n = strlen(in->ops), i;

	if (n < 5 || strcmp(in->ops + n - 4, "(SB)"))
		return false;
	for (i = 0; i < l->nfuncs; i++)
		if (l->funcs[i].n && strlen(l->funcs[i].name) == n - 4 &&
		    !strncmp(l->funcs[i].name, in->ops, n - 4)) {
			*t = l->lines[l->funcs[i].first].addr;
			return true;
		}
	return false;
}

/* go tool objdump's CALL and JMP to "N(PC)" or to a function (arm64), by
 * Go 1.V. */
static bool branches_of_go_objdump(struct branches *b, int v,
				   const char *path)
{
	struct listing l;
	uint64_t target;
	size_t i;

	memset(b, 0, sizeof(*b));
	if (!listing__load(&l, v, path))
		return false;
	b->v = calloc(l.nlines ? l.nlines : 1, sizeof(*b->v));
	for (i = 0; b->v && i < l.nlines; i++)
		if ((!strcmp(l.lines[i].mn, "CALL") ||
		     !strcmp(l.lines[i].mn, "JMP")) &&
		    (pc_target(&l.lines[i], &target) ||
		     symbol_target(&l, &l.lines[i], &target)))
			b->v[b->n++] = (struct branch){ l.lines[i].addr, target };
	listing__free(&l);
	return b->v != NULL;
}

/* Does the listing say that GROUP[SELF] calls or jumps to another
 * member? */
static bool truth_wrapper(const struct branches *b,
			  const struct go_func *const *group, size_t n,
			  size_t self)
{
	const struct go_func *fn = group[self];
	uint64_t end = fn->addr + (fn->size < WINDOW ? fn->size : WINDOW);
	size_t i, k;

	for (i = 0; i < b->n; i++) {
		if (b->v[i].addr < fn->addr || b->v[i].addr >= end)
			continue;
		for (k = 0; k < n; k++)
			if (k != self && b->v[i].target == group[k]->addr)
				return true;
	}
	return false;
}

static int cmp_by_name(const void *a, const void *b)
{
	const struct go_func *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Every group of same-name functions of fixture NAME, against B, the
 * branches of LISTED's listing (a stripped binary's is its default
 * build's); returns how many wrappers it found. */
static size_t check_fixture(const char *name, const struct branches *b,
			    size_t *ngroups)
{
	const struct go_func **sel;
	struct go_binary *bin = NULL;
	size_t i, j, k, nwrappers = 0, nbad = 0;
	bool *wrapper;

	*ngroups = 0;
	CHECK_EQ_INT(go_binary__open(test_fixture(name), &bin), 0);
	if (!bin)
		return 0;
	sel = calloc(bin->nfuncs, sizeof(*sel));
	wrapper = calloc(bin->nfuncs, sizeof(*wrapper));
	CHECK(sel && wrapper);
	for (i = 0; sel && i < bin->nfuncs; i++)
		sel[i] = &bin->funcs[i];
	if (sel)
		qsort(sel, bin->nfuncs, sizeof(*sel), cmp_by_name);
	for (i = 0; sel && wrapper && i < bin->nfuncs; i = j) {
		for (j = i + 1; j < bin->nfuncs &&
		     !strcmp(sel[j]->name, sel[i]->name); j++)
			;
		if (j - i < 2)
			continue;
		(*ngroups)++;
		CHECK_EQ_INT(machine_code__abi_wrappers(bin, sel + i, j - i,
							wrapper + i), 0);
		for (k = i; k < j; k++) {
			bool want = truth_wrapper(b, sel + i, j - i, k - i);

			nwrappers += wrapper[k];
			if (wrapper[k] != want && nbad++ < 5)
				fprintf(stderr, "%s: %s at 0x%llx: wrapper %d, objdump says %d\n",
					name, sel[k]->name,
					(unsigned long long)sel[k]->addr,
					wrapper[k], want);
		}
	}
	CHECK_EQ_INT(nbad, 0);
	free(sel);
	free(wrapper);
	go_binary__close(bin);
	return nwrappers;
}

/* x86-64 fixtures against objdump -d of themselves; arm64's against go
 * tool objdump of the default build, whose code the stripped one shares
 * (go tool objdump reads no stripped binary): a body and its wrapper, one
 * wrapper per pair. */
static void check_pairs(const char *name, const char *listed, int v,
			bool arm64)
{
	struct branches b;
	size_t ngroups, nwrappers;
	bool ok = arm64 ? branches_of_go_objdump(&b, v, test_fixture(listed)) :
			  branches_of_objdump(&b, test_fixture(listed));

	CHECK(ok);
	if (!ok)
		return;
	nwrappers = check_fixture(name, &b, &ngroups);
	printf("%s: %zu groups, %zu wrappers\n", name, ngroups, nwrappers);
	CHECK_EQ_INT(nwrappers, ngroups);
	CHECK(ngroups > 20);
	free(b.v);
}

TEST(same_name_groups_match_objdump)
{
	struct branches b;
	size_t ngroups, nwrappers;

	check_pairs("count-go1.21-stripped", "count-go1.21-stripped", 21, false);
	check_pairs("count-go1.27-stripped", "count-go1.27-stripped", 27, false);
	check_pairs("count-go1.21-arm64-stripped", "count-go1.21-arm64", 21, true);
	check_pairs("count-go1.27-arm64-stripped", "count-go1.27-arm64", 27, true);
	/* closures that share a name besides: fewer wrappers than groups */
	CHECK(branches_of_objdump(&b, test_fixture("buf-1.75.0")));
	nwrappers = check_fixture("buf-1.75.0", &b, &ngroups);
	CHECK(nwrappers > 0 && nwrappers < ngroups / 2);
	CHECK(ngroups > 100);
	free(b.v);
}

TEST(single_function_is_no_wrapper)
{
	const struct go_func *fn;
	struct go_binary *bin = NULL;
	bool wrapper = true;

	CHECK_EQ_INT(go_binary__open(test_fixture("count-go1.21-stripped"),
				     &bin), 0);
	if (!bin)
		return;
	fn = go_binary__func_by_name(bin, "main.main");
	CHECK(fn != NULL);
	if (fn)
		CHECK_EQ_INT(machine_code__abi_wrappers(bin, &fn, 1, &wrapper),
			     0);
	CHECK(!wrapper);
	go_binary__close(bin);
}

int main(void)
{
	elf_version(EV_CURRENT);
	RUN(same_name_groups_match_objdump);
	RUN(single_function_is_no_wrapper);
	return TEST_SUMMARY();
}
