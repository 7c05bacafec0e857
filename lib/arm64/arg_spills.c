// SPDX-License-Identifier: MIT
/* The argument registers an arm64 morestack tail spills (arg_spills.h),
 * read off the words. */
#include <errno.h>
#include "arm64/arg_spills.h"
#include "arm64/disasm.h"
#include "core/error.h"

#define REG_SP			31
/* Go's register ABI: R0-R15 and F0-F15 */
#define ARG_REGS		16
/* `MOVD R30, R3` (ORR X3, XZR, X30): the return address morestack takes */
#define MOVD_R30_R3		0xaa1e03e3

/* A store to [SP, #offset] of one register or a pair: its encoding under
 * MASK, whether it stores a pair (STP, signed 7-bit offset) or one
 * (STR, unsigned 12-bit offset), its width, and to float registers. */
static const struct {
	uint32_t mask, val;
	bool pair;
	uint8_t size;
	bool freg;
} stores[] = {
	{ 0xffc00000, 0xf9000000, false, 8, false },	/* STR Xt (MOVD) */
	{ 0xffc00000, 0xb9000000, false, 4, false },	/* STR Wt (MOVW) */
	{ 0xffc00000, 0x79000000, false, 2, false },	/* STRH (MOVH) */
	{ 0xffc00000, 0x39000000, false, 1, false },	/* STRB (MOVB) */
	{ 0xffc00000, 0xfd000000, false, 8, true },	/* STR Dt (FMOVD) */
	{ 0xffc00000, 0xbd000000, false, 4, true },	/* STR St (FMOVS) */
	{ 0xffc00000, 0xa9000000, true, 8, false },	/* STP Xt1, Xt2 */
	{ 0xffc00000, 0x29000000, true, 4, false },	/* STP Wt1, Wt2 */
	{ 0xffc00000, 0x6d000000, true, 8, true },	/* STP Dt1, Dt2 */
	{ 0xffc00000, 0x2d000000, true, 4, true },	/* STP St1, St2 */
};

/* The spill or pair of spills WORD is, into OUT (one or two); how many,
 * 0 when it is none. */
static size_t spills_of(uint32_t word, struct arg_spill *out)
{
	unsigned int rt = word & 0x1f, rt2 = word >> 10 & 0x1f;
	int64_t off;
	size_t i;

	if ((word >> 5 & 0x1f) != REG_SP)
		return 0;
	for (i = 0; i < sizeof(stores) / sizeof(stores[0]); i++) {
		if ((word & stores[i].mask) != stores[i].val)
			continue;
		if (stores[i].pair) {
			off = (int64_t)(word >> 15 & 0x7f);
			off = ((off ^ 0x40) - 0x40) * stores[i].size;
		} else {
			off = (int64_t)(word >> 10 & 0xfff) * stores[i].size;
		}
		if (off < 8 || off > INT32_MAX - 8 || rt >= ARG_REGS ||
		    (stores[i].pair && rt2 >= ARG_REGS))
			return 0;
		out[0] = (struct arg_spill){
			.sp_offset = (int32_t)off, .reg = (uint8_t)rt,
			.size = stores[i].size, .freg = stores[i].freg,
		};
		if (!stores[i].pair)
			return 1;
		out[1] = out[0];
		out[1].sp_offset += stores[i].size;
		out[1].reg = (uint8_t)rt2;
		return 2;
	}
	return 0;
}

int arm64_arg_spills__decode(const uint8_t *code, size_t len, uint64_t addr,
			     struct arg_spill *out, size_t *n)
{
	struct arg_spill s[2];
	size_t at, k, i;
	bool ret;

	*n = 0;
	for (at = 0; at + 4 <= len; at += 4) {
		uint32_t word = arm64_insn__word(code + at);

		if (arm64_insn__flow(word, &ret) == SITE_FLOW_CALL) {
			arg_spills__sort(out, *n);
			return 0;
		}
		if (word == MOVD_R30_R3)
			continue;
		k = spills_of(word, s);
		if (!k || *n + k > ARG_SPILLS_MAX)
			return gt_error(-EINVAL, "0x%llx: not an argument spill",
					(unsigned long long)(addr + at));
		for (i = 0; i < k; i++)
			out[(*n)++] = s[i];
	}
	return gt_error(-EINVAL, "no call to runtime.morestack");
}
