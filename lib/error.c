// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include "error.h"

static __thread char last_error[512];

int gt_error(int err_no, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
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
