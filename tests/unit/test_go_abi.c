// SPDX-License-Identifier: MIT
/*
 * Tests for go_abi: where arguments and results live.
 *
 * Ground truth, all independent of the code under test:
 *  - the worked examples of go-internals.md section 2 and of
 *    cmd/compile/abi-internal.md (which also fixes the spill area);
 *  - what gccgo-12 did with small programs, read off its disassembly
 *    (register stores in the prologue, results at each RET);
 *  - the DWARF the Go compiler wrote for the count and latency fixtures of
 *    every Go version: the location of each parameter at the function's
 *    first instruction, read with llvm-dwarfdump through popen.
 *  - struct user_regs_struct from <sys/user.h>, whose layout ptrace shares
 *    with the kernel's x86-64 struct pt_regs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/user.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "abi_text.h"
#include "test.h"

#define CHECK_VALUE(v, want) CHECK_EQ_STR(value_str(EM_X86_64, v), want)
#define FIELD(n, t) { .name = n, .type = t }

static struct go_type point_t;		/* struct { x, y int } */
static struct go_field point_f[2] = {
	FIELD("x", &go_type_int), FIELD("y", &go_type_int),
};
static struct go_type int_ptr = {
	.kind = GO_KIND_PTR, .size = 8, .align = 8, .elem = &go_type_int,
};
static struct go_type int_slice = {
	.kind = GO_KIND_SLICE, .size = 24, .align = 8, .elem = &go_type_int,
};
static struct go_type chan_t = { .kind = GO_KIND_CHAN, .size = 8, .align = 8 };
static struct go_type func_t = { .kind = GO_KIND_FUNC, .size = 8, .align = 8 };

static void init_types(void)
{
	CHECK_EQ_INT(go_type__init_struct(&point_t, "main.point", point_f, 2),
		     0);
}

#define SIG(...) ((const struct go_type *const[]){ __VA_ARGS__ })

TEST(types)
{
	struct go_type s, a, e, z, bad;
	struct go_field f[3] = {
		FIELD("a", &go_type_int8), FIELD("b", &go_type_int64),
		FIELD("c", &go_type_int16),
	};
	struct go_field fz[2] = { FIELD("n", &go_type_int32), FIELD("z", &z) };

	/* struct { a int8; b int64; c int16 }: 0, 8, 16; size 24 */
	CHECK_EQ_INT(go_type__init_struct(&s, NULL, f, 3), 0);
	CHECK_EQ_INT(f[1].offset, 8);
	CHECK_EQ_INT(f[2].offset, 16);
	CHECK_EQ_INT(s.size, 24);
	CHECK_EQ_INT(s.align, 8);
	CHECK_EQ_INT(go_type__check(&s), 0);
	/* a final zero-size field adds a byte: struct { n int32; z struct{} }
	 * is 8 bytes (abi-internal.md, "Memory layout") */
	CHECK_EQ_INT(go_type__init_struct(&z, NULL, NULL, 0), 0);
	CHECK_EQ_INT(z.size, 0);
	CHECK_EQ_INT(z.align, 1);
	CHECK_EQ_INT(go_type__init_struct(&e, NULL, fz, 2), 0);
	CHECK_EQ_INT(fz[1].offset, 4);
	CHECK_EQ_INT(e.size, 8);
	CHECK_EQ_INT(go_type__init_array(&a, &go_type_complex64, 3), 0);
	CHECK_EQ_INT(a.size, 24);
	CHECK_EQ_INT(a.align, 4);
	CHECK_EQ_INT(go_type__check(&a), 0);

	/* sizes and alignments a kind cannot have */
	bad = go_type_int;
	bad.size = 3;
	bad.align = 1;
	CHECK_EQ_INT(go_type__check(&bad), -EINVAL);
	bad = go_type_string;
	bad.size = 8;
	CHECK_EQ_INT(go_type__check(&bad), -EINVAL);
	bad = go_type_float64;
	bad.align = 3;
	CHECK_EQ_INT(go_type__check(&bad), -EINVAL);
	CHECK(strstr(gt_last_error(), "alignment") != NULL);
	bad = a;
	bad.len = 4;
	CHECK_EQ_INT(go_type__check(&bad), -EINVAL);
	bad = a;
	bad.elem = NULL;
	CHECK_EQ_INT(go_type__check(&bad), -EINVAL);
	/* overlapping fields */
	bad = s;
	f[1].offset = 4;
	CHECK_EQ_INT(go_type__check(&bad), -EINVAL);
	CHECK(strstr(gt_last_error(), "field b") != NULL);
	f[1].offset = 8;
	CHECK_EQ_INT(go_type__check(&s), 0);
	CHECK_EQ_INT(go_type__check(NULL), -EINVAL);
}

TEST(nesting_and_cycles)
{
	struct go_type self;
	struct go_field sf = FIELD("self", &self);
	struct go_type nest[40];

	/* a struct containing itself (corrupt DWARF) must not recurse away */
	self = (struct go_type){ .kind = GO_KIND_STRUCT, .size = 8,
				 .align = 8, .fields = &sf, .nfields = 1 };
	CHECK_EQ_INT(go_type__check(&self), -EINVAL);
	CHECK(strstr(gt_last_error(), "deep") != NULL);
	for (int i = 0; i < 40; i++) {
		nest[i] = (struct go_type){ .kind = GO_KIND_ARRAY, .size = 8,
					    .align = 8, .len = 1,
					    .elem = i < 39 ? &nest[i + 1] :
							     &go_type_int };
	}
	CHECK_EQ_INT(go_type__check(&nest[8]), 0);
	CHECK_EQ_INT(go_type__check(&nest[0]), -EINVAL);
}

