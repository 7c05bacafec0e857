/* SPDX-License-Identifier: MIT */
/* Writing JSON lines (-j). */
#ifndef GOTOOLS_JSON_H
#define GOTOOLS_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Print S as a JSON string, quoted and escaped. */
void json_print_string(FILE *f, const char *s);

/* Print the N bytes at S as a JSON string: NUL and control bytes escaped,
 * a byte that does not begin valid UTF-8 as U+FFFD (as Go's
 * encoding/json does). */
void json_print_bytes(FILE *f, const char *s, size_t n);

#endif
