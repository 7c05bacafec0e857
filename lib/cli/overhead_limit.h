/* SPDX-License-Identifier: MIT */
/*
 * --max-overhead PCT: a bound on what the probes cost the traced program,
 * from the first second on.
 *
 * A hit costs the thread that hits it a trap: about 0.7 us where the
 * kernel emulates the probed instruction, ten times that on some virtual
 * machines where it single-steps it (probe/hit_cost.h, measured at start),
 * plus the BPF program's own run time (the kernel's BPF statistics, on
 * while the option is): a live probe's run, or a shorter one where the
 * program returns early, on trial or closing (their averages told apart
 * by stretches of mostly one kind, overhead__split_runs()). The BPF
 * programs account every hit by cookie index (a counter, a function, a
 * row) and kind of site, and in all, those on trial and of links being
 * closed apart (bpf/overhead.h); a ledger turns those, and the CPU time
 * attaching and detaching took (uprobes__work_ns(): the kernel writes
 * breakpoints into the target's memory, its memory map locked), into
 * what the target paid, per 100 ms and per second.
 *
 * Admission (overhead_limit__admit(), for patterns of more than
 * OVERHEAD_TRY_OVER indexes on uprobe_multi kernels): first, for half a
 * second, a CPU clock samples where the target runs
 * (overhead_limit__sample(), probe/cpu_samples.h: about a thousand
 * samples of a target busy on one CPU, fewer where a sample costs more
 * than a quarter of the budget at that rate: a sample is an interrupt,
 * 25 us on the tests' virtual machines, where 2 kHz cost the target 5% of
 * a CPU; what they cost is admission's, in the ledger); the indexes whose functions no
 * sample fell in are tried first, in their order, then the others, the
 * least sampled first. A function called a million times a second is in
 * the samples, and is tried last, when the kept may have left no room
 * for it: its trial would trap at that rate until its link is closed.
 * Then the probes are not attached at once but tried in batches, in groups of a few dozen probes
 * with links of their own. A batch is attached on trial (its hits
 * accounted, not counted), group by group until it has cost its cap
 * (then no more of its groups are attached), and then for 100 ms; when
 * its hits have cost the cap before, its costliest groups are closed then
 * and the others stay on trial until the 100 ms are over or they have
 * cost a quarter of the cap more (a trial ended at its cap after 1 to
 * 20 ms in a third of the trials, and a function quiet in them was kept);
 * each index rated over the time its group was on trial (the garbage
 * collector's and the sweeper's functions run in bursts, a hundred times
 * a second under load: 10 ms trials saw none of the 20,000 calls a second
 * of some, which were kept and cost gofunclatency more than a CPU live).
 * What a trial costs is its hits,
 * attaching its probes and, about as much again, closing them; admission
 * (trials, closing, attaching and detaching) has half the budget, the
 * kept the other half. The cap is the room the last second left, of the
 * budget and of admission's half, divided by what trials cost beyond
 * their cap (the ledger's admission cost from a trial's start until its
 * links are closed, against its cost when it ended, averaged over
 * trials: hot probes trap until closed), at most a quarter of the budget;
 * a trial waits for the links of the one before to be closed, and, for
 * a target of its own (a pid), until the target is busy
 * (overhead_load__low(), cli/overhead_load.c): a trial while it runs less
 * than half its busiest rate (its CPU time less what the probes cost it,
 * per 100 ms; the busiest halved every 30 s since) keeps the functions of
 * the work it is not doing, and they cost all at once when the work comes
 * back (each return of the load cost the HTTP fixture 300 to 500 ms of a
 * CPU, loaded 2 s of every 3); such a batch is tried again, up to three
 * times, and every batch's rates are scaled up by that busiest rate over
 * the target's on trial. Returns
 * whose functions' calls are probed too (gofunclatency's, gofuncgraph's
 * exits) are not on trial: a return
 * per call, at the cost of the function's costliest return site, is what
 * they will cost (a single-stepped return costs twenty times an emulated
 * entry on some machines: trials of the calls alone cost that much less).
 * Each index's rate of cost on trial decides: the cheapest are kept as
 * long as all kept cost at most half the budget (and each at most an
 * eighth), the others are not attached. A trial does not tell what a
 * live run of the programs costs (its runs return early; gotrace's first
 * live runs cost five times what a first average said): until runs of
 * mostly live probes have measured it, all kept cost at most an eighth of
 * the budget, and the next trial waits up to 300 ms for that measure. The groups not kept whole are
 * closed first, the costliest on trial first (their probes trap until
 * their links are gone, and the closes queue on the target's memory map, a
 * probe at a time): those that cost a quarter of the budget or more one at
 * a time, each once the probes of the one before no longer trap, the
 * others at once after them (closed all at once, a function called a
 * million times a second trapped for 50 ms, as long as on trial five times
 * over); a group kept whole goes live as it is; what the others keep is
 * attached anew. A new trial waits until the last second's cost leaves
 * room for it; when the kept ones turn out to cost more than their trial
 * said, the check below detaches the most costly. While the kept cost more
 * than half the budget, a trial can keep nothing: after a second of that,
 * batches are refused untried until they cost less.
 *
 * The check (overhead_limit__check(), a hundred times a second): what the
 * live probes cost since the last check (their hits, apart from those on
 * trial or being closed); when that is over PCT% of one CPU and the last
 * second has paid half the budget, or at once when it is over three times
 * PCT% (a function quiet on trial that turns hot at half a CPU, as the
 * garbage collector's do in its cycles, would pay the whole budget in 100
 * ms), or while the live probes and what admission paid in the last
 * second are over PCT% (at most every 100 ms), or once a second, each
 * index's rate since it was last read,
 * times what its hits cost (the counters are mapped into the tool's
 * memory, percpu_mmap: a read of 24,000 on 2 CPUs takes 0.8 ms of the
 * CPU a busy target shares; through the bpf() syscall it took 14 ms);
 * when their sum and admission's are over PCT%, the most costly
 * indexes are detached until the rest cost half of PCT (rates measured
 * while the target is slowed understate what they become once it is not;
 * the next checks detach more if need be). Functions quiet on trial can
 * turn hot together (the garbage collector's, in its cycles): checked
 * every 10 ms, they are detached within a few checks, not after 100 ms
 * each. Admission checks between the steps of its trials (each group
 * attached or closed, and every ms of a trial), not after a batch:
 * attaching and closing one took up to 340 ms, unchecked.
 *
 * Detaching a few probes of a uprobe_multi link means replacing the link
 * (probe/uprobes.h): the kept probes are attached anew in a link of a new
 * generation (COOKIE_GEN, bpf/cookie.h; every link has one of its own), it
 * is made live and the old one dead; only links that hold a detached index
 * are replaced, each switched in turn, and the old links are closed in the
 * background, those of indexes that cost a quarter of the budget or more
 * first, one at a time as above, the others at once (a close removes the
 * probes at once and then waits for a grace period: one after the other,
 * the last link's detached probes would trap through all the others'
 * waits; waited for, the next check would come tens of ms later). A closed
 * link's generation is free once the close is over, as are those of the
 * trials' links.
 * A hit is counted by one link or the other, never by both: except that a
 * call hitting a kept probe at the very moment of the switch can be
 * counted twice or not at all; an index is then off by one at most per
 * replacement.
 *
 * Probes a tool attaches itself and keeps on (the goroutine-state
 * tracker's, overhead_limit__add_fixed()) are counted in the ledger too:
 * a trap per hit of each site, by its kind, and their programs' run time
 * (sched_switch's runs for every thread's switch: an upper bound); the
 * check and admission leave the indexes what they do not take. When they
 * alone cost more than PCT for 100 ms (on average since a check found
 * them over: their hits come with the target's goroutines, and a window
 * under it in the middle of a load is noise), the check has the tool
 * detach them, and overhead__print_fixed() says so. No function is
 * detached for them meanwhile (the functions could not pay for them
 * anyway), but the functions are checked without them: those that cost
 * more than PCT themselves are detached (left to run for those 100 ms,
 * the functions of gofuncgraph's trees under the HTTP fixture's handler
 * cost it 17% to 23% of a CPU in its costliest second, 5.5% to 7% since).
 *
 * A detached index keeps what it counted; tools mark it as partial:
 * "detached after N calls at R calls/s"; one never attached, "not
 * attached: R calls/s on trial".
 */
