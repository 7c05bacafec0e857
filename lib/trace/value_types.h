/* SPDX-License-Identifier: MIT */
/*
 * %v in BPF: the value types (bpf/gotrace.h, struct trace_vtype) that tell
 * gotrace's BPF program which references of a value to follow, built from
 * go_type graphs, and the dynamic types of interfaces, keyed by their
 * descriptor's address.
 *
 * Go's fmt follows, in %v: a string's bytes, a slice's elements, an
 * interface's dynamic value, a map's entries (its header, then its buckets
 * or Swiss tables, go_map.h, per GO_MINOR), and a pointer only at the top
 * (&{...}), or where it calls Error() (the errors this prints the message
 * of, see value_print.h). A value type lists those references of a type: at their
 * offsets through structs and arrays, at most VALUE_TYPE_MAX_SLOTS; the
 * rest of a larger array is not followed (and prints "..."). Type 0 is a
 * byte, the elements of a string.
 *
 * A pure library: no BPF, no ELF.
 */
#ifndef GOTOOLS_VALUE_TYPES_H
#define GOTOOLS_VALUE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "goabi/go_abi.h"
#include "goabi/go_map.h"
#include "gotrace.h"

#define VALUE_TYPE_MAX_SLOTS	64

struct value_dyn {
	__u64 key;		/* the descriptor's address - start_code */
	struct trace_vdyn dyn;
};

struct value_types {
	struct trace_vtype *types;
	size_t ntypes, types_cap;
	struct trace_vslot *slots;
	size_t nslots, slots_cap;
	struct value_dyn *dyns;
	size_t ndyns, dyns_cap;
	bool has_ifaces;	/* some type holds an interface */
	int go_minor;		/* of the binary: how maps are stored */
	/* the storage types of the maps met so far, and their headers' ids */
	struct value_map {
		const struct go_type *type;
		struct go_map_types *storage;
		__u32 header;
	} *maps;
	size_t nmaps, maps_cap;
	/* go_type -> index, open addressing */
	struct { const struct go_type *type; __u32 id; } *ids;
	size_t ids_cap, nids;
};

/* Start S with type 0, a byte, for a binary of Go 1.GO_MINOR. Returns 0
 * or -ENOMEM. */
int value_types__init(struct value_types *s, int go_minor);
void value_types__free(struct value_types *s);

/* The index of T's value type in *ID, built when new. Returns 0,
 * -E2BIG (over 2^20 types) or -ENOMEM. */
int value_types__id(struct value_types *s, const struct go_type *t,
		    __u32 *id);

/*
 * The references of T, a top-level value (so that a pointer fmt prints as
 * &{...} is one), into SLOTS[VALUE_TYPE_MAX_SLOTS], *N of them: what a
 * value type's slots are. Returns 0, -E2BIG or -ENOMEM.
 */
int value_types__refs(struct value_types *s, const struct go_type *t,
		      struct trace_vslot *slots, size_t *n);

/* What fmt's %v follows of a pointer of type T: the errors it prints the
 * message of (at any depth), or (at the top) what prints as &{...}. */
bool value_types__followed_error(const struct go_type *t);
bool value_types__followed_root(const struct go_type *t);

/* Is T pointer-shaped, so that an interface holds it in its data word
 * (Go's types.IsDirectIface)? */
bool value_types__direct_iface(const struct go_type *t);

/* Add T, the dynamic type whose descriptor is KEY bytes past the loaded
 * executable's start_code. Returns 0 or -ENOMEM. */
int value_types__add_dyn(struct value_types *s, __u64 key,
			 const struct go_type *t);

/* Set where an hmap keeps B, buckets and oldbuckets (goabi/go_map.h) in
 * the read-only data RODATA of gotrace's skeleton, whose BPF walks maps by
 * them. */
#define value_types__set_map_layout(rodata) do {			\
	(rodata)->hmap_b = GO_HMAP_B;					\
	(rodata)->hmap_buckets = GO_HMAP_BUCKETS;			\
	(rodata)->hmap_oldbuckets = GO_HMAP_OLDBUCKETS;			\
} while (0)

#endif
