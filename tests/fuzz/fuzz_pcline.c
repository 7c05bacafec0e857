// SPDX-License-Identifier: MIT
/*
 * pcline__frames over pclntab__parse on arbitrary bytes, and spliced into
 * a valid Go 1.20+ table with files, lines and an inline tree
 * (pclntab_input.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/pcline.h"
#include "pclntab_input.h"

#define MAX_FUNCS	64
#define MAX_PCS	512	/* per function */

static void run(const struct pclntab *tab, const struct pclntab_funcdata *fd)
{
	struct pcline_frame fr[8];
	struct pcline *p;
	uint64_t pc, end;
	size_t i, j, n, sum = 0;

	if (pcline__open_pclntab(tab, fd, &p))
		return;
	for (i = 0; i < tab->nfuncs && i < MAX_FUNCS; i++) {
		end = tab->funcs[i].end - tab->funcs[i].entry > MAX_PCS ?
		      tab->funcs[i].entry + MAX_PCS : tab->funcs[i].end;
		for (pc = tab->funcs[i].entry; pc < end; pc++) {
			if (pcline__frames(p, pc, fr, 8, &n))
				continue;
			/* Read every string, so that ASan sees a bad one. */
			for (j = 0; j < n; j++)
				sum += strlen(fr[j].func) + strlen(fr[j].file);
		}
	}
	(void)sum;
	pcline__close(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pclntab_input__run(data, size, run);
	return 0;
}
