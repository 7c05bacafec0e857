// SPDX-License-Identifier: MIT
/*
 * Source positions of PCs from DWARF (pcline_dwarf.h), read with libdw.
 *
 * Opening maps the code of every compilation unit and DW_TAG_subprogram
 * to its DIE: Go's linker writes no .debug_aranges, so dwarf_addrdie()
 * finds nothing, and dwarf_getscopes() would walk a whole unit per PC. A
 * PC's subprogram is then a binary search away; below it, the
 * DW_TAG_inlined_subroutine DIEs (perhaps inside lexical blocks) whose
 * ranges hold the PC are its inlined calls, outermost first. The
 * innermost frame's position is the line-table row of the PC; each
 * inlined call holds the position of its call site (DW_AT_call_file,
 * DW_AT_call_line), which is the position of the frame around it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "core/mem.h"
#include "gobin/pcline_dwarf.h"

/* The deepest nesting of inlined calls followed; deeper ones are cut. */
#define MAX_INLINE_DEPTH	64

/* Code [start, end) of the subprogram or unit whose DIE is at DIE_OFF. */
struct die_range {
	uint64_t start, end;
	Dwarf_Off die_off;
};

/* A sorted array of them. */
struct die_ranges {
	struct die_range *v;
	size_t n, cap;
};

/* A file name made absolute, by the libdw name it was made from. */
struct path_slot {
	const char *name;	/* NULL: empty */
	char *path;
};

struct pcline_dwarf {
	const struct go_binary *bin;
	Dwarf *dw;			/* bin's, go_binary__dwarf() */
	struct die_ranges funcs, units;
	struct path_slot *paths;	/* open addressing, at most half full */
	size_t npaths, paths_cap;	/* paths_cap: a power of two */
};

static int dwarf_fail(const struct pcline_dwarf *d, const char *what)
{
	return gt_error(-EINVAL, "corrupt DWARF in %s: %s: %s",
			d->bin->elf->path, what, dwarf_errmsg(-1));
}

static int add_range(struct die_ranges *r, uint64_t start, uint64_t end,
		     Dwarf_Off die_off)
{
	int err;

	err = gt_ensure_mem((void **)&r->v, &r->cap, sizeof(*r->v), r->n + 1);
	if (err)
		return err;
	r->v[r->n++] = (struct die_range){ start, end, die_off };
	return 0;
}

/* Add the code ranges of DIE to R. */
static int add_ranges(const struct pcline_dwarf *d, struct die_ranges *r,
		      Dwarf_Die *die)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int err = 0;

	while (!err && (off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (start < end)
			err = add_range(r, start, end, dwarf_dieoffset(die));
	if (!err && off < 0)
		return dwarf_fail(d, "bad ranges");
	return err;
}

static int cmp_range(const void *a, const void *b)
{
	const struct die_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Add the code ranges of UNIT and of every subprogram among its
 * children. An abstract one (the origin of inlined copies) has none. */
static int map_unit(struct pcline_dwarf *d, Dwarf_Die *unit)
{
	Dwarf_Die child;
	int ret, err;

	err = add_ranges(d, &d->units, unit);
	ret = dwarf_child(unit, &child);
	for (; ret == 0 && !err; ret = dwarf_siblingof(&child, &child))
		if (dwarf_tag(&child) == DW_TAG_subprogram)
			err = add_ranges(d, &d->funcs, &child);
	if (!err && ret < 0)
		return dwarf_fail(d, "bad sibling entry");
	return err;
}

static int map_funcs(struct pcline_dwarf *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die unit;
	int ret, err = 0;

	while (!err && (ret = dwarf_get_units(d->dw, cu, &cu, NULL, NULL,
					      &unit, NULL)) == 0)
		err = map_unit(d, &unit);
	if (err)
		return err;
	if (ret < 0)
		return dwarf_fail(d, "bad unit header");
	qsort(d->funcs.v, d->funcs.n, sizeof(*d->funcs.v), cmp_range);
	qsort(d->units.v, d->units.n, sizeof(*d->units.v), cmp_range);
	return 0;
}

int pcline_dwarf__open(const struct go_binary *bin, struct pcline_dwarf **out)
{
	struct pcline_dwarf *d;
	Dwarf *dw;
	int err;

	*out = NULL;
	err = go_binary__dwarf_reader(bin, sizeof(*d), &dw, (void **)&d);
	if (err)
		return err;
	d->bin = bin;
	d->dw = dw;
	err = map_funcs(d);
	if (err) {
		pcline_dwarf__close(d);
		return err;
	}
	*out = d;
	return 0;
}

void pcline_dwarf__close(struct pcline_dwarf *d)
{
	size_t i;

	if (!d)
		return;
	free(d->funcs.v);
	free(d->units.v);
	for (i = 0; i < d->paths_cap; i++)
		free(d->paths[i].path);
	free(d->paths);
	free(d);
}

/* The DIE in R whose code holds PC. */
static bool die_at(const struct pcline_dwarf *d, const struct die_ranges *r,
		   uint64_t pc, Dwarf_Die *die)
{
	size_t lo = 0, hi = r->n;

	/* the last range starting at or before PC */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && pc < r->v[lo - 1].end &&
	       dwarf_offdie(d->dw, r->v[lo - 1].die_off, die);
}

/* The name of DIE, or of the DIE it is an instance of. */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? name : "?";
}

/* The entry of a subprogram: DW_AT_entry_pc or DW_AT_low_pc, else the
 * start of its first range, which GCC makes the hot part's. */
static int func_entry(const struct pcline_dwarf *d, Dwarf_Die *die,
		      uint64_t *entry)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	if (dwarf_entrypc(die, &start) == 0) {
		*entry = start;
		return 0;
	}
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start < end) {
			*entry = start;
			return 0;
		}
	}
	return dwarf_fail(d, "function without an address");
}

