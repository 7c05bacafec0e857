/* SPDX-License-Identifier: MIT */
/*
 * The capstone handles every x86-64 decoder of lib/x86 uses, opened once
 * per process: cs_open() and cs_close() for each of 45,000 functions cost
 * more than decoding their prologues.
 */
#ifndef GOTOOLS_DISASM_H
#define GOTOOLS_DISASM_H

#include <stdbool.h>
#include <capstone/capstone.h>

/*
 * An x86-64 handle into *OUT: with DETAIL, instructions come with their
 * operands (cs_insn.detail); without, only their id, size and bytes, which
 * decodes a whole body faster. Returns 0, or -ENOMEM with a reason. The
 * handles stay open until the process exits; they are not thread-safe.
 */
int x86_disasm__handle(bool detail, csh *out);

#endif
