// SPDX-License-Identifier: MIT
/*
 * cli/overhead_limit with the kernel's own parts: the hit costs measured
 * by real uprobes in this process, real maps of hit counters per CPU (as
 * the BPF programs keep them, here written by the test), no links. Which
 * indexes a check detaches must follow from the counts written and the
 * costs measured: those whose hits cost the target more than the limit
 * leaves, the most costly first, until the rest cost half of it; what the
 * ledger says was paid must follow from the hits written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cli/overhead_internal.h"
#include "test.h"

#define NINDEXES	5

/* Each CPU's copy of KEY, V[0..ncpus), in FD: an array of NKEYS per CPU
 * (PERCPU_MMAP_ARRAY, bpf/gotools.bpf.h). */
static int put_percpu(int fd, __u32 nkeys, __u32 key,
		      const struct probe_hits *v)
{
	int ncpus = libbpf_num_possible_cpus(), c, err = 0;
	__u32 k;

	for (c = 0; c < ncpus && !err; c++) {
		k = c * nkeys + key;
		err = bpf_map_update_elem(fd, &k, &v[c], BPF_ANY);
	}
	return err;
}

/* The counters of index I, all on CPU 0. */
static int set_hits(int fd, __u32 i, __u64 calls, __u64 emulated,
		    __u64 stepped)
{
	int ncpus = libbpf_num_possible_cpus();
	struct probe_hits *v = calloc(ncpus, sizeof(*v));
	int err;

	if (!v)
		return -ENOMEM;
	v[0] = (struct probe_hits){ calls, emulated, stepped };
	err = put_percpu(fd, NINDEXES, i, v);
	free(v);
	return err;
}

/* The counters of slot S of probe_paid, all on CPU 0. */
static int set_paid(int fd, __u32 s, __u64 emulated, __u64 stepped)
{
	int ncpus = libbpf_num_possible_cpus();
	struct probe_hits *v = calloc(ncpus, sizeof(*v));
	int err;

	if (!v)
		return -ENOMEM;
	v[0] = (struct probe_hits){ 0, emulated, stepped };
	err = put_percpu(fd, PROBE_PAID_SLOTS, s, v);
	free(v);
	return err;
}

/* EMULATED and STEPPED hits of live probes, in all, paid (a live hit is
 * in no other slot). */
static int set_live_paid(int paid_fd, __u64 emulated, __u64 stepped)
{
	return set_paid(paid_fd, PROBE_PAID_ALL, emulated, stepped);
}

/* NKEYS struct probe_hits per CPU, mapped into memory, as the BPF
 * programs have them. */
static int hits_map(const char *name, __u32 nkeys)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);

	return bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32),
			      sizeof(struct probe_hits),
			      nkeys * libbpf_num_possible_cpus(), &opts);
}

/* L started on fresh maps, its indexes live as if attached at once. */
static int start(struct overhead_limit *l, int *hits_fd, int *paid_fd,
		 __u8 *gen_state)
{
	size_t i;

	*hits_fd = hits_map("test_hits", NINDEXES);
	*paid_fd = hits_map("test_paid", PROBE_PAID_SLOTS);
	if (*hits_fd < 0 || *paid_fd < 0)
		return -errno;
	for (i = 0; i < l->nindexes; i++)
		l->indexes[i].attached = true;
	return overhead_limit__start(l, *hits_fd, *paid_fd, gen_state, NULL, 0);
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&t, NULL);
}

