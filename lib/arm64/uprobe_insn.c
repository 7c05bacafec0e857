// SPDX-License-Identifier: MIT
/*
 * What the arm64 kernel simulates at a probe (uprobe_insn.h): the
 * instructions arm_probe_decode_insn() gives a simulate_*() handler,
 * by the masks of arch/arm64/include/asm/insn.h. A simulated hit costs no
 * single step: the stack check's b.ls is one (site/probe_site.h).
 */
#include <stddef.h>
#include "arm64/uprobe_insn.h"

struct insn_class {
	uint32_t mask, val;
};

static const struct insn_class simulated[] = {
	{ 0xff000010, 0x54000000 },	/* b.cond */
	{ 0x7c000000, 0x14000000 },	/* b, bl */
	{ 0x7e000000, 0x34000000 },	/* cbz, cbnz */
	{ 0x7e000000, 0x36000000 },	/* tbz, tbnz */
	{ 0xfffffc1f, 0xd61f0000 },	/* br */
	{ 0xfffffc1f, 0xd63f0000 },	/* blr */
	{ 0xfffffc1f, 0xd65f0000 },	/* ret */
	{ 0x1f000000, 0x10000000 },	/* adr, adrp */
	{ 0xbf000000, 0x18000000 },	/* ldr (literal) */
	{ 0xff000000, 0x98000000 },	/* ldrsw (literal) */
};

bool arm64_uprobe_insn__simulated(uint32_t word)
{
	size_t i;

	for (i = 0; i < sizeof(simulated) / sizeof(simulated[0]); i++)
		if ((word & simulated[i].mask) == simulated[i].val)
			return true;
	return false;
}
