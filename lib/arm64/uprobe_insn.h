/* SPDX-License-Identifier: MIT */
/*
 * arm64 instructions the kernel refuses to probe, and those it simulates
 * at a uprobe rather than single-stepping them out of line: the twin of
 * x86/uprobe_insn.h, asked of every arm64 probe site (probe/machine_code.h).
 */
#ifndef GOTOOLS_ARM64_UPROBE_INSN_H
#define GOTOOLS_ARM64_UPROBE_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include "elf/elf_file.h"

/* Does the kernel simulate the instruction WORD (arch/arm64/kernel/probes/
 * decode-insn.c: branches, ADR/ADRP, LDR and LDRSW literal)? */
bool arm64_uprobe_insn__simulated(uint32_t word);

/* Does the kernel accept a uprobe on WORD (simulated, or steppable out of
 * line: not SVC, MSR, an exclusive or acquire/release load or store, a
 * literal load it does not simulate, a pointer-authenticating branch, a
 * hint but NOP, PAC and BTI)? */
bool arm64_uprobe_insn__probeable(uint32_t word);

/* The same of the instruction at virtual address ADDR of EF; false when
 * ADDR is not word-aligned or not in the file. */
bool arm64_uprobe_insn__probeable_at(const struct elf_file *ef, uint64_t addr);
bool arm64_uprobe_insn__simulated_at(const struct elf_file *ef, uint64_t addr);

#endif
