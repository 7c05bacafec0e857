// SPDX-License-Identifier: MIT
/* Spans of code (code_span.h). */
#include <stdlib.h>
#include "core/code_span.h"

static int cmp_spans(const void *a, const void *b)
{
	const struct code_span *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

size_t code_spans__merge(struct code_span *v, size_t n)
{
	size_t i, m = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_spans);
	for (i = 0; i < n; i++) {
		if (v[i].to <= v[i].from)
			continue;
		if (m && v[i].from <= v[m - 1].to) {
			if (v[i].to > v[m - 1].to)
				v[m - 1].to = v[i].to;
			continue;
		}
		v[m++] = v[i];
	}
	return m;
}

bool code_spans__contain(const struct code_span *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].to <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].from <= addr;
}
