// SPDX-License-Identifier: MIT
/*
 * The counting probe site of a function (probe_site.h), found by
 * disassembling its x86-64 code with capstone.
 *
 * The kernel emulates a jump instead of single-stepping it out of line
 * (x86/uprobe_insn.h says which instructions): so the stack check's cmp
 * (49 3b 66 10: REX.WB cmp 0x10(%r14),%rsp) is single-stepped and its jbe
 * (76 xx or 0f 86 xx xx xx xx, X86_INS_JBE in capstone either way) is
 * emulated.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "x86/disasm.h"
#include "x86/probe_site.h"
#include "x86/uprobe_insn.h"
#include "cookie.h"	/* EFLAGS_CF, EFLAGS_ZF */

/* The stack check takes up to 9 instructions (go1.15 -buildmode=pie, frames
 * over 4 KiB). */
#define PROLOGUE_MAX_INSNS	12
/* The morestack tail: spills, the call, reloads, the jmp back. */
#define TAIL_MAX_INSNS		40

struct insn {
	uint64_t addr;
	uint64_t next;		/* address of the following instruction */
	unsigned int id;	/* X86_INS_* */
	enum x86_flow flow;
	bool direct;		/* target is known (relative branch or call) */
	uint64_t target;
	bool emulated;
	/* Known only when decoded with operands (code__insn_at): */
	bool cmp_stackguard_r14;	/* cmp against 0x10(%r14) */
	bool writes_sp;		/* push, or an ALU op or lea into RSP */
};

struct code {
	csh cs;			/* with operands */
	cs_insn *ci;		/* its last instruction */
	csh plain_cs;		/* without */
	cs_insn *plain_ci;
	const uint8_t *bytes;
	size_t len;
	uint64_t entry;		/* address of bytes[0] */
	probe_site_name_fn name_at;
	void *ctx;
};

static bool flow_branches(enum x86_flow flow)
{
	return flow == X86_FLOW_JCC || flow == X86_FLOW_JMP ||
	       flow == X86_FLOW_CALL;
}

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

/* Decode the instruction at ADDR with CS into CI. */
static bool code__decode(const struct code *c, uint64_t addr, csh cs,
			 cs_insn *ci)
{
	const uint8_t *p;
	uint64_t a = addr;
	size_t n;

	if (addr < c->entry || addr - c->entry >= c->len)
		return false;
	p = c->bytes + (addr - c->entry);
	n = c->len - (addr - c->entry);
	return cs_disasm_iter(cs, &p, &n, &a, ci);
}

/*
 * Decode the instruction at ADDR into IN. With OPERANDS, all of IN, and
 * c->ci keeps the instruction for the caller; without, only a branch or
 * call is decoded again with its operands, for its target: a decode with
 * operands costs a fifth more. False when ADDR lies outside the code or
 * its bytes are not an instruction.
 */
static bool code__insn_at(struct code *c, uint64_t addr, bool operands,
			  struct insn *in)
{
	const cs_insn *ci = operands ? c->ci : c->plain_ci;

	if (!code__decode(c, addr, operands ? c->cs : c->plain_cs,
			  operands ? c->ci : c->plain_ci))
		return false;
	*in = (struct insn){
		.addr = addr,
		.next = addr + ci->size,
		.id = ci->id,
		.flow = x86_insn__flow(ci->id),
		.emulated = uprobe_insn__emulated(ci->bytes, ci->size),
	};
	if (!operands) {
		if (!flow_branches(in->flow))
			return true;
		ci = x86_disasm__operands(ci);
		if (!ci)
			return false;
	}
	in->direct = flow_branches(in->flow) &&
		     x86_insn__direct_target(ci, &in->target);
	in->cmp_stackguard_r14 = insn_cmp_stackguard_r14(ci);
	in->writes_sp = insn_writes_sp(ci);
	return true;
}

/* Does the block at ADDR call runtime.morestack* and then jump back to the
 * entry, like the tail that Go's stack check branches to? *END: where its
 * jmp back ends. */
