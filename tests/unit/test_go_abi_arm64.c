// SPDX-License-Identifier: MIT
/*
 * go_abi on arm64: where gc's register ABI puts every parameter of every
 * function of package main at the function's entry, in the arm64 builds
 * of the args and count fixtures (Go 1.19 to 1.27), where gccgo's AAPCS64
 * does in their gccgo-12 builds, and the names and pt_regs places of
 * arm64's registers.
 *
 * Ground truth, independent of the code under test:
 *  - the DWARF gc wrote: each DW_TAG_formal_parameter's location at its
 *    subprogram's DW_AT_low_pc (its location list's entry there, read with
 *    libdw's dwarf_getlocation_addr()), a frame slot (DW_OP_fbreg off
 *    DW_AT_frame_base, which must be DW_OP_call_frame_cfa) turned into an
 *    offset from SP by the CFA rule the CFI (.debug_frame) gives at that
 *    PC;
 *  - the DWARF register numbers of AArch64 (the "DWARF for the Arm 64-bit
 *    Architecture" ABI document): X n is n, SP 31, V n 64 + n;
 *  - struct user_pt_regs as arch/arm64/include/uapi/asm/ptrace.h declares
 *    it (copied below: this test runs on x86-64 too);
 *  - for gccgo, its DWARF's frame slots and the prologue's stores of the
 *    argument registers into them (binutils' aarch64-linux-gnu-objdump),
 *    and the worked rules of the AAPCS64 document (TEST(aapcs64)).
 * What go_abi places comes from the types go_dwarf reads for the
 * signature (the inputs, not the answer), placed by go_abi__assign() for
 * EM_AARCH64. go_dwarf's own reading of locations is not used.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "goabi/go_dwarf.h"
#include "gobin/go_binary.h"
#include "abi_text.h"
#include "go_fixture.h"
#include "objdump.h"
#include "test.h"

static const int versions[] = { 19, 21, 23, 25, 27 };
static const char *const programs[] = { "args", "count" };
#define NVERSIONS	(sizeof(versions) / sizeof(versions[0]))
#define NPROGRAMS	(sizeof(programs) / sizeof(programs[0]))

/* arch/arm64/include/uapi/asm/ptrace.h */
struct arm64_user_pt_regs {
	uint64_t regs[31];
	uint64_t sp;
	uint64_t pc;
	uint64_t pstate;
};

TEST(registers)
{
	char want[16];

	for (unsigned int n = 0; n < 31; n++) {
		snprintf(want, sizeof(want), "r%u", n);
		CHECK_EQ_STR(go_abi__reg_name(EM_AARCH64, GO_PIECE_IREG, n),
			     want);
		snprintf(want, sizeof(want), "regs[%u]", n);
		CHECK_EQ_STR(go_abi__pt_regs_field(EM_AARCH64, n), want);
		CHECK_EQ_INT(go_abi__pt_regs_offset(EM_AARCH64, n),
			     offsetof(struct arm64_user_pt_regs, regs[n]));
		CHECK(go_abi__arg_reg(EM_AARCH64, n) == (n < 16));
	}
	CHECK_EQ_STR(go_abi__reg_name(EM_AARCH64, GO_PIECE_IREG, 31), "sp");
	CHECK_EQ_STR(go_abi__pt_regs_field(EM_AARCH64, 31), "sp");
	CHECK_EQ_INT(go_abi__pt_regs_offset(EM_AARCH64, 31),
		     offsetof(struct arm64_user_pt_regs, sp));
	CHECK_EQ_INT(go_abi__pt_regs_offset(EM_AARCH64, 32), -EINVAL);
	CHECK_EQ_INT(go_abi__sp_reg(EM_AARCH64), 31);
	CHECK_EQ_INT(go_abi__sp_reg(EM_X86_64), GO_REG_RSP);
	CHECK_EQ_INT(go_abi__sp_reg(EM_386), -EINVAL);
	CHECK_EQ_STR(go_abi__reg_name(EM_AARCH64, GO_PIECE_FREG, 15), "f15");
	CHECK_EQ_STR(go_abi__reg_name(EM_AARCH64, GO_PIECE_FREG, 32), "?");
	CHECK_EQ_STR(go_abi__reg_name(EM_386, GO_PIECE_IREG, 0), "?");
	/* the same numbers name x86-64's registers there */
	CHECK_EQ_STR(go_abi__reg_name(EM_X86_64, GO_PIECE_IREG, 0), "rax");
	CHECK_EQ_STR(go_abi__reg_name(EM_NONE, GO_PIECE_IREG, 0), "rax");
	CHECK(!go_abi__arg_reg(EM_X86_64, GO_REG_RSP));
	CHECK(go_abi__arg_reg(EM_X86_64, GO_REG_R11));
	CHECK(!go_abi__arg_reg(EM_X86_64, GO_REG_R12));
}

/* DWARF registers as pieces: X n and V n on arm64, XMM n at 17 + n on
 * x86-64; nothing else. */
