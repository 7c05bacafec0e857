// SPDX-License-Identifier: MIT
/*
 * Inlined calls from the pclntab inline tree. Formats, from the Go sources
 * (runtime/runtime2.go _func, runtime/symtab.go funcdata/pcvalue/step,
 * runtime/symtabinl.go, cmd/link/internal/ld/pcln.go):
 *
 *   _func       fixed part, then pcdata [npcdata]uint32, then funcdata.
 *     1.12-1.15 entry u64, ... npcdata @32, nfuncdata u8 @39, 40 bytes;
 *               pcdata offsets from the table start; funcdata absolute
 *               pointers, 8-aligned; FUNCDATA_InlTree = 4.
 *     1.16-1.17 as 1.15 plus cuOffset: nfuncdata @43, 44 bytes; pcdata
 *               offsets from pctab; FUNCDATA_InlTree = 3 from here on.
 *     1.18-1.19 entryoff u32: npcdata @28, nfuncdata @39, 40 bytes;
 *               funcdata [nfuncdata]uint32 offsets from moduledata.gofunc,
 *               ^0 = none.
 *     1.20+     as 1.18 plus startLine: nfuncdata @43, 44 bytes.
 *   inlinedCall
 *     <= 1.19   {parent int16, funcID u8, _, file, line, func_ (name),
 *               parentPc int32}: 20 bytes.
 *     1.20+     {funcID u8, _ [3], nameOff, parentPc, startLine int32}:
 *               16 bytes; the parent is the inline index at parentPc.
 *   Names are offsets from the table start (1.15) or funcnametab (1.16+).
 *   PCDATA_InlTreeIndex = 2: a pc-value table of (zigzag value delta,
 *   pc delta / quantum) varint pairs from value -1 at the entry, ended by
 *   a zero byte.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/byteorder.h"
#include "core/error.h"
#include "core/mem.h"
#include "gobin/go_moduledata.h"
#include "gobin/pclntab_inline.h"

#define PCDATA_INLTREEINDEX	2

/* Where the parts of one table layout are. */
struct func_layout {
	size_t npcdata_at;	/* in the _func record */
	size_t nfuncdata_at;
	size_t fixed_size;	/* the record before pcdata[] */
	unsigned inltree;	/* FUNCDATA_InlTree */
	bool abs_funcdata;	/* absolute pointers before 1.18 */
	bool parent_field;	/* inlinedCall.parent before 1.20 */
	size_t call_size;	/* of one inlinedCall */
	size_t name_at;		/* in inlinedCall */
	size_t parent_pc_at;
	size_t funcs, pctab, names;	/* offsets in the table */
};

/* One stretch of PCs [start, end) with inline index VAL >= 0. */
struct pc_range {
	uint64_t start, end;
	int32_t val;
};

/* An inline-tree node and its lowest PC. */
struct node_pc {
	int32_t node;
	uint64_t pc;
};

/* The nodes seen so far: an open-addressing map from node to the range
 * whose walk up the tree first reached it. */
struct seen_slot {
	int32_t node;		/* -1: empty */
	int32_t parent;		/* parent_of() the node, read once */
	size_t range;
};

struct walk {
	const struct pclntab *tab;
	const struct func_layout *l;
	const struct pclntab_funcdata *fd;
	const struct pclntab_func *f;
	uint64_t tree;		/* address of the inlinedCall array */
	struct pc_range *ranges;
	size_t nranges, ranges_cap;
	struct node_pc *nodes;
	size_t nnodes, nodes_cap;
	struct seen_slot *seen;
	size_t seen_cap;	/* a power of two, at least 2 * nnodes */
};

/* The tree of one function is rejected: -EBADMSG, which the callers tell
 * from the errors that concern the whole table. */
static int corrupt(const struct pclntab_func *f, const char *why)
{
	return gt_error(-EBADMSG, "corrupt inline tree of %s: %s", f->name,
			why);
}

/* The _func layouts, by pclntab version. */
static const struct func_layout layouts[] = {
	[PCLNTAB_GO12] = {
		.npcdata_at = 32, .nfuncdata_at = 39, .fixed_size = 40,
		.inltree = 4, .abs_funcdata = true,
	},
	[PCLNTAB_GO116] = {
		.npcdata_at = 32, .nfuncdata_at = 43, .fixed_size = 44,
		.inltree = 3, .abs_funcdata = true,
	},
	[PCLNTAB_GO118] = {
		.npcdata_at = 28, .nfuncdata_at = 39, .fixed_size = 40,
		.inltree = 3, .abs_funcdata = false,
	},
	[PCLNTAB_GO120] = {
		.npcdata_at = 28, .nfuncdata_at = 43, .fixed_size = 44,
		.inltree = 3, .abs_funcdata = false,
	},
};

