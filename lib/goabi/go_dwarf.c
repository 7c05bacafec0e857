// SPDX-License-Identifier: MIT
/*
 * Go signatures and types from DWARF, read with libdw. See go_dwarf.h.
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
#include "goabi/go_dwarf.h"
#include "gobin/pclntab.h"
#include "gobin/reflect_kind.h"

/* gc's extensions to DWARF (cmd/internal/dwarf). */
#define DW_AT_go_kind 0x2900
#define DW_AT_go_key 0x2901
#define DW_AT_go_elem 0x2902
#define DW_AT_go_runtime_type 0x2904

/* Value nesting followed; go_type__check() accepts 32 levels anyway. */
#define MAX_DEPTH 40
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

/* A named type DIE at the top of a Go unit, for wrappers' receivers. */
struct type_entry {
	const char *name;
	Dwarf_Off off;
};

struct func_entry {
	uint64_t entry;
	Dwarf_Off die;
	bool c_style;		/* gccgo or C: results are the DW_AT_type */
	struct go_dwarf_sig *sig;
};

struct go_dwarf {
	Dwarf *dw;		/* bin's, go_binary__dwarf() */
	const struct go_binary *bin;
	int go_minor;
	struct func_entry *funcs;
	size_t nfuncs;
	bool indexed;
	struct type_entry *types;
	size_t ntypes;
	bool types_indexed;
	uint64_t *abi0;		/* entries of the NAME.abi0 symbols */
	size_t nabi0;
	bool abi0_indexed;
	struct go_dwarf_rtype *rtypes;	/* by offset */
	size_t nrtypes;
	bool rtypes_indexed;
	struct inline_entry { uint64_t pc; Dwarf_Off off; } *inlines;
	size_t ninlines;
	bool inlines_indexed;
	struct memo *memo;
	size_t memo_cap, memo_used;
	struct pending *pending;
	size_t npending, pending_cap;
	struct arena_block *arena;
};

static void *arena_alloc(struct go_dwarf *d, size_t size)
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

static const char *arena_printf(struct go_dwarf *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *arena_printf(struct go_dwarf *d, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = n < 0 ? NULL : arena_alloc(d, n + 1);
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

static int corrupt(struct go_dwarf *d)
{
	return gt_error(-EINVAL, "corrupt DWARF in %s: %s", d->bin->elf->path,
			dwarf_errmsg(-1));
}

/* The DIE that attribute NAME of DIE refers to; false when none. */
static bool ref_die(Dwarf_Die *die, unsigned int name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, name, &attr) &&
	       dwarf_formref_die(&attr, out);
}

static bool udata(Dwarf_Die *die, unsigned int name, Dwarf_Word *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, name, &attr) &&
	       dwarf_formudata(&attr, out) == 0;
}