/* go-internals.md section 2: func(a int, s string, f float64, b []byte) */
TEST(example_mixed)
{
	struct go_abi_sig sig = {
		.params = SIG(&go_type_int, &go_type_string, &go_type_float64,
			      &go_type_byte_slice),
		.nparams = 4,
	};
	struct go_abi_layout l;

	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_EQ_INT(l.nargs, 4);
	CHECK_VALUE(&l.args[0], "rax/8@0");
	CHECK_VALUE(&l.args[1], "rbx/8@0 rcx/8@8");
	CHECK_VALUE(&l.args[2], "xmm0/8@0");
	CHECK_VALUE(&l.args[3], "rdi/8@0 rsi/8@8 r8/8@16");
	CHECK(l.args[3].in_regs);
	CHECK(go_abi_value__bpf_readable(&l.args[1]));
	CHECK(!go_abi_value__bpf_readable(&l.args[2]));
	/* the spill area: a, s, f, b in order from 8(SP) */
	CHECK_EQ_INT(l.args[0].spill_offset, 8);
	CHECK_EQ_INT(l.args[1].spill_offset, 16);
	CHECK_EQ_INT(l.args[2].spill_offset, 32);
	CHECK_EQ_INT(l.args[3].spill_offset, 40);
	CHECK_EQ_INT(l.frame_size, 56);
	go_abi_layout__free(&l);

	CHECK_EQ_INT(go_abi__assign(GO_ABI_STACK, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "sp+8/8@0");
	CHECK_VALUE(&l.args[1], "sp+16/16@0");
	CHECK_VALUE(&l.args[2], "sp+32/8@0");
	CHECK_VALUE(&l.args[3], "sp+40/24@0");
	CHECK(!l.args[3].in_regs);
	CHECK_EQ_INT(l.args[0].spill_offset, -1);
	CHECK_EQ_INT(l.frame_size, 56);
	go_abi_layout__free(&l);
}

/* go-internals.md section 2: func(x, y int) int */
TEST(example_add)
{
	struct go_abi_sig sig = {
		.params = SIG(&go_type_int, &go_type_int), .nparams = 2,
		.results = SIG(&go_type_int), .nresults = 1,
	};
	struct go_abi_layout l;

	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "rax/8@0");
	CHECK_VALUE(&l.args[1], "rbx/8@0");
	CHECK_EQ_INT(l.nresults, 1);
	CHECK_VALUE(&l.results[0], "rax/8@0");
	go_abi_layout__free(&l);

	CHECK_EQ_INT(go_abi__assign(GO_ABI_STACK, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "sp+8/8@0");
	CHECK_VALUE(&l.args[1], "sp+16/8@0");
	CHECK_VALUE(&l.results[0], "sp+24/8@0");
	CHECK_EQ_INT(l.frame_size, 24);
	go_abi_layout__free(&l);
}

/* go-internals.md section 2: many(a..j int, s string) */
TEST(example_many)
{
	const struct go_type *p[11];
	struct go_abi_sig sig = { .params = p, .nparams = 11 };
	static const char *const regs[] = {
		"rax/8@0", "rbx/8@0", "rcx/8@0", "rdi/8@0", "rsi/8@0",
		"r8/8@0", "r9/8@0", "r10/8@0", "r11/8@0",
	};
	struct go_abi_layout l;

	for (int i = 0; i < 10; i++)
		p[i] = &go_type_int;
	p[10] = &go_type_string;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	for (int i = 0; i < 9; i++)
		CHECK_VALUE(&l.args[i], regs[i]);
	CHECK_VALUE(&l.args[9], "sp+8/8@0");
	CHECK_VALUE(&l.args[10], "sp+16/16@0");
	go_abi_layout__free(&l);
}

/* go-internals.md section 2: h(c complex128, st struct{a int; b float64},
 * arr [2]int, one [1]string, e any, z [0]int, x int). z's offset is what
 * go1.27 DWARF says (fbreg +16: 24(SP)). */
TEST(example_h)
{
	struct go_type st, arr, one, z;
	struct go_field stf[2] = {
		FIELD("a", &go_type_int), FIELD("b", &go_type_float64),
	};
	struct go_abi_sig sig = { .nparams = 7 };
	struct go_abi_layout l;

	CHECK_EQ_INT(go_type__init_struct(&st, NULL, stf, 2), 0);
	CHECK_EQ_INT(go_type__init_array(&arr, &go_type_int, 2), 0);
	CHECK_EQ_INT(go_type__init_array(&one, &go_type_string, 1), 0);
	CHECK_EQ_INT(go_type__init_array(&z, &go_type_int, 0), 0);
	sig.params = SIG(&go_type_complex128, &st, &arr, &one, &go_type_eface,
			 &z, &go_type_int);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "xmm0/8@0 xmm1/8@8");
	CHECK_VALUE(&l.args[1], "rax/8@0 xmm2/8@8");
	CHECK_VALUE(&l.args[2], "sp+8/16@0");
	CHECK_VALUE(&l.args[3], "rbx/8@0 rcx/8@8");
	CHECK_VALUE(&l.args[4], "rdi/8@0 rsi/8@8");
	CHECK_VALUE(&l.args[5], "sp+24/0@0");
	CHECK_VALUE(&l.args[6], "r8/8@0");
	go_abi_layout__free(&l);
}

