// SPDX-License-Identifier: MIT
/* %v's value types for BPF, and the dynamic types of interfaces
 * (value_types.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "trace/value_types.h"

#define MAX_TYPES	(1U << 20)

int value_types__init(struct value_types *s, int go_minor)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->go_minor = go_minor;
	err = gt_ensure_mem((void **)&s->types, &s->types_cap,
			    sizeof(*s->types), 1);
	if (err)
		return err;
	s->types[0] = (struct trace_vtype){ .size = 1 };
	s->ntypes = 1;
	return 0;
}

void value_types__free(struct value_types *s)
{
	size_t i;

	for (i = 0; i < s->nmaps; i++)
		free(s->maps[i].storage);
	free(s->maps);
	free(s->types);
	free(s->slots);
	free(s->dyns);
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

bool value_types__followed_error(const struct go_type *t)
{
	return t->kind == GO_KIND_PTR && t->name && t->elem &&
	       (!strcmp(t->name, "*errors.errorString") ||
		!strcmp(t->name, "*fmt.wrapError") ||
		!strcmp(t->name, "*fmt.wrapErrors"));
}

bool value_types__followed_root(const struct go_type *t)
{
	enum go_kind k;

	if (t->kind != GO_KIND_PTR || !t->elem)
		return false;
	k = t->elem->kind;
	return k == GO_KIND_STRUCT || k == GO_KIND_ARRAY ||
	       k == GO_KIND_SLICE || k == GO_KIND_MAP;
}

bool value_types__direct_iface(const struct go_type *t)
{
	switch (t->kind) {
	case GO_KIND_PTR:
	case GO_KIND_CHAN:
	case GO_KIND_MAP:
	case GO_KIND_FUNC:
		return true;
	case GO_KIND_ARRAY:
		return t->len == 1 && value_types__direct_iface(t->elem);
	case GO_KIND_STRUCT:
		return t->nfields == 1 &&
		       value_types__direct_iface(t->fields[0].type);
	default:
		return false;
	}
}

static size_t id_hash(const struct go_type *t, size_t cap)
{
	return ((uintptr_t)t >> 4) * 0x9e3779b97f4a7c15ULL & (cap - 1);
}

static int ids_grow(struct value_types *s)
{
	size_t cap = s->ids_cap ? s->ids_cap * 2 : 256, i, h;
	__typeof__(s->ids) ids = calloc(cap, sizeof(*ids));

	if (!ids)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < s->ids_cap; i++) {
		if (!s->ids[i].type)
			continue;
		for (h = id_hash(s->ids[i].type, cap); ids[h].type;
		     h = (h + 1) & (cap - 1))
			;
		ids[h] = s->ids[i];
	}
	free(s->ids);
	s->ids = ids;
	s->ids_cap = cap;
	return 0;
}

/* The slot of T, or NULL after adding it as new. */
static __u32 *id_slot(struct value_types *s, const struct go_type *t, bool *found)
{
	size_t h = id_hash(t, s->ids_cap);

	for (; s->ids[h].type; h = (h + 1) & (s->ids_cap - 1)) {
		if (s->ids[h].type == t) {
			*found = true;
			return &s->ids[h].id;
		}
	}
	*found = false;
	s->ids[h].type = t;
	s->nids++;
	return &s->ids[h].id;
}

/* A new value type of SIZE bytes, its slots set later, in *ID. */
static int reserve(struct value_types *s, uint64_t size, __u32 *id)
{
	int err;

	if (s->ntypes == MAX_TYPES)
		return gt_error(-E2BIG, "more than %u value types", MAX_TYPES);
	err = gt_ensure_mem((void **)&s->types, &s->types_cap,
			    sizeof(*s->types), s->ntypes + 1);
	if (err)
		return err;
	*id = s->ntypes++;
	s->types[*id] = (struct trace_vtype){
		.size = size > UINT32_MAX ? UINT32_MAX : size,
	};
	return 0;
}

