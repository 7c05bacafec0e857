// SPDX-License-Identifier: MIT
/* Names to row numbers, in the order first seen: a hash table
 * (name_table.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/name_table.h"

struct name_table_slot {
	const char *name;	/* NULL: empty */
	unsigned int tag;
	int index;
};

/* FNV-1a over the name, then the tag. */
static uint64_t hash(const char *name, unsigned int tag)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return (h ^ tag) * 1099511628211ULL;
}

int name_table__init(struct name_table *t, size_t max)
{
	size_t nslots = 8;

	memset(t, 0, sizeof(*t));
	if (max > INT_MAX / 2)
		return gt_error(-E2BIG, "too many names: %zu", max);
	/* at most half full: short probe runs */
	while (nslots < 2 * max)
		nslots *= 2;
	t->slots = calloc(nslots, sizeof(*t->slots));
	if (!t->slots)
		return gt_error(-ENOMEM, "out of memory");
	t->mask = nslots - 1;
	t->max = max;
	return 0;
}

int name_table__index(struct name_table *t, const char *name,
		      unsigned int tag)
{
	struct name_table_slot *s;
	size_t i;

	for (i = hash(name, tag) & t->mask;; i = (i + 1) & t->mask) {
		s = &t->slots[i];
		if (!s->name)
			break;
		if (s->tag == tag && strcmp(s->name, name) == 0)
			return s->index;
	}
	if (t->n == t->max)
		return gt_error(-ENOSPC, "more than %zu names", t->max);
	s->name = name;
	s->tag = tag;
	s->index = t->n++;
	return s->index;
}

void name_table__free(struct name_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
