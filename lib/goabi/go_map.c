// SPDX-License-Identifier: MIT
/* Go maps' storage per version, and a walk over their entries (go_map.h). */
#include <errno.h>
#include <string.h>
#include "core/byteorder.h"
#include "goabi/go_map.h"

/* T as a bucket or group stores it: a pointer to it when large. */
static const struct go_type *stored(const struct go_type *t, struct go_type *ptr,
				    bool *indirect)
{
	*indirect = t->size > GO_MAP_MAX_INLINE;
	if (!*indirect)
		return t;
	*ptr = (struct go_type){ .kind = GO_KIND_PTR, .size = 8, .align = 8,
				 .elem = t };
	return ptr;
}

int go_map_types__init(struct go_map_types *m, const struct go_type *map,
		       int go_minor)
{
	int err;

	memset(m, 0, sizeof(*m));
	if (map->kind != GO_KIND_MAP || !map->key || !map->elem)
		return -EINVAL;
	m->swiss = go_minor >= 24;
	m->key = stored(map->key, &m->key_ptr, &m->indirect_key);
	m->elem = stored(map->elem, &m->elem_ptr, &m->indirect_elem);
	if (m->swiss) {
		/* group {ctrl uint64; slots [8]struct{key K; elem V}} */
		m->slot_fields[0] = (struct go_field){ .name = "key", .type = m->key };
		m->slot_fields[1] = (struct go_field){ .name = "elem", .type = m->elem };
		err = go_type__init_struct(&m->slot, NULL, m->slot_fields, 2);
		if (!err)
			err = go_type__init_array(&m->slots, &m->slot, GO_MAP_SLOTS);
		m->fields[0] = (struct go_field){ .name = "ctrl", .type = &go_type_uint64 };
		m->fields[1] = (struct go_field){ .name = "slots", .type = &m->slots };
		if (!err)
			err = go_type__init_struct(&m->bucket, NULL, m->fields, 2);
		if (err)
			return -EINVAL;
		m->key_offset = m->fields[1].offset + m->slot_fields[0].offset;
		m->elem_offset = m->fields[1].offset + m->slot_fields[1].offset;
		m->key_stride = m->elem_stride = m->slot.size;
		return 0;
	}
	/* bucket {tophash [8]uint8; keys [8]K; elems [8]V; overflow ptr} */
	err = go_type__init_array(&m->tophash, &go_type_uint8, GO_MAP_SLOTS);
	if (!err)
		err = go_type__init_array(&m->keys, m->key, GO_MAP_SLOTS);
	if (!err)
		err = go_type__init_array(&m->elems, m->elem, GO_MAP_SLOTS);
	m->fields[0] = (struct go_field){ .name = "tophash", .type = &m->tophash };
	m->fields[1] = (struct go_field){ .name = "keys", .type = &m->keys };
	m->fields[2] = (struct go_field){ .name = "elems", .type = &m->elems };
	m->fields[3] = (struct go_field){ .name = "overflow",
					  .type = &go_type_unsafe_pointer };
	if (!err)
		err = go_type__init_struct(&m->bucket, NULL, m->fields, 4);
	if (err)
		return -EINVAL;
	m->key_offset = m->fields[1].offset;
	m->elem_offset = m->fields[2].offset;
	m->key_stride = m->key->size;
	m->elem_stride = m->elem->size;
	m->overflow_offset = m->fields[3].offset;
	return 0;
}

/* What the entries are read with. */
struct walk {
	const struct go_map_types *m;
	go_map_read_fn read;
	void *ctx;
	struct go_map_entry *out;
	size_t max, n;
	bool cut;
};

/* Follow a large key or element's pointer. */
static const uint8_t *follow(struct walk *w, const uint8_t *p, bool indirect,
			     const struct go_type *t)
{
	const uint8_t *b = NULL;

	if (!indirect)
		return p;
	if (w->read(w->ctx, get_u64(p), t->elem->size, &b)) {
		w->cut = true;
		return NULL;
	}
	return b;
}

