// SPDX-License-Identifier: MIT
/*
 * Go signatures and types from DWARF, read with libdw (go_dwarf.h; its
 * files are listed in go_dwarf_internal.h). This one owns the handle
 * (go_dwarf__open(), go_dwarf__close()), the arena that holds what it
 * returns, and the go_type built from a type DIE.
 *
 * A type is built once per DIE and memoized by DIE offset; its node is
 * registered before its parts are read. What a type only refers to (the
 * element of a pointer, slice, map or chan) is resolved from a work list
 * once the types being built are complete, so cycles through pointers
 * close on themselves and the recursion follows values only (struct
 * fields, array elements, typedefs), whose nesting is bounded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_dwarf_internal.h"
#include "gobin/reflect_kind.h"

#define ARENA_BLOCK (64 * 1024)

struct arena_block {
	struct arena_block *next;
	size_t used, size;
	_Alignas(16) char data[];
};

enum build_state { BUILDING = 1, BUILT, FAILED };

/* A slot of the open-addressing table of types by DIE offset (never 0:
 * a unit header precedes every DIE). */
struct memo {
	Dwarf_Off off;
	struct go_type *type;
	enum build_state state;
};

/* An element to resolve: HOLDER->elem (or ->key) = the type of DIE. */
struct pending {
	struct go_type *holder;
	bool key;
	Dwarf_Die die;
};

void *go_dwarf_alloc(struct go_dwarf *d, size_t size)
{
	struct arena_block *b = d->arena;

	size = (size + 15) & ~(size_t)15;
	if (!b || b->size - b->used < size) {
		size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->size = cap;
		b->used = 0;
		/* A block made for one large request goes behind the current
		 * one, whose free space stays usable. */
		if (d->arena && cap > ARENA_BLOCK) {
			b->next = d->arena->next;
			d->arena->next = b;
		} else {
			b->next = d->arena;
			d->arena = b;
		}
	}
	b->used += size;
	return memset(b->data + b->used - size, 0, size);
}

const char *go_dwarf_printf(struct go_dwarf *d, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = n < 0 ? NULL : go_dwarf_alloc(d, n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, n + 1, fmt, ap);
	va_end(ap);
	return s;
}

