// SPDX-License-Identifier: MIT
/* Growing arrays, as libbpf's libbpf_ensure_mem does (mem.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/mem.h"

/* The smallest array allocated: fewer reallocs for short lists. */
#define MIN_CAP 16

int gt_ensure_mem(void **data, size_t *cap, size_t elem_size, size_t need)
{
	size_t max_cap = SIZE_MAX / elem_size, new_cap;
	void *p;

	if (need <= *cap)
		return 0;
	if (need > max_cap)
		return gt_error(-ENOMEM, "out of memory: %zu elements of %zu bytes",
				need, elem_size);
	/* Doubling makes N appends cost O(N) copies in all. */
	new_cap = *cap < max_cap / 2 ? *cap * 2 : max_cap;
	if (new_cap < MIN_CAP)
		new_cap = MIN_CAP < max_cap ? MIN_CAP : max_cap;
	if (new_cap < need)
		new_cap = need;
	p = realloc(*data, new_cap * elem_size);
	if (!p)
		return gt_error(-ENOMEM, "out of memory: %zu elements of %zu bytes",
				new_cap, elem_size);
	*data = p;
	*cap = new_cap;
	return 0;
}
