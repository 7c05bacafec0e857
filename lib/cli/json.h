/* SPDX-License-Identifier: MIT */
/* Writing JSON lines (-j). */
#ifndef GOTOOLS_JSON_H
#define GOTOOLS_JSON_H

#include <stdio.h>

/* Print S as a JSON string, quoted and escaped. */
void json_print_string(FILE *f, const char *s);

#endif
