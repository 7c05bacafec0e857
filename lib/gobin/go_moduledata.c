// SPDX-License-Identifier: MIT
/*
 * runtime.firstmoduledata without symbols. Layouts (runtime/symtab.go, 64-bit
 * offsets of the fields this file reads):
 *
 *   <= 1.15    pclntable []byte @0, ... types @200, etypes @208
 *   1.16-1.17  pcHeader @0, funcnametab []byte @8, ... types @280, etypes @288
 *   1.18-1.19  as 1.16, then rodata @296, gofunc @304
 *   1.20-1.26  covctrs, ecovctrs added before end: types @296, etypes @304,
 *              rodata @312, gofunc @320
 *   1.27       types @296, typedesclen, etypes @312, itaboffset, itabsize,
 *              rodata @336, gofunc @344
 *
 * The pclntab version tells the first three apart, not 1.20-1.26 from 1.27:
 * both are tried, the newer first. In each, types..etypes and rodata..gofunc
 * lie in one non-executable segment; read with the wrong layout, one of the
 * words is a length or an offset (typedesclen, itaboffset, a slice's len),
 * which no segment holds.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "core/byteorder.h"
#include "core/error.h"
#include "gobin/go_moduledata.h"

struct md_layout {
	enum pclntab_version pclntab;
	size_t types_at, etypes_at;
	size_t gofunc_at;	/* rodata is the word before; 0: neither */
};

static const struct md_layout layouts[] = {
	{ PCLNTAB_GO12, 200, 208, 0 },
	{ PCLNTAB_GO116, 280, 288, 0 },
	{ PCLNTAB_GO118, 280, 288, 304 },
	{ PCLNTAB_GO120, 296, 312, 344 },	/* 1.27 */
	{ PCLNTAB_GO120, 296, 304, 320 },	/* 1.20 - 1.26 */
};

#define MD_SIZE(l)	(((l)->gofunc_at ? (l)->gofunc_at : (l)->etypes_at) + 8)

/* Does the non-executable PT_LOAD segment holding START also hold END
 * (END may be its end)? */
static bool same_data_segment(const struct elf_file *ef, uint64_t start,
			      uint64_t end)
{
	GElf_Phdr ph;
	size_t i, n;

	if (!start || end < start || elf_getphdrnum(ef->elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(ef->elf, i, &ph) && ph.p_type == PT_LOAD &&
		    !(ph.p_flags & PF_X) && start >= ph.p_vaddr &&
		    start - ph.p_vaddr < ph.p_filesz)
			return end - ph.p_vaddr <= ph.p_filesz;
	return false;
}

/* Read MD as layout L: 0 when its fields are plausible, -1 when not. */
static int read_fields(const struct elf_file *ef, const struct md_layout *l,
		       const uint8_t *md, struct go_moduledata *out)
{
	uint64_t rodata = 0, gofunc = 0;

	out->types = get_u64(md + l->types_at);
	out->etypes = get_u64(md + l->etypes_at);
	if (!same_data_segment(ef, out->types, out->etypes))
		return -1;
	if (l->gofunc_at) {
		rodata = get_u64(md + l->gofunc_at - 8);
		gofunc = get_u64(md + l->gofunc_at);
		if (!same_data_segment(ef, rodata, gofunc))
			return -1;
	}
	out->gofunc = gofunc;
	return 0;
}

/* The first two words of firstmoduledata: Go 1.16+ pcHeader and
 * funcnametab.ptr, before the pclntable slice's ptr and len. */
static int first_words(const struct pclntab *tab, uint64_t pcln_vaddr,
		       uint64_t w[2])
{
	/* 1.18+ headers have textStart at word 2, shifting the rest */
	size_t names_at = tab->version >= PCLNTAB_GO118 ? 32 : 24;

	w[0] = pcln_vaddr;
	if (tab->version == PCLNTAB_GO12) {
		w[1] = tab->size;
		return 0;
	}
	if (tab->size < names_at + 8)
		return gt_error(-EINVAL, "corrupt pclntab: short header");
	w[1] = pcln_vaddr + get_u64(tab->data + names_at);
	return 0;
}

/* Search section NAME for a moduledata of layout L starting with W. */
static int search(const struct elf_file *ef, const char *name,
		  const struct md_layout *l, const uint64_t w[2],
		  struct go_moduledata *md)
{
	GElf_Shdr sh;
	const uint8_t *d;
	size_t size, off;

	if (!elf_file__section(ef, name, &sh) ||
	    elf_file__section_bytes(ef, name, &d, &size))
		return -1;
	for (off = 0; size >= MD_SIZE(l) && off <= size - MD_SIZE(l);
	     off += 8) {
		if (get_u64(d + off) != w[0] || get_u64(d + off + 8) != w[1])
			continue;
		if (read_fields(ef, l, d + off, md) == 0) {
			md->addr = sh.sh_addr + off;
			return 0;
		}
	}
	return -1;
}

int go_moduledata__find(const struct go_binary *bin, struct go_moduledata *md)
{
	static const char *const sections[] = {
		".go.module", ".noptrdata", ".data", ".data.rel.ro",
	};
	const struct pclntab *tab = bin->pclntab;
	const struct elf_file *ef = bin->elf;
	GElf_Shdr sh;
	uint64_t w[2] = { 0, 0 };
	size_t i, j;
	int err;

	memset(md, 0, sizeof(*md));
	if (!tab)
		return gt_error(-ENOENT, "no pclntab in %s", ef->path);
	if (!elf_file__section(ef, ".gopclntab", &sh) &&
	    !elf_file__section(ef, ".data.rel.ro.gopclntab", &sh))
		return gt_error(-ENOTSUP, "%s: no pclntab section", ef->path);
	err = first_words(tab, sh.sh_addr, w);
	if (err)
		return err;
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (layouts[i].pclntab != tab->version)
			continue;
		for (j = 0; j < sizeof(sections) / sizeof(sections[0]); j++)
			if (!search(ef, sections[j], &layouts[i], w, md))
				return 0;
	}
	return gt_error(-ENOTSUP, "%s: cannot find the module data", ef->path);
}