static bool flag(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute attr;
	bool value = false;

	return dwarf_attr_integrate(die, name, &attr) &&
	       dwarf_formflag(&attr, &value) == 0 && value;
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

static void set_fixed(struct go_type *t, enum go_kind kind, uint64_t size)
{
	t->kind = kind;
	t->size = size;
	t->align = 8;
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

static int type_of(struct go_dwarf *d, Dwarf_Die *die, int depth,
		   const struct go_type **out);

static int member_offset(Dwarf_Die *m, uint64_t *off)
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
	fields = arena_alloc(d, (n ?: 1) * sizeof(*fields));
	if (!fields)
		return gt_error(-ENOMEM, "out of memory");
	if (n)
		dwarf_child(die, &m);
	while (i < n) {
		if (dwarf_tag(&m) == DW_TAG_member) {
			if (dwarf_hasattr(&m, DW_AT_bit_size) ||
			    !ref_die(&m, DW_AT_type, &ft))
				return -ENOTSUP;
			err = type_of(d, &ft, depth + 1, &fields[i].type);
			if (err)
				return err;
			if (!fields[i].type)
				return -ENOTSUP;
			err = member_offset(&m, &fields[i].offset);
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
	err = type_of(d, &et, depth + 1, &elem);
	if (err)
		return err;
	if (!elem || go_type__init_array(t, elem, len))
		return -ENOTSUP;
	t->name = name;
	if (!name && elem->name) {
		t->name = arena_printf(d, "[%llu]%s", (unsigned long long)len,
				       elem->name);
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

/*
 * The type of DIE into *OUT: a node that passes go_type__check(), or NULL
 * when DIE describes nothing Go can hold (or refers to itself by value).
 * Returns 0 or -ENOMEM.
 */
static int type_of(struct go_dwarf *d, Dwarf_Die *die, int depth,
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
	t = arena_alloc(d, sizeof(*t));
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

/* Resolve the elements referred to so far; a type that cannot be built
 * leaves its holder's elem NULL, which go_abi.h allows. */
static int resolve_pending(struct go_dwarf *d)
{
	while (d->npending) {
		struct pending p = d->pending[--d->npending];
		const struct go_type *elem;
		int err = type_of(d, &p.die, 0, &elem);

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
			p.holder->name = arena_printf(d, "%s%s",
				p.holder->kind == GO_KIND_PTR ? "*" : "[]",
				elem->name);
	}
	return 0;
}

int go_dwarf__open(const struct go_binary *bin, struct go_dwarf **out)
{
	struct go_dwarf *d;
	Dwarf *dw;
	int err;

	*out = NULL;
	err = go_binary__dwarf(bin, &dw);
	if (err)
		return err;
	d = calloc(1, sizeof(*d));
	if (!d)
		return gt_error(-ENOMEM, "out of memory");
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

static int cmp_funcs(const void *a, const void *b)
{
	const struct func_entry *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

static int add_func(struct go_dwarf *d, size_t *cap, uint64_t entry,
		    Dwarf_Off die, bool c_style)
{
	int err;

	err = gt_ensure_mem((void **)&d->funcs, cap, sizeof(*d->funcs),
			    d->nfuncs + 1);
	if (err)
		return err;
	d->funcs[d->nfuncs++] = (struct func_entry){
		.entry = entry, .die = die, .c_style = c_style,
	};
	return 0;
}

/* Every subprogram with code, a child of its unit in gc, gccgo and C,
 * sorted by entry; one per entry. */
static int index_funcs(struct go_dwarf *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die, die;
	Dwarf_Addr low;
	size_t cap = 0, i, n;
	bool c_style;
	int ret, err;

	d->nfuncs = 0;
	while ((ret = dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cu_die,
				      NULL)) == 0) {
		c_style = d->bin->is_gccgo ||
			  dwarf_srclang(&cu_die) != DW_LANG_Go;
		if (dwarf_child(&cu_die, &die))
			continue;
		do {
			if (dwarf_tag(&die) != DW_TAG_subprogram ||
			    dwarf_lowpc(&die, &low))
				continue;
			err = add_func(d, &cap, low, dwarf_dieoffset(&die),
				       c_style);
			if (err)
				return err;
		} while ((ret = dwarf_siblingof(&die, &die)) == 0);
		if (ret < 0)
			return corrupt(d);
	}
	if (ret < 0)
		return corrupt(d);
	if (d->nfuncs) {
		qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), cmp_funcs);
		for (i = 1, n = 1; i < d->nfuncs; i++)
			if (d->funcs[i].entry != d->funcs[n - 1].entry)
				d->funcs[n++] = d->funcs[i];
		d->nfuncs = n;
	}
	d->indexed = true;
	return 0;
}

static int cmp_types(const void *a, const void *b)
{
	const struct type_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool is_type_tag(int tag)
{
	return tag == DW_TAG_base_type || tag == DW_TAG_pointer_type ||
	       tag == DW_TAG_structure_type || tag == DW_TAG_typedef ||
	       tag == DW_TAG_array_type || tag == DW_TAG_subroutine_type;
}

/* The named types at the top of every Go unit, sorted by name. */
static int index_types(struct go_dwarf *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die, die;
	size_t cap = 0;
	const char *name;
	int ret, err;

	d->ntypes = 0;
	while ((ret = dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cu_die,
				      NULL)) == 0) {
		if (dwarf_srclang(&cu_die) != DW_LANG_Go ||
		    dwarf_child(&cu_die, &die))
			continue;
		do {
			if (!is_type_tag(dwarf_tag(&die)) ||
			    !(name = dwarf_diename(&die)))
				continue;
			err = gt_ensure_mem((void **)&d->types, &cap,
					    sizeof(*d->types), d->ntypes + 1);
			if (err)
				return err;
			d->types[d->ntypes].name = name;
			d->types[d->ntypes++].off = dwarf_dieoffset(&die);
		} while ((ret = dwarf_siblingof(&die, &die)) == 0);
		if (ret < 0)
			break;
	}
	if (ret < 0)
		return corrupt(d);
	if (d->ntypes)
		qsort(d->types, d->ntypes, sizeof(*d->types), cmp_types);
	d->types_indexed = true;
	return 0;
}

static int cmp_rtypes(const void *a, const void *b)
{
	const struct go_dwarf_rtype *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Add the type of DIE, when it has a runtime type and Go can hold it. */
static int add_rtype(struct go_dwarf *d, Dwarf_Die *die, size_t *cap)
{
	Dwarf_Attribute attr;
	const struct go_type *t;
	Dwarf_Addr off;
	int err;

	/* DW_FORM_addr, which holds an offset in the type data */
	if (!dwarf_attr(die, DW_AT_go_runtime_type, &attr) ||
	    dwarf_formaddr(&attr, &off) || !off)
		return 0;	/* 0: none (the linker's for a type without one) */
	err = type_of(d, die, 0, &t);
	if (!err)
		err = resolve_pending(d);
	if (err || !t)
		return err;
	err = gt_ensure_mem((void **)&d->rtypes, cap, sizeof(*d->rtypes),
			    d->nrtypes + 1);
	if (err)
		return err;
	d->rtypes[d->nrtypes].offset = off;
	d->rtypes[d->nrtypes++].type = t;
	return 0;
}

int go_dwarf__runtime_types(struct go_dwarf *d,
			    const struct go_dwarf_rtype **out, size_t *n)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die, die;
	size_t cap = 0, i, k;
	int ret = 0, err;

	if (!d->rtypes_indexed) {
		d->nrtypes = 0;
		while ((ret = dwarf_get_units(d->dw, cu, &cu, NULL, NULL,
					      &cu_die, NULL)) == 0) {
			if (dwarf_srclang(&cu_die) != DW_LANG_Go ||
			    dwarf_child(&cu_die, &die))
				continue;
			do {
				if (!is_type_tag(dwarf_tag(&die)))
					continue;
				err = add_rtype(d, &die, &cap);
				if (err)
					return err;
			} while ((ret = dwarf_siblingof(&die, &die)) == 0);
			if (ret < 0)
				break;
		}
		if (ret < 0)
			return corrupt(d);
		if (d->nrtypes)
			qsort(d->rtypes, d->nrtypes, sizeof(*d->rtypes),
			      cmp_rtypes);
		/* a type described twice (a struct and its typedef) once */
		for (i = 0, k = 0; i < d->nrtypes; i++)
			if (!k || d->rtypes[k - 1].offset != d->rtypes[i].offset)
				d->rtypes[k++] = d->rtypes[i];
		d->nrtypes = k;
		d->rtypes_indexed = true;
	}
	*out = d->rtypes;
	*n = d->nrtypes;
	return 0;
}

const struct go_type *go_dwarf__runtime_type(struct go_dwarf *d,
					     uint64_t offset)
{
	const struct go_dwarf_rtype *r;
	size_t n, lo = 0, hi;

	if (go_dwarf__runtime_types(d, &r, &n))
		return NULL;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].offset == offset ? r[lo].type : NULL;
}

/* The DIE of the Go type named NAME (gc's spelling): 0, -ENOENT with a
 * reason when there is none, or the error of indexing. */
static int type_die(struct go_dwarf *d, const char *name, Dwarf_Die *die)
{
	size_t lo = 0, hi;
	int err;

	if (!d->types_indexed) {
		err = index_types(d);
		if (err)
			return err;
	}
	hi = d->ntypes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(d->types[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->ntypes || strcmp(d->types[lo].name, name) ||
	    !dwarf_offdie(d->dw, d->types[lo].off, die))
		return gt_error(-ENOENT, "no type %s in the DWARF of %s", name,
				d->bin->elf->path);
	return 0;
}

/* The type named NAME (gc's spelling) into *OUT, NULL when none. */
static int type_by_name(struct go_dwarf *d, const char *name,
			const struct go_type **out)
{
	Dwarf_Die die;
	int err;

	*out = NULL;
	err = type_die(d, name, &die);
	if (err)
		return err == -ENOENT ? 0 : err;
	return type_of(d, &die, 0, out);
}

/* Follow the typedefs of DIE, by which Go names its struct types (a
 * member of type runtime.stack refers to a typedef of the struct
 * runtime.stack): true when a structure is under them. */
static bool peel_to_struct(Dwarf_Die *die)
{
	int i;

	for (i = 0; i < MAX_DEPTH && dwarf_tag(die) == DW_TAG_typedef; i++)
		if (!ref_die(die, DW_AT_type, die))
			return false;
	return dwarf_tag(die) == DW_TAG_structure_type;
}

/* The member of the structure DIE named NAME (LEN bytes) into *M: 0,
 * -ENOENT, or -EINVAL when the entries cannot be read. */
static int find_member(Dwarf_Die *die, const char *name, size_t len,
		       Dwarf_Die *m)
{
	const char *n;
	int ret;

	for (ret = dwarf_child(die, m); ret == 0; ret = dwarf_siblingof(m, m)) {
		if (dwarf_tag(m) != DW_TAG_member)
			continue;
		n = dwarf_diename(m);
		if (n && strlen(n) == len && !strncmp(n, name, len))
			return 0;
	}
	return ret < 0 ? -EINVAL : -ENOENT;
}

int go_dwarf__member_offset(struct go_dwarf *d, const char *type,
			    const char *path, uint64_t *off)
{
	const char *file = d->bin->elf->path, *name = path, *end;
	uint64_t total = 0, at;
	Dwarf_Die die, m;
	int err, len;

	*off = 0;
	err = type_die(d, type, &die);
	if (err)
		return err;
	for (;;) {
		end = strchrnul(name, '.');
		len = (int)(end - path);	/* the path read so far */
		err = peel_to_struct(&die) ?
		      find_member(&die, name, end - name, &m) : -ENOENT;
		if (err == -ENOENT)
			return gt_error(-ENOENT, "%s: %s has no member %.*s",
					file, type, len, path);
		if (err)
			return corrupt(d);
		if (member_offset(&m, &at) || at > UINT64_MAX - total)
			return gt_error(-EINVAL,
					"corrupt DWARF in %s: bad location of %s.%.*s",
					file, type, len, path);
		total += at;
		if (!*end)
			break;
		if (!ref_die(&m, DW_AT_type, &die))
			return gt_error(-EINVAL,
					"corrupt DWARF in %s: %s.%.*s has no type",
					file, type, len, path);
		name = end + 1;
	}
	*off = total;
	return 0;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Is NAME a shape instantiation of gc, which takes `.dict`? A generic
 * function (main.maxOf[go.shape.int]) or a method of a generic type
 * (main.(*List[go.shape.int]).Push, main.List[go.shape.int].Len); not a
 * closure in one (...].func1, ...).Push.func1, -range1, .gowrap1,
 * .deferwrap1) nor a method value wrapper (-fm). *IS_METHOD: its first
 * parameter is a receiver.
 */
static bool shape_instance(const char *name, bool *is_method)
{
	const char *suffix = strrchr(name, ']'), *p;

	if (!strstr(name, "go.shape.") || !suffix)
		return false;
	suffix++;
	for (p = suffix; *p; p++)
		if (*p == '-' || (*p == '.' && (has_prefix(p, ".func") ||
						has_prefix(p, ".gowrap") ||
						has_prefix(p, ".deferwrap"))))
			return false;
	*is_method = *suffix != '\0';
	return true;
}

/* A var for DIE (a formal parameter or a member): its name and type. */
static int make_var(struct go_dwarf *d, Dwarf_Die *die, const char *name,
		    struct go_dwarf_var *v)
{
	Dwarf_Die type;

	v->name = name;
	v->type = NULL;
	if (!ref_die(die, DW_AT_type, &type))
		return 0;
	return type_of(d, &type, 0, &v->type);
}

/*
 * Is TYPE (the DW_AT_type of FN) gccgo's struct of several results? It is
 * anonymous (a Go struct result is named, through a typedef) and every
 * member is declared where FN is: on its own line of its own file.
 */
static bool gccgo_results_struct(Dwarf_Die *fn, Dwarf_Die *type)
{
	const char *file = dwarf_decl_file(fn), *mfile;
	int line, mline;
	Dwarf_Die m;
	size_t n = 0;

	if (dwarf_tag(type) != DW_TAG_structure_type || dwarf_diename(type) ||
	    !file || dwarf_decl_line(fn, &line) || dwarf_child(type, &m))
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		mfile = dwarf_decl_file(&m);
		if (!mfile || strcmp(mfile, file) ||
		    dwarf_decl_line(&m, &mline) || mline != line)
			return false;
		n++;
	} while (dwarf_siblingof(&m, &m) == 0);
	return n > 0;
}

/* gccgo: the results from FN's C return type. */
static int c_results(struct go_dwarf *d, Dwarf_Die *fn,
		     struct go_dwarf_sig *sig, struct go_dwarf_var *results)
{
	Dwarf_Word size;
	Dwarf_Die type, m;
	const char *name;
	int err;

	if (!ref_die(fn, DW_AT_type, &type))
		return 0;	/* void */
	if (dwarf_aggregate_size(&type, &size) == 0)
		sig->c_result_size = size;
	if (!gccgo_results_struct(fn, &type)) {
		sig->nresults = 1;
		results[0].name = arena_printf(d, "~r0");
		if (!results[0].name)
			return gt_error(-ENOMEM, "out of memory");
		return type_of(d, &type, 0, &results[0].type);
	}
	dwarf_child(&type, &m);
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		name = dwarf_diename(&m);
		if (!name || !strcmp(name, "UNNAMED"))
			name = arena_printf(d, "~r%zu", sig->nresults);
		if (!name)
			return gt_error(-ENOMEM, "out of memory");
		err = make_var(d, &m, name, &results[sig->nresults++]);
		if (err)
			return err;
	} while (dwarf_siblingof(&m, &m) == 0);
	return 0;
}

/* The children of DIE tagged TAG. */
static size_t count_children(Dwarf_Die *die, int tag)
{
	Dwarf_Die c;
	size_t n = 0;

	if (dwarf_child(die, &c) == 0)
		do
			n += dwarf_tag(&c) == tag;
		while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* Insert gc's `.dict` where the ABI passes it, when DWARF leaves it out. */
static void insert_dict(struct go_dwarf *d, const char *name,
			struct go_dwarf_sig *sig, struct go_dwarf_var *params)
{
	enum go_abi_dict pos = go_abi__dict_position(d->go_minor);
	bool is_method;
	size_t i, at;

	if (!name || !shape_instance(name, &is_method))
		return;
	for (i = 0; i < sig->nparams; i++)
		if (!strcmp(params[i].name, ".dict"))
			return;
	/* A version too old for generics yet with shapes is a devel build:
	 * take the newest rule. */
	at = pos == GO_DICT_FIRST || !is_method || !sig->nparams ? 0 : 1;
	memmove(&params[at + 1], &params[at],
		(sig->nparams - at) * sizeof(*params));
	params[at].name = ".dict";
	params[at].type = &go_type_unsafe_pointer;
	sig->nparams++;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = s ? strlen(s) : 0, m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Did the compiler write FN (pointer wrappers, promoted methods, ABI
 * wrappers)? Go 1.21+ marks methods DW_AT_trampoline; all come from
 * "<autogenerated>". */
static bool generated(Dwarf_Die *fn)
{
	return flag(fn, DW_AT_trampoline) ||
	       has_suffix(dwarf_decl_file(fn), "<autogenerated>");
}

/*
 * Go 1.15-1.22 list no receiver for the methods the compiler generates:
 * pkg.(*T).M calling the value method, pkg.T.M promoted from an embedded
 * field (1.15 makes the receiver a DW_TAG_variable). Put it back, unnamed,
 * typed from the name: *pkg.T or pkg.T, unless the first parameter has
 * that type already (Go 1.23+) or DWARF knows no such type (a closure
 * pkg.F.func1 is no method).
 */
static int insert_wrapper_recv(struct go_dwarf *d, const char *name,
			       struct go_dwarf_sig *sig,
			       struct go_dwarf_var *params)
{
	const char *base, *dot, *end, *recv, *tname;
	const struct go_type *t;
	struct go_type *ptr;
	char want[512];
	bool by_ptr;
	int n, err;

	if (!name || strchr(name, '[') || strchr(name, '-'))
		return 0;
	base = strrchr(name, '/');
	dot = strchr(base ? base : name, '.');
	if (!dot)
		return 0;
	by_ptr = !strncmp(dot, ".(*", 3);
	if (by_ptr) {
		end = strstr(dot, ").");
		if (!end || strchr(end + 2, '.'))
			return 0;
		n = snprintf(want, sizeof(want), "*%.*s%.*s",
			     (int)(dot + 1 - name), name,
			     (int)(end - dot - 3), dot + 3);
	} else {
		end = strchr(dot + 1, '.');
		if (!end || strchr(end + 1, '.'))
			return 0;
		n = snprintf(want, sizeof(want), "%.*s", (int)(end - name),
			     name);
	}
	if (n < 0 || (size_t)n >= sizeof(want))
		return 0;
	recv = sig->nparams && params[0].type ? params[0].type->name : NULL;
	if (recv && !strcmp(recv, want))
		return 0;
	tname = want + by_ptr;
	err = type_by_name(d, tname, &t);
	if (err || !t)
		return err;
	if (by_ptr) {
		ptr = arena_alloc(d, sizeof(*ptr));
		if (!ptr)
			return gt_error(-ENOMEM, "out of memory");
		set_fixed(ptr, GO_KIND_PTR, 8);
		ptr->elem = t;
		ptr->name = arena_printf(d, "%s", want);
		t = ptr;
	}
	memmove(&params[1], &params[0], sig->nparams * sizeof(*params));
	params[0].name = "";
	params[0].type = t;
	sig->nparams++;
	return 0;
}

/* Is NAME among the N VARS already? Go 1.18-1.25 list some results twice
 * (golang/go#61357); Go names are unique, "" excepted. */
static bool listed(const struct go_dwarf_var *vars, size_t n,
		   const char *name)
{
	for (size_t i = 0; *name && i < n; i++)
		if (!strcmp(vars[i].name, name))
			return true;
	return false;
}

/* Does SIG make a frame of ARGS bytes under ABI? */
static bool frame_fits(enum go_abi abi, const struct go_dwarf_sig *sig,
		       const struct go_type **types, int32_t args)
{
	struct go_abi_sig as = {
		.params = types, .nparams = sig->nparams,
		.results = types + sig->nparams, .nresults = sig->nresults,
	};
	struct go_abi_layout layout;
	bool fits;

	if (go_abi__assign(abi, &as, &layout))
		return false;
	fits = layout.frame_size == (uint64_t)args;
	go_abi_layout__free(&layout);
	return fits;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Collect the entries of the symbols Go's linker names NAME.abi0: the
 * stack-ABI twins of register-ABI functions, and functions that exist in
 * ABI0 only (assembly, cgo's _Cfunc_ stubs). */
static int index_abi0(struct go_dwarf *d)
{
	const struct elf_file *ef = d->bin->elf;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file__section(ef, ".symtab", &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t i, n, cap = 0;
	const char *name;
	GElf_Sym sym;
	int err;

	d->nabi0 = 0;
	n = data && sh.sh_entsize ? data->d_size / sh.sh_entsize : 0;
	for (i = 0; i < n && gelf_getsym(data, i, &sym); i++) {
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		name = elf_strptr(ef->elf, sh.sh_link, sym.st_name);
		if (!has_suffix(name, ".abi0"))
			continue;
		err = gt_ensure_mem((void **)&d->abi0, &cap, sizeof(*d->abi0),
				    d->nabi0 + 1);
		if (err)
			return err;
		d->abi0[d->nabi0++] = sym.st_value;
	}
	if (d->nabi0)
		qsort(d->abi0, d->nabi0, sizeof(*d->abi0), cmp_u64);
	d->abi0_indexed = true;
	return 0;
}

/* gc: the ABI of the function at ENTRY, if SIG fills the argument frame
 * that the pclntab records for it (see go_dwarf.h). */
static int frame_abi(struct go_dwarf *d, uint64_t entry,
		     struct go_dwarf_sig *sig)
{
	const struct pclntab *tab = d->bin->pclntab;
	size_t lo = 0, hi = tab ? tab->nfuncs : 0, i, n;
	const struct go_type **types;
	int32_t args;
	int err;

	sig->abi = d->bin->abi;
	if (sig->abi == GO_ABI_REGISTER) {
		if (!d->abi0_indexed && (err = index_abi0(d)))
			return err;
		if (d->nabi0 && bsearch(&entry, d->abi0, d->nabi0,
					sizeof(*d->abi0), cmp_u64))
			sig->abi = GO_ABI_STACK;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->funcs[mid].entry < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!tab || lo == tab->nfuncs || tab->funcs[lo].entry != entry ||
	    pclntab__func_args(tab, lo, &args) || args < 0)
		return 0;
	n = sig->nparams + sig->nresults;
	types = malloc((n ?: 1) * sizeof(*types));
	if (!types)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		types[i] = i < sig->nparams ? sig->params[i].type :
			   sig->results[i - sig->nparams].type;
		if (!types[i])
			break;
	}
	if (i == n && !frame_fits(sig->abi, sig, types, args))
		sig->abi = GO_ABI_UNKNOWN;
	free(types);
	gt_error_clear();
	return 0;
}

static int build_sig(struct go_dwarf *d, struct func_entry *e,
		     struct go_dwarf_sig **out)
{
	struct go_dwarf_var *params, *results, *v;
	struct go_dwarf_sig *sig;
	Dwarf_Die fn, c, type;
	const char *name;
	size_t n, nres;
	bool is_result, gen;
	int err = 0;

	if (!dwarf_offdie(d->dw, e->die, &fn))
		return corrupt(d);
	n = count_children(&fn, DW_TAG_formal_parameter);
	nres = n;
	if (e->c_style)
		nres = ref_die(&fn, DW_AT_type, &type) ?
			count_children(&type, DW_TAG_member) + 1 : 0;
	sig = arena_alloc(d, sizeof(*sig));
	/* Room for a `.dict` or a wrapper's receiver. */
	params = arena_alloc(d, (n + 1) * sizeof(*params));
	results = arena_alloc(d, (nres + 1) * sizeof(*results));
	if (!sig || !params || !results)
		return gt_error(-ENOMEM, "out of memory");
	if (n)
		dwarf_child(&fn, &c);
	for (size_t i = 0; i < n; i++) {
		while (dwarf_tag(&c) != DW_TAG_formal_parameter)
			dwarf_siblingof(&c, &c);
		name = dwarf_diename(&c) ?: "";
		is_result = !e->c_style && flag(&c, DW_AT_variable_parameter);
		if (!listed(is_result ? results : params,
			    is_result ? sig->nresults : sig->nparams, name)) {
			v = is_result ? &results[sig->nresults++] :
					&params[sig->nparams++];
			err = make_var(d, &c, name, v);
			if (err)
				return err;
		}
		if (i + 1 < n)
			dwarf_siblingof(&c, &c);
	}
	gen = !e->c_style && generated(&fn);
	if (e->c_style)
		err = c_results(d, &fn, sig, results);
	else if (gen)
		err = insert_wrapper_recv(d, dwarf_diename(&fn), sig, params);
	else
		insert_dict(d, dwarf_diename(&fn), sig, params);
	if (!err)
		err = resolve_pending(d);
	if (err)
		return err;
	sig->params = params;
	sig->results = results;
	if (e->c_style)
		sig->abi = GO_ABI_C;
	else if (has_suffix(dwarf_decl_file(&fn), ".s"))
		sig->abi = GO_ABI_UNKNOWN;	/* assembly: no parameters */
	else if ((err = frame_abi(d, e->entry, sig)))
		return err;
	*out = sig;
	return 0;
}

int go_dwarf__func_sig(struct go_dwarf *d, uint64_t entry,
		       struct go_dwarf_sig *out)
{
	size_t lo = 0, hi;
	int err;

	memset(out, 0, sizeof(*out));
	if (!d->indexed) {
		err = index_funcs(d);
		if (err)
			return err;
	}
	hi = d->nfuncs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->funcs[mid].entry < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->nfuncs || d->funcs[lo].entry != entry)
		return gt_error(-ENOENT, "no DWARF subprogram at 0x%llx",
				(unsigned long long)entry);
	if (!d->funcs[lo].sig) {
		err = build_sig(d, &d->funcs[lo], &d->funcs[lo].sig);
		if (err)
			return err;
	}
	*out = *d->funcs[lo].sig;
	return 0;
}

int go_dwarf__inline_entry(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Addr base, start, end, lowest = (Dwarf_Addr)-1;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(die, &start) == 0) {
		*addr = start;
		return 0;
	}
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (start < end && start < lowest)
			lowest = start;
	if (off < 0)
		return gt_error(-EINVAL, "corrupt DWARF: bad ranges of an inlined call: %s",
				dwarf_errmsg(-1));
	if (lowest == (Dwarf_Addr)-1)
		return -ENOENT;
	*addr = lowest;
	return 0;
}

static int cmp_inlines(const void *a, const void *b)
{
	const struct inline_entry *x = a, *y = b;

	return (x->pc > y->pc) - (x->pc < y->pc);
}

/* Every inlined copy under DIE (depth first), by its first PC. */
static int index_inlines_under(struct go_dwarf *d, Dwarf_Die *parent,
			       size_t *cap, int depth)
{
	Dwarf_Die die;
	uint64_t pc;
	int ret, err;

	if (depth > 64 || dwarf_child(parent, &die))
		return 0;
	do {
		int tag = dwarf_tag(&die);

		if (tag == DW_TAG_inlined_subroutine &&
		    !go_dwarf__inline_entry(&die, &pc)) {
			err = gt_ensure_mem((void **)&d->inlines, cap,
					    sizeof(*d->inlines), d->ninlines + 1);
			if (err)
				return err;
			d->inlines[d->ninlines].pc = pc;
			d->inlines[d->ninlines++].off = dwarf_dieoffset(&die);
		}
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
		    tag == DW_TAG_lexical_block) {
			err = index_inlines_under(d, &die, cap, depth + 1);
			if (err)
				return err;
		}
	} while ((ret = dwarf_siblingof(&die, &die)) == 0);
	return ret < 0 ? corrupt(d) : 0;
}

static int index_inlines(struct go_dwarf *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die;
	size_t cap = 0;
	int ret, err;

	d->ninlines = 0;
	while ((ret = dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cu_die,
				      NULL)) == 0) {
		if (dwarf_srclang(&cu_die) != DW_LANG_Go)
			continue;
		err = index_inlines_under(d, &cu_die, &cap, 0);
		if (err)
			return err;
	}
	if (ret < 0)
		return corrupt(d);
	if (d->ninlines)
		qsort(d->inlines, d->ninlines, sizeof(*d->inlines), cmp_inlines);
	d->inlines_indexed = true;
	return 0;
}

/* A location operation that puts a piece somewhere: 0 and *P, or -1. */
static int loc_op(const Dwarf_Op *op, struct go_dwarf_loc_piece *p)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		p->kind = GO_DWARF_LOC_REG;
		p->reg = op->atom - DW_OP_reg0;
		return 0;
	}
	if (op->atom == DW_OP_regx && op->number < 256) {
		p->kind = GO_DWARF_LOC_REG;
		p->reg = op->number;
		return 0;
	}
	/* gc's frame base is DW_OP_call_frame_cfa */
	if (op->atom == DW_OP_fbreg) {
		p->kind = GO_DWARF_LOC_CFA;
		p->offset = (int64_t)op->number;
		return 0;
	}
	return -1;
}

