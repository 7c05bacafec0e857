// SPDX-License-Identifier: MIT
/* --max-overhead: what the probes cost the target, the ledger, the check
 * and the links (overhead_limit.h); admission is overhead_admit.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "core/error.h"
#include "core/mem.h"
#include "cli/overhead_internal.h"
#include "cli/percpu_map.h"

#define CHECK_EVERY_NS	10000000.0	/* 10 ms */
#define RATE_EVERY_NS	1e9		/* each index's rate, at least */
#define RATE_ADMIT_NS	1e8		/* at most, over with admission's */
#define SLOT_NS		100000000L	/* the ledger's slots, 100 ms */
#define BURST		3		/* times the budget: rated at once */
#define HITS_WORDS	(sizeof(struct probe_hits) / sizeof(__u64))

int overhead_limit__init(struct overhead_limit *l, double pct,
			 size_t nindexes)
{
	memset(l, 0, sizeof(*l));
	l->pct = pct;
	l->stats_fd = -1;
	l->next_gen = 1;
	l->nindexes = nindexes;
	l->indexes = calloc(nindexes ? nindexes : 1, sizeof(*l->indexes));
	if (!l->indexes)
		return gt_error(-ENOMEM, "out of memory");
	return hit_cost__measure(&l->cost);
}

int overhead_limit__prepare(struct overhead_limit *l, volatile bool *watch,
			    volatile __u32 *indexes, struct bpf_map *probe_hits,
			    struct bpf_map *probe_paid)
{
	*watch = true;
	*indexes = l->nindexes ? l->nindexes : 1;
	return percpu_mmap__size(probe_hits, l->nindexes) ?:
	       percpu_mmap__size(probe_paid, PROBE_PAID_SLOTS);
}

double overhead__hits_ns(const struct overhead_limit *l, __u64 emulated,
			 __u64 stepped, bool live)
{
	double run = live ? l->live_ns : l->early_ns;

	return emulated * (l->cost.emulated_ns + run) +
	       stepped * (l->cost.stepped_ns + run);
}

double overhead__grown_ns(const struct overhead_limit *l,
			  const struct probe_hits *now,
			  const struct probe_hits *then, bool live)
{
	return overhead__hits_ns(l, now->emulated - then->emulated,
				 now->stepped - then->stepped, live);
}

void overhead__read_paid(const struct overhead_limit *l, __u32 slot,
			 struct probe_hits *hits)
{
	percpu_mmap__sum(&l->paid, slot, (__u64 *)hits);
}

/* What the hits from THEN to NOW (probe_paid's slots) cost the target:
 * those of live probes (all less those on trial and closing) into *LIVE,
 * the others, which return early, into *EARLY. */
static void paid_between(const struct overhead_limit *l,
			 const struct probe_hits *now,
			 const struct probe_hits *then, double *live,
			 double *early)
{
	*live = overhead__grown_ns(l, &now[PROBE_PAID_ALL],
				   &then[PROBE_PAID_ALL], true) -
		overhead__grown_ns(l, &now[PROBE_PAID_TRIAL],
				   &then[PROBE_PAID_TRIAL], true) -
		overhead__grown_ns(l, &now[PROBE_PAID_DEAD],
				   &then[PROBE_PAID_DEAD], true);
	*early = overhead__grown_ns(l, &now[PROBE_PAID_TRIAL],
				    &then[PROBE_PAID_TRIAL], false) +
		 overhead__grown_ns(l, &now[PROBE_PAID_DEAD],
				    &then[PROBE_PAID_DEAD], false);
}

/* Hits of SLOT from THEN to NOW. */
static double hits_grown(const struct probe_hits *now,
			 const struct probe_hits *then, int slot)
{
	return (double)(now[slot].emulated - then[slot].emulated) +
	       (now[slot].stepped - then[slot].stepped);
}

/*
 * The kernel times the programs' runs, not which of them returned early
 * (a probe on trial is accounted, not counted; a probe of a closing link,
 * nothing more), and those are most runs while probes are tried: their
 * average run then says half what a live hit costs (gotrace's: 0.4 us
 * against 0.8). So the runs of a stretch of mostly early returns tell
 * what one of those costs, and the others what a live run costs, from
 * what is left of their run time (of half live runs or more: with fewer,
 * an error in the early ones' cost grows more than twice in what it
 * leaves), never less than their average; a stretch mixed in between
 * changes nothing.
 */