#ifndef GOTOOLS_OVERHEAD_LIMIT_H
#define GOTOOLS_OVERHEAD_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include "cookie.h"
#include "overhead.h"
#include "cli/percpu_map.h"
#include "cli/skeleton.h"
#include "gobin/go_binary.h"
#include "probe/call_probes.h"
#include "probe/hit_cost.h"
#include "probe/uprobes.h"

#define OVERHEAD_MAX_PROGS	4
/* Patterns of more indexes than this are admitted in batches. */
#define OVERHEAD_TRY_OVER	64
/* The ledger's window for the last second: 10 slots of 100 ms. */
#define OVERHEAD_SLOTS		10

struct overhead_index {
	struct probe_hits seen;		/* summed over CPUs, at the last read */
	double seen_ns;			/* when, CLOCK_MONOTONIC */
	double cost_rate;		/* ns of the target's time per second */
	bool attached;			/* live (kept, or attached at once) */
	bool detached;			/* by a check, or refused on trial */
	bool refused;			/* on trial: never attached */
	bool no_room;			/* refused untried: the kept cost half
					 * the budget for a second */
	__u64 trial_calls;		/* seen.calls when it was kept */
	__u64 detached_calls;		/* all the calls it counted */
	double detached_rate;		/* calls per second when detached */
	unsigned int round;		/* the check that detached it */
	__u64 samples;			/* the target's CPU samples in its
					 * functions before admission */
};