/* The inlinedCall layout (the top of this file): it changed once, in Go
 * 1.20, where the _func layouts changed at other versions. */
static void set_call_layout(struct func_layout *l, bool go120)
{
	l->parent_field = !go120;
	l->call_size = go120 ? 16 : 20;
	l->name_at = go120 ? 4 : 12;
	l->parent_pc_at = go120 ? 8 : 16;
}

/* The layout of TAB and the offsets from its header. */
static int get_layout(const struct pclntab *tab, struct func_layout *l)
{
	/* 1.18+ headers have textStart at word 2, shifting the rest */
	size_t shift = tab->version >= PCLNTAB_GO118 ? 8 : 0;

	if (tab->version < PCLNTAB_GO12 || tab->version > PCLNTAB_GO120)
		return gt_error(-EINVAL, "unknown pclntab version %d",
				tab->version);
	*l = layouts[tab->version];
	set_call_layout(l, tab->version == PCLNTAB_GO120);
	/* 1.2-1.15: everything is relative to the table start */
	if (tab->version == PCLNTAB_GO12)
		return 0;
	/* pclntab__parse has checked that the header is there */
	if (tab->size < 64 + shift)
		return gt_error(-EINVAL, "corrupt pclntab: short header");
	l->names = get_u64(tab->data + 24 + shift);
	l->pctab = get_u64(tab->data + 48 + shift);
	l->funcs = get_u64(tab->data + 56 + shift);
	if (l->names > tab->size || l->pctab > tab->size ||
	    l->funcs > tab->size)
		return gt_error(-EINVAL, "corrupt pclntab: offset out of range");
	return 0;
}

