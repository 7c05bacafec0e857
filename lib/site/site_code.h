/* SPDX-License-Identifier: MIT */
/*
 * A function's code as a machine's decoder sees it, and the choice of its
 * counting site over it (probe_site.h): the rules of Go's prologue that
 * do not depend on the machine, shared by x86/probe_site.c and
 * arm64/probe_site.c, which say what each instruction is.
 *
 * The choice: the last conditional branch of the prologue to the
 * morestack tail (a block that calls runtime.morestack* and jumps back to
 * the entry), counted when it is not taken, if the kernel emulates it and
 * its condition is one of the flags register's (taken_flags); else the
 * first emulated instruction of the straight-line entry block, if no
 * branch lands between the entry and it (it runs once per call); else
 * the entry.
 *
 * A site runs once per call only if async preemption never makes it run
 * again: Go's preemption resumes a restartable sequence (arm64's ADRP and
 * LDR of a global through R27) at its first instruction, so no site is
 * in one but at its last instruction; an entry that begins one moves to
 * that last instruction (struct probe_site's entry_addr), when the ones
 * before it keep the entry state (they write only R27).
 */
#ifndef GOTOOLS_SITE_CODE_H
#define GOTOOLS_SITE_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "site/probe_site.h"

/* What an instruction does to the flow of control. */
enum site_flow {
	SITE_FLOW_PLAIN,	/* falls through to the next instruction */
	SITE_FLOW_JCC,		/* a conditional branch */
	SITE_FLOW_JMP,
	SITE_FLOW_CALL,
	/* ret, a trap, a system call...: nothing we know follows */
	SITE_FLOW_STOP,
};

struct site_insn {
	uint64_t addr;
	uint64_t next;		/* address of the following instruction */
	enum site_flow flow;
	bool ret;		/* a return (SITE_FLOW_STOP) */
	bool direct;		/* a branch or call whose target is known */
	uint64_t target;
	/* SITE_FLOW_JMP, not direct: a switch's jump through its table,
	 * whose targets are in the body (exit_jump__leaves()); set by the
	 * decoders of site/inline_ends.h, not site_code's */
	bool through_table;
	bool emulated;		/* the kernel emulates it (uprobe_insn.h) */
	/* Known only when decoded with operands: */
	/* SITE_FLOW_JCC: the flags under which it is taken, as struct
	 * probe_site's skip_flags and skip_clear; 0 for a condition the
	 * choice does not handle */
	uint32_t taken_flags;
	uint32_t taken_clear;
	bool reads_g;		/* reads g.stackguard through the g register */
	bool writes_sp;		/* moves SP the way a frame is set up */
	/* writes only flags and registers Go's stack check computes in,
	 * which carry no argument */
	bool keeps_entry;
	bool only_flags;	/* writes no register but the flags */
};

struct site_code;

/* Decode the instruction at ADDR into IN: with OPERANDS, all of it;
 * without, all but the fields known only with operands. False when ADDR
 * lies outside the code or its bytes are not an instruction. */
typedef bool (*site_insn_fn)(struct site_code *c, uint64_t addr,
			     bool operands, struct site_insn *in);

struct site_code {
	site_insn_fn insn_at;
	void *decoder;		/* the machine's own state */
	size_t len;		/* bytes of code */
	uint64_t entry;		/* address of its first byte */
	probe_site_name_fn name_at;	/* recognises runtime.morestack */
	/* the restartable sequences (NULL: none) */
	probe_site_restart_fn restart_at;
	void *ctx;
};

/* SITE set to C's entry (probe_site__init_entry()): 1 when C has code to
 * choose a better one from, 0 when it has none, or -EINVAL with a reason
 * when its addresses wrap around. */
int site_code__begin(const struct site_code *c, struct probe_site *site);

/* Choose the counting site of C's function into SITE (which holds the
 * entry, probe_site__init_entry, when nothing better is found). C's
 * addresses must not wrap (site_code__begin()). */
void site_code__choose(struct site_code *c, struct probe_site *site);

#endif
