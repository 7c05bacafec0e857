/* SPDX-License-Identifier: MIT */
/*
 * Whether a JMP leaves the function it is in: x86-64's reading of
 * site/exit_site.h's exit_jump__leaves() (exit_sites.c's comment says
 * which jumps are which), and whether it jumps through a table, which
 * inline_ends.c tells site/inline_ends.c. Internal to lib/x86: it takes a
 * capstone instruction.
 */
#ifndef GOTOOLS_JMP_LEAVES_H
#define GOTOOLS_JMP_LEAVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <capstone/capstone.h>

/*
 * Does the jmp JI leave a body of LEN bytes at ENTRY? A direct one when
 * its target is outside; one through a register or through memory
 * without an index register always; one through memory with an index
 * register (a switch's jump table, whose targets are in the body) never.
 * JI may be decoded without operands: they are decoded here.
 */
bool x86_jmp__leaves(const cs_insn *ji, uint64_t entry, size_t len);

/* Is the jmp CI (decoded with operands) a jump table's? */
bool x86_jmp__through_table(const cs_insn *ci);

#endif