/* The slots of type ID: SLOTS[0..N), appended. */
static int set_slots(struct value_types *s, __u32 id,
		     const struct trace_vslot *slots, size_t n)
{
	size_t k;
	int err = 0;

	if (n)
		err = gt_ensure_mem((void **)&s->slots, &s->slots_cap,
				    sizeof(*s->slots), s->nslots + n);
	if (err)
		return err;
	s->types[id].first_slot = s->nslots;
	s->types[id].nslots = n;
	for (k = 0; k < n; k++)
		s->slots[s->nslots++] = slots[k];
	return 0;
}

static int collect(struct value_types *s, const struct go_type *t,
		   uint64_t off, struct trace_vslot *slots, size_t *n,
		   int depth, bool top);

/* A value type of SIZE bytes with one slot. */
static int one_slot(struct value_types *s, uint64_t size, struct trace_vslot sl,
		    __u32 *id)
{
	int err = reserve(s, size, id);

	return err ? err : set_slots(s, *id, &sl, 1);
}

/*
 * The value type of what map type T points to (its header), whose slots
 * lead to its buckets (Go <= 1.23; each with its overflow chain) or to its
 * group or directory, tables and groups (Swiss tables). -EINVAL when T's
 * key type is unknown.
 */
static int map_header(struct value_types *s, const struct go_type *t, __u32 *id)
{
	struct trace_vslot slots[VALUE_TYPE_MAX_SLOTS + 1], hdr[2];
	struct value_map *vm;
	struct go_map_types *m;
	__u32 bucket, table, dir;
	size_t i, n = 0;
	int err;

	for (i = 0; i < s->nmaps; i++) {
		if (s->maps[i].type == t) {
			*id = s->maps[i].header;
			return 0;
		}
	}
	m = malloc(sizeof(*m));
	if (!m)
		return gt_error(-ENOMEM, "out of memory");
	err = go_map_types__init(m, t, s->go_minor);
	if (!err)
		err = gt_ensure_mem((void **)&s->maps, &s->maps_cap,
				    sizeof(*s->maps), s->nmaps + 1);
	if (err) {
		free(m);
		return err;
	}
	vm = &s->maps[s->nmaps++];
	vm->type = t;
	vm->storage = m;
	err = reserve(s, m->swiss ? GO_SWISS_MAP_SIZE : GO_HMAP_SIZE, &vm->header);
	*id = vm->header;
	/* a bucket's or group's keys and elements, and a bucket's overflow */
	if (!err)
		err = reserve(s, m->bucket.size, &bucket);
	if (!err)
		err = collect(s, &m->bucket, 0, slots, &n, 0, false);
	if (!err && !m->swiss)
		slots[n++] = (struct trace_vslot){ .offset = m->overflow_offset,
						   .kind = REF_CHAIN,
						   .vtype = bucket };
	if (!err)
		err = set_slots(s, bucket, slots, n);
	if (err)
		return err;
	if (!m->swiss) {
		hdr[0] = (struct trace_vslot){ .offset = 0, .kind = REF_BUCKETS,
					       .vtype = bucket };
		return set_slots(s, *id, hdr, 1);
	}
	err = one_slot(s, GO_SWISS_TABLE_SIZE, (struct trace_vslot){
			.offset = GO_SWISS_TABLE_GROUPS, .kind = REF_GROUPS,
			.vtype = bucket }, &table);
	if (!err)
		err = one_slot(s, 8, (struct trace_vslot){ .kind = REF_CHAIN,
							    .vtype = table }, &dir);
	if (err)
		return err;
	hdr[0] = (struct trace_vslot){ .offset = GO_SWISS_DIR_PTR,
				       .kind = REF_SWISS_GROUP, .vtype = bucket };
	hdr[1] = (struct trace_vslot){ .offset = GO_SWISS_DIR_PTR,
				       .kind = REF_SWISS_DIR, .vtype = dir };
	return set_slots(s, *id, hdr, 2);
}

