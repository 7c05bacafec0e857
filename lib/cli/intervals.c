// SPDX-License-Identifier: MIT
/* The interval loop of gofunccount and gofunclatency: print, wait, check,
 * until the end (intervals.h). */
#include <errno.h>
#include <stdbool.h>
#include "core/error.h"
#include "cli/intervals.h"

int intervals__trace(const struct tool_options *o, struct tool_target *t,
		     size_t nfuncs, intervals_print_fn print, void *ctx,
		     const struct tool_limit *limit,
		     const struct tool_metrics *metrics)
{
	struct tool_clock clock;
	bool last, target_exited;
	int err;

	/* the probes --max-overhead tries count from the first kept */
	tool__print_tracing(o, nfuncs, o->spec);
	err = tool_limit__admit(limit, o, t, metrics);
	if (!err)
		err = tool_target__release(t, o);
	if (err)
		return err;
	tool_clock__start(&clock, o);
	if (limit)
		clock.limit = *limit;
	clock.metrics = metrics;
	do {
		last = tool_clock__wait(&clock, o, t, &target_exited);
		/* what was counted, also when a check failed */
		err = o->quiet ? 0 : print(ctx);
		if (!err)
			err = clock.error;
		if (err)
			return err;
	} while (!last);
	tool_limit__print_cost(limit);
	tool__print_detaching(o);
	if (target_exited)
		return gt_error(-ESRCH, "process %d exited", o->pid);
	return 0;
}
