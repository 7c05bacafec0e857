// SPDX-License-Identifier: MIT
/*
 * --max-overhead's fixed probes: those a tool attaches itself and keeps on
 * (the goroutine-state tracker's), counted in the ledger and detached when
 * they alone cost more than the budget (overhead_limit.h).
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "cli/overhead_internal.h"
#include "cli/percpu_map.h"

/* The fixed probes alone over the budget this long, on average: detached. */
#define FIXED_OVER_NS	1e8

int overhead_limit__add_fixed(struct overhead_limit *l, const char *label,
			      struct bpf_program **progs, size_t nprogs,
			      int hits_fd, const bool *emulated, size_t nsites,
			      overhead_detach_fn detach, void *ctx,
			      const char *then)
{
	struct overhead_fixed *f = &l->fixed;
	__u64 cnt;
	size_t i;

	if (nprogs > OVERHEAD_FIXED_PROGS || nsites > OVERHEAD_FIXED_SITES)
		return gt_error(-E2BIG, "too many programs or sites to count");
	f->label = label;
	f->then = then;
	f->detach = detach;
	f->ctx = ctx;
	for (i = 0; i < nprogs; i++)
		f->prog_fds[i] = bpf_program__fd(progs[i]);
	f->hits_fd = hits_fd;
	f->nsites = nsites;
	memcpy(f->emulated, emulated, nsites * sizeof(*emulated));
	/* what they cost from now on */
	f->nprogs = nprogs;
	return overhead__read_runs(f->prog_fds, f->nprogs, &f->run_ns, &cnt) ?:
	       percpu_map__sum_all(f->hits_fd, f->nsites, f->hits, 1);
}

int overhead__fixed_paid(struct overhead_limit *l, double *paid)
{
	struct overhead_fixed *f = &l->fixed;
	__u64 ns, cnt, hits[OVERHEAD_FIXED_SITES];
	size_t i;
	int err;

	*paid = 0;
	if (!f->nprogs)
		return 0;
	err = overhead__read_runs(f->prog_fds, f->nprogs, &ns, &cnt) ?:
	      percpu_map__sum_all(f->hits_fd, f->nsites, hits, 1);
	if (err)
		return err;
	*paid = ns - f->run_ns;
	for (i = 0; i < f->nsites; i++)
		*paid += (hits[i] - f->hits[i]) * (f->emulated[i] ?
			 l->cost.emulated_ns : l->cost.stepped_ns);
	f->run_ns = ns;
	memcpy(f->hits, hits, sizeof(hits));
	return 0;
}

bool overhead__fixed_over(struct overhead_limit *l, double dt, double budget)
{
	struct overhead_fixed *f = &l->fixed;
	double from = f->checked_ns, now = overhead__now_ns(), avg;

	f->checked_ns = l->ledger.fixed_ns;
	if (!f->nprogs || f->detached) {
		f->over_since = 0;
		return false;
	}
	/* over from a check whose window cost more than the budget, for as
	 * long as they cost more on average since that window began: their
	 * hits come with the target's goroutines' changes, and a 10 ms
	 * window under the budget in the middle of a load that has them cost
	 * twice it ended the count over and over (a test's server, loaded
	 * for a second, kept them) */
	if (!f->over_since) {
		if (l->ledger.fixed_ns - from <= budget * dt / 1e9)
			return false;
		f->over_since = now - dt;
		f->over_from = from;
	}
	avg = (l->ledger.fixed_ns - f->over_from) /
	      ((now - f->over_since) / 1e9);
	if (avg <= budget) {
		f->over_since = 0;
		return false;
	}
	if (now - f->over_since >= FIXED_OVER_NS && f->detach) {
		f->detach(f->ctx);
		f->detached = true;
		f->detached_rate = avg;
	}
	return true;
}

void overhead__print_fixed(struct overhead_limit *l, FILE *f,
			   const char *tool)
{
	if (!l->fixed.detached || l->fixed.said)
		return;
	l->fixed.said = true;
	fprintf(f, "%s: over --max-overhead %g%%: %s detached at %.1f%% of a "
		"CPU: %s\n", tool, l->pct, l->fixed.label,
		l->fixed.detached_rate / 1e7, l->fixed.then);
	fflush(f);
}
