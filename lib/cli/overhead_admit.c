// SPDX-License-Identifier: MIT
/*
 * --max-overhead's admission: the probes tried in batches, and only those
 * the budget can pay for attached (overhead_limit.h says how); the order
 * and the groups it tries them in are overhead_group.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "core/error.h"
#include "cli/overhead_group.h"

#define TRIAL_NS	100000000.0	/* a batch's trial, at most */
#define POLL_NS		1000000L	/* what it cost, read every ms */
#define WAIT_NS		10000000L	/* for room in the budget */
#define FULL_NS		1e9		/* the kept at half of it, untried after */
#define LIVE_WAIT_NS	3e8		/* for a live run's cost, at most */
/* What all kept may cost before a live run's cost is measured: a share
 * of the budget (a live run of gotrace's costs three to ten times a run
 * on trial, which returns early, and no trial tells how much more). */
#define UNMEASURED_SHARE 8
/* What the groups left on trial may cost once the trial has cost its
 * cap: a share of the cap more (batch__shed()). */
#define SHED_SHARE	4
/* Trials of a batch with the target idle before its rates are taken as
 * they are (scaled up to its busiest rate: batch__choose()). */
#define LOAD_RETRIES	3
#define BATCH_FIRST	64		/* probes */
#define BATCH_MIN	16
#define BATCH_MAX	512

