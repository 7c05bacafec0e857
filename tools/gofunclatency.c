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
enum { OPT_SPLIT_HISTS = 1000 };

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
	{},
};

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Time Go function calls: a histogram of the latency from entry to return.\n"
"\n"
"USAGE: gofunclatency [-h] [-p PID | -c CMD] [-u | -m] [-i INTERVAL]\n"
"                     [-d DURATION] [-T] [-F] [-S] [--split-hists] [-r] [-v] [-j]\n"
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
"-S splits each function's time into where its goroutine was: on CPU;\n"
"runnable (P): ready, waiting for a P; runnable (CPU): running, its thread\n"
"off the CPU; syscall; parked, by the runtime's wait reason (sleep, chan\n"
"receive, select, IO wait, sync.Mutex.Lock...). The parts of a call add up\n"
"to its latency; --split-hists adds a histogram per part of the time the\n"
"calls spent there (of those that spent any). Not for gccgo.\n"
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

/* A traced function's histogram as last printed (cp.names[i] names it):
 * the BPF histograms are never cleared, so no call is lost between a read
 * and a clear; each print shows what is new. */
struct func_row {
	struct hist printed;
	struct hist delta;
};

/* -S: a function's parts as last printed, and what is new. Its parked
 * time by reason is allocated once it has any. */
struct split_row {
	struct split printed, delta;
	__u64 *parked_printed, *parked_delta;	/* GSTATE_MAX_REASONS */
	/* --split-hists: by part, as last printed, and what is new */
	struct hist hist_printed[SPLIT_NPARTS], hist_delta[SPLIT_NPARTS];
};

struct latency_plan {
	struct call_probes cp;		/* rows: functions */
	struct func_row *rows;
	struct split_row *splits;	/* -S: by row */
	struct gstate_tracker *tracker;	/* -S */
	/* --max-overhead: its cookie indexes are the rows; NULL without */
	const struct overhead_limit *limit;
};

static void latency_plan__free(struct latency_plan *p)
{
	size_t i;

	for (i = 0; p->splits && i < p->cp.nrows; i++) {
		free(p->splits[i].parked_printed);
		free(p->splits[i].parked_delta);
	}
	free(p->splits);
	gstate_tracker__close(p->tracker);
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
	if (env.split) {
		plan->splits = calloc(plan->cp.nrows, sizeof(*plan->splits));
		if (!plan->splits)
			return gt_error(-ENOMEM, "out of memory");
	}
	return 0;
}

/* --split-hists: read the part histograms of every function (one batch),
 * and compute what is new since the last print. */
static int read_part_hists(struct latency_plan *plan, int fd)
{
	const size_t nwords = sizeof(struct hist) / sizeof(__u64);
	size_t n = plan->cp.nrows * SPLIT_NPARTS, i, w;
	struct hist *sums;
	int err;

	sums = calloc(n, sizeof(*sums));
	if (!sums)
		return gt_error(-ENOMEM, "out of memory");
	err = percpu_map__sum_all(fd, n, (__u64 *)sums, nwords);
	for (i = 0; i < n && !err; i++) {
		struct split_row *r = &plan->splits[i / SPLIT_NPARTS];
		__u64 *printed = (__u64 *)&r->hist_printed[i % SPLIT_NPARTS];
		__u64 *delta = (__u64 *)&r->hist_delta[i % SPLIT_NPARTS];
		const __u64 *now = (const __u64 *)&sums[i];

		for (w = 0; w < nwords; w++)
			delta[w] = now[w] - printed[w];
		r->hist_printed[i % SPLIT_NPARTS] = sums[i];
	}
	free(sums);
	return err;
}

/* -S: read the parts of every function (one batch) and the parked time
 * by reason, and compute what is new since the last print. */
