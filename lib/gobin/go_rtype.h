/* SPDX-License-Identifier: MIT */
/*
 * Names of Go runtime types, from the binary's own type data (which
 * survives stripping): an interface value holds the address of its
 * dynamic type's descriptor (eface._type, or itab._type at +8), and this
 * turns that address into the name Go's %T prints.
 */
#ifndef GOTOOLS_GO_RTYPE_H
#define GOTOOLS_GO_RTYPE_H

#include <stdbool.h>
#include <stdint.h>
#include "gobin/go_binary.h"

/* Where BIN's type data lives, and a cache of the names decoded so far. */
struct go_rtypes;

/*
 * Find the type data of BIN (moduledata.types .. etypes): from the symbols
 * runtime.types and runtime.etypes when there is a .symtab, else from
 * runtime.firstmoduledata (go_moduledata.h). BIN must stay open while the
 * result is used. Returns 0, -ENOTSUP with a reason for gccgo (whose type
 * descriptors differ) or a layout or version it does not know, -EINVAL
 * for a corrupt pclntab, -ENOMEM.
 */
int go_rtypes__open(const struct go_binary *bin, struct go_rtypes **out);
void go_rtypes__close(struct go_rtypes *r);

/*
 * The same over type data DATA, the bytes of [START, END), whose names
 * have uvarint lengths (VARINT, Go 1.17+) or two-byte ones; PATH names it
 * in messages. DATA and PATH must outlive the result (fuzzing, tests).
 * Returns 0 or -ENOMEM.
 */
int go_rtypes__open_data(const uint8_t *data, uint64_t start, uint64_t end,
			 bool varint, const char *path, struct go_rtypes **out);

/* Where the types are from, for messages. */
const char *go_rtypes__path(const struct go_rtypes *r);

/*
 * The name of the runtime type at virtual (file) address ADDR, as Go's %T
 * prints it: "int", "*main.counter", "[]uint8", "*errors.errorString",
 * "map[string]int". A PIE's caller subtracts the load bias first. The
 * string is owned by R and lives until go_rtypes__close(). Returns 0,
 * -ENOENT when ADDR is not a type of this binary, -EINVAL when its name
 * cannot be decoded, -ENOMEM; with a reason (error.h).
 */
int go_rtypes__name(struct go_rtypes *r, uint64_t addr, const char **name);

/* Where the type data starts (moduledata.types): DWARF's runtime type
 * offsets count from there. */
uint64_t go_rtypes__start(const struct go_rtypes *r);

/* The type data's bytes, [*START, *END) in virtual addresses. */
const uint8_t *go_rtypes__data(const struct go_rtypes *r, uint64_t *start,
			       uint64_t *end);

/* The name (runtime.name, abi.Name) whose flag byte is at ADDR in the type
 * data: its bytes *S (not NUL-terminated), *LEN of them, and its flags.
 * Returns 0 or -EINVAL when ADDR holds no name. */
int go_rtypes__name_at(const struct go_rtypes *r, uint64_t addr,
		       const uint8_t **s, size_t *len, uint8_t *flags);

/*
 * gccgo's type descriptors name their type with the package path quoted
 * between tabs ("*\tmain\tmain.myErr"); as libgo's _type.string() does,
 * copy NAME (LEN bytes) to OUT (SIZE bytes) without the quoted parts.
 */
void go_rtype__gccgo_name(const char *name, size_t len, char *out, size_t size);

#endif
