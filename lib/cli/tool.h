/* SPDX-License-Identifier: MIT */
/*
 * What every gotools command shares: the options bcc's tools have in
 * common (-p -i -d -T -r -v) and gotools' own -c and -j, the target they
 * name (a process, a command to start, or BINARY:PATTERN), Ctrl-C, the
 * tracing clock that wakes the tool at each interval and at the end, and
 * the lines every tool prints the same way.
 */
#ifndef GOTOOLS_TOOL_H
#define GOTOOLS_TOOL_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <sys/types.h>
#include "cli/command.h"
#include "cli/metrics_server.h"
#include "cli/overhead_limit.h"
#include "gobin/go_binary.h"
#include "probe/gstate_tracker.h"

/*
 * The keys of long options that have no short one: the shared ones here,
 * each tool's own from TOOL_OPT_OWN on (enum { OPT_X = TOOL_OPT_OWN, ...}),
 * all past the characters a short option could be.
 */
enum tool_long_option {
	TOOL_OPT_MAX_OVERHEAD = 0x100,
	TOOL_OPT_DEBUG_FILE,
	TOOL_OPT_PROMETHEUS,
	TOOL_OPT_OWN = 0x200,
};

struct tool_options {
	pid_t pid;		/* -p */
	const char *cmd;	/* -c */
	long interval;		/* -i, seconds; -d alone sets it to -d */
	long duration;		/* -d, seconds */
	bool timestamp;		/* -T */
	bool regex;		/* -r */
	bool verbose;		/* -v */
	bool json;		/* -j */
	double max_overhead;	/* --max-overhead, % of one CPU; 0: none */
	const char *debug_file;	/* --debug-file: the binary's DWARF */
	/* --prometheus, where a tool has it: serve /metrics there */
	const char *prometheus;
	struct metrics_addr prometheus_addr;
	bool quiet;		/* -q: with --prometheus, print no counts */
	const char *spec;	/* [BINARY:]PATTERN */
};

/* The options of the tools that serve /metrics (gofunccount,
 * gofunclatency), for their own option lists. */
#define TOOL_METRICS_OPTIONS						\
	{ "prometheus", TOOL_OPT_PROMETHEUS, "[HOST:]PORT", 0,		\
	  "Serve the counts on http://HOST:PORT/metrics for Prometheus (a bare PORT: 127.0.0.1; 0: any free port) until Ctrl-C", 0 }, \
	{ "quiet", 'q', NULL, 0,					\
	  "With --prometheus, print no counts or histograms", 0 }

/* Handle one of the shared options or the pattern; ARGP_ERR_UNKNOWN for
 * the rest, which the tool handles itself. */
error_t tool__parse_arg(struct tool_options *o, int key, char *arg,
			struct argp_state *state);

/* A bad option value: one line naming it, exit status 2. */
void tool__usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* A positive integer option value, or a usage error naming WHAT. */
long tool__parse_positive(const char *arg, const char *what);

/*
 * Parse the command line with the options every tool has (-p -c -d -v -h
 * --max-overhead --debug-file) and the tool's own OPTIONS (ending with an
 * empty entry),
 * and PARSER
 * (which hands what it does not know to tool__parse_arg(), into O), the usage
 * ARGS_DOC and DOC for -h; exit status 2 when it is bad. Then show
 * libbpf's messages only with -v, and let Ctrl-C and SIGTERM end the trace.
 */
void tool__start(const struct tool_options *o,
		 const struct argp_option *options, argp_parser_t parser,
		 const char *args_doc, const char *doc, int argc, char **argv);

/* The exit status of a tool whose run ended with ERR: 0, or 1 after
 * printing "TOOL: REASON" on stderr. */
int tool__exit_status(int err);

/* The process and file a trace is about. */
struct tool_target {
	struct command cmd;	/* the program started by -c */
	pid_t tgid;		/* whose calls count: -p, the -c child, or 0 */
	char path[4096];	/* the file the probes go into */
	struct go_binary *bin;
	char *pattern;		/* PATTERN of the probe spec */
};

/*
 * Start the -c command at its gate (it runs at tool_target__release()),
 * resolve BINARY (or the executable of -p / -c), open it as a Go binary and
 * keep the pattern. Returns 0 or a negative errno with a reason; call
 * tool_target__close() in both cases.
 */
int tool_target__open(struct tool_target *t, const struct tool_options *o);

/* Let the -c command run, now that the probes are attached. */
int tool_target__release(struct tool_target *t, const struct tool_options *o);

/* Kill a -c command still running, free everything. */
void tool_target__close(struct tool_target *t);

/* What tool__read_events() asks of its tool after each poll: 0 to go on,
 * 1 to stop (it has had enough events), or a negative errno. */
typedef int (*tool_poll_fn)(void *ctx);

/* --max-overhead in a trace: the limit (NULL: none) and how its summary
 * line names a cookie index; a tool of events, their ring buffer, read
 * while probes are tried (NULL: none), and what to call after each read
 * (as tool__read_events() calls it). */
struct tool_metrics;

struct tool_limit {
	struct overhead_limit *limit;
	overhead_name_fn name_of;
	void *ctx;
	struct ring_buffer *rb;
	tool_poll_fn after_poll;
	void *poll_ctx;
};

