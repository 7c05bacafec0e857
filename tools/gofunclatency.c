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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "core/mem.h"
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
#include "cli/tool_metrics.h"
#include "probe/gstate_tracker.h"
#include "probe/uprobes.h"
#include "gofunclatency.h"
#include "gofunclatency.skel.h"

#define TOOL "gofunclatency"

static struct env {
	struct tool_options tool;
	bool per_function;		/* -F */
	bool split;			/* -S */
	bool split_hists;		/* --split-hists */
	const char *unit;		/* -u, -m */
	unsigned long long unit_div;
} env = { .unit = "nsecs", .unit_div = 1 };

/* Besides -p -c -d -v -h --max-overhead --debug-file (lib/cli/tool.h). */
enum { OPT_SPLIT_HISTS = TOOL_OPT_OWN };

static const struct argp_option opts[] = {
	{ "microseconds", 'u', NULL, 0, "Microsecond histogram", 0 },
	{ "milliseconds", 'm', NULL, 0, "Millisecond histogram", 0 },
	{ "interval", 'i', "INTERVAL", 0, "Print a histogram every INTERVAL seconds", 0 },
	{ "timestamp", 'T', NULL, 0, "Include a timestamp with each output", 0 },
	{ "function", 'F', NULL, 0, "Show a separate histogram per function", 0 },
	{ "split", 'S', NULL, 0, "Split each function's time: on CPU, runnable, in system calls, parked by wait reason", 0 },
	{ "split-hists", OPT_SPLIT_HISTS, NULL, 0, "With -S, a histogram per function and part of its calls' time there", 0 },
	{ "regexp", 'r', NULL, 0, "Use regular expressions; default is '*' wildcards", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines instead of histograms", 0 },
	TOOL_METRICS_OPTIONS,
	{},
};

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Time Go function calls: a histogram of the latency from entry to return.\n"
"\n"
"USAGE: gofunclatency [-h] [-p PID | -c CMD] [-u | -m] [-i INTERVAL]\n"
"                     [-d DURATION] [-T] [-F] [-S] [--split-hists] [-r] [-v] [-j]\n"
"                     [--max-overhead PCT] [--debug-file FILE]\n"
"                     [--prometheus [HOST:]PORT [-q]] [BINARY:]PATTERN\n"
"\n"
"PATTERN is a Go function name as Go spells it ('main.(*T).Foo' names exactly\n"
"that method; 'main.Sum' every instantiation of a generic Sum); '*' matches\n"
"any run of characters; -r takes a regular expression. BINARY is a path, or a library short name ('go' for gccgo's\n"
"libgo.so); it defaults to the executable of -p PID or -c CMD. Calls are\n"
"paired per goroutine, so a call that blocks and resumes on another thread\n"
"is timed right; calls that a panic unwinds or that end in runtime.Goexit\n"
"are not completed calls and are not counted. gccgo programs work too:\n"
"'go:fmt.Println' names fmt.Println in libgo.\n"
"\n"
"-S splits each function's time into where its goroutine was: on CPU;\n"
"runnable (P): ready, waiting for a P; runnable (CPU): running, its thread\n"
"off the CPU; syscall; parked, by the runtime's wait reason (sleep, chan\n"
"receive, select, IO wait, sync.Mutex.Lock...). The parts of a call add up\n"
"to its latency; --split-hists adds a histogram per part of the time the\n"
"calls spent there (of those that spent any). Not for gccgo. With\n"
"--max-overhead, the probes behind -S are counted too; when they alone cost\n"
"more than PCT they are detached, and no call that ends after is split.\n"
"\n"
"--prometheus serves the histogram on /metrics for Prometheus to scrape,\n"
"gofunclatency_call_duration_seconds (per function with -F; with -S the\n"
"seconds of each part), until Ctrl-C; BINARY:PATTERN times every process\n"
"running BINARY, now and later.\n"
"\n"
"EXAMPLES:\n"
"    gofunclatency -p 181 'main.(*T).Foo'   # time Foo in PID 181\n"
"    gofunclatency -u -p 181 'net/http.(*conn).serve'  # in microseconds\n"
"    gofunclatency -m -i 5 -T -p 181 'main.handle'  # every 5 s, timestamped\n"
"    gofunclatency -F -p 181 'main.*'       # one histogram per function\n"
"    gofunclatency -S -p 181 'main.handle'  # where its time went\n"
"    gofunclatency --split-hists -m -p 181 main.handle  # and a histogram a part\n"
"    gofunclatency -F -p 181 --max-overhead 5 'main.*'  # probes under 5% of a CPU\n"
"    gofunclatency -c './app -v' 'main.work'  # run ./app, time main.work\n"
"    gofunclatency -d 10 -r -p 181 '^main\\.(get|put)$'  # regex, for 10 s\n"
"    gofunclatency -j -c ./app 'main.work'  # JSON lines\n"
"    gofunclatency -p 181 'go:fmt.Println'  # gccgo: fmt.Println in libgo\n"
"    gofunclatency -F -q --prometheus 9100 ./server:'main.*'  # for Prometheus\n";

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
	case 'S':
		env.split = true;
		return 0;
	case OPT_SPLIT_HISTS:
		env.split = env.split_hists = true;
		return 0;
	default:
		return tool__parse_arg(&env.tool, key, arg, state);
	}
}