/* cmd/compile/abi-internal.md, "Example": func f(a1 uint8, a2 [2]uintptr,
 * a3 uint8) (r1 struct { x uintptr; y [2]uintptr }, r2 string). Its frame:
 * a2 at 0, r1.x at 16, r1.y at 24, a1Spill at 40, a3Spill at 41, then
 * 6 bytes of padding: 48 bytes, from 8(SP). */
TEST(example_abi_internal_md)
{
	struct go_type a2, y, r1;
	struct go_field r1f[2] = {
		FIELD("x", &go_type_uintptr), FIELD("y", &y),
	};
	struct go_abi_sig sig = { .nparams = 3, .nresults = 2 };
	struct go_abi_layout l;

	CHECK_EQ_INT(go_type__init_array(&a2, &go_type_uintptr, 2), 0);
	CHECK_EQ_INT(go_type__init_array(&y, &go_type_uintptr, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&r1, NULL, r1f, 2), 0);
	sig.params = SIG(&go_type_uint8, &a2, &go_type_uint8);
	sig.results = SIG(&r1, &go_type_string);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "rax/1@0");
	CHECK_VALUE(&l.args[1], "sp+8/16@0");
	CHECK_VALUE(&l.args[2], "rbx/1@0");
	CHECK_VALUE(&l.results[0], "sp+24/24@0");
	CHECK_VALUE(&l.results[1], "rax/8@0 rbx/8@8");
	CHECK_EQ_INT(l.args[0].spill_offset, 8 + 40);
	CHECK_EQ_INT(l.args[1].spill_offset, -1);
	CHECK_EQ_INT(l.args[2].spill_offset, 8 + 41);
	CHECK_EQ_INT(l.frame_size, 48);
	go_abi_layout__free(&l);
}

/* Running out of registers rolls the whole value back to the stack; later
 * values still take registers. Observed with go1.19/1.21/1.27 DWARF:
 * Small(a int8, b uint16, c bool, d int32, e float32, f [2]byte, g int64)
 * puts f on the stack and g in RSI. */
TEST(rollback)
{
	struct go_type f2;
	const struct go_type *p[12];
	struct go_abi_sig sig = { .params = p };
	struct go_abi_layout l;

	CHECK_EQ_INT(go_type__init_array(&f2, &go_type_uint8, 2), 0);
	sig.params = SIG(&go_type_int8, &go_type_uint16, &go_type_bool,
			 &go_type_int32, &go_type_float32, &f2, &go_type_int64);
	sig.nparams = 7;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "rax/1@0");
	CHECK_VALUE(&l.args[1], "rbx/2@0");
	CHECK_VALUE(&l.args[2], "rcx/1@0");
	CHECK_VALUE(&l.args[3], "rdi/4@0");
	CHECK_VALUE(&l.args[4], "xmm0/4@0");
	CHECK_VALUE(&l.args[5], "sp+8/2@0");
	CHECK_VALUE(&l.args[6], "rsi/8@0");
	go_abi_layout__free(&l);

	/* 8 ints, then a string needing two of the one register left: the
	 * string to the stack, the int after it to R11. */
	for (int i = 0; i < 8; i++)
		p[i] = &go_type_int;
	p[8] = &go_type_string;
	p[9] = &go_type_int;
	sig.params = p;
	sig.nparams = 10;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[7], "r10/8@0");
	CHECK_VALUE(&l.args[8], "sp+8/16@0");
	CHECK_VALUE(&l.args[9], "r11/8@0");
	go_abi_layout__free(&l);

	/* 12 floats take X0..X11 */
	for (int i = 0; i < 12; i++)
		p[i] = &go_type_float64;
	sig.nparams = 12;
	sig.results = SIG(&go_type_complex128);
	sig.nresults = 1;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[11], "xmm11/8@0");
	/* results start again at X0 */
	CHECK_VALUE(&l.results[0], "xmm0/8@0 xmm1/8@8");
	go_abi_layout__free(&l);
}

/* Zero-size values go to the stack sequence (no space, alignment only);
 * zero-size fields take no register. go1.19/1.21/1.27 DWARF for
 * Z(a struct{}, b int32, p struct{a int; z struct{}}, c int): b RAX, p RBX,
 * c RCX; go1.27 puts a at the CFA (8(SP)). */
