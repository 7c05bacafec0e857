// SPDX-License-Identifier: MIT
/* The choice of a counting site over a machine's decoder (site_code.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "core/error.h"
#include "site/site_code.h"

/* The stack check takes up to 9 instructions (go1.15 -buildmode=pie on
 * x86-64, frames over 4 KiB), 7 on arm64 (frames too large for an
 * immediate, which check SP - framesize for underflow first). */
#define PROLOGUE_MAX_INSNS	12
/* The morestack tail: spills, the call, reloads, the jump back. */
#define TAIL_MAX_INSNS		40

/* Does async preemption make IN run again after it ran, in the same
 * call: is it in a restartable sequence, but its last instruction? */
static bool code__restarted(const struct site_code *c,
			    const struct site_insn *in)
{
	uint64_t start, end;

	return c->restart_at && c->restart_at(c->ctx, in->addr, &start, &end) &&
	       in->next < end;
}

static bool flow_branches(enum site_flow flow)
{
	return flow == SITE_FLOW_JCC || flow == SITE_FLOW_JMP ||
	       flow == SITE_FLOW_CALL;
}

/* Does the block at ADDR call runtime.morestack* and then jump back to the
 * entry, like the tail that Go's stack check branches to? *END: where its
 * jump back ends. */
static bool code__is_morestack_tail(struct site_code *c, uint64_t addr,
				    uint64_t *end)
{
	static const char prefix[] = "runtime.morestack";
	bool called = false;
	struct site_insn in;
	const char *name;
	int i;

	for (i = 0; i < TAIL_MAX_INSNS && c->insn_at(c, addr, false, &in);
	     i++) {
		if (in.flow == SITE_FLOW_CALL) {
			/* a bounds check's block calls runtime.panicIndex
			 * first, and may fall into the morestack tail */
			name = in.direct ? c->name_at(c->ctx, in.target) : NULL;
			if (called || !name ||
			    strncmp(name, prefix, sizeof(prefix) - 1))
				return false;
			called = true;
		} else if (in.flow == SITE_FLOW_JMP) {
			*end = in.next;
			return called && in.direct && in.target == c->entry;
		} else if (in.flow == SITE_FLOW_STOP) {
			return false;
		}
		addr = in.next;
	}
	return false;
}

/* The last conditional branch of the prologue to the morestack tail. The
 * prologue before it writes flags and scratch registers only (Go's
 * stack check, in every version, on both machines), so the branch sees
 * the entry state. */
static bool code__find_stack_check(struct site_code *c,
				   struct probe_site *site)
{
	struct site_insn in, check = { 0 };
	uint64_t addr = c->entry, tail_end = 0, end;
	bool found = false, g = false, g_before = false;
	bool keeps = true, keeps_before = true;
	int i;

	for (i = 0; i < PROLOGUE_MAX_INSNS && c->insn_at(c, addr, true, &in);
	     i++) {
		/* the frame is being set up: the prologue's checks are over */
		if (found && in.writes_sp)
			break;
		if (in.flow == SITE_FLOW_JCC) {
			if (in.direct &&
			    code__is_morestack_tail(c, in.target, &end)) {
				check = in;
				found = true;
				g_before = g;
				keeps_before = keeps;
				tail_end = end;
			}
		} else if (in.flow != SITE_FLOW_PLAIN) {
			break;
		}
		g |= in.reads_g;
		keeps &= in.keeps_entry;
		addr = in.next;
	}
	if (!found || !check.emulated || !check.taken_flags ||
	    code__restarted(c, &check))
		return false;
	site->addr = check.addr;
	site->skip_flags = check.taken_flags;
	site->skip_clear = check.taken_clear;
	site->kind = PROBE_SITE_STACK_CHECK;
	site->at_entry_state = keeps_before;
	site->emulated = true;
	site->g_in_reg = g_before;
	/* what the scan decoded: plain instructions and conditional
	 * branches */
	site->no_exit[0] = (struct code_span){ c->entry, addr };
	site->no_exit[1] = (struct code_span){ check.target, tail_end };
	site->morestack_tail = site->no_exit[1];
	return true;
}

