// SPDX-License-Identifier: MIT
/* --max-overhead: what the probes cost the target, and which to detach
 * (overhead_limit.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "core/error.h"
#include "cli/overhead_limit.h"
#include "cli/percpu_map.h"
#include "cookie.h"

#define CHECK_EVERY_NS	100000000.0	/* 100 ms */
#define HITS_WORDS	(sizeof(struct probe_hits) / sizeof(__u64))

int overhead_limit__init(struct overhead_limit *l, double pct,
			 size_t nindexes)
{
	memset(l, 0, sizeof(*l));
	l->pct = pct;
	l->hits_fd = -1;
	l->stats_fd = -1;
	l->nindexes = nindexes;
	l->indexes = calloc(nindexes ? nindexes : 1, sizeof(*l->indexes));
	l->sums = calloc((nindexes ? nindexes : 1) * HITS_WORDS,
			 sizeof(*l->sums));
	if (!l->indexes || !l->sums)
		return gt_error(-ENOMEM, "out of memory");
	return hit_cost__measure(&l->cost);
}

int overhead_limit__prepare(struct overhead_limit *l, volatile bool *watch,
			    struct bpf_map *probe_hits)
{
	int err;

	*watch = true;
	err = bpf_map__set_max_entries(probe_hits,
				       l->nindexes ? l->nindexes : 1);
	if (err)
		return gt_error(err, "cannot size the hit counters: %s",
				strerror(-err));
	return 0;
}

static double timespec_ns(const struct timespec *t)
{
	return t->tv_sec * 1e9 + t->tv_nsec;
}

/* The programs' run time and runs so far (BPF statistics). */
static int read_run_stats(const struct overhead_limit *l, __u64 *ns,
			  __u64 *cnt)
{
	struct bpf_prog_info info;
	__u32 len;
	size_t i;

	*ns = *cnt = 0;
	for (i = 0; i < l->nprogs; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(l->prog_fds[i], &info, &len))
			return gt_error(-errno, "cannot read a program's statistics: %s",
					strerror(errno));
		*ns += info.run_time_ns;
		*cnt += info.run_cnt;
	}
	return 0;
}

int overhead_limit__start(struct overhead_limit *l, int hits_fd, __u32 *epoch,
			  struct bpf_program **progs, size_t nprogs)
{
	size_t i;
	int fd;

	if (nprogs > OVERHEAD_MAX_PROGS)
		return gt_error(-E2BIG, "too many programs to watch");
	l->hits_fd = hits_fd;
	l->epoch = epoch;
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
	return read_run_stats(l, &l->run_ns, &l->run_cnt);
}

int overhead_limit__add_links(struct overhead_limit *l, struct uprobes *u)
{
	if (l->nlinks == OVERHEAD_MAX_LINKS)
		return gt_error(-E2BIG, "too many links to watch");
	l->links[l->nlinks++] = u;
	return 0;
}

int overhead_limit__add_call_links(struct overhead_limit *l,
				   const struct call_links *links)
{
	return overhead_limit__add_links(l, links->entries) ?:
	       overhead_limit__add_links(l, links->exits);
}

/* Read probe_hits into each index's SEEN; the increase into DELTA (NULL:
 * not wanted). */
static int read_hits(struct overhead_limit *l, struct probe_hits *delta)
{
	struct probe_hits now;
	size_t i;
	int err;

	err = percpu_map__sum_all(l->hits_fd, l->nindexes, l->sums, HITS_WORDS);
	if (err)
		return err;
	for (i = 0; i < l->nindexes; i++) {
		memcpy(&now, l->sums + i * HITS_WORDS, sizeof(now));
		if (delta) {
			delta[i].calls = now.calls - l->indexes[i].seen.calls;
			delta[i].emulated = now.emulated - l->indexes[i].seen.emulated;
			delta[i].stepped = now.stepped - l->indexes[i].seen.stepped;
		}
		l->indexes[i].seen = now;
	}
	return 0;
}

static bool keep_probe(void *ctx, uint64_t cookie)
{
	const struct overhead_limit *l = ctx;
	__u32 i = COOKIE_INDEX(cookie);

	return i >= l->nindexes || !l->indexes[i].detached;
}

