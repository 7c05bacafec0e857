/* SPDX-License-Identifier: MIT */
/*
 * Where a function of arm64 code is left (site/exit_site.h): every RET of
 * its body, every B to an address outside the function (a tail call), and
 * every BR but a jump table's. The twin of x86/exit_sites.h.
 */
#ifndef GOTOOLS_ARM64_EXIT_SITES_H
#define GOTOOLS_ARM64_EXIT_SITES_H

#include <stddef.h>
#include "gobin/go_binary.h"
#include "site/exit_site.h"
#include "site/probe_site.h"

/*
 * The exits of FN, sorted by address, into a malloc()ed array; n = 0 for
 * a function that never returns. SITE, FN's counting site
 * (arm64/probe_site.h), or NULL: the code it was chosen from and found no
 * exit in is not decoded again. WHOLE: sweep the whole body even where the
 * pcsp table says no exit can be, what the tests check the sweep against.
 * Returns 0, or a negative errno when the code cannot be read.
 */
int arm64_exit_sites__find(const struct go_binary *bin,
			   const struct go_func *fn,
			   const struct probe_site *site, bool whole,
			   struct exit_site **sites, size_t *n);

#endif
