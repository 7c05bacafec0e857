// SPDX-License-Identifier: MIT
/*
 * gofunclatency: time Go function calls, like bcc's funclatency.
 *
 * No uretprobes (they break when Go copies a stack). Each function gets an
 * entry probe and one probe on each of its exits (lib/probe/call_probes.h). Calls are paired per goroutine and stack depth in
 * BPF, or for gccgo, whose stacks never move, per SP at entry (see
 * bpf/gofunclatency.bpf.c).
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "probe/call_probes.h"
#include "probe/func_probes.h"
#include "gobin/go_binary.h"
#include "goabi/goroutine.h"
#include "cli/histogram.h"
#include "cli/intervals.h"
#include "core/json.h"
#include "cli/overhead_limit.h"
#include "cli/percpu_map.h"
#include "cli/skeleton.h"
#include "cli/tool.h"
#include "probe/uprobes.h"
#include "gofunclatency.h"
#include "gofunclatency.skel.h"

#define TOOL "gofunclatency"

static struct env {
	struct tool_options tool;
	bool per_function;		/* -F */
	const char *unit;		/* -u, -m */
	unsigned long long unit_div;
} env = { .unit = "nsecs", .unit_div = 1 };

/* Besides -p -c -d -v -h --max-overhead --debug-file (lib/cli/tool.h). */
static const struct argp_option opts[] = {
	{ "microseconds", 'u', NULL, 0, "Microsecond histogram", 0 },
	{ "milliseconds", 'm', NULL, 0, "Millisecond histogram", 0 },
	{ "interval", 'i', "INTERVAL", 0, "Print a histogram every INTERVAL seconds", 0 },
	{ "timestamp", 'T', NULL, 0, "Include a timestamp with each output", 0 },
	{ "function", 'F', NULL, 0, "Show a separate histogram per function", 0 },
	{ "regexp", 'r', NULL, 0, "Use regular expressions; default is '*' wildcards", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines instead of histograms", 0 },
	{},
};

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Time Go function calls: a histogram of the latency from entry to return.\n"
"\n"
"USAGE: gofunclatency [-h] [-p PID | -c CMD] [-u | -m] [-i INTERVAL]\n"
"                     [-d DURATION] [-T] [-F] [-r] [-v] [-j]\n"
"                     [--max-overhead PCT] [--debug-file FILE] [BINARY:]PATTERN\n"
"\n"
"PATTERN is a Go function name as Go spells it ('main.(*T).Foo' names exactly\n"
"that method); '*' matches any run of characters; -r takes a regular\n"
"expression. BINARY is a path, or a library short name ('go' for gccgo's\n"
"libgo.so); it defaults to the executable of -p PID or -c CMD. Calls are\n"
"paired per goroutine, so a call that blocks and resumes on another thread\n"
"is timed right; calls that a panic unwinds or that end in runtime.Goexit\n"
"are not completed calls and are not counted. gccgo programs work too:\n"
"'go:fmt.Println' names fmt.Println in libgo.\n"
"\n"
"EXAMPLES:\n"
"    gofunclatency -p 181 'main.(*T).Foo'   # time Foo in PID 181\n"
"    gofunclatency -u -p 181 'net/http.(*conn).serve'  # in microseconds\n"
"    gofunclatency -m -i 5 -T -p 181 'main.handle'  # every 5 s, timestamped\n"
"    gofunclatency -F -p 181 'main.*'       # one histogram per function\n"
"    gofunclatency -F -p 181 --max-overhead 5 'main.*'  # probes under 5% of a CPU\n"
"    gofunclatency -c './app -v' 'main.work'  # run ./app, time main.work\n"
"    gofunclatency -d 10 -r -p 181 '^main\\.(get|put)$'  # regex, for 10 s\n"
"    gofunclatency -j -c ./app 'main.work'  # JSON lines\n"
"    gofunclatency -p 181 'go:fmt.Println'  # gccgo: fmt.Println in libgo\n";

static void set_unit(const char *unit, unsigned long long div)
{
	if (env.unit_div != 1 && env.unit_div != div)
		tool__usage_error("-u and -m cannot be used together");
	env.unit = unit;
	env.unit_div = div;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'u':
		set_unit("usecs", 1000);
		return 0;
	case 'm':
		set_unit("msecs", 1000000);
		return 0;
	case 'F':
		env.per_function = true;
		return 0;
	default:
		return tool__parse_arg(&env.tool, key, arg, state);
	}
}

/* A traced function's histogram as last printed (cp.names[i] names it):
 * the BPF histograms are never cleared, so no call is lost between a read
 * and a clear; each print shows what is new. */
struct func_row {
	struct hist printed;
	struct hist delta;
};

struct latency_plan {
	struct call_probes cp;		/* rows: functions */
	struct func_row *rows;
	/* --max-overhead: its cookie indexes are the rows; NULL without */
	const struct overhead_limit *limit;
};

