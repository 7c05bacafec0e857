// SPDX-License-Identifier: MIT
/*
 * Inlined copies of Go functions, from DW_TAG_inlined_subroutine (the
 * walk is go_dwarf__walk_inlines()), or from the pclntab inline tree when
 * the binary has no DWARF.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_dwarf.h"
#include "probe/inline_sites.h"
#include "gobin/pclntab_inline.h"

/* A search for the sites of a pattern, in DWARF or in the pclntab. */
struct walk {
	const struct name_matcher *m;
	struct inline_sites *out;
	size_t cap;
};

/* Go writes the full name (fmt.Println) on the abstract subprogram; C
 * compilers may chain origins, which dwarf_diename() follows. */
static const char *origin_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &attr) ||
	    !dwarf_formref_die(&attr, &origin))
		return NULL;
	return dwarf_diename(&origin);
}

/* Add a site; it owns CODE, freed here if it cannot be added. */
static int add_site(struct walk *w, const char *name, uint64_t addr,
		    uint64_t caller_addr, struct code_span *code, size_t ncode)
{
	struct inline_sites *out = w->out;
	struct inline_site *s;
	int err;

	err = gt_ensure_mem((void **)&out->sites, &w->cap, sizeof(*out->sites),
			    out->n + 1);
	if (err) {
		free(code);
		return err;
	}
	s = &out->sites[out->n];
	s->name = strdup(name);
	if (!s->name) {
		free(code);
		return gt_error(-ENOMEM, "out of memory");
	}
	s->addr = addr;
	s->caller_addr = caller_addr;
	s->code = code;
	s->ncode = ncode;
	out->n++;
	return 0;
}

/* The site of the inlined copy DIE, if W's pattern selects it. */
static int dwarf_site(void *ctx, Dwarf_Die *die, uint64_t caller_addr)
{
	struct walk *w = ctx;
	struct code_span *code;
	const char *name;
	uint64_t addr = 0;
	size_t ncode;
	int err;

	name = origin_name(die);
	if (!name)
		return 0;	/* nothing a pattern could select */
	if (!name_matcher__match(w->m, name) &&
	    !name_matcher__is_exact(w->m, name))
		return 0;
	err = go_dwarf__inline_entry(die, &addr);
	if (err == -ENOENT)
		return 0;
	if (!err)
		err = go_dwarf__inline_code(die, &code, &ncode);
	if (err)
		return err;
	return add_site(w, name, addr, caller_addr, code, ncode);
}

