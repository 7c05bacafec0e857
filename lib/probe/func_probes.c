// SPDX-License-Identifier: MIT
/* The probes for a pattern: matching functions and their inlined copies
 * (func_probes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "core/name_table.h"
#include "probe/func_probes.h"
#include "probe/inline_sites.h"
#include "probe/machine_code.h"
#include "probe/probe_spec.h"
#include "site/inline_ends.h"

/* The room in fp->probes and fp->refused while they are collected. */
struct probe_caps {
	size_t probes, refused;
};

/*
 * How a glob pattern reads in a binary: as the one name it equals when some
 * function or inlined copy is so named; else as the name of a generic
 * function as its source writes it, when some instantiation is so named
 * (main.(*Box).Get is then not also a glob that selects
 * main.(*MyBox).Get); else as a glob. A regular expression is read as it
 * is written, always (READ_GLOB: name_matcher__match()).
 */
enum pattern_reading {
	READ_GLOB,
	READ_WRITTEN,
	READ_EXACT,
};

static bool name_selected(const struct name_matcher *m,
			  enum pattern_reading reading, const char *name)
{
	switch (reading) {
	case READ_EXACT:
		return name_matcher__is_exact(m, name);
	case READ_WRITTEN:
		return name_matcher__is_written(m, name);
	default:
		return name_matcher__match(m, name);
	}
}

/* Does READING select some function or some inlined copy? */
static bool reading_selects(const struct go_binary *bin,
			    const struct name_matcher *m,
			    const struct inline_sites *inl,
			    enum pattern_reading reading)
{
	size_t i;

	if (reading == READ_EXACT) {
		if (go_binary__func_by_name(bin, m->pattern))
			return true;
	} else {
		for (i = 0; i < bin->nfuncs; i++)
			if (name_selected(m, reading, bin->funcs[i].name))
				return true;
	}
	for (i = 0; i < inl->n; i++)
		if (name_selected(m, reading, inl->sites[i].name))
			return true;
	return false;
}

static enum pattern_reading pattern_reading(const struct go_binary *bin,
					    const struct name_matcher *m,
					    const struct inline_sites *inl)
{
	if (m->regex)
		return READ_GLOB;
	if (reading_selects(bin, m, inl, READ_EXACT))
		return READ_EXACT;
	if (m->as_written && reading_selects(bin, m, inl, READ_WRITTEN))
		return READ_WRITTEN;
	return READ_GLOB;
}

/* Keep a site the kernel would refuse aside, for -v to list. */
static int add_refused(struct func_probes *fp, struct probe_caps *caps,
		       const struct func_probe *probe)
{
	int err;

	err = gt_ensure_mem((void **)&fp->refused, &caps->refused,
			    sizeof(*fp->refused), fp->nrefused + 1);
	if (err)
		return err;
	fp->refused[fp->nrefused++] = *probe;
	return 0;
}

static int add_probe(const struct go_binary *bin, struct func_probes *fp,
		     struct probe_caps *caps, const struct func_probe *probe)
{
	struct func_probe *p;
	int err;

	/* the kernel emulates only instructions it accepted first: no need
	 * to decode an emulated site again */
	if (!probe->site.emulated &&
	    !machine_code__probeable(bin->elf, probe->site.addr))
		return add_refused(fp, caps, probe);
	err = gt_ensure_mem((void **)&fp->probes, &caps->probes,
			    sizeof(*fp->probes), fp->n + 1);
	if (err)
		return err;
	p = &fp->probes[fp->n];
	*p = *probe;
	err = elf_file__vaddr_to_offset(bin->elf, p->site.addr, &p->offset);
	if (err)
		return gt_error(err, "%s: address 0x%llx is not in the file",
				p->name, (unsigned long long)p->site.addr);
	fp->n++;
	return 0;
}

/* Is FN the ABI wrapper of another function of the same name in
 * GROUP[0..n)? */
static int add_function(const struct go_binary *bin, const struct go_func *fn,
			struct func_probes *fp, struct probe_caps *caps)
{
	struct func_probe probe = {
		.name = fn->name,
		.func_addr = fn->addr,
	};
	int err;

