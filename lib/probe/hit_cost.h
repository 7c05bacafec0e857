/* SPDX-License-Identifier: MIT */
/*
 * What one uprobe hit costs the thread that hits it, on this machine and
 * kernel: the trap, the kernel's handling and an empty BPF program. The
 * kernel emulates some instructions (a jump, a push: x86/uprobe_insn.h; a
 * branch, arm64/uprobe_insn.h) and single-steps the others out of line, which takes a second trap: on a
 * virtual machine ten times the cost. --max-overhead (cli/overhead_limit.h)
 * weighs the hits of each kind of site by these costs.
 */
#ifndef GOTOOLS_HIT_COST_H
#define GOTOOLS_HIT_COST_H

struct hit_cost {
	double emulated_ns;	/* per hit of an emulated site */
	double stepped_ns;	/* per hit of a single-stepped site */
};

/*
 * Measure both: probe two functions of this process (an emulated jmp, a
 * single-stepped mov; a b and a mov on arm64) with the empty program of
 * bpf/floor.bpf.c, call each in a loop, and take the least time per call
 * over a few rounds less the time untraced. About 50 ms. Returns 0, or a
 * negative errno with a reason.
 */
int hit_cost__measure(struct hit_cost *c);

#endif
