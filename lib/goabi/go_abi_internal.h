/* SPDX-License-Identifier: MIT */
/*
 * What the files of go_abi (go_abi.h) share, and no one else:
 *  - go_type.c: the scalar types, type checks, struct and array layout;
 *  - go_regs.c: each machine's registers and what they are called;
 *  - go_abi.c: walking values to words, pieces, the Go ABIs (register and
 *    stack) and go_abi__assign();
 *  - c_abi.c: gccgo's C ABIs, System V and AAPCS64.
 */
#ifndef GOTOOLS_GO_ABI_INTERNAL_H
#define GOTOOLS_GO_ABI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "goabi/go_abi.h"

/* Type nodes one call may visit: bounds the work on shared subtypes. */
#define MAX_VISITS 65536

static inline uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
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

struct int_reg;

/* What placing values and naming registers takes of a machine. */
struct go_abi_machine {
	uint16_t e_machine;
	const struct int_reg *int_regs;	/* by DWARF number */
	unsigned int nint_regs;
	const char *const *fp_names;
	unsigned int nfp;
	const uint8_t *go_iregs, *go_fregs;	/* ABIInternal */
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

/* MACHINE's table, EM_NONE standing for EM_X86_64; NULL for another. */
const struct go_abi_machine *go_abi_machine_of(uint16_t machine);

/* Visit the words of T at offset OFF. ARRAYS: walk arrays of any length
 * (System V); else an array longer than 1 does not fit (Go). Returns 0,
 * NO_FIT, or what FN returns. */
int go_abi_walk_words(struct assign_state *st, const struct go_type *t,
		      uint64_t off, bool arrays, word_fn fn);

/* A new piece of V, of KIND, SIZE bytes at VALUE_OFFSET in the value. */
struct go_abi_piece *go_abi_new_piece(struct go_abi_value *v,
				      enum go_piece_kind kind, uint32_t size,
				      uint64_t value_offset);

/* V, empty, of type T. */
void go_abi_init_value(struct go_abi_value *v, const struct go_type *t);

/* The whole value T to the next place in the frame sequence, each value
 * aligned to its type (Go) or to eightbytes (C: System V and AAPCS64 give
 * each stack argument slots of 8 bytes). */
void go_abi_to_stack(struct assign_state *st, struct go_abi_value *v,
		     const struct go_type *t, bool c_abi);

/* SIG's values placed by gccgo's C ABI (st->conv) into OUT. */
int go_abi_assign_c(struct assign_state *st, const struct go_abi_sig *sig,
		    struct go_abi_layout *out);

#endif