TEST(check_detaches_the_costly)
{
	static __u8 gen_state[COOKIE_GENS];
	struct overhead_limit l;
	char buf[128];
	int fd, paid_fd, n;

	CHECK_EQ_INT(overhead_limit__init(&l, 5, NINDEXES), 0);
	/* the costs measured in this process: a step costs more */
	CHECK(l.cost.emulated_ns > 0);
	CHECK(l.cost.stepped_ns > l.cost.emulated_ns);
	n = start(&l, &fd, &paid_fd, gen_state);
	CHECK_EQ_INT(n, 0);
	if (n)
		return;
	/* a check before 100 ms have passed does nothing */
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	/* over ~0.1 s: index 0 200,000 emulated hits (~1.8 s of the target's
	 * time a second at 0.9 us), index 4 20,000 single-stepped ones (~3 s
	 * a second at 15 us), index 1 200 emulated (~1.6 ms a second, under
	 * half of the 50 ms that 5% of a CPU allows), index 2 10, index 3
	 * none */
	CHECK_EQ_INT(set_hits(fd, 0, 200000, 200000, 0), 0);
	CHECK_EQ_INT(set_hits(fd, 1, 200, 200, 0), 0);
	CHECK_EQ_INT(set_hits(fd, 2, 10, 10, 0), 0);
	CHECK_EQ_INT(set_hits(fd, 4, 10000, 0, 20000), 0);
	/* and in all and as live, as the BPF programs account a live hit */
	CHECK_EQ_INT(set_live_paid(paid_fd, 200210, 20000), 0);
	sleep_ms(110);
	n = overhead_limit__check(&l);
	/* the two that cost most go; the rest cost under half */
	CHECK_EQ_INT(n, 2);
	CHECK(overhead_limit__detached(&l, 0) != NULL);
	CHECK(overhead_limit__detached(&l, 4) != NULL);
	CHECK(overhead_limit__detached(&l, 1) == NULL);
	CHECK(overhead_limit__detached(&l, 2) == NULL);
	CHECK(overhead_limit__detached(&l, 3) == NULL);
	CHECK_EQ_INT(l.ndetached, (size_t)n);
	CHECK_EQ_INT(l.rounds, 1);
	/* what a detached index counted, and at what rate */
	CHECK_EQ_INT(l.indexes[0].detached_calls, 200000);
	CHECK(l.indexes[0].detached_rate > 1e6 && l.indexes[0].detached_rate < 2.1e6);
	CHECK(l.indexes[4].cost_rate > l.indexes[2].cost_rate);
	overhead_index__str(&l.indexes[0], buf, sizeof(buf));
	CHECK(!strncmp(buf, "detached after 200000 calls at ",
		       strlen("detached after 200000 calls at ")));
	CHECK(strstr(buf, "M calls/s") != NULL);
	/* nothing new: nothing more detached, and nothing detached again */
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	CHECK_EQ_INT(l.rounds, 1);
	/* index 2 gets hot: the next check takes it, and it alone */
	CHECK_EQ_INT(set_hits(fd, 2, 200010, 200010, 0), 0);
	CHECK_EQ_INT(set_live_paid(paid_fd, 400210, 20000), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 1);
	CHECK(overhead_limit__detached(&l, 2) != NULL);
	CHECK_EQ_INT(l.indexes[2].detached_calls, 200010);
	CHECK_EQ_INT(l.rounds, 2);
	CHECK(overhead_limit__detached(&l, 1) == NULL);
	CHECK(overhead_limit__detached(&l, 3) == NULL);
	CHECK(overhead_limit__detached(NULL, 0) == NULL);
	CHECK(overhead_limit__detached(&l, NINDEXES) == NULL);
	/* under the limit, the rates are read once a second, over the time
	 * since their last read: index 1's 100 more hits over 100 ms and
	 * then a second, not over the last 100 ms alone */
	CHECK_EQ_INT(set_hits(fd, 1, 300, 300, 0), 0);
	CHECK_EQ_INT(set_live_paid(paid_fd, 400310, 20000), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	sleep_ms(1000);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	CHECK(l.indexes[1].cost_rate > 100 * l.cost.emulated_ns / 1.3 &&
	      l.indexes[1].cost_rate <
	      100 * (l.cost.emulated_ns + l.live_ns) / 1.0);
	/* what probes being closed cost is paid (and leaves the live ones
	 * that much less of the budget), yet they are in no index's hits
	 * (bpf/gotools.bpf.h): nothing is detached for them */
	CHECK_EQ_INT(set_paid(paid_fd, PROBE_PAID_ALL, 700310, 20000), 0);
	CHECK_EQ_INT(set_paid(paid_fd, PROBE_PAID_DEAD, 300000, 0), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	CHECK(overhead_limit__detached(&l, 3) == NULL);
	close(fd);
	close(paid_fd);
	overhead_limit__free(&l);
}

/* A limit of 5% started on maps of its own, and a value of probe_paid,
 * zeros on every CPU, into *V (freed by ledger__stop()). */
static int ledger__start(struct overhead_limit *l, int *hits_fd,
			 int *paid_fd, struct probe_hits **v)
{
	static __u8 gen_state[COOKIE_GENS];
	int err;

	*v = calloc(libbpf_num_possible_cpus(), sizeof(**v));
	if (!*v)
		return -ENOMEM;
	err = overhead_limit__init(l, 5, NINDEXES);
	if (!err)
		err = start(l, hits_fd, paid_fd, gen_state);
	if (err) {
		free(*v);
		overhead_limit__free(l);
	}
	return err;
}

static void ledger__stop(struct overhead_limit *l, int hits_fd, int paid_fd,
			 struct probe_hits *v)
{
	close(hits_fd);
	close(paid_fd);
	free(v);
	overhead_limit__free(l);
}

TEST(check_detaches_a_burst_at_once)
{
	struct overhead_limit l;
	struct probe_hits *v;
	__u64 hits;
	int fd, paid_fd;

	if (ledger__start(&l, &fd, &paid_fd, &v)) {
		CHECK(!"a limit started");
		return;
	}
	/* index 1's hits over ~110 ms cost 20 ms of the target's time
	 * (18% of a CPU, under the 25 ms of half the budget) */
	hits = 20e6 / l.cost.emulated_ns;
	CHECK_EQ_INT(set_hits(fd, 1, hits, hits, 0), 0);
	CHECK_EQ_INT(set_live_paid(paid_fd, hits, 0), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 1);
	CHECK(overhead_limit__detached(&l, 1) != NULL);
	CHECK(overhead__last_second(&l) < overhead__budget(&l) / 2);
	/* a second on (the rates read once a second), index 2 at twice the
	 * budget, under three times: nothing is read until the second has
	 * paid half of it */
	sleep_ms(1100);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	hits += 11e6 / l.cost.emulated_ns;
	CHECK_EQ_INT(set_hits(fd, 2, hits, hits, 0), 0);
	CHECK_EQ_INT(set_live_paid(paid_fd, hits, 0), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	CHECK(overhead_limit__detached(&l, 2) == NULL);
	ledger__stop(&l, fd, paid_fd, v);
}

/* Live probes under the budget, but over it with what admission paid in
 * the last second (trials, closing, attaching): the costliest are
 * detached down to half the budget, within 100 ms, not a second. */
TEST(check_counts_what_admission_paid)
{
	struct overhead_limit l;
	struct probe_hits *v;
	__u64 live, tried;
	int fd, paid_fd;

	if (ledger__start(&l, &fd, &paid_fd, &v)) {
		CHECK(!"a limit started");
		return;
	}
	/* over ~110 ms: index 1 live at about 3.5% of a CPU, and trials
	 * that cost 30 ms of the last second (3%) */
	live = 3.85e6 / l.cost.emulated_ns;
	tried = 30e6 / l.cost.emulated_ns;
	CHECK_EQ_INT(set_hits(fd, 1, live, live, 0), 0);
	CHECK_EQ_INT(set_paid(paid_fd, PROBE_PAID_TRIAL, tried, 0), 0);
	CHECK_EQ_INT(set_live_paid(paid_fd, live + tried, 0), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 1);
	CHECK(overhead_limit__detached(&l, 1) != NULL);
	ledger__stop(&l, fd, paid_fd, v);
}

TEST(generations_are_apart)
{
	static __u8 gen_state[COOKIE_GENS];
	struct overhead_limit l;
	int a, b, c, i;

	memset(&l, 0, sizeof(l));
	l.next_gen = 1;
	l.gen_state = gen_state;
	a = overhead__gen_alloc(&l, PROBE_GEN_TRIAL);
	b = overhead__gen_alloc(&l, PROBE_GEN_LIVE);
	/* never 0, the generation of links attached for good without
	 * uprobe_multi; the states set as asked */
	CHECK(a > 0 && b > 0 && a != b);
	CHECK_EQ_INT(gen_state[a], PROBE_GEN_TRIAL);
	CHECK_EQ_INT(gen_state[b], PROBE_GEN_LIVE);
	/* all the others taken, the one freed is given again */
	for (i = 2; i < (int)COOKIE_GENS - 1; i++)
		CHECK(overhead__gen_alloc(&l, PROBE_GEN_DEAD) > 0);
	CHECK(overhead__gen_alloc(&l, PROBE_GEN_LIVE) == -ENOSPC);
	overhead__gen_free(&l, a);
	c = overhead__gen_alloc(&l, PROBE_GEN_LIVE);
	CHECK_EQ_INT(c, a);
	CHECK_EQ_INT(gen_state[c], PROBE_GEN_LIVE);
	/* a cookie carries its generation apart from its index and flags */
	CHECK_EQ_INT(COOKIE_GEN(COOKIE_WITH_GEN(COOKIE_MAKE(7, EFLAGS_CF,
			COOKIE_STEPPED), 2047)), 2047);
	CHECK_EQ_INT(COOKIE_INDEX(COOKIE_WITH_GEN(COOKIE_MAKE(7, 0, 0), 5)), 7);
	CHECK(COOKIE_WITH_GEN(COOKIE_WITH_GEN(COOKIE_MAKE(7, EFLAGS_CF,
			COOKIE_STEPPED), 9), 0) ==
	      COOKIE_MAKE(7, EFLAGS_CF, COOKIE_STEPPED));
}

TEST(rates_read_as_people_do)
{
	struct overhead_index x = { .detached_calls = 42 };
	char buf[128];

	x.detached_rate = 2.5e6;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "detached after 42 calls at 2.5M calls/s");
	x.detached_rate = 35000;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "detached after 42 calls at 35.0k calls/s");
	x.detached_rate = 120;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "detached after 42 calls at 120 calls/s");
	x.refused = true;
	x.detached_rate = 658000;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "not attached: 658.0k calls/s on trial");
	x.no_room = true;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "not attached: no room left in the budget");
}

