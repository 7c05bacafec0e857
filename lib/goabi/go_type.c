// SPDX-License-Identifier: MIT
/*
 * Go types as the ABI sees them (go_abi.h): the scalar types, a type
 * graph's check (sizes and alignments each kind must have, fields in
 * order), structs and arrays laid out as gc lays them out, and which
 * values are integer words.
 */
#include <errno.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "goabi/go_abi_internal.h"

#define SCALAR(n, k, sz, al) \
	const struct go_type n = { .kind = k, .size = sz, .align = al }

SCALAR(go_type_bool, GO_KIND_BOOL, 1, 1);
SCALAR(go_type_int, GO_KIND_INT, 8, 8);
SCALAR(go_type_int8, GO_KIND_INT, 1, 1);
SCALAR(go_type_int16, GO_KIND_INT, 2, 2);
SCALAR(go_type_int32, GO_KIND_INT, 4, 4);
SCALAR(go_type_int64, GO_KIND_INT, 8, 8);
SCALAR(go_type_uint, GO_KIND_UINT, 8, 8);
SCALAR(go_type_uint8, GO_KIND_UINT, 1, 1);
SCALAR(go_type_uint16, GO_KIND_UINT, 2, 2);
SCALAR(go_type_uint32, GO_KIND_UINT, 4, 4);
SCALAR(go_type_uint64, GO_KIND_UINT, 8, 8);
SCALAR(go_type_uintptr, GO_KIND_UINT, 8, 8);
SCALAR(go_type_float32, GO_KIND_FLOAT, 4, 4);
SCALAR(go_type_float64, GO_KIND_FLOAT, 8, 8);
SCALAR(go_type_complex64, GO_KIND_COMPLEX, 8, 4);
SCALAR(go_type_complex128, GO_KIND_COMPLEX, 16, 8);
SCALAR(go_type_unsafe_pointer, GO_KIND_PTR, 8, 8);
SCALAR(go_type_string, GO_KIND_STRING, 16, 8);
SCALAR(go_type_eface, GO_KIND_EFACE, 16, 8);
const struct go_type go_type_byte_slice = {
	.kind = GO_KIND_SLICE, .size = 24, .align = 8, .elem = &go_type_uint8,
};


#define MAX_DEPTH 32
/* No Go frame comes near these; they keep offsets far from overflow. */
#define MAX_TYPE_SIZE (1ULL << 32)

static bool valid_size(uint64_t size, const uint64_t *ok, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (size == ok[i])
			return true;
	return false;
}

