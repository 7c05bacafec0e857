/* SPDX-License-Identifier: MIT */
/*
 * arm64 instructions the kernel simulates at a uprobe rather than
 * single-stepping them out of line: the twin of x86/uprobe_insn.h, which
 * the tools will ask of every arm64 probe site (issue 25). Instructions it
 * refuses are not told yet.
 */
#ifndef GOTOOLS_ARM64_UPROBE_INSN_H
#define GOTOOLS_ARM64_UPROBE_INSN_H

#include <stdbool.h>
#include <stdint.h>

/* Does the kernel simulate the instruction WORD (arch/arm64/kernel/probes/
 * decode-insn.c: branches, ADR/ADRP, LDR and LDRSW literal)? */
bool arm64_uprobe_insn__simulated(uint32_t word);

#endif
