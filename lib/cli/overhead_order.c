// SPDX-License-Identifier: MIT
/*
 * --max-overhead admission's order: the indexes whose functions the
 * target's CPU samples fell in least first, and each request's probes
 * sorted by it (overhead_group.h).
 */
#include <errno.h>
#include <stdlib.h>
#include "core/error.h"
#include "cli/overhead_group.h"

/* A probe and its position, to sort by it (then by offset). */
struct placed {
	__u32 position;
	uint64_t cookie, offset;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->position != y->position)
		return x->position < y->position ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int overhead_request__sort(const struct overhead_limit *l,
			   struct overhead_request *r)
{
	struct placed *probes;
	size_t i;

	probes = malloc((r->list.n ? r->list.n : 1) * sizeof(*probes));
	if (!probes)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < r->list.n; i++)
		probes[i] = (struct placed){
			position_of(l, r->list.cookies[i]),
			r->list.cookies[i], r->list.offsets[i],
		};
	qsort(probes, r->list.n, sizeof(*probes), cmp_placed);
	for (i = 0; i < r->list.n; i++) {
		r->list.cookies[i] = probes[i].cookie;
		r->list.offsets[i] = probes[i].offset;
	}
	free(probes);
	return 0;
}

/* An index and the CPU samples of its functions, to sort by them. */
struct sampled {
	__u64 samples;
	__u32 i;
};

static int cmp_sampled(const void *a, const void *b)
{
	const struct sampled *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int overhead_order__make(struct overhead_limit *l)
{
	size_t n = l->nindexes ? l->nindexes : 1, i;
	struct sampled *by = malloc(n * sizeof(*by));

	l->order = malloc(n * sizeof(*l->order));
	l->position = malloc(n * sizeof(*l->position));
	if (!by || !l->order || !l->position) {
		free(by);
		return gt_error(-ENOMEM, "out of memory");
	}
	for (i = 0; i < l->nindexes; i++)
		by[i] = (struct sampled){ l->indexes[i].samples, i };
	qsort(by, l->nindexes, sizeof(*by), cmp_sampled);
	for (i = 0; i < l->nindexes; i++) {
		l->order[i] = by[i].i;
		l->position[by[i].i] = i;
	}
	free(by);
	return 0;
}

void overhead_order__free(struct overhead_limit *l)
{
	free(l->order);
	free(l->position);
	l->order = l->position = NULL;
}

void overhead__read_positions(const struct overhead_limit *l, __u32 lo,
			      size_t n, struct probe_hits *hits)
{
	size_t i;

	for (i = 0; i < n; i++)
		overhead__read_range(l, l->order[lo + i], 1, &hits[i]);
}
