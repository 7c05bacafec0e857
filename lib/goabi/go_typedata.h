/* SPDX-License-Identifier: MIT */
/*
 * Go types from a binary's runtime type data, which stripping keeps: the
 * descriptors reflection and %T read (runtime/type.go to Go 1.20,
 * internal/abi/type.go since), as struct go_type graphs, for the values of
 * stripped binaries. Formats (amd64, Go 1.15-1.27), past the 48-byte
 * header gobin/go_rtype.h reads:
 *
 *   pointer, slice: elem *Type @48
 *   array: elem @48, slice @56, len @64
 *   chan: elem @48;  map: key @48, elem @56
 *   interface: pkgPath @48, methods []Imethod @56 (none: interface{})
 *   struct: pkgPath @48, fields []StructField @56; a field is {name *byte,
 *     typ *Type, offset uintptr} (Go <= 1.18: offset << 1 | embedded)
 *
 * Pointers in the type data are virtual addresses (a PIE's too: its
 * linker writes them in place, next to their relocations). A descriptor
 * that does not read as one is refused, never guessed at.
 */
#ifndef GOTOOLS_GO_TYPEDATA_H
#define GOTOOLS_GO_TYPEDATA_H

#include <stdint.h>
#include "goabi/go_abi.h"
#include "gobin/go_binary.h"
#include "gobin/go_rtype.h"

struct go_typedata;

/*
 * The types of BIN, read through R (which must outlive the result).
 * Returns 0, -ENOTSUP for a Go version it does not know, -ENOMEM.
 */
int go_typedata__open(const struct go_binary *bin, struct go_rtypes *r,
		      struct go_typedata **out);

/* The same for the types of R, of a binary of Go 1.GO_MINOR (fuzzing). */
int go_typedata__open_rtypes(struct go_rtypes *r, int go_minor,
			     struct go_typedata **out);
void go_typedata__close(struct go_typedata *t);

/*
 * The type whose descriptor is at virtual address ADDR into *OUT, built
 * once and kept (with every type it refers to) until go_typedata__close().
 * Returns 0, -ENOENT or -EINVAL with a reason when ADDR holds no type or
 * one that does not decode, -ENOMEM.
 */
int go_typedata__type(struct go_typedata *t, uint64_t addr,
		      const struct go_type **out);

/*
 * The type named NAME, as %T spells it ("*main.order", "[]int", "error",
 * "map[string]int"), into *OUT: a descriptor of that name in the type data
 * (which is searched whole the first time), or for a pointer, slice or
 * array type the binary has no descriptor of, one built from its element
 * type. Returns 0, -ENOENT with a reason naming the type, -ENOMEM.
 */
int go_typedata__find(struct go_typedata *t, const char *name,
		      const struct go_type **out);

/* A descriptor's name and address. */
struct go_typedata_entry {
	const char *name;
	uint64_t addr;
};

/* Every place in the type data that reads as a descriptor (the index find
 * searches, built the first time), sorted by name. Returns 0 or -ENOMEM. */
int go_typedata__all(struct go_typedata *t,
		     const struct go_typedata_entry **out, size_t *n);

/* A method's signature from its receiver type's method table. */
struct go_method_sig {
	const struct go_type *recv;
	const struct go_type *const *params;	/* after the receiver */
	size_t nparams;
	const struct go_type *const *results;
	size_t nresults;
};

/*
 * The signature of the method whose code starts at ENTRY (BIN's), as the
 * method table of its receiver type records it (uncommontype: Tfn, and
 * Ifn for the pointer receiver wrapper of a value method; its type Mtyp,
 * a func type of the parameters and results after the receiver). The
 * first call indexes every method table; methods the linker found
 * unreachable have none. Returns 0, -ENOENT when ENTRY is no such method,
 * -ENOMEM.
 */
int go_typedata__method(struct go_typedata *t, const struct go_binary *bin,
			uint64_t entry, struct go_method_sig *out);

#endif
