// SPDX-License-Identifier: MIT
/*
 * The Go function table (.gopclntab). Layouts, from the Go sources
 * (debug/gosym/pclntab.go, runtime/symtab.go), all offsets from the header:
 *
 *   1.2-1.15   @8 nfunc; functab {entry, funcoff} uintptr pairs from @16,
 *              then the end PC; funcoff and name offsets from the header.
 *   1.16-1.17  @8 nfunc, @16 nfiles, @24 funcnameOff, @32 cuOff,
 *              @40 filetabOff, @48 pctabOff, @56 pclnOff; functab as above
 *              at pclnOff; funcoff from pclnOff, names from funcnameOff.
 *   1.18+      as 1.16 with @24 textStart inserted (offsets move by 8);
 *              functab {entryoff, funcoff} uint32 pairs, entry =
 *              textStart + entryoff.
 *
 * Every _func record starts with the entry (uintptr before 1.18, uint32
 * after) followed by the int32 name offset.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/byteorder.h"
#include "core/error.h"
#include "gobin/pclntab.h"

#define MAGIC_GO12	0xfffffffbu
#define MAGIC_GO116	0xfffffffau
#define MAGIC_GO118	0xfffffff0u
#define MAGIC_GO120	0xfffffff1u

/* Where the parts of one table are, as offsets into the buffer. */
struct layout {
	uint64_t nfunc;
	size_t functab;		/* the {entry, funcoff} pairs */
	size_t field_size;	/* of one functab field: 8, or 4 from 1.18 */
	size_t funcdata;	/* base of funcoff */
	size_t funcnames;	/* base of name offsets */
	uint64_t text_start;	/* added to entries from 1.18 */
};

static int corrupt(const char *why)
{
	return gt_error(-EINVAL, "corrupt pclntab: %s", why);
}

/*
 * Note where the file and pc-value tables are; they are checked when used,
 * so that a bad one costs only file:line, not the function table. Before
 * 1.16 the file table's offset is a uint32 after the end PC of functab.
 */
static void read_file_tables(struct pclntab *tab, const struct layout *l)
{
	size_t shift = tab->version >= PCLNTAB_GO118 ? 1 : 0;
	uint64_t off;

	if (tab->version == PCLNTAB_GO12) {
		/* read_header has checked that functab fits */
		off = l->functab + (2 * l->nfunc + 1) * l->field_size;
		if (tab->size - off >= 4)
			tab->filetab = get_u32(tab->data + off);
		return;
	}
	tab->cutab = get_u64(tab->data + 8 + 8 * (3 + shift));
	tab->filetab = get_u64(tab->data + 8 + 8 * (4 + shift));
	tab->pctab = get_u64(tab->data + 8 + 8 * (5 + shift));
}

/* Read the header of TAB's buffer into L. */
static int read_header(struct pclntab *tab, uint64_t text_start,
		       struct layout *l)
{
	const uint8_t *d = tab->data;
	size_t size = tab->size;
	uint64_t off, slots;

	if (size < 8)
		return corrupt("shorter than its header");
	switch (get_u32(d)) {
	case MAGIC_GO12:
		tab->version = PCLNTAB_GO12;
		break;
	case MAGIC_GO116:
		tab->version = PCLNTAB_GO116;
		break;
	case MAGIC_GO118:
		tab->version = PCLNTAB_GO118;
		break;
	case MAGIC_GO120:
		tab->version = PCLNTAB_GO120;
		break;
	default:
		return gt_error(-EINVAL, "not a Go pclntab: bad magic 0x%08x",
				get_u32(d));
	}
	if (d[4] != 0 || d[5] != 0)
		return corrupt("nonzero header padding");
	tab->quantum = d[6];
	if (tab->quantum != 1 && tab->quantum != 2 && tab->quantum != 4)
		return corrupt("bad instruction size quantum");
	tab->ptr_size = d[7];
	if (tab->ptr_size == 4)
		return gt_error(-EINVAL,
				"32-bit pclntab (pointer size 4) is not supported");
	if (tab->ptr_size != 8)
		return corrupt("bad pointer size");