/* The pieces of the location expression OPS[N] of a value of SIZE bytes;
 * what a probe cannot read is NONE. */
static void loc_pieces(const Dwarf_Op *ops, size_t n, uint64_t size,
		       struct go_dwarf_inline_param *v)
{
	struct go_dwarf_loc_piece p = { GO_DWARF_LOC_NONE, 0, 0, 0 };
	size_t i;
	bool have = false, bad = false;

	v->npieces = 0;
	for (i = 0; i < n && v->npieces < GO_DWARF_MAX_PIECES; i++) {
		if (ops[i].atom == DW_OP_piece) {
			p.size = ops[i].number;
			if (!have || bad)
				p.kind = GO_DWARF_LOC_NONE;
			v->pieces[v->npieces++] = p;
			memset(&p, 0, sizeof(p));
			have = bad = false;
			continue;
		}
		if (have || loc_op(&ops[i], &p))
			bad = true;	/* an expression, not a place */
		have = true;
	}
	if (have && v->npieces < GO_DWARF_MAX_PIECES) {
		/* one location for the whole value */
		if (bad)
			p.kind = GO_DWARF_LOC_NONE;
		p.size = size;
		v->pieces[v->npieces++] = p;
	}
}

/* Parameter ORIGIN (the abstract one) of COPY, where COPY's own says it
 * is at PC, into V. */
