// SPDX-License-Identifier: MIT
/* gotrace's plans, each distinct one stored once (plan_table.h). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "trace/plan_table.h"

/* A multiply-xorshift over LEN bytes at P, from H. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t w;
	size_t i;

	for (i = 0; i < len; i += 8) {
		w = 0;
		memcpy(&w, b + i, len - i < 8 ? len - i : 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	return h;
}

static size_t at_most(size_t n, size_t max)
{
	return n < max ? n : max;
}

/* The counts and the entries in use, not all 1.3 KB of a plan (hashed
 * once a function): past them every plan is zeros. */
static uint64_t plan_hash(const struct trace_plan *plan)
{
	uint64_t h;

	h = hash_bytes(0, plan, offsetof(struct trace_plan, words));
	h = hash_bytes(h, plan->words, at_most(plan->nwords, TRACE_MAX_WORDS) *
			sizeof(plan->words[0]));
	h = hash_bytes(h, plan->strs, at_most(plan->nstrs, TRACE_MAX_STRS) *
			sizeof(plan->strs[0]));
	h = hash_bytes(h, plan->terms, at_most(plan->nterms, TRACE_MAX_TERMS) *
			sizeof(plan->terms[0]));
	return hash_bytes(h, plan->vroots,
			  at_most(plan->nvroots, TRACE_MAX_VROOTS) *
			  sizeof(plan->vroots[0]));
}

/* The slot of PLAN: where it is, or the empty slot where it goes. */
static size_t plan_table__slot(const struct plan_table *t,
			       const struct trace_plan *plan)
{
	size_t i;

	for (i = plan_hash(plan) & t->mask; t->slots[i];
	     i = (i + 1) & t->mask)
		if (!memcmp(&t->plans[t->slots[i] - 1], plan, sizeof(*plan)))
			break;
	return i;
}

/* Room for one more plan, the table at most half full. */
static int plan_table__grow(struct plan_table *t)
{
	size_t nslots = t->mask ? 2 * (t->mask + 1) : 64, i;
	struct plan_table bigger = *t;

	if (2 * (t->n + 1) <= t->mask + 1 && t->mask)
		return 0;
	if (t->n >= UINT32_MAX / 2)
		return gt_error(-ENOSPC, "more than %zu distinct plans", t->n);
	bigger.slots = calloc(nslots, sizeof(*bigger.slots));
	if (!bigger.slots)
		return gt_error(-ENOMEM, "out of memory");
	bigger.mask = nslots - 1;
	for (i = 0; i < t->n; i++)
		bigger.slots[plan_table__slot(&bigger, &t->plans[i])] = i + 1;
	free(t->slots);
	*t = bigger;
	return 0;
}

int plan_table__intern(struct plan_table *t, const struct trace_plan *plan,
		       uint32_t *idx)
{
	size_t slot;
	int err;

	err = plan_table__grow(t);
	if (!err)
		err = gt_ensure_mem((void **)&t->plans, &t->cap,
				    sizeof(*t->plans), t->n + 1);
	if (err)
		return err;
	slot = plan_table__slot(t, plan);
	if (!t->slots[slot]) {
		memcpy(&t->plans[t->n], plan, sizeof(*plan));
		t->slots[slot] = ++t->n;
	}
	*idx = t->slots[slot] - 1;
	return 0;
}

void plan_table__free(struct plan_table *t)
{
	free(t->plans);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
