// SPDX-License-Identifier: MIT
/*
 * abi_wrapper: of the functions that share a name, which ones wrap
 * another. Ground truth is `objdump -d`: a member is a wrapper when its
 * first 512 bytes hold a call or jmp to another member's entry. Checked on
 * every name that several functions share, in stripped fixtures (where the
 * pclntab names a body and its wrapper alike) of Go 1.21 and 1.27, and in
 * buf, where closures share names too (14 are named
 * ...NewBreakingFieldPairRuleHandler.func1) and wrap nothing.
 */
#include <stdlib.h>
#include <string.h>
#include "gobin/go_binary.h"
#include "x86/abi_wrapper.h"
#include "objdump.h"
#include "test.h"

#define WINDOW 512

/* Does objdump say that GROUP[SELF] calls or jumps to another member? */
static bool truth_wrapper(const struct objdump_listing *l,
			  const struct go_func *const *group, size_t n,
			  size_t self)
{
	const struct go_func *fn = group[self];
	uint64_t end = fn->addr + (fn->size < WINDOW ? fn->size : WINDOW);
	long i = objdump_listing__find(l, fn->addr);
	size_t k;

	for (; i >= 0 && (size_t)i < l->n && l->v[i].addr < end; i++) {
		if (strcmp(l->v[i].mn, "call") && strcmp(l->v[i].mn, "jmp"))
			continue;
		for (k = 0; k < n; k++)
			if (k != self && l->v[i].has_target &&
			    l->v[i].target == group[k]->addr)
				return true;
	}
	return false;
}

static int cmp_by_name(const void *a, const void *b)
{
	const struct go_func *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Every group of same-name functions of fixture NAME; returns how many
 * wrappers it found. */
static size_t check_fixture(const char *name, size_t *ngroups)
{
	const struct go_func **sel;
	struct objdump_listing l;
	struct go_binary *bin = NULL;
	size_t i, j, k, nwrappers = 0, nbad = 0;
	bool *wrapper;

	*ngroups = 0;
	CHECK_EQ_INT(go_binary__open(test_fixture(name), &bin), 0);
	if (!bin)
		return 0;
	CHECK(objdump_listing__load(&l, test_fixture(name), ".text"));
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
		CHECK_EQ_INT(abi_wrapper__mark(bin, sel + i, j - i,
					       wrapper + i), 0);
		for (k = i; k < j; k++) {
			bool want = truth_wrapper(&l, sel + i, j - i, k - i);

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
	free(l.v);
	go_binary__close(bin);
	return nwrappers;
}

TEST(same_name_groups_match_objdump)
{
	size_t ngroups, nwrappers;

	/* a body and its wrapper: one wrapper per pair */
	nwrappers = check_fixture("count-go1.21-stripped", &ngroups);
	CHECK_EQ_INT(nwrappers, ngroups);
	CHECK(ngroups > 20);
	nwrappers = check_fixture("count-go1.27-stripped", &ngroups);
	CHECK_EQ_INT(nwrappers, ngroups);
	CHECK(ngroups > 20);
	/* closures that share a name besides: fewer wrappers than groups */
	nwrappers = check_fixture("buf-1.75.0", &ngroups);
	CHECK(nwrappers > 0 && nwrappers < ngroups / 2);
	CHECK(ngroups > 100);
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
		CHECK_EQ_INT(abi_wrapper__mark(bin, &fn, 1, &wrapper), 0);
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
