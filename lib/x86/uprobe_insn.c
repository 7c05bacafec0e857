// SPDX-License-Identifier: MIT
#include <elf.h>
#include <capstone/capstone.h>
#include "x86/disasm.h"
#include "x86/uprobe_insn.h"

#define MAX_INSN_BYTES 15

/*
 * Opcode bitmaps of arch/x86/kernel/uprobes.c (good_insns_64 and
 * good_2byte_insns): bit N of row N/16 set when opcode N may be probed.
 * One-byte opcodes of 64-bit code refused: 06 07 0e 0f(escape: see 2-byte)
 * 16 17 1e 1f 26 27 2e 2f 36 37 3e 3f 40-4f (REX: never an opcode) 60-62
 * 66 67 6c-6f 82 c4 c5 cc-cf d4-d6 e4-e7 ec-ef f0 f1 f4 fa fb.
 */
static const uint16_t good_1byte[16] = {
	0x3f3f, 0x3f3f, 0x3f3f, 0x3f3f, 0x0000, 0xffff, 0x0f38, 0xffff,
	0xfffb, 0xffff, 0xffff, 0xffff, 0x0fcf, 0xff8f, 0x0f0f, 0xf3ec,
};

/* Two-byte opcodes 0f xx refused: 00-0d 18 24-27 30 34-3f 78-7d a6 a7 ae
 * b8 d0 f0 ff. */
static const uint16_t good_2byte[16] = {
	0xc000, 0xfeff, 0xff0f, 0x000e, 0xffff, 0xffff, 0xffff, 0xc0ff,
	0xffff, 0xffff, 0xbf3f, 0xfeff, 0xffff, 0xfffe, 0xffff, 0x7ffe,
};

static bool bit_set(const uint16_t *map, uint8_t op)
{
	return map[op >> 4] & (1u << (op & 15));
}

static bool prefix_bad(const cs_x86 *x86)
{
	int i;

	for (i = 0; i < 4; i++) {
		switch (x86->prefix[i]) {
		case 0x26: case 0x2e: case 0x36: case 0x3e: case 0xf0:
			return true;
		}
	}
	return false;
}

static bool x86_probeable(const uint8_t *code, size_t len, uint64_t addr)
{
	cs_insn *insn = NULL;
	bool ok = false;
	const cs_x86 *x86;
	csh cs;

	if (x86_disasm__handle(true, &cs))
		return false;
	if (cs_disasm(cs, code, len, addr, 1, &insn) == 1) {
		x86 = &insn->detail->x86;
		if (prefix_bad(x86))
			ok = false;
		else if (x86->opcode[0] != 0x0f)
			ok = bit_set(good_1byte, x86->opcode[0]);
		else
			/* 0f 38 xx and 0f 3a xx are refused by the table. */
			ok = bit_set(good_2byte, x86->opcode[1]);
		cs_free(insn, 1);
	}
	return ok;
}

bool uprobe_insn__probeable(const struct elf_file *ef, uint64_t addr)
{
	const uint8_t *code;
	size_t len = MAX_INSN_BYTES;

	if (ef->machine != EM_X86_64)
		return true;
	/* The last instruction of a segment may be shorter than 15 bytes. */
	while (len && elf_file__read_vaddr(ef, addr, len, &code))
		len--;
	return len && x86_probeable(code, len, addr);
}
