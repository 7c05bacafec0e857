// SPDX-License-Identifier: MIT
/* arm64 instructions from their words, and the capstone decoder of
 * lib/arm64 (disasm.h). */
#include <errno.h>
#include "core/error.h"
#include "site/func_code.h"
#include "arm64/disasm.h"

uint32_t arm64_insn__word(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* The unconditional branches to a register (br, blr, ret, eret, drps,
 * and their pointer-authenticated forms): opc in bits 24:21. */
#define BRANCH_REG_MASK		0xfe000000
#define BRANCH_REG_VAL		0xd6000000

enum site_flow arm64_insn__flow(uint32_t word, bool *ret)
{
	*ret = false;
	if ((word & 0xff000010) == 0x54000000 ||	/* b.cond */
	    (word & 0x7e000000) == 0x34000000 ||	/* cbz, cbnz */
	    (word & 0x7e000000) == 0x36000000)		/* tbz, tbnz */
		return SITE_FLOW_JCC;
	if ((word & 0xfc000000) == 0x14000000)		/* b */
		return SITE_FLOW_JMP;
	if ((word & 0xfc000000) == 0x94000000)		/* bl */
		return SITE_FLOW_CALL;
	if ((word & BRANCH_REG_MASK) == BRANCH_REG_VAL) {
		switch ((word >> 21) & 0xf) {
		case 0:		/* br */
			return SITE_FLOW_JMP;
		case 1:		/* blr */
			return SITE_FLOW_CALL;
		case 2:		/* ret */
			*ret = true;
			return SITE_FLOW_STOP;
		default:	/* eret, drps */
			return SITE_FLOW_STOP;
		}
	}
	/* svc, hvc, smc, brk, hlt, dcps; and udf, whose word 0 pads
	 * between functions */
	if ((word & 0xff000000) == 0xd4000000 || (word & 0xffff0000) == 0)
		return SITE_FLOW_STOP;
	return SITE_FLOW_PLAIN;
}

/* The signed field of WIDTH bits at bit SHIFT of WORD, times 4. */
static int64_t word_offset(uint32_t word, unsigned int shift,
			   unsigned int width)
{
	uint64_t v = (word >> shift) & ((1ULL << width) - 1);

	if (v & (1ULL << (width - 1)))
		v |= ~((1ULL << width) - 1);
	return (int64_t)v * 4;
}

bool arm64_insn__target(uint32_t word, uint64_t addr, uint64_t *target)
{
	int64_t off;

	if ((word & 0x7c000000) == 0x14000000)		/* b, bl: imm26 */
		off = word_offset(word, 0, 26);
	else if ((word & 0xff000010) == 0x54000000 ||	/* b.cond: imm19 */
		 (word & 0x7e000000) == 0x34000000)	/* cbz, cbnz */
		off = word_offset(word, 5, 19);
	else if ((word & 0x7e000000) == 0x36000000)	/* tbz, tbnz: imm14 */
		off = word_offset(word, 5, 14);
	else
		return false;
	*target = addr + (uint64_t)off;
	return true;
}

bool arm64_insn__adrp(uint32_t word, uint64_t addr, unsigned int *rd,
		      uint64_t *page)
{
	int64_t imm;

	if ((word & 0x9f000000) != 0x90000000)
		return false;
	imm = (int64_t)((word >> 5 & 0x7ffff) << 2 | (word >> 29 & 3));
	imm = (imm ^ (1 << 20)) - (1 << 20);		/* 21 bits, signed */
	*rd = word & 0x1f;
	*page = (addr & ~0xfffULL) + (uint64_t)(imm * 4096);
	return true;
}

bool arm64_insn__add_imm(uint32_t word, unsigned int rd, uint64_t *imm)
{
	if ((word & 0xff800000) != 0x91000000 || (word & 0x1f) != rd ||
	    (word >> 5 & 0x1f) != rd)
		return false;
	*imm = (uint64_t)(word >> 10 & 0xfff) << (word & (1U << 22) ? 12 : 0);
	return true;
}

bool arm64_insn__ldr_indexed8(uint32_t word, unsigned int *rn,
			      unsigned int *rt)
{
	/* LDR (register), 64 bits, option LSL (011) and S: scaled by 8 */
	if ((word & 0xffe0fc00) != 0xf8607800)
		return false;
	*rn = word & 0x1f;
	*rt = word >> 5 & 0x1f;
	return true;
}

int arm64_insn__bcond(uint32_t word)
{
	if ((word & 0xff000010) != 0x54000000)
		return -1;
	return (int)(word & 0xf);
}

int arm64_disasm__handle(csh *out)
{
	static csh handle;
	static bool opened;
	cs_err err;
	csh cs;

	if (opened) {
		*out = handle;
		return 0;
	}
	err = cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs);
	if (err == CS_ERR_ARCH)
		return gt_error(-ENOTSUP,
				"capstone: built without AArch64 (run make deps)");
	if (err != CS_ERR_OK)
		return gt_error(-ENOMEM, "capstone: %s", cs_strerror(err));
	err = cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	if (err != CS_ERR_OK) {
		cs_close(&cs);
		return gt_error(-ENOMEM, "capstone: %s", cs_strerror(err));
	}
	handle = cs;
	opened = true;
	*out = cs;
	return 0;
}

