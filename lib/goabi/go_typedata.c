// SPDX-License-Identifier: MIT
/* Go types from the runtime type data stripping keeps (go_typedata.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/byteorder.h"
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_typedata.h"
#include "gobin/abi_type.h"
#include "gobin/pclntab.h"
#include "gobin/reflect_kind.h"

#define FIELD_SIZE	24
#define MAX_FIELDS	4096
#define MAX_DEPTH	64

enum state { BUILT = 1, FAILED };

/* A type and whether it holds; types refer to each other in cycles
 * (through pointers), so they are checked once a whole lookup is built. */
struct node {
	struct go_type type;	/* first: a go_type is its node */
	enum state state;
	struct node *fresh;	/* built by the lookup under way */
};

struct memo {
	uint64_t addr;		/* 0: empty */
	struct node *node;
};

/* What is allocated for the types, freed at close. */
struct block {
	struct block *next;
	char data[];
};

struct go_typedata {
	const char *path;
	struct go_rtypes *r;
	const uint8_t *data;
	uint64_t start, end;
	bool shifted_offsets;	/* Go <= 1.18: offset << 1 | embedded */
	struct memo *memo;
	size_t memo_cap, memo_used;
	struct block *blocks;
	struct node *fresh;	/* to check at the end of the lookup */
	/* every descriptor's name, sorted (for find) */
	struct go_typedata_entry *names;
	size_t nnames;
	bool indexed;
	/* methods by code address: (entry, receiver type, func type) */
	struct method { uint64_t entry, recv, mtyp; } *methods;
	size_t nmethods;
	bool methods_indexed;
};

int go_typedata__open(const struct go_binary *bin, struct go_rtypes *r,
		      struct go_typedata **out)
{
	int minor = go_version__minor(bin->version);

	*out = NULL;
	/* without build info, the pclntab's layout says enough: struct
	 * field offsets changed with Go 1.19, within one layout */
	if (minor < 0 && bin->pclntab && bin->pclntab->version >= PCLNTAB_GO120)
		minor = 20;
	else if (minor < 0 && bin->pclntab && bin->pclntab->version <= PCLNTAB_GO116)
		minor = 17;
	if (minor < 0)
		return gt_error(-ENOTSUP, "%s: unknown Go version: its type data cannot be read",
				bin->elf->path);
	return go_typedata__open_rtypes(r, minor, out);
}

int go_typedata__open_rtypes(struct go_rtypes *r, int minor,
			     struct go_typedata **out)
{
	struct go_typedata *t;

	*out = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return gt_error(-ENOMEM, "out of memory");
	t->path = go_rtypes__path(r);
	t->r = r;
	t->data = go_rtypes__data(r, &t->start, &t->end);
	t->shifted_offsets = minor <= 18;
	*out = t;
	return 0;
}

void go_typedata__close(struct go_typedata *t)
{
	struct block *b, *next;

	if (!t)
		return;
	for (b = t->blocks; b; b = next) {
		next = b->next;
		free(b);
	}
	free(t->memo);
	free(t->names);
	free(t->methods);
	free(t);
}

static void *alloc(struct go_typedata *t, size_t size)
{
	struct block *b = calloc(1, sizeof(*b) + size);

	if (!b)
		return NULL;
	b->next = t->blocks;
	t->blocks = b;
	return b->data;
}

/* N bytes at ADDR in the type data, or NULL. */
static const uint8_t *at(const struct go_typedata *t, uint64_t addr, uint64_t n)
{
	if (addr < t->start || addr > t->end || t->end - addr < n)
		return NULL;
	return t->data + (addr - t->start);
}

static size_t memo_hash(uint64_t addr, size_t cap)
{
	return (addr >> 3) * 0x9e3779b97f4a7c15ULL & (cap - 1);
}

static struct memo *memo_slot(struct go_typedata *t, uint64_t addr)
{
	size_t i = memo_hash(addr, t->memo_cap);

	while (t->memo[i].addr && t->memo[i].addr != addr)
		i = (i + 1) & (t->memo_cap - 1);
	return &t->memo[i];
}

