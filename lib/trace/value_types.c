// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "trace/value_types.h"

#define MAX_TYPES	(1U << 20)

int value_types__init(struct value_types *s)
{
	int err;

	memset(s, 0, sizeof(*s));
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
	size_t n = 0, k;
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
	if (s->ntypes == MAX_TYPES)
		return gt_error(-E2BIG, "more than %u value types", MAX_TYPES);
	err = gt_ensure_mem((void **)&s->types, &s->types_cap,
			    sizeof(*s->types), s->ntypes + 1);
	if (err)
		return err;
	/* numbered before its elements, which may refer back to it */
	me = *slot = s->ntypes++;
	s->types[me] = (struct trace_vtype){
		.size = t->size > UINT32_MAX ? UINT32_MAX : t->size,
	};
	err = collect(s, t, 0, slots, &n, 0, false);
	if (!err && n)
		err = gt_ensure_mem((void **)&s->slots, &s->slots_cap,
				    sizeof(*s->slots), s->nslots + n);
	if (err)
		return err;
	s->types[me].first_slot = s->nslots;
	s->types[me].nslots = n;
	for (k = 0; k < n; k++)
		s->slots[s->nslots++] = slots[k];
	*id = me;
	return 0;
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