/* Probes a tool asked the limit to attach: PROG at LIST's offsets of PATH. */
struct overhead_request {
	struct bpf_program *prog;
	char *path;
	pid_t pid;
	struct uprobe_list list;	/* sorted by position when admitted */
	bool returns;			/* where calls end: one hit a call */
	bool by_calls;			/* returns whose cost a trial of the
					 * calls tells: not attached on trial */
};

/* Probes a tool attached itself, on all the time (the goroutine-state
 * tracker's): what the target pays for them is counted beside the others,
 * and leaves that much less of the budget to the functions; when they
 * alone cost more than the budget for 100 ms, the tool detaches them. */
#define OVERHEAD_FIXED_SITES	8
#define OVERHEAD_FIXED_PROGS	2

typedef void (*overhead_detach_fn)(void *ctx);

struct overhead_fixed {
	const char *label;		/* "the goroutine-state tracker" */
	const char *then;		/* what detaching them means */
	overhead_detach_fn detach;
	void *ctx;
	bool detached;
	double detached_rate;		/* what they cost then, ns per s */
	double checked_ns;		/* ledger.fixed_ns at the last check */
	double over_since;		/* alone over the budget since, ns */
	double over_from;		/* ledger.fixed_ns then */
	int prog_fds[OVERHEAD_FIXED_PROGS];
	size_t nprogs;
	int hits_fd;			/* a per-CPU array of hits per site */
	size_t nsites;
	bool emulated[OVERHEAD_FIXED_SITES];	/* the kernel emulates site i */
	/* at the last read: the programs' run time, the sites' hits */
	__u64 run_ns, hits[OVERHEAD_FIXED_SITES];
	bool said;			/* that they were detached */
};

/* A link the limit attached, of generation GEN. */
struct overhead_link {
	struct uprobes *u;
	unsigned int gen;
};

/* Links closing in the background; their generations, free once closed. */
struct overhead_closing {
	struct uprobes_closing *c;
	unsigned int gens[UPROBES_AT_ONCE];
	size_t ngens;
};