/* The references of T at OFF into SLOTS[*N]; past MAX, no more. TOP: T
 * is a top-level value. */
static int collect(struct value_types *s, const struct go_type *t,
		   uint64_t off, struct trace_vslot *slots, size_t *n,
		   int depth, bool top)
{
	struct trace_vslot sl = { .offset = off };
	uint64_t i;
	int err = 0;

	if (depth > 32 || *n == VALUE_TYPE_MAX_SLOTS || off > UINT32_MAX)
		return 0;
	switch (t->kind) {
	case GO_KIND_STRING:
		sl.kind = REF_STRING;
		break;
	case GO_KIND_SLICE:
		if (!t->elem)
			return 0;
		sl.kind = REF_SLICE;
		err = value_types__id(s, t->elem, &sl.vtype);
		break;
	case GO_KIND_EFACE:
	case GO_KIND_IFACE:
		sl.kind = t->kind == GO_KIND_EFACE ? REF_EFACE : REF_IFACE;
		s->has_ifaces = true;
		break;
	case GO_KIND_MAP:
		sl.kind = REF_MAP;
		err = map_header(s, t, &sl.vtype);
		if (err == -EINVAL)
			return 0;	/* no key type: not followed */
		break;
	case GO_KIND_PTR:
		if (!value_types__followed_error(t) &&
		    !(top && value_types__followed_root(t)))
			return 0;
		sl.kind = REF_PTR;
		err = value_types__id(s, t->elem, &sl.vtype);
		break;
	case GO_KIND_STRUCT:
		for (i = 0; i < t->nfields && !err; i++)
			err = collect(s, t->fields[i].type,
				      off + t->fields[i].offset, slots, n,
				      depth + 1, false);
		return err;
	case GO_KIND_ARRAY:
		for (i = 0; i < t->len && !err && *n < VALUE_TYPE_MAX_SLOTS; i++)
			err = collect(s, t->elem, off + i * t->elem->size, slots,
				      n, depth + 1, false);
		return err;
	default:
		return 0;
	}
	if (!err)
		slots[(*n)++] = sl;
	return err;
}

int value_types__id(struct value_types *s, const struct go_type *t, __u32 *id)
{
	struct trace_vslot slots[VALUE_TYPE_MAX_SLOTS];
	size_t n = 0;
	bool found;
	__u32 *slot, me;
	int err;

	if ((s->nids + 1) * 4 > s->ids_cap * 3) {
		err = ids_grow(s);
		if (err)
			return err;
	}
	slot = id_slot(s, t, &found);
	if (found) {
		*id = *slot;
		return 0;
	}
	/* numbered before its elements, which may refer back to it */
	err = reserve(s, t->size, &me);
	if (err)
		return err;
	*slot = me;
	err = collect(s, t, 0, slots, &n, 0, false);
	if (!err)
		err = set_slots(s, me, slots, n);
	*id = me;
	return err;
}

int value_types__refs(struct value_types *s, const struct go_type *t,
		      struct trace_vslot *slots, size_t *n)
{
	*n = 0;
	return collect(s, t, 0, slots, n, 0, true);
}

int value_types__add_dyn(struct value_types *s, __u64 key,
			 const struct go_type *t)
{
	struct trace_vdyn dyn = { 0 };
	int err;

	if (value_types__direct_iface(t)) {
		dyn.flags = DYN_DIRECT;
		if (value_types__followed_error(t))
			dyn.flags |= DYN_FOLLOW;
		else if (value_types__followed_root(t))
			dyn.flags |= DYN_FOLLOW_ROOT;
		else
			goto add;
		t = t->elem;
	}
	err = value_types__id(s, t, &dyn.vtype);
	if (err)
		return err;
add:
	err = gt_ensure_mem((void **)&s->dyns, &s->dyns_cap, sizeof(*s->dyns),
			    s->ndyns + 1);
	if (err)
		return err;
	s->dyns[s->ndyns].key = key;
	s->dyns[s->ndyns++].dyn = dyn;
	return 0;
}
