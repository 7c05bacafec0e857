/* SPDX-License-Identifier: MIT */
/*
 * One message describing the last failure of a library call.
 *
 * Library functions return 0 or a negative errno; when they fail they also
 * record a one-line, human-readable reason here ("not an ELF file: x"),
 * which the tools print as "TOOL: MESSAGE".
 */
#ifndef GOTOOLS_ERROR_H
#define GOTOOLS_ERROR_H

/* Record the reason for a failure; returns -err_no so callers can write
 * `return gt_error(-ENOENT, "no such file: %s", path);`. */
int gt_error(int err_no, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The last recorded reason, or strerror() of nothing if none. */
const char *gt_last_error(void);

/* Forget the last recorded reason. */
void gt_error_clear(void);

#endif