TEST(ledger_adds_what_was_paid)
{
	int hits_fd, paid_fd, ncpus = libbpf_num_possible_cpus();
	struct overhead_limit l;
	struct probe_hits *v;
	__u32 all = PROBE_PAID_ALL;
	double want;

	if (ledger__start(&l, &hits_fd, &paid_fd, &v)) {
		CHECK(!"a limit started");
		return;
	}
	/* 1,000 emulated and 10 single-stepped hits on CPU 0, and 500
	 * emulated on the last CPU: no programs, so no run time to add */
	v[0] = (struct probe_hits){ 1000, 1000, 10 };
	v[ncpus - 1].emulated += 500;
	CHECK_EQ_INT(put_percpu(paid_fd, PROBE_PAID_SLOTS, all, v), 0);
	CHECK_EQ_INT(overhead__ledger_update(&l), 0);
	want = 1500 * l.cost.emulated_ns + 10 * l.cost.stepped_ns;
	CHECK(l.ledger.total_ns > want * 0.999 && l.ledger.total_ns < want * 1.001);
	CHECK(overhead__last_second(&l) > want * 0.999 &&
	      overhead__last_second(&l) < want * 1.001);
	/* read again, nothing new: nothing added */
	CHECK_EQ_INT(overhead__ledger_update(&l), 0);
	CHECK(l.ledger.total_ns < want * 1.001);
	/* a second later the last second holds none of it, the total all */
	sleep_ms(1100);
	CHECK_EQ_INT(overhead__ledger_update(&l), 0);
	CHECK(overhead__last_second(&l) == 0);
	CHECK(l.ledger.total_ns > want * 0.999);
	CHECK(l.ledger.worst_ns > want * 0.999 && l.ledger.worst_ns < want * 1.001);
	ledger__stop(&l, hits_fd, paid_fd, v);
}

