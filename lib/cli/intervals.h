/* SPDX-License-Identifier: MIT */
/*
 * The trace of the tools that print what their maps hold at each interval
 * and at the end (gofunccount, gofunclatency), as bcc's funccount and
 * funclatency do.
 */
#ifndef GOTOOLS_INTERVALS_H
#define GOTOOLS_INTERVALS_H

#include <stddef.h>
#include "cli/tool.h"

/* Read the maps and print: 0 or a negative errno with a reason. */
typedef int (*intervals_print_fn)(void *ctx);

/*
 * Say "Tracing NFUNCS functions for "SPEC"... Hit Ctrl-C to end.", try
 * the probes LIMIT keeps for admission (tool_limit__admit()), let the -c
 * command run, call PRINT(CTX) at each interval and once at the end
 * (tool_clock__wait(), which checks LIMIT and writes the pages METRICS
 * is asked for; NULL: none), unless -q; then say "Detaching...".
 * Returns 0, PRINT's, the limit's or a page's error, or -ESRCH when the
 * -p process exited ("process PID exited").
 */
int intervals__trace(const struct tool_options *o, struct tool_target *t,
		     size_t nfuncs, intervals_print_fn print, void *ctx,
		     const struct tool_limit *limit,
		     const struct tool_metrics *metrics);

#endif