static int check_type(const struct go_type *t, int depth, long *visits)
{
	static const uint64_t int_sizes[] = { 1, 2, 4, 8 };
	static const uint64_t float_sizes[] = { 4, 8 };
	static const uint64_t complex_sizes[] = { 8, 16 };
	uint64_t end = 0;
	int err;

	if (!t)
		return gt_error(-EINVAL, "type description missing");
	if (depth > MAX_DEPTH)
		return gt_error(-EINVAL, "type nested more than %d deep",
				MAX_DEPTH);
	if (--*visits < 0)
		return gt_error(-E2BIG, "type too complex to place");
	if (t->align != 1 && t->align != 2 && t->align != 4 && t->align != 8)
		return gt_error(-EINVAL, "type %s: alignment %u",
				t->name ?: "?", t->align);
	if (t->size > MAX_TYPE_SIZE || t->size % t->align)
		return gt_error(-EINVAL, "type %s: size %llu",
				t->name ?: "?", (unsigned long long)t->size);

	switch (t->kind) {
	case GO_KIND_BOOL:
		if (t->size != 1)
			goto bad_size;
		return 0;
	case GO_KIND_INT:
	case GO_KIND_UINT:
		if (!valid_size(t->size, int_sizes, 4) || t->align != t->size)
			goto bad_size;
		return 0;
	case GO_KIND_FLOAT:
		if (!valid_size(t->size, float_sizes, 2) ||
		    t->align != t->size)
			goto bad_size;
		return 0;
	case GO_KIND_COMPLEX:
		if (!valid_size(t->size, complex_sizes, 2) ||
		    t->align != t->size / 2)
			goto bad_size;
		return 0;
	case GO_KIND_PTR:
	case GO_KIND_MAP:
	case GO_KIND_CHAN:
	case GO_KIND_FUNC:
		if (t->size != 8 || t->align != 8)
			goto bad_size;
		return 0;
	case GO_KIND_STRING:
	case GO_KIND_IFACE:
	case GO_KIND_EFACE:
		if (t->size != 16 || t->align != 8)
			goto bad_size;
		return 0;
	case GO_KIND_SLICE:
		if (t->size != 24 || t->align != 8)
			goto bad_size;
		return 0;
	case GO_KIND_ARRAY:
		err = check_type(t->elem, depth + 1, visits);
		if (err)
			return err;
		if (t->align != t->elem->align ||
		    (t->elem->size && t->len > t->size / t->elem->size) ||
		    t->len * t->elem->size != t->size)
			goto bad_size;
		return 0;
	case GO_KIND_STRUCT:
		if (t->nfields && !t->fields)
			return gt_error(-EINVAL, "struct %s: fields missing",
					t->name ?: "?");
		for (size_t i = 0; i < t->nfields; i++) {
			const struct go_field *f = &t->fields[i];

			err = check_type(f->type, depth + 1, visits);
			if (err)
				return err;
			if (f->offset < end || f->offset % f->type->align ||
			    f->type->align > t->align ||
			    f->offset > t->size ||
			    f->type->size > t->size - f->offset)
				return gt_error(-EINVAL,
						"struct %s: field %s misplaced",
						t->name ?: "?", f->name ?: "?");
			end = f->offset + f->type->size;
		}
		return 0;
	}
	return gt_error(-EINVAL, "type %s: unknown kind %d", t->name ?: "?",
			(int)t->kind);
bad_size:
	return gt_error(-EINVAL, "type %s: size %llu or alignment %u wrong "
			"for its kind", t->name ?: "?",
			(unsigned long long)t->size, t->align);
}

int go_type__check(const struct go_type *t)
{
	long visits = MAX_VISITS;

	return check_type(t, 0, &visits);
}

int go_type__init_struct(struct go_type *t, const char *name,
			 struct go_field *fields, size_t n)
{
	uint64_t off = 0;
	uint32_t align = 1;
	bool nonzero = false;

	if (n && !fields)
		return gt_error(-EINVAL, "struct %s: fields missing",
				name ?: "?");
	for (size_t i = 0; i < n; i++) {
		const struct go_type *ft = fields[i].type;

		if (!ft || go_type__check(ft))
			return gt_error(-EINVAL,
					"struct %s: field %s: bad type",
					name ?: "?", fields[i].name ?: "?");
		off = align_up(off, ft->align);
		fields[i].offset = off;
		off += ft->size;
		if (off > MAX_TYPE_SIZE)
			return gt_error(-EINVAL, "struct %s too large",
					name ?: "?");
		if (ft->align > align)
			align = ft->align;
		if (ft->size)
			nonzero = true;
	}
	/* A final zero-size field gets a padding byte, so that its address
	 * does not point past the struct (abi-internal.md). */
	if (n && !fields[n - 1].type->size && nonzero)
		off++;
	memset(t, 0, sizeof(*t));
	t->kind = GO_KIND_STRUCT;
	t->name = name;
	t->size = align_up(off, align);
	t->align = align;
	t->fields = fields;
	t->nfields = n;
	return 0;
}

int go_type__init_array(struct go_type *t, const struct go_type *elem,
			uint64_t len)
{
	if (!elem || go_type__check(elem))
		return gt_error(-EINVAL, "array of a bad element type");
	if (elem->size && len > MAX_TYPE_SIZE / elem->size)
		return gt_error(-EINVAL, "array of %llu elements too large",
				(unsigned long long)len);
	memset(t, 0, sizeof(*t));
	t->kind = GO_KIND_ARRAY;
	t->size = len * elem->size;
	t->align = elem->align;
	t->elem = elem;
	t->len = len;
	return 0;
}

bool go_type__is_int_word(const struct go_type *t)
{
	switch (t->kind) {
	case GO_KIND_BOOL:
	case GO_KIND_INT:
	case GO_KIND_UINT:
	case GO_KIND_PTR:
	case GO_KIND_MAP:
	case GO_KIND_CHAN:
	case GO_KIND_FUNC:
		return true;
	default:
		return false;
	}
}