TEST(dwarf_regs)
{
	enum go_piece_kind kind;
	uint8_t reg;

	CHECK_EQ_INT(go_abi__dwarf_reg(EM_AARCH64, 5, &kind, &reg), 0);
	CHECK(kind == GO_PIECE_IREG && reg == 5);
	CHECK_EQ_INT(go_abi__dwarf_reg(EM_AARCH64, 64 + 7, &kind, &reg), 0);
	CHECK(kind == GO_PIECE_FREG && reg == 7);
	CHECK_EQ_INT(go_abi__dwarf_reg(EM_AARCH64, 33, &kind, &reg), -ENOENT);
	CHECK_EQ_INT(go_abi__dwarf_reg(EM_AARCH64, 96, &kind, &reg), -ENOENT);
	CHECK_EQ_INT(go_abi__dwarf_reg(EM_X86_64, 17 + 3, &kind, &reg), 0);
	CHECK(kind == GO_PIECE_FREG && reg == 3);
	CHECK_EQ_INT(go_abi__dwarf_reg(EM_X86_64, 16, &kind, &reg), -ENOENT);
	CHECK_EQ_INT(go_abi__cfa_offset(EM_X86_64), 8);
	CHECK_EQ_INT(go_abi__cfa_offset(EM_AARCH64), 0);
}

#define SIG(...) ((const struct go_type *const[]){ __VA_ARGS__ })

/* ABI0 places alike on both machines (no registers, from 8(SP)); an
 * unknown machine is refused. */
TEST(other_abis)
{
	struct go_abi_sig sig = {
		.params = SIG(&go_type_int, &go_type_string, &go_type_float64),
		.nparams = 3, .results = SIG(&go_type_int), .nresults = 1,
	};
	struct go_abi_layout x86, arm;

	CHECK_EQ_INT(go_abi__assign(GO_ABI_STACK, &sig, &x86), 0);
	sig.machine = EM_AARCH64;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_STACK, &sig, &arm), 0);
	CHECK_EQ_INT(arm.frame_size, x86.frame_size);
	for (size_t i = 0; i < arm.nargs; i++)
		CHECK(!memcmp(&arm.args[i], &x86.args[i], sizeof(arm.args[i])));
	CHECK(!memcmp(&arm.results[0], &x86.results[0],
		      sizeof(arm.results[0])));
	CHECK_EQ_INT(arm.args[0].pieces[0].mem_offset, 8);
	go_abi_layout__free(&x86);
	go_abi_layout__free(&arm);
	sig.machine = EM_386;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &arm), -EINVAL);
}

#define FIELD(n, t) { .name = n, .type = t }
#define CHECK_VALUE(v, want) CHECK_EQ_STR(value_str(EM_AARCH64, v), want)

/*
 * gccgo's AAPCS64 ("Procedure Call Standard for the Arm 64-bit
 * Architecture", section 6.8: parameter passing; 6.9: results): X0..X7
 * (NGRN), V0..V7 (NSRN), the stack from SP (NSAA) in slots of 8 bytes;
 * a homogeneous floating-point aggregate (HFA: 1 to 4 floats of one
 * size, a complex number two) in V registers, another composite of up to
 * 16 bytes in X registers as it lies in memory, a larger one copied and
 * passed by reference (B.4); a value that does not fit ends its class's
 * registers (C.3, C.13: NSRN or NGRN = 8); results in X0 X1, V0..V3 or
 * memory whose address the caller passes in X8 (B.5, 6.9). gccgo: a value
 * receiver by reference, several results as one struct of them.
 */