/* -S: a function's parked time by wait reason, as last read and what
 * grew since (the map is a hash: read key by key). */
struct parked_row {
	__u64 printed[GSTATE_MAX_REASONS], delta[GSTATE_MAX_REASONS];
};

/* The BPF counters are never cleared, so no call is lost between a read
 * and a clear; each print shows what grew since the last (cp.names[i]
 * names row i). */
struct latency_plan {
	struct call_probes cp;		/* rows: functions */
	struct percpu_counters hists;	/* struct hist: one, or a row's (-F) */
	struct percpu_counters splits;	/* -S: struct split, a row's */
	struct percpu_counters part_hists;	/* --split-hists: struct
						 * hist, SPLIT_NPARTS a row */
	struct parked_row **parked;	/* -S: a row's, once it has any */
	struct gstate_tracker *tracker;	/* -S */
	/* --max-overhead: its cookie indexes are the rows; NULL without */
	const struct overhead_limit *limit;
};

static void latency_plan__free(struct latency_plan *p)
{
	size_t i;

	for (i = 0; p->parked && i < p->cp.nrows; i++)
		free(p->parked[i]);
	free(p->parked);
	percpu_counters__free(&p->hists);
	percpu_counters__free(&p->splits);
	percpu_counters__free(&p->part_hists);
	gstate_tracker__close(p->tracker);
	call_probes__free(&p->cp);
}

/* Each counter in u64 words. */
#define WORDS(type)	(sizeof(type) / sizeof(__u64))

static int latency_plan__init(struct latency_plan *plan,
			      const struct go_binary *bin,
			      const struct func_probes *fp)
{
	size_t nrows;
	int err;

	err = call_probes__init(&plan->cp, fp->n, env.tool.verbose);
	if (!err)
		err = call_probes__add(&plan->cp, bin, fp, NULL);
	if (err)
		return err;
	if (plan->cp.ninlined && env.tool.verbose)
		fprintf(stderr, "%zu inlined copies not traced (gccgo: calls are keyed by SP, and a copy's is its caller's)\n",
			plan->cp.ninlined);
	/* with nothing left to time, the list says why */
	left_out__print(&plan->cp.left_out, stderr, TOOL,
			env.tool.verbose || !plan->cp.nrows);
	nrows = plan->cp.nrows;
	if (!nrows)
		return gt_error(-ENOENT, "no function matching '%s' can be timed",
				env.tool.spec);
	err = percpu_counters__init(&plan->hists, env.per_function ? nrows : 1,
				    WORDS(struct hist));
	if (!err && env.split)
		err = percpu_counters__init(&plan->splits, nrows,
					    WORDS(struct split));
	if (!err && env.split_hists)
		err = percpu_counters__init(&plan->part_hists,
					    nrows * SPLIT_NPARTS,
					    WORDS(struct hist));
	if (!err && env.split) {
		plan->parked = calloc(nrows, sizeof(*plan->parked));
		if (!plan->parked)
			err = gt_error(-ENOMEM, "out of memory");
	}
	return err;
}

