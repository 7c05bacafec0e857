// SPDX-License-Identifier: MIT
/*
 * The counting probe site of a function (probe_site.h): x86-64 code
 * decoded with capstone for site/site_code.c's choice.
 *
 * The kernel emulates a jump instead of single-stepping it out of line
 * (x86/uprobe_insn.h says which instructions): so the stack check's cmp
 * (49 3b 66 10: REX.WB cmp 0x10(%r14),%rsp) is single-stepped and its jbe
 * (76 xx or 0f 86 xx xx xx xx, X86_INS_JBE in capstone either way) is
 * emulated. Only the prologue is decoded with operands; the morestack
 * tail and a leaf's body without, but for their branches.
 */
#include <errno.h>
#include <stdbool.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "site/site_code.h"
#include "x86/disasm.h"
#include "x86/probe_site.h"
#include "x86/uprobe_insn.h"
#include "cookie.h"	/* EFLAGS_CF, EFLAGS_ZF */

struct x86_code {
	csh cs;			/* with operands */
	cs_insn *ci;		/* its last instruction */
	csh plain_cs;		/* without */
	cs_insn *plain_ci;
	const uint8_t *bytes;
};

/* Does CI move SP the way a frame is set up: push, or sub/add/lea/mov
 * into RSP? (Go's stack check computes into a scratch register, never
 * RSP.) */
static bool insn_writes_sp(const cs_insn *ci)
{
	const cs_x86 *x86 = &ci->detail->x86;

	switch (ci->id) {
	case X86_INS_PUSH:
		return true;
	case X86_INS_SUB:
	case X86_INS_ADD:
	case X86_INS_LEA:
	case X86_INS_MOV:
		return x86->op_count >= 1 && x86->operands[0].type == X86_OP_REG &&
		       x86->operands[0].reg == X86_REG_RSP;
	default:
		return false;
	}
}

/* Is CI `cmp 0x10(%r14),REG`: the stack check of register-ABI Go code,
 * which compares against g.stackguard0 through g in R14? */
static bool insn_cmp_stackguard_r14(const cs_insn *ci)
{
	const cs_x86 *x86 = &ci->detail->x86;
	uint8_t i;

	if (ci->id != X86_INS_CMP)
		return false;
	for (i = 0; i < x86->op_count; i++)
		if (x86->operands[i].type == X86_OP_MEM &&
		    x86->operands[i].mem.base == X86_REG_R14 &&
		    x86->operands[i].mem.index == X86_REG_INVALID &&
		    x86->operands[i].mem.segment == X86_REG_INVALID &&
		    x86->operands[i].mem.disp == 0x10)
			return true;
	return false;
}

/* EFLAGS bits under which the conditional jump ID is taken, or 0 when we
 * do not handle its condition. */
static uint32_t jcc_taken_flags(unsigned int id)
{
	switch (id) {
	case X86_INS_JBE:
		return EFLAGS_CF | EFLAGS_ZF;
	case X86_INS_JB:
		return EFLAGS_CF;
	default:
		return 0;
	}
}

/* Decode the instruction at ADDR with CS into CI. */
static bool code__decode(const struct site_code *c, uint64_t addr, csh cs,
			 cs_insn *ci)
{
	const struct x86_code *x = c->decoder;
	const uint8_t *p;
	uint64_t a = addr;
	size_t n;

	if (addr < c->entry || addr - c->entry >= c->len)
		return false;
	p = x->bytes + (addr - c->entry);
	n = c->len - (addr - c->entry);
	return cs_disasm_iter(cs, &p, &n, &a, ci);
}

/*
 * The site_code decoder of x86-64 code (site_code.h). With OPERANDS,
 * x->ci keeps the instruction; without, only a branch or call is decoded
 * again with its operands, for its target: a decode with operands costs
 * a fifth more.
 */
static bool code__insn_at(struct site_code *c, uint64_t addr, bool operands,
			  struct site_insn *in)
{
	struct x86_code *x = c->decoder;
	const cs_insn *ci = operands ? x->ci : x->plain_ci;

	if (!code__decode(c, addr, operands ? x->cs : x->plain_cs,
			  operands ? x->ci : x->plain_ci))
		return false;
	*in = (struct site_insn){
		.addr = addr,
		.next = addr + ci->size,
		.flow = x86_insn__site_flow(ci->id),
		.ret = ci->id == X86_INS_RET,
		.emulated = uprobe_insn__emulated(ci->bytes, ci->size),
		/* the prologue up to its check writes only flags and a
		 * scratch register (R12, or CX in Go <= 1.16, whose ABI0
		 * passes nothing in registers), in every version */
		.keeps_entry = true,
	};
	if (!operands) {
		if (in->flow != SITE_FLOW_JCC && in->flow != SITE_FLOW_JMP &&
		    in->flow != SITE_FLOW_CALL)
			return true;
		ci = x86_disasm__operands(ci);
		if (!ci)
			return false;
	} else {
		in->only_flags = x86_insn__writes_only_flags(ci);
	}
	in->direct = in->flow != SITE_FLOW_PLAIN &&
		     in->flow != SITE_FLOW_STOP &&
		     x86_insn__direct_target(ci, &in->target);
	if (in->flow == SITE_FLOW_JCC)
		in->taken_flags = jcc_taken_flags(ci->id);
	in->reads_g = insn_cmp_stackguard_r14(ci);
	in->writes_sp = insn_writes_sp(ci);
	return true;
}

int probe_site__choose_x86(const uint8_t *code, size_t len, uint64_t addr,
			   probe_site_name_fn name_at,
			   probe_site_restart_fn restart_at, void *ctx,
			   struct probe_site *site)
{
	struct x86_code x = { .bytes = code };
	struct site_code c = {
		.insn_at = code__insn_at, .decoder = &x,
		.len = len, .entry = addr, .name_at = name_at,
		.restart_at = restart_at, .ctx = ctx,
	};
	int err;

	err = site_code__begin(&c, site);
	if (err <= 0)
		return err;
	err = x86_disasm__handle(true, &x.cs);
	if (!err)
		err = x86_disasm__handle(false, &x.plain_cs);
	if (err)
		return err;
	x.ci = cs_malloc(x.cs);
	x.plain_ci = cs_malloc(x.plain_cs);
	if (!x.ci || !x.plain_ci)
		err = gt_error(-ENOMEM, "out of memory");
	else
		site_code__choose(&c, site);
	if (x.ci)
		cs_free(x.ci, 1);
	if (x.plain_ci)
		cs_free(x.plain_ci, 1);
	return err;
}

int probe_site__for_entry_x86(const struct go_binary *bin,
			      const struct go_func *fn,
			      struct probe_site *site)
{
	const uint8_t *code;
	size_t len;
	int err;

	probe_site__init_entry(site, fn->addr);
	if (bin->elf->machine != EM_X86_64)
		return 0;
	err = x86_disasm__func_code(bin, fn, &code, &len);
	if (err)
		return err;
	/* gc marks no restartable sequence on x86-64 (it has no assembler's
	 * temporary register): no PCDATA_UnsafePoint walk per candidate */
	return probe_site__choose_x86(code, len, fn->addr,
				      probe_site__func_name_at, NULL,
				      (void *)bin, site);
}
