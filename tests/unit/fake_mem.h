/* SPDX-License-Identifier: MIT */
/*
 * A binary's memory, faked by the tests and fuzzers: one buffer mapped at
 * a virtual address, read through the callback the library takes for a
 * binary's memory (pclntab_read_fn, buildinfo_read_fn).
 */
#ifndef GOTOOLS_TEST_FAKE_MEM_H
#define GOTOOLS_TEST_FAKE_MEM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct fake_mem {
	uint64_t base;		/* the address DATA is mapped at */
	const uint8_t *data;
	size_t size;
};

/* Point *OUT at the LEN bytes at VADDR of the fake_mem CTX; -ERANGE when
 * they are not all in it. */
static inline int fake_mem__read(void *ctx, uint64_t vaddr, size_t len,
				 const uint8_t **out)
{
	const struct fake_mem *m = ctx;

	if (vaddr < m->base || vaddr - m->base > m->size ||
	    len > m->size - (vaddr - m->base))
		return -ERANGE;
	*out = m->data + (vaddr - m->base);
	return 0;
}

#endif