/* The slots of probe_paid: ALL hits in all, TRIAL of them on trial,
 * DEAD of closing links (all emulated). */
static void paid_slots(struct probe_hits *paid, __u64 all, __u64 trial,
		       __u64 dead)
{
	memset(paid, 0, PROBE_PAID_SLOTS * sizeof(*paid));
	paid[PROBE_PAID_ALL].emulated = all;
	paid[PROBE_PAID_TRIAL].emulated = trial;
	paid[PROBE_PAID_DEAD].emulated = dead;
}

TEST(runs_split_live_from_early)
{
	struct probe_hits paid[PROBE_PAID_SLOTS];
	struct overhead_limit l;

	memset(&l, 0, sizeof(l));
	/* fewer runs than make an average: nothing yet */
	paid_slots(paid, 999, 0, 0);
	overhead__split_runs(&l, 99900, 999, paid);
	CHECK(l.live_ns == 0 && l.early_ns == 0);
	/* the first average is both: 100 ns a run */
	paid_slots(paid, 2000, 0, 0);
	overhead__split_runs(&l, 200000, 2000, paid);
	CHECK(l.live_ns == 100 && l.early_ns == 100);
	/* 2,000 runs on trial alone, 50 ns each: an early return's cost */
	paid_slots(paid, 4000, 2000, 0);
	overhead__split_runs(&l, 300000, 4000, paid);
	CHECK(l.early_ns == 50 && l.live_ns == 100);
	/* half of 2,000 live at 400 ns, half of closing links at 50 */
	paid_slots(paid, 6000, 2000, 1000);
	overhead__split_runs(&l, 300000 + 1000 * 400 + 1000 * 50, 6000, paid);
	CHECK(l.live_ns > 399.999 && l.live_ns < 400.001);
	CHECK(l.early_ns == 50);
	/* a third live: too few to tell either, nothing changes */
	paid_slots(paid, 8000, 3333, 1000);
	overhead__split_runs(&l, 750000 + 2000 * 1000, 8000, paid);
	CHECK(l.live_ns > 399.999 && l.live_ns < 400.001);
	CHECK(l.early_ns == 50);
	/* a live run never costs less than the average run */
	paid_slots(paid, 10000, 3333, 2000);
	overhead__split_runs(&l, 2750000 + 2000 * 20, 10000, paid);
	CHECK(l.live_ns == 20);
}

