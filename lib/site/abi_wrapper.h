/* SPDX-License-Identifier: MIT */
/*
 * ABI wrappers. Since Go 1.17 a function can exist twice under one name:
 * its body, and a small wrapper in the other ABI (ABI0 <-> ABIInternal)
 * that calls the body (.symtab names one of them NAME.abi0; pclntab names
 * both alike). A call through the wrapper runs both, so only the body may
 * be probed, or such calls count twice. The rule is the same on every
 * machine; each machine's decoder gives the branches it is read from
 * (x86_disasm__branch_targets(), arm64_disasm__branch_targets()).
 */
#ifndef GOTOOLS_SITE_ABI_WRAPPER_H
#define GOTOOLS_SITE_ABI_WRAPPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"

/* Wrappers are a few instructions: only this much of a function's code
 * is read. */
#define ABI_WRAPPER_MAX_BYTES	512

/* The targets of the direct calls and jumps in the first WINDOW bytes of
 * FN's code, in order, into TARGETS (at most MAX, *N of them). Returns 0,
 * or a negative errno when the code cannot be read. */
typedef int (*branch_targets_fn)(const struct go_binary *bin,
				 const struct go_func *fn, size_t window,
				 uint64_t *targets, size_t max, size_t *n);

/*
 * Which of the N functions of GROUP, which share a name, are wrappers:
 * WRAPPER[i] is set when the code of GROUP[i] calls or jumps to the entry
 * of another member, as TARGETS_OF reads it. Each member's code is decoded
 * once, so a name that many functions share (Go 1.19 names every
 * type..eq.[N]string alike) costs no more than as many distinct names.
 * Returns 0, or a negative errno when a member's code cannot be read.
 */
int abi_wrapper__mark(const struct go_binary *bin,
		      const struct go_func *const *group, size_t n,
		      branch_targets_fn targets_of, bool *wrapper);

#endif
