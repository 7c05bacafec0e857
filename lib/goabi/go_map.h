/* SPDX-License-Identifier: MIT */
/*
 * Where a Go map keeps its entries, per version: the one file that knows.
 *
 *  - Go 1.15-1.23 (runtime/map.go): a map value points to an hmap {count
 *    int; flags, B uint8; noverflow uint16; hash0 uint32; buckets,
 *    oldbuckets unsafe.Pointer; ...}: 1 << B buckets {tophash [8]uint8;
 *    keys [8]K; elems [8]V; overflow *bucket}, a slot used when its
 *    tophash is 5 or more; while the map grows, the 1 << (B - 1) old
 *    buckets not yet evacuated (tophash[0] not 2, 3 or 4) hold entries too.
 *  - Go 1.24+ (internal/runtime/maps, Swiss tables): a map value points to
 *    a Map {used uint64; seed uintptr; dirPtr unsafe.Pointer; dirLen int;
 *    ...}: with dirLen 0, dirPtr is one group; else an array of dirLen
 *    *table {...; groups {data unsafe.Pointer; lengthMask uint64} at 16},
 *    a table appearing in consecutive entries; a group is {ctrl uint64;
 *    slots [8]{key K; elem V}}, slot i used when byte i of ctrl has its
 *    high bit clear.
 *
 * Keys and elements over 128 bytes are stored as pointers to them, in
 * both. The compiler's own rules (reflectdata.MapBucketType,
 * SwissMapGroupType) lay these structs out as Go lays out any struct.
 *
 * A pure library: types and walks over a memory reader.
 */
#ifndef GOTOOLS_GO_MAP_H
#define GOTOOLS_GO_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "goabi/go_abi.h"

#define GO_MAP_SLOTS		8	/* per bucket or group */
#define GO_MAP_MAX_INLINE	128	/* bytes of a key or element kept inline */

/* hmap (Go <= 1.23) */
#define GO_HMAP_SIZE		48
#define GO_HMAP_COUNT		0
#define GO_HMAP_B		9
#define GO_HMAP_BUCKETS		16
#define GO_HMAP_OLDBUCKETS	24
#define GO_MAP_MIN_TOPHASH	5

/* Swiss tables (Go 1.24+) */
#define GO_SWISS_MAP_SIZE	48
#define GO_SWISS_USED		0
#define GO_SWISS_DIR_PTR	16
#define GO_SWISS_DIR_LEN	24
#define GO_SWISS_TABLE_SIZE	32
#define GO_SWISS_TABLE_GROUPS	16	/* data, then lengthMask */

/* The storage types of one map type: owned here, stable in memory. */
struct go_map_types {
	bool swiss;
	const struct go_type *key, *elem;	/* as stored: a pointer to
						 * the real one when large */
	bool indirect_key, indirect_elem;
	uint64_t key_offset, elem_offset;	/* of slot 0 in a bucket or
						 * group */
	uint64_t key_stride, elem_stride;	/* from one slot to the next */
	uint64_t overflow_offset;		/* buckets */
	struct go_type bucket;		/* a bucket or a group */
	/* the parts they are built of */
	struct go_type key_ptr, elem_ptr, tophash, keys, elems, slot, slots;
	struct go_field fields[4], slot_fields[2];
};

/*
 * The storage of map type MAP (its key and elem known) in a binary of Go
 * 1.GO_MINOR into M. Returns 0, or -EINVAL when MAP has no key or element
 * type or they are too large.
 */
int go_map_types__init(struct go_map_types *m, const struct go_type *map,
		       int go_minor);

/* Memory as something else read it: 0 and *OUT, -ENODATA when it was not
 * read, -EFAULT when it could not be. */
typedef int (*go_map_read_fn)(void *ctx, uint64_t addr, uint64_t size,
			      const uint8_t **out);

struct go_map_entry {
	const uint8_t *key, *elem;	/* their bytes (indirect ones
					 * followed) */
};

/*
 * The entries of the map at ADDR (a map value, not nil) into OUT[MAX], *N
 * of them, in storage order; *COUNT the number the map says it holds.
 * Returns 0 when every entry was read, -ENODATA when some memory was not
 * read or MAX was reached (OUT holds those that were), -EFAULT when the
 * map's header could not be read.
 */
int go_map__entries(const struct go_map_types *m, uint64_t addr,
		    go_map_read_fn read, void *ctx, struct go_map_entry *out,
		    size_t max, size_t *n, uint64_t *count);

#endif
