// SPDX-License-Identifier: MIT
/* A morestack tail's spills, whatever the machine (arg_spills.h). */
#include <stdlib.h>
#include "site/arg_spills.h"

static int by_slot(const void *a, const void *b)
{
	const struct arg_spill *x = a, *y = b;

	return (x->sp_offset > y->sp_offset) - (x->sp_offset < y->sp_offset);
}

void arg_spills__sort(struct arg_spill *out, size_t n)
{
	if (n)
		qsort(out, n, sizeof(*out), by_slot);
}
