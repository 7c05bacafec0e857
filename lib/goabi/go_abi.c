// SPDX-License-Identifier: MIT
/*
 * Go argument placement: ABIInternal, ABI0 and gccgo's C ABIs (System V on
 * x86-64, AAPCS64 on arm64), one algorithm each, over a table of
 * registers per machine.
 * See go_abi.h and cmd/compile/abi-internal.md.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"

#define SCALAR(n, k, sz, al) \
	const struct go_type n = { .kind = k, .size = sz, .align = al }

SCALAR(go_type_bool, GO_KIND_BOOL, 1, 1);
SCALAR(go_type_int, GO_KIND_INT, 8, 8);
SCALAR(go_type_int8, GO_KIND_INT, 1, 1);
SCALAR(go_type_int16, GO_KIND_INT, 2, 2);
SCALAR(go_type_int32, GO_KIND_INT, 4, 4);
SCALAR(go_type_int64, GO_KIND_INT, 8, 8);
SCALAR(go_type_uint, GO_KIND_UINT, 8, 8);
SCALAR(go_type_uint8, GO_KIND_UINT, 1, 1);
SCALAR(go_type_uint16, GO_KIND_UINT, 2, 2);
SCALAR(go_type_uint32, GO_KIND_UINT, 4, 4);
SCALAR(go_type_uint64, GO_KIND_UINT, 8, 8);
SCALAR(go_type_uintptr, GO_KIND_UINT, 8, 8);
SCALAR(go_type_float32, GO_KIND_FLOAT, 4, 4);
SCALAR(go_type_float64, GO_KIND_FLOAT, 8, 8);
SCALAR(go_type_complex64, GO_KIND_COMPLEX, 8, 4);
SCALAR(go_type_complex128, GO_KIND_COMPLEX, 16, 8);
SCALAR(go_type_unsafe_pointer, GO_KIND_PTR, 8, 8);
SCALAR(go_type_string, GO_KIND_STRING, 16, 8);
SCALAR(go_type_eface, GO_KIND_EFACE, 16, 8);
const struct go_type go_type_byte_slice = {
	.kind = GO_KIND_SLICE, .size = 24, .align = 8, .elem = &go_type_uint8,
};

#define MAX_DEPTH 32
/* Type nodes one call may visit: bounds the work on shared subtypes. */
#define MAX_VISITS 65536
/* No Go frame comes near these; they keep offsets far from overflow. */
#define MAX_TYPE_SIZE (1ULL << 32)
#define MAX_VALUES 4096

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

static bool valid_size(uint64_t size, const uint64_t *ok, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (size == ok[i])
			return true;
	return false;
}