static void add_entry(struct walk *w, const uint8_t *slots, unsigned int i)
{
	const struct go_map_types *m = w->m;
	const uint8_t *k, *e;

	if (w->n == w->max) {
		w->cut = true;
		return;
	}
	k = follow(w, slots + m->key_offset + i * m->key_stride,
		   m->indirect_key, m->key);
	e = follow(w, slots + m->elem_offset + i * m->elem_stride,
		   m->indirect_elem, m->elem);
	if (k && e)
		w->out[w->n++] = (struct go_map_entry){ k, e };
}

/* A bucket and its overflow chain; OLD: skip it when evacuated. */
static void walk_bucket(struct walk *w, uint64_t addr, bool old)
{
	const struct go_map_types *m = w->m;
	const uint8_t *b;
	unsigned int i, hops;

	for (hops = 0; addr && hops < 1024; hops++) {
		if (w->read(w->ctx, addr, m->bucket.size, &b)) {
			w->cut = true;
			return;
		}
		/* evacuated: its entries are in the new buckets */
		if (old && !hops && b[0] > 1 && b[0] < GO_MAP_MIN_TOPHASH)
			return;
		for (i = 0; i < GO_MAP_SLOTS; i++)
			if (b[i] >= GO_MAP_MIN_TOPHASH)
				add_entry(w, b, i);
		addr = get_u64(b + m->overflow_offset);
	}
}

static void walk_group(struct walk *w, uint64_t addr)
{
	const uint8_t *g;
	unsigned int i;

	if (w->read(w->ctx, addr, w->m->bucket.size, &g)) {
		w->cut = true;
		return;
	}
	for (i = 0; i < GO_MAP_SLOTS; i++)
		if (!(g[i] & 0x80))
			add_entry(w, g, i);
}

static void walk_swiss(struct walk *w, const uint8_t *hdr)
{
	uint64_t dir = get_u64(hdr + GO_SWISS_DIR_PTR), prev = 0, t, g;
	uint64_t len = get_u64(hdr + GO_SWISS_DIR_LEN), i, mask;
	const uint8_t *d, *tab;

	if (!len) {
		walk_group(w, dir);
		return;
	}
	if (len > (1 << 20) || w->read(w->ctx, dir, len * 8, &d)) {
		w->cut = true;
		return;
	}
	for (i = 0; i < len; i++) {
		/* a table spans consecutive directory entries */
		t = get_u64(d + i * 8);
		if (t == prev)
			continue;
		prev = t;
		if (w->read(w->ctx, t, GO_SWISS_TABLE_SIZE, &tab)) {
			w->cut = true;
			continue;
		}
		mask = get_u64(tab + GO_SWISS_TABLE_GROUPS + 8);
		for (g = 0; g <= mask && g < (1 << 20); g++)
			walk_group(w, get_u64(tab + GO_SWISS_TABLE_GROUPS) +
				   g * w->m->bucket.size);
	}
}

int go_map__entries(const struct go_map_types *m, uint64_t addr,
		    go_map_read_fn read, void *ctx, struct go_map_entry *out,
		    size_t max, size_t *n, uint64_t *count)
{
	struct walk w = { .m = m, .read = read, .ctx = ctx, .out = out,
			  .max = max };
	const uint8_t *hdr;
	uint64_t i, nb, buckets, old;
	int err;

	*n = 0;
	*count = 0;
	err = read(ctx, addr, m->swiss ? GO_SWISS_MAP_SIZE : GO_HMAP_SIZE, &hdr);
	if (err)
		return err;
	*count = get_u64(hdr + (m->swiss ? GO_SWISS_USED : GO_HMAP_COUNT));
	if (!*count)
		return 0;
	if (m->swiss) {
		walk_swiss(&w, hdr);
	} else {
		nb = hdr[GO_HMAP_B] < 31 ? 1ULL << hdr[GO_HMAP_B] : 0;
		buckets = get_u64(hdr + GO_HMAP_BUCKETS);
		old = get_u64(hdr + GO_HMAP_OLDBUCKETS);
		for (i = 0; i < nb && !w.cut; i++)
			walk_bucket(&w, buckets + i * m->bucket.size, false);
		for (i = 0; old && i < nb / 2 && !w.cut; i++)
			walk_bucket(&w, old + i * m->bucket.size, true);
	}
	*n = w.n;
	return w.cut || w.n < *count ? -ENODATA : 0;
}