TEST(zero_size)
{
	struct go_type e, p, zz;
	struct go_field pf[2] = { FIELD("a", &go_type_int), FIELD("z", &e) };
	struct go_field zf[2] = { FIELD("a", &go_type_int), FIELD("z", &zz) };
	struct go_abi_sig sig = { .nparams = 4 };
	struct go_abi_layout l;

	CHECK_EQ_INT(go_type__init_struct(&e, NULL, NULL, 0), 0);
	CHECK_EQ_INT(go_type__init_struct(&p, NULL, pf, 2), 0);
	CHECK_EQ_INT(p.size, 16);
	sig.params = SIG(&e, &go_type_int32, &p, &go_type_int);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "sp+8/0@0");
	CHECK_VALUE(&l.args[1], "rax/4@0");
	CHECK_VALUE(&l.args[2], "rbx/8@0");
	CHECK_VALUE(&l.args[3], "rcx/8@0");
	go_abi_layout__free(&l);

	/* but a zero-size array of length 2 in a struct still makes it go to
	 * the stack (regassignArray: length > 1 fails) */
	CHECK_EQ_INT(go_type__init_array(&zz, &e, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&p, NULL, zf, 2), 0);
	sig.params = SIG(&go_type_int, &p);
	sig.nparams = 2;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "rax/8@0");
	CHECK_VALUE(&l.args[1], "sp+8/16@0");
	go_abi_layout__free(&l);
}

/* ABI0 packs by alignment, results after pointer alignment. */
TEST(abi0_packing)
{
	struct go_abi_sig sig = {
		.params = SIG(&go_type_int8, &go_type_int8, &go_type_int32),
		.nparams = 3,
		.results = SIG(&go_type_bool, &go_type_int16), .nresults = 2,
	};
	struct go_abi_layout l;

	CHECK_EQ_INT(go_abi__assign(GO_ABI_STACK, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "sp+8/1@0");
	CHECK_VALUE(&l.args[1], "sp+9/1@0");
	CHECK_VALUE(&l.args[2], "sp+12/4@0");
	CHECK_VALUE(&l.results[0], "sp+16/1@0");
	CHECK_VALUE(&l.results[1], "sp+18/2@0");
	CHECK_EQ_INT(l.frame_size, 16);
	go_abi_layout__free(&l);
}

/* Generic shape instantiations, observed in DWARF: go1.19
 * main.(*G[go.shape.int_0]).M(a int, b T) has g in RBX (.dict RAX), a RCX,
 * b RDI; go1.21 and go1.27 have g in RAX (.dict RBX; go1.27 DWARF spills
 * it at fbreg +8). main.G[go.shape.string].V(a int), G = struct{v T;
 * n int}: go1.19 g RBX RCX RDI, a RSI; go1.21 g RAX RBX RCX, .dict RDI
 * (go1.27 spill slot fbreg +24), a RSI. */
TEST(dict)
{
	struct go_type g_int, g_str, pg;
	struct go_field fi[2] = {
		FIELD("v", &go_type_int), FIELD("n", &go_type_int),
	};
	struct go_field fs[2] = { FIELD("v", &go_type_string),
				  FIELD("n", &go_type_int) };
	struct go_abi_sig m = { .recv = &pg, .nparams = 2, .nresults = 1 };
	struct go_abi_sig v = { .recv = &g_str, .nparams = 1, .nresults = 1 };
	struct go_abi_layout l;

	CHECK_EQ_INT(go_type__init_struct(&g_int, NULL, fi, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&g_str, NULL, fs, 2), 0);
	pg = (struct go_type){ .kind = GO_KIND_PTR, .size = 8, .align = 8,
			       .elem = &g_int };
	m.params = SIG(&go_type_int, &go_type_int);
	m.results = SIG(&go_type_int);
	v.params = SIG(&go_type_int);
	v.results = SIG(&go_type_int);

	CHECK_EQ_INT(go_abi__dict_position(15), GO_DICT_NONE);
	CHECK_EQ_INT(go_abi__dict_position(19), GO_DICT_FIRST);
	CHECK_EQ_INT(go_abi__dict_position(21), GO_DICT_AFTER_RECV);

	m.dict = go_abi__dict_position(19);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &m, &l), 0);
	CHECK(l.has_dict);
	CHECK_EQ_INT(l.nargs, 3);
	CHECK_VALUE(&l.dict, "rax/8@0");
	CHECK_VALUE(&l.args[0], "rbx/8@0");
	CHECK_VALUE(&l.args[1], "rcx/8@0");
	CHECK_VALUE(&l.args[2], "rdi/8@0");
	go_abi_layout__free(&l);

	m.dict = go_abi__dict_position(27);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &m, &l), 0);
	CHECK_VALUE(&l.args[0], "rax/8@0");
	CHECK_VALUE(&l.dict, "rbx/8@0");
	CHECK_VALUE(&l.args[1], "rcx/8@0");
	CHECK_VALUE(&l.args[2], "rdi/8@0");
	CHECK_EQ_INT(l.dict.spill_offset, 8 + 8);
	go_abi_layout__free(&l);

	v.dict = go_abi__dict_position(19);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &v, &l), 0);
	CHECK_VALUE(&l.args[0], "rbx/8@0 rcx/8@8 rdi/8@16");
	CHECK_VALUE(&l.args[1], "rsi/8@0");
	go_abi_layout__free(&l);

	v.dict = go_abi__dict_position(21);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &v, &l), 0);
	CHECK_VALUE(&l.args[0], "rax/8@0 rbx/8@8 rcx/8@16");
	CHECK_VALUE(&l.dict, "rdi/8@0");
	CHECK_VALUE(&l.args[1], "rsi/8@0");
	CHECK_EQ_INT(l.dict.spill_offset, 8 + 24);
	go_abi_layout__free(&l);
}

