/* SPDX-License-Identifier: MIT */
/*
 * go_abi's placements as text, for the tests that compare them: a piece
 * "rax/8@0", "xmm1/4@4", "rax+4/4@4", "sp+24/16@0", "[rdi+8]/8@0",
 * "none/24@0" (where, then /size, then @offset within the value), by the
 * names go_abi gives MACHINE's registers ("r0", "f1" on arm64).
 */
#ifndef GOTOOLS_TEST_ABI_TEXT_H
#define GOTOOLS_TEST_ABI_TEXT_H

#include <inttypes.h>
#include <stdio.h>
#include "goabi/go_abi.h"

static inline void piece_str(uint16_t machine, const struct go_abi_piece *p,
			     char *buf, size_t len)
{
	const char *reg = go_abi__reg_name(machine, p->kind, p->reg);

	switch (p->kind) {
	case GO_PIECE_IREG:
	case GO_PIECE_FREG:
		if (p->reg_offset)
			snprintf(buf, len, "%s+%u/%" PRIu32 "@%" PRIu64, reg,
				 p->reg_offset, p->size, p->value_offset);
		else
			snprintf(buf, len, "%s/%" PRIu32 "@%" PRIu64, reg,
				 p->size, p->value_offset);
		break;
	case GO_PIECE_STACK:
		snprintf(buf, len, "sp+%" PRId64 "/%" PRIu32 "@%" PRIu64,
			 p->mem_offset, p->size, p->value_offset);
		break;
	case GO_PIECE_MEM:
		snprintf(buf, len, "[%s+%" PRId64 "]/%" PRIu32 "@%" PRIu64,
			 reg, p->mem_offset, p->size, p->value_offset);
		break;
	case GO_PIECE_NONE:
		snprintf(buf, len, "none/%" PRIu32 "@%" PRIu64, p->size,
			 p->value_offset);
		break;
	}
}

/* A value as text: its pieces separated by spaces, "" when none (a
 * static buffer, valid until the next call). */
static inline const char *value_str(uint16_t machine,
				    const struct go_abi_value *v)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < v->npieces && n < sizeof(buf); i++) {
		char p[64];

		piece_str(machine, &v->pieces[i], p, sizeof(p));
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "",
			      p);
	}
	return buf;
}

#endif
