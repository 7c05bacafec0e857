// SPDX-License-Identifier: MIT
/* The last failure's message, beside the negative errno every function
 * returns (error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"

static __thread char last_error[512];

/* Formatted aside first: the arguments may include gt_last_error(), to
 * prefix the reason with context. */
int gt_error(int err_no, const char *fmt, ...)
{
	char buf[sizeof(last_error)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(last_error, buf, sizeof(last_error));
	return err_no;
}

const char *gt_last_error(void)
{
	return last_error[0] ? last_error : "unknown error";
}

void gt_error_clear(void)
{
	last_error[0] = '\0';
}