/* gccgo (System V). go-internals.md: main.add(x, y) takes RDI, RSI and
 * returns RAX; a method takes its receiver in RDI. The rest observed on
 * gccgo-12 -g binaries (prologue stores, results at RET). */
TEST(gccgo)
{
	struct go_type t, p, e, arr;
	struct go_field tf[1] = { FIELD("n", &go_type_int) };
	struct go_field pf[2] = { FIELD("a", &go_type_int),
				  FIELD("b", &go_type_float64) };
	struct go_abi_sig sig = { 0 };
	struct go_abi_layout l;
	const struct go_type *many[9];

	CHECK_EQ_INT(go_type__init_struct(&t, "main.T", tf, 1), 0);
	CHECK_EQ_INT(go_type__init_struct(&p, "main.P", pf, 2), 0);
	CHECK_EQ_INT(go_type__init_struct(&e, "main.E", NULL, 0), 0);
	CHECK_EQ_INT(go_type__init_array(&arr, &go_type_int, 2), 0);

	/* add(x, y int) int */
	sig.params = SIG(&go_type_int, &go_type_int);
	sig.nparams = 2;
	sig.results = SIG(&go_type_int);
	sig.nresults = 1;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "rdi/8@0");
	CHECK_VALUE(&l.args[1], "rsi/8@0");
	CHECK_VALUE(&l.results[0], "rax/8@0");
	CHECK(!l.results_in_memory);
	go_abi_layout__free(&l);

	/* Two(a, b int) (int, int): results in RAX, RDX */
	sig.results = SIG(&go_type_int, &go_type_int);
	sig.nresults = 2;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.results[0], "rax/8@0");
	CHECK_VALUE(&l.results[1], "rdx/8@0");
	go_abi_layout__free(&l);

	/* two int32 results share RAX (one eightbyte of the result struct) */
	sig.results = SIG(&go_type_int32, &go_type_int32);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.results[0], "rax/4@0");
	CHECK_VALUE(&l.results[1], "rax+4/4@0");
	go_abi_layout__free(&l);

	/* Str(a int, s string, f float64, b []byte) (int, string): the
	 * 24-byte results go to memory (address in RDI, back in RAX), so a
	 * takes RSI; b (24 bytes) goes to 8(SP) */
	sig.params = SIG(&go_type_int, &go_type_string, &go_type_float64,
			 &go_type_byte_slice);
	sig.nparams = 4;
	sig.results = SIG(&go_type_int, &go_type_string);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK(l.results_in_memory);
	CHECK_VALUE(&l.args[0], "rsi/8@0");
	CHECK_VALUE(&l.args[1], "rdx/8@0 rcx/8@8");
	CHECK_VALUE(&l.args[2], "xmm0/8@0");
	CHECK_VALUE(&l.args[3], "sp+8/24@0");
	CHECK_VALUE(&l.results[0], "[rax+0]/8@0");
	CHECK_VALUE(&l.results[1], "[rax+8]/16@0");
	CHECK_EQ_INT(l.frame_size, 24);
	go_abi_layout__free(&l);

	/* Many(a..g int, s string, h int) string: a..f in RDI..R9, then g,
	 * s, h on the stack; the string result in RAX, RDX */
	for (int i = 0; i < 7; i++)
		many[i] = &go_type_int;
	many[7] = &go_type_string;
	many[8] = &go_type_int;
	sig.params = many;
	sig.nparams = 9;
	sig.results = SIG(&go_type_string);
	sig.nresults = 1;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[5], "r9/8@0");
	CHECK_VALUE(&l.args[6], "sp+8/8@0");
	CHECK_VALUE(&l.args[7], "sp+16/16@0");
	CHECK_VALUE(&l.args[8], "sp+32/8@0");
	CHECK_VALUE(&l.results[0], "rax/8@0 rdx/8@8");
	go_abi_layout__free(&l);

	/* Mix(z E, p P, x int32, i interface{}, arr [2]int, c complex128) P */
	sig.params = SIG(&e, &p, &go_type_int32, &go_type_eface, &arr,
			 &go_type_complex128);
	sig.nparams = 6;
	sig.results = SIG(&p);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "");
	CHECK_VALUE(&l.args[1], "rdi/8@0 xmm0/8@8");
	CHECK_VALUE(&l.args[2], "rsi/4@0");
	CHECK_VALUE(&l.args[3], "rdx/8@0 rcx/8@8");
	CHECK_VALUE(&l.args[4], "r8/8@0 r9/8@8");
	CHECK_VALUE(&l.args[5], "xmm1/8@0 xmm2/8@8");
	CHECK_VALUE(&l.results[0], "rax/8@0 xmm0/8@8");
	go_abi_layout__free(&l);

	/* T.Val(a int) int: a value receiver arrives by reference in RDI */
	sig.recv = &t;
	sig.params = SIG(&go_type_int);
	sig.nparams = 1;
	sig.results = SIG(&go_type_int);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "[rdi+0]/8@0");
	CHECK_VALUE(&l.args[1], "rsi/8@0");
	go_abi_layout__free(&l);

	/* (*T).Ptr(s string) string: the pointer itself in RDI */
	sig.recv = &int_ptr;
	sig.params = SIG(&go_type_string);
	sig.results = SIG(&go_type_string);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), 0);
	CHECK_VALUE(&l.args[0], "rdi/8@0");
	CHECK_VALUE(&l.args[1], "rsi/8@0 rdx/8@8");
	CHECK_VALUE(&l.results[0], "rax/8@0 rdx/8@8");
	go_abi_layout__free(&l);

	/* no generics in gccgo */
	sig.dict = GO_DICT_FIRST;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_C, &sig, &l), -EINVAL);
	CHECK(strstr(gt_last_error(), "gccgo") != NULL);
}

