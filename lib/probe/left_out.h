/* SPDX-License-Identifier: MIT */
/*
 * What a tool leaves out of a pattern, and why, so that one function that
 * cannot be traced never stops the others: a call site whose instruction
 * the kernel refuses to probe, a function whose inline tree Go's own
 * runtime could not walk, one whose code cannot be read or decoded, one
 * that never returns (for the tools that need its returns), an inlined
 * copy whose ends cannot be told (site/inline_ends.h). The tool
 * prints one summary line on stderr; -v lists each with its reason.
 */
#ifndef GOTOOLS_LEFT_OUT_H
#define GOTOOLS_LEFT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "probe/func_probes.h"

enum left_out_why {
	LEFT_OUT_KERNEL,	/* the kernel cannot probe the instruction */
	LEFT_OUT_INLINE_TREE,	/* its inline tree cannot be walked */
	LEFT_OUT_CODE,		/* its code cannot be read or decoded */
	LEFT_OUT_NO_RETURN,	/* it never returns */
	LEFT_OUT_INLINED_FILTER, /* an inlined copy a filter cannot test */
	LEFT_OUT_INLINED_END,	/* an inlined copy whose ends are not known */
	LEFT_OUT_NWHY,
};

struct left_out_item {
	enum left_out_why why;
	char *reason;		/* one line, naming the function */
};

struct left_out {
	struct left_out_item *v;
	size_t n, cap;
	size_t count[LEFT_OUT_NWHY];
};

/* Record a function or site left out, with a reason (printf-style).
 * Returns 0 or -ENOMEM. */
int left_out__add(struct left_out *lo, enum left_out_why why,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The sites of FP the kernel refuses and the functions whose inline tree
 * was rejected. Returns 0 or -ENOMEM. */
int left_out__add_probes(struct left_out *lo, const struct func_probes *fp);

/*
 * ERR, a failure to find the code sites of one function (call_sites.h):
 * recorded as LEFT_OUT_CODE with gt_last_error() and 0 returned, so the
 * caller goes on with the other functions; running out of memory is no
 * property of one function and is returned as it is.
 */
int left_out__code_error(struct left_out *lo, int err);

/* One line on F, "TOOL: N left out (-v lists them): ...", when anything
 * was left out; with VERBOSE, first a line per item. */
void left_out__print(const struct left_out *lo, FILE *f, const char *tool,
		     bool verbose);

void left_out__free(struct left_out *lo);

#endif
