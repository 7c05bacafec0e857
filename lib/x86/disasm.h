/* SPDX-License-Identifier: MIT */
/*
 * The capstone handles every x86-64 decoder of lib/x86 uses, opened once
 * per process: cs_open() and cs_close() for each of 45,000 functions cost
 * more than decoding their prologues.
 */
#ifndef GOTOOLS_DISASM_H
#define GOTOOLS_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <capstone/capstone.h>
#include "gobin/go_binary.h"
#include "site/site_code.h"

/*
 * An x86-64 handle into *OUT: with DETAIL, instructions come with their
 * operands (cs_insn.detail); without, only their id, size and bytes, which
 * decodes a whole body faster. Returns 0, or -ENOMEM with a reason. The
 * handles stay open until the process exits; they are not thread-safe.
 */
int x86_disasm__handle(bool detail, csh *out);

/*
 * The one instruction at the LEN bytes of CODE (at address ADDR), decoded
 * with its operands into a cs_insn the process shares: valid until the
 * next call. NULL when the bytes do not decode (or out of memory).
 */
const cs_insn *x86_disasm__one(const uint8_t *code, size_t len,
			       uint64_t addr);

/* PLAIN, an instruction decoded without operands, decoded again with them
 * (x86_disasm__one): a body decodes faster without operands, and only its
 * branches need them. */
const cs_insn *x86_disasm__operands(const cs_insn *plain);

/* The target of CI (decoded with operands), a jump or call to a relative
 * address, into *TARGET; false for one through a register or memory. */
bool x86_insn__direct_target(const cs_insn *ci, uint64_t *target);

/* The targets of the direct calls and jumps (not conditional ones) in the
 * first WINDOW bytes of FN's code (site/abi_wrapper.h's
 * branch_targets_fn). */
int x86_disasm__branch_targets(const struct go_binary *bin,
			       const struct go_func *fn, size_t window,
			       uint64_t *targets, size_t max, size_t *n);

/* Is CI (decoded with operands) `lea disp(%rip),%reg`? The register into
 * *REG, the address it loads into *ADDR. */
bool x86_insn__rip_lea(const cs_insn *ci, x86_reg *reg, uint64_t *addr);

/*
 * FN's code into *CODE (the binary's memory), *LEN bytes: its size when
 * known, else up to the next function (go_binary__func_span()), or as much
 * as its segment holds. Returns 0, -ENOTSUP for code not x86-64, or a
 * negative errno with a reason naming FN.
 */
int x86_disasm__func_code(const struct go_binary *bin, const struct go_func *fn,
			  const uint8_t **code, size_t *len);

/*
 * The target of PLAIN (decoded with or without operands), a jump or call
 * to a relative address in one of the encodings gc emits (E8 and E9
 * rel32, EB and 70-7F rel8, 0F 80-8F rel32, no prefix), read off its
 * bytes into *TARGET: no second decode for its operands. False for any
 * other encoding, which x86_insn__direct_target() tells.
 */
bool x86_insn__rel_target(const cs_insn *plain, uint64_t *target);

/*
 * Where the int3 padding up to the next function starts in the LEN bytes
 * of a function's CODE: after its last byte that is not int3. A bound for
 * a sweep, not a length: an instruction's last byte may be 0xcc too.
 */
const uint8_t *x86_disasm__padding(const uint8_t *code, size_t len);

/* What an instruction does to the flow of control. */
enum x86_flow {
	X86_FLOW_PLAIN,	/* falls through to the next instruction */
	X86_FLOW_JCC,	/* conditional: jcc, jrcxz, loop, xbegin */
	X86_FLOW_JMP,
	X86_FLOW_CALL,
	/* ret, int3, ud2, hlt, int, syscall...: nothing we know follows.
	 * System calls are here because capstone groups them with int:
	 * no probe site is chosen past one. */
	X86_FLOW_STOP,
};

/*
 * The flow of the instruction whose capstone id is ID (X86_INS_*): what
 * capstone's groups say (jump, call, ret, int, iret), from the id alone,
 * so that decodes without operands know it too; and loop, a conditional
 * jump outside capstone 5's jump group. A unit test holds it to the groups
 * over every instruction of whole binaries.
 */
enum x86_flow x86_insn__flow(unsigned int id);

/* The same, as site/site_code.h's flows. */
enum site_flow x86_insn__site_flow(unsigned int id);

/*
 * Does CI (decoded with operands) write no register but EFLAGS? A compare
 * or test, a nop, a store of a register or immediate to memory (mov, or an
 * ALU operation or setcc on memory). Capstone's register access would
 * tell, but diet capstone leaves it out: this says it from the id and the
 * operands alone, and anything else counts as writing one. A unit test
 * holds it to capstone's access over every instruction of whole binaries.
 */
bool x86_insn__writes_only_flags(const cs_insn *ci);

#endif
