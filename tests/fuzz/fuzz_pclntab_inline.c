// SPDX-License-Identifier: MIT
/*
 * pclntab__parse and pclntab__inline_calls on arbitrary bytes. The input is
 * both the table and the binary's memory (funcdata, inline trees), mapped
 * at MEM. A second run splices the input into a valid Go 1.20+ table with
 * an inline tree, so that mutations reach deep into the decoder.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/pclntab_inline.h"

#define MEM	0x10000
#define TEXT	0x401000
#define MAX_FUNCS	64

struct mem {
	const uint8_t *data;
	size_t size;
};

static int mem_read(void *ctx, uint64_t vaddr, size_t len,
		    const uint8_t **out)
{
	const struct mem *m = ctx;

	if (vaddr < MEM || vaddr - MEM > m->size ||
	    len > m->size - (vaddr - MEM))
		return -ERANGE;
	*out = m->data + (vaddr - MEM);
	return 0;
}

static int touch(void *ctx, const struct pclntab_inline_call *c)
{
	size_t *sum = ctx;

	/* Read the whole name, so that ASan sees a bad pointer. */
	*sum += strlen(c->name) + (c->pc >= c->caller_entry);
	return 0;
}

static void run(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	struct pclntab_funcdata fd = { MEM, mem_read, &m };
	struct pclntab *tab;
	size_t i, sum = 0;

	if (pclntab__parse(data, size, TEXT, &tab))
		return;
	for (i = 0; i < tab->nfuncs && i < MAX_FUNCS; i++)
		pclntab__inline_calls(tab, i, &fd, touch, &sum);
	pclntab__free(tab);
}

/*
 * A Go 1.20+ table: header, names at 72, pc-value table at 96, functab at
 * 128, one _func at 144 whose inline tree sits at offset 224 of the same
 * bytes (gofunc = MEM): inl.b inlined into inl.a at [0x10,0x30).
 */
static const uint8_t template[256] = {
	[0] = 0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8,
	[8] = 1,
	[24] = 0x00, 0x10, 0x40,
	[32] = 72,
	[56] = 96,
	[64] = 128,
	[72] = 'm', 'a', 'i', 'n', '.', 'f', 0, 'i', 'n', 'l', '.', 'a', 0,
	       'i', 'n', 'l', '.', 'b', 0,
	[97] = 0x00, 0x10, 0x04, 0x10, 0x01, 0x10, 0x01, 0xd0, 0x01, 0x00,
	[128] = 0, 0, 0, 0, 16, 0, 0, 0, 0x00, 0x01, 0, 0,
	[144 + 28] = 3,
	[144 + 43] = 4,
	[144 + 52] = 1,
	[144 + 56] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 224, 0, 0, 0,
	[224 + 4] = 7,
	[240 + 4] = 13, 0, 0, 0, 0x20,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t t[sizeof(template)];
	size_t i, at;

	run(data, size);
	if (size < 2)
		return 0;
	/* XOR the rest of the input into the template from offset data[0],
	 * and cut the table to data[1] bytes short of its full size. */
	memcpy(t, template, sizeof(t));
	at = data[0];
	for (i = 2; i < size; i++)
		t[(at + i - 2) % sizeof(t)] ^= data[i];
	run(t, sizeof(t) - data[1] % 64);
	return 0;
}