TEST(aapcs64)
{
	struct go_type p, h3, mixed, small, t, e, arr;
	struct go_field pf[2] = { FIELD("a", &go_type_int),
				  FIELD("b", &go_type_float64) };
	struct go_field h3f[3] = { FIELD("x", &go_type_float32),
				   FIELD("y", &go_type_float32),
				   FIELD("z", &go_type_float32) };
	struct go_field mf[2] = { FIELD("f", &go_type_float32),
				  FIELD("d", &go_type_float64) };
	struct go_field sf[2] = { FIELD("b", &go_type_int8),
				  FIELD("h", &go_type_int16) };
	struct go_field tf[1] = { FIELD("n", &go_type_int) };
	struct go_abi_sig sig = { .machine = EM_AARCH64 };
	const struct go_type *many[12];
	struct go_abi_layout l;

	CHECK_EQ_INT(go_type__init_struct(&p, "main.P", pf, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&h3, "main.H3", h3f, 3), 0);
	CHECK_EQ_INT(go_type__init_struct(&mixed, "main.M", mf, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&small, "main.S", sf, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&t, "main.T", tf, 1), 0);
	CHECK_EQ_INT(go_type__init_struct(&e, "main.E", NULL, 0), 0);
	CHECK_EQ_INT(go_type__init_array(&arr, &go_type_int, 2), 0);

	/* divmod(x, y int) (int, int): X0 X1, results X0 X1 */
	sig.params = SIG(&go_type_int, &go_type_int);
	sig.nparams = 2;
	sig.results = SIG(&go_type_int, &go_type_int);
	sig.nresults = 2;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "r0/8@0");
	CHECK_VALUE(&l.args[1], "r1/8@0");
	CHECK_VALUE(&l.results[0], "r0/8@0");
	CHECK_VALUE(&l.results[1], "r1/8@0");
	CHECK(!l.results_in_memory && !l.results_addr_at_entry);
	go_abi_layout__free(&l);

	/* Str(a int, s string, f float64, b []byte) (int, string): the
	 * 24-byte results go to memory at X8, which takes no argument's
	 * register; b (24 bytes) by reference in X3 */
	sig.params = SIG(&go_type_int, &go_type_string, &go_type_float64,
			 &go_type_byte_slice);
	sig.nparams = 4;
	sig.results = SIG(&go_type_int, &go_type_string);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK(l.results_in_memory && l.results_addr_at_entry);
	CHECK_VALUE(&l.args[0], "r0/8@0");
	CHECK_VALUE(&l.args[1], "r1/8@0 r2/8@8");
	CHECK_VALUE(&l.args[2], "f0/8@0");
	CHECK_VALUE(&l.args[3], "[r3+0]/24@0");
	CHECK_VALUE(&l.results[0], "[r8+0]/8@0");
	CHECK_VALUE(&l.results[1], "[r8+8]/16@0");
	CHECK_EQ_INT(l.frame_size, 0);
	go_abi_layout__free(&l);

	/* manyInts(a1..a11 int) int: X0..X7, then the stack from SP */
	for (int i = 0; i < 11; i++)
		many[i] = &go_type_int;
	sig.params = many;
	sig.nparams = 11;
	sig.results = SIG(&go_type_int);
	sig.nresults = 1;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[7], "r7/8@0");
	CHECK_VALUE(&l.args[8], "sp+0/8@0");
	CHECK_VALUE(&l.args[10], "sp+16/8@0");
	CHECK_VALUE(&l.results[0], "r0/8@0");
	CHECK_EQ_INT(l.frame_size, 24);
	go_abi_layout__free(&l);

	/* Many(a..g int, s string, h int): s needs two registers, one is
	 * left: s to the stack, and NGRN = 8 sends h there too (System V
	 * would give h R9) */
	many[7] = &go_type_string;
	many[8] = &go_type_int;
	sig.nparams = 9;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[6], "r6/8@0");
	CHECK_VALUE(&l.args[7], "sp+0/16@0");
	CHECK_VALUE(&l.args[8], "sp+16/8@0");
	go_abi_layout__free(&l);

	/* eight ints, then a slice by reference whose address goes to the
	 * stack (no register holds it), then an int after it */
	many[7] = &go_type_int;
	many[8] = &go_type_byte_slice;
	many[9] = &go_type_int;
	sig.nparams = 10;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[8], "none/24@0");
	CHECK_VALUE(&l.args[9], "sp+8/8@0");
	go_abi_layout__free(&l);

	/* Mix(z E, p P, x int32, i interface{}, arr [2]int, c complex128) P:
	 * p is no HFA (an int and a float64): X0 X1, its float in X1; c is
	 * an HFA of two float64; the result P in X0 X1 */
	sig.params = SIG(&e, &p, &go_type_int32, &go_type_eface, &arr,
			 &go_type_complex128);
	sig.nparams = 6;
	sig.results = SIG(&p);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "");
	CHECK_VALUE(&l.args[1], "r0/8@0 r1/8@8");
	CHECK_VALUE(&l.args[2], "r2/4@0");
	CHECK_VALUE(&l.args[3], "r3/8@0 r4/8@8");
	CHECK_VALUE(&l.args[4], "r5/8@0 r6/8@8");
	CHECK_VALUE(&l.args[5], "f0/8@0 f1/8@8");
	CHECK_VALUE(&l.results[0], "r0/8@0 r1/8@8");
	go_abi_layout__free(&l);

	/* HFAs: three float32, complex64 (two float32), in V registers one
	 * member each; {float32, float64} and {int8, int16} are not: X
	 * registers as in memory; an HFA result in V0..V2 */
	sig.params = SIG(&h3, &go_type_complex64, &mixed, &small);
	sig.nparams = 4;
	sig.results = SIG(&h3);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "f0/4@0 f1/4@4 f2/4@8");
	CHECK_VALUE(&l.args[1], "f3/4@0 f4/4@4");
	CHECK_VALUE(&l.args[2], "r0/8@0 r1/8@8");
	CHECK_VALUE(&l.args[3], "r2/4@0");
	CHECK_VALUE(&l.results[0], "f0/4@0 f1/4@4 f2/4@8");
	go_abi_layout__free(&l);

	/* seven float64, then a complex128 that does not fit: NSRN = 8, to
	 * the stack, and the float64 after it too; results (float64,
	 * float64): an HFA, V0 and V1 */
	for (int i = 0; i < 7; i++)
		many[i] = &go_type_float64;
	many[7] = &go_type_complex128;
	many[8] = &go_type_float64;
	sig.params = many;
	sig.nparams = 9;
	sig.results = SIG(&go_type_float64, &go_type_float64);
	sig.nresults = 2;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[6], "f6/8@0");
	CHECK_VALUE(&l.args[7], "sp+0/16@0");
	CHECK_VALUE(&l.args[8], "sp+16/8@0");
	CHECK_VALUE(&l.results[0], "f0/8@0");
	CHECK_VALUE(&l.results[1], "f1/8@0");
	go_abi_layout__free(&l);

	/* T.Val(a int) (int, int8): a value receiver by reference in X0;
	 * results share X0 and X1 as their struct lies in memory */
	sig.recv = &t;
	sig.params = SIG(&go_type_int);
	sig.nparams = 1;
	sig.results = SIG(&go_type_int, &go_type_int8);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "[r0+0]/8@0");
	CHECK_VALUE(&l.args[1], "r1/8@0");
	CHECK_VALUE(&l.results[0], "r0/8@0");
	CHECK_VALUE(&l.results[1], "r1/1@0");
	go_abi_layout__free(&l);

	/* no generics in gccgo */
	sig.dict = GO_DICT_FIRST;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), -EINVAL);
	CHECK(strstr(gt_last_error(), "gccgo") != NULL);
}

