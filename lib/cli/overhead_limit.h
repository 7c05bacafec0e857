/* SPDX-License-Identifier: MIT */
/*
 * --max-overhead PCT: a bound on what the probes cost the traced program.
 *
 * A hit costs the thread that hits it a trap: about 0.7 us where the
 * kernel emulates the probed instruction, ten times that on some virtual
 * machines where it single-steps it (probe/hit_cost.h, measured at start),
 * plus the BPF program's own run time (the kernel's BPF statistics, on
 * while the option is). The BPF programs count the hits of each cookie
 * index (a counter, a function, a row) by kind of site (bpf/overhead.h).
 * Ten times a second, the rate of each index times what its hits cost is
 * what the target spends in its probes; when the sum is over PCT% of one
 * CPU, the most costly indexes are detached until the rest cost a quarter
 * of PCT: rates measured while the target is slowed down understate what
 * they become once it is not (the next checks detach more if need be),
 * and a hit in a busy program costs more than in the calibration's loop
 * (caches, other threads).
 *
 * Detaching a few probes of a uprobe_multi link means replacing the link:
 * the kept probes are attached anew with COOKIE_EPOCH flipped, the BPF
 * programs' probe_epoch is flipped, the old link is closed
 * (probe/uprobes.h). A hit is counted by one link or the other, never by
 * both: except that a call hitting a kept probe at the very moment of the
 * flip, between the two links' programs, can be counted twice or not at
 * all; an index is then off by one at most per replacement.
 *
 * A detached index keeps what it counted; tools mark it as partial:
 * "detached after N calls at R calls/s".
 */
#ifndef GOTOOLS_OVERHEAD_LIMIT_H
#define GOTOOLS_OVERHEAD_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>
#include <bpf/libbpf.h>
#include "overhead.h"
#include "cli/skeleton.h"
#include "probe/call_probes.h"
#include "probe/hit_cost.h"
#include "probe/uprobes.h"

#define OVERHEAD_MAX_PROGS	4
#define OVERHEAD_MAX_LINKS	16

struct overhead_index {
	struct probe_hits seen;		/* summed over CPUs, at the last check */
	double cost_rate;		/* ns of the target's time per second */
	bool detached;
	__u64 detached_calls;		/* all the calls it counted */
	double detached_rate;		/* calls per second when detached */
	unsigned int round;		/* the check that detached it */
};

struct overhead_limit {
	double pct;			/* of one CPU */
	struct hit_cost cost;
	size_t nindexes;
	struct overhead_index *indexes;
	size_t ndetached;
	unsigned int rounds;		/* checks that detached some */
	/* the BPF side, once loaded */
	int hits_fd;
	__u32 *epoch;
	int prog_fds[OVERHEAD_MAX_PROGS];
	size_t nprogs;
	int stats_fd;
	__u64 run_ns, run_cnt;		/* of the programs, at the last check */
	double prog_ns;			/* a run, on average */
	struct uprobes *links[OVERHEAD_MAX_LINKS];
	size_t nlinks;
	struct timespec last;
	__u64 *sums;			/* a read of probe_hits */
};

/*
 * Measure what a hit costs, and prepare for NINDEXES cookie indexes.
 * Returns 0 or a negative errno with a reason.
 */
int overhead_limit__init(struct overhead_limit *l, double pct,
			 size_t nindexes);

/*
 * Before the BPF object is loaded: its rodata's watch_overhead (set to
 * true here) and its probe_hits map (sized here).
 */
int overhead_limit__prepare(struct overhead_limit *l, volatile bool *watch,
			    struct bpf_map *probe_hits);

/*
 * Once it is loaded: its probe_hits map, its probe_epoch (in the object's
 * mmapped .bss) and its programs, whose run time is added to each hit's
 * cost.
 */
int overhead_limit__start(struct overhead_limit *l, int hits_fd, __u32 *epoch,
			  struct bpf_program **progs, size_t nprogs);

/*
 * skeleton__load() (cli/skeleton.h) of the skeleton OBJ, whose programs
 * include bpf/gotools.bpf.h, watched by --max-overhead when LIMIT is not
 * NULL: OBJ's watch_overhead set and its probe_hits map sized before the
 * load (overhead_limit__prepare()), then its hit counters, probe_epoch and
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
				(obj)->maps.probe_hits);		\
	if (!__err)							\
		__err = skeleton__load((obj)->skeleton, map, nentries);	\
	if (!__err && (limit))						\
		__err = overhead_limit__start(limit,			\
				bpf_map__fd((obj)->maps.probe_hits),	\
				&(obj)->bss->probe_epoch, __progs,	\
				sizeof(__progs) / sizeof(*__progs));	\
	__err;								\
})

/* The probes to detach from when need be (up to OVERHEAD_MAX_LINKS). */
int overhead_limit__add_links(struct overhead_limit *l, struct uprobes *u);

/* Both links of call_probes__attach() (probe/call_probes.h). */
int overhead_limit__add_call_links(struct overhead_limit *l,
				   const struct call_links *links);

/*
 * At most every 100 ms: the rates since the last check, and the most
 * costly indexes detached when they are over the limit. Returns how many
 * were detached now (0 mostly), or a negative errno with a reason.
 */
int overhead_limit__check(struct overhead_limit *l);

/* Is index I detached? NULL when not (or without a limit). */
const struct overhead_index *overhead_limit__detached(
	const struct overhead_limit *l, size_t i);

/*
 * "detached after N calls at R calls/s" for I's index, into BUF of SIZE
 * bytes (R as 2.1M, 35.0k or 120).
 */
char *overhead_index__str(const struct overhead_index *i, char *buf,
			  size_t size);

/* Names an index for overhead_limit__print(): a string CTX owns, which
 * the caller neither frees nor keeps: it need stay valid only until the
 * next call. */
typedef const char *(*overhead_name_fn)(void *ctx, size_t index);

/*
 * After a check detached N indexes, say so on F: "TOOL: over
 * --max-overhead PCT%: N functions detached, the most costly NAME after
 * ... (-v lists them)"; with VERBOSE, a line per index.
 */
void overhead_limit__print(const struct overhead_limit *l, FILE *f,
			   const char *tool, int n, bool verbose,
			   overhead_name_fn name_of, void *ctx);

void overhead_limit__free(struct overhead_limit *l);

#endif
