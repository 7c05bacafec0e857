// SPDX-License-Identifier: MIT
/*
 * The counting probe site of a function of arm64 code (probe_site.h):
 * each instruction told to site/site_code.c's choice, its flow, target
 * and whether the kernel simulates it from its word alone, its operands
 * (the prologue's registers and memory) from capstone.
 */
#include <errno.h>
#include <stdbool.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "site/site_code.h"
#include "arm64/disasm.h"
#include "arm64/probe_site.h"
#include "arm64/uprobe_insn.h"

/* b.cond's conditions (the word's bits 3:0) the stack check uses */
#define COND_LO		3	/* BCC: C clear */
#define COND_LS		9	/* BLS: C clear or Z set */

struct arm64_code {
	const uint8_t *bytes;
	csh cs;			/* with operands */
	cs_insn *ci;
};

/* A register the stack check computes in, which carries no argument: R16
 * and R17, the linker's scratch registers, and R27, the assembler's, since
 * Go 1.18; R1, R2 and R3 before, in Go 1.15 to 1.17, whose arm64 ABI
 * (ABI0) passes nothing in registers (gc's prologues in the register ABI
 * never write them: like x86-64's CX, see x86/probe_site.c). */
static bool scratch_reg(arm64_reg r)
{
	switch (r) {
	case ARM64_REG_X1: case ARM64_REG_X2: case ARM64_REG_X3:
	case ARM64_REG_X16: case ARM64_REG_X17: case ARM64_REG_X27:
	case ARM64_REG_W1: case ARM64_REG_W2: case ARM64_REG_W3:
	case ARM64_REG_W16: case ARM64_REG_W17: case ARM64_REG_W27:
		return true;
	default:
		return false;
	}
}

/* Does CI load g.stackguard0 or stackguard1: 16(R28) or 24(R28)? */
static bool insn_reads_g(const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;

	return ci->id == ARM64_INS_LDR && a->op_count == 2 &&
	       a->operands[1].type == ARM64_OP_MEM &&
	       a->operands[1].mem.base == ARM64_REG_X28 &&
	       a->operands[1].mem.index == ARM64_REG_INVALID &&
	       (a->operands[1].mem.disp == 16 || a->operands[1].mem.disp == 24);
}

/* Does CI move SP the way a frame is set up: a store or load with
 * writeback to SP (`MOVD.W R30, -32(RSP)`), or SP written (`MOVD R20,
 * RSP`, `SUB $n, RSP`)? Go's stack check computes into R17, never SP. */
static bool insn_writes_sp(const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;
	uint8_t i;

	if (a->writeback)
		for (i = 0; i < a->op_count; i++)
			if (a->operands[i].type == ARM64_OP_MEM &&
			    a->operands[i].mem.base == ARM64_REG_SP)
				return true;
	switch (ci->id) {
	case ARM64_INS_MOV:
	case ARM64_INS_ADD:
	case ARM64_INS_SUB:
		return a->op_count >= 1 && a->operands[0].type == ARM64_OP_REG &&
		       a->operands[0].reg == ARM64_REG_SP;
	default:
		return false;
	}
}

/* Does CI write no register but NZCV: a compare, a nop, a store without
 * writeback? (Diet capstone leaves out register access: said from the id
 * and the operands, anything else counting as writing one.) */
static bool insn_only_flags(const cs_insn *ci)
{
	switch (ci->id) {
	case ARM64_INS_CMP: case ARM64_INS_CMN: case ARM64_INS_TST:
	case ARM64_INS_NOP:
		return true;
	case ARM64_INS_STR: case ARM64_INS_STRB: case ARM64_INS_STRH:
	case ARM64_INS_STUR: case ARM64_INS_STURB: case ARM64_INS_STURH:
	case ARM64_INS_STP:
		return !ci->detail->arm64.writeback;
	default:
		return false;
	}
}

/* Does CI write only NZCV and a scratch register: the instructions of
 * the stack check (ldr, mov, movk, sub, subs into R16, R17, R27; cmp)? */
