/* SPDX-License-Identifier: MIT */
/* A function's code, as every machine's decoder reads it. */
#ifndef GOTOOLS_SITE_FUNC_CODE_H
#define GOTOOLS_SITE_FUNC_CODE_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"

/*
 * FN's code into *CODE (the binary's memory), *LEN bytes: its size when
 * known, else up to the next function (go_binary__func_span()), or as much
 * as its segment holds. Returns 0, or a negative errno with a reason
 * naming FN. Whether the code is of the machine the caller decodes is the
 * caller's to check.
 */
int func_code__read(const struct go_binary *bin, const struct go_func *fn,
		    const uint8_t **code, size_t *len);

#endif