/* What the target paid for the probes (ns of its time). */
struct overhead_ledger {
	struct probe_hits seen[PROBE_PAID_SLOTS]; /* probe_paid, last read */
	/* probe_paid's slots at the last check */
	struct probe_hits checked[PROBE_PAID_SLOTS];
	struct timespec begun;
	double cpu_begun;		/* the tool's CPU time then, ns */
	uint64_t work_seen;		/* uprobes__work_ns(), last read */
	double total_ns;
	double work_ns;			/* of it: attaching, detaching */
	double sampled_ns;		/* of it: the CPU samples before
					 * admission (overhead_limit__sample()) */
	double unread_ns;		/* paid, for the next read to count */
	double slots[OVERHEAD_SLOTS];	/* per 100 ms, the last second */
	/* of it, admission's: the hits on trial and of links closing, and
	 * attaching and detaching */
	double admit_slots[OVERHEAD_SLOTS];
	double admit_ns;		/* admission's, in all */
	/* of it, the fixed probes' (struct overhead_fixed) */
	double fixed_slots[OVERHEAD_SLOTS];
	double fixed_ns;
	long slot;			/* of the last read, in 100 ms from begun */
	double second_ns;		/* in the whole second going on */
	long second;			/* which, from begun */
	double worst_ns;		/* of the whole seconds past */
};

/* A moment of the target's CPU time (overhead_load__mark()). */
struct overhead_load_mark {
	double ns;			/* CLOCK_MONOTONIC */
	double cpu;			/* the target's CPU time, ns */
	double paid;			/* what the probes cost it so far */
};

/* How busy the target is (overhead_load__update()): its CPU time less
 * what the probes cost it, in CPUs. */
struct overhead_load {
	bool on;			/* one target, its CPU clock read */
	clockid_t clock;
	struct overhead_load_mark window;	/* the window going on */
	double recent;			/* in the last window */
	double peak;			/* in the busiest, halved every
					 * LOAD_HALF_LIFE since */
};

struct overhead_limit {
	double pct;			/* of one CPU */
	struct hit_cost cost;
	size_t nindexes;
	struct overhead_index *indexes;
	size_t ndetached;		/* detached by a check */
	size_t nrefused;		/* refused on trial */
	size_t nuntried;		/* the trace ended before their trial */
	unsigned int rounds;		/* checks that detached some */
	unsigned int said;		/* the rounds said so far */
	/* the BPF side, once loaded: its counters mapped into memory */
	struct percpu_mmap hits;	/* probe_hits, by index */
	struct percpu_mmap paid;	/* probe_paid, by enum probe_paid_slot */
	__u8 *gen_state;		/* probe_gen_state, by generation */
	bool gen_used[COOKIE_GENS];
	unsigned int next_gen;
	int prog_fds[OVERHEAD_MAX_PROGS];
	size_t nprogs;
	int stats_fd;
	/* the programs' run time and runs, and probe_paid, when a run's
	 * cost was last estimated */
	__u64 run_ns, run_cnt;
	struct probe_hits run_paid[PROBE_PAID_SLOTS];
	double live_ns;			/* a run of a live probe */
	double early_ns;		/* a run that returns early: a probe
					 * on trial, or of a link closing */
	bool live_measured;		/* live_ns from runs mostly live, not
					 * the first average alone */
	/* what the tool asked for, and what is attached (in that order) */
	struct overhead_request *reqs;
	size_t nreqs, reqs_cap;
	bool pending;			/* requests wait for admission */
	struct overhead_link *links;
	size_t nlinks, links_cap;
	struct overhead_closing *closings;
	size_t nclosings, closings_cap;
	struct overhead_ledger ledger;
	struct overhead_fixed fixed;	/* nprogs 0: none */
	/* admission's order: the indexes by position, the positions by
	 * index (while it runs) */
	__u32 *order, *position;
	__u64 samples;			/* overhead_limit__sample()'s, in all */
	unsigned int sample_hz;		/* and their rate */
	struct overhead_load load;	/* the target's, during admission */
	struct timespec last;		/* of the last check */
	double rated_ns;		/* the last read of every index's hits */
};

/*
 * Measure what a hit costs, and prepare for NINDEXES cookie indexes.
 * Returns 0 or a negative errno with a reason.
 */