static int check_type(const struct go_type *t, int depth, long *visits)
{
	static const uint64_t int_sizes[] = { 1, 2, 4, 8 };
	static const uint64_t float_sizes[] = { 4, 8 };
	static const uint64_t complex_sizes[] = { 8, 16 };
	uint64_t end = 0;
	int err;

	if (!t)
		return gt_error(-EINVAL, "type description missing");
	if (depth > MAX_DEPTH)
		return gt_error(-EINVAL, "type nested more than %d deep",
				MAX_DEPTH);
	if (--*visits < 0)
		return gt_error(-E2BIG, "type too complex to place");
	if (t->align != 1 && t->align != 2 && t->align != 4 && t->align != 8)
		return gt_error(-EINVAL, "type %s: alignment %u",
				t->name ?: "?", t->align);
	if (t->size > MAX_TYPE_SIZE || t->size % t->align)
		return gt_error(-EINVAL, "type %s: size %llu",
				t->name ?: "?", (unsigned long long)t->size);

	switch (t->kind) {
	case GO_KIND_BOOL:
		if (t->size != 1)
			goto bad_size;
		return 0;
	case GO_KIND_INT:
	case GO_KIND_UINT:
		if (!valid_size(t->size, int_sizes, 4) || t->align != t->size)
			goto bad_size;
		return 0;
	case GO_KIND_FLOAT:
		if (!valid_size(t->size, float_sizes, 2) ||
		    t->align != t->size)
			goto bad_size;
		return 0;
	case GO_KIND_COMPLEX:
		if (!valid_size(t->size, complex_sizes, 2) ||
		    t->align != t->size / 2)
			goto bad_size;
		return 0;
	case GO_KIND_PTR:
	case GO_KIND_MAP:
	case GO_KIND_CHAN:
	case GO_KIND_FUNC:
		if (t->size != 8 || t->align != 8)
			goto bad_size;
		return 0;
	case GO_KIND_STRING:
	case GO_KIND_IFACE:
	case GO_KIND_EFACE:
		if (t->size != 16 || t->align != 8)
			goto bad_size;
		return 0;
	case GO_KIND_SLICE:
		if (t->size != 24 || t->align != 8)
			goto bad_size;
		return 0;
	case GO_KIND_ARRAY:
		err = check_type(t->elem, depth + 1, visits);
		if (err)
			return err;
		if (t->align != t->elem->align ||
		    (t->elem->size && t->len > t->size / t->elem->size) ||
		    t->len * t->elem->size != t->size)
			goto bad_size;
		return 0;
	case GO_KIND_STRUCT:
		if (t->nfields && !t->fields)
			return gt_error(-EINVAL, "struct %s: fields missing",
					t->name ?: "?");
		for (size_t i = 0; i < t->nfields; i++) {
			const struct go_field *f = &t->fields[i];

			err = check_type(f->type, depth + 1, visits);
			if (err)
				return err;
			if (f->offset < end || f->offset % f->type->align ||
			    f->type->align > t->align ||
			    f->offset > t->size ||
			    f->type->size > t->size - f->offset)
				return gt_error(-EINVAL,
						"struct %s: field %s misplaced",
						t->name ?: "?", f->name ?: "?");
			end = f->offset + f->type->size;
		}
		return 0;
	}
	return gt_error(-EINVAL, "type %s: unknown kind %d", t->name ?: "?",
			(int)t->kind);
bad_size:
	return gt_error(-EINVAL, "type %s: size %llu or alignment %u wrong "
			"for its kind", t->name ?: "?",
			(unsigned long long)t->size, t->align);
}

int go_type__check(const struct go_type *t)
{
	long visits = MAX_VISITS;

	return check_type(t, 0, &visits);
}

int go_type__init_struct(struct go_type *t, const char *name,
			 struct go_field *fields, size_t n)
{
	uint64_t off = 0;
	uint32_t align = 1;
	bool nonzero = false;

	if (n && !fields)
		return gt_error(-EINVAL, "struct %s: fields missing",
				name ?: "?");
	for (size_t i = 0; i < n; i++) {
		const struct go_type *ft = fields[i].type;

		if (!ft || go_type__check(ft))
			return gt_error(-EINVAL,
					"struct %s: field %s: bad type",
					name ?: "?", fields[i].name ?: "?");
		off = align_up(off, ft->align);
		fields[i].offset = off;
		off += ft->size;
		if (off > MAX_TYPE_SIZE)
			return gt_error(-EINVAL, "struct %s too large",
					name ?: "?");
		if (ft->align > align)
			align = ft->align;
		if (ft->size)
			nonzero = true;
	}
	/* A final zero-size field gets a padding byte, so that its address
	 * does not point past the struct (abi-internal.md). */
	if (n && !fields[n - 1].type->size && nonzero)
		off++;
	memset(t, 0, sizeof(*t));
	t->kind = GO_KIND_STRUCT;
	t->name = name;
	t->size = align_up(off, align);
	t->align = align;
	t->fields = fields;
	t->nfields = n;
	return 0;
}

int go_type__init_array(struct go_type *t, const struct go_type *elem,
			uint64_t len)
{
	if (!elem || go_type__check(elem))
		return gt_error(-EINVAL, "array of a bad element type");
	if (elem->size && len > MAX_TYPE_SIZE / elem->size)
		return gt_error(-EINVAL, "array of %llu elements too large",
				(unsigned long long)len);
	memset(t, 0, sizeof(*t));
	t->kind = GO_KIND_ARRAY;
	t->size = len * elem->size;
	t->align = elem->align;
	t->elem = elem;
	t->len = len;
	return 0;
}

bool go_type__is_int_word(const struct go_type *t)
{
	switch (t->kind) {
	case GO_KIND_BOOL:
	case GO_KIND_INT:
	case GO_KIND_UINT:
	case GO_KIND_PTR:
	case GO_KIND_MAP:
	case GO_KIND_CHAN:
	case GO_KIND_FUNC:
		return true;
	default:
		return false;
	}
}

