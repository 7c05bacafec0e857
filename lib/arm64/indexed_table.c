// SPDX-License-Identifier: MIT
/* The table a small arm64 function indexes (indexed_table.h), read off
 * its instruction words. */
#include <errno.h>
#include "arm64/disasm.h"
#include "arm64/indexed_table.h"
#include "core/error.h"

/* runtime.waitReason.String is a dozen instructions; past this, it is not
 * that function. */
#define TABLE_FUNC_MAX_WORDS	64
/* How far into the in-range block its ADRP and ADD may be. */
#define TABLE_BLOCK_WORDS	8

enum { COND_HS = 2, COND_LO = 3, COND_HI = 8, COND_LS = 9 };

/* CMP (SUBS with the zero register as destination) of a register with an
 * immediate, 32 or 64 bits, into *IMM. */
static bool compare_immediate(uint32_t w, uint64_t *imm)
{
	if ((w & 0x7f80001f) != 0x7100001f)
		return false;
	*imm = (uint64_t)(w >> 10 & 0xfff) << (w & (1U << 22) ? 12 : 0);
	return true;
}

/* The table's address, built in the words of CODE[0..n) at ADDR. */
static bool table_address(const uint8_t *code, size_t n, uint64_t addr,
			  uint64_t *table)
{
	uint64_t page, lo;
	unsigned int rd;
	size_t i;

	for (i = 0; i + 1 < n && i < TABLE_BLOCK_WORDS; i++)
		if (arm64_insn__adrp(arm64_insn__word(code + 4 * i),
				     addr + 4 * i, &rd, &page) &&
		    arm64_insn__add_imm(arm64_insn__word(code + 4 * (i + 1)),
					rd, &lo)) {
			*table = page + lo;
			return true;
		}
	return false;
}

int arm64_indexed_table__find(const struct go_binary *bin,
			      const struct go_func *fn, uint64_t *table,
			      uint64_t *len)
{
	const uint8_t *code;
	uint64_t imm, block;
	size_t n, i;
	int cond;

	if (arm64_disasm__func_code(bin, fn, &code, &n)) {
		gt_error_clear();
		return gt_error(-ENOENT, "cannot read the code of %s", fn->name);
	}
	n /= 4;
	if (n > TABLE_FUNC_MAX_WORDS)
		n = TABLE_FUNC_MAX_WORDS;
	for (i = 0; i + 1 < n; i++) {
		uint32_t br = arm64_insn__word(code + 4 * (i + 1));

		if (!compare_immediate(arm64_insn__word(code + 4 * i), &imm))
			continue;
		cond = arm64_insn__bcond(br);
		if (cond != COND_HS && cond != COND_LO &&
		    cond != COND_HI && cond != COND_LS)
			continue;
		block = fn->addr + 4 * (i + 2);		/* falls through */
		if ((cond == COND_LO || cond == COND_LS) &&
		    !arm64_insn__target(br, fn->addr + 4 * (i + 1), &block))
			continue;
		if (block < fn->addr || block >= fn->addr + 4 * n ||
		    !table_address(code + (block - fn->addr),
				   n - (block - fn->addr) / 4, block, table))
			continue;
		*len = cond == COND_HI || cond == COND_LS ? imm + 1 : imm;
		return 0;
	}
	return gt_error(-ENOENT, "%s: no bounds check and table address in its code",
			fn->name);
}
