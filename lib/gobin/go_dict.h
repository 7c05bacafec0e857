/* SPDX-License-Identifier: MIT */
/*
 * The dictionaries of a gc binary by address: the read-only symbols
 * PKG..dict.F[ARGS] (and PKG..dict.(*T[ARGS]).M) that calls of shape
 * instantiations are passed, whose names give the type arguments of the
 * call (gobin/go_name.h reads them). From .symtab: a stripped binary has
 * none.
 */
#ifndef GOTOOLS_GO_DICT_H
#define GOTOOLS_GO_DICT_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"

struct go_dict_sym;

struct go_dicts {
	struct go_dict_sym *syms;	/* sorted by address */
	size_t n, cap;
};

/* The dictionaries of BIN into D. Returns 0 (none is not an error), or
 * -ENOMEM with a reason; call go_dicts__free() in both cases. */
int go_dicts__load(struct go_dicts *d, const struct go_binary *bin);

/* The name of the dictionary at link-time address VADDR, or NULL. */
const char *go_dicts__name(const struct go_dicts *d, uint64_t vaddr);

void go_dicts__free(struct go_dicts *d);

#endif