TEST(bad_input)
{
	struct go_type bad = go_type_int;
	struct go_abi_sig sig = { .params = SIG(&bad), .nparams = 1 };
	struct go_abi_layout l;

	bad.size = 5;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), -EINVAL);
	CHECK(l.args == NULL);
	sig.params = SIG(&go_type_int);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_UNKNOWN, &sig, &l), -EINVAL);
	sig.params = NULL;
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), -EINVAL);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, NULL, &l), -EINVAL);
	sig.nparams = 100000;
	sig.params = SIG(&go_type_int);
	CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &sig, &l), -E2BIG);
	go_abi_layout__free(&l);
}

/* pt_regs as ptrace shares it: struct user_regs_struct. */
TEST(pt_regs)
{
	static const struct { unsigned int reg; size_t off; const char *f; }
	want[] = {
		{ GO_REG_RAX, offsetof(struct user_regs_struct, rax), "ax" },
		{ GO_REG_RBX, offsetof(struct user_regs_struct, rbx), "bx" },
		{ GO_REG_RCX, offsetof(struct user_regs_struct, rcx), "cx" },
		{ GO_REG_RDX, offsetof(struct user_regs_struct, rdx), "dx" },
		{ GO_REG_RSI, offsetof(struct user_regs_struct, rsi), "si" },
		{ GO_REG_RDI, offsetof(struct user_regs_struct, rdi), "di" },
		{ GO_REG_RBP, offsetof(struct user_regs_struct, rbp), "bp" },
		{ GO_REG_RSP, offsetof(struct user_regs_struct, rsp), "sp" },
		{ GO_REG_R8, offsetof(struct user_regs_struct, r8), "r8" },
		{ GO_REG_R9, offsetof(struct user_regs_struct, r9), "r9" },
		{ GO_REG_R10, offsetof(struct user_regs_struct, r10), "r10" },
		{ GO_REG_R11, offsetof(struct user_regs_struct, r11), "r11" },
		{ GO_REG_R12, offsetof(struct user_regs_struct, r12), "r12" },
		{ GO_REG_R13, offsetof(struct user_regs_struct, r13), "r13" },
		{ GO_REG_R14, offsetof(struct user_regs_struct, r14), "r14" },
		{ GO_REG_R15, offsetof(struct user_regs_struct, r15), "r15" },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CHECK_EQ_INT(go_abi__pt_regs_offset(EM_X86_64, want[i].reg), want[i].off);
		CHECK_EQ_STR(go_abi__pt_regs_field(EM_X86_64, want[i].reg), want[i].f);
	}
	CHECK_EQ_INT(go_abi__pt_regs_offset(EM_X86_64, 16), -EINVAL);
	CHECK(go_abi__pt_regs_field(EM_X86_64, 99) == NULL);
	CHECK_EQ_STR(go_abi__reg_name(EM_X86_64, GO_PIECE_IREG, GO_REG_R11), "r11");
	CHECK_EQ_STR(go_abi__reg_name(EM_X86_64, GO_PIECE_FREG, 14), "xmm14");
	CHECK_EQ_STR(go_abi__reg_name(EM_X86_64, GO_PIECE_FREG, 16), "?");
}

/*
 * DWARF ground truth. Each parameter's location at the function's first
 * address, canonicalised as "rax/8 rbx/8" (DWARF register names, piece
 * sizes) or "sp+8/16" (CFA-relative memory, merged when contiguous):
 * the CFA is 8(SP) at entry and Go's frame base is the CFA.
 */
struct dw_param {
	char name[64];
	char loc[256];
};