/* -S: FN(KEY, NS, CTX) for each function's parked time by reason in the
 * map PARKED_FD (a hash: read key by key), of the NROWS functions; stops
 * at FN's error. */
static int parked_map__walk(int parked_fd, size_t nrows,
			    int (*fn)(const struct parked_key *key, __u64 ns,
				      void *ctx),
			    void *ctx)
{
	struct parked_key key, next, *prev = NULL;
	int err = 0;
	__u64 ns;

	while (!err && !bpf_map_get_next_key(parked_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(parked_fd, &key, &ns) ||
		    key.func >= nrows || key.reason >= GSTATE_MAX_REASONS)
			continue;
		err = fn(&key, ns, ctx);
	}
	return err;
}

/* What grew of one function's parked time by reason since the last read. */
static int parked_grew(const struct parked_key *key, __u64 ns, void *ctx)
{
	struct latency_plan *plan = ctx;
	struct parked_row *r;

	if (!plan->parked[key->func])
		plan->parked[key->func] = calloc(1, sizeof(*r));
	r = plan->parked[key->func];
	if (!r)
		return gt_error(-ENOMEM, "out of memory");
	r->delta[key->reason] = ns - r->printed[key->reason];
	r->printed[key->reason] = ns;
	return 0;
}

/* -S: the parked time by reason, and what grew since the last read. */
static int read_parked(struct latency_plan *plan, int parked_fd)
{
	size_t i;

	for (i = 0; i < plan->cp.nrows; i++)
		if (plan->parked[i])
			memset(plan->parked[i]->delta, 0,
			       sizeof(plan->parked[i]->delta));
	return parked_map__walk(parked_fd, plan->cp.nrows, parked_grew, plan);
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

/* -S: what one function's split shows, from what grew since the last
 * print: its parts, its parked time by reason and its histograms by part
 * (NULL when it has none). */
struct split_row {
	const struct split *s;
	const __u64 *parked;		/* GSTATE_MAX_REASONS */
	const struct hist *hists;	/* SPLIT_NPARTS */
};

/* Parked time whose reason the map of reasons had no room for (it holds
 * 65536 functions x reasons): so that the parts still add up. */
#define UNKEPT_REASON	"(reason not kept)"

static __u64 parked_unkept(const struct split_row *r)
{
	__u64 sum = 0;
	uint32_t i;

	for (i = 0; r->parked && i < GSTATE_MAX_REASONS; i++)
		sum += r->parked[i];
	return r->s->ns[GSTATE_PARKED] > sum ? r->s->ns[GSTATE_PARKED] - sum : 0;
}

/* The time of slot SLOT (enum gstate_part; parked + reason) of R. */
static __u64 split_ns(const struct split_row *r, uint32_t slot)
{
	if (slot < GSTATE_PARKED)
		return r->s->ns[slot];
	return r->parked ? r->parked[slot - GSTATE_PARKED] : 0;
}

static void print_split_json(const struct latency_plan *plan, const char *ts,
			     const char *name, const struct split_row *r)
{
	static const char *const keys[GSTATE_PARKED] = {
		[GSTATE_ON_CPU] = "on_cpu_ns",
		[GSTATE_RUNNABLE] = "runnable_ns",
		[GSTATE_OFF_CPU] = "runnable_cpu_ns",
		[GSTATE_SYSCALL] = "syscall_ns",
	};
	const char *sep = "";
	uint32_t slot;

	printf("{\"time\":\"%s\",\"func\":", ts);
	json_print_string(stdout, name);
	printf(",\"count\":%llu,\"total_ns\":%llu",
	       (unsigned long long)r->s->count,
	       (unsigned long long)r->s->total_ns);
	for (slot = 0; slot < GSTATE_PARKED; slot++)
		printf(",\"%s\":%llu", keys[slot],
		       (unsigned long long)r->s->ns[slot]);
	printf(",\"parked_ns\":{");
	for (slot = GSTATE_PARKED; slot < GSTATE_NSLOTS; slot++) {
		if (!split_ns(r, slot))
			continue;
		printf("%s", sep);
		json_print_string(stdout, gstate_tracker__slot_name(plan->tracker,
								    slot));
		printf(":%llu", (unsigned long long)split_ns(r, slot));
		sep = ",";
	}
	if (parked_unkept(r))
		printf("%s\"%s\":%llu", sep, UNKEPT_REASON,
		       (unsigned long long)parked_unkept(r));
	printf("}");
	if (gstate_tracker__stopped(plan->tracker))
		printf(",\"partial\":true,\"tracker_detached\":true");
	if (r->hists) {
		printf(",\"hists\":{");
		for (slot = 0, sep = ""; slot < SPLIT_NPARTS; slot++) {
			if (!r->hists[slot].count)
				continue;
			printf("%s\"%s\":", sep,
			       slot < GSTATE_PARKED ? keys[slot] : "parked_ns");
			histogram__print_json(stdout,
					      (const uint64_t *)r->hists[slot].slots,
					      HIST_NSLOTS, env.unit);
			sep = ",";
		}
		printf("}");
	}
	printf("}\n");
}

/* A part's row: its time T, share of R's total, average per call. */
static void print_part(const char *label, __u64 t, const struct split_row *r)
{
	printf("    %-34s %14llu %6.1f%% %14llu\n", label,
	       (unsigned long long)(t / env.unit_div),
	       r->s->total_ns ? 100.0 * t / r->s->total_ns : 0.0,
	       (unsigned long long)(t / env.unit_div / r->s->count));
}

/* One function's parts: time, share of its total, average per call. */
static void print_split(const struct latency_plan *plan, const char *name,
			const struct split_row *r)
{
	unsigned long long total = r->s->total_ns / env.unit_div;
	unsigned long long count = r->s->count, t;
	char label[96];
	uint32_t slot;

	printf("%s: %llu calls, total %llu %s\n", name, count, total,
	       env.unit);
	printf("    %-34s %14s %7s %14s\n", "PART", env.unit, "SHARE",
	       "AVG/CALL");
	for (slot = 0; slot < GSTATE_NSLOTS; slot++) {
		t = split_ns(r, slot);
		if (!t)
			continue;
		snprintf(label, sizeof(label), "%s%s",
			 slot < GSTATE_PARKED ? "" : "parked: ",
			 gstate_tracker__slot_name(plan->tracker, slot));
		print_part(label, t, r);
	}
	if (parked_unkept(r))
		print_part("parked: " UNKEPT_REASON, parked_unkept(r), r);
	if (gstate_tracker__stopped(plan->tracker))
		printf("    partial: the goroutine-state tracker was detached over --max-overhead: calls that ended after are not split\n");
	for (slot = 0; r->hists && slot < SPLIT_NPARTS; slot++) {
		const struct hist *h = &r->hists[slot];

		if (!h->count)
			continue;
		printf("\n%s, %s: %llu of its calls\n", name,
		       slot < GSTATE_PARKED ?
		       gstate_tracker__slot_name(plan->tracker, slot) : "parked",
		       (unsigned long long)h->count);
		histogram__print(stdout, (const uint64_t *)h->slots,
				 HIST_NSLOTS, env.unit);
	}
}

/* -S: the parts of every function with calls in this interval. */
static void print_splits(const struct latency_plan *plan, const char *ts)
{
	bool header = false;
	size_t i;

	for (i = 0; i < plan->cp.nrows; i++) {
		struct split_row r = {
			.s = (const struct split *)
				percpu_counters__delta(&plan->splits, i),
			.parked = plan->parked[i] ? plan->parked[i]->delta : NULL,
		};

		if (!r.s->count)
			continue;
		if (env.split_hists)
			r.hists = (const struct hist *)percpu_counters__delta(
					&plan->part_hists, i * SPLIT_NPARTS);
		if (env.tool.json) {
			print_split_json(plan, ts, plan->cp.names[i], &r);
			continue;
		}
		if (!header)
			printf("Where the time went:\n");
		header = true;
		print_split(plan, plan->cp.names[i], &r);
	}
	if (header)
		printf("\n");
}

static void print_hists(const struct latency_plan *plan)
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
	for (i = 0; i < plan->hists.nkeys; i++) {
		const struct hist *h = (const struct hist *)
			percpu_counters__delta(&plan->hists, i);
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
	if (env.split)
		print_splits(plan, ts);
	fflush(stdout);
}

/* -S: the maps of the split sized for NROWS functions, or the smallest
 * without it; the goroutine-state tracker configured, or not loaded. */
static int prepare_split(struct gofunclatency_bpf *obj,
			 const struct gstate_tracker *tracker, size_t nrows)
{
	int err;

	err = skeleton__set_gstate(obj, tracker);
	if (!err && !tracker)
		err = bpf_map__set_max_entries(obj->maps.split_starts, 1);
	if (!err && !tracker)
		err = bpf_map__set_max_entries(obj->maps.parked, 1);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.splits,
					       tracker ? nrows : 1);
	if (!err)
		err = bpf_map__set_max_entries(obj->maps.part_hists,
					       env.split_hists ?
					       nrows * SPLIT_NPARTS : 1);
	return err ? gt_error(err, "cannot size the maps of -S: %s",
			      strerror(-err)) : 0;
}

