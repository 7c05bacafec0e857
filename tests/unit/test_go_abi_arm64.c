// SPDX-License-Identifier: MIT
/*
 * go_abi on arm64: where gc's register ABI puts every parameter of every
 * function of package main at the function's entry, in the arm64 builds
 * of the args and count fixtures (Go 1.19 to 1.27), and the names and
 * pt_regs places of arm64's registers.
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
 *    it (copied below: this test runs on x86-64 too).
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
#include "go_fixture.h"
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

/* ABI0 places alike on both machines (no registers, from 8(SP)); gccgo's
 * AAPCS64 is refused; an unknown machine too. */
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
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &arm), -EOPNOTSUPP);
	CHECK(strstr(gt_last_error(), "AAPCS64") != NULL);
	sig.machine = EM_386;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &arm), -EINVAL);
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
	RUN(dwarf_fixtures);
	return TEST_SUMMARY();
}