static int memo_grow(struct go_typedata *t)
{
	struct memo *old = t->memo;
	size_t n = t->memo_cap, i;

	t->memo_cap = n ? n * 2 : 256;
	t->memo = calloc(t->memo_cap, sizeof(*t->memo));
	if (!t->memo) {
		t->memo = old;
		t->memo_cap = n;
		return gt_error(-ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		if (old[i].addr)
			*memo_slot(t, old[i].addr) = old[i];
	free(old);
	return 0;
}

static int bad(const struct go_typedata *t, uint64_t addr, const char *why)
{
	return gt_error(-EINVAL, "%s: the type at 0x%llx %s", t->path,
			(unsigned long long)addr, why);
}

static int type_at(struct go_typedata *t, uint64_t addr, int depth,
		   const struct go_type **out);

/* The element type whose descriptor's address is at OFF of D. */
static int elem_at(struct go_typedata *t, uint64_t addr, const uint8_t *d,
		   unsigned int off, int depth, const struct go_type **out)
{
	return type_at(t, get_u64(d + off), depth + 1, out);
}

/* The element at 48 of D, NULL when it does not decode (or, once
 * settled, does not hold). */
static int opt_elem(struct go_typedata *t, uint64_t addr, const uint8_t *d,
		    int depth, struct go_type *ty)
{
	int err = elem_at(t, addr, d, 48, depth, &ty->elem);

	if (err == -ENOMEM)
		return err;
	gt_error_clear();
	return 0;
}

static int build_struct(struct go_typedata *t, uint64_t addr,
			const uint8_t *d, struct go_type *ty, int depth)
{
	uint64_t fields = get_u64(d + 56), n = get_u64(d + 64), i, off;
	struct go_field *f;
	const uint8_t *fd, *s;
	uint8_t flags;
	size_t len;
	char *name;
	int err;

	if (n > MAX_FIELDS || !(fd = at(t, fields, n * FIELD_SIZE)))
		return bad(t, addr, "has no readable fields");
	f = n ? alloc(t, n * sizeof(*f)) : NULL;
	if (n && !f)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++, fd += FIELD_SIZE) {
		err = go_rtypes__name_at(t->r, get_u64(fd), &s, &len, &flags);
		if (err)
			return bad(t, addr, "has a field without a name");
		name = alloc(t, len + 1);
		if (!name)
			return gt_error(-ENOMEM, "out of memory");
		memcpy(name, s, len);
		f[i].name = name;
		err = elem_at(t, addr, fd, 8, depth, &f[i].type);
		if (err)
			return err;
		off = get_u64(fd + 16);
		f[i].offset = t->shifted_offsets ? off >> 1 : off;
	}
	ty->fields = f;
	ty->nfields = n;
	return 0;
}

/* The kinds whose size and alignment the header says. */
static int build_scalar(struct go_type *ty, unsigned int kind)
{
	switch (kind) {
	case REFLECT_KIND_BOOL:
		ty->kind = GO_KIND_BOOL;
		return 0;
	case REFLECT_KIND_INT:
	case REFLECT_KIND_INT8:
	case REFLECT_KIND_INT16:
	case REFLECT_KIND_INT32:
	case REFLECT_KIND_INT64:
		ty->kind = GO_KIND_INT;
		return 0;
	case REFLECT_KIND_UINT:
	case REFLECT_KIND_UINT8:
	case REFLECT_KIND_UINT16:
	case REFLECT_KIND_UINT32:
	case REFLECT_KIND_UINT64:
	case REFLECT_KIND_UINTPTR:
		ty->kind = GO_KIND_UINT;
		return 0;
	case REFLECT_KIND_FLOAT32:
	case REFLECT_KIND_FLOAT64:
		ty->kind = GO_KIND_FLOAT;
		return 0;
	case REFLECT_KIND_COMPLEX64:
	case REFLECT_KIND_COMPLEX128:
		ty->kind = GO_KIND_COMPLEX;
		return 0;
	case REFLECT_KIND_STRING:
		ty->kind = GO_KIND_STRING;
		return 0;
	case REFLECT_KIND_FUNC:
		ty->kind = GO_KIND_FUNC;
		return 0;
	case REFLECT_KIND_UNSAFE_POINTER:
		ty->kind = GO_KIND_PTR;
		return 0;
	default:
		return -ENOENT;
	}
}

static int build(struct go_typedata *t, uint64_t addr, const uint8_t *d,
		 struct go_type *ty, int depth)
{
	unsigned int kind = d[ABI_TYPE_KIND] & REFLECT_KIND_MASK;
	const uint8_t *x;

	ty->size = get_u64(d);
	ty->align = d[ABI_TYPE_ALIGN];
	if (!build_scalar(ty, kind))
		return 0;
	if (!(x = at(t, addr, ABI_TYPE_SIZE + 24)))
		return bad(t, addr, "is cut short");
	switch (kind) {
	/* what cannot be described (the runtime's [1 << 50]byte behind a
	 * pointer) leaves a pointer's, slice's or chan's element unknown */
	case REFLECT_KIND_POINTER:
		ty->kind = GO_KIND_PTR;
		return opt_elem(t, addr, x, depth, ty);
	case REFLECT_KIND_SLICE:
		ty->kind = GO_KIND_SLICE;
		return opt_elem(t, addr, x, depth, ty);
	case REFLECT_KIND_CHAN:
		ty->kind = GO_KIND_CHAN;
		return opt_elem(t, addr, x, depth, ty);
	case REFLECT_KIND_ARRAY:
		ty->kind = GO_KIND_ARRAY;
		ty->len = get_u64(x + 64);
		return elem_at(t, addr, x, 48, depth, &ty->elem);
	case REFLECT_KIND_MAP:
		ty->kind = GO_KIND_MAP;
		return elem_at(t, addr, x, 48, depth, &ty->key) ?:
		       elem_at(t, addr, x, 56, depth, &ty->elem);
	case REFLECT_KIND_INTERFACE:
		ty->kind = get_u64(x + 64) ? GO_KIND_IFACE : GO_KIND_EFACE;
		return 0;
	case REFLECT_KIND_STRUCT:
		ty->kind = GO_KIND_STRUCT;
		return build_struct(t, addr, x, ty, depth);
	default:
		return bad(t, addr, "has an unknown kind");
	}
}

static int type_at(struct go_typedata *t, uint64_t addr, int depth,
		   const struct go_type **out)
{
	const uint8_t *d = at(t, addr, ABI_TYPE_SIZE);
	struct node *n;
	const char *name;
	struct memo *m;
	int err;

	*out = NULL;
	if (!d || addr % 8 || depth > MAX_DEPTH)
		return gt_error(-ENOENT, "%s: no type at 0x%llx", t->path,
				(unsigned long long)addr);
	if ((t->memo_used + 1) * 4 > t->memo_cap * 3 && (err = memo_grow(t)))
		return err;
	m = memo_slot(t, addr);
	if (m->addr) {
		if (m->node->state == FAILED)
			return bad(t, addr, "does not decode (as said before)");
		*out = &m->node->type;
		return 0;
	}
	/* its name first: a check that a type is there at all */
	err = go_rtypes__name(t->r, addr, &name);
	if (err)
		return err;
	n = alloc(t, sizeof(*n));
	if (!n)
		return gt_error(-ENOMEM, "out of memory");
	n->type.name = name;
	n->state = BUILT;
	n->fresh = t->fresh;
	t->fresh = n;
	*m = (struct memo){ .addr = addr, .node = n };
	t->memo_used++;
	err = build(t, addr, d, &n->type, depth);
	if (err) {
		n->state = FAILED;
		return err;
	}
	*out = &n->type;
	return 0;
}

static bool failed(const struct go_type *ty)
{
	return ty && ((const struct node *)ty)->state == FAILED;
}

/* Does N hold, its parts now built: what it holds by value holds, and it
 * is consistent? A failed element of a pointer, slice or chan is dropped
 * (elem NULL: unknown). Returns true when N changed. */
static bool settle_one(struct node *n)
{
	struct go_type *ty = &n->type;
	bool bad_part = false;
	size_t i;

	if (n->state == FAILED)
		return false;
	switch (ty->kind) {
	case GO_KIND_PTR:
	case GO_KIND_SLICE:
	case GO_KIND_CHAN:
		if (!failed(ty->elem))
			return false;
		ty->elem = NULL;
		return true;
	case GO_KIND_ARRAY:
		bad_part = failed(ty->elem);
		break;
	case GO_KIND_MAP:
		bad_part = failed(ty->key) || failed(ty->elem);
		break;
	case GO_KIND_STRUCT:
		for (i = 0; i < ty->nfields; i++)
			bad_part |= failed(ty->fields[i].type);
		break;
	default:
		break;
	}
	if (!bad_part && !go_type__check(ty))
		return false;
	n->state = FAILED;
	return true;
}

/* Check what the lookup built, until nothing changes. */
static void settle(struct go_typedata *t)
{
	struct node *n;
	bool changed = true;

	while (changed) {
		changed = false;
		for (n = t->fresh; n; n = n->fresh)
			changed |= settle_one(n);
	}
	gt_error_clear();
	t->fresh = NULL;
}

int go_typedata__type(struct go_typedata *t, uint64_t addr,
		      const struct go_type **out)
{
	int err = type_at(t, addr, 0, out);
	char why[512];

	/* settling checks types, which records reasons of its own */
	snprintf(why, sizeof(why), "%s", gt_last_error());
	settle(t);
	if (err)
		err = gt_error(err, "%s", why);
	else if (failed(*out))
		err = bad(t, addr, "is not a consistent type");
	if (err)
		*out = NULL;
	return err;
}

static int cmp_named(const void *a, const void *b)
{
	const struct go_typedata_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

/* Every place in the type data that reads as a descriptor, by name. */
static int index_names(struct go_typedata *t)
{
	size_t cap = 0;
	const char *name;
	uint64_t a;
	int err;

	for (a = (t->start + 7) & ~7ULL; a + ABI_TYPE_SIZE <= t->end; a += 8) {
		if (go_rtypes__name(t->r, a, &name))
			continue;
		err = gt_ensure_mem((void **)&t->names, &cap, sizeof(*t->names),
				    t->nnames + 1);
		if (err)
			return err;
		t->names[t->nnames++] = (struct go_typedata_entry){ name, a };
	}
	gt_error_clear();
	qsort(t->names, t->nnames, sizeof(*t->names), cmp_named);
	t->indexed = true;
	return 0;
}

/* A pointer, slice or array type of ELEM, which the type data lacks. */
static int make_composite(struct go_typedata *t, const char *name,
			  const struct go_type *elem, enum go_kind kind,
			  uint64_t len, const struct go_type **out)
{
	struct node *n = alloc(t, sizeof(*n) + strlen(name) + 1);
	char *copy;

	if (!n)
		return gt_error(-ENOMEM, "out of memory");
	copy = (char *)(n + 1);
	strcpy(copy, name);
	n->state = BUILT;
	if (kind == GO_KIND_ARRAY) {
		if (go_type__init_array(&n->type, elem, len))
			return gt_error(-ENOENT, "%s: array type %s too large",
					t->path, name);
	} else {
		n->type = (struct go_type){ .kind = kind, .elem = elem,
					    .size = kind == GO_KIND_PTR ? 8 : 24,
					    .align = 8 };
	}
	n->type.name = copy;
	*out = &n->type;
	return 0;
}

int go_typedata__find(struct go_typedata *t, const char *name,
		      const struct go_type **out)
{
	const struct go_type *elem;
	size_t lo = 0, hi, k;
	char *end;
	unsigned long long len;
	int err;

	*out = NULL;
	if (!t->indexed && (err = index_names(t)))
		return err;
	hi = t->nnames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(t->names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the first of that name that decodes */
	for (k = lo; k < t->nnames && !strcmp(t->names[k].name, name); k++)
		if (!go_typedata__type(t, t->names[k].addr, out))
			return 0;
	if (name[0] == '*' && !go_typedata__find(t, name + 1, &elem))
		return make_composite(t, name, elem, GO_KIND_PTR, 0, out);
	if (!strncmp(name, "[]", 2) && !go_typedata__find(t, name + 2, &elem))
		return make_composite(t, name, elem, GO_KIND_SLICE, 0, out);
	if (name[0] == '[' && isdigit((unsigned char)name[1])) {
		len = strtoull(name + 1, &end, 10);
		if (*end == ']' && !go_typedata__find(t, end + 1, &elem))
			return make_composite(t, name, elem, GO_KIND_ARRAY, len, out);
	}
	return gt_error(-ENOENT, "%s: the binary's type data holds no type %s",
			t->path, name);
}

int go_typedata__all(struct go_typedata *t,
		     const struct go_typedata_entry **out, size_t *n)
{
	int err = t->indexed ? 0 : index_names(t);

	*out = t->names;
	*n = t->nnames;
	return err;
}

#define UNCOMMON_SIZE	16
#define METHOD_SIZE	16

/* Where a type's uncommontype is: past its kind's own fields (map types
 * change their layout between versions and carry no methods of note: 0). */
static uint64_t uncommon_at(const uint8_t *d)
{
	switch (d[ABI_TYPE_KIND] & REFLECT_KIND_MASK) {
	case REFLECT_KIND_ARRAY: return 72;
	case REFLECT_KIND_CHAN: return 64;
	case REFLECT_KIND_FUNC: return 56;
	case REFLECT_KIND_INTERFACE: return 80;
	case REFLECT_KIND_MAP: return 0;
	case REFLECT_KIND_POINTER:
	case REFLECT_KIND_SLICE: return 56;
	case REFLECT_KIND_STRUCT: return 80;
	default: return ABI_TYPE_SIZE;
	}
}

static int cmp_method(const void *a, const void *b)
{
	const struct method *x = a, *y = b;

	return (x->entry > y->entry) - (x->entry < y->entry);
}

/* The method table of the type at ADDR (uncommontype's [mcount]Method),
 * *N methods, or NULL when it has none. */
static const uint8_t *method_table(const struct go_typedata *t, uint64_t addr,
				   size_t *n)
{
	const uint8_t *d = at(t, addr, ABI_TYPE_SIZE), *u;
	uint64_t uoff;

	if (!d || !(d[ABI_TYPE_TFLAG] & ABI_TFLAG_UNCOMMON) || !(uoff = uncommon_at(d)) ||
	    !(u = at(t, addr + uoff, UNCOMMON_SIZE)))
		return NULL;
	*n = get_u16(u + 4);
	return at(t, addr + uoff + get_u32(u + 8), *n * METHOD_SIZE);
}

/* A method's type and code offsets; false when the linker kept no type
 * for it (unreachable). */
static bool method_at(const uint8_t *m, int32_t *mtyp, int32_t *ifn,
		      int32_t *tfn)
{
	*mtyp = (int32_t)get_u32(m + 4);
	*ifn = (int32_t)get_u32(m + 8);
	*tfn = (int32_t)get_u32(m + 12);
	return *mtyp > 0 && *tfn >= 0;
}

/* Text offsets count from moduledata.text, which a stripped binary does
 * not name: the candidate at which the method tables' Tfn land on
 * function entries, over the first types. */
static uint64_t text_base(struct go_typedata *t, const struct go_binary *bin)
{
	uint64_t cand[3] = { 0 }, best = 0;
	const struct go_func *f;
	const uint8_t *m;
	int32_t mtyp, ifn, tfn;
	size_t k, i, j, n, hits, most = 0;

	if (bin->pclntab && bin->pclntab->nfuncs)
		cand[0] = bin->pclntab->funcs[0].entry;
	if (bin->pclntab)
		cand[1] = bin->pclntab->text_start;
	if (bin->nfuncs)
		cand[2] = bin->funcs[0].addr;
	for (k = 0; k < 3; k++) {
		for (i = 0, hits = 0; cand[k] && i < t->nnames && i < 4096; i++) {
			m = method_table(t, t->names[i].addr, &n);
			for (j = 0; m && j < n; j++, m += METHOD_SIZE) {
				if (!method_at(m, &mtyp, &ifn, &tfn))
					continue;
				f = go_binary__func_at(bin, cand[k] + tfn);
				hits += f && f->addr == cand[k] + tfn;
			}
		}
		if (hits > most) {
			most = hits;
			best = cand[k];
		}
	}
	return best;
}

static int index_methods(struct go_typedata *t, const struct go_binary *bin)
{
	uint64_t text, addr, ptr_to;
	const uint8_t *m;
	int32_t mtyp, ifn, tfn;
	size_t cap = 0, i, j, n;
	int err;

	if (!t->indexed && (err = index_names(t)))
		return err;
	text = text_base(t, bin);
	for (i = 0; text && i < t->nnames; i++) {
		addr = t->names[i].addr;
		m = method_table(t, addr, &n);
		ptr_to = (int32_t)get_u32(t->data + (addr - t->start) +
					  ABI_TYPE_PTR_TO_THIS);
		for (j = 0; m && j < n; j++, m += METHOD_SIZE) {
			if (!method_at(m, &mtyp, &ifn, &tfn))
				continue;
			err = gt_ensure_mem((void **)&t->methods, &cap,
					    sizeof(*t->methods), t->nmethods + 2);
			if (err)
				return err;
			t->methods[t->nmethods++] = (struct method){
				text + tfn, addr, t->start + mtyp };
			/* a value method's pointer wrapper: its receiver
			 * is *T */
			if (ifn >= 0 && ifn != tfn && (int64_t)ptr_to > 0)
				t->methods[t->nmethods++] = (struct method){
					text + ifn, t->start + ptr_to,
					t->start + mtyp };
		}
	}
	if (t->nmethods)
		qsort(t->methods, t->nmethods, sizeof(*t->methods), cmp_method);
	t->methods_indexed = true;
	return 0;
}

/* The parameters (or results) of the func type at FN into an array. */
static int func_types(struct go_typedata *t, uint64_t fn, bool results,
		      const struct go_type ***out, size_t *n)
{
	const uint8_t *d = at(t, fn, ABI_TYPE_SIZE + 8), *p;
	uint64_t in, outc, first;
	const struct go_type **v;
	size_t i;
	int err;

	if (!d || (d[ABI_TYPE_KIND] & REFLECT_KIND_MASK) != REFLECT_KIND_FUNC)
		return bad(t, fn, "is not a func type");
	in = get_u16(d + 48);
	outc = get_u16(d + 50) & 0x7fff;
	first = fn + 56 + (d[ABI_TYPE_TFLAG] & ABI_TFLAG_UNCOMMON ? UNCOMMON_SIZE : 0);
	*n = results ? outc : in;
	p = at(t, first + (results ? in : 0) * 8, *n * 8);
	if (!p)
		return bad(t, fn, "has its parameters outside the type data");
	v = alloc(t, (*n ? *n : 1) * sizeof(*v));
	if (!v)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < *n; i++) {
		err = go_typedata__type(t, get_u64(p + 8 * i), &v[i]);
		if (err)
			return err;
	}
	*out = v;
	return 0;
}

int go_typedata__method(struct go_typedata *t, const struct go_binary *bin,
			uint64_t entry, struct go_method_sig *out)
{
	struct method key = { .entry = entry }, *m;
	const struct go_type **params, **results;
	int err;

	memset(out, 0, sizeof(*out));
	if (!t->methods_indexed && (err = index_methods(t, bin)))
		return err;
	m = t->nmethods ? bsearch(&key, t->methods, t->nmethods,
				  sizeof(*m), cmp_method) : NULL;
	if (!m)
		return -ENOENT;
	err = go_typedata__type(t, m->recv, &out->recv);
	if (!err)
		err = func_types(t, m->mtyp, false, &params, &out->nparams);
	if (!err)
		err = func_types(t, m->mtyp, true, &results, &out->nresults);
	if (err)
		return err;
	out->params = params;
	out->results = results;
	return 0;
}
