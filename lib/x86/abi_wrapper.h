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

/* Is FN a wrapper of BODY: does FN's code call or jump to BODY's entry?
 * Sets *is_wrapper; returns 0, or a negative errno when FN's code cannot be
 * read or disassembled. */
int abi_wrapper__calls(const struct go_binary *bin, const struct go_func *fn,
		       const struct go_func *body, bool *is_wrapper);

#endif
