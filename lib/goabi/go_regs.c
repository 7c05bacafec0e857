// SPDX-License-Identifier: MIT
/*
 * Each machine's registers, one table each (x86-64, arm64): the sequences
 * the ABIs place values in (go_abi.c, c_abi.c), and for the rest of lib/
 * their names, struct pt_regs places and DWARF numbers, the stack pointer,
 * the CFA at entry and which registers carry arguments (go_abi.h).
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include "goabi/go_abi.h"
#include "goabi/go_abi_internal.h"

/* An integer register: its name, and its field in the machine's struct
 * pt_regs (x86-64: arch/x86/include/asm/ptrace.h; arm64: user_pt_regs)
 * and that field's offset. */
struct int_reg {
	const char *name, *pt_regs;
	int pt_regs_offset;
};

/* x86-64's integer registers by DWARF number. */
static const struct int_reg x86_int_regs[] = {
	[GO_REG_RAX] = { "rax", "ax", 80 },
	[GO_REG_RDX] = { "rdx", "dx", 96 },
	[GO_REG_RCX] = { "rcx", "cx", 88 },
	[GO_REG_RBX] = { "rbx", "bx", 40 },
	[GO_REG_RSI] = { "rsi", "si", 104 },
	[GO_REG_RDI] = { "rdi", "di", 112 },
	[GO_REG_RBP] = { "rbp", "bp", 32 },
	[GO_REG_RSP] = { "rsp", "sp", 152 },
	[GO_REG_R8] = { "r8", "r8", 72 },
	[GO_REG_R9] = { "r9", "r9", 64 },
	[GO_REG_R10] = { "r10", "r10", 56 },
	[GO_REG_R11] = { "r11", "r11", 48 },
	[GO_REG_R12] = { "r12", "r12", 24 },
	[GO_REG_R13] = { "r13", "r13", 16 },
	[GO_REG_R14] = { "r14", "r14", 8 },
	[GO_REG_R15] = { "r15", "r15", 0 },
};

/* arm64's X0..X30 and SP by DWARF number, as struct user_pt_regs holds
 * them (arch/arm64/include/uapi/asm/ptrace.h: regs[31], sp, pc, pstate). */
#define ARM64_REG(n) [n] = { "r" #n, "regs[" #n "]", (n) * 8 }
static const struct int_reg arm64_int_regs[] = {
	ARM64_REG(0), ARM64_REG(1), ARM64_REG(2), ARM64_REG(3),
	ARM64_REG(4), ARM64_REG(5), ARM64_REG(6), ARM64_REG(7),
	ARM64_REG(8), ARM64_REG(9), ARM64_REG(10), ARM64_REG(11),
	ARM64_REG(12), ARM64_REG(13), ARM64_REG(14), ARM64_REG(15),
	ARM64_REG(16), ARM64_REG(17), ARM64_REG(18), ARM64_REG(19),
	ARM64_REG(20), ARM64_REG(21), ARM64_REG(22), ARM64_REG(23),
	ARM64_REG(24), ARM64_REG(25), ARM64_REG(26), ARM64_REG(27),
	ARM64_REG(28), ARM64_REG(29), ARM64_REG(30),
	[31] = { "sp", "sp", 31 * 8 },
};
#undef ARM64_REG

static const char *const xmm_names[] = {
	"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
	"xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
};
/* Go names arm64's float registers F n (V n, D n, S n to others). */
static const char *const arm64_fp_names[] = {
	"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10",
	"f11", "f12", "f13", "f14", "f15", "f16", "f17", "f18", "f19", "f20",
	"f21", "f22", "f23", "f24", "f25", "f26", "f27", "f28", "f29", "f30",
	"f31",
};

/* ABIInternal on x86-64: RAX RBX RCX RDI RSI R8 R9 R10 R11 and X0..X14. */
static const uint8_t x86_go_iregs[] = {
	GO_REG_RAX, GO_REG_RBX, GO_REG_RCX, GO_REG_RDI, GO_REG_RSI,
	GO_REG_R8, GO_REG_R9, GO_REG_R10, GO_REG_R11,
};
/* ABIInternal on arm64: R0..R15 and F0..F15. */
static const uint8_t arm64_go_iregs[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};
/* ABIInternal's float registers, X n or F n in order: the first go_nf. */
static const uint8_t go_fregs[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
};
/* System V: RDI RSI RDX RCX R8 R9 and XMM0..XMM7 for arguments, RAX RDX
 * for results. (AAPCS64's X0..X7 and X0 X1 are arm64_go_iregs' first.) */
