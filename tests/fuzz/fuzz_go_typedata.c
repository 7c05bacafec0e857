// SPDX-License-Identifier: MIT
/*
 * The type-data decoder fed corrupted descriptors. An input is a header,
 * then type data:
 *
 *	u8 Go minor version (15..27: the name and field offset formats)
 *	u64 the virtual address the type data starts at (its pointers are
 *	    absolute)
 *	u32 the offset of a type in it, then the type data itself
 *
 * Seeds are the type data of real fixtures (fuzz_go_typedata.seeds.sh).
 * Every type that decodes is walked whole, so that ASan sees a bad
 * pointer; the walk stops at pointers (which may loop).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "goabi/go_typedata.h"

#define HEADER 13

static size_t walk(const struct go_type *t, int depth)
{
	size_t n = t->name ? strlen(t->name) : 0, i;

	if (depth > 40)
		return n;
	for (i = 0; i < t->nfields; i++)
		n += strlen(t->fields[i].name) + walk(t->fields[i].type, depth + 1);
	if (t->kind == GO_KIND_ARRAY || t->kind == GO_KIND_MAP)
		n += walk(t->elem, depth + 1);
	if (t->key)
		n += walk(t->key, depth + 1);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct go_typedata *td;
	struct go_rtypes *r;
	const struct go_type *t;
	volatile size_t sum = 0;
	uint64_t start;
	uint32_t off;
	int i;

	if (size < HEADER)
		return 0;
	memcpy(&start, data + 1, 8);
	memcpy(&off, data + 9, 4);
	if (go_rtypes__open_data(data + HEADER, start, start + (size - HEADER),
				 data[0] >= 17, "fuzz", &r))
		return 0;
	if (!go_typedata__open_rtypes(r, data[0], &td)) {
		/* the type named, and the next few places */
		for (i = 0; i < 8; i++)
			if (!go_typedata__type(td, start + off + 8 * i, &t))
				sum += walk(t, 0);
		go_typedata__close(td);
	}
	go_rtypes__close(r);
	return 0;
}
