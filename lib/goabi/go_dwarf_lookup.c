// SPDX-License-Identifier: MIT
/*
 * Go types found by something other than a reference from another DIE:
 * by their Go name (go_dwarf__member_offset(), and the receiver type
 * go_dwarf_sig.c puts back into a wrapper), and by the offset of their
 * runtime type descriptor (go_dwarf__runtime_types(): what an interface's
 * type word names). Both index the type DIEs at the top of the Go units.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_dwarf_internal.h"

/* A named type DIE at the top of a Go unit, for wrappers' receivers. */
struct type_entry {
	const char *name;
	Dwarf_Off off;
};

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
		return go_dwarf_corrupt(d);
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
	err = go_dwarf_type_of(d, die, 0, &t);
	if (!err)
		err = go_dwarf_resolve_pending(d);
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
			return go_dwarf_corrupt(d);
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

int go_dwarf_type_by_name(struct go_dwarf *d, const char *name,
			  const struct go_type **out)
{
	Dwarf_Die die;
	int err;

	*out = NULL;
	err = type_die(d, name, &die);
	if (err)
		return err == -ENOENT ? 0 : err;
	return go_dwarf_type_of(d, &die, 0, out);
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
			return go_dwarf_corrupt(d);
		if (go_dwarf_member_location(&m, &at) || at > UINT64_MAX - total)
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