/* Hits of probes on trial cost a trap and an early return; attaching and
 * detaching costs what it took of the CPU. */
TEST(ledger_charges_early_runs_less)
{
	__u32 all = PROBE_PAID_ALL, trial = PROBE_PAID_TRIAL;
	struct overhead_limit l;
	struct probe_hits *v;
	struct hit_cost cost;
	int hits_fd, paid_fd;
	double want, work;

	if (ledger__start(&l, &hits_fd, &paid_fd, &v)) {
		CHECK(!"a limit started");
		return;
	}
	l.live_ns = 500;
	l.early_ns = 50;
	/* 3,000 emulated hits, 1,000 of them on trial */
	v[0] = (struct probe_hits){ 3000, 3000, 0 };
	CHECK_EQ_INT(put_percpu(paid_fd, PROBE_PAID_SLOTS, all, v), 0);
	v[0] = (struct probe_hits){ 1000, 1000, 0 };
	CHECK_EQ_INT(put_percpu(paid_fd, PROBE_PAID_SLOTS, trial, v), 0);
	/* and attaching and detaching probes (measuring their cost does) */
	work = uprobes__work_ns();
	CHECK_EQ_INT(hit_cost__measure(&cost), 0);
	work = uprobes__work_ns() - work;
	CHECK(work > 0);
	CHECK_EQ_INT(overhead__ledger_update(&l), 0);
	want = 2000 * (l.cost.emulated_ns + 500) +
	       1000 * (l.cost.emulated_ns + 50) + work;
	CHECK(l.ledger.total_ns > want * 0.999 &&
	      l.ledger.total_ns < want * 1.001);
	CHECK(l.ledger.work_ns == work);
	/* admission's share: the hits on trial, attaching and detaching */
	want = 1000 * (l.cost.emulated_ns + 50) + work;
	CHECK(l.ledger.admit_ns > want * 0.999 &&
	      l.ledger.admit_ns < want * 1.001);
	CHECK(overhead__last_second_admit(&l) > want * 0.999 &&
	      overhead__last_second_admit(&l) < want * 1.001);
	CHECK(overhead__last_second(&l) > l.ledger.total_ns * 0.999);
	/* and a second later, none of it in the last second */
	sleep_ms(1100);
	CHECK_EQ_INT(overhead__ledger_update(&l), 0);
	CHECK(overhead__last_second_admit(&l) == 0);
	CHECK(l.ledger.admit_ns > want * 0.999);
	ledger__stop(&l, hits_fd, paid_fd, v);
}

/* A function quiet until now that turns hot: at three times the budget
 * and more it is detached at the first check, before the second it costs
 * in has paid half the budget (at 20% of a CPU, 5% in all is paid in a
 * quarter of a second). */
static const char *name_of(void *ctx, size_t i)
{
	static const char *const names[NINDEXES] = {
		"main.a", "main.b", "main.c", "main.d", "main.e",
	};

	(void)ctx;
	return names[i];
}

/* What overhead_limit__print() says of L, VERBOSE or not, is WANT. */
static void check_said(struct overhead_limit *l, bool verbose,
		       const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	overhead_limit__print(l, f, "t", verbose, name_of, NULL);
	fclose(f);
	CHECK_EQ_STR(buf, want);
	free(buf);
}

/* Each round is said once, whenever it is said: what the checks detached
 * as "N probed functions detached" (also while admission goes on: the
 * checks between its trials detach too), admission's refused once their
 * round is set at its end as "N of M probed functions not attached", each
 * with the most costly; with -v, a line each. */
