/* SPDX-License-Identifier: MIT */
/*
 * The input of the pclntab fuzzers (fuzz_pcline, fuzz_pclntab_inline): a
 * table at text FAKE_TEXT whose bytes are also the binary's memory
 * (funcdata, inline trees), mapped at PCLNTAB_INPUT_MEM. Each input runs
 * twice: as it is, then spliced into the hand-built table of
 * tests/unit/fake_pclntab.h, so that mutations reach deep into the
 * decoders. There the inline tree follows the table, at offset
 * FAKE_TABLE_SIZE of the same bytes, and its funcdata points there; byte
 * 0 of the input is where the rest is XORed in, byte 1 how many bytes
 * (mod 64) to cut off the end (splice_seed.sh writes such inputs).
 */
#ifndef GOTOOLS_FUZZ_PCLNTAB_INPUT_H
#define GOTOOLS_FUZZ_PCLNTAB_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/pclntab.h"
#include "gobin/pclntab_inline.h"
#include "../unit/fake_mem.h"
#include "../unit/fake_pclntab.h"

#define PCLNTAB_INPUT_MEM	0x10000

_Static_assert(offsetof(struct fake_pclntab, gofunc) == FAKE_TABLE_SIZE,
	       "the tree follows the table");

/* Called with each input that parses, and the memory it is in. */
typedef void (*pclntab_input_fn)(const struct pclntab *tab,
				 const struct pclntab_funcdata *fd);

static inline void pclntab_input__run_one(const uint8_t *data, size_t size,
					  pclntab_input_fn fn)
{
	struct fake_mem m = { PCLNTAB_INPUT_MEM, data, size };
	struct pclntab_funcdata fd = { PCLNTAB_INPUT_MEM, fake_mem__read,
				       &m };
	struct pclntab *tab;

	if (pclntab__parse(data, size, FAKE_TEXT, &tab))
		return;
	fn(tab, &fd);
	pclntab__free(tab);
}

/* Hand FN the input DATA, then the hand-built table with DATA spliced
 * in. */
static inline void pclntab_input__run(const uint8_t *data, size_t size,
				      pclntab_input_fn fn)
{
	struct fake_pclntab f;
	uint8_t *t = (uint8_t *)&f;
	size_t i;

	pclntab_input__run_one(data, size, fn);
	if (size < 2)
		return;
	fake_pclntab__init(&f);
	/* funcdata[InlTree]: the tree after the table */
	put32(f.tab + FAKE_FUNC + 68, FAKE_TABLE_SIZE);
	for (i = 2; i < size; i++)
		t[(data[0] + i - 2) % sizeof(f)] ^= data[i];
	pclntab_input__run_one(t, sizeof(f) - data[1] % 64, fn);
}

#endif