/*
 * Walking a value down to its scalar words: integer-class words (those of
 * go_type__is_int_word(), the words of strings, slices and interfaces)
 * and float-class words (floats, the halves of complex numbers).
 */
enum word_class { WORD_INT, WORD_FLOAT };

#define NO_FIT 1	/* a walk found a value that cannot go to registers */

struct assign_state;
typedef int (*word_fn)(struct assign_state *st, enum word_class c,
		       uint64_t off, uint32_t size);

/* gccgo's C calling convention on a machine. */
enum c_conv {
	C_SYSV,		/* x86-64's System V ABI */
	C_AAPCS64,	/* arm64's procedure call standard */
};

/* AAPCS64: a homogeneous floating-point aggregate has at most 4 members;
 * X8 takes the address of results in memory. */
#define HFA_MAX			4
#define AAPCS64_RESULT_REG	8

struct assign_state {
	const uint8_t *iregs, *fregs;	/* register sequences */
	unsigned int ni, nf;		/* their lengths */
	unsigned int i, f;		/* next free register */
	uint64_t stack;			/* end of the frame sequence */
	struct go_abi_value *cur;	/* value being register-assigned */
	/* C: the convention, its result registers, and where stack
	 * arguments start: the CFA, as an offset from SP at entry */
	enum c_conv conv;
	const uint8_t *ret_iregs;
	uint8_t c_stack_base;
	/* C: the class of each eightbyte of the value (AAPCS64: every
	 * eightbyte of a composite that is no HFA is INT) */
	enum { EB_NONE, EB_INT, EB_SSE } eb[2];
	/* AAPCS64: the members of the HFA being classified, 0 for none */
	unsigned int hfa_n;
	uint32_t hfa_size;
	uint64_t hfa_off[HFA_MAX];
	long visits;
};

/* Visit the words of T at offset OFF. ARRAYS: walk arrays of any length
 * (System V); else an array longer than 1 does not fit (Go). Returns 0,
 * NO_FIT, or what FN returns. */
static int walk_words(struct assign_state *st, const struct go_type *t,
		      uint64_t off, bool arrays, word_fn fn)
{
	int err = 0;

	if (--st->visits < 0)
		return gt_error(-E2BIG, "type too complex to place");
	if (go_type__is_int_word(t))
		return fn(st, WORD_INT, off, t->size);
	switch (t->kind) {
	case GO_KIND_FLOAT:
		return fn(st, WORD_FLOAT, off, t->size);
	case GO_KIND_COMPLEX:
		err = fn(st, WORD_FLOAT, off, t->size / 2);
		return err ?: fn(st, WORD_FLOAT, off + t->size / 2,
				 t->size / 2);
	case GO_KIND_STRING:
	case GO_KIND_IFACE:
	case GO_KIND_EFACE:
		err = fn(st, WORD_INT, off, 8);
		return err ?: fn(st, WORD_INT, off + 8, 8);
	case GO_KIND_SLICE:
		err = fn(st, WORD_INT, off, 8);
		err = err ?: fn(st, WORD_INT, off + 8, 8);
		return err ?: fn(st, WORD_INT, off + 16, 8);
	case GO_KIND_STRUCT:
		for (size_t i = 0; i < t->nfields && !err; i++)
			err = walk_words(st, t->fields[i].type,
					 off + t->fields[i].offset, arrays, fn);
		return err;
	case GO_KIND_ARRAY:
		if (t->len == 0)
			return 0;
		if (t->len == 1)
			return walk_words(st, t->elem, off, arrays, fn);
		if (!arrays)
			return NO_FIT;
		if (t->elem->size == 0)
			return 0;
		for (uint64_t i = 0; i < t->len && !err; i++)
			err = walk_words(st, t->elem, off + i * t->elem->size,
					 arrays, fn);
		return err;
	default:
		break;
	}
	return gt_error(-EINVAL, "unknown type kind %d", (int)t->kind);
}