/* Append "where/size", merging with a contiguous stack piece before. */
static void loc_add(char *loc, size_t len, int reg, long sp_off,
		    unsigned long size)
{
	static const char *const names[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	size_t n = strlen(loc);
	char *last = strrchr(loc, ' ');
	long prev_off;
	unsigned long prev_size;

	last = last ? last + 1 : loc;
	if (reg < 0 && sscanf(last, "sp+%ld/%lu", &prev_off, &prev_size) == 2 &&
	    prev_off + (long)prev_size == sp_off) {
		snprintf(last, len - (last - loc), "sp+%ld/%lu", prev_off,
			 prev_size + size);
		return;
	}
	if (reg < 0)
		snprintf(loc + n, len - n, "%ssp+%ld/%lu", n ? " " : "",
			 sp_off, size);
	else if (reg < 16)
		snprintf(loc + n, len - n, "%s%s/%lu", n ? " " : "", names[reg],
			 size);
	else
		snprintf(loc + n, len - n, "%sxmm%d/%lu", n ? " " : "",
			 reg - 17, size);
}

/* An llvm-dwarfdump expression ("DW_OP_reg3 RBX, DW_OP_piece 0x8, ...")
 * in canonical form; a location without pieces covers WHOLE bytes. */
static void dw_expr(const char *expr, unsigned long whole, char *loc,
		    size_t len)
{
	int reg = -2;	/* -2 none, -1 memory, else DWARF register */
	long off = 0;
	const char *p = expr;

	loc[0] = 0;
	while (*p) {
		int r;
		long o;
		unsigned long sz;

		while (*p == ' ' || *p == ',')
			p++;
		if (sscanf(p, "DW_OP_reg%d", &r) == 1) {
			reg = r;
		} else if (!strncmp(p, "DW_OP_call_frame_cfa", 20)) {
			reg = -1;
			off = 8;
		} else if (sscanf(p, "DW_OP_fbreg %ld", &o) == 1) {
			reg = -1;
			off = 8 + o;
		} else if (sscanf(p, "DW_OP_piece 0x%lx", &sz) == 1) {
			if (reg == -2)
				strncat(loc, " ?", len - strlen(loc) - 1);
			else
				loc_add(loc, len, reg, off, sz);
			reg = -2;
		} else if (*p) {
			strncat(loc, " unknown-op", len - strlen(loc) - 1);
		}
		p = strchr(p, ',');
		if (!p)
			break;
	}
	if (reg != -2)
		loc_add(loc, len, reg, off, whole);
}

/* The parameters (not results) of the function named FUNC (a regex) in
 * BIN, with their entry locations as raw expressions in loc. Returns the
 * count, or -1 when the function or llvm-dwarfdump is missing. */
static int dwarf_params(const char *bin, const char *func,
			struct dw_param *out, int max)
{
	char cmd[8192 + 128], line[1024];
	unsigned long long low = 0;
	bool in_func = false, list = false, keep = false;
	int n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "llvm-dwarfdump -c -x -n '%s' '%s' 2>/dev/null", func, bin);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo;
		char *s;

		line[strcspn(line, "\n")] = 0;
		if (strstr(line, "DW_TAG_subprogram")) {
			if (n >= 0)	/* only the first concrete match */
				break;
			in_func = true;
			continue;
		}
		if (!in_func)
			continue;
		if ((s = strstr(line, "DW_AT_low_pc\t(")) && n < 0) {
			low = strtoull(s + 14, NULL, 16);
			n = 0;
			continue;
		}
		if (n < 0)
			continue;
		/* the function's own parameters, not those of inlined calls
		 * (nested deeper); Go 1.15 lists local variables first */
		if (strstr(line, "DW_TAG_")) {
			keep = strstr(line, ":   DW_TAG_formal_parameter") &&
			       n < max;
			list = false;
			if (keep)
				memset(&out[n++], 0, sizeof(out[0]));
			continue;
		}
		if (!keep)
			continue;
		if ((s = strstr(line, "DW_AT_name\t(\""))) {
			snprintf(out[n - 1].name, sizeof(out[0].name), "%.*s",
				 (int)strcspn(s + 13, "\""), s + 13);
		} else if (strstr(line, "DW_AT_variable_parameter\t(0x01)")) {
			keep = false;	/* a result */
			n--;
		} else if ((s = strstr(line, "DW_AT_location\t("))) {
			s += 16;
			if (!strncmp(s, "0x", 2) && strstr(s, ": ")) {
				list = true;
				continue;
			}
			if (strncmp(s, "<empty>", 7))
				snprintf(out[n - 1].loc, sizeof(out[n - 1].loc),
					 "%.*s", (int)strcspn(s, ")") , s);
			continue;
		} else if (list && sscanf(line, " [0x%llx,", &lo) == 1 &&
			   lo == low && (s = strstr(line, "): "))) {
			s += 3;
			snprintf(out[n - 1].loc, sizeof(out[n - 1].loc), "%.*s",
				 (int)(strlen(s) - (s[strlen(s) - 1] == ')')),
				 s);
		}
	}
	pclose(f);
	return n;
}

/* Our location of V in the same canonical form. */
static void our_loc(const struct go_abi_value *v, char *loc, size_t len)
{
	loc[0] = 0;
	for (size_t i = 0; i < v->npieces; i++) {
		const struct go_abi_piece *p = &v->pieces[i];

		if (p->kind == GO_PIECE_STACK)
			loc_add(loc, len, -1, p->mem_offset, p->size);
		else if (p->kind == GO_PIECE_FREG)
			loc_add(loc, len, 17 + p->reg, 0, p->size);
		else
			loc_add(loc, len, p->reg, 0, p->size);
	}
}

struct dw_case {
	const char *func;		/* llvm-dwarfdump regex */
	const struct go_type *const *params;	/* receiver first */
	size_t nparams;
	bool method;
	bool generic;
	int min_minor;			/* needs Go 1.MIN_MINOR */
};

/* Compare every parameter DWARF places at entry with our placement;
 * returns how many were compared. */
