// SPDX-License-Identifier: MIT
/*
 * gofunccount: count calls of Go functions, like bcc's funccount.
 *
 * Each matched function gets one uprobe at its counting site (see
 * lib/x86/probe_site.h: the prologue's jump to morestack, so that a call whose
 * stack grows is counted once and the probe is emulated, not single-
 * stepped), plus one at each inlined copy. The probes share one
 * uprobe_multi link where the kernel has them (Linux 6.6+), else each is a
 * uprobe of its own (lib/probe/uprobes.h); the attach cookie says which
 * counter a hit adds to.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "core/name_table.h"
#include "probe/func_probes.h"
#include "probe/left_out.h"
#include "cli/intervals.h"
#include "core/json.h"
#include "cli/overhead_limit.h"
#include "cli/percpu_map.h"
#include "cli/skeleton.h"
#include "cli/tool.h"
#include "cli/tool_metrics.h"
#include "probe/uprobes.h"
#include "cookie.h"
#include "gofunccount.skel.h"

#define TOOL "gofunccount"

static struct tool_options env;

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Count calls of Go functions.\n"
"\n"
"USAGE: gofunccount [-h] [-p PID | -c CMD] [-i INTERVAL] [-d DURATION] [-T]\n"
"                   [-r] [-v] [-j] [--max-overhead PCT] [--debug-file FILE]\n"
"                   [--prometheus [HOST:]PORT [-q]] [BINARY:]PATTERN\n"
"\n"
"PATTERN is a Go function name as Go spells it ('main.(*T).Foo' names exactly\n"
"that method; 'main.Sum' every instantiation of a generic Sum); '*' matches\n"
"any run of characters; -r takes a regular expression. BINARY is a path, or a library short name ('go' for gccgo's\n"
"libgo.so); it defaults to the executable of -p PID or -c CMD. Functions\n"
"come from .symtab, or from .gopclntab in stripped binaries. Inlined calls\n"
"are counted at each inlined copy and shown as FUNC [inlined].\n"
"\n"
"--prometheus serves the counts on /metrics for Prometheus to scrape, as\n"
"gofunccount_calls_total{binary,pid,function,inlined}, until Ctrl-C;\n"
"BINARY:PATTERN counts every process running BINARY, now and later.\n"
"\n"
"EXAMPLES:\n"
"    gofunccount -p 181 'main.*'        # count main package calls in PID 181\n"
"    gofunccount ./server:'net/http.(*conn).*'  # count methods of *conn\n"
"    gofunccount -c './app -v' 'fmt.Println'  # run ./app, count Println\n"
"    gofunccount -p 181 -i 1 -T 'runtime.mallocgc'  # per second, timestamped\n"
"    gofunccount -p 181 -d 10 -r '^main\\.(add|sub)$'  # regex, for 10 s\n"
"    gofunccount -p 181 --max-overhead 5 '*'  # all, probes under 5% of a CPU\n"
"    gofunccount 'go:fmt.*'             # gccgo programs: calls into libgo\n"
"    gofunccount -j -c ./app 'main.*'   # JSON lines\n"
"    gofunccount -q --prometheus 9100 ./server:'main.*'  # for Prometheus\n";

/* Besides -p -c -d -v -h --max-overhead --debug-file (lib/cli/tool.h). */
static const struct argp_option opts[] = {
	{ "interval", 'i', "INTERVAL", 0, "Print counts every INTERVAL seconds", 0 },
	{ "timestamp", 'T', NULL, 0, "Include a timestamp with each output", 0 },
	{ "regexp", 'r', NULL, 0, "Use regular expressions; default is '*' wildcards", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines instead of a table", 0 },
	TOOL_METRICS_OPTIONS,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	return tool__parse_arg(&env, key, arg, state);
}

/* One output line: a function, or all inlined copies of one. */
struct row {
	const char *name;
	bool inlined;
};

struct counter_table {
	struct row *rows;
	size_t nrows;
	struct percpu_counters counts;	/* a row's, since the last print */
	__u64 *totals;		/* --prometheus: a row's, in all */
	size_t nleft_out;	/* functions that could not be probed */
	__u32 *row_of_probe;
	int map_fd;		/* the counters, once loaded */
	/* --max-overhead: its cookie indexes are the rows; NULL without */
	const struct overhead_limit *limit;
};

/* A row per name and inlined flag, in the order the probes come. */
static int counter_table__init(struct counter_table *t,
			       const struct func_probes *fp)
{
	struct name_table names;
	size_t i;
	int err, row;

	t->rows = calloc(fp->n, sizeof(*t->rows));
	t->row_of_probe = calloc(fp->n, sizeof(*t->row_of_probe));
	t->totals = calloc(fp->n, sizeof(*t->totals));
	if (!t->rows || !t->row_of_probe || !t->totals)
		return gt_error(-ENOMEM, "out of memory");
	err = name_table__init(&names, fp->n);
	for (i = 0; i < fp->n && !err; i++) {
		const struct func_probe *p = &fp->probes[i];

		row = name_table__index(&names, p->name, p->inlined);
		if (row < 0) {
			err = row;
			break;
		}
		t->rows[row].name = p->name;
		t->rows[row].inlined = p->inlined;
		t->row_of_probe[i] = row;
	}
	t->nrows = names.n;
	name_table__free(&names);
	if (!err)
		err = percpu_counters__init(&t->counts, t->nrows, 1);
	return err;
}

static void counter_table__free(struct counter_table *t)
{
	free(t->rows);
	free(t->row_of_probe);
	free(t->totals);
	percpu_counters__free(&t->counts);
}

/* What row I counted since the last print. */
static __u64 row_delta(const struct counter_table *t, size_t i)
{
	return *percpu_counters__delta(&t->counts, i);
}

static int cmp_rows_by_delta(const void *a, const void *b, void *ctx)
{
	const struct counter_table *t = ctx;
	const struct row *ra = *(const struct row *const *)a;
	const struct row *rb = *(const struct row *const *)b;
	__u64 da = row_delta(t, ra - t->rows), db = row_delta(t, rb - t->rows);

	if (da != db)
		return da < db ? -1 : 1;
	return strcmp(ra->name, rb->name);
}

static void print_rows(const struct counter_table *t)
{
	char ts[16], name[4096], detached[128];
	const struct row **sorted;
	size_t i;

	tool__timestamp(ts, sizeof(ts));
	sorted = malloc(t->nrows * sizeof(*sorted));
	if (!sorted)
		return;
	for (i = 0; i < t->nrows; i++)
		sorted[i] = &t->rows[i];
	qsort_r(sorted, t->nrows, sizeof(*sorted), cmp_rows_by_delta,
		(void *)t);
	if (!env.json) {
		printf("\n");
		if (env.timestamp)
			printf("%-8s\n", ts);
		printf("%-36s %8s\n", "FUNC", "COUNT");
	}
	for (i = 0; i < t->nrows; i++) {
		const struct row *r = sorted[i];
		const struct overhead_index *d =
			overhead_limit__detached(t->limit, r - t->rows);
		unsigned long long delta = row_delta(t, r - t->rows);

		if (!delta)
			continue;
		if (env.json) {
			printf("{\"time\":\"%s\",\"func\":", ts);
			json_print_string(stdout, r->name);
			printf(",\"inlined\":%s,\"count\":%llu",
			       r->inlined ? "true" : "false", delta);
			if (d)
				printf(",\"partial\":true,\"detached_after\":%llu,"
				       "\"detached_rate\":%.0f",
				       (unsigned long long)d->detached_calls,
				       d->detached_rate);
			printf("}\n");
		} else {
			snprintf(name, sizeof(name), "%s%s", r->name,
				 r->inlined ? " [inlined]" : "");
			printf("%-36s %8llu", name, delta);
			if (d)
				printf("  partial: %s", overhead_index__str(d,
				       detached, sizeof(detached)));
			printf("\n");
		}
	}
	fflush(stdout);
	free(sorted);
}

static void print_probes(const struct func_probes *fp)
{
	const struct func_probe *p;
	size_t i;

	for (i = 0; i < fp->n; i++) {
		p = &fp->probes[i];
		fprintf(stderr, "probe %s%s at 0x%llx (%s, file offset 0x%llx)\n",
			p->name, p->inlined ? " [inlined]" : "",
			(unsigned long long)p->site.addr,
			probe_site_kind__str(p->site.kind),
			(unsigned long long)p->offset);
	}
}

static int make_cookies(const struct func_probes *fp,
			const struct counter_table *t, struct uprobe_list *list)
{
	size_t i;
	int err = 0;

	for (i = 0; i < fp->n && !err; i++) {
		const struct probe_site *site = &fp->probes[i].site;

		err = uprobe_list__add(list, fp->probes[i].offset,
				       COOKIE_MAKE(t->row_of_probe[i],
						   probe_site__cookie_skip(site),
						   COOKIE_COST_FLAG(site->emulated)));
	}
	return err;
}

/* OUT is the caller's to destroy, loaded or not. LIMIT: --max-overhead,
 * or NULL. */
static int load_bpf(struct gofunccount_bpf **out, pid_t tgid, size_t nrows,
		    struct overhead_limit *limit)
{
	struct gofunccount_bpf *obj = gofunccount_bpf__open();

	if (!obj)
		return skeleton__open_error();
	*out = obj;
	obj->rodata->target_tgid = tgid;
	return skeleton__load_limited(obj, obj->maps.counts, nrows, limit,
				      obj->progs.count_call);
}

/* How --max-overhead's summary names a row. */
static const char *row_name(void *ctx, size_t row)
{
	return ((const struct counter_table *)ctx)->rows[row].name;
}

/* At each interval: what is new. */
static int print_counts(void *ctx)
{
	struct counter_table *t = ctx;
	int err;

	err = percpu_counters__read(&t->counts, t->map_fd);
	if (!err)
		print_rows(t);
	return err;
}

/* A row's labels on /metrics. */
static void row_labels(struct metrics *m, size_t row, void *ctx)
{
	const struct counter_table *t = ctx;

	metrics__label(m, "function", t->rows[row].name);
	metrics__label(m, "inlined", t->rows[row].inlined ? "true" : "false");
}

/* --prometheus: the counts since the start, a series for each row that
 * has any. */
static int write_metrics(struct metrics *m, void *ctx)
{
	struct counter_table *t = ctx;
	const struct tool_rows rows = {
		.tool = TOOL, .nrows = t->nrows, .nleft_out = t->nleft_out,
		.limit = t->limit, .labels = row_labels, .ctx = t,
	};
	char v[24];
	size_t i;
	int err;

	err = percpu_map__sum_all(t->map_fd, t->nrows, t->totals, 1);
	if (err)
		return err;
	metrics__family(m, TOOL "_calls", METRICS_COUNTER,
			"Calls of the function since the trace began (inlined copies apart)");
	for (i = 0; i < t->nrows; i++) {
		if (!t->totals[i])
			continue;
		metrics__sample_begin(m, NULL);
		row_labels(m, i, t);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)t->totals[i]);
		metrics__sample_end(m, v);
	}
	tool_metrics__write_rows(m, &rows);
	return 0;
}