static size_t memo_hash(Dwarf_Off off, size_t cap)
{
	return (size_t)((off * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

/* The slot of OFF: its entry, or the empty slot where it would go. */
static struct memo *memo_slot(struct go_dwarf *d, Dwarf_Off off)
{
	size_t i = memo_hash(off, d->memo_cap);

	while (d->memo[i].off && d->memo[i].off != off)
		i = (i + 1) & (d->memo_cap - 1);
	return &d->memo[i];
}

static int memo_grow(struct go_dwarf *d)
{
	size_t cap = d->memo_cap * 2, i;
	struct memo *old = d->memo;

	d->memo = calloc(cap, sizeof(*d->memo));
	if (!d->memo) {
		d->memo = old;
		return gt_error(-ENOMEM, "out of memory");
	}
	d->memo_cap = cap;
	for (i = 0; i < cap / 2; i++)
		if (old[i].off)
			*memo_slot(d, old[i].off) = old[i];
	free(old);
	return 0;
}

static int push_pending(struct go_dwarf *d, struct go_type *holder,
			bool key, Dwarf_Die *die)
{
	int err;

	err = gt_ensure_mem((void **)&d->pending, &d->pending_cap,
			    sizeof(*d->pending), d->npending + 1);
	if (err)
		return err;
	d->pending[d->npending].holder = holder;
	d->pending[d->npending].key = key;
	d->pending[d->npending++].die = *die;
	return 0;
}

int go_dwarf_corrupt(struct go_dwarf *d)
{
	return gt_error(-EINVAL, "corrupt DWARF in %s: %s", d->bin->elf->path,
			dwarf_errmsg(-1));
}

/* The Go name of a type DIE, or NULL. gccgo spells its named types
 * ".main.pair"; gc's only dotted names are the typedefs of shape
 * instantiations (".param0"), which name nothing a user wrote. */
static const char *type_name(struct go_dwarf *d, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);

	if (!name || !*name)
		return NULL;
	if (name[0] == '.')
		return d->bin->is_gccgo && name[1] ? name + 1 : NULL;
	return name;
}

/* Refer to the element of T: the DIE that attribute NAME points at, if any
 * (a pointer without one is unsafe.Pointer or void *). */
static int refer_elem(struct go_dwarf *d, struct go_type *t, Dwarf_Die *die,
		      unsigned int name)
{
	Dwarf_Die elem;

	if (!ref_die(die, name, &elem))
		return 0;
	return push_pending(d, t, false, &elem);
}

/* Refer to the key type of map T, if DWARF gives it. */
static int refer_key(struct go_dwarf *d, struct go_type *t, Dwarf_Die *die)
{
	Dwarf_Die key;

	if (!ref_die(die, DW_AT_go_key, &key))
		return 0;
	return push_pending(d, t, true, &key);
}

static int build_base(struct go_type *t, Dwarf_Die *die)
{
	Dwarf_Word enc, size;

	if (!udata(die, DW_AT_encoding, &enc) ||
	    !udata(die, DW_AT_byte_size, &size))
		return -ENOTSUP;
	switch (enc) {
	case DW_ATE_boolean:
		t->kind = GO_KIND_BOOL;
		break;
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		t->kind = GO_KIND_INT;
		break;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_UTF:
		t->kind = GO_KIND_UINT;
		break;
	case DW_ATE_float:
		t->kind = GO_KIND_FLOAT;
		break;
	case DW_ATE_complex_float:
		t->kind = GO_KIND_COMPLEX;
		size /= 2;	/* the alignment of a half */
		t->size = size * 2;
		t->align = size;
		return 0;
	default:
		return -ENOTSUP;
	}
	t->size = size;
	t->align = size;
	return 0;
}

/* Is gc's interface DIE (a typedef of runtime.eface or runtime.iface)
 * empty? Told by the first word: eface's _type, iface's tab. */
static bool gc_empty_iface(Dwarf_Die *die)
{
	const char *name = dwarf_diename(die), *first;
	Dwarf_Die layout, member;

	if (ref_die(die, DW_AT_type, &layout) &&
	    dwarf_child(&layout, &member) == 0 &&
	    (first = dwarf_diename(&member)))
		return !strcmp(first, "_type");
	return name && (!strcmp(name, "interface {}") || !strcmp(name, "any"));
}

/* The names of the first two members of a struct DIE ("" when absent). */
static void member_names(Dwarf_Die *die, const char *names[2])
{
	Dwarf_Die m;
	int i = 0;

	names[0] = names[1] = "";
	if (dwarf_child(die, &m))
		return;
	do {
		if (dwarf_tag(&m) == DW_TAG_member)
			names[i++] = dwarf_diename(&m) ?: "";
	} while (i < 2 && dwarf_siblingof(&m, &m) == 0);
}

/* gccgo's strings, slices and interfaces: C structs known by their
 * member names. Returns 1 when DIE is one of them and T is filled. */
static int gccgo_builtin(struct go_dwarf *d, struct go_type *t, Dwarf_Die *die)
{
	const char *m[2];
	Dwarf_Die values;

	member_names(die, m);
	if (!strcmp(m[0], "__data") && !strcmp(m[1], "__length")) {
		set_fixed(t, GO_KIND_STRING, 16);
		return 1;
	}
	if (!strcmp(m[1], "__object") && (!strcmp(m[0], "__methods") ||
					  !strcmp(m[0], "__type_descriptor"))) {
		set_fixed(t, m[0][2] == 'm' ? GO_KIND_IFACE : GO_KIND_EFACE,
			  16);
		if (!t->name && t->kind == GO_KIND_EFACE)
			t->name = "interface {}";
		return 1;
	}
	if (!strcmp(m[0], "__values") && !strcmp(m[1], "__count")) {
		int err;

		set_fixed(t, GO_KIND_SLICE, 24);
		/* The element is what __values points at. */
		dwarf_child(die, &values);
		err = ref_die(&values, DW_AT_type, &values) ?
			refer_elem(d, t, &values, DW_AT_type) : 0;
		return err ?: 1;
	}
	return 0;
}

int go_dwarf_member_location(Dwarf_Die *m, uint64_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(m, DW_AT_data_member_location, &attr))
		return -ENOTSUP;
	if (dwarf_formudata(&attr, &w) == 0) {
		*off = w;
		return 0;
	}
	if (dwarf_getlocation(&attr, &ops, &n) == 0 && n == 1 &&
	    ops[0].atom == DW_OP_plus_uconst) {
		*off = ops[0].number;
		return 0;
	}
	return -ENOTSUP;
}

static int build_struct(struct go_dwarf *d, struct go_type *t, Dwarf_Die *die,
			int depth)
{
	struct go_field *fields;
	Dwarf_Word size;
	Dwarf_Die m, ft;
	size_t n = 0, i = 0;
	uint32_t align = 1;
	int err;

	if (!udata(die, DW_AT_byte_size, &size))
		return -ENOTSUP;	/* a declaration */
	if (dwarf_child(die, &m) == 0)
		do
			n += dwarf_tag(&m) == DW_TAG_member;
		while (dwarf_siblingof(&m, &m) == 0);
	fields = go_dwarf_alloc(d, (n ?: 1) * sizeof(*fields));
	if (!fields)
		return gt_error(-ENOMEM, "out of memory");
	if (n)
		dwarf_child(die, &m);
	while (i < n) {
		if (dwarf_tag(&m) == DW_TAG_member) {
			if (dwarf_hasattr(&m, DW_AT_bit_size) ||
			    !ref_die(&m, DW_AT_type, &ft))
				return -ENOTSUP;
			err = go_dwarf_type_of(d, &ft, depth + 1,
					       &fields[i].type);
			if (err)
				return err;
			if (!fields[i].type)
				return -ENOTSUP;
			err = go_dwarf_member_location(&m, &fields[i].offset);
			if (err)
				return err;
			fields[i].name = dwarf_diename(&m) ?: "";
			if (fields[i].type->align > align)
				align = fields[i].type->align;
			i++;
		}
		if (i < n && dwarf_siblingof(&m, &m))
			return -ENOTSUP;
	}
	t->kind = GO_KIND_STRUCT;
	t->size = size;
	t->align = align;
	t->fields = fields;
	t->nfields = n;
	return 0;
}

/* The length of an array DIE: its one subrange's count, or its bounds. */
static int array_len(Dwarf_Die *die, uint64_t *len)
{
	Dwarf_Word count, lower = 0, upper;
	Dwarf_Die sub;
	bool found = false;

	if (dwarf_child(die, &sub))
		return -ENOTSUP;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		if (found)
			return -ENOTSUP;	/* C: several dimensions */
		found = true;
		if (udata(&sub, DW_AT_count, &count)) {
			*len = count;
			continue;
		}
		if (!udata(&sub, DW_AT_upper_bound, &upper))
			return -ENOTSUP;
		udata(&sub, DW_AT_lower_bound, &lower);
		/* An upper bound of -1 is an empty array. */
		if ((int64_t)upper < (int64_t)lower - 1)
			return -ENOTSUP;
		*len = upper - lower + 1;
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return found ? 0 : -ENOTSUP;
}

static int build_array(struct go_dwarf *d, struct go_type *t, Dwarf_Die *die,
		       int depth)
{
	const struct go_type *elem;
	const char *name = t->name;
	Dwarf_Word size;
	Dwarf_Die et;
	uint64_t len = 0;
	int err;

	if (!ref_die(die, DW_AT_type, &et) || array_len(die, &len))
		return -ENOTSUP;
	err = go_dwarf_type_of(d, &et, depth + 1, &elem);
	if (err)
		return err;
	if (!elem || go_type__init_array(t, elem, len))
		return -ENOTSUP;
	t->name = name;
	if (!name && elem->name) {
		t->name = go_dwarf_printf(d, "[%llu]%s",
					  (unsigned long long)len, elem->name);
		if (!t->name)
			return gt_error(-ENOMEM, "out of memory");
	}
	if (udata(die, DW_AT_byte_size, &size) && size != t->size)
		return -ENOTSUP;
	return 0;
}

/* Fill T from DIE. Returns 0, -ENOTSUP when DIE describes no Go value, or
 * -ENOMEM. The outermost name wins: "error", not runtime.iface. */
static int build(struct go_dwarf *d, struct go_type *t, Dwarf_Die *die,
		 int depth)
{
	Dwarf_Word kind;
	Dwarf_Die target;
	int tag = dwarf_tag(die), err;

	if (depth > MAX_DEPTH)
		return -ENOTSUP;
	if (!t->name)
		t->name = type_name(d, die);
	/* gc's reflect.Kind, where it says more than the tag */
	if (udata(die, DW_AT_go_kind, &kind)) {
		switch (kind) {
		case REFLECT_KIND_STRING:
			set_fixed(t, GO_KIND_STRING, 16);
			return 0;
		case REFLECT_KIND_SLICE:
			set_fixed(t, GO_KIND_SLICE, 24);
			return refer_elem(d, t, die, DW_AT_go_elem);
		case REFLECT_KIND_INTERFACE:
			set_fixed(t, gc_empty_iface(die) ? GO_KIND_EFACE :
				  GO_KIND_IFACE, 16);
			return 0;
		case REFLECT_KIND_MAP:
			set_fixed(t, GO_KIND_MAP, 8);
			err = refer_key(d, t, die);
			return err ? err : refer_elem(d, t, die, DW_AT_go_elem);
		case REFLECT_KIND_CHAN:
			set_fixed(t, GO_KIND_CHAN, 8);
			return refer_elem(d, t, die, DW_AT_go_elem);
		case REFLECT_KIND_FUNC:
			set_fixed(t, GO_KIND_FUNC, 8);
			return 0;
		case REFLECT_KIND_POINTER:
		case REFLECT_KIND_UNSAFE_POINTER:
			set_fixed(t, GO_KIND_PTR, 8);
			return refer_elem(d, t, die, DW_AT_type);
		}
	}
	switch (tag) {
	case DW_TAG_base_type:
		return build_base(t, die);
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		set_fixed(t, GO_KIND_PTR, 8);
		return refer_elem(d, t, die, DW_AT_type);
	case DW_TAG_subroutine_type:
		set_fixed(t, GO_KIND_FUNC, 8);
		return 0;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		if (d->bin->is_gccgo) {
			err = gccgo_builtin(d, t, die);
			if (err)
				return err < 0 ? err : 0;
		}
		return build_struct(d, t, die, depth);
	case DW_TAG_array_type:
		return build_array(d, t, die, depth);
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_enumeration_type:	/* C: sized by its underlying type */
		if (!ref_die(die, DW_AT_type, &target))
			return -ENOTSUP;
		return build(d, t, &target, depth + 1);
	}
	return -ENOTSUP;
}

int go_dwarf_type_of(struct go_dwarf *d, Dwarf_Die *die, int depth,
		     const struct go_type **out)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	struct go_type *t;
	struct memo *m;
	int err;

	*out = NULL;
	m = memo_slot(d, off);
	if (m->off) {
		if (m->state == BUILT)
			*out = m->type;
		return 0;
	}
	if ((d->memo_used + 1) * 4 > d->memo_cap * 3) {
		err = memo_grow(d);
		if (err)
			return err;
		m = memo_slot(d, off);
	}
	t = go_dwarf_alloc(d, sizeof(*t));
	if (!t)
		return gt_error(-ENOMEM, "out of memory");
	*m = (struct memo){ .off = off, .type = t, .state = BUILDING };
	d->memo_used++;
	err = build(d, t, die, depth);
	m = memo_slot(d, off);
	if (err == -ENOMEM) {
		m->state = FAILED;
		return err;
	}
	if (err || go_type__check(t)) {
		m->state = FAILED;
		return 0;
	}
	m->state = BUILT;
	*out = t;
	return 0;
}