	if (tab->version == PCLNTAB_GO12) {
		if (size < 16)
			return corrupt("shorter than its header");
		l->nfunc = get_u64(d + 8);
		l->functab = 16;
		l->field_size = 8;
		l->funcdata = 0;
		l->funcnames = 0;
		l->text_start = 0;
	} else {
		/* Words after the magic: the 1.18+ header has textStart at
		 * word 2, which shifts the offsets by one word. */
		size_t shift = tab->version == PCLNTAB_GO116 ? 0 : 1;
		size_t hdr_size = 8 + 8 * (7 + shift);

		if (size < hdr_size)
			return corrupt("shorter than its header");
		l->nfunc = get_u64(d + 8);
		off = get_u64(d + 8 + 8 * (2 + shift));
		if (off > size)
			return corrupt("function name table out of range");
		l->funcnames = off;
		off = get_u64(d + 8 + 8 * (6 + shift));
		if (off < hdr_size || off > size)
			return corrupt("function table out of range");
		l->functab = off;
		l->funcdata = off;
		l->field_size = shift ? 4 : 8;
		l->text_start = shift ? get_u64(d + 24) : 0;
		/* Go 1.26+ leave textStart 0: the caller knows it. */
		if (shift && l->text_start == 0)
			l->text_start = text_start;
	}
	tab->text_start = l->text_start;

	/* nfunc pairs and the end PC must fit: check by division so that a
	 * huge count can neither overflow nor size an allocation. */
	if (l->nfunc == 0)
		return corrupt("no functions");
	slots = l->functab <= size ? (size - l->functab) / l->field_size : 0;
	if (slots == 0 || l->nfunc > (slots - 1) / 2)
		return corrupt("function count larger than the table");
	read_file_tables(tab, l);
	return 0;
}

static uint64_t functab_field(const struct pclntab *tab,
			      const struct layout *l, size_t i)
{
	const uint8_t *p = tab->data + l->functab + i * l->field_size;

	return l->field_size == 4 ? get_u32(p) : get_u64(p);
}

/* The entry PC of function I (I == nfunc: the end of the last one). */
static int functab_pc(const struct pclntab *tab, const struct layout *l,
		      size_t i, uint64_t *pc)
{
	uint64_t v = functab_field(tab, l, 2 * i);

	if (l->field_size == 4) {
		if (v > UINT64_MAX - l->text_start)
			return corrupt("entry address overflows");
		v += l->text_start;
	}
	*pc = v;
	return 0;
}

/* Point FN->name at the name of the _func record at FUNCOFF. */
static int read_name(const struct pclntab *tab, const struct layout *l,
		     uint64_t funcoff, struct pclntab_func *fn)
{
	/* The entry field is as wide as a functab field. */
	size_t nameoff_at = l->field_size;
	uint64_t rec, name;
	int32_t nameoff;
	const char *s;

	if (funcoff > tab->size - l->funcdata)
		return corrupt("function record out of range");
	rec = l->funcdata + funcoff;
	if (tab->size - rec < nameoff_at + 4)
		return corrupt("function record out of range");
	fn->funcoff = (uint32_t)funcoff;
	nameoff = (int32_t)get_u32(tab->data + rec + nameoff_at);
	if (nameoff < 0 || (uint64_t)nameoff >= tab->size - l->funcnames)
		return corrupt("function name out of range");
	name = l->funcnames + (uint64_t)nameoff;
	s = (const char *)tab->data + name;
	if (!memchr(s, '\0', tab->size - name))
		return corrupt("function name runs off the table");
	fn->name = s;
	return 0;
}

static int read_funcs(struct pclntab *tab, const struct layout *l)
{
	uint64_t pc = 0, funcoff;
	size_t i;
	int err;

	for (i = 0; i <= tab->nfuncs; i++) {
		err = functab_pc(tab, l, i, &pc);
		if (err)
			return err;
		if (i > 0) {
			if (pc <= tab->funcs[i - 1].entry)
				return corrupt("function entries not increasing");
			tab->funcs[i - 1].end = pc;
		}
		if (i == tab->nfuncs)
			break;
		tab->funcs[i].entry = pc;
		funcoff = functab_field(tab, l, 2 * i + 1);
		/* funcoff is stored in 32 bits from 1.18; keep it exact. */
		if (funcoff > UINT32_MAX)
			return corrupt("function record out of range");
		err = read_name(tab, l, funcoff, &tab->funcs[i]);
		if (err)
			return err;
	}
	return 0;
}

int pclntab__parse(const uint8_t *data, size_t size, uint64_t text_start,
		   struct pclntab **out)
{
	struct pclntab *tab;
	struct layout l = { 0 };
	int err;

