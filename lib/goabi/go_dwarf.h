/* SPDX-License-Identifier: MIT */
/*
 * Go function signatures from DWARF (libdw): parameter and result names and
 * their types as struct go_type graphs (go_abi.h), so a tool can place them
 * with go_abi__assign() and select fields and pointer chains by name.
 *
 * gc (Go 1.15-1.27): every DW_TAG_formal_parameter of the subprogram, in
 * declaration order, which is the ABI's order: receiver, parameters, then
 * results (those with DW_AT_variable_parameter = 1, on every version).
 * Types carry gc's DW_AT_go_kind, which tells string, slice, interface,
 * map, chan and func apart; interfaces are IFACE or EFACE by their
 * runtime.iface/eface layout. Where gc's DWARF departs from the ABI:
 *  - Shape instantiations of generic functions (a "go.shape." in the name)
 *    take a hidden `.dict` pointer. Go 1.27 lists it where the ABI passes
 *    it (after the receiver); Go 1.19-1.25 do not, so it is inserted where
 *    go_abi__dict_position() says (first for 1.18/1.19, after the receiver
 *    since 1.20). Either way the params include `.dict`, and
 *    go_abi__assign() with GO_DICT_NONE places everything. Closures,
 *    method value wrappers (-fm) and range-over-func bodies inside generic
 *    functions take no `.dict` (theirs travels in the closure context).
 *  - Go 1.15-1.22 leave the receiver out of the methods the compiler
 *    writes (pkg.(*T).M wrapping T.M, promoted methods): it is put back,
 *    unnamed, typed *T or T from the function's name.
 *  - Go 1.18-1.25 list some parameters twice (golang/go#61357): kept once.
 *  - Go 1.15-1.22 leave out unnamed and `_` parameters, and assembly
 *    functions have none: go_dwarf_sig.abi says when the vars do not fill
 *    the argument frame that the pclntab records.
 *
 * gccgo (and C functions): the C view. Results are not parameters but the
 * subprogram's DW_AT_type: one result, or, for several, an anonymous
 * struct whose members are declared on the function's own line (a Go
 * struct result is named through a typedef; an anonymous one declared on
 * that line reads as its fields, which the C ABI places alike). Unnamed
 * results are "~r0", "~r1"... Strings, slices and interfaces are C structs
 * known by their member names ({__data, __length}, {__values, __count,
 * __capacity}, {__methods or __type_descriptor, __object}); a map is a
 * pointer to runtime.hmap, kept as a map of unknown key and element; chans
 * stay pointers. A value receiver arrives by reference and DWARF says so:
 * the first param is named "pointer", of type *T. gccgo spells named types
 * ".main.pair"; the dot is dropped, and unnamed pointers, slices and arrays
 * are named as gc names them ("*main.url", "[]uint8", "[3]int").
 */
#ifndef GOTOOLS_GO_DWARF_H
#define GOTOOLS_GO_DWARF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/code_span.h"
#include "goabi/go_abi.h"
#include "gobin/go_binary.h"
#include <elfutils/libdw.h>

/* An index of subprograms by entry on BIN's libdw handle, the types built
 * so far, and an arena owning every go_type, field and var it returns: all
 * valid until go_dwarf__close(). Not thread-safe. */
struct go_dwarf;

/*
 * Read the DWARF of BIN through go_binary__dwarf() (kept by reference: BIN
 * must outlive the handle). Returns 0, -ENOENT with a reason when BIN has
 * no DWARF (stripped, or built with -ldflags=-w), -EINVAL when libdw
 * cannot read it, -ENOMEM.
 */
int go_dwarf__open(const struct go_binary *bin, struct go_dwarf **out);
void go_dwarf__close(struct go_dwarf *d);

struct go_dwarf_var {
	const char *name;		/* "t", "req", "~r0", ".dict"; "" if
					 * unnamed */
	const struct go_type *type;	/* NULL: DWARF does not describe it */
};

/* Is V a shape function's hidden dictionary, `.dict`, which its source
 * does not write? */
static inline bool go_dwarf_var__is_dict(const struct go_dwarf_var *v)
{
	return v->name && v->name[0] == '.';
}

struct go_dwarf_sig {
	const struct go_dwarf_var *params;	/* receiver first, in the
						 * order the ABI assigns them,
						 * `.dict` included */
	size_t nparams;
	const struct go_dwarf_var *results;
	size_t nresults;
	uint64_t c_result_size;	/* gccgo: bytes of the C return value (0:
				 * void); gc: 0 */
	/*
	 * How the values are passed at ENTRY: gccgo and C, GO_ABI_C; gc,
	 * BIN's ABI, but GO_ABI_STACK at an entry Go's linker names
	 * NAME.abi0 (the ABI0 twin of a Go 1.17+ function, called from
	 * assembly, or a function with no other, like cgo's _Cfunc_ stubs:
	 * go_binary names both twins NAME). GO_ABI_UNKNOWN when the vars do
	 * not fill the argument frame the pclntab records (_func.args) under
	 * that ABI: DWARF misses a parameter (Go <= 1.22 leaves unnamed and
	 * `_` ones out), or the function is assembly (no parameters in
	 * DWARF). Unchecked when a type is NULL or the pclntab has no size.
	 */
	enum go_abi abi;
};

/* Is the first parameter of SIG, a gccgo method's, a value receiver,
 * which gccgo passes by reference and names "pointer" (a pointer
 * receiver keeps its source name)? */
