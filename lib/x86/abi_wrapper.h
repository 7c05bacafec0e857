/* SPDX-License-Identifier: MIT */
/*
 * ABI wrappers. Since Go 1.17 a function can exist twice under one name:
 * its body, and a small wrapper in the other ABI (ABI0 <-> ABIInternal)
 * that calls the body (.symtab names one of them NAME.abi0; pclntab names
 * both alike). A call through the wrapper runs both, so only the body may
 * be probed, or such calls count twice.
 */
#ifndef GOTOOLS_ABI_WRAPPER_H
#define GOTOOLS_ABI_WRAPPER_H

#include <stdbool.h>
#include <stdint.h>
#include "gobin/go_binary.h"

/*
 * Which of the N functions of GROUP, which share a name, are wrappers:
 * WRAPPER[i] is set when the code of GROUP[i] calls or jumps to the entry
 * of another member. Each member's code is decoded once, so a name that
 * many functions share (Go 1.19 names every type..eq.[N]string alike)
 * costs no more than as many distinct names. Returns 0, or a negative
 * errno when a member's code cannot be read.
 */
int abi_wrapper__mark(const struct go_binary *bin,
		      const struct go_func *const *group, size_t n,
		      bool *wrapper);

#endif