/* Read an unsigned LEB128 varint of at most 32 bits at *OFF. */
static int read_varint(const struct walk *w, size_t *off, uint32_t *v)
{
	const uint8_t *d = w->tab->data;
	uint32_t shift = 0, val = 0;
	uint8_t b;

	do {
		if (*off >= w->tab->size || shift > 28)
			return corrupt(w->f, "bad pc-value table");
		b = d[(*off)++];
		val |= (uint32_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*v = val;
	return 0;
}

static int add_range(struct walk *w, uint64_t start, uint64_t end,
		     int32_t val)
{
	int err;

	err = gt_ensure_mem((void **)&w->ranges, &w->ranges_cap,
			    sizeof(*w->ranges), w->nranges + 1);
	if (err)
		return err;
	w->ranges[w->nranges++] = (struct pc_range){ start, end, val };
	return 0;
}

/* Decode the inline-index table at OFF into the ranges of the function
 * that are inlined code (value >= 0), in PC order. A zero value delta ends
 * the table except at the entry, as in runtime step(), whose FIRST is
 * pc == entry: pairs that cover no PC may come first. */
static int decode_ranges(struct walk *w, size_t off)
{
	uint64_t pc = w->f->entry, next;
	uint32_t uvdelta, pcdelta, val = (uint32_t)-1;
	int err;

	while (pc < w->f->end) {
		if (off >= w->tab->size)
			return corrupt(w->f, "pc-value table runs off the end");
		if (w->tab->data[off] == 0 && pc != w->f->entry)
			break;
		err = read_varint(w, &off, &uvdelta);
		if (!err)
			err = read_varint(w, &off, &pcdelta);
		if (err)
			return err;
		/* zigzag, with the wrap-around of Go's int32 */
		val += -(uvdelta & 1) ^ (uvdelta >> 1);
		next = pc + (uint64_t)pcdelta * w->tab->quantum;
		if (next > w->f->end)
			return corrupt(w->f, "pc-value table past the end");
		if ((int32_t)val >= 0 && next > pc) {
			err = add_range(w, pc, next, (int32_t)val);
			if (err)
				return err;
		}
		pc = next;
	}
	return 0;
}

/* The inline index at PC: -1 when not in inlined code. */
static int32_t index_at(const struct walk *w, uint64_t pc)
{
	size_t lo = 0, hi = w->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->ranges[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < w->nranges && w->ranges[lo].start <= pc)
		return w->ranges[lo].val;
	return -1;
}

/* Point *REC at inlinedCall NODE. */
static int read_call(const struct walk *w, int32_t node, const uint8_t **rec)
{
	uint64_t at = w->tree + (uint64_t)node * w->l->call_size;

	if (at < w->tree ||
	    w->fd->read(w->fd->ctx, at, w->l->call_size, rec))
		return corrupt(w->f, "inlined call out of range");
	return 0;
}

/*
 * The parent of NODE: 1.20+ has none recorded, and the runtime takes the
 * inline index at entry + parentPc (symtabinl.go next()), which is -1
 * past the function's table and, before its entry, the table's first
 * value (symtab.go pcvalue()): taken here at the entry. Nothing keeps
 * that index from being NODE itself or one of its children:
 * collect_nodes() watches for cycles.
 */
static int parent_of(const struct walk *w, int32_t node, int32_t *parent)
{
	const uint8_t *rec;
	int32_t parent_pc;
	int err;

	err = read_call(w, node, &rec);
	if (err)
		return err;
	if (w->l->parent_field) {
		*parent = (int16_t)(rec[0] | rec[1] << 8);
	} else {
		parent_pc = (int32_t)get_u32(rec + w->l->parent_pc_at);
		*parent = index_at(w, w->f->entry +
				   (parent_pc < 0 ? 0 : (uint64_t)parent_pc));
	}
	if (*parent < 0)
		*parent = -1;
	return 0;
}

static int add_node_pc(struct walk *w, int32_t node, uint64_t pc)
{
	int err;

	err = gt_ensure_mem((void **)&w->nodes, &w->nodes_cap,
			    sizeof(*w->nodes), w->nnodes + 1);
	if (err)
		return err;
	w->nodes[w->nnodes++] = (struct node_pc){ node, pc };
	return 0;
}

static struct seen_slot *seen_slot(const struct walk *w, int32_t node)
{
	size_t i = ((uint32_t)node * 2654435761u) & (w->seen_cap - 1);

	while (w->seen[i].node >= 0 && w->seen[i].node != node)
		i = (i + 1) & (w->seen_cap - 1);
	return &w->seen[i];
}

static int seen_grow(struct walk *w)
{
	struct seen_slot *old = w->seen;
	size_t i, old_cap = w->seen_cap;

	w->seen_cap = old_cap ? old_cap * 2 : 64;
	w->seen = malloc(w->seen_cap * sizeof(*w->seen));
	if (!w->seen) {
		w->seen = old;
		w->seen_cap = old_cap;
		return gt_error(-ENOMEM, "out of memory");
	}
	for (i = 0; i < w->seen_cap; i++)
		w->seen[i].node = -1;
	for (i = 0; i < old_cap; i++)
		if (old[i].node >= 0)
			*seen_slot(w, old[i].node) = old[i];
	free(old);
	return 0;
}

static int cycle(const struct walk *w, int32_t child, int32_t node)
{
	return gt_error(-EBADMSG, "corrupt inline tree of %s: cycle of "
			"inlined calls: the call site of call %d is in call %d",
			w->f->name, child, node);
}

/*
 * Attribute the start of every range to its node and all its ancestors.
 * Ranges come in PC order, so the first range to reach a node gives its
 * lowest PC, and the walk up stops at a node already reached: each node
 * is visited once. Reaching a node twice in one walk is a cycle, on
 * which the runtime's inline unwinder would loop for ever: the tree is
 * rejected. Go writes such trees: a package initializer whose inlined
 * calls lost their inline marks to static initialization keeps parentPc
 * 0 in every record, and when its first instruction is inlined code the
 * call site of that code is the code itself.
 */
static int collect_nodes(struct walk *w)
{
	struct seen_slot *slot;
	size_t i;
	int32_t node, child;
	int err;

	for (i = 0; i < w->nranges; i++) {
		for (node = w->ranges[i].val, child = -1; node >= 0;) {
			if (2 * (w->nnodes + 1) > w->seen_cap) {
				err = seen_grow(w);
				if (err)
					return err;
			}
			slot = seen_slot(w, node);
			if (slot->node == node && slot->range == i)
				return cycle(w, child, node);
			if (slot->node == node)
				break;
			*slot = (struct seen_slot){ .node = node, .range = i };
			err = add_node_pc(w, node, w->ranges[i].start);
			child = node;
			if (!err)
				err = parent_of(w, node, &node);
			if (err)
				return err;
			slot->parent = node;
		}
	}
	return 0;
}

static int cmp_node_pc(const void *a, const void *b)
{
	const struct node_pc *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

static int call_name(const struct walk *w, int32_t node, const char **name)
{
	const uint8_t *rec;
	int32_t off;
	uint64_t at;
	int err;

	err = read_call(w, node, &rec);
	if (err)
		return err;
	off = (int32_t)get_u32(rec + w->l->name_at);
	if (off < 0 || (uint64_t)off >= w->tab->size - w->l->names)
		return corrupt(w->f, "name out of range");
	at = w->l->names + (uint64_t)off;
	if (!memchr(w->tab->data + at, '\0', w->tab->size - at))
		return corrupt(w->f, "name runs off the table");
	*name = (const char *)w->tab->data + at;
	return 0;
}

/* Report each node, at its lowest PC, in tree order; every name is read
 * first, so that a rejected tree reports nothing. */
static int report(struct walk *w, pclntab_inline_fn fn, void *ctx)
{
	struct pclntab_inline_call call = {
		.caller_entry = w->f->entry, .walk = w,
	};
	size_t i;
	int err;

	if (!w->nnodes)
		return 0;	/* and nodes may be NULL, which qsort() refuses */
	qsort(w->nodes, w->nnodes, sizeof(*w->nodes), cmp_node_pc);
	for (i = 0; i < w->nnodes; i++) {
		err = call_name(w, w->nodes[i].node, &call.name);
		if (err)
			return err;
	}
	for (i = 0; i < w->nnodes; i++) {
		call_name(w, w->nodes[i].node, &call.name);
		call.pc = w->nodes[i].pc;
		call.node = w->nodes[i].node;
		err = fn(ctx, &call);
		if (err)
			return err;
	}
	return 0;
}

/* Is NODE the node of range R or one of its ancestors? The tree has
 * no cycle: collect_nodes() rejected those, and recorded the parent of
 * every node a range reaches (each read once: a function's copies times
 * its ranges times their depth, read from the table, was a fifth of the
 * time gofunccount took to be ready on all of esbuild). */
static bool range_in_node(const struct walk *w, const struct pc_range *r,
			  int32_t node)
{
	const struct seen_slot *slot;
	int32_t v;

	for (v = r->val; v >= 0; v = slot->parent) {
		if (v == node)
			return true;
		slot = seen_slot(w, v);
		if (slot->node != v)
			return false;	/* collect_nodes() reached them all */
	}
	return false;
}

int pclntab_inline_call__code(const struct pclntab_inline_call *call,
			      struct code_span **code, size_t *n)
{
	const struct walk *w = call->walk;
	size_t i, cap = 0;
	int err;

	*code = NULL;
	*n = 0;
	for (i = 0; i < w->nranges; i++) {
		if (!range_in_node(w, &w->ranges[i], call->node))
			continue;
		err = gt_ensure_mem((void **)code, &cap, sizeof(**code), *n + 1);
		if (err) {
			free(*code);
			*code = NULL;
			*n = 0;
			return err;
		}
		(*code)[(*n)++] = (struct code_span){ w->ranges[i].start,
						      w->ranges[i].end };
	}
	*n = code_spans__merge(*code, *n);
	gt_error_clear();
	return 0;
}

/*
 * Find the inline tree and the inline-index table of W's function: 0 and
 * *PCTAB_OFF, 1 when it has none, or a negative errno.
 */
static int find_tables(struct walk *w, size_t *pctab_off)
{
	const struct pclntab *tab = w->tab;
	const struct func_layout *l = w->l;
	uint64_t rec = l->funcs + (uint64_t)w->f->funcoff, fdata;
	uint32_t npcdata, nfuncdata, pcoff;
	const uint8_t *p;

	if (rec > tab->size || tab->size - rec < l->fixed_size)
		return corrupt(w->f, "function record out of range");
	npcdata = get_u32(tab->data + rec + l->npcdata_at);
	nfuncdata = tab->data[rec + l->nfuncdata_at];
	if (npcdata <= PCDATA_INLTREEINDEX || nfuncdata <= l->inltree)
		return 1;
	/* npcdata is 32-bit: the sums below cannot overflow */
	fdata = rec + l->fixed_size + (uint64_t)npcdata * 4;
	if (l->abs_funcdata && (fdata & 4))
		fdata += 4;
	fdata += (uint64_t)l->inltree * (l->abs_funcdata ? 8 : 4);
	if (fdata > tab->size || tab->size - fdata < (l->abs_funcdata ? 8 : 4))
		return corrupt(w->f, "funcdata out of range");
	p = tab->data + rec + l->fixed_size + PCDATA_INLTREEINDEX * 4;
	pcoff = get_u32(p);
	if (l->abs_funcdata) {
		w->tree = get_u64(tab->data + fdata);
		if (!w->tree)
			return 1;
	} else {
		uint32_t off = get_u32(tab->data + fdata);

		if (off == UINT32_MAX)
			return 1;
		w->tree = w->fd->gofunc + off;
		if (w->tree < w->fd->gofunc)
			return corrupt(w->f, "funcdata out of range");
	}
	if (!pcoff)
		return 1;
	if (pcoff > tab->size - l->pctab)
		return corrupt(w->f, "pc-value table out of range");
	*pctab_off = l->pctab + pcoff;
	return 0;
}

/* A walk of function I of TAB, its layout into L. */
static int walk_init(struct walk *w, const struct pclntab *tab, size_t i,
		     const struct pclntab_funcdata *fd, struct func_layout *l)
{
	if (i >= tab->nfuncs)
		return gt_error(-ERANGE, "no function %zu in the pclntab", i);
	w->tab = tab;
	w->l = l;
	w->fd = fd;
	w->f = &tab->funcs[i];
	return get_layout(tab, l);
}

int pclntab__inline_calls(const struct pclntab *tab, size_t func_index,
			  const struct pclntab_funcdata *fd,
			  pclntab_inline_fn fn, void *ctx)
{
	struct func_layout l;
	struct walk w = { 0 };
	size_t pctab_off = 0;
	int err;

	err = walk_init(&w, tab, func_index, fd, &l);
	if (err)
		return err;
	err = find_tables(&w, &pctab_off);
	if (err)
		return err < 0 ? err : 0;
	err = decode_ranges(&w, pctab_off);
	if (!err)
		err = collect_nodes(&w);
	if (!err)
		err = report(&w, fn, ctx);
	free(w.ranges);
	free(w.nodes);
	free(w.seen);
	return err;
}

int pclntab__func_inltree(const struct pclntab *tab, size_t i,
			  const struct pclntab_funcdata *fd,
			  struct pclntab_inltree *t)
{
	struct func_layout l;
	struct walk w = { 0 };
	int err;

	err = walk_init(&w, tab, i, fd, &l);
	if (err)
		return err;
	err = find_tables(&w, &t->index);
	t->calls = w.tree;
	return err;
}

int pclntab__inlined_call(const struct pclntab *tab, size_t i,
			  const struct pclntab_funcdata *fd,
			  const struct pclntab_inltree *t, int32_t node,
			  const char **name, int32_t *parent_pc)
{
	struct func_layout l;
	struct walk w = { 0 };
	const uint8_t *rec;
	int err;

	err = walk_init(&w, tab, i, fd, &l);
	if (err)
		return err;
	w.tree = t->calls;
	if (node < 0)
		return corrupt(w.f, "negative inline index");
	err = call_name(&w, node, name);
	if (!err)
		err = read_call(&w, node, &rec);
	if (err)
		return err;
	*parent_pc = (int32_t)get_u32(rec + l.parent_pc_at);
	return 0;
}

static int read_vaddr(void *ctx, uint64_t vaddr, size_t len,
		      const uint8_t **out)
{
	return elf_file__read_vaddr(ctx, vaddr, len, out);
}

int pclntab_funcdata__init(struct pclntab_funcdata *fd,
			   const struct go_binary *bin)
{
	const struct pclntab *tab = bin->pclntab;
	const struct elf_file *ef = bin->elf;
	struct go_moduledata md;
	int err, minor;

	memset(fd, 0, sizeof(*fd));
	fd->read = read_vaddr;
	fd->ctx = (void *)ef;
	if (!tab)
		return gt_error(-ENOENT, "no pclntab in %s", ef->path);
	minor = go_version__minor(bin->version);
	if (tab->version == PCLNTAB_GO12 && minor >= 0 && minor < 12)
		return gt_error(-ENOTSUP,
				"%s: inline tree of %s is not supported",
				ef->path, bin->version);
	if (tab->version < PCLNTAB_GO118)
		return 0;
	err = go_moduledata__find(bin, &md);
	fd->gofunc = md.gofunc;
	return err;
}