/* Pieces as text: "x3/8" (X3), "v1/4" (V1), "sp+24/16" (SP at entry +
 * 24, contiguous stack pieces merged), by DWARF's numbers. */
static void loc_add(char *loc, size_t len, const char *reg, long sp_off,
		    unsigned long size)
{
	size_t n = strlen(loc);
	char *last = strrchr(loc, ' ');
	long prev_off;
	unsigned long prev_size;

	last = last ? last + 1 : loc;
	if (!reg && sscanf(last, "sp+%ld/%lu", &prev_off, &prev_size) == 2 &&
	    prev_off + (long)prev_size == sp_off) {
		snprintf(last, len - (last - loc), "sp+%ld/%lu", prev_off,
			 prev_size + size);
		return;
	}
	if (!reg)
		snprintf(loc + n, len - n, "%ssp+%ld/%lu", n ? " " : "",
			 sp_off, size);
	else
		snprintf(loc + n, len - n, "%s%s/%lu", n ? " " : "", reg, size);
}

/* DWARF register DW as text, by AArch64's numbering. */
static const char *dwarf_reg_text(unsigned long dw, char *buf, size_t len)
{
	if (dw <= 30)
		snprintf(buf, len, "x%lu", dw);
	else if (dw >= 64 && dw <= 95)
		snprintf(buf, len, "v%lu", dw - 64);
	else
		snprintf(buf, len, "dwarf%lu", dw);
	return buf;
}

/* The location expression OPS[N] of a value of SIZE bytes as text; frame
 * slots at CFA + off are SP + CFA_SP + off. "?" for what is no place. */
static void dwarf_loc(const Dwarf_Op *ops, size_t n, uint64_t size,
		      long cfa_sp, char *loc, size_t len)
{
	char reg[32];
	const char *where = NULL;
	long off = 0;
	bool have = false, bad = false;

	loc[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *op = &ops[i];

		if (op->atom == DW_OP_piece) {
			if (!have || bad)
				loc_add(loc, len, "?", 0, op->number);
			else
				loc_add(loc, len, where, off, op->number);
			have = bad = false;
			continue;
		}
		if (have)
			bad = true;
		have = true;
		if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
			where = dwarf_reg_text(op->atom - DW_OP_reg0, reg,
					       sizeof(reg));
		else if (op->atom == DW_OP_regx)
			where = dwarf_reg_text(op->number, reg, sizeof(reg));
		else if (op->atom == DW_OP_fbreg)
			where = NULL, off = cfa_sp + (long)(int64_t)op->number;
		else
			bad = true;
	}
	if (have)
		loc_add(loc, len, bad ? "?" : where, off, size);
}

/* go_abi's placement of V as text, as dwarf_loc() writes DWARF's. */
static void our_loc(const struct go_abi_value *v, char *loc, size_t len)
{
	char reg[32];

	loc[0] = 0;
	for (size_t i = 0; i < v->npieces; i++) {
		const struct go_abi_piece *p = &v->pieces[i];

		if (p->kind == GO_PIECE_STACK)
			loc_add(loc, len, NULL, p->mem_offset, p->size);
		else if (p->kind == GO_PIECE_FREG)
			loc_add(loc, len, dwarf_reg_text(64 + p->reg, reg,
							 sizeof(reg)),
				0, p->size);
		else if (p->kind == GO_PIECE_IREG && !p->reg_offset)
			loc_add(loc, len, dwarf_reg_text(p->reg, reg,
							 sizeof(reg)),
				0, p->size);
		else
			loc_add(loc, len, "?", 0, p->size);
	}
}

/* The CFA at PC less SP there, by the CFI: its rule at PC must be SP + K
 * (DW_OP_bregx 31 or DW_OP_breg31), K into *K; false when not. */
static bool cfa_sp_offset(Dwarf_CFI *cfi, uint64_t pc, long *k)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t nops;
	bool ok = false;

	if (cfi && !dwarf_cfi_addrframe(cfi, pc, &frame) &&
	    !dwarf_frame_cfa(frame, &ops, &nops) && nops == 1) {
		if (ops[0].atom == DW_OP_bregx && ops[0].number == 31) {
			*k = (long)(int64_t)ops[0].number2;
			ok = true;
		} else if (ops[0].atom == DW_OP_breg31) {
			*k = (long)(int64_t)ops[0].number;
			ok = true;
		}
	}
	free(frame);
	return ok;
}

