/* SPDX-License-Identifier: MIT */
/*
 * Names to row numbers: each distinct (name, tag) gets the next index, 0,
 * 1, 2..., in the order first seen, as the tools number their output rows
 * (a function, or its inlined copies). A hash table with open addressing,
 * sized once for the names it will hold, so that numbering N probes takes
 * time linear in N. The table keeps the callers' name pointers: the names
 * must outlive it.
 */
#ifndef GOTOOLS_NAME_TABLE_H
#define GOTOOLS_NAME_TABLE_H

#include <stddef.h>

struct name_table_slot;

struct name_table {
	struct name_table_slot *slots;
	size_t mask;		/* slots - 1; slots: a power of two */
	size_t n;		/* names numbered: the next index */
	size_t max;		/* names it holds at most */
};

/* A table for at most MAX distinct names. Returns 0 or a negative errno
 * with a reason; call name_table__free() in both cases. */
int name_table__init(struct name_table *t, size_t max);

/* The index of NAME with TAG, the next one (t->n) when it is new: >= 0,
 * or -ENOSPC with a reason when MAX names are in already. */
int name_table__index(struct name_table *t, const char *name,
		      unsigned int tag);

void name_table__free(struct name_table *t);

#endif
