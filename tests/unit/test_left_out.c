// SPDX-License-Identifier: MIT
/* left_out: what a tool leaves out of a pattern, and its summary line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/error.h"
#include "probe/left_out.h"
#include "test.h"

/* What left_out__print() writes, as a malloc()ed string. */
static char *printed(const struct left_out *lo, bool verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	left_out__print(lo, f, "tool", verbose);
	fclose(f);
	return buf;
}

TEST(nothing_left_out_prints_nothing)
{
	struct left_out lo = { 0 };
	char *s = printed(&lo, true);

	CHECK_EQ_STR(s, "");
	free(s);
	left_out__free(&lo);
}

TEST(summary_counts_each_reason)
{
	struct left_out lo = { 0 };
	char *s;

	CHECK_EQ_INT(left_out__add(&lo, LEFT_OUT_NO_RETURN,
				   "%s: no return instruction", "runtime.goexit"), 0);
	CHECK_EQ_INT(left_out__add(&lo, LEFT_OUT_NO_RETURN,
				   "%s: no return instruction", "runtime.mstart"), 0);
	gt_error(-EINVAL, "main.f: cannot decode the instruction at 0x401000");
	CHECK_EQ_INT(left_out__code_error(&lo, -EINVAL), 0);
	CHECK_EQ_INT(lo.n, 3);
	CHECK_EQ_INT(lo.count[LEFT_OUT_NO_RETURN], 2);
	CHECK_EQ_INT(lo.count[LEFT_OUT_CODE], 1);
	s = printed(&lo, false);
	CHECK_EQ_STR(s, "tool: 3 left out (-v lists them): 1 function whose "
		     "code cannot be decoded, 2 functions that never return\n");
	free(s);
	s = printed(&lo, true);
	CHECK_EQ_STR(s, "left out: runtime.goexit: no return instruction\n"
		     "left out: runtime.mstart: no return instruction\n"
		     "left out: main.f: cannot decode the instruction at 0x401000\n"
		     "tool: 3 left out: 1 function whose code cannot be decoded, "
		     "2 functions that never return\n");
	free(s);
	left_out__free(&lo);
	CHECK_EQ_INT(lo.n, 0);
}

TEST(out_of_memory_is_no_property_of_a_function)
{
	struct left_out lo = { 0 };

	CHECK_EQ_INT(left_out__code_error(&lo, -ENOMEM), -ENOMEM);
	CHECK_EQ_INT(lo.n, 0);
	left_out__free(&lo);
}

TEST(refused_sites_and_rejected_trees)
{
	struct func_probe refused[2] = {
		{ .name = "main.a", .site = { .addr = 0x401000 } },
		{ .name = "main.b", .inlined = true, .site = { .addr = 0x402000 } },
	};
	struct inline_rejected tree = {
		.func = "pkg.init", .entry = 0x403000,
		.reason = "corrupt inline tree of pkg.init: cycle of inlined calls",
	};
	struct func_probes fp = {
		.refused = refused, .nrefused = 2,
		.rejected_trees = &tree, .nrejected_trees = 1,
	};
	struct left_out lo = { 0 };
	char *s;

	CHECK_EQ_INT(left_out__add_probes(&lo, &fp), 0);
	s = printed(&lo, true);
	CHECK_EQ_STR(s, "left out: main.a: the kernel cannot probe the instruction at 0x401000\n"
		     "left out: main.b [inlined]: the kernel cannot probe the instruction at 0x402000\n"
		     "left out: corrupt inline tree of pkg.init: cycle of inlined calls\n"
		     "tool: 3 left out: 2 call sites the kernel cannot probe, 1 "
		     "function whose inline tree Go's runtime cannot walk\n");
	free(s);
	left_out__free(&lo);
}

int main(void)
{
	RUN(nothing_left_out_prints_nothing);
	RUN(summary_counts_each_reason);
	RUN(out_of_memory_is_no_property_of_a_function);
	RUN(refused_sites_and_rejected_trees);
	return TEST_SUMMARY();
}