void overhead__split_runs(struct overhead_limit *l, __u64 ns, __u64 cnt,
			  const struct probe_hits *paid)
{
	double runs, all, live, early, avg;

	/* a few thousand runs make an average */
	if (cnt < l->run_cnt + RUNS_AVERAGED)
		return;
	runs = cnt - l->run_cnt;
	avg = (ns - l->run_ns) / runs;
	all = hits_grown(paid, l->run_paid, PROBE_PAID_ALL);
	early = hits_grown(paid, l->run_paid, PROBE_PAID_TRIAL) +
		hits_grown(paid, l->run_paid, PROBE_PAID_DEAD);
	live = all > early ? all - early : 0;
	if (!l->live_ns) {
		/* the first average */
		l->live_ns = l->early_ns = avg;
	} else if (live <= all / 50) {
		/* early returns, all but 2% */
		l->early_ns = avg;
	} else if (live >= all / 2) {
		/* live ones, half or more; a run a hit: the early returns'
		 * share of the runs */
		live = (ns - l->run_ns -
			l->early_ns * runs * (1 - live / all)) /
		       (runs * live / all);
		l->live_ns = live > avg ? live : avg;
		l->live_measured = true;
	}
	l->run_ns = ns;
	l->run_cnt = cnt;
	memcpy(l->run_paid, paid, sizeof(l->run_paid));
}

int overhead__read_runs(const int *fds, size_t n, __u64 *ns, __u64 *cnt)
{
	struct bpf_prog_info info;
	__u32 len;
	size_t i;

	*ns = *cnt = 0;
	for (i = 0; i < n; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fds[i], &info, &len))
			return gt_error(-errno, "cannot read a program's statistics: %s",
					strerror(errno));
		*ns += info.run_time_ns;
		*cnt += info.run_cnt;
	}
	return 0;
}

int overhead__read_run_stats(struct overhead_limit *l,
			     const struct probe_hits *paid)
{
	__u64 ns, cnt;
	int err;

	err = overhead__read_runs(l->prog_fds, l->nprogs, &ns, &cnt);
	if (!err)
		overhead__split_runs(l, ns, cnt, paid);
	return err;
}

int overhead_limit__start(struct overhead_limit *l, int hits_fd, int paid_fd,
			  __u8 *gen_state, struct bpf_program **progs,
			  size_t nprogs)
{
	size_t i;
	int fd, err;

	if (nprogs > OVERHEAD_MAX_PROGS)
		return gt_error(-E2BIG, "too many programs to watch");
	err = percpu_mmap__open(&l->hits, hits_fd, l->nindexes, HITS_WORDS) ?:
	      percpu_mmap__open(&l->paid, paid_fd, PROBE_PAID_SLOTS, HITS_WORDS);
	if (err)
		return err;
	l->gen_state = gen_state;
	for (i = 0; i < nprogs; i++)
		l->prog_fds[i] = bpf_program__fd(progs[i]);
	l->nprogs = nprogs;
	/* The kernel times every BPF program while this fd is open. */
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0)
		return gt_error(fd, "cannot time the BPF programs: %s",
				strerror(-fd));
	l->stats_fd = fd;
	clock_gettime(CLOCK_MONOTONIC, &l->last);
	l->ledger.begun = l->last;
	l->ledger.cpu_begun = process_cpu_ns();
	l->ledger.work_seen = uprobes__work_ns();
	l->rated_ns = overhead__ns(&l->last);
	for (i = 0; i < l->nindexes; i++)
		l->indexes[i].seen_ns = l->rated_ns;
	return 0;
}

