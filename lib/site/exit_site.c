// SPDX-License-Identifier: MIT
/*
 * The sweep for a function's exits, whatever the machine (exit_site.h).
 *
 * Where to sweep. A return returns through the address on top of the
 * stack (x86-64) or in LR, which the epilogue reloads as it pops the
 * frame (arm64), so it runs where SP is what it was at entry; a tail jump
 * leaves a frame the same way. The pclntab's pcsp table, which the
 * compiler and the assembler write for Go's own unwinder, gives the frame
 * size at each PC: only the runs where it is 0 can hold an exit. They are
 * the entry block, each epilogue's return or jump and the morestack tail,
 * a small part of a function with a frame; runs begin and end at
 * instruction boundaries. Decoding is most of what planning a whole
 * binary costs: sweeping only those runs keeps it quick.
 * Only where Go's own unwinder trusts the table (pclntab__func_sp_tracked:
 * not in runtime.mcall or gogo, which switch stacks and leave at a frame
 * size the table gets wrong; not before Go 1.18, whose tables do not say).
 * A function without a trusted table (gccgo, Go 1.17 and older, one the
 * pclntab lacks, one whose table does not read) is swept whole; so is a
 * frameless one, which is 0 throughout. exit_sites__find_known() steps
 * over the prologue and morestack tail besides, and a body up to its
 * first exit, which choosing the counting site has decoded already
 * (probe_site.h: no_exit). The unit tests check that every sweep agrees
 * with the whole one on every function of every fixture and third-party
 * binary.
 */
#include <stdlib.h>
#include "core/error.h"
#include "core/mem.h"
#include "gobin/pclntab.h"
#include "site/exit_site.h"

int exit_sweep__add(struct exit_sweep *s, uint64_t addr, enum exit_kind kind,
		    bool emulated)
{
	int err;

	err = gt_ensure_mem((void **)&s->v, &s->cap, sizeof(*s->v), s->n + 1);
	if (err)
		return err;
	s->v[s->n].addr = addr;
	s->v[s->n].kind = kind;
	s->v[s->n].emulated = emulated;
	s->n++;
	return 0;
}

void exit_sweep__skip_known(const struct exit_sweep *s, const uint8_t **p,
			    size_t *left, uint64_t *addr)
{
	size_t i, d;

	for (i = 0; i < s->nknown; i++) {
		if (s->known[i].from != *addr || s->known[i].to <= *addr)
			continue;
		d = s->known[i].to - *addr;
		if (d > *left)
			d = *left;
		*p += d;
		*left -= d;
		*addr += d;
	}
}

/* A run of code, as offsets from the function's entry. */
struct run {
	size_t from, to;
};

/*
 * The runs of S's code where its pcsp table says the frame size is 0
 * (see the top), into *RUNS (malloc()ed). 0 and *N = 0 when the whole
 * body is to be swept: no trusted table, or one that does not read or
 * stops short of the padding.
 */
static int entry_sp_runs(const struct go_binary *bin,
			 const struct exit_sweep *s, struct run **runs,
			 size_t *n)
{
	const struct pclntab *tab = bin->pclntab;
	const struct go_func *fn = s->fn;
	struct pclntab_func_tables t;
	struct pclntab_pcvalue it;
	size_t cap = 0, covered = 0, from, to;
	long i;
	int err;

	*runs = NULL;
	*n = 0;
	if (!tab)
		return 0;
	i = pclntab__func_index(tab, fn->addr);
	if (i < 0 || tab->funcs[i].entry != fn->addr ||
	    !pclntab__func_sp_tracked(tab, (size_t)i) ||
	    pclntab__func_tables(tab, (size_t)i, &t) || !t.pcsp)
		goto whole;
	pclntab_pcvalue__init(&it, tab, (size_t)i, t.pcsp);
	while ((err = pclntab_pcvalue__next(&it)) > 0) {
		if (it.pc < fn->addr || it.end > fn->addr + s->len ||
		    it.pc > it.end)
			goto whole;
		covered = it.end - fn->addr;
		if (it.val != 0 || it.pc == it.end)
			continue;
		from = it.pc - fn->addr;
		to = it.end - fn->addr;
		if (*n && (*runs)[*n - 1].to == from) {
			(*runs)[*n - 1].to = to;
			continue;
		}
		err = gt_ensure_mem((void **)runs, &cap, sizeof(**runs), *n + 1);
		if (err)
			return err;
		(*runs)[(*n)++] = (struct run){ from, to };
	}
	/* a table that ends short of the code leaves the rest unknown */
	if (err < 0 || !*n || covered < s->end)
		goto whole;
	return 0;
whole:
	gt_error_clear();
	free(*runs);
	*runs = NULL;
	*n = 0;
	return 0;
}

int exit_sweep__run(const struct go_binary *bin, struct exit_sweep *s,
		    bool whole, exit_sweep_fn sweep,
		    struct exit_site **sites, size_t *n)
{
	struct run *runs = NULL;
	size_t nruns = 0, i;
	int err = 0;

	*sites = NULL;
	*n = 0;
	if (!whole)
		err = entry_sp_runs(bin, s, &runs, &nruns);
	if (!err && !nruns)
		err = sweep(s, 0, s->len);
	for (i = 0; i < nruns && !err; i++)
		err = sweep(s, runs[i].from, runs[i].to);
	free(runs);
	if (err) {
		free(s->v);
		s->v = NULL;
		s->n = 0;
		return err;
	}
	/* The sweeps found them in address order. */
	*sites = s->v;
	*n = s->n;
	return 0;
}

const char *exit_kind__str(enum exit_kind kind)
{
	switch (kind) {
	case EXIT_RET:
		return "ret";
	case EXIT_TAIL_JMP:
		return "tail jmp";
	default:
		return "end of inlined copy";
	}
}