static int compare_dwarf(const char *fixture, int minor,
			 const struct dw_case *c)
{
	struct dw_param dw[16];
	struct go_abi_sig sig = { 0 };
	struct go_abi_layout l;
	enum go_abi abi = minor < 17 ? GO_ABI_STACK : GO_ABI_REGISTER;
	int n, compared = 0;
	size_t arg = 0;

	n = dwarf_params(test_fixture(fixture), c->func, dw, 16);
	if (n < 0) {
		fprintf(stderr, "%s: no function %s in DWARF (or no "
			"llvm-dwarfdump)\n", fixture, c->func);
		CHECK(n >= 0);
		return 0;
	}
	sig.recv = c->method ? c->params[0] : NULL;
	sig.params = c->params + c->method;
	sig.nparams = c->nparams - c->method;
	sig.dict = c->generic ? go_abi__dict_position(minor) : GO_DICT_NONE;
	if (go_abi__assign(abi, &sig, &l)) {
		fprintf(stderr, "%s: %s\n", c->func, gt_last_error());
		CHECK(0);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		const struct go_abi_value *v;
		char want[256], got[256];

		if (!strcmp(dw[i].name, ".dict")) {
			v = &l.dict;
			CHECK(l.has_dict);
		} else if (arg < l.nargs) {
			v = &l.args[arg++];
		} else {
			fprintf(stderr, "%s %s: more DWARF parameters than "
				"expected\n", fixture, c->func);
			CHECK(0);
			break;
		}
		if (!dw[i].loc[0])
			continue;	/* dead at entry: nothing to compare */
		dw_expr(dw[i].loc, v->type->size, want, sizeof(want));
		our_loc(v, got, sizeof(got));
		/* go1.27 describes .dict by its spill slot */
		if (v == &l.dict && want[0] == 's')
			snprintf(got, sizeof(got), "sp+%" PRId64 "/8",
				 v->spill_offset);
		if (strcmp(want, got) || getenv("GT_VERBOSE"))
			fprintf(stderr, "%s %s %s: DWARF \"%s\" (%s), ours "
				"\"%s\"\n", fixture, c->func, dw[i].name, want,
				dw[i].loc, got);
		CHECK_EQ_STR(got, want);
		compared++;
	}
	if (arg != l.nargs)
		fprintf(stderr,
			"%s %s: %zu parameters in DWARF, %zu expected\n",
			fixture, c->func, arg, l.nargs);
	CHECK_EQ_INT(arg, l.nargs);
	go_abi_layout__free(&l);
	return compared;
}

TEST(dwarf_fixtures)
{
	static struct go_type counter_ptr = {
		.kind = GO_KIND_PTR, .size = 8, .align = 8,
	};
#define CASE(f, ...) .func = f, .params = SIG(__VA_ARGS__), \
	.nparams = sizeof(SIG(__VA_ARGS__)) / sizeof(void *)
	const struct dw_case count[] = {
		{ CASE("^main\\.add$", &go_type_int, &go_type_int) },
		{ CASE("^main\\.\\(\\*counter\\)\\.inc$", &counter_ptr),
		  .method = true },
		{ CASE("^main\\.point\\.sum$", &point_t), .method = true },
		{ CASE("^main\\.writeCounts$", &go_type_string) },
		{ CASE("^main\\.Sum\\[", &int_slice), .generic = true,
		  .min_minor = 18 },
	};
	const struct dw_case latency[] = {
		{ CASE("^main\\.latSleep$", &go_type_int64) },
		{ CASE("^main\\.latChan$", &chan_t) },
		{ CASE("^main\\.parallel$", &go_type_int, &func_t) },
		{ CASE("^main\\.catch$", &go_type_int) },
	};
#undef CASE
	static const int minors[] = { 15, 19, 21, 23, 25, 27 };
	int total = 0;

	for (size_t m = 0; m < sizeof(minors) / sizeof(minors[0]); m++) {
		char name[64];
		int per = 0;

		snprintf(name, sizeof(name), "count-go1.%d-default", minors[m]);
		for (size_t i = 0; i < sizeof(count) / sizeof(count[0]); i++)
			if (minors[m] >= count[i].min_minor)
				per += compare_dwarf(name, minors[m],
						     &count[i]);
		snprintf(name, sizeof(name), "latency-go1.%d-default",
			 minors[m]);
		for (size_t i = 0; i < sizeof(latency) / sizeof(latency[0]);
		     i++)
			per += compare_dwarf(name, minors[m], &latency[i]);
		/* a version whose DWARF yields nothing proves nothing */
		if (per < 6)
			fprintf(stderr, "go1.%d: only %d parameters compared\n",
				minors[m], per);
		CHECK(per >= 6);
		total += per;
	}
	printf("dwarf_fixtures: %d parameter locations compared\n", total);
}

int main(void)
{
	init_types();
	RUN(types);
	RUN(nesting_and_cycles);
	RUN(example_mixed);
	RUN(example_add);
	RUN(example_many);
	RUN(example_h);
	RUN(example_abi_internal_md);
	RUN(rollback);
	RUN(zero_size);
	RUN(abi0_packing);
	RUN(dict);
	RUN(gccgo);
	RUN(bad_input);
	RUN(pt_regs);
	RUN(dwarf_fixtures);
	return TEST_SUMMARY();
}