static bool insn_keeps_entry(const cs_insn *ci)
{
	const cs_arm64 *a = &ci->detail->arm64;

	if (insn_only_flags(ci))
		return true;
	switch (ci->id) {
	case ARM64_INS_LDR: case ARM64_INS_LDUR:
	case ARM64_INS_MOV: case ARM64_INS_MOVZ: case ARM64_INS_MOVK:
	case ARM64_INS_MOVN: case ARM64_INS_ORR:
	case ARM64_INS_ADD: case ARM64_INS_ADDS:
	case ARM64_INS_SUB: case ARM64_INS_SUBS:
	case ARM64_INS_ADR: case ARM64_INS_ADRP:
		return !a->writeback && a->op_count >= 1 &&
		       a->operands[0].type == ARM64_OP_REG &&
		       scratch_reg(a->operands[0].reg);
	default:
		return false;
	}
}

/* The site_code decoder of arm64 code (site_code.h). */
static bool code__insn_at(struct site_code *c, uint64_t addr, bool operands,
			  struct site_insn *in)
{
	struct arm64_code *x = c->decoder;
	const uint8_t *p;
	uint64_t a = addr;
	size_t off = addr - c->entry, n = 4;
	const cs_insn *ci;
	enum site_flow flow;
	uint32_t word;
	bool ret;

	if (addr < c->entry || off >= c->len || c->len - off < 4 || off % 4)
		return false;
	p = x->bytes + off;
	word = arm64_insn__word(p);
	flow = arm64_insn__flow(word, &ret);
	*in = (struct site_insn){
		.addr = addr,
		.next = addr + 4,
		.flow = flow,
		.ret = ret,
		.emulated = arm64_uprobe_insn__simulated(word),
	};
	in->direct = arm64_insn__target(word, addr, &in->target);
	if (!operands)
		return true;
	if (!cs_disasm_iter(x->cs, &p, &n, &a, x->ci))
		return false;
	ci = x->ci;
	switch (arm64_insn__bcond(word)) {
	case COND_LS:
		in->taken_flags = ARM64_PSTATE_C | ARM64_PSTATE_Z;
		in->taken_clear = ARM64_PSTATE_C;
		break;
	case COND_LO:
		in->taken_flags = ARM64_PSTATE_C;
		in->taken_clear = ARM64_PSTATE_C;
		break;
	}
	in->reads_g = insn_reads_g(ci);
	in->writes_sp = insn_writes_sp(ci);
	in->keeps_entry = insn_keeps_entry(ci);
	in->only_flags = insn_only_flags(ci);
	return true;
}

int probe_site__choose_arm64(const uint8_t *code, size_t len, uint64_t addr,
			     probe_site_name_fn name_at,
			     probe_site_restart_fn restart_at, void *ctx,
			     struct probe_site *site)
{
	struct arm64_code x = { .bytes = code };
	struct site_code c = {
		.insn_at = code__insn_at, .decoder = &x,
		.len = len, .entry = addr, .name_at = name_at,
		.restart_at = restart_at, .ctx = ctx,
	};
	int err;

	err = site_code__begin(&c, site);
	if (err <= 0)
		return err;
	err = arm64_disasm__handle(&x.cs);
	if (err)
		return err;
	x.ci = cs_malloc(x.cs);
	if (!x.ci)
		return gt_error(-ENOMEM, "out of memory");
	site_code__choose(&c, site);
	cs_free(x.ci, 1);
	return 0;
}

int probe_site__for_entry_arm64(const struct go_binary *bin,
				const struct go_func *fn,
				struct probe_site *site)
{
	const uint8_t *code;
	size_t len;
	int err;

	probe_site__init_entry(site, fn->addr);
	err = arm64_disasm__func_code(bin, fn, &code, &len);
	if (err)
		return err;
	return probe_site__choose_arm64(code, len, fn->addr,
					probe_site__func_name_at,
					probe_site__restart_run_at, (void *)bin,
					site);
}
