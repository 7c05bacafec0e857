// SPDX-License-Identifier: MIT
/*
 * pclntab__parse and pclntab__inline_calls on arbitrary bytes, and spliced
 * into a valid Go 1.20+ table with an inline tree (pclntab_input.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/pclntab_inline.h"
#include "pclntab_input.h"

#define MAX_FUNCS	64

static int touch(void *ctx, const struct pclntab_inline_call *c)
{
	size_t *sum = ctx;

	/* Read the whole name, so that ASan sees a bad pointer. */
	*sum += strlen(c->name) + (c->pc >= c->caller_entry);
	return 0;
}

static void run(const struct pclntab *tab, const struct pclntab_funcdata *fd)
{
	size_t i, sum = 0;

	for (i = 0; i < tab->nfuncs && i < MAX_FUNCS; i++)
		pclntab__inline_calls(tab, i, fd, touch, &sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pclntab_input__run(data, size, run);
	return 0;
}
