/* SPDX-License-Identifier: MIT */
/*
 * Go build info (.go.buildinfo, Go 1.13+): the Go version a binary was built
 * with. Both formats: pointers to runtime.buildVersion (before 1.18) and the
 * inline varint-prefixed strings (1.18+). A pure parser, fuzzable.
 */
#ifndef GOTOOLS_BUILDINFO_H
#define GOTOOLS_BUILDINFO_H

#include <stddef.h>
#include <stdint.h>

/* Reads LEN bytes at virtual address VADDR of the binary; 0 or -ERANGE. */
typedef int (*buildinfo_read_fn)(void *ctx, uint64_t vaddr, size_t len,
				 const uint8_t **out);

/*
 * Find the build-info header in DATA (a section, or a whole data segment
 * scanned at 16-byte-aligned offsets) and copy the Go version ("go1.21.3")
 * into VERSION. READ resolves the pointers of the pre-1.18 format.
 * Returns 0, -ENOENT when there is no header, -EINVAL when it is corrupt.
 */
int buildinfo__version(const uint8_t *data, size_t size,
		       buildinfo_read_fn read, void *ctx,
		       char *version, size_t version_len);

#endif
