// SPDX-License-Identifier: MIT
/*
 * gofuncgraph: the call tree of each call of a root function, per
 * goroutine, as ftrace's function_graph prints one.
 *
 * Every function of the patterns (the root's package by default) gets an
 * entry probe and one on each exit (lib/probe/call_probes.h); BPF sends
 * the calls and returns on a goroutine while a root call runs on it (see
 * bpf/gofuncgraph.bpf.c), and its waits. Here each goroutine's events
 * build its tree (lib/graph/call_tree.h), printed when its root returns if
 * it took at least -t.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "core/json.h"
#include "goabi/goroutine.h"
#include "probe/call_probes.h"
#include "probe/func_probes.h"
#include "probe/goexit_probe.h"
#include "probe/gstate_tracker.h"
#include "cli/duration.h"
#include "cli/overhead_limit.h"
#include "cli/skeleton.h"
#include "cli/tool.h"
#include "cli/user_stack.h"
#include "graph/call_tree.h"
#include "trace/traced_binary.h"
#include "gofuncgraph.h"
#include "gofuncgraph.skel.h"

#define TOOL "gofuncgraph"
#define MAX_PATTERNS 32

static struct env {
	struct tool_options tool;
	const char *patterns[MAX_PATTERNS];	/* [0]: the root */
	size_t npatterns;
	unsigned long long min_ns;	/* -t */
	long max_depth;			/* -D, 0: all */
	long max_events;		/* -M */
	bool no_waits;			/* --no-waits */
	bool user_stack;		/* -U */
} env = { .max_events = 4096 };

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Trace the call tree of each call of a Go function, per goroutine.\n"
"\n"
"USAGE: gofuncgraph [-h] [-p PID | -c CMD] [-t DURATION] [-D DEPTH]\n"
"                   [-M MAX] [-d DURATION] [-U] [-r] [-v] [-j] [--no-waits]\n"
"                   [--max-overhead PCT] [--debug-file FILE]\n"
"                   [BINARY:]ROOT [PATTERN ...]\n"
"\n"
"When a goroutine enters a function matching ROOT, the calls and returns of\n"
"the functions matching the PATTERNs (by default the functions of ROOT's\n"
"package) on that goroutine are recorded until that root call returns; then\n"
"its tree is printed as ftrace's function_graph prints one: a line per\n"
"call, indented by depth, with its duration (on the closing brace of a call\n"
"with calls under it). Roots print in the order they end, each headed by\n"
"its goroutine id and start time. Calls are paired by goroutine and frame\n"
"depth, never by thread, and with no uretprobe. Frames a panic unwound are\n"
"closed where the tree goes on, marked (unwound). Inlined calls are in the\n"
"trees too, marked [inlined]. A root with more than MAX\n"
"events is cut and marked. Patterns are Go names with '*' wildcards (-r:\n"
"regular expressions), generic functions as written, as in gofunccount.\n"
"\n"
"Where the goroutine was not running shows in the tree where it happened,\n"
"with its duration: /* parked: REASON */ with the runtime's wait reason\n"
"(sleep, chan receive, select, IO wait, sync.Mutex.Lock...), /* runnable (P) */\n"
"waiting for a P, /* runnable (CPU) */ its thread off the CPU, /* syscall */\n"
"(--no-waits: calls only, and no probe on the scheduler).\n"
"\n"
"gccgo programs get trees without waits, their goroutine ids printed as -\n"
"(libgo's g is out of reach; goroutines are told apart by their split\n"
"stacks, which gccgo has on x86-64 only); a root in libgo (go:fmt.Fprintf)\n"
"needs -p or -c.\n"
"\n"
"--max-overhead PCT keeps the traced functions' probes near PCT% of one CPU\n"
"(as in gofunccount): a large pattern is tried in batches and only what that\n"
"pays for attached, those that cost most later are detached; the trees after\n"
"a detach are marked partial (a root function detached starts no more\n"
"trees). The scheduler's probes of the waits are counted too: when they\n"
"alone cost more than PCT they are detached, and the trees after have no\n"
"waits (--no-waits removes them).\n"
"\n"
"EXAMPLES:\n"
"    gofuncgraph -p 181 main.handle          # each call of main.handle\n"
"    gofuncgraph -p 181 -t 10ms main.handle  # only those of 10 ms or more\n"
"    gofuncgraph -p 181 -D 3 'main.(*S).serve' 'main.*' 'encoding/json.*'\n"
"    gofuncgraph -U -p 181 -t 50ms main.handle  # and where each began\n"
"    gofuncgraph --max-overhead 5 -p 181 main.handle  # under 5% of a CPU\n"
"    gofuncgraph -j -c ./app main.work       # JSON, one root a line\n";