/*
 * The inlined calls under FUNC whose code holds PC, outermost first, at
 * most MAX_INLINE_DEPTH: at each level the child (an inlined call or a
 * lexical block) whose ranges hold PC, an inlined call first: Go's
 * lexical blocks may overlap the inlined call after them by a byte.
 * Returns how many, or -EINVAL.
 */
static int inlined_calls(const struct pcline_dwarf *d, Dwarf_Die *func,
			 uint64_t pc, Dwarf_Die *calls)
{
	Dwarf_Die cur = *func, child, block;
	bool in_block;
	int ret, tag, n = 0;

	while (n < MAX_INLINE_DEPTH) {
		in_block = false;
		ret = dwarf_child(&cur, &child);
		for (; ret == 0; ret = dwarf_siblingof(&child, &child)) {
			tag = dwarf_tag(&child);
			if ((tag != DW_TAG_inlined_subroutine &&
			     tag != DW_TAG_lexical_block) ||
			    (tag == DW_TAG_lexical_block && in_block) ||
			    dwarf_haspc(&child, pc) <= 0)
				continue;
			if (tag == DW_TAG_inlined_subroutine)
				break;
			block = child;
			in_block = true;
		}
		if (ret < 0)
			return dwarf_fail(d, "bad child entry");
		if (ret == 0) {
			calls[n++] = child;
			cur = child;
		} else if (in_block) {
			cur = block;
		} else {
			break;
		}
	}
	return n;
}

static struct path_slot *path_slot(const struct pcline_dwarf *d,
				   const char *name)
{
	size_t i = ((uintptr_t)name >> 3) * 2654435761u & (d->paths_cap - 1);

	while (d->paths[i].name && d->paths[i].name != name)
		i = (i + 1) & (d->paths_cap - 1);
	return &d->paths[i];
}

static int paths_grow(struct pcline_dwarf *d)
{
	struct path_slot *old = d->paths;
	size_t i, old_cap = d->paths_cap;

	d->paths_cap = old_cap ? old_cap * 2 : 64;
	d->paths = calloc(d->paths_cap, sizeof(*d->paths));
	if (!d->paths) {
		d->paths = old;
		d->paths_cap = old_cap;
		return gt_error(-ENOMEM, "out of memory");
	}
	for (i = 0; i < old_cap; i++)
		if (old[i].name)
			*path_slot(d, old[i].name) = old[i];
	free(old);
	return 0;
}

/*
 * NAME, a file of unit CU from libdw, as a path: libdw joins a file to
 * its directory entry, which in DWARF 5 may itself be relative (gccgo:
 * "../../../src/libgo/go/fmt/print.go"); such a path is joined to the
 * unit's absolute DW_AT_comp_dir, as addr2line and gdb do. libdw's names
 * live as long as the Dwarf, so the joined path is kept by NAME's address.
 */