static void locate_param(Dwarf_Die *copy, Dwarf_Die *origin, uint64_t pc,
			 struct go_dwarf_inline_param *v)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, o;
	Dwarf_Op *ops;
	size_t nops;

	v->npieces = 0;
	if (dwarf_child(copy, &child))
		return;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter ||
		    !ref_die(&child, DW_AT_abstract_origin, &o) ||
		    dwarf_dieoffset(&o) != dwarf_dieoffset(origin))
			continue;
		if (!dwarf_attr(&child, DW_AT_location, &attr) ||
		    dwarf_getlocation_addr(&attr, pc, &ops, &nops, 1) != 1)
			return;
		loc_pieces(ops, nops, v->type ? v->type->size : 0, v);
		return;
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The params of COPY of the abstract subprogram FN at PC into OUT. */
static int copy_params(struct go_dwarf *d, Dwarf_Die *copy, Dwarf_Die *fn,
		       uint64_t pc, struct go_dwarf_inline_param **out,
		       size_t *n)
{
	struct go_dwarf_inline_param *v = NULL;
	size_t cap = 0;
	Dwarf_Die p;
	int err;

	*n = 0;
	if (dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter ||
			    flag(&p, DW_AT_variable_parameter))
				continue;
			err = gt_ensure_mem((void **)&v, &cap, sizeof(*v), *n + 1);
			if (err) {
				free(v);
				return err;
			}
			struct go_dwarf_var var;

			memset(&v[*n], 0, sizeof(v[*n]));
			err = make_var(d, &p, dwarf_diename(&p), &var);
			if (!err)
				err = resolve_pending(d);
			v[*n].name = var.name;
			v[*n].type = var.type;
			if (err) {
				free(v);
				return err;
			}
			locate_param(copy, &p, pc, &v[*n]);
			(*n)++;
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	*out = v;
	return 0;
}

int go_dwarf__inline_params(struct go_dwarf *d, uint64_t pc, const char *func,
			    struct go_dwarf_inline_param **out, size_t *n)
{
	struct inline_entry key = { .pc = pc };
	Dwarf_Die copy, fn;
	const char *name;
	size_t i, lo, hi;
	int err;

	*out = NULL;
	*n = 0;
	if (!d->inlines_indexed && (err = index_inlines(d)))
		return err;
	/* copies nested in each other may start at the same PC */
	for (lo = 0, hi = d->ninlines; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->inlines[mid].pc < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < d->ninlines && !cmp_inlines(&d->inlines[i], &key); i++) {
		if (!dwarf_offdie(d->dw, d->inlines[i].off, &copy) ||
		    !ref_die(&copy, DW_AT_abstract_origin, &fn) ||
		    !(name = dwarf_diename(&fn)) || strcmp(name, func))
			continue;
		return copy_params(d, &copy, &fn, pc, out, n);
	}
	return -ENOENT;
}