enum { OPT_NO_WAITS = TOOL_OPT_OWN };

/* Besides -p -c -d -v -h --max-overhead --debug-file (lib/cli/tool.h). */
static const struct argp_option opts[] = {
	{ "threshold", 't', "DURATION", 0, "Print only root calls that took at least DURATION (10ms, 500us, 2s; a plain number is in microseconds)", 0 },
	{ "depth", 'D', "DEPTH", 0, "Print calls at most DEPTH deep (the root is 1)", 0 },
	{ "max-events", 'M', "MAX", 0, "Record at most MAX calls, returns and waits per root call (default 4096); cut beyond", 0 },
	{ "user-stack", 'U', NULL, 0, "Print the user stack of each root call, where it began", 0 },
	{ "regexp", 'r', NULL, 0, "Patterns are regular expressions", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines: one object per root call", 0 },
	{ "no-waits", OPT_NO_WAITS, NULL, 0, "Do not show where goroutines waited (no probes on the scheduler)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 't':
		if (duration__parse(arg, &env.min_ns))
			tool__usage_error("%s", gt_last_error());
		return 0;
	case 'D':
		env.max_depth = tool__parse_positive(arg, "DEPTH");
		return 0;
	case 'M':
		env.max_events = tool__parse_positive(arg, "MAX");
		return 0;
	case OPT_NO_WAITS:
		env.no_waits = true;
		return 0;
	case 'U':
		env.user_stack = true;
		return 0;
	case ARGP_KEY_ARG:
		if (env.npatterns == MAX_PATTERNS)
			tool__usage_error("more than %d patterns", MAX_PATTERNS);
		env.patterns[env.npatterns++] = arg;
		if (env.npatterns == 1)
			env.tool.spec = arg;
		return 0;
	default:
		return tool__parse_arg(&env.tool, key, arg, state);
	}
}

struct grapher {
	const struct call_probes *cp;
	const struct gstate_tracker *tracker;	/* NULL: --no-waits */
	struct traced_binary *tb;	/* -U: names the stacks' frames */
	const struct overhead_limit *limit;	/* --max-overhead, or NULL */
	bool no_goids;		/* gccgo: goroutines are told apart by their
				 * stacks, their ids are out of reach */
	struct call_trees trees;	/* one per goroutine inside a root */
	struct timespec mono, wall;	/* the same moment on both clocks */
	long nroots;
};

/* The wall clock time of monotonic TS. */
static void wall_time(const struct grapher *g, __u64 ts, char *buf, size_t len)
{
	long long ns = (long long)ts - (g->mono.tv_sec * 1000000000LL + g->mono.tv_nsec);
	long long wall = g->wall.tv_sec * 1000000000LL + g->wall.tv_nsec + ns;
	time_t secs = wall / 1000000000LL;
	struct tm tm;

	localtime_r(&secs, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%06lld", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (wall % 1000000000LL) / 1000);
}

static bool shown(const struct call_node *nd)
{
	return !env.max_depth || nd->depth < (unsigned long)env.max_depth;
}

/* A node's calls: the nodes after it, deeper, until one that is not. */
static bool has_calls(const struct call_tree *t, size_t i)
{
	return i + 1 < t->n && t->nodes[i + 1].depth > t->nodes[i].depth &&
	       shown(&t->nodes[i + 1]);
}

/* " [inlined]" after the name of a call of an inlined copy, as gotrace
 * marks one. */
static const char *inlined_mark(const struct call_node *nd)
{
	return nd->inlined ? " [inlined]" : "";
}

/* The closing brace of a call with calls, with its duration. */
static void print_close(const struct call_node *o)
{
	if (!o->end)
		printf(" %15s |  %*s} (cut)\n", "", 2 * o->depth, "");
	else
		printf(" %12.3f us |  %*s}%s\n", (o->end - o->start) / 1000.0,
		       2 * o->depth, "", o->unwound ? " (unwound)" : "");
}

/* What a wait's slot is: "parked" and the runtime's wait reason,
 * "runnable" and "P" or "CPU", or "syscall". */
static const char *wait_event(const struct grapher *g, __u32 slot,
			      const char **reason)
{
	*reason = "";
	switch (slot) {
	case GSTATE_RUNNABLE:
		*reason = "P";
		return "runnable";
	case GSTATE_OFF_CPU:
		*reason = "CPU";
		return "runnable";
	case GSTATE_SYSCALL:
		return "syscall";
	}
	*reason = gstate_tracker__slot_name(g->tracker, slot);
	return "parked";
}

static void print_text_wait(const struct grapher *g, const struct call_node *nd)
{
	const char *reason, *event = wait_event(g, nd->slot, &reason);

	printf(" %12.3f us |  %*s/* %s%s%s%s */\n",
	       (nd->end - nd->start) / 1000.0, 2 * nd->depth, "", event,
	       *reason ? (nd->slot >= GSTATE_PARKED ? ": " : " (") : "",
	       reason, *reason && nd->slot < GSTATE_PARKED ? ")" : "");
}

static void print_text(const struct grapher *g, const struct call_tree *t)
{
	const struct call_node *root = &t->nodes[0];
	size_t stack[4096], nstack = 0, i;
	char start[32];

	wall_time(g, root->start, start, sizeof(start));
	printf("%s%s goid=", g->cp->names[root->func], inlined_mark(root));
	if (g->no_goids)
		printf("-");
	else
		printf("%llu", (unsigned long long)t->goid);
	printf(" pid=%u tid=%u start=%s dur=%.3f us%s", t->pid, t->tid, start,
	       (root->end - root->start) / 1000.0,
	       t->cut ? " (cut: more than -M events)" : "");
	if (g->limit && g->limit->ndetached)
		printf(" (partial: %zu function%s detached over --max-overhead)",
		       g->limit->ndetached, g->limit->ndetached == 1 ? "" : "s");
	if (gstate_tracker__stopped(g->tracker))
		printf(" (partial: waits stopped over --max-overhead)");
	printf("\n");
	if (env.user_stack)
		user_stack__print(g->tb, stdout, false, t->pid, t->start_code,
				  t->stack, t->nstack);
	for (i = 0; i < t->n; i++) {
		const struct call_node *nd = &t->nodes[i];

		/* close what ended before this call */
		while (nstack && t->nodes[stack[nstack - 1]].depth >= nd->depth)
			print_close(&t->nodes[stack[--nstack]]);
		if (!shown(nd))
			continue;
		if (nd->wait) {
			print_text_wait(g, nd);
		} else if (has_calls(t, i)) {
			printf(" %15s |  %*s%s%s() {\n", "", 2 * nd->depth, "",
			       g->cp->names[nd->func], inlined_mark(nd));
			if (nstack < sizeof(stack) / sizeof(stack[0]))
				stack[nstack++] = i;
		} else if (nd->end) {
			printf(" %12.3f us |  %*s%s%s();%s\n", (nd->end - nd->start) / 1000.0,
			       2 * nd->depth, "", g->cp->names[nd->func],
			       inlined_mark(nd), nd->unwound ? " (unwound)" : "");
		} else {
			printf(" %15s |  %*s%s%s(); (cut)\n", "", 2 * nd->depth, "",
			       g->cp->names[nd->func], inlined_mark(nd));
		}
	}
	while (nstack)
		print_close(&t->nodes[stack[--nstack]]);
	printf("\n");
}

static size_t print_json_node(const struct grapher *g, const struct call_tree *t,
			      size_t i);

/* The calls from node K on deeper than DEPTH, as a JSON array; the index
 * after them. */
static size_t print_json_calls(const struct grapher *g, const struct call_tree *t,
			       size_t k, unsigned int depth)
{
	bool first = true;

	printf("[");
	while (k < t->n && t->nodes[k].depth > depth) {
		if (!shown(&t->nodes[k])) {
			k++;
			continue;
		}
		printf("%s", first ? "" : ",");
		first = false;
		k = print_json_node(g, t, k);
	}
	printf("]");
	return k;
}

/* Node I and its calls as JSON; the index after them. */
static size_t print_json_node(const struct grapher *g, const struct call_tree *t,
			      size_t i)
{
	const struct call_node *nd = &t->nodes[i];
	const char *reason, *event;
	size_t k;

	if (nd->wait) {
		event = wait_event(g, nd->slot, &reason);
		printf("{\"event\":\"%s\",\"reason\":", event);
		json_print_string(stdout, reason);
		printf(",\"dur_ns\":%llu}",
		       (unsigned long long)(nd->end - nd->start));
		return i + 1;
	}
	printf("{\"func\":");
	json_print_string(stdout, g->cp->names[nd->func]);
	if (nd->end)
		printf(",\"dur_ns\":%llu", (unsigned long long)(nd->end - nd->start));
	else
		printf(",\"dur_ns\":null,\"cut\":true");
	if (nd->unwound)
		printf(",\"unwound\":true");
	if (nd->inlined)
		printf(",\"inlined\":true");
	printf(",\"calls\":");
	k = print_json_calls(g, t, i + 1, nd->depth);
	printf("}");
	return k;
}

static void print_json(const struct grapher *g, const struct call_tree *t)
{
	const struct call_node *root = &t->nodes[0];

	if (g->no_goids)
		printf("{\"goid\":null");
	else
		printf("{\"goid\":%llu", (unsigned long long)t->goid);
	printf(",\"pid\":%u,\"tid\":%u,\"func\":", t->pid, t->tid);
	json_print_string(stdout, g->cp->names[root->func]);
	if (root->inlined)
		printf(",\"inlined\":true");
	printf(",\"start_ns\":%llu,\"dur_ns\":%llu%s",
	       (unsigned long long)root->start,
	       (unsigned long long)(root->end - root->start),
	       t->cut ? ",\"cut\":true" : "");
	if ((g->limit && g->limit->ndetached) ||
	    gstate_tracker__stopped(g->tracker))
		printf(",\"partial\":true");
	if (g->limit && g->limit->ndetached)
		printf(",\"detached\":%zu", g->limit->ndetached);
	if (gstate_tracker__stopped(g->tracker))
		printf(",\"waits_stopped\":true");
	if (env.user_stack) {
		printf(",\"stack\":[");
		user_stack__print(g->tb, stdout, true, t->pid, t->start_code,
				  t->stack, t->nstack);
		printf("]");
	}
	printf(",\"calls\":");
	print_json_calls(g, t, 1, root->depth);
	printf("}\n");
}

static int handle_graph_event(struct grapher *g, void *data, size_t size)
{
	const struct graph_event *e = data;
	struct call_tree *t;

	if (size < sizeof(*e))
		return 0;
	switch (e->kind) {
	case GRAPH_ENTRY:
		return call_trees__entry(&g->trees, e);
	case GRAPH_WAIT:
		return call_trees__wait(&g->trees, e);
	case GRAPH_STACK:
		if (size >= sizeof(struct graph_stack))
			call_trees__stack(&g->trees, data);
		return 0;
	}
	/* GRAPH_EXIT: a root's ends its tree, printed if long enough */
	call_trees__exit(&g->trees, e, &t);
	if (t && t->nodes[0].end - t->nodes[0].start >= env.min_ns) {
		if (env.tool.json)
			print_json(g, t);
		else
			print_text(g, t);
		g->nroots++;
	}
	call_tree__free(t);
	return 0;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	int err = handle_graph_event(ctx, data, size);

	return err ? err : tool__events_slice();
}

/* ROOT's package, as a pattern of all its functions: "main.*" of
 * "main.handle", "net/http.*" of "net/http.(*conn).serve". */
static char *package_pattern(const char *root)
{
	const char *name = strchr(root, ':') ? strchr(root, ':') + 1 : root;
	const char *slash = strrchr(name, '/');
	const char *dot = strchr(slash ? slash : name, '.');
	char *p;

	if (!dot)
		return NULL;
	if (asprintf(&p, "%.*s.*", (int)(dot - name), name) < 0)
		return NULL;
	return p;
}

/* The probes of the root pattern and of the others; the roots' rows set
 * in ROOTS (NROWS bytes once planned). */
static int plan(struct call_probes *cp, struct func_probes *fps, size_t nfps,
		struct tool_target *target, __u8 **roots)
{
	size_t i, k, total = 0;
	int *rows = NULL, err = 0;

	for (i = 0; i < nfps; i++)
		total += fps[i].n;
	err = call_probes__init(cp, total, env.tool.verbose);
	*roots = calloc(total ? total : 1, 1);
	if (!err && !*roots)
		err = gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < nfps && !err; i++) {
		rows = calloc(fps[i].n ? fps[i].n : 1, sizeof(*rows));
		if (!rows)
			return gt_error(-ENOMEM, "out of memory");
		err = call_probes__add(cp, target->bin, &fps[i], rows);
		for (k = 0; i == 0 && k < fps[i].n && !err; k++)
			if (rows[k] >= 0)
				(*roots)[rows[k]] = 1;
		free(rows);
	}
	if (err)
		return err;
	left_out__print(&cp->left_out, stderr, TOOL,
			env.tool.verbose || !cp->nrows);
	for (k = 0; k < cp->nrows; k++)
		if ((*roots)[k])
			return 0;
	return gt_error(-ENOENT, "no function matching '%s' can be traced",
			env.patterns[0]);
}

/* The executable of the traced process (-c's, or -p's), in BUF of LEN
 * bytes; NULL without one. */
static const char *program_exe(const struct tool_target *t, char *buf,
			       size_t len)
{
	if (!t->tgid)
		return NULL;
	if (env.tool.cmd)
		return t->cmd.path;
	snprintf(buf, len, "/proc/%d/exe", t->tgid);
	return buf;
}

/* OUT is the caller's to destroy, loaded or not. LIMIT: --max-overhead,
 * or NULL. */
static int load_bpf(struct gofuncgraph_bpf **out, pid_t tgid,
		    const struct goroutine_layout *layout,
		    const struct call_probes *cp, const __u8 *roots,
		    const struct gstate_tracker *tracker,
		    struct overhead_limit *limit)
{
	struct gofuncgraph_bpf *obj = gofuncgraph_bpf__open();
	int err;

	if (!obj)
		return skeleton__open_error();
	*out = obj;
	obj->rodata->target_tgid = tgid;
	skeleton__set_goroutine(obj->rodata, layout);
	obj->rodata->tls_segment_offset = layout->tls_segment_offset;
	obj->rodata->frame_pointers = !layout->tls_segment_offset;
	bpf_program__set_autoload(obj->progs.graph_goexit,
				  layout->tls_segment_offset != 0);
	obj->rodata->max_events = env.max_events;
	obj->rodata->waits = tracker != NULL;
	obj->rodata->user_stack = env.user_stack;
	err = skeleton__set_gstate(obj, tracker);
	if (!err)
		err = skeleton__load_limited(obj, obj->maps.roots, cp->nrows,
					     limit, obj->progs.graph_entry,
					     obj->progs.graph_exit);
	if (!err)
		err = skeleton__store_array(obj->maps.roots, roots, cp->nrows);
	return err;
}

/* Say how many roots were still in flight at the end (or will never end:
 * their root function was detached by --max-overhead): not printed. */
static void report_unfinished(const struct grapher *g)
{
	size_t n = call_trees__in_flight(&g->trees);

	if (n)
		fprintf(stderr, "%s: %zu root call%s still in flight at the end, not printed\n",
			TOOL, n, n == 1 ? "" : "s");
}

/* How --max-overhead names a row. */
static const char *row_name(void *ctx, size_t row)
{
	return ((const struct call_probes *)ctx)->names[row];
}

static int trace(struct gofuncgraph_bpf *obj, struct grapher *g,
		 struct tool_target *target, struct overhead_limit *limit)
{
	struct tool_limit watch = {
		.limit = limit, .name_of = row_name, .ctx = (void *)g->cp,
	};
	struct ring_buffer *rb;
	struct tool_clock clock;
	int err;

	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), handle_event, g,
			      NULL);
	if (!rb)
		return gt_error(-errno, "cannot open the ring buffer: %s",
				strerror(errno));
	watch.rb = rb;
	call_trees__init(&g->trees, g->cp->nrows);
	tool__print_tracing(&env.tool, g->cp->nrows, NULL);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &g->mono);
	clock_gettime(CLOCK_REALTIME, &g->wall);
	/* the trees of the probes kept, printed while the others are tried */
	err = tool_limit__admit(&watch, &env.tool, target, NULL);
	tool_clock__start(&clock, &env.tool);
	clock.limit = watch;
	if (!err)
		err = tool_target__release(target, &env.tool);
	if (!err)
		err = tool__read_events(rb, &clock, &env.tool, target,
					bpf_map__fd(obj->maps.lost),
					" (their roots are marked cut)", NULL,
					NULL);
	tool_limit__print_cost(&clock.limit);
	ring_buffer__free(rb);
	return err;
}