int overhead__ledger_update(struct overhead_limit *l)
{
	struct overhead_ledger *g = &l->ledger;
	struct probe_hits now[PROBE_PAID_SLOTS], *seen = g->seen;
	struct timespec t;
	uint64_t work;
	long slot, second;
	double paid, live, early, fixed, dt;
	int s, err;

	for (s = 0; s < PROBE_PAID_SLOTS; s++)
		overhead__read_paid(l, s, &now[s]);
	err = overhead__read_run_stats(l, now) ?: overhead__fixed_paid(l, &fixed);
	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &t);
	work = uprobes__work_ns();
	/* the hits, and attaching and detaching */
	paid_between(l, now, seen, &live, &early);
	paid = live + early + fixed + (work - g->work_seen);
	paid += g->unread_ns;
	g->unread_ns = 0;
	g->fixed_ns += fixed;
	g->work_ns += work - g->work_seen;
	memcpy(seen, now, sizeof(now));
	g->work_seen = work;
	g->total_ns += paid;
	dt = overhead__ns(&t) - overhead__ns(&g->begun);
	slot = dt / SLOT_NS;
	for (; g->slot < slot && slot - g->slot <= OVERHEAD_SLOTS; ) {
		g->slot++;
		g->slots[g->slot % OVERHEAD_SLOTS] = 0;
		g->admit_slots[g->slot % OVERHEAD_SLOTS] = 0;
		g->fixed_slots[g->slot % OVERHEAD_SLOTS] = 0;
	}
	if (g->slot < slot) {		/* a second or more without a read */
		memset(g->slots, 0, sizeof(g->slots));
		memset(g->admit_slots, 0, sizeof(g->admit_slots));
		memset(g->fixed_slots, 0, sizeof(g->fixed_slots));
		g->slot = slot;
	}
	g->slots[slot % OVERHEAD_SLOTS] += paid;
	g->admit_slots[slot % OVERHEAD_SLOTS] += paid - live - fixed;
	g->fixed_slots[slot % OVERHEAD_SLOTS] += fixed;
	g->admit_ns += paid - live - fixed;
	/* what was paid since the last read, in the second it ends in */
	second = dt / 1e9;
	if (second > g->second) {
		if (g->second_ns > g->worst_ns)
			g->worst_ns = g->second_ns;
		g->second = second;
		g->second_ns = 0;
	}
	g->second_ns += paid;
	return 0;
}

static double slots_sum(const double *slots)
{
	double sum = 0;
	int i;

	for (i = 0; i < OVERHEAD_SLOTS; i++)
		sum += slots[i];
	return sum;
}

double overhead__last_second(const struct overhead_limit *l)
{
	return slots_sum(l->ledger.slots);
}

double overhead__last_second_admit(const struct overhead_limit *l)
{
	return slots_sum(l->ledger.admit_slots);
}

double overhead__fixed_cost(const struct overhead_limit *l)
{
	return l->fixed.detached ? 0 : slots_sum(l->ledger.fixed_slots);
}

void overhead__closing_add(struct overhead_limit *l, struct uprobes_closing *c,
			   const unsigned int *gens, size_t n)
{
	struct overhead_closing *k;
	size_t j;

	if (!c || gt_ensure_mem((void **)&l->closings, &l->closings_cap,
				sizeof(*l->closings), l->nclosings + 1)) {
		uprobes_closing__wait(c);
		for (j = 0; j < n; j++)
			overhead__gen_free(l, gens[j]);
		return;
	}
	k = &l->closings[l->nclosings++];
	k->c = c;
	k->ngens = n < UPROBES_AT_ONCE ? n : UPROBES_AT_ONCE;
	memcpy(k->gens, gens, k->ngens * sizeof(*gens));
}

void overhead__closings_reap(struct overhead_limit *l, bool wait)
{
	size_t i, j, n = 0;

	for (i = 0; i < l->nclosings; i++) {
		struct overhead_closing *k = &l->closings[i];

		if (!wait && !uprobes_closing__done(k->c)) {
			l->closings[n++] = *k;
			continue;
		}
		uprobes_closing__wait(k->c);
		for (j = 0; j < k->ngens; j++)
			overhead__gen_free(l, k->gens[j]);
	}
	l->nclosings = n;
}

static int gen_alloc(struct overhead_limit *l, enum probe_gen_state state)
{
	unsigned int i, gen;

	for (i = 1; i < COOKIE_GENS; i++) {
		gen = l->next_gen;
		l->next_gen = l->next_gen % (COOKIE_GENS - 1) + 1;
		if (!l->gen_used[gen]) {
			l->gen_used[gen] = true;
			__atomic_store_n(&l->gen_state[gen], state,
					 __ATOMIC_SEQ_CST);
			return gen;
		}
	}
	return -ENOSPC;
}

int overhead__gen_alloc(struct overhead_limit *l, enum probe_gen_state state)
{
	int gen = gen_alloc(l, state);

	/* those of links still closing are free once they are */
	if (gen == -ENOSPC && l->nclosings) {
		overhead__closings_reap(l, true);
		gen = gen_alloc(l, state);
	}
	if (gen == -ENOSPC)
		return gt_error(-ENOSPC, "more than %llu links to watch",
				COOKIE_GENS - 1);
	return gen;
}

void overhead__gen_free(struct overhead_limit *l, unsigned int gen)
{
	if (gen)
		l->gen_used[gen] = false;
}

int overhead__add_link(struct overhead_limit *l, struct uprobes *u,
		       unsigned int gen)
{
	int err;

	err = gt_ensure_mem((void **)&l->links, &l->links_cap,
			    sizeof(*l->links), l->nlinks + 1);
	if (err)
		return err;
	l->links[l->nlinks++] = (struct overhead_link){ u, gen };
	return 0;
}