static inline bool go_dwarf_sig__gccgo_value_receiver(const struct go_dwarf_sig *sig)
{
	return sig->abi == GO_ABI_C && sig->nparams && sig->params[0].name &&
	       !strcmp(sig->params[0].name, "pointer");
}

/*
 * The signature of the function whose DW_TAG_subprogram has low_pc ==
 * ENTRY (a concrete, out-of-line function, not an abstract inline origin).
 * The first call indexes every subprogram; signatures are built once and
 * kept. Every non-NULL type passes go_type__check(). Returns 0, -ENOENT
 * when no subprogram starts at ENTRY, -EINVAL on corrupt DWARF, -ENOMEM.
 */
int go_dwarf__func_sig(struct go_dwarf *d, uint64_t entry,
		       struct go_dwarf_sig *out);

/*
 * The byte offset of the member at PATH in the Go type named TYPE: PATH
 * names members joined by dots, through typedefs ("stack.hi" in
 * "runtime.g" is member hi of member stack). Only the DIEs on the path are
 * read, no go_type is built; the first call indexes the named types at the
 * top of the Go units. Returns 0, -ENOENT with a reason when there is no
 * such type or member, -EINVAL on corrupt DWARF, -ENOMEM.
 */
int go_dwarf__member_offset(struct go_dwarf *d, const char *type,
			    const char *path, uint64_t *off);

/* A type and its runtime type descriptor. */
struct go_dwarf_rtype {
	uint64_t offset;		/* of the descriptor in the type data
					 * (from moduledata.types) */
	const struct go_type *type;
};

/*
 * Every type at the top of a Go unit that has a runtime type descriptor
 * (gc's DW_AT_go_runtime_type, which holds its offset in the type data,
 * runtime.types), with the go_type built for it, sorted by offset: what
 * an interface's type word names. Built once and kept. Returns 0 (none
 * for gccgo), -EINVAL on corrupt DWARF, -ENOMEM.
 */
int go_dwarf__runtime_types(struct go_dwarf *d,
			    const struct go_dwarf_rtype **out, size_t *n);

/* The type whose descriptor is at OFFSET in the type data, or NULL. */
const struct go_type *go_dwarf__runtime_type(struct go_dwarf *d,
					     uint64_t offset);

/*
 * The first instruction of an inlined copy (a DW_TAG_inlined_subroutine
 * DIE): its entry pc, else the lowest address of its ranges. Returns 0,
 * -ENOENT for a copy with no code, -EINVAL on corrupt DWARF.
 */
int go_dwarf__inline_entry(Dwarf_Die *die, uint64_t *addr);

/*
 * The code of an inlined copy (a DW_TAG_inlined_subroutine DIE): its
 * ranges and those of the copies and lexical blocks nested in it, as
 * merged spans into a malloc()ed *CODE of *N (0 for a copy with no code).
 * Returns 0, -EINVAL on corrupt DWARF, -ENOMEM.
 */
int go_dwarf__inline_code(Dwarf_Die *die, struct code_span **code, size_t *n);

/* Which compilation units go_dwarf__walk_inlines() walks. */
enum go_dwarf_units {
	GO_DWARF_ALL_UNITS,
	GO_DWARF_GO_UNITS,	/* DW_LANG_Go: gc's, gccgo's */
};

/* Called with an inlined copy and the entry (DW_AT_low_pc) of the
 * subprogram it is in, 0 when that has none; non-zero stops the walk. */
typedef int (*go_dwarf_inline_fn)(void *ctx, Dwarf_Die *copy,
				  uint64_t caller_entry);

/*
 * Call FN for every inlined copy (DW_TAG_inlined_subroutine) in the UNITS
 * of BIN's DWARF (go_binary__dwarf()), however deep it nests in other
 * copies and lexical blocks: the walk keeps its own stack, as deep as the
 * file's tree, and visits in no particular order. Returns 0, what FN
 * returned, the errors of go_binary__dwarf() (-ENOENT: no DWARF), -EINVAL
 * on corrupt DWARF, -ENOMEM.
 */
int go_dwarf__walk_inlines(const struct go_binary *bin,
			   enum go_dwarf_units units, go_dwarf_inline_fn fn,
			   void *ctx);

/* Where a piece of a value is at one PC, as DWARF's location says. */
enum go_dwarf_loc_kind {
	GO_DWARF_LOC_NONE,	/* not recorded there */
	GO_DWARF_LOC_REG,	/* register REG (DWARF's numbering) */
	GO_DWARF_LOC_CFA,	/* memory at the call frame address + OFFSET */
};

#define GO_DWARF_MAX_PIECES	24

struct go_dwarf_loc_piece {
	enum go_dwarf_loc_kind kind;
	uint8_t reg;
	int64_t offset;
	uint64_t size;
};

/* A parameter of an inlined copy and where it is at the copy's start. */
struct go_dwarf_inline_param {
	const char *name;
	const struct go_type *type;
	size_t npieces;			/* 0: not recorded at all */
	struct go_dwarf_loc_piece pieces[GO_DWARF_MAX_PIECES];
};

/*
 * The parameters (receiver first, results left out) of the inlined copy of
 * the function FUNC whose code starts at PC, each with where Go's location
 * lists put it at PC (registers, frame slots; a piece Go did not record
 * there, or that an expression puts where a probe cannot read, is NONE),
 * into a malloc()ed *OUT of *N. The first call indexes every inlined copy.
 * Returns 0, -ENOENT when DWARF has no such copy, -EINVAL, -ENOMEM.
 */
int go_dwarf__inline_params(struct go_dwarf *d, uint64_t pc, const char *func,
			    struct go_dwarf_inline_param **out, size_t *n);

#endif
