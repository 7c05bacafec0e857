/* SPDX-License-Identifier: MIT */
/*
 * gotrace's plans, each distinct one stored once. The functions of a wide
 * probe (r:'*' on a server: 45,000 of them) nearly all read the same
 * words, and a copy each would be 1.3 KB a function, in user space and
 * again in the BPF map. A hash table with open addressing over the stored
 * plans, grown to stay at most half full.
 */
#ifndef GOTOOLS_PLAN_TABLE_H
#define GOTOOLS_PLAN_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "gotrace.h"

struct plan_table {
	struct trace_plan *plans;	/* the distinct plans, in order added */
	size_t n, cap;
	uint32_t *slots;		/* a plan's index + 1, or 0: empty */
	size_t mask;			/* slots - 1 (a power of two), or 0 */
};

/*
 * *IDX: the index of the plan equal to PLAN, which is added when new.
 * Plans are compared byte for byte: PLAN is zeroed before it is filled in.
 * Returns 0, or -ENOMEM or -ENOSPC with a reason.
 */
int plan_table__intern(struct plan_table *t, const struct trace_plan *plan,
		       uint32_t *idx);

void plan_table__free(struct plan_table *t);

#endif
