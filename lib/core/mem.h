/* SPDX-License-Identifier: MIT */
/*
 * Growing arrays: one helper instead of a capacity-doubling realloc() at
 * every array that is appended to, modelled on libbpf's libbpf_ensure_mem.
 */
#ifndef GOTOOLS_MEM_H
#define GOTOOLS_MEM_H

#include <stddef.h>

/*
 * Make the array *DATA, room for *CAP elements of ELEM_SIZE (> 0) bytes,
 * hold at least NEED: reallocated to twice *CAP (at least 16, at least
 * NEED) when *CAP is short. Returns 0, or -ENOMEM with a reason when the
 * size overflows or realloc() fails; then *DATA and *CAP are unchanged.
 * Written `gt_ensure_mem((void **)&l->v, &l->cap, sizeof(*l->v), l->n + 1)`.
 */
int gt_ensure_mem(void **data, size_t *cap, size_t elem_size, size_t need);

#endif
