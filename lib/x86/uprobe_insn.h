/* SPDX-License-Identifier: MIT */
/*
 * Can the kernel put a uprobe on this instruction, and run it right? x86
 * uprobes refuse some instructions (int3, hlt, in/out, lock- or
 * segment-prefixed ones...): an attach that includes one fails as a whole
 * on a running process, and is silently skipped when the binary is mapped
 * later. And they take one for a nop that is not (xchg %rax,%r8: the
 * probed program goes on without it, uprobe_insn.c says more). So every
 * site is checked here first, by the rules of arch/x86/kernel/uprobes.c.
 */
#ifndef GOTOOLS_UPROBE_INSN_H
#define GOTOOLS_UPROBE_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf/elf_file.h"

/* Is the instruction at ADDR of EF probeable without harm? Instructions of
 * other architectures than x86-64 are assumed to be. Unreadable or
 * undecodable code is not probeable. */
bool uprobe_insn__probeable(const struct elf_file *ef, uint64_t addr);

/* Does the kernel emulate the instruction of N bytes at B (a jump, a call,
 * a nop, a push) rather than single-step it out of line? A single-stepped
 * hit costs several times an emulated one. */
bool uprobe_insn__emulated(const uint8_t *b, size_t n);

/* The same of the instruction at ADDR of EF (false where unreadable,
 * undecodable, or not x86-64). */
bool uprobe_insn__emulated_at(const struct elf_file *ef, uint64_t addr);

#endif