static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned int shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(const uint8_t **p, const uint8_t *end)
{
	int64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			v |= (int64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

/*
 * The location ATTR gives at PC into OPS (room for MAX) and *N; 0 when it
 * gives none there. gc writes single locations as DW_FORM_block1 in units
 * that say DWARF 4, which libdw takes for no location: those are decoded
 * here, as far as gc's single locations go (DW_OP_reg*, regx, fbreg,
 * call_frame_cfa, piece); any other operation is kept as 0, no place.
 */
static int location_at(Dwarf_Attribute *attr, uint64_t pc, Dwarf_Op *ops,
		       size_t max, size_t *n)
{
	Dwarf_Block b;
	Dwarf_Op *lops;
	size_t nl;
	const uint8_t *p, *end;
	int form = dwarf_whatform(attr);

	*n = 0;
	if (form != DW_FORM_block1 && form != DW_FORM_block) {
		if (dwarf_getlocation_addr(attr, pc, &lops, &nl, 1) != 1)
			return 0;
		for (size_t i = 0; i < nl && i < max; i++)
			ops[(*n)++] = lops[i];
		return *n > 0;
	}
	if (dwarf_formblock(attr, &b))
		return 0;
	p = b.data;
	end = b.data + b.length;
	while (p < end && *n < max) {
		Dwarf_Op op = { .atom = *p++ };

		if (op.atom == DW_OP_regx || op.atom == DW_OP_piece)
			op.number = uleb(&p, end);
		else if (op.atom == DW_OP_fbreg)
			op.number = (Dwarf_Word)sleb(&p, end);
		else if (!(op.atom >= DW_OP_reg0 && op.atom <= DW_OP_reg31) &&
			 op.atom != DW_OP_call_frame_cfa)
			op.atom = 0;
		ops[(*n)++] = op;
		if (!op.atom)
			break;
	}
	return *n > 0;
}

/* Is the subprogram's frame base DW_OP_call_frame_cfa? */
static bool frame_base_is_cfa(Dwarf_Die *fn)
{
	Dwarf_Attribute attr;
	Dwarf_Addr low;
	Dwarf_Op ops[4];
	size_t n;

	return dwarf_attr(fn, DW_AT_frame_base, &attr) &&
	       !dwarf_lowpc(fn, &low) &&
	       location_at(&attr, low, ops, 4, &n) && n == 1 &&
	       ops[0].atom == DW_OP_call_frame_cfa;
}

struct totals {
	int funcs;		/* compared */
	int params;		/* compared at entry */
	int in_regs, on_stack;
	int dead;		/* no location at entry */
	int overlong;		/* gc's pieces longer than the value */
	int unknown;		/* go_dwarf: the vars do not fill the frame */
	int nosig;		/* no DWARF signature */
};

/* Compare the parameters of FN (its subprogram DIE) with L, placed from
 * SIG. */
static void compare_func(const char *fixture, const struct go_func *fn,
			 Dwarf_Die *die, Dwarf_CFI *cfi,
			 const struct go_dwarf_sig *sig,
			 const struct go_abi_layout *l, struct totals *t)
{
	long cfa_sp = 0;
	bool have_cfa = cfa_sp_offset(cfi, fn->addr, &cfa_sp);
	Dwarf_Die c;

	/* the CFA = SP at entry + go_abi__cfa_offset() (plan_layout reads
	 * the frame slots of inlined copies by it) */
	if (!have_cfa)
		fprintf(stderr, "%s %s: no CFA = SP + k at entry\n", fixture,
			fn->name);
	CHECK(have_cfa);
	CHECK_EQ_INT(cfa_sp, go_abi__cfa_offset(EM_AARCH64));
	CHECK(frame_base_is_cfa(die));
	if (dwarf_child(die, &c))
		return;
	do {
		const char *name = dwarf_diename(&c);
		const struct go_abi_value *v = NULL;
		Dwarf_Attribute attr;
		Dwarf_Op ops[64];
		size_t nops, i;
		uint64_t size = 0;
		char want[256], got[256];
		bool flag = false;

		if (dwarf_tag(&c) != DW_TAG_formal_parameter || !name ||
		    !*name || !strcmp(name, "_"))
			continue;
		if (dwarf_attr(&c, DW_AT_variable_parameter, &attr) &&
		    !dwarf_formflag(&attr, &flag) && flag)
			continue;	/* a result */
		for (i = 0; i < sig->nparams; i++)
			if (!strcmp(sig->params[i].name, name))
				break;
		if (i == sig->nparams) {
			fprintf(stderr, "%s %s: parameter %s not in the signature\n",
				fixture, fn->name, name);
			CHECK(0);
			continue;
		}
		v = &l->args[i];
		if (!dwarf_attr(&c, DW_AT_location, &attr) ||
		    !location_at(&attr, fn->addr, ops, 64, &nops)) {
			t->dead++;
			continue;	/* dead at entry: nothing to compare */
		}
		/* gc repeats a piece of some interfaces and slices (x0 x0 x1
		 * for an any): pieces past the value's size place nothing */
		for (i = 0; i < nops; i++)
			if (ops[i].atom == DW_OP_piece)
				size += ops[i].number;
		if (size > v->type->size) {
			if (getenv("GT_VERBOSE"))
				fprintf(stderr, "%s %s %s: %llu bytes of pieces "
					"for %llu\n", fixture, fn->name, name,
					(unsigned long long)size,
					(unsigned long long)v->type->size);
			t->overlong++;
			continue;
		}
		dwarf_loc(ops, nops, v->type->size, cfa_sp, want, sizeof(want));
		our_loc(v, got, sizeof(got));
		/* go1.27 describes .dict by its spill slot */
		if (!strcmp(name, ".dict") && want[0] == 's' && v->in_regs)
			snprintf(got, sizeof(got), "sp+%" PRId64 "/8",
				 v->spill_offset);
		if (strcmp(want, got) || getenv("GT_VERBOSE"))
			fprintf(stderr, "%s %s %s: DWARF \"%s\", ours \"%s\"\n",
				fixture, fn->name, name, want, got);
		CHECK_EQ_STR(got, want);
		t->params++;
		if (v->in_regs)
			t->in_regs++;
		else
			t->on_stack++;
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The subprogram DIE whose low_pc is ADDR, in any unit; false if none. */
static bool subprogram_at(Dwarf *dw, uint64_t addr, Dwarf_Die *out)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die, die;
	Dwarf_Addr low;

	while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cu_die, NULL) == 0) {
		if (dwarf_child(&cu_die, &die))
			continue;
		do {
			if (dwarf_tag(&die) == DW_TAG_subprogram &&
			    !dwarf_lowpc(&die, &low) && low == addr) {
				*out = die;
				return true;
			}
		} while (dwarf_siblingof(&die, &die) == 0);
	}
	return false;
}

static void check_fixture(const char *name, int minor, struct totals *t)
{
	struct go_binary *bin = go_fixture__open(name, true);
	struct go_dwarf *d = NULL;
	Dwarf *dw = NULL;
	Dwarf_CFI *cfi;

	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK_EQ_INT(bin->elf->machine, EM_AARCH64);
	CHECK_EQ_INT(bin->abi, GO_ABI_REGISTER);
	CHECK_EQ_INT(go_binary__dwarf(bin, &dw), 0);
	CHECK_EQ_INT(go_dwarf__open(bin, &d), 0);
	if (!dw || !d)
		goto out;
	cfi = dwarf_getcfi(dw);
	CHECK(cfi != NULL);
	for (size_t f = 0; f < bin->nfuncs; f++) {
		const struct go_func *fn = &bin->funcs[f];
		const struct go_type **types;
		struct go_abi_sig as = { .machine = EM_AARCH64 };
		struct go_dwarf_sig sig;
		struct go_abi_layout l;
		Dwarf_Die die;
		size_t k, n;

		if (strncmp(fn->name, "main.", 5))
			continue;
		if (go_dwarf__func_sig(d, fn->addr, &sig) ||
		    !subprogram_at(dw, fn->addr, &die)) {
			gt_error_clear();
			t->nosig++;
			continue;
		}
		/* go_dwarf checks the vars against _func.args, placed by
		 * go_abi for the binary's machine: UNKNOWN when DWARF misses
		 * a parameter (Go <= 1.22), or when go_abi's frame is wrong */
		if (sig.abi == GO_ABI_UNKNOWN) {
			if (minor >= 23 || getenv("GT_VERBOSE"))
				fprintf(stderr, "%s %s: its frame is not as its "
					"DWARF vars make it\n", name, fn->name);
			CHECK(minor < 23);
			t->unknown++;
			continue;
		}
		CHECK_EQ_INT(sig.abi, GO_ABI_REGISTER);
		n = sig.nparams + sig.nresults;
		types = calloc(n ? n : 1, sizeof(*types));
		CHECK(types != NULL);
		if (!types)
			break;
		for (k = 0; k < n; k++)
			types[k] = k < sig.nparams ? sig.params[k].type :
				   sig.results[k - sig.nparams].type;
		for (k = 0; k < n && types[k]; k++)
			;
		if (k < n) {	/* an untyped value: nothing to place */
			free(types);
			t->nosig++;
			continue;
		}
		as.params = types;
		as.nparams = sig.nparams;
		as.results = types + sig.nparams;
		as.nresults = sig.nresults;
		if (go_abi__assign(sig.abi, &as, &l)) {
			fprintf(stderr, "%s %s: %s\n", name, fn->name,
				gt_last_error());
			CHECK(0);
			free(types);
			continue;
		}
		compare_func(name, fn, &die, cfi, &sig, &l, t);
		t->funcs++;
		go_abi_layout__free(&l);
		free(types);
	}
out:
	go_dwarf__close(d);
	go_binary__close(bin);
}

/*
 * gccgo's AAPCS64 against what gccgo-12 -g (-O0) did with the arm64 args
 * and count fixtures: each parameter's DWARF location (a frame slot,
 * DW_OP_fbreg off the CFA, which is SP at entry; or memory at a register,
 * DW_OP_bregN, for a value passed by reference) and, for a slot, the
 * prologue's stores into it (aarch64-linux-gnu-objdump's listing), which
 * say which argument register held each part of it at the entry; for a
 * register, the prologue's move of the argument register into it; a slot
 * at or above the CFA is the caller's stack argument.
 */

/* A store of an argument register into the frame, or a copy of one. */
struct arg_store {
	long cfa_off;		/* the slot, from the CFA */
	unsigned int size;
	char reg[8];		/* "r3", "f1" as go_abi names them */
};

struct prologue {
	struct arg_store stores[64];
	size_t nstores;
	int copy_of[32];	/* X n holds a copy of argument register X
				 * copy_of[n] - 1, or 0 */
};

/* Argument register text ("r3", "f1") of objdump's "x3", "w3", "d1",
 * "s1" (of the store's width *SIZE when not given); false for another. */
static bool arg_reg(const char *op, size_t len, unsigned int *size, char *out)
{
	unsigned int n;
	char c = op[0];

	if (len < 2 || len > 3 || sscanf(op + 1, "%u", &n) != 1 || n > 7)
		return false;
	switch (c) {
	case 'x': case 'w':
		if (!*size)
			*size = c == 'x' ? 8 : 4;
		snprintf(out, 8, "r%u", n);
		return true;
	case 'd': case 's':
		*size = c == 'd' ? 8 : 4;
		snprintf(out, 8, "f%u", n);
		return true;
	}
	return false;
}

/* "[sp, #-160]!", "[x29, #24]", "[sp]": base SP (false: X29), offset,
 * pre-indexed; false for another. */
static bool mem_operand(const char *s, bool *sp, long *off, bool *pre)
{
	const char *p = strchr(s, '[');

	if (!p)
		return false;
	p++;
	if (!strncmp(p, "sp", 2))
		*sp = true;
	else if (!strncmp(p, "x29", 3))
		*sp = false;
	else
		return false;
	*off = 0;
	p = strpbrk(p, "#]");
	if (p && *p == '#')
		*off = strtol(p + 1, NULL, 0);
	*pre = strchr(s, '!') != NULL;
	return true;
}

/* The prologue of the function at ADDR in L, from its entry to its first
 * instruction that is no store, frame set-up or register move. */
static void prologue_read(const struct objdump_listing *l, uint64_t addr,
			  struct prologue *pr)
{
	long i = objdump_listing__find(l, addr), sp = 0, fp = 0, off;
	long imm[32] = { 0 };	/* what `mov xN, #imm` set */
	bool base_sp, pre;

	memset(pr, 0, sizeof(*pr));
	for (; i >= 0 && (size_t)i < l->n; i++) {
		const struct objdump_line *in = &l->v[i];
		const char *ops = in->ops, *comma = strchr(ops, ',');
		unsigned int size = 0, n, m;
		size_t len = comma ? (size_t)(comma - ops) : 0;
		char reg[8];

		if (!strcmp(in->mn, "sub") && !strncmp(ops, "sp, sp, #", 9)) {
			sp -= strtol(ops + 9, NULL, 0);
		} else if (!strcmp(in->mn, "sub") &&
			   sscanf(ops, "sp, sp, x%u", &n) == 1 && n < 32) {
			sp -= imm[n];	/* a frame too large for an immediate */
		} else if (!strcmp(in->mn, "mov") && !strcmp(ops, "x29, sp")) {
			fp = sp;
		} else if (!strcmp(in->mn, "mov") && strchr(ops, '#') &&
			   sscanf(ops, "x%u, ", &n) == 1 && n > 7 && n < 32) {
			imm[n] = strtol(strchr(ops, '#') + 1, NULL, 0);
		} else if (!strcmp(in->mn, "mov") &&
			   sscanf(ops, "x%u, x%u", &n, &m) == 2) {
			if (n < 32 && m < 8)
				pr->copy_of[n] = m + 1;
		} else if (!strncmp(in->mn, "st", 2) && comma &&
			   mem_operand(ops, &base_sp, &off, &pre)) {
			bool pair = !strcmp(in->mn, "stp");

			if (pre)
				sp += off;
			off = (base_sp ? sp : fp) + (pre ? 0 : off);
			size = !strcmp(in->mn, "strb") ? 1 :
			       !strcmp(in->mn, "strh") ? 2 : 0;
			for (int k = 0; k <= pair; k++) {
				const char *op = k ? comma + 2 : ops;
				size_t oplen = k ? strcspn(op, ",") : len;
				unsigned int sz = size;

				if (arg_reg(op, oplen, &sz, reg) &&
				    pr->nstores < 64) {
					struct arg_store *st =
						&pr->stores[pr->nstores++];

					st->cfa_off = off;
					st->size = sz;
					snprintf(st->reg, sizeof(st->reg), "%s",
						 reg);
				}
				off += pair ? (op[0] == 'x' || op[0] == 'd' ?
					       8 : 4) : 0;
			}
		} else {
			break;
		}
	}
}

/* What the prologue PR and the DWARF location OPS[N] of a parameter of
 * SIZE bytes say held it at the entry, as abi_text.h writes it. */
static void entry_text(const struct prologue *pr, const Dwarf_Op *ops,
		       size_t n, uint64_t size, char *out, size_t len)
{
	size_t used = 0;

	out[0] = 0;
	if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		unsigned int r = ops[0].atom - DW_OP_breg0;

		if (r < 32 && pr->copy_of[r] && !ops[0].number)
			snprintf(out, len, "[r%d+0]/%" PRIu64 "@0",
				 pr->copy_of[r] - 1, size);
		else
			snprintf(out, len, "?");
		return;
	}
	if (n != 1 || ops[0].atom != DW_OP_fbreg) {
		snprintf(out, len, "?");
		return;
	}
	if ((int64_t)ops[0].number >= 0) {
		snprintf(out, len, "sp+%" PRId64 "/%" PRIu64 "@0",
			 (int64_t)ops[0].number, size);
		return;
	}
	for (uint64_t o = 0; o < size;) {
		const struct arg_store *st = NULL;

		for (size_t k = 0; k < pr->nstores; k++)
			if (pr->stores[k].cfa_off == (long)(int64_t)ops[0].number + (long)o)
				st = &pr->stores[k];
		if (!st) {
			snprintf(out + used, len - used, "%s?", used ? " " : "");
			return;
		}
		used += snprintf(out + used, len - used, "%s%s/%" PRIu64 "@%" PRIu64,
				 used ? " " : "", st->reg,
				 size - o < st->size ? size - o : st->size, o);
		o += st->size;
	}
}

