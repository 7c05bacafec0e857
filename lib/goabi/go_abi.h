/* SPDX-License-Identifier: MIT */
/*
 * Where the arguments and results of a Go function live: at its entry
 * instruction (receiver and parameters) and at its RET (results), on
 * x86-64 and arm64, for the three calling conventions a Go binary can use.
 * One algorithm per convention, shared by both machines; each machine is a
 * table of its registers (go_regs.c), chosen by go_abi_sig.machine (ELF's
 * e_machine, as bin->elf->machine holds it):
 *
 *  - GO_ABI_REGISTER: ABIInternal (cmd/compile/abi-internal.md), Go 1.17+
 *    on x86-64, 1.18+ on arm64. Integer registers RAX RBX RCX RDI RSI R8
 *    R9 R10 R11, float registers X0..X14 (x86-64); R0..R15 and F0..F15
 *    (arm64, where g is in R28, no argument register); every value goes
 *    whole to registers or whole to the stack.
 *  - GO_ABI_STACK: ABI0 (Go <= 1.16 on x86-64, <= 1.17 on arm64, and
 *    assembly functions in every version): the same algorithm with no
 *    registers.
 *    On both machines stack arguments start at 8(SP) at the entry: 0(SP)
 *    holds the return address CALL pushed (x86-64), or the caller's own
 *    saved LR (arm64, whose BL leaves the return address in R30).
 *  - GO_ABI_C: gccgo, the machine's C ABI. On x86-64 System V: RDI RSI
 *    RDX RCX R8 R9 and XMM0..XMM7 by eightbyte classes; values over 16
 *    bytes go to the stack; results in RAX RDX / XMM0 XMM1, or in memory
 *    the caller provides (its address arrives in RDI, the callee returns
 *    it in RAX). On arm64 AAPCS64: X0..X7 and V0..V7; a homogeneous
 *    floating-point aggregate (1 to 4 floats of one size, a complex
 *    number two) in V registers, any other value of up to 16 bytes in one
 *    or two X registers (its float fields too), a larger one by reference
 *    (GO_PIECE_MEM off an X register: the caller's copy); a value that
 *    does not fit in the registers left goes to the stack, from SP, and
 *    no later one of its class takes a register (a by-reference one whose
 *    address goes to the stack is GO_PIECE_NONE); results in X0 X1, V0..V3
 *    (an HFA), or in memory whose address arrives in X8, which the callee
 *    need not keep to its RET (results_addr_at_entry). On both, stack
 *    arguments start at the CFA, each in slots of 8 bytes, and a value
 *    receiver is passed by reference (gccgo methods take a pointer to it).
 *    Not supported: generics (gccgo 12 has none), and functions GCC cloned
 *    and rewrote at -O2 (main.f.constprop.0.isra.0 keep no C signature).
 *
 * Registers are numbered as DWARF numbers them on each machine (integer
 * ones: x86-64's enum go_reg; arm64's X0..X30 are 0..30 and SP 31), float
 * registers by their own index (XMM n, V n). go_abi__reg_name(),
 * go_abi__pt_regs_*() and go_abi__dwarf_reg() translate them per machine.
 *
 * A pure library: no BPF, no ELF. Types come from DWARF or from a format
 * string; this file only places them.
 */
#ifndef GOTOOLS_GO_ABI_H
#define GOTOOLS_GO_ABI_H

#include <elf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"

enum go_kind {
	GO_KIND_BOOL,
	GO_KIND_INT,		/* int, int8..int64 (size says which) */
	GO_KIND_UINT,		/* uint, uint8..uint64, uintptr */
	GO_KIND_FLOAT,		/* float32, float64 */
	GO_KIND_COMPLEX,	/* complex64, complex128 */
	GO_KIND_PTR,		/* *T (elem may be NULL), unsafe.Pointer */
	GO_KIND_MAP,
	GO_KIND_CHAN,
	GO_KIND_FUNC,
	GO_KIND_STRING,		/* {ptr, len} */
	GO_KIND_SLICE,		/* {ptr, len, cap}; elem may be NULL */
	GO_KIND_IFACE,		/* interface with methods: {itab, data} */
	GO_KIND_EFACE,		/* interface{} / any: {type, data} */
	GO_KIND_STRUCT,
	GO_KIND_ARRAY,
};

struct go_field;

/*
 * A Go type, as much as placing and printing it needs. Not owned by this
 * library: the builder (DWARF reader, format-string parser, a test) keeps
 * the storage alive. Sizes and alignments follow abi-internal.md "Memory
 * layout" for 64-bit; go_type__check() says whether a description is sane.
 */
