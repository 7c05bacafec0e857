// SPDX-License-Identifier: MIT
/*
 * --max-overhead's admission: the probes tried in batches, and only those
 * the budget can pay for attached (overhead_limit.h says how).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/error.h"
#include "cli/overhead_internal.h"
#include "cli/percpu_map.h"

#define TRIAL_NS	10000000.0	/* a batch's trial, at most */
#define POLL_NS		1000000L	/* what it cost, read every ms */
#define WAIT_NS		10000000L	/* for room in the budget */
#define BATCH_FIRST	64		/* probes */
#define BATCH_MIN	16
#define BATCH_MAX	512
#define HITS_WORDS	(sizeof(struct probe_hits) / sizeof(__u64))

static void sleep_ns(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return overhead__ns(&t);
}

static int cmp_cookie_index(const void *a, const void *b)
{
	__u32 x = COOKIE_INDEX(*(const uint64_t *)a);
	__u32 y = COOKIE_INDEX(*(const uint64_t *)b);

	return x < y ? -1 : x > y;
}

/* Sort R's probes by index, so that a batch of indexes is a run of them:
 * offsets and cookies sorted as pairs through one array. */
static int request__sort(struct overhead_request *r)
{
	uint64_t (*pairs)[2];
	size_t i;

	pairs = malloc((r->list.n ? r->list.n : 1) * sizeof(*pairs));
	if (!pairs)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < r->list.n; i++) {
		pairs[i][0] = r->list.cookies[i];
		pairs[i][1] = r->list.offsets[i];
	}
	qsort(pairs, r->list.n, sizeof(*pairs), cmp_cookie_index);
	for (i = 0; i < r->list.n; i++) {
		r->list.cookies[i] = pairs[i][0];
		r->list.offsets[i] = pairs[i][1];
	}
	free(pairs);
	return 0;
}

/* Where in each request the batch starts: the first probe of index LO. */
struct batch {
	__u32 lo, hi;			/* indexes [lo, hi) */
	size_t *from, *to;		/* per request, its probes' run */
	size_t nprobes;
};

/* The batch from index B->lo on, of about SIZE probes (at least one
 * index: an index of more probes is a batch of its own). */
static void batch__grow(struct overhead_limit *l, struct batch *b,
			size_t size)
{
	size_t k, n;

	b->nprobes = 0;
	for (k = 0; k < l->nreqs; k++)
		b->to[k] = b->from[k];
	for (b->hi = b->lo; b->hi < l->nindexes; b->hi++) {
		for (k = 0, n = 0; k < l->nreqs; k++) {
			const struct uprobe_list *list = &l->reqs[k].list;
			size_t j = b->to[k];

			while (j < list->n &&
			       COOKIE_INDEX(list->cookies[j]) == b->hi)
				j++;
			n += j - b->to[k];
		}
		if (b->hi > b->lo && b->nprobes + n > size)
			break;
		for (k = 0; k < l->nreqs; k++) {
			const struct uprobe_list *list = &l->reqs[k].list;

			while (b->to[k] < list->n &&
			       COOKIE_INDEX(list->cookies[b->to[k]]) == b->hi)
				b->to[k]++;
		}
		b->nprobes += n;
	}
}

/* The probes of request K in B whose index KEEP holds (NULL: all), with
 * generation GEN, into OUT. */
static int batch__list(const struct overhead_limit *l, const struct batch *b,
		       size_t k, const bool *keep, unsigned int gen,
		       struct uprobe_list *out)
{
	const struct uprobe_list *list = &l->reqs[k].list;
	size_t j;
	int err = 0;

	for (j = b->from[k]; j < b->to[k] && !err; j++) {
		__u32 i = COOKIE_INDEX(list->cookies[j]);

		if (!keep || keep[i - b->lo])
			err = uprobe_list__add(out, list->offsets[j],
					       COOKIE_WITH_GEN(list->cookies[j],
							       gen));
	}
	return err;
}

/* Attach the probes of B that KEEP holds (NULL: all) in links of GEN, one
 * per request in the order of the requests, into LINKS. */