	*out = NULL;
	if (!data)
		return corrupt("no data");
	tab = calloc(1, sizeof(*tab));
	if (!tab)
		return gt_error(-ENOMEM, "out of memory");
	tab->data = data;
	tab->size = size;
	err = read_header(tab, text_start, &l);
	if (err)
		goto fail;
	tab->nfuncs = l.nfunc;
	tab->func_base = l.funcdata;
	tab->funcs = calloc(tab->nfuncs, sizeof(*tab->funcs));
	if (!tab->funcs) {
		err = gt_error(-ENOMEM, "out of memory for %zu functions",
			       tab->nfuncs);
		goto fail;
	}
	err = read_funcs(tab, &l);
	if (err)
		goto fail;
	*out = tab;
	return 0;
fail:
	pclntab__free(tab);
	return err;
}

void pclntab__free(struct pclntab *tab)
{
	if (!tab)
		return;
	free(tab->funcs);
	free(tab);
}

int pclntab__func_args(const struct pclntab *tab, size_t i, int32_t *args)
{
	/* entry (uintptr before 1.18, a u32 offset after), nameoff, args */
	size_t at = tab->version >= PCLNTAB_GO118 ? 8 : 12;
	uint64_t rec;

	if (i >= tab->nfuncs)
		return -ERANGE;
	rec = tab->func_base + (uint64_t)tab->funcs[i].funcoff;
	if (rec > tab->size || tab->size - rec < at + 4)
		return corrupt("function record out of range");
	*args = (int32_t)get_u32(tab->data + rec + at);
	return 0;
}

int pclntab__func_tables(const struct pclntab *tab, size_t i,
			 struct pclntab_func_tables *t)
{
	/* pcsp, pcfile, pcln, npcdata, then cuOffset from 1.16; before them
	 * entry (uintptr before 1.18, a u32 offset after), nameoff, args,
	 * deferreturn */
	size_t at = tab->version >= PCLNTAB_GO118 ? 16 : 20, fixed;
	size_t *offs[] = { &t->pcsp, &t->pcfile, &t->pcln };
	uint64_t rec, off;
	size_t k;

	if (i >= tab->nfuncs)
		return -ERANGE;
	rec = tab->func_base + (uint64_t)tab->funcs[i].funcoff;
	if (rec > tab->size || tab->size - rec < at + 20)
		return corrupt("function record out of range");
	for (k = 0; k < 3; k++) {
		off = get_u32(tab->data + rec + at + 4 * k);
		if (off && (tab->pctab > tab->size ||
			    off >= tab->size - tab->pctab))
			return corrupt("pc-value table out of range");
		*offs[k] = off ? tab->pctab + off : 0;
	}
	t->cu_offset = tab->version >= PCLNTAB_GO116 ?
		       get_u32(tab->data + rec + at + 16) : 0;
	/* pcdata[0], PCDATA_UnsafePoint, after cuOffset (1.16+), startLine
	 * (1.20+) and funcID, flag, a pad byte and nfuncdata */
	fixed = at + 16 + (tab->version >= PCLNTAB_GO116 ? 4 : 0) +
		(tab->version >= PCLNTAB_GO120 ? 4 : 0) + 4;
	t->unsafe_point = 0;
	if (get_u32(tab->data + rec + at + 12) &&
	    tab->size - rec >= fixed + 4) {
		off = get_u32(tab->data + rec + fixed);
		if (off && (tab->pctab > tab->size ||
			    off >= tab->size - tab->pctab))
			return corrupt("pc-value table out of range");
		t->unsafe_point = off ? tab->pctab + off : 0;
	}
	return 0;
}

/* _func.flag's funcFlag_SPWRITE (Go 1.17+, runtime/abi/symtab.go). */
#define FUNC_FLAG_SPWRITE	0x02

bool pclntab__func_sp_tracked(const struct pclntab *tab, size_t i)
{
	/* funcID then flag follow cuOffset (at 32), and startLine from 1.20;
	 * before 1.17 no flag, and the magic of 1.16 and 1.17 tables is the
	 * same */
	size_t at = tab->version >= PCLNTAB_GO120 ? 40 : 36;
	uint64_t rec;

	if (i >= tab->nfuncs || tab->version < PCLNTAB_GO118)
		return false;
	rec = tab->func_base + (uint64_t)tab->funcs[i].funcoff;
	if (rec > tab->size || tab->size - rec < at + 2)
		return false;
	return tab->data[rec + at] == 0 &&
	       !(tab->data[rec + at + 1] & FUNC_FLAG_SPWRITE);
}

void pclntab_pcvalue__init(struct pclntab_pcvalue *it,
			   const struct pclntab *tab, size_t i, size_t off)
{
	it->tab = tab;
	it->f = &tab->funcs[i];
	it->off = off;
	it->pc = it->end = it->f->entry;
	it->val = -1;
}