static void sleep_ns(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

/*
 * Between two steps of a trial or of keeping or closing what it tried
 * (each attaches or closes a group's links: a few ms, in the kernel, the
 * target's memory map locked): the check (every 10 ms at most), which
 * would otherwise wait for the whole batch: functions kept earlier that
 * turn hot meanwhile (the garbage collector's, in its cycles: a hundred
 * thousand calls a second, each with a single-stepped return under
 * gofunclatency) cost more than a CPU until detached, and a batch took up
 * to 340 ms. Returns 0 or a negative errno.
 */
static int between_steps(struct overhead_limit *l)
{
	int n = overhead_limit__check(l);

	overhead_load__update(l);
	return n < 0 ? n : 0;
}

/* What the probes on trial cost so far, in ns: their hits since FROM. */
static double trial_paid(const struct overhead_limit *l,
			 const struct probe_hits *from)
{
	struct probe_hits now;

	overhead__read_paid(l, PROBE_PAID_TRIAL, &now);
	return overhead__grown_ns(l, &now, from, false);
}

struct trial {
	double exposure_ns;		/* how long the probes were on trial */
	double paid_ns;			/* what their hits cost */
	double *rate;			/* per index of the batch, ns per s */
	double *calls;			/* calls per s */
	bool *keep;
	struct probe_hits *before;	/* hits before, then after, the trial */
	struct probe_hits *after;
	double end_ns;			/* when it ended */
	/* what admission had paid when it began (ledger.admit_ns), and the
	 * trial's own cost at its end: once its links are closed, their
	 * ratio is what a trial costs for its own (closing its probes costs
	 * as much as their trial again, and hot ones trap until closed) */
	double admit_from, cost_ns;
	double overshoot;		/* that ratio, averaged */
	double load;			/* how busy the target was on trial,
					 * CPUs (-1: not known) */
	__u8 *return_kind;		/* per index, of its returns by calls */
};

/* Once the last trial's links are closed, what it cost all in all against
 * its cost when it ended into T->overshoot, averaged over trials. */
static void trial__measure(struct trial *t, const struct overhead_limit *l)
{
	double ratio;

	if (!t->cost_ns || l->nclosings)
		return;
	ratio = (l->ledger.admit_ns - t->admit_from) / t->cost_ns;
	t->overshoot = (t->overshoot + (ratio > 1 ? ratio : 1)) / 2;
	t->cost_ns = 0;
}

/*
 * Wait until the last second leaves room for a trial: at least a
 * twentieth of the budget, of half of it for admission (trials, closing
 * their probes, attaching and detaching: the kept have the other half).
 * Room comes back as trials age out of the ledger's second; when it does
 * not (what was kept costs more than its trial said), the check detaches
 * the most costly, and after a second of waiting, down to half the
 * budget. While a live run's cost is not measured yet and some are kept,
 * wait for it too (LIVE_WAIT_NS at most: a trial's runs, which return
 * early, would hide it). And while the target runs less than half its
 * busiest recent rate (overhead_load__low()): its functions are not what
 * they cost under load. Into *CAP, what the trial may cost until it ends:
 * the room, less what a trial costs after it ends (T->overshoot), at most
 * a quarter of the budget.
 */
static int wait_for_room(struct overhead_limit *l, struct trial *t,
			 double *cap, overhead_stop_fn stop, void *ctx)
{
	double budget = overhead__budget(l), since = overhead__now_ns(), room;
	double begun = since, admit;
	bool unmeasured, ready;
	int err;

	for (;;) {
		err = overhead_limit__check(l);
		if (err < 0)
			return err;
		err = overhead__ledger_update(l);
		if (err)
			return err;
		overhead__closings_reap(l, false);
		overhead_load__update(l);
		trial__measure(t, l);
		room = budget - overhead__last_second(l);
		admit = budget / 2 - overhead__last_second_admit(l);
		if (admit < room)
			room = admit;
		*cap = room / t->overshoot < budget / 4 ?
		       room / t->overshoot : budget / 4;
		/* runs of kept probes alone tell what a live one costs */
		unmeasured = !l->live_measured && overhead__kept_cost(l) > 0 &&
			     overhead__now_ns() - begun < LIVE_WAIT_NS;
		ready = room >= budget / 20 && !t->cost_ns && !unmeasured;
		/* and the target busy */
		if ((ready && !overhead_load__low(l, l->load.recent)) ||
		    stop(ctx))
			break;
		if (ready)
			since = overhead__now_ns();
		else if (overhead__now_ns() - since > 1e9) {
			err = overhead__evict(l, overhead__last_second(l),
					      budget / 2);
			if (err < 0)
				return err;
			since = overhead__now_ns();
		}
		sleep_ns(WAIT_NS);
	}
	t->admit_from = l->ledger.admit_ns;
	return 0;
}

/* The costliest site of an index's returns tried by its calls. */
enum return_kind { RETURN_NONE, RETURN_EMULATED, RETURN_STEPPED };

/* What index I's returns tried by its calls cost a call: one return at
 * its costliest site (0: none). */
static double return_ns(const struct overhead_limit *l, const struct trial *t,
			__u32 i)
{
	switch (t->return_kind[i]) {
	case RETURN_EMULATED:
		return overhead__hits_ns(l, 1, 0, true);
	case RETURN_STEPPED:
		return overhead__hits_ns(l, 0, 1, true);
	default:
		return 0;
	}
}

/* B up to its group N. */
static void batch__cut(struct batch *b, size_t n)
{
	size_t j;

	b->ngroups = n;
	b->hi = b->groups[n - 1].run.hi;
	for (b->nprobes = 0, j = 0; j < n; j++)
		b->nprobes += b->groups[j].run.nprobes;
}

/* What T has cost so far: its hits, attaching its probes and, about as
 * much again, closing them. */
static double trial__cost(struct trial *t, const struct overhead_limit *l,
			  const struct probe_hits *from, uint64_t work)
{
	t->paid_ns = trial_paid(l, from);
	return t->paid_ns + 2 * (double)(uprobes__work_ns() - work);
}

/* A group of a batch and what it cost on trial, to sort by the cost. */
struct costed {
	double cost;
	struct group *g;
};

static int cmp_costed_down(const void *a, const void *b)
{
	double x = ((const struct costed *)a)->cost;
	double y = ((const struct costed *)b)->cost;

	return x > y ? -1 : x < y;
}

/*
 * Close the groups of ORDER[0..N) (sorted by their cost on trial, the
 * costliest first): their probes trap until their links are gone, and the
 * closes queue on the target's memory map, one probe after the other (a
 * function called a million times a second traps for all of 50 ms while 8
 * links of 32 probes close at once). So the groups that cost an
 * OVERHEAD_HOT_SHARE of the budget or more are closed first, one at a
 * time, each once the probes of the one before no longer trap, and the
 * others at once after them. Returns 0 or a negative errno (-ENOMEM:
 * closed in ORDER's order, all at once).
 */
static int costed__close(struct overhead_limit *l, const struct costed *order,
			 size_t n)
{
	struct group **gs = malloc((n ? n : 1) * sizeof(*gs));
	double hot = overhead__budget(l) / OVERHEAD_HOT_SHARE;
	size_t j, nhot = 0;
	int err = 0;

	if (!gs) {
		for (j = 0; j < n; j++)
			overhead_group__close(l, order[j].g);
		return gt_error(-ENOMEM, "out of memory");
	}
	for (j = 0; j < n; j++) {
		gs[j] = order[j].g;
		if (order[j].cost >= hot)
			nhot = j + 1;
	}
	for (j = 0; j < nhot && !err; j++) {
		overhead_groups__close(l, &gs[j], 1);
		overhead__dead_wait_quiet(l);
		err = between_steps(l);
	}
	/* the others */
	overhead_groups__close(l, gs + j, n - j);
	free(gs);
	return err;
}

/* Index I of B, in its group G, over its time on trial until END: its
 * calls and what they cost a second, from T->before to T->after, into
 * T->calls and T->rate. */
static void trial__rate(const struct overhead_limit *l, struct trial *t,
			const struct batch *b, const struct group *g, __u32 i,
			double end)
{
	const struct probe_hits *before = &t->before[i - b->lo];
	const struct probe_hits *after = &t->after[i - b->lo];
	double secs = (end - g->on_ns) / 1e9;

	t->calls[i - b->lo] = (after->calls - before->calls) / secs;
	t->rate[i - b->lo] = overhead__grown_ns(l, after, before, true) / secs +
			     t->calls[i - b->lo] * return_ns(l, t, l->order[i]);
}

/*
 * B's trial has cost its CAP at NOW, LEFT_NS before its end: close its
 * groups that cost most on trial, the costliest first (costed__close()),
 * until what the others cost a second would add at most CAP / SHED_SHARE
 * in the time left. They stay on trial to the end: when the whole trial
 * ended at its cap, after 1 to 20 ms in a third of the trials (gofuncgraph
 * '*' on a busy server), a function was kept on what those ms showed.
 * The groups closed are rated until NOW (their hits stop counting once
 * closed).
 * Returns how many groups are left on trial, or a negative errno.
 */
static int batch__shed(struct overhead_limit *l, struct batch *b,
		       struct trial *t, double cap, double now, double left_ns)
{
	struct costed *order = malloc((b->ngroups ? b->ngroups : 1) *
				      sizeof(*order));
	double rest = 0, secs;
	size_t j, n = 0, nshed;
	int err;
	__u32 i;

	if (!order)
		return gt_error(-ENOMEM, "out of memory");
	overhead__read_positions(l, b->lo, b->hi - b->lo, t->after);
	for (j = 0; j < b->ngroups; j++) {
		struct group *g = &b->groups[j];

		if (g->off_ns)
			continue;
		secs = (now - g->on_ns) / 1e9;
		order[n] = (struct costed){ 0, g };
		for (i = g->run.lo; i < g->run.hi; i++)
			order[n].cost += overhead__grown_ns(l,
					&t->after[i - b->lo],
					&t->before[i - b->lo], false) / secs;
		rest += order[n++].cost;
	}
	qsort(order, n, sizeof(*order), cmp_costed_down);
	for (nshed = 0; nshed < n && rest * left_ns / 1e9 > cap / SHED_SHARE;
	     nshed++) {
		rest -= order[nshed].cost;
		order[nshed].g->off_ns = now;
	}
	err = costed__close(l, order, nshed);
	free(order);
	return err ? err : (int)(n - nshed);
}

/*
 * Try B's probes, attached on trial group by group (no more groups once
 * they have cost CAP, closing them included: B ends there); their rates
 * into T. The check's baseline (each index's seen) is left as it is.
 * Once all are attached, each group is on trial for TRIAL_NS: when their
 * hits have cost CAP before, the costliest groups are closed then, and
 * the others stay on trial (batch__shed()) until they have cost
 * CAP / SHED_SHARE more. Attaching and closing are paid whether they stay
 * or not, and a group attached last and closed at once, as when the
 * attaching had cost the cap, saw nothing (functions called thousands of
 * times a second, 0 calls on trial, were kept, and cost a CPU live until
 * the check detached them).
 */
static int batch__try(struct overhead_limit *l, struct batch *b, double cap,
		      struct trial *t)
{
	struct overhead_load_mark load;
	struct probe_hits from;
	double t0, t1, t2, a, most = cap;
	uint64_t work = uprobes__work_ns();
	size_t j;
	int err = 0, open;
	__u32 i;

	t->paid_ns = 0;
	overhead__read_paid(l, PROBE_PAID_TRIAL, &from);
	overhead__read_positions(l, b->lo, b->hi - b->lo, t->before);
	overhead_load__mark(l, &load);
	t0 = overhead__now_ns();
	for (j = 0; j < b->ngroups && !err; j++) {
		a = overhead__now_ns();
		err = overhead_group__attach(l, &b->groups[j], NULL, 0,
					     PROBE_GEN_TRIAL, REQS_TRIED);
		/* half the attach: its probes went in one after the other */
		b->groups[j].on_ns = (a + overhead__now_ns()) / 2;
		if (!err)
			err = between_steps(l);
		/* what has cost the cap is the batch: the rest is for the next */
		if (!err && j + 1 < b->ngroups &&
		    trial__cost(t, l, &from, work) >= cap)
			batch__cut(b, j + 1);
	}
	t1 = t2 = overhead__now_ns();
	while (!err) {
		t2 = overhead__now_ns();
		t->cost_ns = trial__cost(t, l, &from, work);
		if (t2 - t1 >= TRIAL_NS)
			break;
		if (t->paid_ns >= most) {
			if (most > cap)		/* shed once: the rest paid too */
				break;
			open = batch__shed(l, b, t, cap, t2,
					   TRIAL_NS - (t2 - t1));
			if (open <= 0) {
				err = open;
				break;
			}
			most = cap + cap / SHED_SHARE;
		}
		sleep_ns(POLL_NS);
		err = between_steps(l);
	}
	if (!err) {
		overhead__read_positions(l, b->lo, b->hi - b->lo, t->after);
		err = overhead__ledger_update(l);
	}
	t->load = overhead_load__since(l, &load);
	t->end_ns = overhead__now_ns();
	t->exposure_ns = (t1 - t0) / 2 + (t2 - t1);
	for (i = b->lo, j = 0; i < b->hi && !err; i++) {
		while (i >= b->groups[j].run.hi)
			j++;
		trial__rate(l, t, b, &b->groups[j], i,
			    b->groups[j].off_ns ? b->groups[j].off_ns : t2);
		t->before[i - b->lo] = t->after[i - b->lo];
	}
	return err;
}

/* Index I is not attached: refused on trial, or untried for NO_ROOM. */
static void index__refuse(struct overhead_limit *l, __u32 i, bool no_room)
{
	struct overhead_index *x = &l->indexes[i];

	x->detached = x->refused = true;
	x->no_room = no_room;
	x->round = 0;	/* the round of the admission */
	l->nrefused++;
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
 * (each at most an eighth; all at most UNMEASURED_SHARE of it until a
 * live run's cost is measured). A target slowed by the trial, or less
 * busy on trial than it has been, makes fewer calls: rates are scaled up
 * by the share of the CPUs the probes took, or by its busiest recent rate
 * over its rate on trial, whichever is more. Returns 0 or -ENOMEM.
 */
static int batch__choose(struct overhead_limit *l, struct batch *b,
			 struct trial *t)
{
	double budget = overhead__budget(l);
	double kept = overhead__kept_cost(l) + overhead__fixed_cost(l);
	double most = l->live_measured ? budget / 2 : budget / UNMEASURED_SHARE;
	double share, scale;
	size_t n = b->hi - b->lo, i;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct rated *order;

	order = malloc(n * sizeof(*order));
	if (!order)
		return gt_error(-ENOMEM, "out of memory");
	share = t->paid_ns / (t->exposure_ns * (ncpus > 0 ? ncpus : 1));
	scale = 1 / (1 - (share < 0.9 ? share : 0.9));
	if (t->load > 0 && l->load.peak / t->load > scale)
		scale = l->load.peak / t->load;
	for (i = 0; i < n; i++) {
		t->rate[i] *= scale;
		order[i] = (struct rated){ t->rate[i], i };
	}
	qsort(order, n, sizeof(*order), cmp_rated);
	for (i = 0; i < n; i++) {
		double r = order[i].rate;

		t->keep[order[i].i] = r <= budget / 8 && kept + r <= most;
		if (t->keep[order[i].i])
			kept += r;
	}
	free(order);
	return 0;
}

/* How many of G's indexes KEEP (B's) holds. */
static size_t group__nkept(const struct group *g, const struct batch *b,
			   const bool *keep)
{
	size_t n = 0;
	__u32 i;

	for (i = g->run.lo; i < g->run.hi; i++)
		n += keep[i - b->lo];
	return n;
}

/* Does G go live as it is: KEEP (B's) holds it whole, and its links are
 * still open (not closed at the trial's cap)? */
static bool group__kept_whole(const struct group *g, const struct batch *b,
			      const bool *keep)
{
	return !g->off_ns &&
	       group__nkept(g, b, keep) == g->run.hi - g->run.lo;
}

/* Close B's groups but those KEEP (T's) holds whole (KEEP NULL: all), the
 * costliest on trial first (costed__close()). Returns 0 or a negative
 * errno. */
static int batch__close(struct overhead_limit *l, struct batch *b,
			const struct trial *t, const bool *keep)
{
	struct costed *order = malloc((b->ngroups ? b->ngroups : 1) *
				      sizeof(*order));
	size_t j, n = 0;
	int err;
	__u32 i;

	if (!order) {
		for (j = 0; j < b->ngroups; j++)
			overhead_group__close(l, &b->groups[j]);
		return gt_error(-ENOMEM, "out of memory");
	}
	for (j = 0; j < b->ngroups; j++) {
		struct group *g = &b->groups[j];

		/* closed at the trial's cap; kept whole, made live */
		if (g->off_ns || (keep && group__kept_whole(g, b, keep)))
			continue;
		order[n] = (struct costed){ 0, g };
		for (i = g->run.lo; i < g->run.hi; i++)
			order[n].cost += t->rate[i - b->lo];
		n++;
	}
	qsort(order, n, sizeof(*order), cmp_costed_down);
	err = costed__close(l, order, n);
	free(order);
	return err;
}

/*
 * Attach what T keeps of B for good, and mark the others refused: the
 * groups not kept whole are closed first, all at once; those kept whole
 * are made live as they are; what the others keep, and what the groups
 * closed at the trial's cap keep, is attached anew, live (a call on trial
 * is not counted: none is lost in between).
 */
static int batch__admit(struct overhead_limit *l, struct batch *b,
			struct trial *t)
{
	struct overhead_index *x;
	size_t j, nkept;
	int err;
	__u32 i;

	err = batch__close(l, b, t, t->keep);
	for (j = 0; j < b->ngroups && !err; j++) {
		struct group *g = &b->groups[j];

		if (!group__kept_whole(g, b, t->keep))
			continue;
		/* the returns that were not on trial, before the calls */
		err = overhead_group__attach(l, g, NULL, 0, PROBE_GEN_LIVE,
					     REQS_BY_CALLS);
		if (!err)
			err = overhead_group__keep(l, g);
		if (!err)
			err = between_steps(l);
	}
	for (j = 0; j < b->ngroups && !err; j++) {
		struct group *g = &b->groups[j];

		nkept = group__nkept(g, b, t->keep);
		if (!nkept || group__kept_whole(g, b, t->keep))
			continue;
		err = overhead_group__attach(l, g,
					     t->keep + (g->run.lo - b->lo),
					     g->run.lo, PROBE_GEN_LIVE,
					     REQS_ALL);
		if (!err)
			err = overhead_group__keep(l, g);
		if (!err)
			err = between_steps(l);
	}
	if (err)
		return err;
	for (i = b->lo; i < b->hi; i++) {
		x = &l->indexes[l->order[i]];
		x->cost_rate = t->rate[i - b->lo];
		x->detached_rate = t->calls[i - b->lo];
		if (t->keep[i - b->lo]) {
			/* the check's baseline: from the end of the trial */
			x->attached = true;
			x->seen = t->before[i - b->lo];
			x->seen_ns = t->end_ns;
			x->trial_calls = x->seen.calls;
		} else {
			index__refuse(l, l->order[i], false);
		}
	}
	return 0;
}

/*
 * Try B (after room for it), keep what it pays for; its links closed.
 * Returns 1 when the target was not busy on trial (overhead_load__low())
 * and B is to be tried again (RETRY: not for the LOAD_RETRIES-th time):
 * nothing kept.
 */
static int batch__run(struct overhead_limit *l, struct batch *b,
		      struct trial *t, double *cap, bool retry,
		      overhead_stop_fn stop, void *ctx)
{
	int err;

	err = wait_for_room(l, t, cap, stop, ctx);
	if (!err)
		err = batch__try(l, b, *cap, t);
	if (!err && retry && overhead_load__low(l, t->load)) {
		err = batch__close(l, b, t, NULL);
		return err ? err : 1;
	}
	if (!err)
		err = batch__choose(l, b, t);
	if (!err)
		err = batch__admit(l, b, t);
	/* what is still open: the trial's links, when it failed */
	if (err)
		batch__close(l, b, t, NULL);
	return err;
}

/* How many indexes of the probes from FROM[k] on in each request K are
 * neither attached nor refused: those the trace ended before trying. */
static int count_untried(struct overhead_limit *l, const size_t *from)
{
	bool *seen = calloc(l->nindexes ? l->nindexes : 1, sizeof(*seen));
	size_t j, k;
	__u32 i;

	if (!seen)
		return gt_error(-ENOMEM, "out of memory");
	l->nuntried = 0;
	for (k = 0; k < l->nreqs; k++) {
		for (j = from[k]; j < l->reqs[k].list.n; j++) {
			i = COOKIE_INDEX(l->reqs[k].list.cookies[j]);
			if (i >= l->nindexes || seen[i] ||
			    l->indexes[i].attached || l->indexes[i].refused)
				continue;
			seen[i] = true;
			l->nuntried++;
		}
	}
	free(seen);
	return 0;
}

/*
 * Returns by calls: a request of returns (where calls end, one hit a
 * call) whose every index has its calls probed by another request is not
 * attached on trial; what it will cost follows from the calls the trial
 * counts, at the cost of the index's costliest return site (a trial of the
 * calls alone costs a twentieth, where returns are single-stepped). Into
 * T->return_kind, per index.
 */
static int returns__by_calls(struct overhead_limit *l, struct trial *t)
{
	bool *called = calloc(l->nindexes ? l->nindexes : 1, sizeof(*called));
	const struct uprobe_list *list;
	struct overhead_request *r;
	size_t j, k;
	__u32 i;

	if (!called)
		return gt_error(-ENOMEM, "out of memory");
	for (k = 0; k < l->nreqs; k++) {
		list = &l->reqs[k].list;
		for (j = 0; !l->reqs[k].returns && j < list->n; j++) {
			i = COOKIE_INDEX(list->cookies[j]);
			if (i < l->nindexes)
				called[i] = true;
		}
	}
	for (k = 0; k < l->nreqs; k++) {
		r = &l->reqs[k];
		list = &r->list;
		r->by_calls = r->returns;
		for (j = 0; r->by_calls && j < list->n; j++) {
			i = COOKIE_INDEX(list->cookies[j]);
			r->by_calls = i < l->nindexes && called[i];
		}
		for (j = 0; r->by_calls && j < list->n; j++) {
			i = COOKIE_INDEX(list->cookies[j]);
			if (list->cookies[j] & COOKIE_STEPPED)
				t->return_kind[i] = RETURN_STEPPED;
			else if (t->return_kind[i] == RETURN_NONE)
				t->return_kind[i] = RETURN_EMULATED;
		}
	}
	free(called);
	return 0;
}

int overhead_limit__admit(struct overhead_limit *l, overhead_stop_fn stop,
			  void *ctx)
{
	double budget = overhead__budget(l), cap = budget / 4;
	double full = budget / 4;	/* a trial's cap when there is room */
	double tried;			/* what the batch's trial cost */
	struct trial t = { .overshoot = 2 };
	struct batch b = { 0 };
	size_t i, k, size = BATCH_FIRST, nrefused = l->nrefused, gsize;
	size_t *from = NULL;		/* where the next batch begins */
	double full_since = 0;		/* since when the kept cost half */
	unsigned int tries = 0;		/* of the batch, with the target idle */
	int err = 0;

	if (!l->pending)
		return 0;
	l->pending = false;
	err = overhead_order__make(l);
	for (k = 0; k < l->nreqs && !err; k++)
		err = overhead_request__sort(l, &l->reqs[k]);
	if (err) {
		overhead_order__free(l);
		return err;
	}
	gsize = overhead_group__size(l);
	from = calloc(l->nreqs, sizeof(*from));
	t.rate = calloc(l->nindexes, sizeof(*t.rate));
	t.calls = calloc(l->nindexes, sizeof(*t.calls));
	t.keep = calloc(l->nindexes, sizeof(*t.keep));
	t.before = calloc(l->nindexes, sizeof(*t.before));
	t.after = calloc(l->nindexes, sizeof(*t.after));
	t.return_kind = calloc(l->nindexes, sizeof(*t.return_kind));
	if (!from || !t.rate || !t.calls || !t.keep || !t.before || !t.after ||
	    !t.return_kind)
		err = gt_error(-ENOMEM, "out of memory");
	if (!err)
		err = returns__by_calls(l, &t);
	overhead_load__start(l, l->nreqs ? l->reqs[0].pid : 0);
	for (b.lo = 0; b.lo < l->nindexes && !err && !stop(ctx); b.lo = b.hi) {
		err = overhead_batch__grow(l, &b, from,
					   size > gsize ? size : gsize, gsize);
		if (err || !b.nprobes)
			break;
		/* the kept's rates, as of the last 100 ms */
		err = overhead_limit__check(l);
		if (err < 0)
			break;
		err = 0;
		/* a trial keeps nothing while the kept cost half the budget */
		if (overhead__kept_cost(l) + overhead__fixed_cost(l) <=
		    budget / 2)
			full_since = 0;
		else if (!full_since)
			full_since = overhead__now_ns();
		tried = 0;
		if (full_since && overhead__now_ns() - full_since >= FULL_NS) {
			for (i = b.lo; i < b.hi; i++)
				index__refuse(l, l->order[i], true);
		} else {
			err = batch__run(l, &b, &t, &cap,
					 ++tries < LOAD_RETRIES, stop, ctx);
			tried = t.cost_ns;
		}
		/* tried with the target idle: again, once it is busy */
		if (err == 1) {
			err = 0;
			b.hi = b.lo;
			continue;
		}
		tries = 0;
		/* the target exited while a batch was being attached: the
		 * trace is over, and what was kept counted until then */
		if (err == -ESRCH) {
			err = 0;
			break;
		}
		/* aim at trials of half the full cap, growing at most twice */
		if (tried >= full)
			size = size / 4 > BATCH_MIN ? size / 4 : BATCH_MIN;
		else if (tried < full / 4)
			size = size * 2 < BATCH_MAX ? size * 2 : BATCH_MAX;
		for (k = 0; k < l->nreqs; k++)
			from[k] = b.groups[b.ngroups - 1].run.to[k];
	}
	if (!err && from)
		err = count_untried(l, from);
	/* the refused are said as a round of their own */
	if (l->nrefused > nrefused) {
		l->rounds++;
		for (i = 0; i < l->nindexes; i++)
			if (l->indexes[i].refused && !l->indexes[i].round)
				l->indexes[i].round = l->rounds;
	}
	for (i = 0; i < b.cap; i++)
		overhead_group__free(&b.groups[i]);
	free(b.groups);
	free(from);
	free(t.rate);
	free(t.calls);
	free(t.keep);
	free(t.before);
	free(t.after);
	free(t.return_kind);
	overhead_order__free(l);
	return err ? err : (int)(l->nrefused - nrefused);
}