int go_dwarf_resolve_pending(struct go_dwarf *d)
{
	while (d->npending) {
		struct pending p = d->pending[--d->npending];
		const struct go_type *elem;
		int err = go_dwarf_type_of(d, &p.die, 0, &elem);

		if (err) {
			d->npending++;	/* retried by the next call */
			return err;
		}
		if (p.key) {
			p.holder->key = elem;
			continue;
		}
		p.holder->elem = elem;
		/* gccgo's map is a pointer to libgo's runtime.hmap, its key
		 * and element types not described */
		if (d->bin->is_gccgo && p.holder->kind == GO_KIND_PTR && elem &&
		    elem->name && !strcmp(elem->name, "runtime.hmap")) {
			p.holder->kind = GO_KIND_MAP;
			p.holder->elem = NULL;
			continue;
		}
		/* gccgo leaves pointers and slices unnamed; spell them as
		 * gc does. */
		if (!p.holder->name && elem && elem->name &&
		    (p.holder->kind == GO_KIND_PTR ||
		     p.holder->kind == GO_KIND_SLICE))
			p.holder->name = go_dwarf_printf(d, "%s%s",
				p.holder->kind == GO_KIND_PTR ? "*" : "[]",
				elem->name);
	}
	return 0;
}

int go_dwarf_make_var(struct go_dwarf *d, Dwarf_Die *die, const char *name,
		      struct go_dwarf_var *v)
{
	Dwarf_Die type;

	v->name = name;
	v->type = NULL;
	if (!ref_die(die, DW_AT_type, &type))
		return 0;
	return go_dwarf_type_of(d, &type, 0, &v->type);
}

int go_dwarf__open(const struct go_binary *bin, struct go_dwarf **out)
{
	struct go_dwarf *d;
	Dwarf *dw;
	int err;

	*out = NULL;
	err = go_binary__dwarf_reader(bin, sizeof(*d), &dw, (void **)&d);
	if (err)
		return err;
	d->memo_cap = 1024;
	d->memo = calloc(d->memo_cap, sizeof(*d->memo));
	if (!d->memo) {
		free(d);
		return gt_error(-ENOMEM, "out of memory");
	}
	d->dw = dw;
	d->bin = bin;
	d->go_minor = go_version__minor(bin->version);
	*out = d;
	return 0;
}

void go_dwarf__close(struct go_dwarf *d)
{
	struct arena_block *b, *next;

	if (!d)
		return;
	for (b = d->arena; b; b = next) {
		next = b->next;
		free(b);
	}
	free(d->funcs);
	free(d->types);
	free(d->abi0);
	free(d->rtypes);
	free(d->inlines);
	free(d->memo);
	free(d->pending);
	free(d);
}