/* Attach PROG at LIST now, in a link of its own generation. */
static int attach_now(struct overhead_limit *l, struct bpf_program *prog,
		      const char *path, pid_t pid,
		      const struct uprobe_list *list)
{
	struct uprobe_list gen_list = { 0 };
	struct uprobes *u = NULL;
	int gen = 0, err = 0;
	size_t i;

	if (uprobes__multi_supported()) {
		gen = overhead__gen_alloc(l, PROBE_GEN_LIVE);
		if (gen < 0)
			return gen;
	}
	for (i = 0; i < list->n && !err; i++)
		err = uprobe_list__add(&gen_list, list->offsets[i],
				       COOKIE_WITH_GEN(list->cookies[i], gen));
	if (!err)
		err = uprobes__attach(prog, path, pid, &gen_list, &u);
	if (!err)
		err = overhead__add_link(l, u, gen);
	if (err) {
		uprobes__detach(u);
		overhead__gen_free(l, gen);
	}
	for (i = 0; i < list->n && !err; i++)
		if (COOKIE_INDEX(list->cookies[i]) < l->nindexes)
			l->indexes[COOKIE_INDEX(list->cookies[i])].attached = true;
	uprobe_list__free(&gen_list);
	return err;
}

/* Keep PROG at LIST for overhead_limit__admit(); RETURNS: where calls
 * end. */
static int add_request(struct overhead_limit *l, struct bpf_program *prog,
		       const char *path, pid_t pid,
		       const struct uprobe_list *list, bool returns)
{
	struct overhead_request *r;
	size_t i;
	int err;

	err = gt_ensure_mem((void **)&l->reqs, &l->reqs_cap, sizeof(*l->reqs),
			    l->nreqs + 1);
	if (err)
		return err;
	r = &l->reqs[l->nreqs];
	memset(r, 0, sizeof(*r));
	r->prog = prog;
	r->pid = pid;
	r->returns = returns;
	r->path = strdup(path);
	if (!r->path)
		return gt_error(-ENOMEM, "out of memory");
	l->nreqs++;
	for (i = 0; i < list->n && !err; i++)
		err = uprobe_list__add(&r->list, list->offsets[i],
				       list->cookies[i]);
	l->pending = true;
	return err;
}

static int attach(struct overhead_limit *l, struct bpf_program *prog,
		  const char *path, pid_t pid, const struct uprobe_list *list,
		  bool returns)
{
	if (!list->n)
		return 0;
	if (l->nindexes > OVERHEAD_TRY_OVER && uprobes__multi_supported())
		return add_request(l, prog, path, pid, list, returns);
	return attach_now(l, prog, path, pid, list);
}

int overhead_limit__attach(struct overhead_limit *l, struct bpf_program *prog,
			   const char *path, pid_t pid,
			   const struct uprobe_list *list)
{
	return attach(l, prog, path, pid, list, false);
}

int overhead_limit__attach_calls(struct overhead_limit *l,
				 const struct call_probes *cp,
				 struct bpf_program *entry,
				 struct bpf_program *exit, const char *path,
				 pid_t pid)
{
	return attach(l, exit, path, pid, &cp->exits, true) ?:
	       attach(l, entry, path, pid, &cp->entries, false);
}

bool overhead_limit__pending(const struct overhead_limit *l)
{
	return l && l->pending;
}

void overhead__read_range(const struct overhead_limit *l, __u32 lo, size_t n,
			  struct probe_hits *hits)
{
	size_t i;

	for (i = 0; i < n; i++)
		percpu_mmap__sum(&l->hits, lo + i, (__u64 *)&hits[i]);
}

void overhead__read_hits(struct overhead_limit *l, struct overhead_delta *delta)
{
	struct overhead_index *x;
	struct probe_hits now;
	double t = overhead__now_ns();
	size_t i;

	for (i = 0; i < l->nindexes; i++) {
		x = &l->indexes[i];
		percpu_mmap__sum(&l->hits, i, (__u64 *)&now);
		if (delta) {
			delta[i].hits.calls = now.calls - x->seen.calls;
			delta[i].hits.emulated = now.emulated - x->seen.emulated;
			delta[i].hits.stepped = now.stepped - x->seen.stepped;
			delta[i].secs = (t - x->seen_ns) / 1e9;
		}
		x->seen = now;
		x->seen_ns = t;
	}
}