	err = machine_code__probe_site(bin, fn, &probe.site);
	if (err)
		return err;
	return add_probe(bin, fp, caps, &probe);
}

static int add_functions(const struct go_binary *bin,
			 const struct name_matcher *m,
			 enum pattern_reading reading,
			 struct func_probes *fp, struct probe_caps *caps)
{
	const struct go_func **sel;
	size_t i, j, k, n = 0;
	bool *wrapper;
	int err = 0;

	sel = malloc((bin->nfuncs ? bin->nfuncs : 1) * sizeof(*sel));
	wrapper = malloc((bin->nfuncs ? bin->nfuncs : 1) * sizeof(*wrapper));
	if (!sel || !wrapper) {
		free(sel);
		free(wrapper);
		return gt_error(-ENOMEM, "out of memory");
	}
	for (i = 0; i < bin->nfuncs; i++)
		if (name_selected(m, reading, bin->funcs[i].name))
			sel[n++] = &bin->funcs[i];
	qsort(sel, n, sizeof(*sel), go_func__cmp_by_name);
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && !strcmp(sel[j]->name, sel[i]->name); j++)
			;
		err = machine_code__abi_wrappers(bin, sel + i, j - i, wrapper + i);
		for (k = i; k < j && !err; k++)
			if (!wrapper[k])
				err = add_function(bin, sel[k], fp, caps);
	}
	free(sel);
	free(wrapper);
	return err;
}

static int cmp_sites_by_caller(const void *a, const void *b)
{
	const struct inline_site *x = *(const struct inline_site *const *)a;
	const struct inline_site *y = *(const struct inline_site *const *)b;

	if (x->caller_addr != y->caller_addr)
		return x->caller_addr < y->caller_addr ? -1 : 1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

/*
 * The first instruction of each copy of INL with more than one span of
 * code (inline_ends__entry(): not always the lowest), its callers each
 * decoded once. A caller that does not decode keeps its copies' lowest
 * address: finding their ends says why it does not.
 */
static int set_entries(const struct go_binary *bin, struct inline_sites *inl)
{
	struct inline_site **v = malloc((inl->n ? inl->n : 1) * sizeof(*v));
	struct inline_ends e;
	size_t i, n = 0;
	int err = 0;

	if (!v)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < inl->n; i++)
		if (inl->sites[i].ncode > 1)
			v[n++] = &inl->sites[i];
	qsort(v, n, sizeof(*v), cmp_sites_by_caller);
	machine_code__inline_ends_init(&e, bin);
	for (i = 0; i < n && err != -ENOMEM; i++) {
		err = inline_ends__entry(&e, v[i]->caller_addr, v[i]->code,
					 v[i]->ncode, &v[i]->addr);
		gt_error_clear();
	}
	inline_ends__free(&e);
	free(v);
	return err == -ENOMEM ? gt_error(err, "out of memory") : 0;
}

static int add_inlined(const struct go_binary *bin,
		       const struct name_matcher *m,
		       enum pattern_reading reading,
		       struct inline_sites *inl, struct func_probes *fp,
		       struct probe_caps *caps)
{
	size_t i;
	int err;

	err = set_entries(bin, inl);
	if (err)
		return err;

	/* The probes point at these names: keep them after inl is freed. */
	fp->names = calloc(inl->n ? inl->n : 1, sizeof(*fp->names));
	fp->codes = calloc(inl->n ? inl->n : 1, sizeof(*fp->codes));
	if (!fp->names || !fp->codes)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < inl->n; i++) {
		struct inline_site *s = &inl->sites[i];
		struct func_probe probe = {
			.inlined = true,
			.func_addr = s->caller_addr,
			.site = {
				.addr = machine_code__once_at(bin, s->addr),
				.kind = PROBE_SITE_INLINE,
			},
		};

		if (!name_selected(m, reading, s->name))
			continue;
		fp->names[fp->nnames] = s->name;
		s->name = NULL;
		probe.name = fp->names[fp->nnames++];
		fp->codes[fp->ncodes] = s->code;
		s->code = NULL;
		probe.code = fp->codes[fp->ncodes++];
		probe.ncode = s->ncode;
		err = add_probe(bin, fp, caps, &probe);
		if (err)
			return err;
	}
	return 0;
}