/* An unsigned LEB128 varint of at most 32 bits at *OFF. */
static int read_uvarint(const struct pclntab *tab, size_t *off, uint32_t *v)
{
	uint32_t shift = 0, val = 0;
	uint8_t b;

	do {
		if (*off >= tab->size || shift > 28)
			return corrupt("bad pc-value table");
		b = tab->data[(*off)++];
		val |= (uint32_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*v = val;
	return 0;
}

int pclntab_pcvalue__next(struct pclntab_pcvalue *it)
{
	const struct pclntab *tab = it->tab;
	uint32_t uvdelta, pcdelta;
	int err;

	if (!it->off)
		return 0;
	if (it->off >= tab->size)
		return corrupt("pc-value table runs off the end");
	/* A zero value delta ends the table, except at the entry: runtime
	 * step() starts every table with a pair, even one that changes
	 * nothing. */
	if (tab->data[it->off] == 0 && it->end != it->f->entry)
		return 0;
	err = read_uvarint(tab, &it->off, &uvdelta);
	if (!err)
		err = read_uvarint(tab, &it->off, &pcdelta);
	if (err)
		return err;
	/* zigzag, with the wrap-around of Go's int32 */
	it->val = (int32_t)((uint32_t)it->val +
			    (-(uvdelta & 1) ^ (uvdelta >> 1)));
	it->pc = it->end;
	if (pcdelta > (it->f->end - it->pc) / tab->quantum)
		return corrupt("pc-value table past the end of its function");
	it->end = it->pc + (uint64_t)pcdelta * tab->quantum;
	return 1;
}

/* Point *NAME at the NUL-terminated string at OFF in the buffer. */
static int string_at(const struct pclntab *tab, uint64_t off,
		     const char **name)
{
	const char *s = (const char *)tab->data + off;

	if (off >= tab->size || !memchr(s, '\0', tab->size - off))
		return corrupt("file name out of range");
	*name = s;
	return 0;
}

/*
 * Before 1.16 file FILENO is entry FILENO of the global file table, whose
 * entry 0 is the count, and names count from the table start. From 1.16
 * it is entry cuOffset+FILENO of cutab, an offset in filetab (^0: none).
 */
int pclntab__file_name(const struct pclntab *tab, size_t i, int32_t fileno,
		       const char **name)
{
	struct pclntab_func_tables t;
	uint64_t at, off;
	int err;

	if (fileno < 0)
		return -ENOENT;
	if (tab->version == PCLNTAB_GO12) {
		at = tab->filetab;
		if (!at || at > tab->size || tab->size - at < 4)
			return corrupt("file table out of range");
		if (fileno == 0 || (uint32_t)fileno >= get_u32(tab->data + at))
			return corrupt("file number out of range");
		at += 4 * (uint64_t)fileno;
		if (at > tab->size - 4)
			return corrupt("file table out of range");
		return string_at(tab, get_u32(tab->data + at), name);
	}
	err = pclntab__func_tables(tab, i, &t);
	if (err)
		return err;
	at = tab->cutab + 4 * ((uint64_t)t.cu_offset + (uint64_t)fileno);
	if (tab->cutab > tab->size || at > tab->size - 4)
		return corrupt("file number out of range");
	off = get_u32(tab->data + at);
	if (off == UINT32_MAX)
		return -ENOENT;
	if (tab->filetab > tab->size)
		return corrupt("file table out of range");
	return string_at(tab, tab->filetab + off, name);
}

long pclntab__func_index(const struct pclntab *tab, uint64_t pc)
{
	size_t lo = 0, hi = tab->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab->funcs[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tab->nfuncs && tab->funcs[lo].entry <= pc)
		return (long)lo;
	return -1;
}

int pclntab__frame_size_at(const struct pclntab *tab, uint64_t pc,
			   int32_t *size)
{
	struct pclntab_func_tables t;
	struct pclntab_pcvalue it;
	long i = pclntab__func_index(tab, pc);
	int err;

	if (i < 0 || pclntab__func_tables(tab, (size_t)i, &t) || !t.pcsp)
		return -ENOENT;
	pclntab_pcvalue__init(&it, tab, (size_t)i, t.pcsp);
	while ((err = pclntab_pcvalue__next(&it)) > 0) {
		if (pc >= it.pc && pc < it.end) {
			*size = it.val;
			return 0;
		}
	}
	return -ENOENT;
}