/* Replace every link by one without the detached indexes' probes. */
static int replace_links(struct overhead_limit *l)
{
	size_t i;
	int err = 0;

	for (i = 0; i < l->nlinks && !err; i++)
		err = uprobes__replace_begin(l->links[i], keep_probe, l);
	if (err) {
		while (i--)
			uprobes__replace_abort(l->links[i]);
		return err;
	}
	/* uprobe_multi: from now on the new links count, the old ones not */
	if (uprobes__multi_supported())
		__atomic_store_n(l->epoch, !*l->epoch, __ATOMIC_SEQ_CST);
	for (i = 0; i < l->nlinks; i++)
		uprobes__replace_end(l->links[i]);
	return 0;
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
		if (!l->indexes[i].detached && l->indexes[i].cost_rate > 0)
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

int overhead_limit__check(struct overhead_limit *l)
{
	struct probe_hits *delta;
	struct timespec now;
	double dt, total = 0, budget;
	__u64 run_ns, run_cnt;
	size_t i;
	int err, n;

	clock_gettime(CLOCK_MONOTONIC, &now);
	dt = timespec_ns(&now) - timespec_ns(&l->last);
	if (dt < CHECK_EVERY_NS || !l->nindexes)
		return 0;
	delta = calloc(l->nindexes, sizeof(*delta));
	if (!delta)
		return gt_error(-ENOMEM, "out of memory");
	err = read_hits(l, delta);
	if (!err)
		err = read_run_stats(l, &run_ns, &run_cnt);
	if (err)
		goto out;
	if (run_cnt > l->run_cnt)
		l->prog_ns = (double)(run_ns - l->run_ns) / (run_cnt - l->run_cnt);
	l->run_ns = run_ns;
	l->run_cnt = run_cnt;
	l->last = now;
	for (i = 0; i < l->nindexes; i++) {
		struct overhead_index *x = &l->indexes[i];

		if (x->detached)
			continue;
		x->cost_rate = (delta[i].emulated * (l->cost.emulated_ns + l->prog_ns) +
				delta[i].stepped * (l->cost.stepped_ns + l->prog_ns)) /
			       (dt / 1e9);
		x->detached_rate = delta[i].calls / (dt / 1e9);
		total += x->cost_rate;
	}
	budget = l->pct / 100 * 1e9;	/* ns per second */
	if (total <= budget)
		goto out;
	n = choose(l, total, budget / 4);
	if (n < 0) {
		err = n;
		goto out;
	}
	err = replace_links(l);
	/* what the detached ones counted, now that nothing adds to it */
	if (!err)
		err = read_hits(l, NULL);
	for (i = 0; i < l->nindexes && !err; i++)
		if (l->indexes[i].detached && l->indexes[i].round == l->rounds)
			l->indexes[i].detached_calls = l->indexes[i].seen.calls;
	if (!err) {
		l->ndetached += n;
		err = n;
	}
out:
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

void overhead_limit__print(const struct overhead_limit *l, FILE *f,
			   const char *tool, int n, bool verbose,
			   overhead_name_fn name_of, void *ctx)
{
	const struct overhead_index *x, *top = NULL;
	size_t i, itop = 0;
	char buf[128];

	if (n <= 0)
		return;
	for (i = 0; i < l->nindexes; i++) {
		x = &l->indexes[i];
		if (!x->detached || x->round != l->rounds)
			continue;
		if (verbose)
			fprintf(f, "%s: %s %s\n", tool, name_of(ctx, i),
				overhead_index__str(x, buf, sizeof(buf)));
		if (!top || x->cost_rate > top->cost_rate) {
			top = x;
			itop = i;
		}
	}
	if (verbose || !top)
		return;
	fprintf(f, "%s: over --max-overhead %g%%: %d probed function%s detached, "
		"the most costly %s %s%s\n", tool, l->pct, n, n == 1 ? "" : "s",
		name_of(ctx, itop), overhead_index__str(top, buf, sizeof(buf)),
		n > 1 ? " (-v lists them)" : "");
	fflush(f);
}

void overhead_limit__free(struct overhead_limit *l)
{
	/* a limit never started (or never set up, all zeros) holds no fd */
	if (l->nprogs && l->stats_fd >= 0)
		close(l->stats_fd);
	free(l->indexes);
	free(l->sums);
	memset(l, 0, sizeof(*l));
	l->stats_fd = -1;
	l->hits_fd = -1;
}
