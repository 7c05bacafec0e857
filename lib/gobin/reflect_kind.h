/* SPDX-License-Identifier: MIT */
/*
 * reflect.Kind, the kind of a Go type as gc writes it down twice: in the
 * kind byte of a runtime type descriptor (its low five bits, Go's
 * abi.KindMask; the high bits are flags) and in DWARF's DW_AT_go_kind.
 * The numbers are the same in every Go release (reflect/type.go, since
 * Go 1.21 internal/abi/type.go), so there is no version rule here.
 */
#ifndef GOTOOLS_REFLECT_KIND_H
#define GOTOOLS_REFLECT_KIND_H

enum reflect_kind {
	REFLECT_KIND_INVALID,
	REFLECT_KIND_BOOL,
	REFLECT_KIND_INT,
	REFLECT_KIND_INT8,
	REFLECT_KIND_INT16,
	REFLECT_KIND_INT32,
	REFLECT_KIND_INT64,
	REFLECT_KIND_UINT,
	REFLECT_KIND_UINT8,
	REFLECT_KIND_UINT16,
	REFLECT_KIND_UINT32,
	REFLECT_KIND_UINT64,
	REFLECT_KIND_UINTPTR,
	REFLECT_KIND_FLOAT32,
	REFLECT_KIND_FLOAT64,
	REFLECT_KIND_COMPLEX64,
	REFLECT_KIND_COMPLEX128,
	REFLECT_KIND_ARRAY,
	REFLECT_KIND_CHAN,
	REFLECT_KIND_FUNC,
	REFLECT_KIND_INTERFACE,
	REFLECT_KIND_MAP,
	REFLECT_KIND_POINTER,
	REFLECT_KIND_SLICE,
	REFLECT_KIND_STRING,
	REFLECT_KIND_STRUCT,
	REFLECT_KIND_UNSAFE_POINTER,	/* the last */
};

/* The kind in a type descriptor's kind byte. */
#define REFLECT_KIND_MASK	0x1f

#endif
