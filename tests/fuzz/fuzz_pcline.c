// SPDX-License-Identifier: MIT
/*
 * pcline__frames over pclntab__parse on arbitrary bytes. The input is both
 * the table and the binary's memory (the inline tree), mapped at MEM. A
 * second run splices the input into a valid Go 1.20+ table with files,
 * lines and an inline tree, so that mutations reach deep into the
 * decoders.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/pcline.h"

#define MEM	0x10000
#define TEXT	0x401000
#define MAX_FUNCS	64
#define MAX_PCS	512	/* per function */

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

static void run(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	struct pclntab_funcdata fd = { MEM, mem_read, &m };
	struct pcline_frame fr[8];
	struct pclntab *tab;
	struct pcline *p;
	uint64_t pc, end;
	size_t i, j, n, sum = 0;

	if (pclntab__parse(data, size, TEXT, &tab))
		return;
	if (pcline__open_pclntab(tab, &fd, &p)) {
		pclntab__free(tab);
		return;
	}
	for (i = 0; i < tab->nfuncs && i < MAX_FUNCS; i++) {
		end = tab->funcs[i].end - tab->funcs[i].entry > MAX_PCS ?
		      tab->funcs[i].entry + MAX_PCS : tab->funcs[i].end;
		for (pc = tab->funcs[i].entry; pc < end; pc++) {
			if (pcline__frames(p, pc, fr, 8, &n))
				continue;
			/* Read every string, so that ASan sees a bad one. */
			for (j = 0; j < n; j++)
				sum += strlen(fr[j].func) + strlen(fr[j].file);
		}
	}
	(void)sum;
	pcline__close(p);
	pclntab__free(tab);
}

/*
 * A Go 1.20+ table (tests/unit/test_pcline.c's fake): names at 72, cutab
 * at 96, filetab at 104, pc-value tables at 120 (pcfile +1, pcln +9,
 * inline index +19), functab at 152, main.f's _func at 168; its inline
 * tree at offset 256 of the same bytes (gofunc = MEM): inl.b inlined into
 * inl.a inlined into main.f.
 */
static const uint8_t template[288] = {
	[0] = 0xf1, 0xff, 0xff, 0xff, 0, 0, 1, 8,
	[8] = 1,
	[16] = 2,
	[24] = 0x00, 0x10, 0x40,
	[32] = 72,
	[40] = 96,
	[48] = 104,
	[56] = 120,
	[64] = 152,
	[72] = 'm', 'a', 'i', 'n', '.', 'f', 0, 'i', 'n', 'l', '.', 'a', 0,
	       'i', 'n', 'l', '.', 'b', 0,
	[96] = 0, 0, 0, 0, 5, 0, 0, 0,
	[104] = 'a', '.', 'g', 'o', 0, 'b', '.', 'g', 'o', 0,
	[121] = 0x02, 0x10, 0x02, 0x20, 0x01, 0xd0, 0x01, 0x00,
	[129] = 0x16, 0x10, 0x14, 0x10, 0x14, 0x10, 0x25, 0xd0, 0x01, 0x00,
	[139] = 0x00, 0x10, 0x04, 0x10, 0x01, 0x10, 0x01, 0xd0, 0x01, 0x00,
	[152] = 0, 0, 0, 0, 16, 0, 0, 0, 0x00, 0x01, 0, 0,
	[168 + 20] = 1, 0, 0, 0, 9, 0, 0, 0, 3,
	[168 + 43] = 4,
	[168 + 52] = 19,
	[168 + 56] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		     0xff, 0xff, 0xff, 0xff, 0, 1, 0, 0,
	[256 + 4] = 7, 0, 0, 0, 0x40,
	[272 + 4] = 13, 0, 0, 0, 0x20,
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