/* x86-64's integer registers by DWARF number. */
static const struct int_reg {
	const char *name, *pt_regs;
	int pt_regs_offset;	/* arch/x86/include/asm/ptrace.h, x86-64 */
} x86_int_regs[] = {
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

/* What placing values and naming registers takes of a machine. */
struct machine {
	uint16_t e_machine;
	const struct int_reg *int_regs;	/* by DWARF number */
	unsigned int nint_regs;
	const char *const *fp_names;
	unsigned int nfp;
	const uint8_t *go_iregs;	/* ABIInternal */
	unsigned int go_ni, go_nf;
	enum c_conv c_conv;		/* gccgo's C ABI */
	const uint8_t *c_iregs, *c_ret_iregs;
	unsigned int c_ni, c_nf;
	uint8_t sp;			/* DWARF number */
	uint8_t dwarf_fp0;		/* DWARF number of XMM0, V0 */
	uint8_t cfa_offset;		/* the CFA less SP at entry */
	uint8_t nargs_regs;		/* argument registers: 0..n-1 ... */
	uint8_t skip_lo, skip_hi;	/* ... but [lo, hi) */
};

static const struct machine machines[] = {
	{
		.e_machine = EM_X86_64,
		.int_regs = x86_int_regs, .nint_regs = ARRAY_LEN(x86_int_regs),
		.fp_names = xmm_names, .nfp = ARRAY_LEN(xmm_names),
		.go_iregs = x86_go_iregs, .go_ni = ARRAY_LEN(x86_go_iregs),
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
static const struct machine *machine_of(uint16_t machine)
{
	if (machine == EM_NONE)
		machine = EM_X86_64;
	for (size_t i = 0; i < ARRAY_LEN(machines); i++)
		if (machines[i].e_machine == machine)
			return &machines[i];
	return NULL;
}

static struct go_abi_piece *new_piece(struct go_abi_value *v,
				      enum go_piece_kind kind, uint32_t size,
				      uint64_t value_offset)
{
	struct go_abi_piece *p = &v->pieces[v->npieces++];

	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->size = size;
	p->value_offset = value_offset;
	return p;
}

static void init_value(struct go_abi_value *v, const struct go_type *t)
{
	memset(v, 0, sizeof(*v));
	v->type = t;
	v->spill_offset = -1;
}

/* The whole value T to the next place in the frame sequence, each value
 * aligned to its type (Go) or to eightbytes (C: System V and AAPCS64 give
 * each stack argument slots of 8 bytes). */
static void to_stack(struct assign_state *st, struct go_abi_value *v,
		     const struct go_type *t, bool c_abi)
{
	st->stack = align_up(st->stack, c_abi ? 8 : t->align);
	/* Go: 0(SP) holds the return address (x86-64), the caller's saved
	 * LR (arm64); C: from the CFA (above the return address on x86-64,
	 * SP on arm64) */
	new_piece(v, GO_PIECE_STACK, t->size, 0)->mem_offset =
		(c_abi ? st->c_stack_base : 8) + st->stack;
	st->stack += c_abi ? align_up(t->size, 8) : t->size;
}

static int go_word(struct assign_state *st, enum word_class c, uint64_t off,
		   uint32_t size)
{
	struct go_abi_value *v = st->cur;
	enum go_piece_kind kind = c == WORD_INT ? GO_PIECE_IREG :
						  GO_PIECE_FREG;

	if (c == WORD_INT ? st->i >= st->ni : st->f >= st->nf)
		return NO_FIT;
	/* cannot happen: a value gets at most ni + nf pieces */
	if (v->npieces >= GO_ABI_MAX_PIECES)
		return NO_FIT;
	new_piece(v, kind, size, off)->reg =
		c == WORD_INT ? st->iregs[st->i++] : st->fregs[st->f++];
	return 0;
}

/* abi-internal.md: zero-size values to the stack sequence; else the whole
 * value to registers, or, rolling back, the whole value to the stack. */
static int go_value(struct assign_state *st, struct go_abi_value *v,
		    const struct go_type *t)
{
	unsigned int i = st->i, f = st->f;
	int err;

	init_value(v, t);
	if (t->size) {
		st->cur = v;
		err = walk_words(st, t, 0, false, go_word);
		if (err < 0)
			return err;
		if (!err) {
			v->in_regs = true;
			return 0;
		}
		st->i = i;
		st->f = f;
		v->npieces = 0;
	}
	to_stack(st, v, t, false);
	return 0;
}

/* The K-th incoming value in call order (receiver, `.dict` and parameters
 * as the ABI sees them), and its type. */
static struct go_abi_value *incoming(const struct go_abi_sig *sig,
				     struct go_abi_layout *out, size_t k,
				     const struct go_type **t)
{
	size_t dict_at = sig->dict == GO_DICT_FIRST ? 0 : sig->recv ? 1 : 0;

	if (out->has_dict) {
		if (k == dict_at) {
			*t = &go_type_unsafe_pointer;
			return &out->dict;
		}
		if (k > dict_at)
			k--;
	}
	if (sig->recv && k == 0)
		*t = sig->recv;
	else
		*t = sig->params[k - (sig->recv ? 1 : 0)];
	return &out->args[k];
}

static int assign_go(struct assign_state *st, const struct go_abi_sig *sig,
		     struct go_abi_layout *out)
{
	size_t nin = out->nargs + out->has_dict;
	const struct go_type *t;
	struct go_abi_value *v;
	uint64_t spill;
	int err;

	for (size_t k = 0; k < nin; k++) {
		v = incoming(sig, out, k, &t);
		err = go_value(st, v, t);
		if (err)
			return err;
	}
	st->stack = align_up(st->stack, 8);
	st->i = st->f = 0;
	for (size_t k = 0; k < out->nresults; k++) {
		err = go_value(st, &out->results[k], sig->results[k]);
		if (err)
			return err;
	}
	/* The spill area: a slot for every register-assigned argument. */
	spill = align_up(st->stack, 8);
	for (size_t k = 0; k < nin; k++) {
		v = incoming(sig, out, k, &t);
		if (!v->in_regs)
			continue;
		spill = align_up(spill, t->align);
		v->spill_offset = 8 + spill;
		spill += t->size;
	}
	out->frame_size = align_up(spill, 8);
	return 0;
}

static int sysv_word(struct assign_state *st, enum word_class c,
		     uint64_t off, uint32_t size)
{
	/* only values of at most 16 bytes are classified */
	if (off >= 16)
		return gt_error(-EINVAL, "word beyond a small value");
	if (c == WORD_INT)
		st->eb[off / 8] = EB_INT;
	else if (st->eb[off / 8] == EB_NONE)
		st->eb[off / 8] = EB_SSE;
	return 0;
}

/* Classify the eightbytes of T into st->eb; NO_FIT for class MEMORY. */
static int sysv_classify(struct assign_state *st, const struct go_type *t)
{
	st->eb[0] = st->eb[1] = EB_NONE;
	if (t->size > 16)
		return NO_FIT;
	return walk_words(st, t, 0, true, sysv_word);
}

/* The eightbytes of T, classified in st->eb, to the next free registers:
 * INT ones to st->iregs, SSE ones to the float registers. */
static void c_eightbytes(struct assign_state *st, struct go_abi_value *v,
			 const struct go_type *t)
{
	for (unsigned int eb = 0; eb < 2 && 8 * eb < t->size; eb++) {
		uint32_t size = t->size - 8 * eb < 8 ? t->size - 8 * eb : 8;

		if (st->eb[eb] == EB_INT)
			new_piece(v, GO_PIECE_IREG, size, 8 * eb)->reg =
				st->iregs[st->i++];
		else if (st->eb[eb] == EB_SSE)
			new_piece(v, GO_PIECE_FREG, size, 8 * eb)->reg =
				st->f++;
	}
	v->in_regs = true;
}

static int sysv_value(struct assign_state *st, struct go_abi_value *v,
		      const struct go_type *t)
{
	unsigned int nint = 0, nsse = 0;
	int err;

	init_value(v, t);
	if (!t->size)
		return 0;	/* GCC passes nothing for a zero-size value */
	err = sysv_classify(st, t);
	if (err < 0)
		return err;
	for (int eb = 0; eb < 2; eb++) {
		nint += st->eb[eb] == EB_INT;
		nsse += st->eb[eb] == EB_SSE;
	}
	/* Not enough registers left for every eightbyte: the whole value goes
	 * to the stack, and later arguments may still take registers. */
	if (err || st->i + nint > st->ni || st->f + nsse > st->nf) {
		to_stack(st, v, t, true);
		return 0;
	}
	c_eightbytes(st, v, t);
	return 0;
}

static int hfa_word(struct assign_state *st, enum word_class c, uint64_t off,
		    uint32_t size)
{
	if (c != WORD_FLOAT || st->hfa_n >= HFA_MAX ||
	    (st->hfa_n && size != st->hfa_size))
		return NO_FIT;
	st->hfa_size = size;
	st->hfa_off[st->hfa_n++] = off;
	return 0;
}

/* AAPCS64: is T a homogeneous floating-point aggregate, a float or 1 to 4
 * floats of one size (a complex number is two)? Its members into st->hfa_n
 * (0: it is not one), st->hfa_size and st->hfa_off. */
static int aapcs64_hfa(struct assign_state *st, const struct go_type *t)
{
	int err;

	st->hfa_n = 0;
	err = walk_words(st, t, 0, true, hfa_word);
	if (err < 0)
		return err;
	if (err)
		st->hfa_n = 0;
	return 0;
}

/* AAPCS64: an HFA's members to V registers, else up to 16 bytes to X
 * registers by eightbytes (the float fields of a struct too), else a copy
 * passed by reference; a value that does not fit in the registers left
 * ends their sequence (NSRN or NGRN = 8) and goes to the stack. */
static int aapcs64_value(struct assign_state *st, struct go_abi_value *v,
			 const struct go_type *t)
{
	unsigned int n;
	int err;

	init_value(v, t);
	if (!t->size)
		return 0;	/* GCC passes nothing for a zero-size value */
	err = aapcs64_hfa(st, t);
	if (err)
		return err;
	if (st->hfa_n) {
		if (st->f + st->hfa_n > st->nf) {
			st->f = st->nf;
			to_stack(st, v, t, true);
			return 0;
		}
		for (n = 0; n < st->hfa_n; n++)
			new_piece(v, GO_PIECE_FREG, st->hfa_size,
				  st->hfa_off[n])->reg = st->f++;
		v->in_regs = true;
		return 0;
	}
	if (t->size > 16) {
		if (st->i < st->ni) {
			new_piece(v, GO_PIECE_MEM, t->size, 0)->reg =
				st->iregs[st->i++];
			return 0;
		}
		/* the copy's address on the stack: no register holds it */
		st->stack = align_up(st->stack, 8);
		new_piece(v, GO_PIECE_NONE, t->size, 0);
		st->stack += 8;
		return 0;
	}
	n = (t->size + 7) / 8;
	if (st->i + n > st->ni) {
		st->i = st->ni;
		to_stack(st, v, t, true);
		return 0;
	}
	st->eb[0] = EB_INT;
	st->eb[1] = n > 1 ? EB_INT : EB_NONE;
	c_eightbytes(st, v, t);
	return 0;
}

/* Classify the results' aggregate T (or the one result) as returned: into
 * st->eb, or, AAPCS64, st->hfa_n; NO_FIT for memory. AAPCS64 returns an
 * HFA in V0..V3, else up to 16 bytes in X0 X1, else in memory at X8. */
static int c_classify_results(struct assign_state *st,
			      const struct go_type *t)
{
	int err;

	st->hfa_n = 0;
	if (st->conv == C_SYSV)
		return sysv_classify(st, t);
	err = aapcs64_hfa(st, t);
	if (err || st->hfa_n)
		return err;
	if (t->size > 16)
		return NO_FIT;
	st->eb[0] = EB_INT;
	st->eb[1] = t->size > 8 ? EB_INT : EB_NONE;
	return 0;
}

/* Result V at offset OFF of the returned aggregate, classified by
 * c_classify_results(): an HFA's members in V0, V1...; else eightbytes
 * in st->ret_iregs for INTEGER ones (RAX RDX, X0 X1), the float registers
 * 0 then 1 for SSE ones; several small results may share a register. */
static void c_result(struct assign_state *st, struct go_abi_value *v,
		     uint64_t off)
{
	unsigned int ni = 0, nf = 0;
	uint64_t end = off + v->type->size;

	for (unsigned int k = 0; k < st->hfa_n; k++) {
		if (st->hfa_off[k] < off || st->hfa_off[k] >= end)
			continue;
		new_piece(v, GO_PIECE_FREG, st->hfa_size,
			  st->hfa_off[k] - off)->reg = k;
	}
	for (unsigned int eb = 0; eb < 2 && !st->hfa_n; eb++) {
		uint64_t lo = off > 8 * eb ? off : 8 * eb;
		uint64_t hi = end < 8 * eb + 8 ? end : 8 * eb + 8;
		struct go_abi_piece *p;
		bool is_int = st->eb[eb] == EB_INT;
		uint8_t reg;

		if (st->eb[eb] == EB_NONE)
			continue;
		reg = is_int ? st->ret_iregs[ni++] : nf++;
		if (lo >= hi)
			continue;
		p = new_piece(v, is_int ? GO_PIECE_IREG : GO_PIECE_FREG,
			      hi - lo, lo - off);
		p->reg = reg;
		p->reg_offset = lo - 8 * eb;
	}
	v->in_regs = v->npieces > 0;
}

/* gccgo returns several results as one struct of them. In memory, System
 * V returns its address in RAX; AAPCS64 passes it in X8, which the callee
 * need not keep to its RET: X8's value at the entry. */
static int assign_c_results(struct assign_state *st,
			    const struct go_abi_sig *sig,
			    struct go_abi_layout *out)
{
	struct go_field *fields;
	struct go_type agg;
	int err;

	if (!out->nresults)
		return 0;
	fields = calloc(out->nresults, sizeof(*fields));
	if (!fields)
		return gt_error(-ENOMEM, "out of memory");
	for (size_t k = 0; k < out->nresults; k++)
		fields[k].type = sig->results[k];
	err = go_type__init_struct(&agg, "results", fields, out->nresults);
	if (!err)
		err = c_classify_results(st, out->nresults == 1 ?
					 sig->results[0] : &agg);
	if (err < 0)
		goto out;
	out->results_in_memory = err == NO_FIT;
	out->results_addr_at_entry = out->results_in_memory &&
				     st->conv == C_AAPCS64;
	for (size_t k = 0; k < out->nresults; k++) {
		struct go_abi_value *v = &out->results[k];
		struct go_abi_piece *p;

		init_value(v, sig->results[k]);
		if (!v->type->size)
			continue;
		if (!out->results_in_memory) {
			c_result(st, v, fields[k].offset);
			continue;
		}
		p = new_piece(v, GO_PIECE_MEM, v->type->size, 0);
		p->reg = st->conv == C_SYSV ? GO_REG_RAX : AAPCS64_RESULT_REG;
		p->mem_offset = fields[k].offset;
	}
	err = 0;
out:
	free(fields);
	return err;
}

static int assign_c(struct assign_state *st, const struct go_abi_sig *sig,
		    struct go_abi_layout *out)
{
	size_t k = 0;
	int err;

	if (sig->dict != GO_DICT_NONE)
		return gt_error(-EINVAL, "gccgo has no generic instantiations");
	err = assign_c_results(st, sig, out);
	if (err)
		return err;
	/* System V: the address of the results' memory takes RDI */
	if (out->results_in_memory && st->conv == C_SYSV)
		st->i++;
	/* gccgo passes a value receiver by reference */
	if (sig->recv && sig->recv->kind != GO_KIND_PTR) {
		struct go_abi_value *v = &out->args[k++];
		uint8_t reg = st->iregs[st->i++];

		init_value(v, sig->recv);
		if (sig->recv->size) {
			struct go_abi_piece *p =
				new_piece(v, GO_PIECE_MEM, sig->recv->size, 0);

			p->reg = reg;
		}
	}
	for (; k < out->nargs; k++) {
		const struct go_type *t = sig->recv && k == 0 ? sig->recv :
					  sig->params[k - !!sig->recv];

		err = st->conv == C_SYSV ? sysv_value(st, &out->args[k], t) :
					   aapcs64_value(st, &out->args[k], t);
		if (err)
			return err;
	}
	out->frame_size = st->stack;
	return 0;
}

static int check_sig(const struct go_abi_sig *sig)
{
	int err;

	if (!sig || (sig->nparams && !sig->params) ||
	    (sig->nresults && !sig->results))
		return gt_error(-EINVAL, "signature missing");
	if (sig->nparams > MAX_VALUES || sig->nresults > MAX_VALUES)
		return gt_error(-E2BIG, "signature of %zu parameters and %zu "
				"results", sig->nparams, sig->nresults);
	if (sig->dict != GO_DICT_NONE && sig->dict != GO_DICT_FIRST &&
	    sig->dict != GO_DICT_AFTER_RECV)
		return gt_error(-EINVAL, "unknown .dict position %d",
				(int)sig->dict);
	if (sig->recv && (err = go_type__check(sig->recv)))
		return err;
	for (size_t i = 0; i < sig->nparams; i++)
		if ((err = go_type__check(sig->params[i])))
			return err;
	for (size_t i = 0; i < sig->nresults; i++)
		if ((err = go_type__check(sig->results[i])))
			return err;
	return 0;
}

int go_abi__assign(enum go_abi abi, const struct go_abi_sig *sig,
		   struct go_abi_layout *out)
{
	struct assign_state st = { .visits = MAX_VISITS };
	const struct machine *m;
	int err;

	memset(out, 0, sizeof(*out));
	err = check_sig(sig);
	if (err)
		return err;
	m = machine_of(sig->machine);
	if (!m)
		return gt_error(-EINVAL, "no calling convention for machine %u",
				(unsigned int)sig->machine);
	switch (abi) {
	case GO_ABI_REGISTER:
		st.iregs = m->go_iregs;
		st.ni = m->go_ni;
		st.fregs = go_fregs;
		st.nf = m->go_nf;
		break;
	case GO_ABI_STACK:
		break;
	case GO_ABI_C:
		st.conv = m->c_conv;
		st.iregs = m->c_iregs;
		st.ni = m->c_ni;
		st.nf = m->c_nf;
		st.ret_iregs = m->c_ret_iregs;
		st.c_stack_base = m->cfa_offset;
		break;
	default:
		return gt_error(-EINVAL, "no calling convention for ABI %d",
				(int)abi);
	}
	out->nargs = sig->nparams + !!sig->recv;
	out->nresults = sig->nresults;
	out->has_dict = sig->dict != GO_DICT_NONE;
	out->args = calloc(out->nargs + 1, sizeof(*out->args));
	out->results = calloc(out->nresults + 1, sizeof(*out->results));
	if (!out->args || !out->results) {
		go_abi_layout__free(out);
		return gt_error(-ENOMEM, "out of memory");
	}
	err = abi == GO_ABI_C ? assign_c(&st, sig, out) :
				assign_go(&st, sig, out);
	if (err)
		go_abi_layout__free(out);
	return err;
}

void go_abi_layout__free(struct go_abi_layout *layout)
{
	if (!layout)
		return;
	free(layout->args);
	free(layout->results);
	memset(layout, 0, sizeof(*layout));
}

bool go_abi_value__bpf_readable(const struct go_abi_value *v)
{
	for (size_t i = 0; i < v->npieces; i++)
		if (v->pieces[i].kind == GO_PIECE_FREG ||
		    v->pieces[i].kind == GO_PIECE_NONE)
			return false;
	return true;
}

enum go_abi_dict go_abi__dict_position(int go_minor)
{
	if (go_minor < 18)
		return GO_DICT_NONE;
	/* 1.18 and 1.19 stencil with the dictionary as the first parameter;
	 * unified IR (1.20+) keeps the receiver first. */
	return go_minor < 20 ? GO_DICT_FIRST : GO_DICT_AFTER_RECV;
}

const char *go_abi__reg_name(uint16_t machine, enum go_piece_kind kind,
			     unsigned int reg)
{
	const struct machine *m = machine_of(machine);

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
	const struct machine *m = machine_of(machine);

	return m && reg < m->nint_regs ? m->int_regs[reg].pt_regs : NULL;
}

int go_abi__pt_regs_offset(uint16_t machine, unsigned int reg)
{
	const struct machine *m = machine_of(machine);

	return m && reg < m->nint_regs ? m->int_regs[reg].pt_regs_offset :
					 -EINVAL;
}

int go_abi__sp_reg(uint16_t machine)
{
	const struct machine *m = machine_of(machine);

	return m ? m->sp : -EINVAL;
}

int go_abi__cfa_offset(uint16_t machine)
{
	const struct machine *m = machine_of(machine);

	return m ? m->cfa_offset : -EINVAL;
}

int go_abi__dwarf_reg(uint16_t machine, unsigned int dwarf_reg,
		      enum go_piece_kind *kind, uint8_t *reg)
{
	const struct machine *m = machine_of(machine);

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
	const struct machine *m = machine_of(machine);

	return m && reg < m->nargs_regs &&
	       !(reg >= m->skip_lo && reg < m->skip_hi);
}