static int read_splits(struct latency_plan *plan, int splits_fd,
		       int parked_fd)
{
	const size_t nwords = sizeof(struct split) / sizeof(__u64);
	struct parked_key key, next, *prev = NULL;
	struct split *sums;
	struct split_row *r;
	size_t i, w;
	__u64 ns;
	int err;

	sums = calloc(plan->cp.nrows, sizeof(*sums));
	if (!sums)
		return gt_error(-ENOMEM, "out of memory");
	err = percpu_map__sum_all(splits_fd, plan->cp.nrows, (__u64 *)sums,
				  nwords);
	for (i = 0; i < plan->cp.nrows && !err; i++) {
		const __u64 *now = (const __u64 *)&sums[i];
		__u64 *printed = (__u64 *)&plan->splits[i].printed;
		__u64 *delta = (__u64 *)&plan->splits[i].delta;

		for (w = 0; w < nwords; w++)
			delta[w] = now[w] - printed[w];
		plan->splits[i].printed = sums[i];
		if (plan->splits[i].parked_delta)
			memset(plan->splits[i].parked_delta, 0,
			       GSTATE_MAX_REASONS * sizeof(__u64));
	}
	free(sums);
	while (!err && !bpf_map_get_next_key(parked_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(parked_fd, &key, &ns) ||
		    key.func >= plan->cp.nrows ||
		    key.reason >= GSTATE_MAX_REASONS)
			continue;
		r = &plan->splits[key.func];
		if (!r->parked_printed) {
			r->parked_printed = calloc(GSTATE_MAX_REASONS, sizeof(__u64));
			r->parked_delta = calloc(GSTATE_MAX_REASONS, sizeof(__u64));
			if (!r->parked_printed || !r->parked_delta)
				return gt_error(-ENOMEM, "out of memory");
		}
		r->parked_delta[key.reason] = ns - r->parked_printed[key.reason];
		r->parked_printed[key.reason] = ns;
	}
	return err;
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

/* Parked time whose reason the map of reasons had no room for (it holds
 * 65536 functions x reasons): so that the parts still add up. */
#define UNKEPT_REASON	"(reason not kept)"

static __u64 parked_unkept(const struct split_row *r)
{
	__u64 sum = 0;
	uint32_t i;

	for (i = 0; r->parked_delta && i < GSTATE_MAX_REASONS; i++)
		sum += r->parked_delta[i];
	return r->delta.ns[GSTATE_PARKED] > sum ?
	       r->delta.ns[GSTATE_PARKED] - sum : 0;
}

/* The time of slot SLOT (enum gstate_part; parked + reason) of R. */
static __u64 split_ns(const struct split_row *r, uint32_t slot)
{
	if (slot < GSTATE_PARKED)
		return r->delta.ns[slot];
	return r->parked_delta ? r->parked_delta[slot - GSTATE_PARKED] : 0;
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
	       (unsigned long long)r->delta.count,
	       (unsigned long long)r->delta.total_ns);
	for (slot = 0; slot < GSTATE_PARKED; slot++)
		printf(",\"%s\":%llu", keys[slot],
		       (unsigned long long)r->delta.ns[slot]);
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
	if (env.split_hists) {
		printf(",\"hists\":{");
		for (slot = 0, sep = ""; slot < SPLIT_NPARTS; slot++) {
			if (!r->hist_delta[slot].count)
				continue;
			printf("%s\"%s\":", sep,
			       slot < GSTATE_PARKED ? keys[slot] : "parked_ns");
			histogram__print_json(stdout,
					      (const uint64_t *)r->hist_delta[slot].slots,
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
	       r->delta.total_ns ? 100.0 * t / r->delta.total_ns : 0.0,
	       (unsigned long long)(t / env.unit_div / r->delta.count));
}

/* One function's parts: time, share of its total, average per call. */
static void print_split(const struct latency_plan *plan, const char *name,
			const struct split_row *r)
{
	unsigned long long total = r->delta.total_ns / env.unit_div;
	unsigned long long count = r->delta.count, t;
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
	for (slot = 0; env.split_hists && slot < SPLIT_NPARTS; slot++) {
		const struct hist *h = &r->hist_delta[slot];

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
		const struct split_row *r = &plan->splits[i];

		if (!r->delta.count)
			continue;
		if (env.tool.json) {
			print_split_json(plan, ts, plan->cp.names[i], r);
			continue;
		}
		if (!header)
			printf("Where the time went:\n");
		header = true;
		print_split(plan, plan->cp.names[i], r);
	}
	if (header)
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
	if (plan->splits)
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
		    size_t nhists, const struct latency_plan *plan,
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
	if (!err && limit)
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

/* What each interval prints: the histograms of the map, and -S's parts. */
struct printer {
	struct latency_plan *plan;
	int map_fd;
	size_t nhists;
	int splits_fd, parked_fd, part_hists_fd;
};

static int print_interval(void *ctx)
{
	struct printer *pr = ctx;
	int err;

	err = read_hists(pr->plan, pr->map_fd, pr->nhists);
	if (!err && pr->plan->splits)
		err = read_splits(pr->plan, pr->splits_fd, pr->parked_fd);
	if (!err && env.split_hists)
		err = read_part_hists(pr->plan, pr->part_hists_fd);
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
	if (!err && env.split)
		err = gstate_tracker__open(target.bin, &layout, &plan.tracker);
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
			       target.bin->is_gccgo, nhists, &plan, watch.limit);
	/* the tracker first: a call that starts sees every transition */
	if (!err && plan.tracker)
		err = gstate_tracker__attach(plan.tracker,
					     obj->progs.gstate_site,
					     obj->progs.gstate_switch,
					     target.path, target.tgid);
	/* exits before entries: every call seen to begin is seen to end
	 * (-S: its goroutine is not left tracked) */
	if (!err)
		err = uprobes__attach(obj->progs.call_exit, target.path,
				      target.tgid, &plan.cp.exits,
				      &exit_probes);
	if (!err)
		err = uprobes__attach(obj->progs.call_entry, target.path,
				      target.tgid, &plan.cp.entries,
				      &entry_probes);
	if (!err && watch.limit)
		err = overhead_limit__add_links(&limit, entry_probes);
	if (!err && watch.limit)
		err = overhead_limit__add_links(&limit, exit_probes);
	if (!err) {
		pr.map_fd = bpf_map__fd(obj->maps.hists);
		pr.nhists = nhists;
		pr.splits_fd = bpf_map__fd(obj->maps.splits);
		pr.parked_fd = bpf_map__fd(obj->maps.parked);
		pr.part_hists_fd = bpf_map__fd(obj->maps.part_hists);
		err = intervals__trace(&env.tool, &target, plan.cp.nrows,
				       print_interval, &pr, &watch);
	}
	uprobes__detach(entry_probes);
	uprobes__detach(exit_probes);
	if (plan.tracker)
		gstate_tracker__detach(plan.tracker);
	gofunclatency_bpf__destroy(obj);
	overhead_limit__free(&limit);
	latency_plan__free(&plan);
	func_probes__free(&fp);
	tool_target__close(&target);
	return tool__exit_status(err);
}