static int full_path(struct pcline_dwarf *d, Dwarf_Die *cu,
		     const char *name, const char **out)
{
	Dwarf_Attribute attr;
	struct path_slot *slot;
	const char *dir;
	char *path;
	int err;

	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	if (name[0] == '/' || !dir || dir[0] != '/') {
		*out = name;
		return 0;
	}
	if (2 * (d->npaths + 1) > d->paths_cap) {
		err = paths_grow(d);
		if (err)
			return err;
	}
	slot = path_slot(d, name);
	if (!slot->name) {
		if (asprintf(&path, "%s/%s", dir, name) < 0)
			return gt_error(-ENOMEM, "out of memory");
		slot->name = name;
		slot->path = path;
		d->npaths++;
	}
	*out = slot->path;
	return 0;
}

/* The call site of the inlined call DIE in compilation unit CU; *FILE
 * NULL when unknown. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *die, const char **file,
		      int *line)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word v;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &v) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && v < nfiles)
		*file = dwarf_filesrc(files, v, NULL, NULL);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &v) == 0 &&
	    v <= INT32_MAX)
		*line = (int)v;
}

/* FILE and LINE as a frame's position: "?" and 0 when unknown. */
static int position(struct pcline_dwarf *d, Dwarf_Die *cu, const char **file,
		    int *line)
{
	if (!*file) {
		*file = "?";
		*line = 0;
		return 0;
	}
	return full_path(d, cu, *file, file);
}

static void put_frame(struct pcline_frame *f, const char *func,
		      const char *file, int line, bool inlined, uint64_t entry)
{
	f->func = func;
	f->file = file;
	f->line = line;
	f->inlined = inlined;
	f->func_entry = entry;
}

/*
 * Code without a subprogram (assembly, like libgo's __go_setcontext) is
 * named by its ELF symbol; its position is still in the line table.
 */
static int symbol_frame(struct pcline_dwarf *d, uint64_t pc,
			struct pcline_frame *out, size_t max, size_t *n)
{
	const struct go_func *sym = go_binary__func_at(d->bin, pc);
	const char *file = NULL;
	Dwarf_Line *row;
	Dwarf_Die cu;
	int line = 0, err;

	if (!sym)
		return gt_error(-ENOENT, "no function at %#llx",
				(unsigned long long)pc);
	if (!max)
		return 0;
	if (die_at(d, &d->units, pc, &cu) &&
	    (row = dwarf_getsrc_die(&cu, pc))) {
		file = dwarf_linesrc(row, NULL, NULL);
		if (dwarf_lineno(row, &line))
			file = NULL;
	}
	err = position(d, &cu, &file, &line);
	if (!err)
		put_frame(&out[(*n)++], sym->name, file, line, false,
			  sym->addr);
	return err;
}

int pcline_dwarf__frames(struct pcline_dwarf *d, uint64_t pc,
			 struct pcline_frame *out, size_t max, size_t *n)
{
	Dwarf_Die func, cu, calls[MAX_INLINE_DEPTH];
	Dwarf_Line *row;
	const char *file = NULL;
	uint64_t entry = 0;
	int i, ncalls, line = 0, err;

	if (!die_at(d, &d->funcs, pc, &func))
		return symbol_frame(d, pc, out, max, n);
	if (!dwarf_diecu(&func, &cu, NULL, NULL))
		return dwarf_fail(d, "function outside a unit");
	err = func_entry(d, &func, &entry);
	if (err)
		return err;
	ncalls = inlined_calls(d, &func, pc, calls);
	if (ncalls < 0)
		return ncalls;
	row = dwarf_getsrc_die(&cu, pc);
	if (row) {
		file = dwarf_linesrc(row, NULL, NULL);
		if (dwarf_lineno(row, &line))
			file = NULL;
	}
	for (i = ncalls - 1; i >= 0 && *n < max; i--) {
		err = position(d, &cu, &file, &line);
		if (err)
			return err;
		put_frame(&out[(*n)++], die_name(&calls[i]), file, line, true,
			  entry);
		call_site(&cu, &calls[i], &file, &line);
	}
	if (*n < max) {
		err = position(d, &cu, &file, &line);
		if (err)
			return err;
		put_frame(&out[(*n)++], die_name(&func), file, line, false,
			  entry);
	}
	return 0;
}
