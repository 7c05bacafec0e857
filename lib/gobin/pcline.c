// SPDX-License-Identifier: MIT
/*
 * Source positions of PCs from the pclntab, as the Go runtime finds them
 * (runtime/symtab.go funcline1, runtime/symtabinl.go inlineUnwinder):
 * pcfile and pcln give the file and line of the innermost code at a PC,
 * PCDATA_InlTreeIndex the innermost inlined call it belongs to. The call
 * site of inlined call N is the position of the instruction at entry +
 * N.parentPc, whose inline index is N's parent; its frame goes on from
 * there until an index of -1, the function itself. A tree that
 * pclntab__inline_calls() rejects (one on which the runtime would loop) is
 * not walked: PCs in its inlined code get the function's frame alone,
 * at an unknown position.
 *
 * The three tables of a function are decoded once, when it is first asked
 * about, into one sorted array of rows, so that each later PC costs a
 * binary search for the function and one for the row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "gobin/pcline.h"
#include "gobin/pcline_dwarf.h"

/* PCs [pc, next row's pc) with one file, line and inline index. */
struct row {
	uint64_t pc;
	const char *file;	/* "?" when unknown */
	int32_t line;		/* 0 when unknown */
	int32_t inl;		/* innermost inlined call, -1: none */
};

/* The decoded tables of one function. */
struct func_rows {
	struct pclntab_inltree tree;
	bool has_tree;
	bool rejected;		/* its tree: inlined code has no frames */
	uint64_t end;		/* of the last row; PCs after it have no
				 * position (alignment padding) */
	size_t n;
	struct row rows[];
};

struct pcline {
	const struct pclntab *tab;
	const struct pclntab_funcdata *fd;	/* NULL: no inlined calls */
	struct pclntab_funcdata own_fd;
	struct func_rows **rows;	/* by function index, once asked */
	struct pcline_dwarf *dwarf;	/* instead of all of the above */
};

/* One decoded pc-value table: runs [pc, end) of one value, contiguous
 * from the entry, empty ones left out. */
struct run {
	uint64_t pc, end;
	int32_t val;
};

struct runs {
	struct run *v;
	size_t n, k;		/* k: the run a merge has reached */
};

static int decode(const struct pclntab *tab, size_t i, size_t off,
		  struct runs *out)
{
	struct pclntab_pcvalue it;
	size_t cap = 0;
	int ret, err;

	pclntab_pcvalue__init(&it, tab, i, off);
	while ((ret = pclntab_pcvalue__next(&it)) > 0) {
		if (it.pc == it.end)
			continue;
		err = gt_ensure_mem((void **)&out->v, &cap, sizeof(*out->v),
				    out->n + 1);
		if (err)
			return err;
		out->v[out->n++] = (struct run){ it.pc, it.end, it.val };
	}
	return ret;
}

/* The value of R at PC, which never goes back between calls. */
static int32_t value_at(struct runs *r, uint64_t pc)
{
	while (r->k < r->n && r->v[r->k].end <= pc)
		r->k++;
	return r->k < r->n && r->v[r->k].pc <= pc ? r->v[r->k].val : -1;
}

/* Where the value of R next changes after PC (value_at called first). */
static uint64_t next_change(const struct runs *r, uint64_t pc)
{
	if (r->k == r->n)
		return UINT64_MAX;
	return r->v[r->k].pc <= pc ? r->v[r->k].end : r->v[r->k].pc;
}

/* The name of file FILENO of function I, "?" when unknown. */
static int file_name(const struct pclntab *tab, size_t i, int32_t fileno,
		     const char **name)
{
	int err = pclntab__file_name(tab, i, fileno, name);

	if (err == -ENOENT) {
		*name = "?";
		return 0;
	}
	return err;
}

/*
 * Merge the file, line and inline-index runs of function I into rows,
 * one wherever any of them changes. A position with an unknown file or
 * line is unknown as a whole, as in funcline1.
 */
static int merge(const struct pclntab *tab, size_t i, struct runs t[3],
		 struct func_rows **out)
{
	uint64_t pc = tab->funcs[i].entry, end = pc, next;
	struct func_rows *fr;
	int32_t fileno, line, inl, last_fileno = -1;
	const char *file = "?";
	size_t k, n = 0;
	int err;