static bool code__is_morestack_tail(struct code *c, uint64_t addr,
				    uint64_t *end)
{
	static const char prefix[] = "runtime.morestack";
	bool called = false;
	struct insn in;
	const char *name;
	int i;

	for (i = 0; i < TAIL_MAX_INSNS && code__insn_at(c, addr, false, &in);
	     i++) {
		if (in.flow == X86_FLOW_CALL) {
			/* a bounds check's block calls runtime.panicIndex
			 * first, and may fall into the morestack tail */
			name = in.direct ? c->name_at(c->ctx, in.target) : NULL;
			if (called || !name ||
			    strncmp(name, prefix, sizeof(prefix) - 1))
				return false;
			called = true;
		} else if (in.flow == X86_FLOW_JMP) {
			*end = in.next;
			return called && in.direct && in.target == c->entry;
		} else if (in.flow == X86_FLOW_STOP) {
			return false;
		}
		addr = in.next;
	}
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

/* The last conditional jump of the prologue to the morestack tail. The
 * prologue before it writes flags and a scratch register only (Go's
 * stack check, in every version), so the jump sees the entry state. */
static bool code__find_stack_check(struct code *c, struct probe_site *site)
{
	struct insn in, check = { 0 };
	uint64_t addr = c->entry, tail_end = 0, end;
	bool found = false, r14 = false, r14_before = false;
	int i;

	for (i = 0; i < PROLOGUE_MAX_INSNS && code__insn_at(c, addr, true, &in);
	     i++) {
		/* the frame is being set up: the prologue's checks are over */
		if (found && in.writes_sp)
			break;
		if (in.flow == X86_FLOW_JCC) {
			if (in.direct &&
			    code__is_morestack_tail(c, in.target, &end)) {
				check = in;
				found = true;
				r14_before = r14;
				tail_end = end;
			}
		} else if (in.flow != X86_FLOW_PLAIN) {
			break;
		}
		r14 |= in.cmp_stackguard_r14;
		addr = in.next;
	}
	if (!found || !check.emulated || !jcc_taken_flags(check.id))
		return false;
	site->addr = check.addr;
	site->skip_flags = jcc_taken_flags(check.id);
	site->kind = PROBE_SITE_STACK_CHECK;
	site->at_entry_state = true;
	site->emulated = true;
	site->g_in_r14 = r14_before;
	/* what the scan decoded: plain instructions and jccs */
	site->no_exit[0] = (struct code_span){ c->entry, addr };
	site->no_exit[1] = (struct code_span){ check.target, tail_end };
	site->morestack_tail = site->no_exit[1];
	return true;
}

/* Could IN leave the function, as x86/exit_sites.h sees exits: a RET, or
 * a JMP but a direct one into the code? */
static bool code__may_exit(const struct code *c, const struct insn *in)
{
	if (in->id == X86_INS_RET)
		return true;
	return in->flow == X86_FLOW_JMP &&
	       !(in->direct && in->target - c->entry < c->len);
}

/* Does no branch or call of the function land in (entry, addr]? A branch
 * to the entry itself re-runs the entry byte as well, so a site it
 * reaches is no worse than the entry. Unknown targets (indirect jumps,
 * undecodable bytes) count as landing there. *NO_EXIT_END: the sweep found
 * no exit before it (the first one, or where the sweep stopped), so that
 * the sweep for exits need not decode that code again. */
static bool code__runs_once_to(struct code *c, uint64_t addr,
			       uint64_t *no_exit_end)
{
	uint64_t a = c->entry;
	bool exit_seen = false;
	struct insn in;

	*no_exit_end = c->entry;
	/* (entry, entry] is empty */
	if (addr == c->entry)
		return true;
	while (a - c->entry < c->len) {
		if (!code__insn_at(c, a, false, &in))
			return false;
		exit_seen = exit_seen || code__may_exit(c, &in);
		if (!exit_seen)
			*no_exit_end = in.next;
		if (flow_branches(in.flow)) {
			if (!in.direct && in.flow != X86_FLOW_CALL)
				return false;
			if (in.direct && in.target > c->entry &&
			    in.target <= addr)
				return false;
		}
		a = in.next;
	}
	return true;
}

/* Without a stack check: the first emulated instruction of the
 * straight-line entry block, if it runs exactly once per call. */
static bool code__find_emulated(struct code *c, struct probe_site *site)
{
	uint64_t addr = c->entry, no_exit_end;
	bool only_flags = true;
	struct insn in;

	for (;;) {
		if (!code__insn_at(c, addr, true, &in))
			return false;
		if (in.emulated)
			break;
		if (in.flow != X86_FLOW_PLAIN)
			return false;
		/* of the instruction just decoded, in c->ci */
		only_flags &= x86_insn__writes_only_flags(c->ci);
		addr = in.next;
	}
	if (!code__runs_once_to(c, in.addr, &no_exit_end)) {
		/* the entry byte, but what the sweep decoded is known */
		site->no_exit[0] = (struct code_span){ c->entry, no_exit_end };
		return false;
	}
	site->addr = in.addr;
	site->skip_flags = 0;
	site->kind = PROBE_SITE_EMULATED;
	site->at_entry_state = only_flags;
	site->emulated = true;
	/* the plain instructions before it (the site itself may be a jmp),
	 * or as far as the sweep found no exit */
	if (no_exit_end < in.addr)
		no_exit_end = in.addr;
	site->no_exit[0] = (struct code_span){ c->entry, no_exit_end };
	return true;
}

void probe_site__init_entry(struct probe_site *site, uint64_t entry)
{
	*site = (struct probe_site){
		.addr = entry,
		.kind = PROBE_SITE_ENTRY,
		.at_entry_state = true,
	};
}

int probe_site__choose_x86(const uint8_t *code, size_t len, uint64_t addr,
			   probe_site_name_fn name_at, void *ctx,
			   struct probe_site *site)
{
	struct code c = {
		.bytes = code, .len = len, .entry = addr,
		.name_at = name_at, .ctx = ctx,
	};
	int err;

	probe_site__init_entry(site, addr);
	if (!len)
		return 0;
	/* Every check below assumes addresses do not wrap. */
	if (len > UINT64_MAX - addr)
		return gt_error(-EINVAL, "code at 0x%llx wraps around",
				(unsigned long long)addr);
	err = x86_disasm__handle(true, &c.cs);
	if (!err)
		err = x86_disasm__handle(false, &c.plain_cs);
	if (err)
		return err;
	c.ci = cs_malloc(c.cs);
	c.plain_ci = cs_malloc(c.plain_cs);
	if (!c.ci || !c.plain_ci)
		err = gt_error(-ENOMEM, "out of memory");
	else if (!code__find_stack_check(&c, site))
		code__find_emulated(&c, site);
	if (c.ci)
		cs_free(c.ci, 1);
	if (c.plain_ci)
		cs_free(c.plain_ci, 1);
	return err;
}

static const char *binary_name_at(void *ctx, uint64_t addr)
{
	const struct go_func *fn = go_binary__func_at(ctx, addr);

	return fn ? fn->name : NULL;
}

int probe_site__for_entry(const struct go_binary *bin,
			  const struct go_func *fn, struct probe_site *site)
{
	const uint8_t *code;
	size_t len;
	int err;

	probe_site__init_entry(site, fn->addr);
	if (bin->elf->machine != EM_X86_64)
		return 0;
	len = go_binary__func_span(bin, fn);
	err = elf_file__read_vaddr(bin->elf, fn->addr, len, &code);
	/* With no known size, settle for what the segment holds. */
	while (err && !fn->size && len > 16) {
		len /= 2;
		err = elf_file__read_vaddr(bin->elf, fn->addr, len, &code);
	}
	if (err)
		return gt_error(err, "cannot read the code of %s at 0x%llx",
				fn->name, (unsigned long long)fn->addr);
	return probe_site__choose_x86(code, len, fn->addr, binary_name_at,
				      (void *)bin, site);
}

const char *probe_site_kind__str(enum probe_site_kind kind)
{
	switch (kind) {
	case PROBE_SITE_ENTRY:
		return "entry";
	case PROBE_SITE_STACK_CHECK:
		return "stack-check";
	case PROBE_SITE_EMULATED:
		return "emulated";
	case PROBE_SITE_INLINE:
		return "inline";
	}
	return "unknown";
}
