// SPDX-License-Identifier: MIT
/* What every tool shares: common options, the target, Ctrl-C, the
 * ring-buffer loop (tool.h). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "probe/probe_spec.h"
#include "probe/target.h"
#include "cli/overhead_limit.h"
#include "cli/tool.h"
#include "cli/tool_metrics.h"

static volatile sig_atomic_t exiting;
static bool verbose;

void tool__usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s -h)\n", program_invocation_short_name);
	exit(2);
}

long tool__parse_positive(const char *arg, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > INT_MAX)
		tool__usage_error("invalid %s: %s", what, arg);
	return v;
}

/* --max-overhead's PCT: a number above 0, at most 100 times the CPUs. */
static double parse_percent(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || (*end && strcmp(end, "%")) || !(v > 0) ||
	    v > 100.0 * 4096)
		tool__usage_error("invalid --max-overhead: %s (a percentage of one CPU, such as 5)", arg);
	return v;
}

error_t tool__parse_arg(struct tool_options *o, int key, char *arg,
			struct argp_state *state)
{
	switch (key) {
	case 'p':
		o->pid = tool__parse_positive(arg, "PID");
		break;
	case 'c':
		o->cmd = arg;
		break;
	case 'i':
		o->interval = tool__parse_positive(arg, "interval");
		break;
	case 'd':
		o->duration = tool__parse_positive(arg, "duration");
		break;
	case 'T':
		o->timestamp = true;
		break;
	case 'r':
		o->regex = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'j':
		o->json = true;
		break;
	case TOOL_OPT_MAX_OVERHEAD:
		o->max_overhead = parse_percent(arg);
		break;
	case TOOL_OPT_DEBUG_FILE:
		o->debug_file = arg;
		break;
	case TOOL_OPT_PROMETHEUS:
		if (metrics_addr__parse(&o->prometheus_addr, arg))
			tool__usage_error("%s", gt_last_error());
		o->prometheus = arg;
		break;
	case 'q':
		o->quiet = true;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		if (o->spec)
			tool__usage_error("unexpected argument: %s (one pattern only)", arg);
		o->spec = arg;
		break;
	case ARGP_KEY_END:
		if (!o->spec)
			tool__usage_error("no pattern given");
		if (o->pid && o->cmd)
			tool__usage_error("-p and -c cannot be used together");
		if (o->duration && !o->interval)
			o->interval = o->duration;
		if (o->quiet && !o->prometheus)
			tool__usage_error("-q goes with --prometheus");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (!verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void sig_handler(int sig)
{
	exiting = 1;
}

/* The options every tool has, worded alike in each (argp's help lists
 * options sorted by their letter, wherever they come from). */
static const struct argp_option common_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only", 0 },
	{ "command", 'c', "CMD", 0, "Run CMD (with its arguments) and trace it until it exits", 0 },
	{ "duration", 'd', "DURATION", 0, "Total duration of trace, seconds", 0 },
	{ "verbose", 'v', NULL, 0, "Print each probe and libbpf's messages", 0 },
	{ "debug-file", TOOL_OPT_DEBUG_FILE, "FILE", 0,
	  "Read DWARF from FILE, the binary's separate debug file (else the binary's own, or one found by build ID or .gnu_debuglink)", 0 },
	{ "max-overhead", TOOL_OPT_MAX_OVERHEAD, "PCT", 0,
	  "Keep what the probes cost the target near PCT% of one CPU: try the probes of a large pattern in batches and attach only what that pays for, detach those that cost most later (their counts marked partial), say at the end what they cost", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
};

#define NCOMMON (sizeof(common_options) / sizeof(common_options[0]))
#define MAX_TOOL_OPTIONS 32

void tool__start(const struct tool_options *o,
		 const struct argp_option *options, argp_parser_t parser,
		 const char *args_doc, const char *doc, int argc, char **argv)
{
	static struct argp_option all[NCOMMON + MAX_TOOL_OPTIONS + 1];
	const struct argp argp = {
		.options = all,
		.parser = parser,
		.args_doc = args_doc,
		.doc = doc,
	};
	size_t n;

	memcpy(all, common_options, sizeof(common_options));
	for (n = 0; options[n].name || options[n].key; n++)
		if (n == MAX_TOOL_OPTIONS)
			tool__usage_error("internal error: over %d options",
					  MAX_TOOL_OPTIONS);
	memcpy(all + NCOMMON, options, n * sizeof(*options));
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		exit(2);
	verbose = o->verbose;
	libbpf_set_print(libbpf_print);
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	/* Only this thread writes stdout (the others attach and close
	 * probes): stdio need not lock it at every call, which was a fifth
	 * of gotrace's CPU printing a value a character at a time. */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
}

int tool__exit_status(int err)
{
	if (!err)
		return 0;
	fprintf(stderr, "%s: %s\n", program_invocation_short_name,
		gt_last_error());
	return 1;
}

int tool_target__open(struct tool_target *t, const struct tool_options *o)
{
	struct probe_spec spec = { 0 };
	int err;

	memset(t, 0, sizeof(*t));
	t->cmd.gate_fd = -1;
	if (o->pid && !target__pid_alive(o->pid))
		return gt_error(-ESRCH, "no such process: %d", o->pid);
	if (o->cmd) {
		err = command__start(o->cmd, &t->cmd);
		if (err)
			return err;
	}
	t->tgid = o->cmd ? t->cmd.pid : o->pid;
	err = probe_spec__parse(o->spec, o->pid || o->cmd, &spec);
	if (err)
		return err;
	/* A -c child has not exec()ed yet: its /proc/PID/exe is us. */
	if (!spec.binary && o->cmd)
		snprintf(t->path, sizeof(t->path), "%s", t->cmd.path);
	else
		err = target__resolve(spec.binary, o->cmd ? 0 : o->pid,
				      t->path, sizeof(t->path));
	if (!err)
		err = go_binary__open(t->path, &t->bin);
	if (!err)
		err = elf_file__check_machine(t->bin->elf);
	/* a debug file named is read now: a wrong one is an error */
	if (!err && o->debug_file) {
		Dwarf *dw;

		t->bin->debug_file_name = o->debug_file;
		err = go_binary__dwarf(t->bin, &dw);
	}
	if (!err) {
		t->pattern = spec.pattern;
		spec.pattern = NULL;
	}
	probe_spec__free(&spec);
	return err;
}

int tool_target__release(struct tool_target *t, const struct tool_options *o)
{
	return o->cmd ? command__release(&t->cmd) : 0;
}

void tool_target__close(struct tool_target *t)
{
	if (t->cmd.pid > 0)
		command__kill(&t->cmd);
	go_binary__close(t->bin);
	free(t->pattern);
	memset(t, 0, sizeof(*t));
}

void tool_clock__start(struct tool_clock *c, const struct tool_options *o)
{
	struct timespec start;

	memset(c, 0, sizeof(*c));
	clock_gettime(CLOCK_MONOTONIC, &start);
	c->interval = o->interval;
	if (o->interval) {
		c->next_tick = start;
		c->next_tick.tv_sec += o->interval;
	}
	if (o->duration) {
		c->end = start;
		c->end.tv_sec += o->duration;
	}
}

static bool reached(const struct timespec *now, const struct timespec *t)
{
	return t->tv_sec && (now->tv_sec > t->tv_sec ||
			     (now->tv_sec == t->tv_sec &&
			      now->tv_nsec >= t->tv_nsec));
}

bool tool_clock__over(const struct tool_clock *c, const struct tool_options *o,
		      struct tool_target *t, bool *target_exited)
{
	struct timespec now;

	*target_exited = false;
	if (exiting)
		return true;
	if (o->cmd && command__exited(&t->cmd))
		return true;
	if (o->pid && !target__pid_alive(o->pid)) {
		*target_exited = true;
		return true;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	return reached(&now, &c->end);
}

int tool_clock__check_limit(struct tool_clock *c, const struct tool_options *o)
{
	int err;

	if (!c->limit.limit)
		return 0;
	err = overhead_limit__check(c->limit.limit);
	if (err < 0) {
		c->error = err;
		return err;
	}
	overhead_limit__print(c->limit.limit, stderr,
			      program_invocation_short_name, o->verbose,
			      c->limit.name_of, c->limit.ctx);
	return 0;
}

struct admit_ctx {
	const struct tool_options *o;
	struct tool_target *t;
	const struct tool_limit *tl;
	const struct tool_metrics *metrics;
	int err;		/* of reading events; 1: enough of them */
};

/* Between trials: the events that came (when the tool has any), the
 * metrics asked for, what the checks between the trials detached, and
 * whether to stop trying. */
static bool admit_stop(void *ctx)
{
	struct admit_ctx *a = ctx;
	struct tool_clock c = { 0 };	/* no interval, no duration */
	bool gone;

	overhead_limit__print(a->tl->limit, stderr,
			      program_invocation_short_name, a->o->verbose,
			      a->tl->name_of, a->tl->ctx);
	if (a->tl->rb && !a->err) {
		a->err = tool__poll_events(a->tl->rb, 0);
		if (!a->err && a->tl->after_poll)
			a->err = a->tl->after_poll(a->tl->poll_ctx);
		fflush(stdout);
	}
	if (!a->err)
		a->err = tool_metrics__serve(a->metrics);
	return a->err || tool_clock__over(&c, a->o, a->t, &gone);
}

int tool_limit__admit(const struct tool_limit *tl, const struct tool_options *o,
		      struct tool_target *t, const struct tool_metrics *metrics)
{
	struct admit_ctx a = { o, t, tl, metrics, 0 };
	int n;

	if (!tl || !overhead_limit__pending(tl->limit))
		return 0;
	n = tool_target__release(t, o);
	if (!n && t->bin) {
		/* without the samples, the trials go in the pattern's order */
		if (overhead_limit__sample(tl->limit, t->bin, t->path,
					   t->tgid)) {
			if (o->verbose)
				fprintf(stderr, "%s: trials in the pattern's order: %s\n",
					program_invocation_short_name,
					gt_last_error());
		} else if (o->verbose) {
			overhead_limit__print_samples(tl->limit, stderr,
						      program_invocation_short_name,
						      tl->name_of, tl->ctx);
		}
	}
	if (!n)
		n = overhead_limit__admit(tl->limit, admit_stop, &a);
	if (n >= 0 && a.err < 0)
		n = a.err;
	if (n < 0)
		return n;
	overhead_limit__print(tl->limit, stderr, program_invocation_short_name,
			      o->verbose, tl->name_of, tl->ctx);
	return 0;
}

int tool_tracker__attach(struct gstate_tracker *t, struct overhead_limit *limit,
			 struct bpf_program *site_prog,
			 struct bpf_program *switch_prog,
			 struct bpf_map *site_hits, bool *off, const char *path,
			 pid_t pid, const char *then)
{
	struct bpf_program *progs[] = { site_prog, switch_prog };
	int err;

	err = gstate_tracker__attach(t, site_prog, switch_prog, site_hits, off,
				     path, pid);
	if (!err && limit)
		err = overhead_limit__add_fixed(limit,
						"the goroutine-state tracker",
						progs, 2, t->hits_fd,
						t->emulated, GSTATE_SITES,
						gstate_tracker__stop, t, then);
	return err;
}

void tool_limit__print_cost(const struct tool_limit *tl)
{
	if (tl && tl->limit)
		overhead_limit__print_cost(tl->limit, stderr,
					   program_invocation_short_name);
}

bool tool_clock__wait(struct tool_clock *c, const struct tool_options *o,
		      struct tool_target *t, bool *target_exited)
{
	/* Check on the target ten times a second, on the limit a hundred. */
	const struct timespec step = {
		0, (c->limit.limit ? 10 : 100) * 1000 * 1000
	};
	struct timespec now;

	for (;;) {
		if (tool_clock__over(c, o, t, target_exited))
			return true;
		if (tool_clock__check_limit(c, o))
			return true;
		c->error = tool_metrics__serve(c->metrics);
		if (c->error)
			return true;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (reached(&now, &c->next_tick)) {
			c->next_tick.tv_sec += c->interval;
			return false;
		}
		nanosleep(&step, NULL);
	}
}

static FILE *msg_stream(const struct tool_options *o)
{
	return o->json ? stderr : stdout;
}

void tool__print_tracing(const struct tool_options *o, size_t nfuncs,
			 const char *spec)
{
	FILE *f = msg_stream(o);

	fprintf(f, "Tracing %zu functions", nfuncs);
	if (spec)
		fprintf(f, " for \"%s\"", spec);
	fprintf(f, "... Hit Ctrl-C to end.\n");
	fflush(f);
}

void tool__print_detaching(const struct tool_options *o)
{
	fprintf(msg_stream(o), "Detaching...\n");
}

char *tool__timestamp(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(buf, size, "%H:%M:%S", &tm))
		buf[0] = '\0';
	return buf;
}

/* The slice of time of the events being read (tool__events_slice()): from
 * the first one handled (SLICE_START, CLOCK_MONOTONIC ns; 0: none yet, as
 * a poll may first wait for them), for SLICE_NS; 0: no end. */
static __u64 slice_start, slice_ns;

static __u64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int tool__events_slice(void)
{
	__u64 now;

	if (!slice_ns)
		return 0;
	now = monotonic_ns();
	if (!slice_start)
		slice_start = now;
	return now - slice_start > slice_ns ? -EAGAIN : 0;
}

/* Read the events of RB for at most SLICE_MS from the first one (a poll
 * waits up to TIMEOUT_MS for it): ring_buffer__consume() goes
 * on while events come, and a program that sends them faster than the tool
 * prints them would keep it from returning, and with it --max-overhead's
 * checks and trials, the clock and Ctrl-C. */
static int read_events(struct ring_buffer *rb, int timeout_ms, int slice_ms)
{
	int err;

	slice_start = 0;
	slice_ns = slice_ms * 1000000ULL;
	err = ring_buffer__poll(rb, timeout_ms);
	/* Events come without a wakeup until a quarter of the buffer waits
	 * (bpf/events.bpf.h), and epoll reports a ring only when woken: read
	 * what came meanwhile, so that a slow trickle prints within 100 ms. */
	if (err == -EINTR || err >= 0)
		err = ring_buffer__consume(rb);
	slice_ns = 0;
	return err == -EINTR || err == -EAGAIN || err >= 0 ? 0 : err;
}

int tool__poll_events(struct ring_buffer *rb, int timeout_ms)
{
	int err = read_events(rb, timeout_ms, TOOL_READ_SLICE_MS);

	return err ? gt_error(err, "cannot read events: %s", strerror(-err)) : 0;
}

int tool__read_events(struct ring_buffer *rb, struct tool_clock *c,
		      const struct tool_options *o, struct tool_target *t,
		      int lost_fd, const char *lost_what,
		      tool_poll_fn after_poll, void *ctx)
{
	bool gone = false;
	__u64 lost = 0;
	__u32 zero = 0;
	int err = 0;

	while (!err && !tool_clock__over(c, o, t, &gone)) {
		err = tool__poll_events(rb, c->limit.limit ? 10 : 100);
		if (!err && c->limit.limit)
			err = tool_clock__check_limit(c, o);
		if (!err && after_poll)
			err = after_poll(ctx);
		fflush(stdout);
	}
	/* what the target sent before it ended (a target that goes on
	 * sending is read for a second more) */
	if (err >= 0) {
		int n = read_events(rb, 0, 1000);

		if (n < 0)
			err = gt_error(n, "cannot read events: %s", strerror(-n));
	}
	fflush(stdout);
	if (!bpf_map_lookup_elem(lost_fd, &zero, &lost) && lost)
		fprintf(stderr, "%llu events lost%s\n", (unsigned long long)lost,
			lost_what);
	if (err > 0)
		err = 0;
	if (!err && gone)
		err = gt_error(-ESRCH, "process %d exited", o->pid);
	return err;
}
