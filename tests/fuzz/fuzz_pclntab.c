// SPDX-License-Identifier: MIT
/* pclntab__parse on arbitrary bytes, with a few text start addresses. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/pclntab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t text_starts[] = { 0, 0x401000, UINT64_MAX - 4096 };
	size_t i, j;

	for (i = 0; i < sizeof(text_starts) / sizeof(text_starts[0]); i++) {
		struct pclntab *tab;
		size_t sum = 0;

		if (pclntab__parse(data, size, text_starts[i], &tab))
			continue;
		/* Touch every result, so that ASan sees a bad pointer. */
		for (j = 0; j < tab->nfuncs; j++) {
			if (tab->funcs[j].entry >= tab->funcs[j].end)
				__builtin_trap();
			sum += strlen(tab->funcs[j].name);
		}
		(void)sum;
		pclntab__free(tab);
	}
	return 0;
}