struct go_type {
	enum go_kind kind;
	uint64_t size;
	uint32_t align;			/* 1, 2, 4 or 8 */
	const char *name;		/* optional: "main.point" */
	const struct go_type *elem;	/* PTR, SLICE, ARRAY, MAP, CHAN */
	const struct go_type *key;	/* MAP (may be NULL) */
	uint64_t len;			/* ARRAY */
	const struct go_field *fields;	/* STRUCT, in memory order */
	size_t nfields;
};

struct go_field {
	const char *name;
	const struct go_type *type;
	uint64_t offset;		/* bytes from the start of the struct */
};

/* Basic types, for format strings and tests. */
extern const struct go_type go_type_bool, go_type_int, go_type_int8,
	go_type_int16, go_type_int32, go_type_int64, go_type_uint,
	go_type_uint8, go_type_uint16, go_type_uint32, go_type_uint64,
	go_type_uintptr, go_type_float32, go_type_float64, go_type_complex64,
	go_type_complex128, go_type_unsafe_pointer, go_type_string,
	go_type_byte_slice, go_type_eface;

/*
 * Check that T is self-consistent: sizes and alignments of its kind, fields
 * aligned, inside the struct and in order, array size = len * elem size,
 * nesting at most 32 deep. Returns 0 or -EINVAL with a reason.
 */
int go_type__check(const struct go_type *t);

/*
 * Make T the struct of the N FIELDS (their types set, offsets not): lay
 * them out by Go's rules (each field aligned, a padding byte after a final
 * zero-size field, size rounded to the alignment) and fill in the offsets
 * and T's kind, size and alignment. NAME may be NULL. Returns 0 or -EINVAL.
 */
int go_type__init_struct(struct go_type *t, const char *name,
			 struct go_field *fields, size_t n);

/* Make T the array [LEN]ELEM. Returns 0, or -EINVAL when too large. */
int go_type__init_array(struct go_type *t, const struct go_type *elem,
			uint64_t len);

/* Is a value of T one integer word: a bool, an integer, or a pointer in
 * all but name (pointers, maps, chans, funcs)? The ABIs pass it whole in
 * one integer register. */
bool go_type__is_int_word(const struct go_type *t);

/* x86-64 integer registers, numbered as DWARF numbers them. arm64's need
 * no names here: X n is DWARF register n, SP 31 (go_abi__sp_reg()). */
enum go_reg {
	GO_REG_RAX = 0,
	GO_REG_RDX = 1,
	GO_REG_RCX = 2,
	GO_REG_RBX = 3,
	GO_REG_RSI = 4,
	GO_REG_RDI = 5,
	GO_REG_RBP = 6,
	GO_REG_RSP = 7,
	GO_REG_R8 = 8,
	GO_REG_R9, GO_REG_R10, GO_REG_R11, GO_REG_R12, GO_REG_R13,
	GO_REG_R14, GO_REG_R15,
};

enum go_piece_kind {
	GO_PIECE_IREG,		/* integer register REG */
	GO_PIECE_FREG,		/* float register REG (XMM, V): BPF cannot
				 * read it */
	GO_PIECE_STACK,		/* memory at SP + MEM_OFFSET */
	GO_PIECE_MEM,		/* memory at (int register REG) + MEM_OFFSET */
	GO_PIECE_NONE,		/* not recorded where the probe is (a part of
				 * an inlined copy's argument DWARF does not
				 * place there) */
};

/*
 * SIZE bytes of a value, starting VALUE_OFFSET bytes into its memory
 * layout. SP is the stack pointer at the function's entry, which is also
 * its value at the RET (0(SP) holds the return address, so stack arguments
 * start at 8(SP)).
 */
struct go_abi_piece {
	enum go_piece_kind kind;
	uint8_t reg;		/* IREG, MEM: DWARF number (enum go_reg on
				 * x86-64); FREG: XMM n, V n */
	uint8_t reg_offset;	/* IREG, FREG: first byte in the register */
	uint32_t size;
	uint64_t value_offset;
	int64_t mem_offset;	/* STACK, MEM */
};

/* Registers of the Go ABI bound the pieces of a value: 9 int + 15 float
 * on x86-64, 16 + 16 on arm64. */
#define GO_ABI_MAX_PIECES 32

struct go_abi_value {
	const struct go_type *type;
	bool in_regs;		/* every piece is IREG or FREG */
	/* GO_ABI_REGISTER arguments: the reserved (uninitialised at entry)
	 * spill slot, as an offset from SP; -1 otherwise. */
	int64_t spill_offset;
	size_t npieces;		/* 0 for a zero-size value in gccgo */
	struct go_abi_piece pieces[GO_ABI_MAX_PIECES];
};