static void test_print_says_each_round_once(void)
{
	struct overhead_index x[NINDEXES] = { 0 };
	struct overhead_limit l = {
		.pct = 5, .nindexes = NINDEXES, .indexes = x,
	};

	/* two checks detached main.a, then main.b; admission refused
	 * main.d, and goes on */
	x[0] = (struct overhead_index){ .detached = true, .round = 1,
		.cost_rate = 1e6, .detached_calls = 10, .detached_rate = 500 };
	x[1] = (struct overhead_index){ .detached = true, .round = 2,
		.cost_rate = 3e6, .detached_calls = 20, .detached_rate = 2000 };
	x[3] = (struct overhead_index){ .detached = true, .refused = true,
		.cost_rate = 5e6, .detached_rate = 40000 };
	l.rounds = 2;
	check_said(&l, false,
		   "t: over --max-overhead 5%: 2 probed functions detached, "
		   "the most costly main.b detached after 20 calls at 2.0k "
		   "calls/s (-v lists them)\n");
	check_said(&l, false, "");
	/* admission is over: its refused are a round of their own */
	x[3].round = 3;
	l.rounds = 3;
	check_said(&l, false,
		   "t: over --max-overhead 5%: 1 of 5 probed functions "
		   "not attached, the most costly main.d (not attached: "
		   "40.0k calls/s on trial)\n");
	/* a check detaches two more, said with -v */
	x[2] = (struct overhead_index){ .detached = true, .round = 4,
		.cost_rate = 1e6, .detached_calls = 7, .detached_rate = 70 };
	x[4] = (struct overhead_index){ .detached = true, .round = 4,
		.cost_rate = 2e6, .detached_calls = 9, .detached_rate = 90 };
	l.rounds = 4;
	check_said(&l, true,
		   "t: main.c detached after 7 calls at 70 calls/s\n"
		   "t: main.e detached after 9 calls at 90 calls/s\n");
	CHECK_EQ_INT(l.said, 4);
}

static void count_detach(void *ctx)
{
	(*(int *)ctx)++;
}

/* Windows of 10 ms in which the fixed probes cost PAID[i] ms each, from
 * the check's point of view: how many checks until they are detached (0:
 * never, in N windows). */
static int fixed_detached_after(const double *paid, int n, int *detached)
{
	struct overhead_limit l;
	struct timespec w = { 0, 10000000L };
	int i;

	memset(&l, 0, sizeof(l));
	l.pct = 5;
	l.fixed.nprogs = 1;
	l.fixed.detach = count_detach;
	l.fixed.ctx = detached;
	for (i = 0; i < n; i++) {
		nanosleep(&w, NULL);
		l.ledger.fixed_ns += paid[i] * 1e6;
		overhead__fixed_over(&l, 1e7, overhead__budget(&l));
		if (*detached)
			return i + 1;
	}
	return 0;
}

/* The goroutine-state tracker's hits come with the target's goroutines:
 * at twice the budget on average, with a window under it now and then, it
 * is over the budget for 100 ms and detached; at 0.8 times it, with
 * windows over it now and then, never. */
TEST(fixed_detached_over_the_budget_on_average)
{
	/* 5% of a CPU: 0.5 ms a 10 ms window */
	double noisy[14] = { 1.5, 0.2, 1.5, 1.5, 0.1, 1.5, 1.5, 0.2, 1.5,
			     1.5, 0.1, 1.5, 1.5, 1.5 };
	double under[14] = { 0.9, 0.2, 0.3, 0.4, 0.9, 0.2, 0.3, 0.4, 0.6,
			     0.3, 0.2, 0.3, 0.4, 0.2 };
	int detached = 0, at;

	at = fixed_detached_after(noisy, 14, &detached);
	CHECK_EQ_INT(detached, 1);
	CHECK(at >= 10 && at <= 12);
	detached = 0;
	CHECK_EQ_INT(fixed_detached_after(under, 14, &detached), 0);
	CHECK_EQ_INT(detached, 0);
}

int main(void)
{
	RUN(check_detaches_the_costly);
	RUN(print_says_each_round_once);
	RUN(check_detaches_a_burst_at_once);
	RUN(check_counts_what_admission_paid);
	RUN(ledger_adds_what_was_paid);
	RUN(runs_split_live_from_early);
	RUN(ledger_charges_early_runs_less);
	RUN(generations_are_apart);
	RUN(rates_read_as_people_do);
	RUN(fixed_detached_over_the_budget_on_average);
	return TEST_SUMMARY();
}
