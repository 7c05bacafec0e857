// SPDX-License-Identifier: MIT
/* --prometheus in a tool (tool_metrics.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "cli/tool_metrics.h"

int tool_metrics__open(struct tool_metrics *tm, const struct tool_options *o)
{
	int err;

	memset(tm, 0, sizeof(*tm));
	if (!o->prometheus)
		return 0;
	err = metrics_server__open(&o->prometheus_addr, &tm->server);
	if (err)
		return err;
	fprintf(stderr, "%s: serving metrics on %s\n",
		program_invocation_short_name, metrics_server__url(tm->server));
	return 0;
}

void tool_metrics__set_source(struct tool_metrics *tm,
			      const struct tool_target *t,
			      metrics_write_fn write, void *ctx)
{
	struct metrics_source *s = &tm->source;

	s->write = write;
	s->ctx = ctx;
	if (!realpath(t->path, tm->binary))
		snprintf(tm->binary, sizeof(tm->binary), "%s", t->path);
	s->labels[0] = (struct metrics_label){ "binary", tm->binary };
	s->nlabels = 1;
	if (t->tgid > 0) {
		snprintf(tm->pid, sizeof(tm->pid), "%d", (int)t->tgid);
		s->labels[s->nlabels++] = (struct metrics_label){ "pid", tm->pid };
	}
}

int tool_metrics__serve(const struct tool_metrics *tm)
{
	if (!tm || !tm->server)
		return 0;
	return metrics_server__serve(tm->server, &tm->source);
}

void tool_metrics__close(struct tool_metrics *tm)
{
	metrics_server__close(tm->server,
			      tm->source.write ? &tm->source : NULL);
	tm->server = NULL;
}

enum row_state {
	ROW_TRACED, ROW_NOT_TRIED, ROW_NOT_ATTACHED, ROW_DETACHED, ROW_NSTATES
};

static enum row_state row_state(const struct overhead_limit *l, size_t i)
{
	const struct overhead_index *x;

	if (!l)
		return ROW_TRACED;
	x = &l->indexes[i];
	if (x->refused)
		return ROW_NOT_ATTACHED;
	if (x->detached)
		return ROW_DETACHED;
	return x->attached ? ROW_TRACED : ROW_NOT_TRIED;
}

void tool_metrics__write_rows(struct metrics *m, const struct tool_rows *r)
{
	static const char *const states[ROW_NSTATES] = {
		[ROW_TRACED] = "traced",
		[ROW_NOT_TRIED] = "not_tried",
		[ROW_NOT_ATTACHED] = "not_attached",
		[ROW_DETACHED] = "detached",
	};
	size_t n[ROW_NSTATES] = { 0 }, i;
	char name[64], v[32];
	int s;

	for (i = 0; i < r->nrows; i++)
		n[row_state(r->limit, i)]++;
	snprintf(name, sizeof(name), "%s_functions", r->tool);
	metrics__family(m, name, METRICS_GAUGE,
			"Functions matched, by state: traced; not_tried, not_attached (over --max-overhead on trial), detached (by --max-overhead later); left_out (cannot be probed)");
	for (s = 0; s < ROW_NSTATES; s++)
		metrics__sample_u64(m, "state", states[s], n[s]);
	metrics__sample_u64(m, "state", "left_out", r->nleft_out);

	snprintf(name, sizeof(name), "%s_function_detached", r->tool);
	metrics__family(m, name, METRICS_GAUGE,
			"1 for a function --max-overhead detached: its counts stopped growing then");
	for (i = 0; n[ROW_DETACHED] && i < r->nrows; i++) {
		if (row_state(r->limit, i) != ROW_DETACHED)
			continue;
		metrics__sample_begin(m, NULL);
		r->labels(m, i, r->ctx);
		metrics__sample_end(m, "1");
	}
	if (!r->limit)
		return;
	snprintf(name, sizeof(name), "%s_probe_cost_seconds", r->tool);
	metrics__family(m, name, METRICS_COUNTER,
			"Time the target spent in the probes (traps and BPF programs) and the tool attaching and detaching them, as --max-overhead accounts it");
	metrics__sample_begin(m, NULL);
	metrics__sample_end(m, metrics__ns_seconds(v, sizeof(v),
				  (uint64_t)r->limit->ledger.total_ns));
}