static int batch__attach(struct overhead_limit *l, const struct batch *b,
			 const bool *keep, unsigned int gen,
			 struct uprobes **links)
{
	struct uprobe_list list = { 0 };
	size_t k;
	int err = 0;

	for (k = 0; k < l->nreqs && !err; k++) {
		const struct overhead_request *r = &l->reqs[k];

		list.n = 0;
		err = batch__list(l, b, k, keep, gen, &list);
		if (!err && list.n)
			err = uprobes__attach(r->prog, r->path, r->pid, &list,
					      &links[k]);
	}
	uprobe_list__free(&list);
	return err;
}

/* Detach LINKS, the last first. */
static void links__detach(struct uprobes **links, size_t n)
{
	while (n--) {
		uprobes__detach(links[n]);
		links[n] = NULL;
	}
}

/* What the probes on trial cost so far, in ns. */
static int trial_paid(struct overhead_limit *l, const struct probe_hits *from,
		      double *ns)
{
	struct probe_hits now;
	int err;

	err = percpu_map__sum(l->paid_fd, PROBE_PAID_TRIAL, (__u64 *)&now,
			      HITS_WORDS);
	if (err)
		return err;
	*ns = overhead__hits_ns(l, now.emulated - from->emulated,
				now.stepped - from->stepped);
	return 0;
}

/*
 * Wait until the last second leaves room for a trial: at least a
 * twentieth of the budget. Room comes back as trials age out of the
 * ledger's second; when it does not (what was kept costs more than its
 * trial said), the check detaches the most costly, and after a second of
 * waiting, down to half the budget. Into *CAP, what the trial may cost:
 * half the room, at most a quarter of the budget.
 */
static int wait_for_room(struct overhead_limit *l, double *cap,
			 overhead_stop_fn stop, void *ctx)
{
	double budget = overhead__budget(l), since = now_ns(), room;
	int err;

	for (;;) {
		err = overhead_limit__check(l);
		if (err < 0)
			return err;
		err = overhead__ledger_update(l);
		if (err)
			return err;
		room = budget - overhead__last_second(l);
		*cap = room / 2 < budget / 4 ? room / 2 : budget / 4;
		if (room >= budget / 20 || stop(ctx))
			return 0;
		if (now_ns() - since > 1e9) {
			err = overhead__evict(l, overhead__last_second(l),
					      budget / 2);
			if (err < 0)
				return err;
			since = now_ns();
		}
		sleep_ns(WAIT_NS);
	}
}

struct trial {
	int gen;			/* of its links, on trial */
	double exposure_ns;		/* how long the probes were on trial */
	double paid_ns;			/* what they cost */
	double *rate;			/* per index of the batch, ns per s */
	double *calls;			/* calls per s */
	bool *keep;
	struct probe_hits *before;	/* hits before, then after, the trial */
};

/* Try B's probes, attached on trial in LINKS; their rates into T. The
 * check's baseline (each index's seen) is left as it is. */
static int batch__try(struct overhead_limit *l, const struct batch *b,
		      double cap, struct uprobes **links, struct trial *t)
{
	struct probe_hits from, before, after;
	double t0, t1, t2, secs;
	int err;
	__u32 i;

	t->paid_ns = 0;
	err = percpu_map__sum(l->paid_fd, PROBE_PAID_TRIAL, (__u64 *)&from,
			      HITS_WORDS);
	if (!err)
		err = overhead__read_sums(l);
	if (err)
		return err;
	for (i = b->lo; i < b->hi; i++)
		t->before[i - b->lo] = overhead__sum(l, i);
	t->gen = overhead__gen_alloc(l, PROBE_GEN_TRIAL);
	if (t->gen < 0)
		return t->gen;
	t0 = now_ns();
	err = batch__attach(l, b, NULL, t->gen, links);
	t1 = t2 = now_ns();
	while (!err) {
		err = trial_paid(l, &from, &t->paid_ns);
		t2 = now_ns();
		if (err || t->paid_ns >= cap || t2 - t1 >= TRIAL_NS)
			break;
		sleep_ns(POLL_NS);
	}
	if (!err)
		err = overhead__read_sums(l);
	if (!err)
		err = overhead__ledger_update(l);
	/* half the attach: its probes went in one after the other */
	t->exposure_ns = (t1 - t0) / 2 + (t2 - t1);
	secs = t->exposure_ns / 1e9;
	for (i = b->lo; i < b->hi && !err; i++) {
		before = t->before[i - b->lo];
		after = overhead__sum(l, i);
		t->rate[i - b->lo] = overhead__hits_ns(l,
				after.emulated - before.emulated,
				after.stepped - before.stepped) / secs;
		t->calls[i - b->lo] = (after.calls - before.calls) / secs;
		t->before[i - b->lo] = after;
	}
	return err;
}