static bool keep_probe(void *ctx, uint64_t cookie)
{
	const struct overhead_limit *l = ctx;
	__u32 i = COOKIE_INDEX(cookie);

	return i >= l->nindexes || !l->indexes[i].detached;
}

/* What the costliest index detached now of those U holds cost, in ns per
 * second; -1 when U holds none. */
static double detached_cost(const struct overhead_limit *l,
			    const struct uprobes *u)
{
	const struct uprobe_list *list = uprobes__list(u);
	double cost = -1;
	size_t i;

	for (i = 0; i < list->n; i++) {
		__u32 x = COOKIE_INDEX(list->cookies[i]);

		if (!keep_probe((void *)l, list->cookies[i]) &&
		    l->indexes[x].cost_rate > cost)
			cost = l->indexes[x].cost_rate;
	}
	return cost;
}

#define DEAD_QUIET_NS	1e6
#define DEAD_WAIT_NS	30e6

void overhead__dead_wait_quiet(const struct overhead_limit *l)
{
	double since = overhead__now_ns(), quiet = since;
	struct timespec poll = { 0, 500000 };
	struct probe_hits last, now;

	overhead__read_paid(l, PROBE_PAID_DEAD, &last);
	while (overhead__now_ns() - since < DEAD_WAIT_NS) {
		nanosleep(&poll, NULL);
		overhead__read_paid(l, PROBE_PAID_DEAD, &now);
		if (now.emulated != last.emulated || now.stepped != last.stepped)
			quiet = overhead__now_ns();
		else if (overhead__now_ns() - quiet >= DEAD_QUIET_NS)
			break;
		last = now;
	}
}

/* Begin to replace link K by one without the detached indexes' probes,
 * in a generation of its own (*GEN) that counts from now on. */
static int replace_begin(struct overhead_limit *l, struct overhead_link *k,
			 int *gen)
{
	int err;

	*gen = 0;
	if (uprobes__multi_supported()) {
		*gen = overhead__gen_alloc(l, PROBE_GEN_DEAD);
		if (*gen < 0)
			return *gen;
	}
	err = uprobes__replace_begin(k->u, keep_probe, l, *gen);
	if (err) {
		overhead__gen_free(l, *gen);
		return err;
	}
	/* from now on the new link counts, the old one not */
	if (*gen) {
		__atomic_store_n(&l->gen_state[*gen], PROBE_GEN_LIVE,
				 __ATOMIC_SEQ_CST);
		__atomic_store_n(&l->gen_state[k->gen], PROBE_GEN_DEAD,
				 __ATOMIC_SEQ_CST);
	}
	return 0;
}

/* End the replacement of the N links WHICH[j], now of generations
 * GENS[j]: the old links closed in the background, their generations free
 * once they are. */
static void replace_end(struct overhead_limit *l, const size_t *which,
			const int *gens, size_t n)
{
	struct uprobes *us[UPROBES_AT_ONCE];
	struct uprobes_closing *c;
	unsigned int old[UPROBES_AT_ONCE];
	size_t j;

	for (j = 0; j < n; j++)
		us[j] = l->links[which[j]].u;
	uprobes__replace_end_later(us, n, &c);
	for (j = 0; j < n; j++) {
		struct overhead_link *k = &l->links[which[j]];

		old[j] = gens[j] ? k->gen : 0;
		if (gens[j])
			k->gen = gens[j];
	}
	overhead__closing_add(l, c, old, n);
}

/* A link to replace: its place in the limit's links, and what its
 * costliest detached index costs. */
struct doomed {
	size_t i;
	double cost;
};

/* Costliest first; of links that cost the same, the last attached first
 * (replace_links()). */
static int cmp_doomed(const void *a, const void *b)
{
	const struct doomed *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->i > y->i ? -1 : x->i < y->i;
}

/*
 * Replace the links that hold a detached index: each switched in turn,
 * those of the costliest detached index first (their probes trap until
 * their old link is closed, and the closes queue on the target's memory
 * map a probe at a time: in the order they were attached, a burst of the
 * collector's functions costing a CPU went on for 60 ms behind links of
 * functions twenty times cheaper), and the old links closed in the
 * background: those of indexes that cost an OVERHEAD_HOT_SHARE of the
 * budget one at a time, each once the probes of the one before no longer
 * trap, the others UPROBES_AT_ONCE at a time after them (their closes
 * wait for grace periods: waited for, the next check would come tens of
 * ms later). The old generations are free once their links are closed.
 * A group's exits are in a link of their own, attached before its
 * entries', and cost what its entries do or less (not every function's
 * end is probed): its entries are replaced first, and every call seen to
 * begin is seen to end.
 */