static void latency_plan__free(struct latency_plan *p)
{
	free(p->rows);
	call_probes__free(&p->cp);
}

static int latency_plan__init(struct latency_plan *plan,
			      const struct go_binary *bin,
			      const struct func_probes *fp)
{
	int err;

	/* a row per name at most */
	plan->rows = calloc(fp->n ? fp->n : 1, sizeof(*plan->rows));
	if (!plan->rows)
		return gt_error(-ENOMEM, "out of memory");
	err = call_probes__init(&plan->cp, fp->n, env.tool.verbose);
	if (!err)
		err = call_probes__add(&plan->cp, bin, fp, NULL);
	if (err)
		return err;
	if (plan->cp.ninlined && env.tool.verbose)
		fprintf(stderr, "%zu inlined copies not traced (no call to time)\n",
			plan->cp.ninlined);
	/* with nothing left to time, the list says why */
	left_out__print(&plan->cp.left_out, stderr, TOOL,
			env.tool.verbose || !plan->cp.nrows);
	if (!plan->cp.nrows)
		return gt_error(-ENOENT, "no function matching '%s' can be timed",
				env.tool.spec);
	return 0;
}

/* Sum every histogram over CPUs (in one batch) and compute what is new
 * since the last print. */
static int read_hists(struct latency_plan *plan, int map_fd, size_t nhists)
{
	struct hist sum, *sums;
	size_t key;
	int s, err;

	sums = calloc(nhists ? nhists : 1, sizeof(*sums));
	if (!sums)
		return gt_error(-ENOMEM, "out of memory");
	/* struct hist is u64 words only */
	err = percpu_map__sum_all(map_fd, nhists, (__u64 *)sums,
				  sizeof(*sums) / sizeof(__u64));
	for (key = 0; key < nhists && !err; key++) {
		struct func_row *r = &plan->rows[key];

		sum = sums[key];
		for (s = 0; s < HIST_NSLOTS; s++)
			r->delta.slots[s] = sum.slots[s] - r->printed.slots[s];
		r->delta.total_ns = sum.total_ns - r->printed.total_ns;
		r->delta.count = sum.count - r->printed.count;
		r->printed = sum;
	}
	free(sums);
	return err;
}

/* What is partial in a histogram: with -F, D says its function was
 * detached; without, NDETACHED functions of all were (0: none). */
struct partial {
	const struct overhead_index *d;
	size_t ndetached;
};

static void print_hist_json(const char *ts, const char *name,
			    const struct hist *h, const struct partial *p)
{
	unsigned long long total = h->total_ns / env.unit_div;

	printf("{\"time\":\"%s\",\"func\":", ts);
	if (name)
		json_print_string(stdout, name);
	else
		printf("null");
	printf(",\"hist\":");
	histogram__print_json(stdout, (const uint64_t *)h->slots, HIST_NSLOTS, env.unit);
	printf(",\"avg\":%llu,\"total\":%llu,\"total_ns\":%llu,\"count\":%llu",
	       h->count ? total / h->count : 0, total,
	       (unsigned long long)h->total_ns, (unsigned long long)h->count);
	if (p->d)
		printf(",\"partial\":true,\"detached_after\":%llu,"
		       "\"detached_rate\":%.0f",
		       (unsigned long long)p->d->detached_calls,
		       p->d->detached_rate);
	else if (p->ndetached)
		printf(",\"partial\":true,\"detached\":%zu", p->ndetached);
	printf("}\n");
}

/* One histogram as bcc's funclatency prints it; a partial one says so. */
static void print_hist(const char *name, const struct hist *h,
		       const struct partial *p)
{
	unsigned long long total = h->total_ns / env.unit_div;
	char buf[128];

	if (name)
		printf("\nFunction = %s\n", name);
	histogram__print(stdout, (const uint64_t *)h->slots, HIST_NSLOTS, env.unit);
	if (h->count)
		printf("\navg = %llu %s, total: %llu %s, count: %llu\n",
		       total / h->count, env.unit, total, env.unit,
		       (unsigned long long)h->count);
	if (p->d)
		printf("partial: %s\n", overhead_index__str(p->d, buf, sizeof(buf)));
	else if (p->ndetached)
		printf("partial: %zu function%s detached over --max-overhead (-F shows which)\n",
		       p->ndetached, p->ndetached == 1 ? "" : "s");
	if (h->count || p->d || p->ndetached)
		printf("\n");
}

static void print_hists(const struct latency_plan *plan, size_t nhists)
{
	struct partial p = { 0 };
	char ts[16];
	size_t i;

	tool__timestamp(ts, sizeof(ts));
	if (!env.tool.json) {
		printf("\n");
		if (env.tool.timestamp)
			printf("%-8s\n", ts);
	}
	for (i = 0; i < nhists; i++) {
		const struct hist *h = &plan->rows[i].delta;
		const char *name = env.per_function ? plan->cp.names[i] : NULL;

		if (env.per_function && !h->count)
			continue;
		if (env.per_function)
			p.d = overhead_limit__detached(plan->limit, i);
		else if (plan->limit)
			p.ndetached = plan->limit->ndetached;
		if (env.tool.json)
			print_hist_json(ts, name, h, &p);
		else
			print_hist(name, h, &p);
	}
	fflush(stdout);
}

