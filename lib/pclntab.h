/* SPDX-License-Identifier: MIT */
/*
 * The Go function table (.gopclntab), which survives `-ldflags=-s -w`.
 * All four layouts: Go 1.2-1.15, 1.16-1.17, 1.18-1.19, 1.20+ (and the
 * 1.26+ header whose textStart is 0). A pure parser over a byte buffer, so
 * that it can be fuzzed: it never reads outside [data, data+size).
 */
#ifndef GOTOOLS_PCLNTAB_H
#define GOTOOLS_PCLNTAB_H

#include <stddef.h>
#include <stdint.h>

enum pclntab_version {
	PCLNTAB_GO12 = 1,	/* magic 0xfffffffb: Go 1.2 - 1.15 */
	PCLNTAB_GO116,		/* 0xfffffffa: Go 1.16 - 1.17 */
	PCLNTAB_GO118,		/* 0xfffffff0: Go 1.18 - 1.19 */
	PCLNTAB_GO120,		/* 0xfffffff1: Go 1.20+ */
};

struct pclntab_func {
	uint64_t entry;		/* virtual address */
	uint64_t end;		/* entry of the next function */
	const char *name;	/* NUL-terminated, points into the buffer */
	uint32_t funcoff;	/* offset of the _func record in the func table */
};

struct pclntab {
	enum pclntab_version version;
	uint8_t ptr_size;	/* 8; 4 is rejected */
	uint8_t quantum;	/* instruction size quantum: 1 amd64, 4 arm64 */
	uint64_t text_start;	/* as used to compute entries */
	size_t nfuncs;
	struct pclntab_func *funcs;	/* sorted by entry */
	const uint8_t *data;	/* the buffer parsed */
	size_t size;
	size_t func_base;	/* offset of the _func records: funcoff
				 * counts from here */
};

/*
 * Parse the table in DATA. TEXT_START is the address of runtime.text (or of
 * .text for internally linked binaries), used when the header holds 0
 * (Go 1.26+); pass 0 when unknown. Returns 0, or -EINVAL with a reason for
 * a table that is not pclntab, is 32-bit, or is truncated or corrupt.
 */
int pclntab__parse(const uint8_t *data, size_t size, uint64_t text_start,
		   struct pclntab **out);
void pclntab__free(struct pclntab *tab);

/*
 * _func.args of function I: the bytes of its arguments and results in the
 * caller's frame under the stack ABI (ABI0), or -1 when unknown (ABI0 is
 * what it describes: for register-ABI functions it counts only the spill
 * area). Returns 0, -ERANGE for a bad I, -EINVAL for a record out of the
 * table.
 */
int pclntab__func_args(const struct pclntab *tab, size_t i, int32_t *args);

#endif
