/* SPDX-License-Identifier: MIT */
/*
 * Where a function of x86-64 code is left (site/exit_site.h): every RET
 * of its body, and every JMP to an address outside the function. Found
 * by disassembling the body with capstone.
 */
#ifndef GOTOOLS_EXIT_SITES_H
#define GOTOOLS_EXIT_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "site/exit_site.h"
#include "site/probe_site.h"

/*
 * Find the exits of FN, sorted by address, into a malloc()ed array.
 * A function with no exit at all (it never returns: runtime.goexit, a
 * `for {}` loop, a function that always panics) yields n = 0 and returns 0;
 * the caller reports it. Returns a negative errno when the code cannot be
 * read or does not decode.
 */
int exit_sites__find(const struct go_binary *bin, const struct go_func *fn,
		     struct exit_site **sites, size_t *n);

/* The same, not decoding again the code SITE, the counting site of FN
 * (site/probe_site.h), was chosen from and found no exit in. */
int exit_sites__find_known(const struct go_binary *bin,
			   const struct go_func *fn,
			   const struct probe_site *site,
			   struct exit_site **sites, size_t *n);

/* The same, sweeping the whole body even where the pcsp table says no
 * exit can be (exit_sites.c): what the tests check exit_sites__find()
 * against. */
int exit_sites__find_whole(const struct go_binary *bin,
			   const struct go_func *fn, struct exit_site **sites,
			   size_t *n);

#endif