/* OUT is the caller's to destroy, loaded or not. LIMIT: --max-overhead,
 * or NULL. */
static int load_bpf(struct gofunclatency_bpf **out, pid_t tgid,
		    const struct goroutine_layout *layout, bool sp_keyed,
		    size_t nhists, struct overhead_limit *limit)
{
	struct gofunclatency_bpf *obj = gofunclatency_bpf__open();
	int err = 0;

	if (!obj)
		return skeleton__open_error();
	*out = obj;
	obj->rodata->target_tgid = tgid;
	skeleton__set_goroutine(obj->rodata, layout);
	obj->rodata->per_function = env.per_function;
	obj->rodata->unit_div = env.unit_div;
	obj->rodata->sp_keyed = sp_keyed;
	if (limit)
		err = overhead_limit__prepare(limit, &obj->rodata->watch_overhead,
					      obj->maps.probe_hits);
	if (!err)
		err = skeleton__load(obj->skeleton, obj->maps.hists, nhists);
	if (!err && limit) {
		struct bpf_program *progs[] = {
			obj->progs.call_entry, obj->progs.call_exit,
		};

		err = overhead_limit__start(limit,
					    bpf_map__fd(obj->maps.probe_hits),
					    &obj->bss->probe_epoch, progs, 2);
	}
	return err;
}

/* How --max-overhead's summary names a row. */
static const char *row_name(void *ctx, size_t row)
{
	return ((const struct latency_plan *)ctx)->cp.names[row];
}

/* What each interval prints: the histograms of the map. */
struct printer {
	struct latency_plan *plan;
	int map_fd;
	size_t nhists;
};

static int print_interval(void *ctx)
{
	struct printer *pr = ctx;
	int err;

	err = read_hists(pr->plan, pr->map_fd, pr->nhists);
	if (!err)
		print_hists(pr->plan, pr->nhists);
	return err;
}

int main(int argc, char **argv)
{
	struct tool_target target = { .cmd.gate_fd = -1 };
	struct func_probes fp = { 0 };
	struct latency_plan plan = { 0 };
	struct goroutine_layout layout = { 0 };
	struct gofunclatency_bpf *obj = NULL;
	struct uprobes *entry_probes = NULL, *exit_probes = NULL;
	struct printer pr = { .plan = &plan };
	size_t nhists = 1;
	struct overhead_limit limit = { 0 };
	struct tool_limit watch = { NULL, row_name, &plan };
	int err;

	tool__start(&env.tool, opts, parse_arg, "[BINARY:]PATTERN", doc,
		    argc, argv);
	err = tool_target__open(&target, &env.tool);
	if (!err)
		err = func_probes__find(target.bin, target.path, target.pattern,
					env.tool.regex, &fp);
	/* gccgo needs no goroutine layout: its calls are keyed by SP. */
	if (!err && !target.bin->is_gccgo)
		err = goroutine_layout__find(target.bin, &layout);
	if (!err)
		err = latency_plan__init(&plan, target.bin, &fp);
	if (!err && env.per_function)
		nhists = plan.cp.nrows;
	if (!err && env.tool.max_overhead) {
		err = overhead_limit__init(&limit, env.tool.max_overhead,
					   plan.cp.nrows);
		watch.limit = &limit;
		plan.limit = &limit;
	}
	if (!err)
		err = load_bpf(&obj, target.tgid, &layout,
			       target.bin->is_gccgo, nhists, watch.limit);
	if (!err)
		err = uprobes__attach(obj->progs.call_entry, target.path,
				      target.tgid, &plan.cp.entries,
				      &entry_probes);
	if (!err)
		err = uprobes__attach(obj->progs.call_exit, target.path,
				      target.tgid, &plan.cp.exits,
				      &exit_probes);
	if (!err && watch.limit)
		err = overhead_limit__add_links(&limit, entry_probes);
	if (!err && watch.limit)
		err = overhead_limit__add_links(&limit, exit_probes);
	if (!err) {
		pr.map_fd = bpf_map__fd(obj->maps.hists);
		pr.nhists = nhists;
		err = intervals__trace(&env.tool, &target, plan.cp.nrows,
				       print_interval, &pr, &watch);
	}
	uprobes__detach(entry_probes);
	uprobes__detach(exit_probes);
	gofunclatency_bpf__destroy(obj);
	overhead_limit__free(&limit);
	latency_plan__free(&plan);
	func_probes__free(&fp);
	tool_target__close(&target);
	return tool__exit_status(err);
}