/* Detach the links of a trial (of T's generation). */
static void trial__end(struct overhead_limit *l, struct trial *t,
		       struct uprobes **links)
{
	if (t->gen <= 0)
		return;
	__atomic_store_n(&l->gen_state[t->gen], PROBE_GEN_DEAD,
			 __ATOMIC_SEQ_CST);
	links__detach(links, l->nreqs);
	overhead__gen_free(l, t->gen);
	t->gen = 0;
}

/* An index of a batch and its rate, to sort by the rate. */
struct rated {
	double rate;
	__u32 i;
};

static int cmp_rated(const void *a, const void *b)
{
	double x = ((const struct rated *)a)->rate;
	double y = ((const struct rated *)b)->rate;

	return x < y ? -1 : x > y;
}

/*
 * Keep the cheapest of B as long as all kept cost at most half the budget
 * (each at most an eighth). A target slowed by the trial makes fewer
 * calls: rates are scaled up by the share of the CPUs the probes took.
 * Returns how many are kept, or -ENOMEM.
 */
static int batch__choose(struct overhead_limit *l, const struct batch *b,
			 struct trial *t)
{
	double budget = overhead__budget(l), kept = 0, share, scale;
	size_t n = b->hi - b->lo, i;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rated *order;
	int nkept = 0;

	order = malloc(n * sizeof(*order));
	if (!order)
		return gt_error(-ENOMEM, "out of memory");
	share = t->paid_ns / (t->exposure_ns * (ncpus > 0 ? ncpus : 1));
	scale = 1 / (1 - (share < 0.9 ? share : 0.9));
	for (i = 0; i < l->nindexes; i++) {
		const struct overhead_index *x = &l->indexes[i];

		if (x->attached && !x->detached)
			kept += x->cost_rate;
	}
	for (i = 0; i < n; i++) {
		t->rate[i] *= scale;
		order[i] = (struct rated){ t->rate[i], i };
	}
	qsort(order, n, sizeof(*order), cmp_rated);
	for (i = 0; i < n; i++) {
		double r = order[i].rate;

		t->keep[order[i].i] = r <= budget / 8 && kept + r <= budget / 2;
		if (t->keep[order[i].i]) {
			kept += r;
			nkept++;
		}
	}
	free(order);
	return nkept;
}

/* The limit's from now on: LINKS, of generation GEN. */
static int links__keep(struct overhead_limit *l, struct uprobes **links,
		       unsigned int gen)
{
	size_t k;
	int err = 0;

	for (k = 0; k < l->nreqs && !err; k++) {
		if (links[k])
			err = overhead__add_link(l, links[k], gen);
		if (!err)
			links[k] = NULL;
	}
	return err;
}

/*
 * Attach what T keeps of B for good, and mark the others refused: when T
 * keeps all, its links are made live; else the kept probes are attached
 * anew, live, before the links on trial go.
 */
static int batch__admit(struct overhead_limit *l, const struct batch *b,
			struct trial *t, int nkept, struct uprobes **links)
{
	struct uprobes **kept_links = links + l->nreqs;
	struct overhead_index *x;
	int gen = 0, err = 0;
	__u32 i;