/*
 * The probes that --max-overhead keeps for admission tried and attached
 * (overhead_limit__admit()), what was left out said on stderr. A -c
 * command is let run first (there is nothing to measure until it runs:
 * its first calls are not counted); the trial stops when the trace is
 * over. Every tool does this after "Tracing"; a tool of events with TL's
 * ring buffer read between trials: what the probes kept see while the
 * others are tried is printed, not lost (the trial stops too when
 * AFTER_POLL says there were enough); METRICS' pages are written between
 * trials too (NULL: none). Returns 0 or a negative errno with a reason.
 */
int tool_limit__admit(const struct tool_limit *tl, const struct tool_options *o,
		      struct tool_target *t, const struct tool_metrics *metrics);

/* Attach the goroutine-state tracker T (gstate_tracker__attach(), OFF its
 * programs' gstate_off); with LIMIT, what it costs the target counts
 * against --max-overhead (overhead_limit__add_fixed()), which stops it
 * (gstate_tracker__stop()) when it alone costs more than the budget, and
 * says so with THEN, what that means for the tool's output. Returns 0 or a
 * negative errno with a reason. */
int tool_tracker__attach(struct gstate_tracker *t, struct overhead_limit *limit,
			 struct bpf_program *site_prog,
			 struct bpf_program *switch_prog,
			 struct bpf_map *site_hits, bool *off, const char *path,
			 pid_t pid, const char *then);

/* At the end, what the probes cost the target, on stderr
 * (overhead_limit__print_cost()); nothing without a limit. */
void tool_limit__print_cost(const struct tool_limit *tl);

/* When to print: every interval, and at the end of the duration. */
struct tool_clock {
	struct timespec next_tick;	/* zero: no interval */
	struct timespec end;		/* zero: no duration */
	long interval;
	struct tool_limit limit;	/* checked while the clock waits */
	/* --prometheus: pages written while it waits (NULL: none) */
	const struct tool_metrics *metrics;
	int error;			/* of a check: the trace ends */
};

void tool_clock__start(struct tool_clock *c, const struct tool_options *o);

/*
 * Is the trace over? Ctrl-C or SIGTERM, the -c command exited, the -p
 * process is gone, or the duration is over. *TARGET_EXITED is set when a
 * -p process exited, which the tools report as an error.
 */
bool tool_clock__over(const struct tool_clock *c, const struct tool_options *o,
		      struct tool_target *t, bool *target_exited);

/*
 * Check C's limit (overhead_limit__check()) and say what it detached, on
 * stderr: 0, or a negative errno (also in C->error).
 */
int tool_clock__check_limit(struct tool_clock *c, const struct tool_options *o);

/*
 * Sleep until the next interval (returns false: print and go on) or the
 * end of the trace (returns true: print and stop), as tool_clock__over()
 * says. With a limit, check it every 10 ms meanwhile; a check that fails
 * sets C->error and ends the trace. Write C's metrics pages meanwhile,
 * as requests ask for them; a page that cannot be written ends it too.
 */
bool tool_clock__wait(struct tool_clock *c, const struct tool_options *o,
		      struct tool_target *t, bool *target_exited);

/*
 * "Tracing NFUNCS functions for "SPEC"... Hit Ctrl-C to end." (SPEC NULL:
 * no 'for "SPEC"'), on stdout, or on stderr with -j so that stdout holds
 * only JSON.
 */
void tool__print_tracing(const struct tool_options *o, size_t nfuncs,
			 const char *spec);

struct ring_buffer;

/* Events are read TOOL_READ_SLICE_MS at a time at most. */
#define TOOL_READ_SLICE_MS	10

/* Wait up to TIMEOUT_MS for events of RB and handle them, those sent
 * without a wakeup too, for TOOL_READ_SLICE_MS at most (the rest wait for
 * the next poll). Returns 0 (an interrupted wait too), or a negative
 * errno with a reason. */
int tool__poll_events(struct ring_buffer *rb, int timeout_ms);

/* What a ring buffer callback returns once it handled its event: 0, or
 * -EAGAIN when the slice of time of this read is over (the read stops
 * there, the event consumed). */
int tool__events_slice(void);

/*
 * Read the events of RB until the trace is over (as tool_clock__over()
 * says of C, started, and T), checking C's limit after each poll and then
 * calling AFTER_POLL(CTX) when not NULL; then read what the target sent
 * before it ended, and say on stderr how many events the ring buffer had
 * no room for: the count in LOST_FD (bpf/events.bpf.h's lost), "N events
 * lost" and LOST_WHAT. Returns 0, or a negative errno with a reason (-ESRCH
 * when the -p process exited).
 */
int tool__read_events(struct ring_buffer *rb, struct tool_clock *c,
		      const struct tool_options *o, struct tool_target *t,
		      int lost_fd, const char *lost_what,
		      tool_poll_fn after_poll, void *ctx);

/* "Detaching...", where tool__print_tracing() prints. */
void tool__print_detaching(const struct tool_options *o);

/* The local time of day, HH:MM:SS (bcc's -T), in BUF of SIZE bytes (9 or
 * more); returns BUF. */
char *tool__timestamp(char *buf, size_t size);

#endif
