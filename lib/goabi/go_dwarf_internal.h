/* SPDX-License-Identifier: MIT */
/*
 * What the files of go_dwarf (go_dwarf.h) share, and no one else:
 *  - go_dwarf.c: the handle (open, close), its arena, and a go_type built
 *    from a type DIE, memoized by DIE offset;
 *  - go_dwarf_lookup.c: types by Go name, member offsets, runtime types;
 *  - go_dwarf_sig.c: function signatures and the per-version rules of
 *    gc's DWARF;
 *  - go_dwarf_inline.c: inlined copies, their parameters and locations.
 * Each index below belongs to the file that builds it; the others only
 * see that it is there, and go_dwarf__close() frees it.
 */
#ifndef GOTOOLS_GO_DWARF_INTERNAL_H
#define GOTOOLS_GO_DWARF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "goabi/go_dwarf.h"

/* gc's extensions to DWARF (cmd/internal/dwarf). */
#define DW_AT_go_kind 0x2900
#define DW_AT_go_key 0x2901
#define DW_AT_go_elem 0x2902
#define DW_AT_go_runtime_type 0x2904

/* Value nesting followed; go_type__check() accepts 32 levels anyway. */
#define MAX_DEPTH 40

struct go_dwarf {
	Dwarf *dw;		/* bin's, go_binary__dwarf() */
	const struct go_binary *bin;
	int go_minor;
	struct func_entry *funcs;	/* go_dwarf_sig.c */
	size_t nfuncs;
	bool indexed;
	struct type_entry *types;	/* go_dwarf_lookup.c */
	size_t ntypes;
	bool types_indexed;
	uint64_t *abi0;		/* entries of the NAME.abi0 symbols */
	size_t nabi0;
	bool abi0_indexed;
	struct go_dwarf_rtype *rtypes;	/* by offset */
	size_t nrtypes;
	bool rtypes_indexed;
	struct inline_entry *inlines;	/* go_dwarf_inline.c */
	size_t ninlines;
	bool inlines_indexed;
	struct memo *memo;		/* go_dwarf.c */
	size_t memo_cap, memo_used;
	struct pending *pending;
	size_t npending, pending_cap;
	struct arena_block *arena;
};

/* SIZE zeroed bytes that live as long as D. NULL: out of memory. */
void *go_dwarf_alloc(struct go_dwarf *d, size_t size);
/* A string formatted into D's arena. NULL: out of memory. */
const char *go_dwarf_printf(struct go_dwarf *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* -EINVAL, with libdw's reason. */
int go_dwarf_corrupt(struct go_dwarf *d);

/*
 * The type of DIE into *OUT: a node that passes go_type__check(), or NULL
 * when DIE describes nothing Go can hold (or refers to itself by value).
 * What it only refers to (elements, keys) waits for
 * go_dwarf_resolve_pending(), which every caller runs before handing a
 * type out. Returns 0 or -ENOMEM.
 */
int go_dwarf_type_of(struct go_dwarf *d, Dwarf_Die *die, int depth,
		     const struct go_type **out);
/* Resolve the elements referred to so far; a type that cannot be built
 * leaves its holder's elem NULL, which go_abi.h allows. Returns 0 or
 * -ENOMEM. */
int go_dwarf_resolve_pending(struct go_dwarf *d);
/* A var for DIE (a formal parameter or a member): its name and type. */
int go_dwarf_make_var(struct go_dwarf *d, Dwarf_Die *die, const char *name,
		      struct go_dwarf_var *v);
/* The offset of member DIE M in its structure, or -ENOTSUP. */
int go_dwarf_member_location(Dwarf_Die *m, uint64_t *off);
/* The type named NAME (gc's spelling) into *OUT, NULL when none. */
int go_dwarf_type_by_name(struct go_dwarf *d, const char *name,
			  const struct go_type **out);

/* The DIE that attribute NAME of DIE refers to; false when none. */
static inline bool ref_die(Dwarf_Die *die, unsigned int name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, name, &attr) &&
	       dwarf_formref_die(&attr, out);
}

static inline bool udata(Dwarf_Die *die, unsigned int name, Dwarf_Word *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, name, &attr) &&
	       dwarf_formudata(&attr, out) == 0;
}

static inline bool flag(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	bool value = false;

	return dwarf_attr_integrate(die, name, &attr) &&
	       dwarf_formflag(&attr, &value) == 0 && value;
}

/* T, of a kind whose size is SIZE and alignment 8. */
static inline void set_fixed(struct go_type *t, enum go_kind kind,
			     uint64_t size)
{
	t->kind = kind;
	t->size = size;
	t->align = 8;
}

#endif