int overhead_limit__init(struct overhead_limit *l, double pct,
			 size_t nindexes);

/*
 * Before the BPF object is loaded: its rodata's watch_overhead (set to
 * true here) and probe_hits_indexes, and its probe_hits and probe_paid
 * maps (sized here: per CPU, bpf/gotools.bpf.h).
 */
int overhead_limit__prepare(struct overhead_limit *l, volatile bool *watch,
			    volatile __u32 *indexes, struct bpf_map *probe_hits,
			    struct bpf_map *probe_paid);

/*
 * Once it is loaded: its probe_hits and probe_paid maps (mapped into
 * memory here), its probe_gen_state (in the object's mmapped .bss) and its
 * programs, whose run time is added to each hit's cost.
 */
int overhead_limit__start(struct overhead_limit *l, int hits_fd, int paid_fd,
			  __u8 *gen_state, struct bpf_program **progs,
			  size_t nprogs);

/*
 * skeleton__load() (cli/skeleton.h) of the skeleton OBJ, whose programs
 * include bpf/gotools.bpf.h, watched by --max-overhead when LIMIT is not
 * NULL: OBJ's watch_overhead set and its probe_hits and probe_paid sized
 * before the load (overhead_limit__prepare()), then its hit counters, generations and
 * the programs given after LIMIT, whose run time each hit costs, handed to
 * LIMIT (overhead_limit__start()). The one way a tool loads its programs.
 */
#define skeleton__load_limited(obj, map, nentries, limit, ...) ({	\
	struct bpf_program *__progs[] = { __VA_ARGS__ };		\
	int __err = 0;							\
									\
	if (limit)							\
		__err = overhead_limit__prepare(limit,			\
				&(obj)->rodata->watch_overhead,		\
				&(obj)->rodata->probe_hits_indexes,	\
				(obj)->maps.probe_hits,			\
				(obj)->maps.probe_paid);		\
	if (!__err)							\
		__err = skeleton__load((obj)->skeleton, map, nentries);	\
	if (!__err && (limit))						\
		__err = overhead_limit__start(limit,			\
				bpf_map__fd((obj)->maps.probe_hits),	\
				bpf_map__fd((obj)->maps.probe_paid),	\
				(obj)->bss->probe_gen_state, __progs,	\
				sizeof(__progs) / sizeof(*__progs));	\
	__err;								\
})

/*
 * Attach PROG at LIST's probes in PATH (PID > 0: that process only), or,
 * for a pattern of more than OVERHEAD_TRY_OVER indexes on a kernel with
 * uprobe_multi, keep them for overhead_limit__admit(). The limit owns the
 * links: overhead_limit__detach() closes them, in the reverse order (a
 * tool attaches what must see a call end before what sees it begin).
 * Returns 0 or a negative errno with a reason.
 */
int overhead_limit__attach(struct overhead_limit *l, struct bpf_program *prog,
			   const char *path, pid_t pid,
			   const struct uprobe_list *list);

/* CP's exits to EXIT, then its entries to ENTRY (call_probes__attach()). */
int overhead_limit__attach_calls(struct overhead_limit *l,
				 const struct call_probes *cp,
				 struct bpf_program *entry,
				 struct bpf_program *exit, const char *path,
				 pid_t pid);

/*
 * Count what the probes a tool attached itself cost the target (LABEL
 * names them in the line at the end): the run time of PROGS[0..NPROGS)
 * and a trap for each hit of their NSITES sites, counted per site in the
 * per-CPU array HITS_FD, at the cost of an emulated hit where EMULATED[i]
 * says so, else of a single-stepped one. When they alone cost more than
 * the budget for 100 ms, a check calls DETACH(CTX) (once) and the tool
 * says so, with THEN: what it means; meanwhile no function is detached
 * for them. Returns 0 or a negative errno
 * with a reason.
 */