/* Distinct names among the probes: what "Tracing N functions" reports. */
static int count_names(struct func_probes *fp)
{
	struct name_table names;
	size_t i;
	int err, idx;

	err = name_table__init(&names, fp->n);
	for (i = 0; i < fp->n && !err; i++) {
		idx = name_table__index(&names, fp->probes[i].name, 0);
		if (idx < 0)
			err = idx;
	}
	fp->nfuncs = names.n;
	name_table__free(&names);
	return err;
}

int func_probes__collect(const struct go_binary *bin, const char *pattern,
			 bool regex, struct func_probes *out)
{
	struct inline_sites inl = { 0 };
	struct probe_caps caps = { 0 };
	enum pattern_reading reading;
	struct name_matcher m;
	int err;

	memset(out, 0, sizeof(*out));
	err = name_matcher__init(&m, pattern, regex);
	if (err)
		return err;
	err = inline_sites__find(bin, &m, &inl);
	if (err)
		goto out;
	reading = pattern_reading(bin, &m, &inl);
	err = add_functions(bin, &m, reading, out, &caps);
	if (!err)
		err = add_inlined(bin, &m, reading, &inl, out, &caps);
	if (!err)
		err = count_names(out);
	if (!err) {
		out->rejected_trees = inl.rejected;
		out->nrejected_trees = inl.nrejected;
		inl.rejected = NULL;
		inl.nrejected = 0;
	}
out:
	inline_sites__free(&inl);
	name_matcher__free(&m);
	if (err)
		func_probes__free(out);
	return err;
}

int func_probes__find(const struct go_binary *bin, const char *path,
		      const char *pattern, bool regex, struct func_probes *out)
{
	int err;

	err = func_probes__collect(bin, pattern, regex, out);
	if (err)
		return err;
	if (out->n == 0 && out->nrefused)
		return gt_error(-ENOTSUP, "the kernel cannot probe the instructions of '%s' in %s",
				pattern, path);
	if (out->n == 0)
		return gt_error(-ENOENT, "no functions match '%s' in %s",
				pattern, path);
	return 0;
}

/* Functions first, then copies by caller and address; FP's probes. */
static int cmp_by_caller(const void *a, const void *b, void *fp)
{
	const struct func_probes *ordered = fp;
	const struct func_probe *x = &ordered->probes[*(const size_t *)a];
	const struct func_probe *y = &ordered->probes[*(const size_t *)b];
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (x->inlined != y->inlined)
		return x->inlined - y->inlined;
	if (!x->inlined)
		return (i > j) - (i < j);
	if (x->func_addr != y->func_addr)
		return x->func_addr < y->func_addr ? -1 : 1;
	if (x->site.addr != y->site.addr)
		return x->site.addr < y->site.addr ? -1 : 1;
	return (i > j) - (i < j);
}

int func_probes__order_by_caller(const struct func_probes *fp, size_t **order)
{
	size_t i;

	*order = malloc((fp->n ? fp->n : 1) * sizeof(**order));
	if (!*order)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < fp->n; i++)
		(*order)[i] = i;
	qsort_r(*order, fp->n, sizeof(**order), cmp_by_caller, (void *)fp);
	return 0;
}

void func_probes__free(struct func_probes *fp)
{
	size_t i;

	for (i = 0; i < fp->nnames; i++)
		free(fp->names[i]);
	free(fp->names);
	for (i = 0; i < fp->ncodes; i++)
		free(fp->codes[i]);
	free(fp->codes);
	free(fp->probes);
	free(fp->refused);
	for (i = 0; i < fp->nrejected_trees; i++)
		free(fp->rejected_trees[i].reason);
	free(fp->rejected_trees);
	memset(fp, 0, sizeof(*fp));
}
