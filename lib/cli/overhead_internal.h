/* SPDX-License-Identifier: MIT */
/*
 * What overhead_limit.c (the ledger, the check, the links) shares with
 * overhead_admit.c (admission): not for the tools.
 */
#ifndef GOTOOLS_OVERHEAD_INTERNAL_H
#define GOTOOLS_OVERHEAD_INTERNAL_H

#include "cli/overhead_limit.h"

/* PCT% of one CPU, in ns per second. */
static inline double overhead__budget(const struct overhead_limit *l)
{
	return l->pct / 100 * 1e9;
}

static inline double overhead__ns(const struct timespec *t)
{
	return t->tv_sec * 1e9 + t->tv_nsec;
}

/* The CPU time this process (all its threads) has used, in ns. */
static inline double process_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return overhead__ns(&t);
}

/* CLOCK_MONOTONIC now, in ns. */
static inline double overhead__now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return overhead__ns(&t);
}

/* What hits of each kind cost the target, in ns: of live probes (LIVE),
 * or of probes whose programs return early (on trial, or closing). */
double overhead__hits_ns(const struct overhead_limit *l, __u64 emulated,
			 __u64 stepped, bool live);

/* What the hits from THEN to NOW cost the target, in ns (LIVE: as above). */
double overhead__grown_ns(const struct overhead_limit *l,
			  const struct probe_hits *now,
			  const struct probe_hits *then, bool live);

/* Read SLOT of probe_paid (enum probe_paid_slot) into *HITS. */
void overhead__read_paid(const struct overhead_limit *l, __u32 slot,
			 struct probe_hits *hits);

/* What a run of the programs costs, live or early (l->live_ns,
 * l->early_ns), from their run time NS and runs CNT so far and probe_paid
 * now, PAID: once RUNS_AVERAGED runs more than at the last estimate. */
#define RUNS_AVERAGED	1000
void overhead__split_runs(struct overhead_limit *l, __u64 ns, __u64 cnt,
			  const struct probe_hits *paid);

/* The run time and runs of the programs FDS[0..N), summed. Returns 0 or a
 * negative errno with a reason. */
int overhead__read_runs(const int *fds, size_t n, __u64 *ns, __u64 *cnt);

/* What the fixed probes (overhead_limit__add_fixed()) cost since the last
 * read, in ns, into *PAID: their programs' run time and a trap per hit.
 * Returns 0 or a negative errno with a reason. */
int overhead__fixed_paid(struct overhead_limit *l, double *paid);

/*
 * Are the fixed probes alone over the budget (BUDGET ns per s): since the
 * last check, DT ns ago, or on average since a check that found them
 * over? Then the functions are not what costs: none is detached; after
 * 100 ms of it, the fixed probes are (their detach()), at that average.
 */
bool overhead__fixed_over(struct overhead_limit *l, double dt, double budget);

/*
 * Once the check has detached the fixed probes, say so on F, once ("TOOL:
 * over --max-overhead PCT%: LABEL detached at X% of a CPU: THEN").
 */
void overhead__print_fixed(struct overhead_limit *l, FILE *f,
			   const char *tool);

/* Read the programs' run time, and so what a run costs, live or early:
 * PAID is probe_paid now. */
int overhead__read_run_stats(struct overhead_limit *l,
			     const struct probe_hits *paid);

/* Links whose probes cost the budget divided by this or more are closed
 * first, one at a time, each once the probes of the one before no longer
 * trap (overhead__dead_wait_quiet()), the others after them: closed all at
 * once, the closes queue on the target's memory map a probe at a time, and
 * a hot probe traps until its turn comes. */
#define OVERHEAD_HOT_SHARE	4

/* Wait until the probes of closing links stop trapping: no hit for a ms,
 * 30 ms at most. */
void overhead__dead_wait_quiet(const struct overhead_limit *l);

/* Read probe_paid into the ledger. */
int overhead__ledger_update(struct overhead_limit *l);

/* What the target paid in the last second, in ns, as the ledger has it. */
double overhead__last_second(const struct overhead_limit *l);
/* Of it, admission's: trials, closing, attaching and detaching. */
double overhead__last_second_admit(const struct overhead_limit *l);

/* What the attached indexes cost, as the last check had them, ns per s. */
double overhead__kept_cost(const struct overhead_limit *l);

/* What the fixed probes (overhead_limit__add_fixed()) cost in the last
 * second, ns, while attached: the indexes have the rest of the budget. */
double overhead__fixed_cost(const struct overhead_limit *l);

/* Read probe_hits of indexes LO..LO + N) into HITS[0..N). */
void overhead__read_range(const struct overhead_limit *l, __u32 lo, size_t n,
			  struct probe_hits *hits);

/* What index I's hits grew by since they were last read, in SECS. */
struct overhead_delta {
	struct probe_hits hits;
	double secs;
};

/* Read probe_hits into each index's seen (the check's baseline, with the
 * time of the read); the increase into DELTA (NULL: not wanted). */
void overhead__read_hits(struct overhead_limit *l,
			 struct overhead_delta *delta);

/* A free generation, in STATE; -ENOSPC with a reason when none is. */
int overhead__gen_alloc(struct overhead_limit *l, enum probe_gen_state state);
void overhead__gen_free(struct overhead_limit *l, unsigned int gen);

/* C closes links of generations GENS[0..N) (0s are fine): those are free
 * once it has closed (without memory: C waited for, and free now). */
void overhead__closing_add(struct overhead_limit *l, struct uprobes_closing *c,
			   const unsigned int *gens, size_t n);

/* Free the generations of the links closed by now (WAIT: wait for all). */
void overhead__closings_reap(struct overhead_limit *l, bool wait);

/* U of generation GEN is the limit's, to detach at the end. */
int overhead__add_link(struct overhead_limit *l, struct uprobes *u,
		       unsigned int gen);

/*
 * Detach the most costly live indexes until the others cost at most
 * TARGET ns per second out of TOTAL, replacing the links that hold them.
 * Returns how many, or a negative errno with a reason.
 */
int overhead__evict(struct overhead_limit *l, double total, double target);

/*
 * How busy the target is: a trial while it runs less than
 * 1/OVERHEAD_LOAD_SHARE of its busiest recent rate tells nothing of what
 * its functions cost under load (overhead_limit.h).
 */
#define OVERHEAD_LOAD_SHARE	2

/* Watch PID's CPU time from now on (not when PID is 0: all processes). */
void overhead_load__start(struct overhead_limit *l, pid_t pid);

/* The target's CPU time now into *M; false when it is not watched or has
 * exited. */
bool overhead_load__mark(const struct overhead_limit *l,
			 struct overhead_load_mark *m);

/* How busy the target was since M: its CPU time less what the probes
 * cost it (the ledger as last read), in CPUs; -1 when not known. */
double overhead_load__since(const struct overhead_limit *l,
			    const struct overhead_load_mark *m);

/* End the window going on when it is LOAD_WINDOW_NS old: its rate is the
 * recent one, and the peak's if higher. Reads the ledger as last read. */
void overhead_load__update(struct overhead_limit *l);

/* Is RATE (CPUs) under 1/OVERHEAD_LOAD_SHARE of the target's busiest
 * recent rate? Never when the target is not watched, or has never been
 * busy. */
bool overhead_load__low(const struct overhead_limit *l, double rate);

#endif