const cs_insn *arm64_disasm__one(const uint8_t *code, size_t len,
				 uint64_t entry, uint64_t addr)
{
	/* allocated once: cs_disasm() would allocate per instruction */
	static cs_insn *insn;
	const uint8_t *p;
	size_t n = 4;
	csh cs;

	if (addr < entry || addr - entry > len || len - (addr - entry) < 4)
		return NULL;
	if (arm64_disasm__handle(&cs))
		return NULL;
	if (!insn)
		insn = cs_malloc(cs);
	p = code + (addr - entry);
	if (!insn || !cs_disasm_iter(cs, &p, &n, &addr, insn))
		return NULL;
	return insn;
}

int arm64_disasm__func_code(const struct go_binary *bin,
			    const struct go_func *fn, const uint8_t **code,
			    size_t *len)
{
	int err;

	if (bin->elf->machine != EM_AARCH64)
		return gt_error(-ENOTSUP, "%s: not arm64 code (machine %u)",
				fn->name, bin->elf->machine);
	err = func_code__read(bin, fn, code, len);
	if (!err)
		*len &= ~(size_t)3;
	return err;
}

size_t arm64_disasm__padding(const uint8_t *code, size_t len)
{
	len &= ~(size_t)3;
	while (len && !arm64_insn__word(code + len - 4))
		len -= 4;
	return len;
}

/* Capstone's name of the 64-bit register Xn (n < 31). */
static arm64_reg xreg(unsigned int n)
{
	if (n == 29)
		return ARM64_REG_X29;
	if (n == 30)
		return ARM64_REG_X30;
	return (arm64_reg)(ARM64_REG_X0 + n);
}

bool arm64_br__through_table(const uint8_t *code, size_t len, uint64_t entry,
			     uint64_t addr)
{
	const cs_insn *ci;
	const cs_arm64 *a;
	unsigned int rn;

	if (addr - entry < 4 || addr - entry >= len)
		return false;
	rn = (arm64_insn__word(code + (addr - entry)) >> 5) & 0x1f;
	ci = arm64_disasm__one(code, len, entry, addr - 4);
	if (!ci || ci->id != ARM64_INS_LDR)
		return false;
	a = &ci->detail->arm64;
	return a->op_count == 2 && a->operands[0].type == ARM64_OP_REG &&
	       a->operands[0].reg == xreg(rn) &&
	       a->operands[1].type == ARM64_OP_MEM &&
	       a->operands[1].mem.index != ARM64_REG_INVALID;
}

int arm64_disasm__branch_targets(const struct go_binary *bin,
				 const struct go_func *fn, size_t window,
				 uint64_t *targets, size_t max, size_t *n)
{
	const uint8_t *code;
	enum site_flow flow;
	size_t len, off;
	bool ret;
	int err;

	*n = 0;
	err = arm64_disasm__func_code(bin, fn, &code, &len);
	if (err)
		return err;
	if (len > window)
		len = window & ~(size_t)3;
	for (off = 0; off < len && *n < max; off += 4) {
		uint32_t word = arm64_insn__word(code + off);

		flow = arm64_insn__flow(word, &ret);
		if ((flow == SITE_FLOW_CALL || flow == SITE_FLOW_JMP) &&
		    arm64_insn__target(word, fn->addr + off, &targets[*n]))
			(*n)++;
	}
	return 0;
}