int overhead_limit__add_fixed(struct overhead_limit *l, const char *label,
			      struct bpf_program **progs, size_t nprogs,
			      int hits_fd, const bool *emulated, size_t nsites,
			      overhead_detach_fn detach, void *ctx,
			      const char *then);

/* Is there anything for overhead_limit__admit() to try? */
bool overhead_limit__pending(const struct overhead_limit *l);

/*
 * Before admission: sample where PID, running BIN from PATH, spends its CPU
 * for half a second, so that overhead_limit__admit() tries the indexes
 * whose functions it was seen in least first, and the hottest last.
 * Nothing to do without admission pending or a process. Returns 0 or a
 * negative errno with a reason (admission then goes in index order).
 */
int overhead_limit__sample(struct overhead_limit *l,
			   const struct go_binary *bin, const char *path,
			   pid_t pid);

/* Says whether to stop trying (the trace is over). */
typedef bool (*overhead_stop_fn)(void *ctx);

/*
 * Try the probes kept by overhead_limit__attach() in batches and attach
 * those the budget can pay for (see above), until all are tried or
 * STOP(CTX). Returns how many indexes were refused (their round is
 * l->rounds), or a negative errno with a reason.
 */
int overhead_limit__admit(struct overhead_limit *l, overhead_stop_fn stop,
			  void *ctx);

/*
 * At most every 10 ms: what the live probes cost; when over the limit, or
 * a second after the last, the rates of the indexes, and the most costly
 * detached when they are over the limit. Returns how many
 * were detached now (0 mostly), or a negative errno with a reason.
 */
int overhead_limit__check(struct overhead_limit *l);

/* Is index I detached? NULL when not (or without a limit). */
const struct overhead_index *overhead_limit__detached(
	const struct overhead_limit *l, size_t i);

/*
 * "detached after N calls at R calls/s" for I's index, into BUF of SIZE
 * bytes (R as 2.1M, 35.0k or 120); "not attached: R calls/s on trial", or
 * "not attached: no room left in the budget".
 */
char *overhead_index__str(const struct overhead_index *i, char *buf,
			  size_t size);

/* Names an index for overhead_limit__print(): a string CTX owns, which
 * the caller neither frees nor keeps: it need stay valid only until the
 * next call. */
typedef const char *(*overhead_name_fn)(void *ctx, size_t index);

/*
 * Say on F what the rounds not said yet detached or refused: "TOOL: over
 * --max-overhead PCT%: N probed functions detached, the most costly NAME
 * detached after ... (-v lists them)", and "N of M probed functions not
 * attached, the most costly ..."; with VERBOSE, a line per index instead.
 * The checks that run while admission tries the others detach too: what
 * they detached is said at the next call (a tool calls this between
 * trials, after admission, and after its own checks), the refused once
 * admission is over; and, first, that the fixed probes were detached, once
 * they are (overhead__print_fixed()).
 */
void overhead_limit__print(struct overhead_limit *l, FILE *f,
			   const char *tool, bool verbose,
			   overhead_name_fn name_of, void *ctx);

/*
 * With -v, before the trials: what overhead_limit__sample() saw, on F:
 * "TOOL: N CPU samples of the target: the functions of M of K probed
 * indexes are in them and are tried last, the most sampled NAME (S),..."
 */
void overhead_limit__print_samples(const struct overhead_limit *l, FILE *f,
				   const char *tool, overhead_name_fn name_of,
				   void *ctx);

/*
 * At the end, on F: "TOOL: the probes cost the target A% of a CPU on
 * average (B% attaching and detaching them), W% in the costliest second;
 * N functions not attached, D detached" (and ", U not tried (the trace
 * ended first)" when some were not). Then the tool's own CPU, beside
 * attaching and detaching, which the budget does not count: "TOOL: its
 * own CPU, reading ... S% of a CPU on average (not counted above: ...)".
 */
void overhead_limit__print_cost(struct overhead_limit *l, FILE *f,
				const char *tool);

/* Detach every probe, the last attached first. */
void overhead_limit__detach(struct overhead_limit *l);

/* Detach and free everything. */
void overhead_limit__free(struct overhead_limit *l);

#endif
