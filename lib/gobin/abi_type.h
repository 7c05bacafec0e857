/* SPDX-License-Identifier: MIT */
/*
 * The header of a runtime type descriptor (runtime._type, to Go 1.20;
 * internal/abi.Type, 1.21-1.27), the same in every release 1.14+ on
 * 64-bit targets, amd64 and arm64 alike: 48 bytes,
 *
 *   size u64 @0, ptrdata u64 @8, hash u32 @16, tflag u8 @20, align u8 @21,
 *   fieldAlign u8 @22, kind u8 @23 (reflect_kind.h), equal @24,
 *   gcdata @32, str nameOff int32 @40, ptrToThis typeOff int32 @44,
 *
 * followed by what the kind adds. The one place that knows it: go_rtype.c
 * (names) and goabi/go_typedata.c (whole types) read descriptors by it.
 */
#ifndef GOTOOLS_ABI_TYPE_H
#define GOTOOLS_ABI_TYPE_H

#define ABI_TYPE_SIZE		48
#define ABI_TYPE_TFLAG		20
#define ABI_TYPE_ALIGN		21
#define ABI_TYPE_FIELD_ALIGN	22
#define ABI_TYPE_KIND		23
#define ABI_TYPE_STR		40
#define ABI_TYPE_PTR_TO_THIS	44

/* tflag bits */
#define ABI_TFLAG_UNCOMMON	(1 << 0)	/* an uncommontype follows
						 * the kind's fields */
#define ABI_TFLAG_EXTRA_STAR	(1 << 1)	/* the stored name has a '*'
						 * the type's own drops */

#endif