/* OUT is the caller's to destroy, loaded or not. LIMIT: --max-overhead,
 * or NULL. */
static int load_bpf(struct gofunclatency_bpf **out, pid_t tgid,
		    const struct goroutine_layout *layout, bool sp_keyed,
		    const struct latency_plan *plan,
		    struct overhead_limit *limit)
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
	obj->rodata->split = plan->tracker != NULL;
	obj->rodata->split_hists = env.split_hists;
	err = prepare_split(obj, plan->tracker, plan->cp.nrows);
	if (!err)
		err = skeleton__load_limited(obj, obj->maps.hists,
					     plan->hists.nkeys, limit,
					     obj->progs.call_entry,
					     obj->progs.call_exit);
	return err;
}

/* How --max-overhead's summary names a row. */
static const char *row_name(void *ctx, size_t row)
{
	return ((const struct latency_plan *)ctx)->cp.names[row];
}

/* What each interval prints: the histograms of the map, and -S's parts;
 * what --prometheus serves (TOTALS: the hists or splits read in all). */
struct printer {
	struct latency_plan *plan;
	int hists_fd, splits_fd, parked_fd, part_hists_fd;
	__u64 *totals;
	size_t ntotals;
};

/* The longest latency a bucket of /metrics bounds: an hour; above it, +Inf. */
#define DURATION_MAX_NS	(3600ULL * 1000000000ULL)