	for (k = 0; k < 3; k++) {
		if (t[k].n && t[k].v[t[k].n - 1].end > end)
			end = t[k].v[t[k].n - 1].end;
		n += t[k].n;
	}
	/* each row but the first starts where some run ends */
	fr = calloc(1, sizeof(*fr) + (n + 1) * sizeof(fr->rows[0]));
	if (!fr)
		return gt_error(-ENOMEM, "out of memory");
	fr->end = end;
	for (; pc < end; pc = next) {
		fileno = value_at(&t[0], pc);
		line = value_at(&t[1], pc);
		inl = value_at(&t[2], pc);
		next = next_change(&t[0], pc);
		for (k = 1; k < 3; k++)
			if (next_change(&t[k], pc) < next)
				next = next_change(&t[k], pc);
		if (fileno < 0 || line < 0) {
			fileno = -1;
			line = 0;
			file = "?";
		} else if (fileno != last_fileno) {
			err = file_name(tab, i, fileno, &file);
			if (err) {
				free(fr);
				return err;
			}
		}
		last_fileno = fileno;
		if (fr->n && fr->rows[fr->n - 1].file == file &&
		    fr->rows[fr->n - 1].line == line &&
		    fr->rows[fr->n - 1].inl == inl)
			continue;
		fr->rows[fr->n++] = (struct row){ pc, file, line, inl };
	}
	*out = fr;
	return 0;
}

static int no_call(void *ctx, const struct pclntab_inline_call *call)
{
	return 0;
}

/*
 * Find the inline tree of function I and check it with
 * pclntab__inline_calls(), as inline_sites does: *HAS_TREE when its index
 * table is there to decode, *REJECTED when the tree is not to be walked.
 * Returns 0 or a negative errno.
 */
static int find_tree(const struct pcline *p, size_t i,
		     struct pclntab_inltree *tree, bool *has_tree,
		     bool *rejected)
{
	int err;

	err = pclntab__func_inltree(p->tab, i, p->fd, tree);
	*has_tree = err == 0;
	if (!err)
		err = pclntab__inline_calls(p->tab, i, p->fd, no_call, NULL);
	*rejected = err == -EBADMSG;
	if (err == 1 || err == -EBADMSG) {
		gt_error_clear();
		err = 0;
	}
	return err;
}

/* Decode the tables of function I. */
static int decode_func(const struct pcline *p, size_t i,
		       struct func_rows **out)
{
	struct pclntab_func_tables ft;
	struct pclntab_inltree tree = { 0 };
	struct runs t[3] = { { 0 } };
	bool has_tree = false, rejected = false;
	size_t k;
	int err;

	err = pclntab__func_tables(p->tab, i, &ft);
	if (!err && p->fd)
		err = find_tree(p, i, &tree, &has_tree, &rejected);
	if (!err)
		err = decode(p->tab, i, ft.pcfile, &t[0]);
	if (!err)
		err = decode(p->tab, i, ft.pcln, &t[1]);
	if (!err && has_tree) {
		err = decode(p->tab, i, tree.index, &t[2]);
		/* a rejected tree whose inlined code cannot be told */
		if (err == -EINVAL && rejected) {
			gt_error_clear();
			free(t[2].v);
			t[2] = (struct runs){ 0 };
			has_tree = false;
			err = 0;
		}
	}
	if (!err)
		err = merge(p->tab, i, t, out);
	if (!err) {
		(*out)->tree = tree;
		(*out)->has_tree = has_tree;
		(*out)->rejected = rejected;
	}
	for (k = 0; k < 3; k++)
		free(t[k].v);
	return err;
}

/* The row holding PC, or NULL past the end of the tables. */
static const struct row *row_at(const struct func_rows *fr, uint64_t pc)
{
	size_t lo = 0, hi = fr->n;

	if (pc >= fr->end)
		return NULL;
	/* the last row whose pc is <= PC */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fr->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &fr->rows[lo - 1] : NULL;
}