int main(int argc, char **argv)
{
	struct tool_target target = { .cmd.gate_fd = -1 };
	struct func_probes fps[MAX_PATTERNS + 1] = { 0 };
	struct goroutine_layout layout = { 0 };
	struct call_probes cp = { 0 };
	struct gofuncgraph_bpf *obj = NULL;
	struct call_links links = { 0 };
	struct uprobes *goexit_probe = NULL;
	struct gstate_tracker *tracker = NULL;
	struct traced_binary tb = { 0 };
	struct overhead_limit limit = { 0 }, *limited = NULL;
	struct grapher g = { .cp = &cp };
	char *pkg = NULL, exe[64];
	__u8 *roots = NULL;
	size_t i, nfps = 0;
	int err;

	tool__start(&env.tool, opts, parse_arg, "[BINARY:]ROOT [PATTERN ...]",
		    doc, argc, argv);
	err = tool_target__open(&target, &env.tool);
	/* the root, then the patterns (the root's package by default) */
	if (!err)
		err = func_probes__find(target.bin, target.path, target.pattern,
					env.tool.regex, &fps[nfps++]);
	if (!err && env.npatterns == 1) {
		pkg = package_pattern(target.pattern);
		if (pkg && !env.tool.regex)
			err = func_probes__find(target.bin, target.path, pkg, false,
						&fps[nfps++]);
	}
	for (i = 1; i < env.npatterns && !err; i++)
		err = func_probes__find(target.bin, target.path, env.patterns[i],
					env.tool.regex, &fps[nfps++]);
	/* gccgo: the executable's layout, when the root is libgo's */
	if (!err) {
		err = goroutine_layout__find_in(target.bin,
						program_exe(&target, exe, sizeof(exe)),
						&layout);
		g.no_goids = target.bin->is_gccgo;
	}
	if (!err && g.no_goids && !env.no_waits)
		fprintf(stderr, "%s: gccgo: waits are not shown (libgo's goroutine states are out of reach)\n",
			TOOL);
	if (!err && !env.no_waits && !g.no_goids)
		err = gstate_tracker__open(target.bin, &layout, &tracker);
	g.tracker = tracker;
	if (!err && env.user_stack) {
		err = traced_binary__open(&tb, target.path, target.bin);
		if (!err)
			traced_binary__load_names(&tb, false, true,
						  env.tool.verbose);
		g.tb = &tb;
	}
	if (!err)
		err = plan(&cp, fps, nfps, &target, &roots);
	if (!err && env.tool.max_overhead) {
		err = overhead_limit__init(&limit, env.tool.max_overhead,
					   cp.nrows);
		limited = &limit;
		g.limit = limited;
	}
	if (!err)
		err = load_bpf(&obj, target.tgid, &layout, &cp, roots, tracker,
			       limited);
	/* the tracker first: a root that starts sees every transition */
	if (!err && tracker)
		err = tool_tracker__attach(tracker, limited,
					   obj->progs.gstate_site,
					   obj->progs.gstate_switch,
					   obj->maps.gstate_site_hits,
					   &obj->bss->gstate_off, target.path,
					   target.tgid,
					   "the trees have no waits from now on");
	if (!err && layout.tls_segment_offset)
		err = goexit_probe__attach(obj->progs.graph_goexit,
					   target.bin->elf, target.path,
					   env.tool.pid, target.tgid,
					   &goexit_probe);
	if (!err && limited)
		err = overhead_limit__attach_calls(limited, &cp,
						   obj->progs.graph_entry,
						   obj->progs.graph_exit,
						   target.path, target.tgid);
	else if (!err)
		err = call_probes__attach(&cp, obj->progs.graph_entry,
					  obj->progs.graph_exit, target.path,
					  target.tgid, &links);
	if (!err)
		err = trace(obj, &g, &target, limited);
	if (!err)
		report_unfinished(&g);
	call_links__detach(&links);
	if (limited)
		overhead_limit__detach(limited);
	uprobes__detach(goexit_probe);
	if (tracker)
		gstate_tracker__detach(tracker);
	gofuncgraph_bpf__destroy(obj);
	gstate_tracker__close(tracker);
	overhead_limit__free(&limit);
	if (env.user_stack)
		traced_binary__close(&tb);
	call_trees__free(&g.trees);
	call_probes__free(&cp);
	free(roots);
	free(pkg);
	for (i = 0; i < nfps; i++)
		func_probes__free(&fps[i]);
	tool_target__close(&target);
	return tool__exit_status(err);
}