static const uint8_t sysv_iregs[] = {
	GO_REG_RDI, GO_REG_RSI, GO_REG_RDX, GO_REG_RCX, GO_REG_R8, GO_REG_R9,
};
static const uint8_t sysv_ret_iregs[] = { GO_REG_RAX, GO_REG_RDX };

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct go_abi_machine machines[] = {
	{
		.e_machine = EM_X86_64,
		.int_regs = x86_int_regs, .nint_regs = ARRAY_LEN(x86_int_regs),
		.fp_names = xmm_names, .nfp = ARRAY_LEN(xmm_names),
		.go_iregs = x86_go_iregs, .go_ni = ARRAY_LEN(x86_go_iregs),
		.go_fregs = go_fregs,
		.go_nf = 15,
		.c_conv = C_SYSV,
		.c_iregs = sysv_iregs, .c_ret_iregs = sysv_ret_iregs,
		.c_ni = ARRAY_LEN(sysv_iregs), .c_nf = 8,
		.sp = GO_REG_RSP, .dwarf_fp0 = 17, .cfa_offset = 8,
		/* RAX..RDI and R8..R11: not RBP, RSP */
		.nargs_regs = GO_REG_R11 + 1,
		.skip_lo = GO_REG_RBP, .skip_hi = GO_REG_R8,
	},
	{
		.e_machine = EM_AARCH64,
		.int_regs = arm64_int_regs,
		.nint_regs = ARRAY_LEN(arm64_int_regs),
		.fp_names = arm64_fp_names, .nfp = ARRAY_LEN(arm64_fp_names),
		.go_iregs = arm64_go_iregs, .go_ni = ARRAY_LEN(arm64_go_iregs),
		.go_fregs = go_fregs,
		.go_nf = 16,
		/* X0..X7 and V0..V7; results in X0 X1 (or V0..V3) */
		.c_conv = C_AAPCS64,
		.c_iregs = arm64_go_iregs, .c_ret_iregs = arm64_go_iregs,
		.c_ni = 8, .c_nf = 8,
		.sp = 31, .dwarf_fp0 = 64, .cfa_offset = 0,
		.nargs_regs = 16,
	},
};

/* MACHINE's table, EM_NONE standing for EM_X86_64; NULL for another. */
const struct go_abi_machine *go_abi_machine_of(uint16_t machine)
{
	if (machine == EM_NONE)
		machine = EM_X86_64;
	for (size_t i = 0; i < ARRAY_LEN(machines); i++)
		if (machines[i].e_machine == machine)
			return &machines[i];
	return NULL;
}

const char *go_abi__reg_name(uint16_t machine, enum go_piece_kind kind,
			     unsigned int reg)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	if (!m)
		return "?";
	if (kind == GO_PIECE_FREG)
		return reg < m->nfp ? m->fp_names[reg] : "?";
	if (kind == GO_PIECE_IREG || kind == GO_PIECE_MEM)
		return reg < m->nint_regs ? m->int_regs[reg].name : "?";
	return "?";
}

const char *go_abi__pt_regs_field(uint16_t machine, unsigned int reg)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	return m && reg < m->nint_regs ? m->int_regs[reg].pt_regs : NULL;
}

int go_abi__pt_regs_offset(uint16_t machine, unsigned int reg)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	return m && reg < m->nint_regs ? m->int_regs[reg].pt_regs_offset :
					 -EINVAL;
}

int go_abi__sp_reg(uint16_t machine)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	return m ? m->sp : -EINVAL;
}

int go_abi__cfa_offset(uint16_t machine)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	return m ? m->cfa_offset : -EINVAL;
}

int go_abi__dwarf_reg(uint16_t machine, unsigned int dwarf_reg,
		      enum go_piece_kind *kind, uint8_t *reg)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	if (!m)
		return -ENOENT;
	if (dwarf_reg < m->nint_regs) {
		*kind = GO_PIECE_IREG;
		*reg = dwarf_reg;
		return 0;
	}
	if (dwarf_reg >= m->dwarf_fp0 && dwarf_reg - m->dwarf_fp0 < m->nfp) {
		*kind = GO_PIECE_FREG;
		*reg = dwarf_reg - m->dwarf_fp0;
		return 0;
	}
	return -ENOENT;
}

bool go_abi__arg_reg(uint16_t machine, unsigned int reg)
{
	const struct go_abi_machine *m = go_abi_machine_of(machine);

	return m && reg < m->nargs_regs &&
	       !(reg >= m->skip_lo && reg < m->skip_hi);
}