/* Could IN leave the function, as exit_sites sees exits: a return, or a
 * jump but a direct one into the code? */
static bool code__may_exit(const struct site_code *c,
			   const struct site_insn *in)
{
	if (in->ret)
		return true;
	return in->flow == SITE_FLOW_JMP &&
	       !(in->direct && in->target - c->entry < c->len);
}

/* Does no branch or call of the function land in (entry, addr]? A branch
 * to the entry itself re-runs the entry instruction as well, so a site it
 * reaches is no worse than the entry. Unknown targets (indirect jumps,
 * undecodable bytes) count as landing there. *NO_EXIT_END: the sweep found
 * no exit before it (the first one, or where the sweep stopped), so that
 * the sweep for exits need not decode that code again. */
static bool code__runs_once_to(struct site_code *c, uint64_t addr,
			       uint64_t *no_exit_end)
{
	uint64_t a = c->entry;
	bool exit_seen = false;
	struct site_insn in;

	*no_exit_end = c->entry;
	/* (entry, entry] is empty */
	if (addr == c->entry)
		return true;
	while (a - c->entry < c->len) {
		if (!c->insn_at(c, a, false, &in))
			return false;
		exit_seen = exit_seen || code__may_exit(c, &in);
		if (!exit_seen)
			*no_exit_end = in.next;
		if (flow_branches(in.flow)) {
			if (!in.direct && in.flow != SITE_FLOW_CALL)
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
static bool code__find_emulated(struct site_code *c, struct probe_site *site)
{
	uint64_t addr = c->entry, no_exit_end;
	bool only_flags = true;
	struct site_insn in;

	for (;;) {
		if (!c->insn_at(c, addr, true, &in))
			return false;
		if (in.emulated && !code__restarted(c, &in))
			break;
		if (in.flow != SITE_FLOW_PLAIN)
			return false;
		only_flags &= in.only_flags;
		addr = in.next;
	}
	if (!code__runs_once_to(c, in.addr, &no_exit_end)) {
		/* the entry, but what the sweep decoded is known */
		site->no_exit[0] = (struct code_span){ c->entry, no_exit_end };
		return false;
	}
	site->addr = in.addr;
	site->skip_flags = 0;
	site->skip_clear = 0;
	site->kind = PROBE_SITE_EMULATED;
	site->at_entry_state = only_flags;
	site->emulated = true;
	/* the plain instructions before it (the site itself may be a jump),
	 * or as far as the sweep found no exit */
	if (no_exit_end < in.addr)
		no_exit_end = in.addr;
	site->no_exit[0] = (struct code_span){ c->entry, no_exit_end };
	return true;
}

int site_code__begin(const struct site_code *c, struct probe_site *site)
{
	probe_site__init_entry(site, c->entry);
	if (!c->len)
		return 0;
	/* Every check of the choice assumes addresses do not wrap. */
	if (c->len > UINT64_MAX - c->entry)
		return gt_error(-EINVAL, "code at 0x%llx wraps around",
				(unsigned long long)c->entry);
	return 1;
}

/* Where the entry state is seen once per call (struct probe_site's
 * entry_addr): the entry, or past the restartable sequence it begins, if
 * the instructions before that sequence's last keep the entry state. */
static void code__find_entry(struct site_code *c, struct probe_site *site)
{
	uint64_t addr = c->entry, start, end;
	struct site_insn in;

	if (!c->restart_at || !c->restart_at(c->ctx, addr, &start, &end))
		return;
	while (c->insn_at(c, addr, true, &in) && in.addr >= start) {
		if (in.next >= end) {
			site->entry_addr = in.addr;
			site->entry_emulated = in.emulated;
			return;
		}
		if (in.flow != SITE_FLOW_PLAIN || !in.keeps_entry)
			return;
		addr = in.next;
	}
}

void site_code__choose(struct site_code *c, struct probe_site *site)
{
	probe_site__init_entry(site, c->entry);
	if (!c->len)
		return;
	code__find_entry(c, site);
	if (code__find_stack_check(c, site) || code__find_emulated(c, site))
		return;
	/* no better site: the entry, once per call */
	site->addr = site->entry_addr;
	site->emulated = site->entry_emulated;
}