	if (nkept == (int)(b->hi - b->lo)) {
		__atomic_store_n(&l->gen_state[t->gen], PROBE_GEN_LIVE,
				 __ATOMIC_SEQ_CST);
		err = links__keep(l, links, t->gen);
		t->gen = 0;
	} else if (nkept) {
		gen = overhead__gen_alloc(l, PROBE_GEN_LIVE);
		if (gen < 0)
			return gen;
		err = batch__attach(l, b, t->keep, gen, kept_links);
		if (!err)
			err = links__keep(l, kept_links, gen);
		if (err) {
			links__detach(kept_links, l->nreqs);
			overhead__gen_free(l, gen);
		}
	}
	trial__end(l, t, links);
	if (err)
		return err;
	for (i = b->lo; i < b->hi; i++) {
		x = &l->indexes[i];
		x->cost_rate = t->rate[i - b->lo];
		x->detached_rate = t->calls[i - b->lo];
		if (t->keep[i - b->lo]) {
			/* the check's baseline: from the end of the trial */
			x->attached = true;
			x->seen = t->before[i - b->lo];
			x->trial_calls = x->seen.calls;
		} else {
			x->detached = x->refused = true;
			x->round = 0;	/* the round of the admission */
			l->nrefused++;
		}
	}
	return 0;
}

int overhead_limit__admit(struct overhead_limit *l, overhead_stop_fn stop,
			  void *ctx)
{
	double budget = overhead__budget(l), cap = budget / 4;
	double full = budget / 4;	/* a trial's cap when there is room */
	struct uprobes **links = NULL;	/* on trial, and kept */
	struct trial t = { 0 };
	struct batch b = { 0 };
	size_t i, k, size = BATCH_FIRST, nrefused = l->nrefused;
	int err = 0, nkept;

	if (!l->pending)
		return 0;
	l->pending = false;
	for (k = 0; k < l->nreqs && !err; k++)
		err = request__sort(&l->reqs[k]);
	if (err)
		return err;
	links = calloc(2 * l->nreqs, sizeof(*links));
	b.from = calloc(l->nreqs, sizeof(*b.from));
	b.to = calloc(l->nreqs, sizeof(*b.to));
	t.rate = calloc(l->nindexes, sizeof(*t.rate));
	t.calls = calloc(l->nindexes, sizeof(*t.calls));
	t.keep = calloc(l->nindexes, sizeof(*t.keep));
	t.before = calloc(l->nindexes, sizeof(*t.before));
	if (!links || !b.from || !b.to || !t.rate || !t.calls || !t.keep ||
	    !t.before)
		err = gt_error(-ENOMEM, "out of memory");
	for (b.lo = 0; b.lo < l->nindexes && !err && !stop(ctx); b.lo = b.hi) {
		batch__grow(l, &b, size);
		if (!b.nprobes)
			continue;
		err = wait_for_room(l, &cap, stop, ctx);
		if (!err)
			err = batch__try(l, &b, cap, links, &t);
		nkept = err ? err : batch__choose(l, &b, &t);
		if (nkept >= 0)
			err = batch__admit(l, &b, &t, nkept, links);
		else
			err = nkept;
		trial__end(l, &t, links);
		/* aim at trials of half the full cap, growing at most twice */
		if (t.paid_ns >= full)
			size = size / 4 > BATCH_MIN ? size / 4 : BATCH_MIN;
		else if (t.paid_ns < full / 4)
			size = size * 2 < BATCH_MAX ? size * 2 : BATCH_MAX;
		for (k = 0; k < l->nreqs; k++)
			b.from[k] = b.to[k];
	}
	/* the refused are said as a round of their own */
	if (l->nrefused > nrefused) {
		l->rounds++;
		for (i = 0; i < l->nindexes; i++)
			if (l->indexes[i].refused && !l->indexes[i].round)
				l->indexes[i].round = l->rounds;
	}
	free(links);
	free(b.from);
	free(b.to);
	free(t.rate);
	free(t.calls);
	free(t.keep);
	free(t.before);
	return err ? err : (int)(l->nrefused - nrefused);
}