/* Room for NKEYS elements of NWORDS words in PR's totals. */
static int printer__totals(struct printer *pr, size_t nkeys, size_t nwords)
{
	return gt_ensure_mem((void **)&pr->totals, &pr->ntotals,
			     sizeof(*pr->totals), nkeys * nwords);
}

static void row_labels(struct metrics *m, size_t row, void *ctx)
{
	metrics__label(m, "function", ((struct printer *)ctx)->plan->cp.names[row]);
}

/* A page being written, and the printer whose rows it labels. */
struct page_rows {
	struct metrics *m;
	struct printer *pr;
};

/* -S on /metrics: one function's parked seconds for one reason. */
static int parked_sample(const struct parked_key *key, __u64 ns, void *ctx)
{
	struct page_rows *p = ctx;
	const char *reason = gstate_tracker__slot_name(p->pr->plan->tracker,
						       GSTATE_PARKED + key->reason);
	char v[32], unnamed[32];

	/* reason 0 is "" in Go, a reason past the runtime's too: one
	 * series each */
	if (!reason || !*reason) {
		snprintf(unnamed, sizeof(unnamed), "reason_%u", key->reason);
		reason = unnamed;
	}
	metrics__sample_begin(p->m, NULL);
	row_labels(p->m, key->func, p->pr);
	metrics__label(p->m, "reason", reason);
	metrics__sample_end(p->m, metrics__ns_seconds(v, sizeof(v), ns));
	return 0;
}