static int replace_links(struct overhead_limit *l)
{
	double hot = overhead__budget(l) / OVERHEAD_HOT_SHARE;
	size_t i, n = 0, m = 0, which[UPROBES_AT_ONCE];
	int gens[UPROBES_AT_ONCE], err = 0;
	struct doomed *order;

	order = malloc((l->nlinks ? l->nlinks : 1) * sizeof(*order));
	if (!order)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < l->nlinks; i++) {
		order[n] = (struct doomed){ i, detached_cost(l, l->links[i].u) };
		if (order[n].cost >= 0)
			n++;
	}
	qsort(order, n, sizeof(*order), cmp_doomed);
	for (i = 0; i < n && !err; i++) {
		bool one_by_one = order[i].cost >= hot;

		err = replace_begin(l, &l->links[order[i].i], &gens[m]);
		if (!err)
			which[m++] = order[i].i;
		if (m == UPROBES_AT_ONCE || (m && one_by_one)) {
			replace_end(l, which, gens, m);
			m = 0;
			if (one_by_one && !err)
				overhead__dead_wait_quiet(l);
		}
	}
	replace_end(l, which, gens, m);
	free(order);
	return err;
}

static int cmp_cost_rate(const void *a, const void *b)
{
	const struct overhead_index *x = *(const struct overhead_index *const *)a;
	const struct overhead_index *y = *(const struct overhead_index *const *)b;

	if (x->cost_rate != y->cost_rate)
		return x->cost_rate > y->cost_rate ? -1 : 1;
	return 0;
}

/* Detach the most costly indexes until the others cost less than TARGET
 * ns per second, out of TOTAL. Returns how many. */
static int choose(struct overhead_limit *l, double total, double target)
{
	struct overhead_index **order;
	size_t i, n = 0;
	int ndetached = 0;

	order = malloc(l->nindexes * sizeof(*order));
	if (!order)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < l->nindexes; i++)
		if (l->indexes[i].attached && !l->indexes[i].detached &&
		    l->indexes[i].cost_rate > 0)
			order[n++] = &l->indexes[i];
	qsort(order, n, sizeof(*order), cmp_cost_rate);
	l->rounds++;
	for (i = 0; i < n && total > target; i++) {
		order[i]->detached = true;
		order[i]->round = l->rounds;
		total -= order[i]->cost_rate;
		ndetached++;
	}
	free(order);
	return ndetached;
}

int overhead__evict(struct overhead_limit *l, double total, double target)
{
	size_t i;
	int err, n;

	n = choose(l, total, target);
	if (n <= 0)
		return n;
	err = replace_links(l);
	if (err)
		return err;
	/* what the detached ones counted, now that nothing adds to it */
	overhead__read_hits(l, NULL);
	for (i = 0; i < l->nindexes; i++)
		if (l->indexes[i].detached && l->indexes[i].round == l->rounds)
			l->indexes[i].detached_calls = l->indexes[i].seen.calls -
						       l->indexes[i].trial_calls;
	l->ndetached += n;
	return n;
}

double overhead__kept_cost(const struct overhead_limit *l)
{
	double kept = 0;
	size_t i;

	for (i = 0; i < l->nindexes; i++)
		if (l->indexes[i].attached && !l->indexes[i].detached)
			kept += l->indexes[i].cost_rate;
	return kept;
}

/* What the live probes cost since the last check, in ns: all paid but
 * for the probes on trial and those being closed, from probe_paid as the
 * ledger read it last. */
static double live_paid(struct overhead_limit *l)
{
	struct probe_hits *checked = l->ledger.checked;
	double live, early;

	paid_between(l, l->ledger.seen, checked, &live, &early);
	memcpy(checked, l->ledger.seen, sizeof(l->ledger.checked));
	return live;
}

