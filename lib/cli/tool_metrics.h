/* SPDX-License-Identifier: MIT */
/*
 * --prometheus in a tool: the server of /metrics (cli/metrics_server.h)
 * opened before any probe is attached, its pages labelled with the traced
 * binary and process, and the families every tool serving metrics has:
 * its functions by state, those --max-overhead detached (their counts
 * stop growing: said, never silently frozen) and what the probes cost.
 */
#ifndef GOTOOLS_TOOL_METRICS_H
#define GOTOOLS_TOOL_METRICS_H

#include <stddef.h>
#include "cli/metrics.h"
#include "cli/metrics_server.h"
#include "cli/overhead_limit.h"
#include "cli/tool.h"

struct tool_metrics {
	struct metrics_server *server;	/* NULL: no --prometheus */
	struct metrics_source source;
	char binary[4096];
	char pid[16];
};

/*
 * With --prometheus, listen and say where on stderr ("TOOL: serving
 * metrics on http://127.0.0.1:9100/metrics"); nothing without. Before any
 * probe is attached, so that a port in use leaves none; after
 * tool_target__open(), so that a -c command (not running yet) keeps its
 * own limit of open files. Returns 0 or a negative errno with a reason.
 */
int tool_metrics__open(struct tool_metrics *tm, const struct tool_options *o);

/* Every sample labelled binary="PATH" of T (as links resolve it: the
 * file /proc/PID/exe names, with -p) and, when T is one process,
 * pid="PID" (BINARY:PATTERN traces every process running it, counted
 * together); WRITE(CTX) writes a page's families. */
void tool_metrics__set_source(struct tool_metrics *tm,
			      const struct tool_target *t,
			      metrics_write_fn write, void *ctx);

/* Write the pages requests wait for (metrics_server__serve()): 0, or
 * the error of writing one. Nothing without a server (TM NULL too). */
int tool_metrics__serve(const struct tool_metrics *tm);

/* Stop serving; requests still waiting get a page of the final state
 * (the source's context must still be alive). */
void tool_metrics__close(struct tool_metrics *tm);

/* Adds a row's labels (function="...", and what else tells rows apart)
 * to the sample M is writing. */
typedef void (*tool_row_labels_fn)(struct metrics *m, size_t row, void *ctx);

/* What a tool traces, for the families every tool has. */
struct tool_rows {
	const char *tool;	/* the families' prefix: gofunccount */
	size_t nrows;		/* probed: --max-overhead's indexes */
	size_t nleft_out;	/* functions that could not be probed */
	const struct overhead_limit *limit;	/* NULL: none */
	tool_row_labels_fn labels;
	void *ctx;
};

/*
 * TOOL_functions{state="traced"|"not_tried"|"not_attached"|"detached"|
 * "left_out"} (gauges: not_tried while --max-overhead tries them),
 * TOOL_function_detached{ROW LABELS} 1 for each row it detached, and
 * with --max-overhead TOOL_probe_cost_seconds_total, the target's time
 * its probes took.
 */
void tool_metrics__write_rows(struct metrics *m, const struct tool_rows *r);

#endif
