// SPDX-License-Identifier: MIT
/* The kernel's rules for x86 uprobes: refused, run wrongly, emulated
 * (uprobe_insn.h). */
#include <elf.h>
#include <capstone/capstone.h>
#include "x86/disasm.h"
#include "x86/uprobe_insn.h"

#define MAX_INSN_BYTES 15

/*
 * What Linux x86 uprobes emulate instead of single-stepping out of line
 * (arch/x86/kernel/uprobes.c, 6.x: branch_setup_xol_ops and
 * push_setup_xol_ops; everything else is single-stepped):
 *   - jmp rel8 (eb), jmp rel32 (e9), call rel32 (e8), jcc rel8 (70-7f) and
 *     jcc rel32 (0f 80-8f), unless they carry a 0x66 prefix (refused);
 *   - nop (90, also 66 90);
 *   - push of a 64-bit register: 50-57, or 41 50-57 for r8-r15 (REX 0x41
 *     only: 48 55 is single-stepped).
 * Any instruction with a 26/2e/36/3e segment or an f0 lock prefix is
 * refused outright (is_prefix_bad). Newer kernels emulate a few more
 * (multi-byte nops); we do not rely on them.
 *
 * The kernel takes any instruction whose opcode byte is 90 for a nop
 * ("case 0x90: prefix* + nop", from 2014 until tip commit 8a5c6cbfe4a3 of
 * October 2025, after Linux 6.18), and skips it. With a REX.B prefix it is
 * no nop: 49 90 is xchg %rax,%r8 (41 90 xchg %eax,%r8d). A probe there
 * loses the exchange at every hit. Go 1.17 to 1.20 begin
 * runtime.gcWriteBarrierR8 with it: a probe on its entry made the write
 * barrier store the wrong pointer, and busy Go servers died of the heap it
 * corrupted. Such a site is not probeable (x86_probeable()), whatever the
 * kernel: a fixed one cannot be told apart before it is too late. So it
 * is not "emulated" here either.
 */
bool uprobe_insn__emulated(const uint8_t *b, size_t n)
{
	bool opsize = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i] == 0x26 || b[i] == 0x2e || b[i] == 0x36 ||
		    b[i] == 0x3e || b[i] == 0xf0)
			return false;
		if (b[i] == 0x66)
			opsize = true;
		else if (b[i] != 0x64 && b[i] != 0x65 && b[i] != 0x67 &&
			 b[i] != 0xf2 && b[i] != 0xf3)
			break;
	}
	if ((n == 1 && b[0] == 0x90) || (n == 2 && b[0] == 0x66 && b[1] == 0x90))
		return true;
	if ((n == 1 && b[0] >= 0x50 && b[0] <= 0x57) ||
	    (n == 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57))
		return true;
	if (opsize)
		return false;
	if (i < n && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i >= n)
		return false;
	if (b[i] == 0xe8 || b[i] == 0xe9 || b[i] == 0xeb ||
	    (b[i] >= 0x70 && b[i] <= 0x7f))
		return true;
	return b[i] == 0x0f && i + 1 < n && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f;
}

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

/* xchg %rax,%r8 and its narrower forms (opcode 90 with REX.B): the kernel
 * skips them for nops (see the top of this file). */
static bool xchg_r8_taken_for_nop(const cs_x86 *x86)
{
	return x86->opcode[0] == 0x90 && (x86->rex & 0x41) == 0x41;
}

static bool x86_probeable(const uint8_t *code, size_t len, uint64_t addr)
{
	const cs_insn *insn = x86_disasm__one(code, len, addr);
	const cs_x86 *x86;

	if (!insn)
		return false;
	x86 = &insn->detail->x86;
	if (prefix_bad(x86) || xchg_r8_taken_for_nop(x86))
		return false;
	if (x86->opcode[0] != 0x0f)
		return bit_set(good_1byte, x86->opcode[0]);
	/* 0f 38 xx and 0f 3a xx are refused by the table. */
	return bit_set(good_2byte, x86->opcode[1]);
}

/* The bytes at ADDR of EF into *CODE, up to the longest instruction:
 * the last instruction of a segment may be shorter than 15 bytes. */
static size_t read_insn_bytes(const struct elf_file *ef, uint64_t addr,
			      const uint8_t **code)
{
	size_t len = MAX_INSN_BYTES;

	while (len && elf_file__read_vaddr(ef, addr, len, code))
		len--;
	return len;
}

bool uprobe_insn__probeable(const struct elf_file *ef, uint64_t addr)
{
	const uint8_t *code;
	size_t len;

	if (ef->machine != EM_X86_64)
		return true;
	len = read_insn_bytes(ef, addr, &code);
	return len && x86_probeable(code, len, addr);
}

bool uprobe_insn__emulated_at(const struct elf_file *ef, uint64_t addr)
{
	const cs_insn *insn;
	const uint8_t *code;
	size_t len;

	if (ef->machine != EM_X86_64)
		return false;
	len = read_insn_bytes(ef, addr, &code);
	insn = len ? x86_disasm__one(code, len, addr) : NULL;
	return insn && uprobe_insn__emulated(insn->bytes, insn->size);
}