/* Where generic shape instantiations take their hidden `.dict` pointer. */
enum go_abi_dict {
	GO_DICT_NONE,		/* not a shape instantiation */
	GO_DICT_FIRST,		/* Go 1.18, 1.19: before the receiver */
	GO_DICT_AFTER_RECV,	/* Go 1.20+: after the receiver */
};

struct go_abi_sig {
	const struct go_type *recv;	/* NULL for a plain function */
	const struct go_type *const *params;
	size_t nparams;
	const struct go_type *const *results;
	size_t nresults;
	enum go_abi_dict dict;
	/* ELF's e_machine: EM_X86_64 or EM_AARCH64 (bin->elf->machine);
	 * EM_NONE, 0, stands for EM_X86_64. */
	uint16_t machine;
};

struct go_abi_layout {
	struct go_abi_value *args;	/* receiver first, then parameters */
	size_t nargs;
	struct go_abi_value *results;
	size_t nresults;
	bool has_dict;
	struct go_abi_value dict;	/* when has_dict: a pointer */
	/* GO_ABI_C: results go to memory, at the address in RAX at RET on
	 * x86-64 (the caller passed it in RDI, so arguments start at RSI),
	 * in X8 on arm64 (GO_PIECE_MEM pieces off RAX, X8). */
	bool results_in_memory;
	/* ... and that register is to be read at the function's entry, not
	 * at its RET (arm64: the callee need not keep X8). */
	bool results_addr_at_entry;
	/* Bytes of the caller-reserved frame from 8(SP) (GO_ABI_C: from the
	 * CFA): stack arguments, stack results and (GO_ABI_REGISTER) the
	 * spill area. */
	uint64_t frame_size;
};

/*
 * Place the arguments and results of SIG under ABI into OUT (malloc()ed
 * arrays; release with go_abi_layout__free()). Returns 0, or -EINVAL with a
 * reason when a type fails go_type__check(), the ABI or the machine is
 * unknown or gccgo is asked for a `.dict`; -E2BIG when the signature is
 * absurdly large.
 */
int go_abi__assign(enum go_abi abi, const struct go_abi_sig *sig,
		   struct go_abi_layout *out);
void go_abi_layout__free(struct go_abi_layout *layout);

/* Can a BPF program read every piece of V? False when a piece lives in a
 * float register (struct pt_regs holds only general-purpose registers) or
 * is not recorded. */
bool go_abi_value__bpf_readable(const struct go_abi_value *v);

/* Where Go 1.MINOR puts `.dict` in a shape instantiation (verified on 1.19
 * and 1.21+; 1.20 is the first release with unified IR by default). */
enum go_abi_dict go_abi__dict_position(int go_minor);

/*
 * MACHINE is ELF's e_machine, EM_X86_64 (or EM_NONE) or EM_AARCH64, in
 * what follows.
 *
 * "rax", "r8", "xmm3" (x86-64), "r0", "r15", "sp", "f3" (arm64) for a
 * piece's register; "?" when out of range.
 */
const char *go_abi__reg_name(uint16_t machine, enum go_piece_kind kind,
			     unsigned int reg);

/* The field of MACHINE's struct pt_regs holding integer register REG
 * ("ax", "bx", ... "r15"; "regs[0]" ... "regs[30]", "sp"), or NULL. */
const char *go_abi__pt_regs_field(uint16_t machine, unsigned int reg);

/* Its byte offset in struct pt_regs, or -EINVAL. */
int go_abi__pt_regs_offset(uint16_t machine, unsigned int reg);

/* DWARF's number of MACHINE's stack pointer (RSP 7, SP 31), or -EINVAL. */
int go_abi__sp_reg(uint16_t machine);

/* The CFA (DWARF's call frame address, which is gc's frame base) less SP
 * at a function's entry: 8 on x86-64 (above the return address CALL
 * pushed), 0 on arm64 (BL pushes nothing); -EINVAL for another machine. */
int go_abi__cfa_offset(uint16_t machine);

/* DWARF register DWARF_REG of MACHINE as a piece's register: an integer
 * register (*KIND GO_PIECE_IREG, *REG its DWARF number) or a float one
 * (GO_PIECE_FREG, XMM n or V n). Returns 0, or -ENOENT for another
 * (RIP, flags, x87, a vector register of no float argument). */
int go_abi__dwarf_reg(uint16_t machine, unsigned int dwarf_reg,
		      enum go_piece_kind *kind, uint8_t *reg);

/* Is integer register REG one that carries arguments under an ABI of
 * MACHINE (x86-64: RAX..RDI, R8..R11; arm64: R0..R15): those that
 * reg_by_dwarf() reads in BPF (bpf/x86/regs.bpf.h,
 * bpf/arm64/regs.bpf.h)? */
bool go_abi__arg_reg(uint16_t machine, unsigned int reg);

#endif
