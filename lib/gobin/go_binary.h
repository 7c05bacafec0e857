/* SPDX-License-Identifier: MIT */
/*
 * A Go program or shared library opened for tracing: its functions (from
 * .symtab, or from .gopclntab when stripped), its Go version and ABI, and
 * the one libdw handle on its DWARF that every reader of DWARF shares.
 */
#ifndef GOTOOLS_GO_BINARY_H
#define GOTOOLS_GO_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "elf/elf_file.h"
#include "gobin/pclntab.h"

enum go_abi {
	GO_ABI_UNKNOWN,
	GO_ABI_STACK,		/* Go <= 1.16 on amd64: ABI0, g from TLS */
	GO_ABI_REGISTER,	/* Go 1.17+ amd64, 1.18+ arm64: g in R14/R28 */
	GO_ABI_C,		/* gccgo: the platform C ABI */
};

struct debug_file;

struct go_func {
	char *name;		/* as Go spells it: main.(*T).M, fmt.Println */
	uint64_t addr;		/* virtual address of the entry */
	uint64_t size;		/* bytes; 0 when unknown */
};

enum go_func_source {
	GO_FUNCS_SYMTAB,
	GO_FUNCS_PCLNTAB,
};

struct go_binary {
	struct elf_file *elf;
	struct go_func *funcs;	/* sorted by addr */
	size_t nfuncs;
	enum go_func_source source;
	char version[64];	/* "go1.21.3", or "" when unknown */
	bool is_gccgo;
	enum go_abi abi;
	struct pclntab *pclntab;	/* the parsed .gopclntab, or NULL */
	Dwarf *dwarf;		/* NULL until go_binary__dwarf() opens it */
	/* The separate debug file to take DWARF from (--debug-file); NULL:
	 * the binary's own DWARF, else one found where gdb looks. Set before
	 * the first go_binary__dwarf(). */
	const char *debug_file_name;
	struct debug_file *debug;	/* the one DWARF came from, or NULL */
	int dwarf_err;			/* why there is none, once known */
	char dwarf_why[512];
	/* funcs by name, then address: built by the first
	 * go_binary__func_by_name() */
	const struct go_func **by_name;
};

/*
 * Open PATH and read its functions and version. Fails with a one-line
 * reason when the file is not ELF, is 32-bit, is not a Go binary (no
 * pclntab, no build info, no gccgo marks) or is corrupt.
 */
int go_binary__open(const char *path, struct go_binary **out);
void go_binary__close(struct go_binary *bin);

/*
 * The libdw handle on BIN's DWARF, opened on the first call and kept until
 * go_binary__close(): every reader of DWARF shares it, and with it what
 * libdw has parsed (units, abbreviations, line tables). The DWARF of the
 * binary itself, or of its separate debug file (gobin/debug_file.h): the
 * one BIN->debug_file_name names, else one found where gdb looks when the
 * binary has none. Returns 0, -ENOENT with a reason when there is no DWARF
 * (neither .debug_info nor .zdebug_info: stripped, or built with
 * -ldflags=-w, and no debug file), or another negative errno with a reason
 * when it cannot be read. Not thread-safe.
 */
int go_binary__dwarf(const struct go_binary *bin, Dwarf **out);

/* What a reader of BIN's DWARF starts with: go_binary__dwarf() into *DW,
 * and its own state, SIZE zeroed bytes, into *OUT (the caller's to free).
 * Returns 0, go_binary__dwarf()'s errors or -ENOMEM, with a reason. */
int go_binary__dwarf_reader(const struct go_binary *bin, size_t size,
			    Dwarf **dw, void **out);

/* The function whose [addr, addr+size) contains ADDR, or NULL. */
const struct go_func *go_binary__func_at(const struct go_binary *bin,
					 uint64_t addr);

/* How many bytes of FN's code to read: its size when known, else up to the
 * next function (at most 16 MiB), else 4 KiB after the last function. */
size_t go_binary__func_span(const struct go_binary *bin,
			    const struct go_func *fn);

/* Exact lookup by name, or NULL. */
const struct go_func *go_binary__func_by_name(const struct go_binary *bin,
					      const char *name);

/* qsort()'s order of two const struct go_func *: by name, then address. */
int go_func__cmp_by_name(const void *a, const void *b);

/* Parse "go1.21.3" (also "devel go1.22-abc", "go1.18beta1") into minor
 * version 21; returns -1 when not a Go 1.x version. */
int go_version__minor(const char *version);

#endif