static int cmp_sites(const void *a, const void *b)
{
	const struct inline_site *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sort by name and address; one site per name and address. */
static void sort_unique(struct inline_sites *s)
{
	size_t i, n = 0;

	if (!s->n)
		return;
	qsort(s->sites, s->n, sizeof(*s->sites), cmp_sites);
	for (i = 1; i < s->n; i++) {
		if (cmp_sites(&s->sites[n], &s->sites[i]) == 0) {
			free(s->sites[i].name);
			free(s->sites[i].code);
		} else
			s->sites[++n] = s->sites[i];
	}
	s->n = n + 1;
}

static int pclntab_site(void *ctx, const struct pclntab_inline_call *c)
{
	struct walk *w = ctx;
	struct code_span *code;
	size_t ncode;
	int err;

	if (!name_matcher__match(w->m, c->name) &&
	    !name_matcher__is_exact(w->m, c->name))
		return 0;
	err = pclntab_inline_call__code(c, &code, &ncode);
	if (err)
		return err;
	return add_site(w, c->name, c->pc, c->caller_entry, code, ncode);
}

/*
 * Might the rejected tree of function I hold a copy that W's pattern
 * selects? Its records are nodes 0 to the highest inline index its PCs
 * hold (a parent comes before its children): yes when one of them names
 * a selected function or cannot be read, or the index table cannot.
 */
static bool tree_may_match(const struct go_binary *bin,
			   const struct pclntab_funcdata *fd, size_t i,
			   const struct walk *w)
{
	const struct pclntab *tab = bin->pclntab;
	struct pclntab_inltree tree;
	struct pclntab_pcvalue it;
	const char *name;
	int32_t node, last = -1, parent_pc;
	int err;

	err = pclntab__func_inltree(tab, i, fd, &tree);
	if (err)
		return err < 0;
	pclntab_pcvalue__init(&it, tab, i, tree.index);
	while ((err = pclntab_pcvalue__next(&it)) > 0)
		if (it.val > last)
			last = it.val;
	if (err)
		return true;
	for (node = 0; node <= last; node++) {
		if (pclntab__inlined_call(tab, i, fd, &tree, node, &name,
					  &parent_pc) ||
		    name_matcher__match(w->m, name) ||
		    name_matcher__is_exact(w->m, name))
			return true;
	}
	return false;
}

/* Leave function I out, with the reason its tree was rejected, when its
 * tree might hold a site of the pattern. */
static int add_rejected(const struct go_binary *bin,
			const struct pclntab_funcdata *fd, size_t i,
			struct walk *w)
{
	const struct pclntab_func *f = &bin->pclntab->funcs[i];
	struct inline_sites *out = w->out;
	char *reason;
	int err;

	reason = strdup(gt_last_error());
	if (!reason)
		return gt_error(-ENOMEM, "out of memory");
	if (!tree_may_match(bin, fd, i, w)) {
		free(reason);
		return 0;
	}
	err = gt_ensure_mem((void **)&out->rejected, &out->rejected_cap,
			    sizeof(*out->rejected), out->nrejected + 1);
	if (err) {
		free(reason);
		return err;
	}
	out->rejected[out->nrejected++] = (struct inline_rejected){
		f->name, f->entry, reason,
	};
	return 0;
}

/*
 * Without DWARF (-ldflags=-s -w) the pclntab keeps the inline tree. A
 * binary whose funcdata cannot be located (no pclntab, Go < 1.12) has no
 * sites, as without DWARF before. A function whose tree is rejected
 * (-EBADMSG) is left out: its tree is its own, and the others still hold.
 */
static int find_in_pclntab(const struct go_binary *bin, struct walk *w)
{
	struct pclntab_funcdata fd;
	size_t i;
	int err;

	err = pclntab_funcdata__init(&fd, bin);
	if (err == -ENOENT || err == -ENOTSUP) {
		gt_error_clear();
		return 0;
	}
	for (i = 0; !err && i < bin->pclntab->nfuncs; i++) {
		err = pclntab__inline_calls(bin->pclntab, i, &fd, pclntab_site,
					    w);
		if (err == -EBADMSG)
			err = add_rejected(bin, &fd, i, w);
	}
	if (!err)
		gt_error_clear();
	return err;
}

int inline_sites__find(const struct go_binary *bin,
		       const struct name_matcher *m,
		       struct inline_sites *out)
{
	struct walk w = { .m = m, .out = out };
	Dwarf *dw;
	int err;

	memset(out, 0, sizeof(*out));
	err = go_binary__dwarf(bin, &dw);
	if (err == -ENOENT) {
		gt_error_clear();
		err = find_in_pclntab(bin, &w);
	} else if (!err) {
		/*
		 * Every unit, where go_dwarf's index of copies takes the Go
		 * ones only: a pattern may select a C function of a cgo
		 * binary, whose copies are probed as Go's are (gotrace
		 * prints their arguments <optimized out>: go_dwarf reads
		 * locations by gc's rules alone).
		 */
		err = go_dwarf__walk_inlines(bin, GO_DWARF_ALL_UNITS,
					     dwarf_site, &w);
	}
	if (err) {
		inline_sites__free(out);
		return err;
	}
	sort_unique(out);
	return 0;
}

void inline_sites__free(struct inline_sites *sites)
{
	size_t i;

	for (i = 0; i < sites->n; i++) {
		free(sites->sites[i].name);
		free(sites->sites[i].code);
	}
	free(sites->sites);
	for (i = 0; i < sites->nrejected; i++)
		free(sites->rejected[i].reason);
	free(sites->rejected);
	memset(sites, 0, sizeof(*sites));
}