/* The probes for the pattern; an error when there are none. What cannot
 * be probed is left out, and said, and counted into *NLEFT_OUT. */
static int find_probes(const struct tool_target *target,
		       struct func_probes *fp, size_t *nleft_out)
{
	struct left_out lo = { 0 };
	int err;

	err = func_probes__find(target->bin, target->path, target->pattern,
				env.regex, fp);
	if (err)
		return err;
	if (env.verbose)
		print_probes(fp);
	err = left_out__add_probes(&lo, fp);
	if (!err)
		left_out__print(&lo, stderr, TOOL, env.verbose);
	*nleft_out = lo.n;
	left_out__free(&lo);
	return err;
}

int main(int argc, char **argv)
{
	struct tool_target target = { .cmd.gate_fd = -1 };
	struct func_probes fp = { 0 };
	struct counter_table table = { 0 };
	struct gofunccount_bpf *obj = NULL;
	struct uprobes *probes = NULL;
	struct uprobe_list list = { 0 };
	struct overhead_limit limit = { 0 };
	struct tool_limit watch = { .name_of = row_name, .ctx = &table };
	struct tool_metrics metrics = { 0 };
	size_t nleft_out = 0;
	int err;

	tool__start(&env, opts, parse_arg, "[BINARY:]PATTERN", doc,
		    argc, argv);
	err = tool_target__open(&target, &env);
	if (!err)
		err = tool_metrics__open(&metrics, &env);
	if (!err)
		err = find_probes(&target, &fp, &nleft_out);
	if (!err)
		err = counter_table__init(&table, &fp);
	table.nleft_out = nleft_out;
	tool_metrics__set_source(&metrics, &target, write_metrics, &table);
	if (!err)
		err = make_cookies(&fp, &table, &list);
	if (!err && env.max_overhead) {
		err = overhead_limit__init(&limit, env.max_overhead, table.nrows);
		watch.limit = &limit;
		table.limit = &limit;
	}
	if (!err)
		err = load_bpf(&obj, target.tgid, table.nrows, watch.limit);
	if (!err && watch.limit)
		err = overhead_limit__attach(&limit, obj->progs.count_call,
					     target.path, target.tgid, &list);
	else if (!err)
		err = uprobes__attach(obj->progs.count_call, target.path,
				      target.tgid, &list, &probes);
	if (!err) {
		table.map_fd = bpf_map__fd(obj->maps.counts);
		err = intervals__trace(&env, &target, fp.nfuncs, print_counts,
				       &table, &watch, &metrics);
	}
	tool_metrics__close(&metrics);
	uprobes__detach(probes);
	gofunccount_bpf__destroy(obj);
	uprobe_list__free(&list);
	overhead_limit__free(&limit);
	counter_table__free(&table);
	func_probes__free(&fp);
	tool_target__close(&target);
	return tool__exit_status(err);
}