static void put_frame(struct pcline_frame *f, const char *func,
		      const struct row *r, bool inlined, uint64_t entry)
{
	f->func = func;
	f->file = r ? r->file : "?";
	f->line = r ? r->line : 0;
	f->inlined = inlined;
	f->func_entry = entry;
}

/*
 * Walk from the innermost inlined call at PC out to the function, as the
 * runtime's inlineUnwinder does: the next frame is at entry + parentPc,
 * taken as the entry when negative, and at no known position past the
 * tables. The tree has been checked for cycles; MAX bounds the walk all
 * the same.
 */
static int pclntab_frames(struct pcline *p, uint64_t pc,
			  struct pcline_frame *out, size_t max, size_t *n)
{
	const struct pclntab_func *f;
	const struct func_rows *fr;
	const struct row *r;
	const char *name;
	int32_t inl, parent_pc;
	long i;
	int err;

	i = pclntab__func_index(p->tab, pc);
	if (i < 0)
		return gt_error(-ENOENT, "no function at %#llx",
				(unsigned long long)pc);
	if (!p->rows[i]) {
		err = decode_func(p, (size_t)i, &p->rows[i]);
		if (err)
			return err;
	}
	f = &p->tab->funcs[i];
	fr = p->rows[i];
	r = row_at(fr, pc);
	inl = r && fr->has_tree ? r->inl : -1;
	/* in the inlined code of a rejected tree, or anywhere in its
	 * function when its index table could not be read either */
	if (fr->rejected && (inl >= 0 || !fr->has_tree)) {
		inl = -1;
		r = NULL;
	}
	while (inl >= 0 && *n < max) {
		err = pclntab__inlined_call(p->tab, (size_t)i, p->fd,
					    &fr->tree, inl, &name, &parent_pc);
		if (err)
			return err;
		put_frame(&out[(*n)++], name, r, true, f->entry);
		r = row_at(fr, f->entry +
			   (parent_pc < 0 ? 0 : (uint64_t)parent_pc));
		inl = r ? r->inl : -1;
	}
	if (*n < max)
		put_frame(&out[(*n)++], f->name, r, false, f->entry);
	return 0;
}

int pcline__frames(struct pcline *p, uint64_t pc, struct pcline_frame *out,
		   size_t max, size_t *n)
{
	*n = 0;
	if (p->dwarf)
		return pcline_dwarf__frames(p->dwarf, pc, out, max, n);
	return pclntab_frames(p, pc, out, max, n);
}

int pcline__open_pclntab(const struct pclntab *tab,
			 const struct pclntab_funcdata *fd,
			 struct pcline **out)
{
	struct pcline *p;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (p)
		p->rows = calloc(tab->nfuncs, sizeof(*p->rows));
	if (!p || !p->rows) {
		free(p);
		return gt_error(-ENOMEM, "out of memory");
	}
	p->tab = tab;
	if (fd) {
		p->own_fd = *fd;
		p->fd = &p->own_fd;
	}
	*out = p;
	return 0;
}

int pcline__open_dwarf(const struct go_binary *bin, struct pcline **out)
{
	struct pcline *p;
	int err;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return gt_error(-ENOMEM, "out of memory");
	err = pcline_dwarf__open(bin, &p->dwarf);
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	return 0;
}

int pcline__open(const struct go_binary *bin, struct pcline **out)
{
	struct pclntab_funcdata fd;
	int err;

	*out = NULL;
	if (!bin->pclntab) {
		err = pcline__open_dwarf(bin, out);
		if (err == -ENOENT)
			return gt_error(-ENOENT, "%s has neither a pclntab nor "
					"DWARF line info", bin->elf->path);
		return err;
	}
	err = pclntab_funcdata__init(&fd, bin);
	if (err == -ENOTSUP)
		gt_error_clear();
	else if (err)
		return err;
	return pcline__open_pclntab(bin->pclntab, err ? NULL : &fd, out);
}

void pcline__close(struct pcline *p)
{
	size_t i;

	if (!p)
		return;
	if (p->rows)
		for (i = 0; i < p->tab->nfuncs; i++)
			free(p->rows[i]);
	free(p->rows);
	pcline_dwarf__close(p->dwarf);
	free(p);
}