static void check_gccgo(const char *name, int *funcs, int *params,
			int *by_ref, int *on_stack)
{
	struct go_binary *bin = go_fixture__open(name, false);
	struct objdump_listing listing;
	struct go_dwarf *d = NULL;
	Dwarf *dw = NULL;

	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK(bin->is_gccgo);
	CHECK_EQ_INT(bin->elf->machine, EM_AARCH64);
	CHECK_EQ_INT(bin->abi, GO_ABI_C);
	CHECK(objdump_listing__load_by(&listing, "aarch64-linux-gnu-objdump",
				       test_fixture(name), ".text"));
	CHECK_EQ_INT(go_binary__dwarf(bin, &dw), 0);
	CHECK_EQ_INT(go_dwarf__open(bin, &d), 0);
	for (size_t f = 0; dw && d && f < bin->nfuncs; f++) {
		const struct go_func *fn = &bin->funcs[f];
		struct go_abi_sig as = { .machine = EM_AARCH64 };
		const struct go_type *types[64];
		struct go_dwarf_sig sig;
		struct go_abi_layout l;
		struct prologue pr;
		Dwarf_Die die, c;
		size_t k = 0;

		if (strncmp(fn->name, "main.", 5) ||
		    go_dwarf__func_sig(d, fn->addr, &sig) ||
		    !subprogram_at(dw, fn->addr, &die)) {
			gt_error_clear();
			continue;
		}
		CHECK_EQ_INT(sig.abi, GO_ABI_C);
		if (sig.nparams > 64 || sig.nresults > 64)
			continue;
		for (k = 0; k < sig.nparams && sig.params[k].type; k++)
			types[k] = sig.params[k].type;
		if (k < sig.nparams)
			continue;	/* an untyped parameter */
		as.params = types;
		as.nparams = sig.nparams;
		if (go_abi__assign(GO_ABI_C, &as, &l)) {
			fprintf(stderr, "%s %s: %s\n", name, fn->name,
				gt_last_error());
			CHECK(0);
			continue;
		}
		prologue_read(&listing, fn->addr, &pr);
		k = 0;
		if (!dwarf_child(&die, &c)) {
			do {
				Dwarf_Attribute attr;
				Dwarf_Op ops[16];
				size_t nops;
				char want[256], got[256];

				if (dwarf_tag(&c) != DW_TAG_formal_parameter)
					continue;
				if (k >= l.nargs) {
					CHECK(0);
					break;
				}
				if (!dwarf_attr(&c, DW_AT_location, &attr) ||
				    !location_at(&attr, fn->addr, ops, 16, &nops))
					snprintf(want, sizeof(want), "?");
				else
					entry_text(&pr, ops, nops,
						   l.args[k].type->size, want,
						   sizeof(want));
				snprintf(got, sizeof(got), "%s",
					 value_str(EM_AARCH64, &l.args[k]));
				if (strcmp(want, got) || getenv("GT_VERBOSE"))
					fprintf(stderr, "%s %s %s: gccgo \"%s\", ours \"%s\"\n",
						name, fn->name,
						dwarf_diename(&c) ?: "?", want, got);
				CHECK_EQ_STR(got, want);
				(*params)++;
				*by_ref += got[0] == '[';
				*on_stack += got[0] == 's';
				k++;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		CHECK_EQ_INT(k, l.nargs);
		(*funcs)++;
		go_abi_layout__free(&l);
	}
	objdump_listing__free(&listing);
	go_dwarf__close(d);
	go_binary__close(bin);
}

TEST(gccgo_fixtures)
{
	int funcs = 0, params = 0, by_ref = 0, on_stack = 0;

	check_gccgo("args-gccgo-arm64", &funcs, &params, &by_ref, &on_stack);
	check_gccgo("count-gccgo-arm64", &funcs, &params, &by_ref,
		    &on_stack);
	printf("gccgo arm64: %d functions of main, %d parameters compared "
	       "(%d by reference, %d on the stack)\n", funcs, params, by_ref,
	       on_stack);
	/* the fixtures pass strings, slices, structs, floats and more
	 * arguments than registers */
	CHECK(params >= 40 && by_ref >= 4 && on_stack >= 3);
}

TEST(dwarf_fixtures)
{
	struct totals all = { 0 };

	for (size_t v = 0; v < NVERSIONS; v++) {
		struct totals t = { 0 };

		for (size_t p = 0; p < NPROGRAMS; p++) {
			char name[64];

			snprintf(name, sizeof(name), "%s-go1.%d-arm64",
				 programs[p], versions[v]);
			check_fixture(name, versions[v], &t);
		}
		printf("go1.%d arm64: %d functions of main, %d parameters "
		       "compared (%d in registers, %d on the stack), %d dead "
		       "at entry, %d with pieces longer than their value, "
		       "%d whose DWARF misses parameters, %d without a typed "
		       "signature\n", versions[v], t.funcs, t.params,
		       t.in_regs, t.on_stack, t.dead, t.overlong, t.unknown,
		       t.nosig);
		/* a version whose DWARF yields nothing proves nothing */
		CHECK(t.params >= 40 && t.in_regs >= 30 && t.on_stack >= 1);
		all.funcs += t.funcs;
		all.params += t.params;
	}
	printf("dwarf_fixtures: %d functions, %d parameter locations "
	       "compared\n", all.funcs, all.params);
}

int main(void)
{
	RUN(registers);
	RUN(dwarf_regs);
	RUN(other_abis);
	RUN(aapcs64);
	RUN(dwarf_fixtures);
	RUN(gccgo_fixtures);
	return TEST_SUMMARY();
}