int overhead_limit__check(struct overhead_limit *l)
{
	struct overhead_delta *delta;
	struct timespec now;
	double dt, live, fixed, admit, rate, total, since;
	double budget = overhead__budget(l);
	bool over, fixed_over;
	size_t i;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = overhead__ns(&now) - overhead__ns(&l->last);
	if (dt < CHECK_EVERY_NS || !l->nindexes)
		return 0;
	overhead__closings_reap(l, false);
	err = overhead__ledger_update(l);
	if (err)
		return err;
	live = live_paid(l);
	l->last = now;
	/* over: the live probes now, and the fixed ones in the last second
	 * (they leave the others the rest; detached when they alone cost
	 * more than the budget), and the second they end has paid half the
	 * budget or they cost BURST times it (a function quiet on trial that
	 * turns hot at half a CPU would take the whole budget in 100 ms,
	 * before the second is over). What admission paid in the last
	 * second (trials, closing, attaching, sampling) leaves them that
	 * much less: a trial keeps what its rate says costs half the budget,
	 * which is more once live (a phase of requests it did not see, a
	 * target no longer slowed by the trial), and live probes let cost
	 * up to the whole budget beside admission's half cost half as much
	 * again (so the costliest seconds did). Rated then at most every
	 * RATE_ADMIT_NS: a rating reads every index's hits. */
	rate = live / (dt / 1e9);
	fixed_over = overhead__fixed_over(l, dt, budget);
	if (fixed_over && rate <= budget)
		return 0;
	/* fixed probes over the budget alone leave the functions out of it
	 * (they are detached soon), not out of the check: functions that
	 * turned hot as the load came cost a CPU for the 100 ms the fixed
	 * took to be detached, unchecked */
	fixed = fixed_over ? 0 : overhead__fixed_cost(l);
	admit = overhead__last_second_admit(l);
	rate += fixed;
	since = overhead__ns(&now) - l->rated_ns;
	over = rate > budget ||
	       (rate + admit > budget && since >= RATE_ADMIT_NS);
	if ((!over || (overhead__last_second(l) <= budget / 2 &&
		       rate <= BURST * budget)) &&
	    since < RATE_EVERY_NS)
		return 0;
	l->rated_ns = overhead__ns(&now);
	delta = calloc(l->nindexes, sizeof(*delta));
	if (!delta)
		return gt_error(-ENOMEM, "out of memory");
	overhead__read_hits(l, delta);
	for (i = 0; i < l->nindexes; i++) {
		struct overhead_index *x = &l->indexes[i];

		if (!x->attached || x->detached || delta[i].secs <= 0)
			continue;
		x->cost_rate = overhead__hits_ns(l, delta[i].hits.emulated,
						 delta[i].hits.stepped, true) /
			       delta[i].secs;
		x->detached_rate = delta[i].hits.calls / delta[i].secs;
	}
	total = overhead__kept_cost(l) + fixed;
	if (total + admit > budget)
		err = overhead__evict(l, total, budget / 2);
	free(delta);
	return err;
}

const struct overhead_index *overhead_limit__detached(
	const struct overhead_limit *l, size_t i)
{
	if (!l || i >= l->nindexes || !l->indexes[i].detached)
		return NULL;
	return &l->indexes[i];
}

char *overhead_index__str(const struct overhead_index *i, char *buf,
			  size_t size)
{
	double r = i->detached_rate;

	if (i->refused && i->no_room) {
		snprintf(buf, size, "not attached: no room left in the budget");
		return buf;
	}
	if (i->refused) {
		if (r >= 1e6)
			snprintf(buf, size, "not attached: %.1fM calls/s on trial",
				 r / 1e6);
		else if (r >= 1e3)
			snprintf(buf, size, "not attached: %.1fk calls/s on trial",
				 r / 1e3);
		else
			snprintf(buf, size, "not attached: %.0f calls/s on trial", r);
		return buf;
	}
	if (r >= 1e6)
		snprintf(buf, size, "detached after %llu calls at %.1fM calls/s",
			 (unsigned long long)i->detached_calls, r / 1e6);
	else if (r >= 1e3)
		snprintf(buf, size, "detached after %llu calls at %.1fk calls/s",
			 (unsigned long long)i->detached_calls, r / 1e3);
	else
		snprintf(buf, size, "detached after %llu calls at %.0f calls/s",
			 (unsigned long long)i->detached_calls, r);
	return buf;
}

/* The indexes detached in the rounds not said yet, those refused on
 * trial or the others (REFUSED): with VERBOSE, a line for each on F; the
 * most costly into *TOP. Returns how many. */
static int unsaid(const struct overhead_limit *l, bool refused, FILE *f,
		  const char *tool, bool verbose, overhead_name_fn name_of,
		  void *ctx, size_t *top)
{
	const struct overhead_index *x;
	char buf[128];
	size_t i;
	int n = 0;

	for (i = 0; i < l->nindexes; i++) {
		x = &l->indexes[i];
		/* round 0: refused by an admission not over yet */
		if (!x->detached || x->refused != refused ||
		    x->round <= l->said)
			continue;
		if (verbose)
			fprintf(f, "%s: %s %s\n", tool, name_of(ctx, i),
				overhead_index__str(x, buf, sizeof(buf)));
		if (!n++ || x->cost_rate > l->indexes[*top].cost_rate)
			*top = i;
	}
	return n;
}