/* -S on /metrics: each function's seconds by part, and parked by reason. */
static int write_split_metrics(struct metrics *m, struct printer *pr)
{
	static const char *const parts[SPLIT_NPARTS] = {
		[GSTATE_ON_CPU] = "on_cpu",
		[GSTATE_RUNNABLE] = "runnable",
		[GSTATE_OFF_CPU] = "runnable_cpu",
		[GSTATE_SYSCALL] = "syscall",
		[GSTATE_PARKED] = "parked",
	};
	const struct latency_plan *plan = pr->plan;
	const struct split *sp;
	char v[32];
	size_t i;
	int err, part;

	err = printer__totals(pr, plan->cp.nrows, WORDS(struct split));
	if (!err)
		err = percpu_map__sum_all(pr->splits_fd, plan->cp.nrows,
					  pr->totals, WORDS(struct split));
	if (err)
		return err;
	metrics__family(m, TOOL "_split_seconds", METRICS_COUNTER,
			"Seconds of the function's calls by where the goroutine was: on_cpu, runnable (waiting for a P), runnable_cpu (its thread off the CPU), syscall, parked");
	for (i = 0; i < plan->cp.nrows; i++) {
		sp = (const struct split *)(pr->totals + i * WORDS(struct split));
		for (part = 0; sp->count && part < SPLIT_NPARTS; part++) {
			metrics__sample_begin(m, NULL);
			row_labels(m, i, pr);
			metrics__label(m, "part", parts[part]);
			metrics__sample_end(m, metrics__ns_seconds(v, sizeof(v),
						  sp->ns[part]));
		}
	}
	metrics__family(m, TOOL "_parked_seconds", METRICS_COUNTER,
			"Seconds of the function's calls parked, by the runtime's wait reason");
	return parked_map__walk(pr->parked_fd, plan->cp.nrows, parked_sample,
				&(struct page_rows){ m, pr });
}

/* --prometheus: the histograms since the start, in seconds. */
static int write_metrics(struct metrics *m, void *ctx)
{
	struct printer *pr = ctx;
	const struct latency_plan *plan = pr->plan;
	const struct tool_rows rows = {
		.tool = TOOL, .nrows = plan->cp.nrows,
		.nleft_out = plan->cp.left_out.n, .limit = plan->limit,
		.labels = row_labels, .ctx = pr,
	};
	size_t i, nkeys = plan->hists.nkeys;
	const struct hist *h;
	int err;

	err = printer__totals(pr, nkeys, WORDS(struct hist));
	if (!err)
		err = percpu_map__sum_all(pr->hists_fd, nkeys, pr->totals,
					  WORDS(struct hist));
	if (err)
		return err;
	metrics__family(m, TOOL "_call_duration_seconds", METRICS_HISTOGRAM,
			env.per_function ?
			"Latency of the function's calls, entry to return, paired per goroutine" :
			"Latency of the calls of the functions matched, entry to return, paired per goroutine");
	for (i = 0; i < nkeys; i++) {
		h = (const struct hist *)(pr->totals + i * WORDS(struct hist));
		if (env.per_function && !h->count)
			continue;
		metrics__histogram(m, env.per_function ? "function" : NULL,
				   plan->cp.names[i], (const uint64_t *)h->slots,
				   HIST_NSLOTS, env.unit_div, DURATION_MAX_NS,
				   h->total_ns);
	}
	if (env.split)
		err = write_split_metrics(m, pr);
	if (!err)
		tool_metrics__write_rows(m, &rows);
	return err;
}

