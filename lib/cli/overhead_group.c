// SPDX-License-Identifier: MIT
/*
 * --max-overhead admission's groups: runs of indexes in admission's order
 * with links of their own, one per request, in batches (overhead_group.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "cli/overhead_group.h"

/* R from index R->lo, from[] on: about SIZE probes (at least one index:
 * an index of more probes is a run of its own). */
static void run__grow(const struct overhead_limit *l, struct run *r,
		      size_t size)
{
	size_t k, n;

	r->nprobes = 0;
	for (k = 0; k < l->nreqs; k++)
		r->to[k] = r->from[k];
	for (r->hi = r->lo; r->hi < l->nindexes; r->hi++) {
		for (k = 0, n = 0; k < l->nreqs; k++) {
			const struct uprobe_list *list = &l->reqs[k].list;
			size_t j = r->to[k];

			while (j < list->n &&
			       position_of(l, list->cookies[j]) == r->hi)
				j++;
			n += j - r->to[k];
		}
		if (r->hi > r->lo && r->nprobes + n > size)
			break;
		for (k = 0; k < l->nreqs; k++) {
			const struct uprobe_list *list = &l->reqs[k].list;

			while (r->to[k] < list->n &&
			       position_of(l, list->cookies[r->to[k]]) == r->hi)
				r->to[k]++;
		}
		r->nprobes += n;
	}
}

void overhead_group__free(struct group *g)
{
	free(g->run.from);
	free(g->run.to);
	free(g->gens);
	free(g->links);
}

static int group__alloc(const struct overhead_limit *l, struct group *g)
{
	memset(g, 0, sizeof(*g));
	g->run.from = calloc(l->nreqs, sizeof(*g->run.from));
	g->run.to = calloc(l->nreqs, sizeof(*g->run.to));
	g->gens = calloc(l->nreqs, sizeof(*g->gens));
	g->links = calloc(l->nreqs, sizeof(*g->links));
	if (g->run.from && g->run.to && g->gens && g->links)
		return 0;
	overhead_group__free(g);
	return gt_error(-ENOMEM, "out of memory");
}

int overhead_batch__grow(struct overhead_limit *l, struct batch *b,
			 const size_t *from, size_t size, size_t group_size)
{
	struct group *g;
	size_t k, cap;
	int err;

	b->nprobes = 0;
	b->ngroups = 0;
	for (b->hi = b->lo; b->hi < l->nindexes && b->nprobes < size; ) {
		cap = b->cap;
		err = gt_ensure_mem((void **)&b->groups, &b->cap,
				    sizeof(*b->groups), b->ngroups + 1);
		if (err)
			return err;
		memset(b->groups + cap, 0, (b->cap - cap) * sizeof(*b->groups));
		g = &b->groups[b->ngroups];
		if (!g->gens) {
			err = group__alloc(l, g);
			if (err)
				return err;
		}
		g->run.lo = b->hi;
		g->off_ns = 0;
		for (k = 0; k < l->nreqs; k++)
			g->run.from[k] = b->ngroups ?
				b->groups[b->ngroups - 1].run.to[k] : from[k];
		run__grow(l, &g->run, group_size);
		b->ngroups++;
		b->hi = g->run.hi;
		b->nprobes += g->run.nprobes;
	}
	return 0;
}

/* The probes of request K in R whose index KEEP holds (NULL: all, else
 * KEEP[its position - LO]), with generation GEN, into OUT. */
static int run__list(const struct overhead_limit *l, const struct run *r,
		     size_t k, const bool *keep, __u32 lo, unsigned int gen,
		     struct uprobe_list *out)
{
	const struct uprobe_list *list = &l->reqs[k].list;
	size_t j;
	int err = 0;

	for (j = r->from[k]; j < r->to[k] && !err; j++) {
		__u32 p = position_of(l, list->cookies[j]);

		if (!keep || keep[p - lo])
			err = uprobe_list__add(out, list->offsets[j],
					       COOKIE_WITH_GEN(list->cookies[j],
							       gen));
	}
	return err;
}

void overhead_groups__close(struct overhead_limit *l, struct group **gs,
			    size_t n)
{
	struct uprobes *us[UPROBES_AT_ONCE];
	unsigned int gens[UPROBES_AT_ONCE];
	struct uprobes_closing *c;
	size_t i, k, m = 0;

	for (i = 0; i < n; i++)
		for (k = l->nreqs; k-- > 0; )
			if (gs[i]->gens[k])
				__atomic_store_n(&l->gen_state[gs[i]->gens[k]],
						 PROBE_GEN_DEAD,
						 __ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++) {
		for (k = l->nreqs; k-- > 0; ) {
			if (!gs[i]->links[k] && !gs[i]->gens[k])
				continue;
			if (m == UPROBES_AT_ONCE) {
				uprobes__detach_later(us, m, &c);
				overhead__closing_add(l, c, gens, m);
				m = 0;
			}
			us[m] = gs[i]->links[k];
			gens[m++] = gs[i]->gens[k];
			gs[i]->links[k] = NULL;
			gs[i]->gens[k] = 0;
		}
	}
	uprobes__detach_later(us, m, &c);
	overhead__closing_add(l, c, gens, m);
}

void overhead_group__close(struct overhead_limit *l, struct group *g)
{
	overhead_groups__close(l, &g, 1);
}

int overhead_group__attach(struct overhead_limit *l, struct group *g,
			   const bool *keep, __u32 lo,
			   enum probe_gen_state state, enum group_reqs which)
{
	struct uprobe_list list = { 0 };
	size_t k;
	int gen, err = 0;

	for (k = 0; k < l->nreqs && !err; k++) {
		const struct overhead_request *r = &l->reqs[k];

		if ((which == REQS_TRIED && r->by_calls) ||
		    (which == REQS_BY_CALLS && !r->by_calls))
			continue;
		gen = overhead__gen_alloc(l, state);
		if (gen < 0) {
			err = gen;
			break;
		}
		g->gens[k] = gen;
		list.n = 0;
		err = run__list(l, &g->run, k, keep, lo, gen, &list);
		if (!err && list.n)
			err = uprobes__attach(r->prog, r->path, r->pid, &list,
					      &g->links[k]);
	}
	uprobe_list__free(&list);
	if (err)
		overhead_group__close(l, g);
	return err;
}

int overhead_group__keep(struct overhead_limit *l, struct group *g)
{
	size_t k;
	int err = 0;

	for (k = 0; k < l->nreqs; k++)
		if (g->gens[k])
			__atomic_store_n(&l->gen_state[g->gens[k]],
					 PROBE_GEN_LIVE, __ATOMIC_SEQ_CST);
	for (k = 0; k < l->nreqs && !err; k++) {
		if (g->links[k])
			err = overhead__add_link(l, g->links[k], g->gens[k]);
		else
			overhead__gen_free(l, g->gens[k]);
		if (!err) {
			g->links[k] = NULL;
			g->gens[k] = 0;
		}
	}
	return err;
}

size_t overhead_group__size(const struct overhead_limit *l)
{
	size_t k, n = 0, groups = GROUP_LINKS / (l->nreqs ? l->nreqs : 1);

	for (k = 0; k < l->nreqs; k++)
		n += l->reqs[k].list.n;
	if (!groups)
		groups = 1;
	n = (n + groups - 1) / groups;
	return n > GROUP ? n : GROUP;
}