void overhead_limit__print(struct overhead_limit *l, FILE *f,
			   const char *tool, bool verbose,
			   overhead_name_fn name_of, void *ctx)
{
	size_t top = 0;
	char buf[128];
	int n;

	overhead__print_fixed(l, f, tool);
	if (l->said == l->rounds)
		return;
	n = unsaid(l, false, f, tool, verbose, name_of, ctx, &top);
	if (n && !verbose)
		fprintf(f, "%s: over --max-overhead %g%%: %d probed function%s "
			"detached, the most costly %s %s%s\n", tool, l->pct, n,
			n == 1 ? "" : "s", name_of(ctx, top),
			overhead_index__str(&l->indexes[top], buf, sizeof(buf)),
			n > 1 ? " (-v lists them)" : "");
	n = unsaid(l, true, f, tool, verbose, name_of, ctx, &top);
	if (n && !verbose)
		fprintf(f, "%s: over --max-overhead %g%%: %d of %zu probed "
			"functions not attached, the most costly %s (%s)%s\n",
			tool, l->pct, n, l->nindexes, name_of(ctx, top),
			overhead_index__str(&l->indexes[top], buf, sizeof(buf)),
			n > 1 ? " (-v lists them)" : "");
	l->said = l->rounds;
	fflush(f);
}

void overhead_limit__print_cost(struct overhead_limit *l, FILE *f,
				const char *tool)
{
	const struct overhead_ledger *g = &l->ledger;
	struct timespec now;
	double secs, worst;

	if (!l->nprogs || overhead__ledger_update(l))
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = (overhead__ns(&now) - overhead__ns(&g->begun)) / 1e9;
	/* what the second going on has cost so far, it cost in a second */
	worst = g->worst_ns;
	if (g->second_ns > worst)
		worst = g->second_ns;
	fprintf(f, "%s: the probes cost the target %.2f%% of a CPU on average "
		"(%.2f%% attaching and detaching them",
		tool, secs > 0 ? g->total_ns / secs / 1e7 : 0.0,
		secs > 0 ? g->work_ns / secs / 1e7 : 0.0);
	if (g->sampled_ns)
		fprintf(f, ", %.2f%% sampling where it runs",
			secs > 0 ? g->sampled_ns / secs / 1e7 : 0.0);
	if (l->fixed.nprogs)
		fprintf(f, ", %.2f%% %s",
			secs > 0 ? g->fixed_ns / secs / 1e7 : 0.0,
			l->fixed.label);
	fprintf(f, "), %.2f%% in the costliest second; %zu function%s not "
		"attached, %zu detached", worst / 1e7, l->nrefused,
		l->nrefused == 1 ? "" : "s", l->ndetached);
	if (l->nuntried)
		fprintf(f, ", %zu not tried (the trace ended first)",
			l->nuntried);
	fputc('\n', f);
	/* the rest of the tool's CPU: what attaching and detaching took is
	 * the target's, counted above */
	fprintf(f, "%s: its own CPU, reading the probes' events and counts "
		"and checking their cost, %.2f%% of a CPU on average (not "
		"counted above: the target pays it only where they share "
		"CPUs)\n", tool,
		secs > 0 ? (process_cpu_ns() - g->cpu_begun - g->work_ns) /
			   secs / 1e7 : 0.0);
	fflush(f);
}

void overhead_limit__detach(struct overhead_limit *l)
{
	while (l->nlinks) {
		struct overhead_link *k = &l->links[--l->nlinks];

		uprobes__detach(k->u);
		overhead__gen_free(l, k->gen);
	}
	overhead__closings_reap(l, true);
}

void overhead_limit__free(struct overhead_limit *l)
{
	size_t i;

	overhead_limit__detach(l);
	/* a limit never started (or never set up, all zeros) holds no fd */
	if (l->nprogs && l->stats_fd >= 0)
		close(l->stats_fd);
	for (i = 0; i < l->nreqs; i++) {
		free(l->reqs[i].path);
		uprobe_list__free(&l->reqs[i].list);
	}
	free(l->reqs);
	free(l->links);
	free(l->closings);
	free(l->indexes);
	free(l->order);
	free(l->position);
	percpu_mmap__close(&l->hits);
	percpu_mmap__close(&l->paid);
	memset(l, 0, sizeof(*l));
	l->stats_fd = -1;
}