static int print_interval(void *ctx)
{
	struct printer *pr = ctx;
	struct latency_plan *plan = pr->plan;
	int err;

	err = percpu_counters__read(&plan->hists, pr->hists_fd);
	if (!err && env.split)
		err = percpu_counters__read(&plan->splits, pr->splits_fd);
	if (!err && env.split)
		err = read_parked(plan, pr->parked_fd);
	if (!err && env.split_hists)
		err = percpu_counters__read(&plan->part_hists,
					    pr->part_hists_fd);
	if (!err)
		print_hists(plan);
	return err;
}

int main(int argc, char **argv)
{
	struct tool_target target = { .cmd.gate_fd = -1 };
	struct func_probes fp = { 0 };
	struct latency_plan plan = { 0 };
	struct goroutine_layout layout = { 0 };
	struct gofunclatency_bpf *obj = NULL;
	struct call_links links = { 0 };
	struct printer pr = { .plan = &plan };
	struct overhead_limit limit = { 0 };
	struct tool_limit watch = { .name_of = row_name, .ctx = &plan };
	struct tool_metrics metrics = { 0 };
	int err;

	tool__start(&env.tool, opts, parse_arg, "[BINARY:]PATTERN", doc,
		    argc, argv);
	err = tool_target__open(&target, &env.tool);
	if (!err)
		err = tool_metrics__open(&metrics, &env.tool);
	tool_metrics__set_source(&metrics, &target, write_metrics, &pr);
	if (!err)
		err = func_probes__find(target.bin, target.path, target.pattern,
					env.tool.regex, &fp);
	/* gccgo needs no goroutine layout: its calls are keyed by SP. */
	if (!err && !target.bin->is_gccgo)
		err = goroutine_layout__find(target.bin, &layout);
	if (!err && env.split)
		err = gstate_tracker__open(target.bin, &layout, &plan.tracker);
	if (!err)
		err = latency_plan__init(&plan, target.bin, &fp);
	if (!err && env.tool.max_overhead) {
		err = overhead_limit__init(&limit, env.tool.max_overhead,
					   plan.cp.nrows);
		watch.limit = &limit;
		plan.limit = &limit;
	}
	if (!err)
		err = load_bpf(&obj, target.tgid, &layout,
			       target.bin->is_gccgo, &plan, watch.limit);
	/* the tracker first: a call that starts sees every transition */
	if (!err && plan.tracker)
		err = tool_tracker__attach(plan.tracker, watch.limit,
					   obj->progs.gstate_site,
					   obj->progs.gstate_switch,
					   obj->maps.gstate_site_hits,
					   &obj->bss->gstate_off, target.path,
					   target.tgid,
					   "-S splits no call that ends from now on");
	if (!err && watch.limit)
		err = overhead_limit__attach_calls(&limit, &plan.cp,
						   obj->progs.call_entry,
						   obj->progs.call_exit,
						   target.path, target.tgid);
	else if (!err)
		err = call_probes__attach(&plan.cp, obj->progs.call_entry,
					  obj->progs.call_exit, target.path,
					  target.tgid, &links);
	if (!err) {
		pr.hists_fd = bpf_map__fd(obj->maps.hists);
		pr.splits_fd = bpf_map__fd(obj->maps.splits);
		pr.parked_fd = bpf_map__fd(obj->maps.parked);
		pr.part_hists_fd = bpf_map__fd(obj->maps.part_hists);
		err = intervals__trace(&env.tool, &target, plan.cp.nrows,
				       print_interval, &pr, &watch, &metrics);
	}
	tool_metrics__close(&metrics);
	call_links__detach(&links);
	overhead_limit__detach(&limit);
	if (plan.tracker)
		gstate_tracker__detach(plan.tracker);
	gofunclatency_bpf__destroy(obj);
	overhead_limit__free(&limit);
	latency_plan__free(&plan);
	free(pr.totals);
	func_probes__free(&fp);
	tool_target__close(&target);
	return tool__exit_status(err);
}
