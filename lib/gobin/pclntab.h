/* SPDX-License-Identifier: MIT */
/*
 * The Go function table (.gopclntab), which survives `-ldflags=-s -w`.
 * All four layouts: Go 1.2-1.15, 1.16-1.17, 1.18-1.19, 1.20+ (and the
 * 1.26+ header whose textStart is 0). A pure parser over a byte buffer, so
 * that it can be fuzzed: it never reads outside [data, data+size).
 */
#ifndef GOTOOLS_PCLNTAB_H
#define GOTOOLS_PCLNTAB_H

#include <stdbool.h>
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
	/* Offsets from the header, checked only when used: */
	uint64_t pctab;		/* base of pc-value table offsets (0 before
				 * 1.16: they count from the table start) */
	uint64_t cutab;		/* 1.16+: file indexes of each unit */
	uint64_t filetab;	/* 1.16+: the file names; before: the file
				 * table (a count, then name offsets); 0:
				 * none */
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

/* The frame size (pcsp: SP's distance below where it was at entry) at
 * PC, into *SIZE: 0, or -ENOENT when no function or table says. */
int pclntab__frame_size_at(const struct pclntab *tab, uint64_t pc,
			   int32_t *size);

/* The index of the function whose code holds PC, or -1. */
long pclntab__func_index(const struct pclntab *tab, uint64_t pc);

/* The pc-value tables of one function, as offsets into the buffer (0: the
 * function has none), and its compilation unit. */
struct pclntab_func_tables {
	size_t pcsp;		/* frame size at each PC */
	size_t pcfile;		/* file number, for pclntab__file_name() */
	size_t pcln;		/* line number */
	/* PCDATA_UnsafePoint: where async preemption may not stop, or
	 * restarts a sequence (abi.UnsafePoint*: -1 safe, -2 unsafe, -3 and
	 * -4 restart at the run's first PC, -5 restart at the entry) */
	size_t unsafe_point;
	uint32_t cu_offset;	/* 1.16+: its unit's first entry in cutab */
};

/* The tables of function I. Returns 0, -ERANGE for a bad I, or -EINVAL
 * with a reason for a record or a table offset out of the buffer. */
int pclntab__func_tables(const struct pclntab *tab, size_t i,
			 struct pclntab_func_tables *t);

/*
 * Does function I's pcsp table say what SP is at each of its PCs, as Go's
 * own unwinder trusts it to? True for Go 1.18+ tables (the first whose
 * _func records carry flags) of a function with an ordinary funcID and
 * without funcFlag_SPWRITE: the assembler sets that flag on functions that
 * write SP other than by adding or subtracting a constant (runtime.mcall,
 * gogo, systemstack switch stacks), where the table is wrong. False where
 * not known.
 */
bool pclntab__func_sp_tracked(const struct pclntab *tab, size_t i);

/*
 * A walk over one pc-value table of a function: zigzag varint value deltas
 * from -1 and varint PC deltas (times the quantum) from the entry, as Go's
 * runtime/symtab.go step() decodes them. Each step yields a run of PCs
 * [pc, end) with value val; runs are contiguous and may be empty.
 */
struct pclntab_pcvalue {
	const struct pclntab *tab;
	const struct pclntab_func *f;
	size_t off;		/* of the next pair */
	uint64_t pc, end;	/* the current run */
	int32_t val;
};

/* Start a walk over the table at offset OFF (from pclntab__func_tables)
 * of function I, which must exist. */
void pclntab_pcvalue__init(struct pclntab_pcvalue *it,
			   const struct pclntab *tab, size_t i, size_t off);

/* Step to the next run: 1, 0 at the end of the table, or -EINVAL with a
 * reason for a table that runs off the buffer or past the function. */
int pclntab_pcvalue__next(struct pclntab_pcvalue *it);

/* The name of file FILENO (a pcfile value) of function I: 0, -ENOENT when
 * the file is unknown (-1, or no name recorded), or -EINVAL with a reason
 * for a number or name out of the table. */
int pclntab__file_name(const struct pclntab *tab, size_t i, int32_t fileno,
		       const char **name);

#endif
