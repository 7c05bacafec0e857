// SPDX-License-Identifier: MIT
/*
 * Where BPF finds the running goroutine (goroutine.h).
 *
 * runtime.g offsets come from the DWARF type when the binary has one, else
 * from the Go version (go-internals.md section 4). A binary without build
 * info still names its version in runtime.buildVersion, a Go string
 * {ptr, len} in a writable data segment pointing at "go1.N..." in the
 * read-only data: that pair is what we look for (version_from_data).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "core/error.h"
#include "goabi/goroutine.h"

/* runtime.g.goid by Go minor version, from runtime2.go of each release. */
#define GOID_MIN_MINOR	13
#define GOID_MAX_MINOR	27
/* runtime.g starts with stack {lo, hi}, in every version. */
#define STACK_HI_OFFSET	8
/* g = *(fsbase - 8) unless the ELF TLS block says otherwise. */
#define TLS_G_DEFAULT	(-8)
/* The longest runtime.buildVersion we accept ("devel go1.27-abcdef0 ..."). */
#define BUILD_VERSION_MAX	63

static int goid_by_minor(int minor, uint32_t *goid)
{
	if (minor < GOID_MIN_MINOR || minor > GOID_MAX_MINOR)
		return -ENOTSUP;
	/* 1.23 added g.syscallbp; 1.25 removed gobuf.ret */
	*goid = minor >= 23 && minor <= 24 ? 160 : 152;
	return 0;
}

/* Has the ELF DWARF (.debug_info, or Go <= 1.18's .zdebug_info)? */
static bool has_debug_info(const struct elf_file *ef)
{
	GElf_Shdr shdr;

	return elf_file__section(ef, ".debug_info", &shdr) ||
	       elf_file__section(ef, ".zdebug_info", &shdr);
}

static int dwarf_fail(const struct elf_file *ef, const char *what)
{
	return gt_error(-EINVAL, "corrupt DWARF in %s: %s: %s", ef->path, what,
			dwarf_errmsg(-1));
}

/* The byte offset of member NAME of the structure STRUCT_DIE, or -ENOENT. */
static int member_offset(const struct elf_file *ef, Dwarf_Die *struct_die,
			 const char *name, uint32_t *off, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	Dwarf_Word loc;
	Dwarf_Die child;
	const char *n;
	int ret;

	ret = dwarf_child(struct_die, &child);
	if (ret < 0)
		return dwarf_fail(ef, "bad structure type");
	for (; ret == 0; ret = dwarf_siblingof(&child, &child)) {
		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		n = dwarf_diename(&child);
		if (!n || strcmp(n, name))
			continue;
		/* Go writes member locations as constants. */
		if (!dwarf_attr(&child, DW_AT_data_member_location, &attr) ||
		    dwarf_formudata(&attr, &loc) || loc > UINT32_MAX)
			return dwarf_fail(ef, "bad member location");
		if (type && (!dwarf_attr(&child, DW_AT_type, &attr) ||
			     !dwarf_formref_die(&attr, type)))
			return dwarf_fail(ef, "bad member type");
		*off = (uint32_t)loc;
		return 0;
	}
	if (ret < 0)
		return dwarf_fail(ef, "bad sibling entry");
	return -ENOENT;
}

/* Go names struct types through a typedef (runtime.stack is a typedef of
 * the struct runtime.stack): follow those to the type itself. */
static int peel_typedefs(const struct elf_file *ef, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	int i;

	for (i = 0; i < 8 && dwarf_tag(type) == DW_TAG_typedef; i++)
		if (!dwarf_attr(type, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, type))
			return dwarf_fail(ef, "bad typedef");
	if (dwarf_tag(type) != DW_TAG_structure_type)
		return dwarf_fail(ef, "runtime.g.stack is not a structure");
	return 0;
}

/* Find the structure type runtime.g among the top-level entries of the
 * units. 0, -ENOENT, or -EINVAL. */
static int find_g_type(const struct elf_file *ef, Dwarf *dw, Dwarf_Die *g)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die;
	const char *name;
	int ret, r;

	while ((ret = dwarf_get_units(dw, cu, &cu, NULL, NULL, &cu_die,
				      NULL)) == 0) {
		r = dwarf_child(&cu_die, g);
		if (r < 0)
			return dwarf_fail(ef, "bad unit");
		for (; r == 0; r = dwarf_siblingof(g, g)) {
			if (dwarf_tag(g) != DW_TAG_structure_type)
				continue;
			name = dwarf_diename(g);
			if (name && !strcmp(name, "runtime.g"))
				return 0;
		}
		if (r < 0)
			return dwarf_fail(ef, "bad sibling entry");
	}
	if (ret < 0)
		return dwarf_fail(ef, "bad unit header");
	return -ENOENT;
}

/* Offsets from DWARF: 0, -ENOENT when there is no usable runtime.g type,
 * or another negative errno. */
static int layout_from_dwarf(const struct elf_file *ef,
			     struct goroutine_layout *out)
{
	Dwarf_Die g, stack;
	uint32_t stack_off, hi_off;
	Dwarf *dw;
	int err;

	/* libdw decompresses both SHF_COMPRESSED (Go 1.19+) and .zdebug
	 * (Go 1.11-1.18) sections itself. */
	dw = dwarf_begin_elf(ef->elf, DWARF_C_READ, NULL);
	if (!dw)
		return gt_error(-EINVAL, "cannot read DWARF of %s: %s",
				ef->path, dwarf_errmsg(-1));
	err = find_g_type(ef, dw, &g);
	if (!err)
		err = member_offset(ef, &g, "goid", &out->goid_offset, NULL);
	if (!err)
		err = member_offset(ef, &g, "stack", &stack_off, &stack);
	if (!err)
		err = peel_typedefs(ef, &stack);
	if (!err)
		err = member_offset(ef, &stack, "hi", &hi_off, NULL);
	if (!err && hi_off > UINT32_MAX - stack_off)
		err = dwarf_fail(ef, "bad member location");
	if (!err)
		out->stack_hi_offset = stack_off + hi_off;
	dwarf_end(dw);
	return err;
}

/* Does the Go string at VADDR, LEN bytes long, hold a Go version? Its minor
 * version, or -1. */
static int version_string_at(const struct elf_file *ef, uint64_t vaddr,
			     uint64_t len)
{
	char buf[BUILD_VERSION_MAX + 1];
	const uint8_t *p;
	uint64_t i;

	if (len < 4 || len > BUILD_VERSION_MAX)
		return -1;
	if (elf_file__read_vaddr(ef, vaddr, len, &p))
		return -1;
	for (i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] > 0x7e)
			return -1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return go_version__minor(buf);
}

/*
 * The Go minor version from the string runtime.buildVersion points at:
 * every 8-byte-aligned {ptr, len} pair in the file-backed part of the
 * writable segments whose bytes read "go1.N..." (or "devel go1.N...").
 * Any "go1.N" in a file name or message has no string header of exactly
 * its length, and all candidates must agree, or the version is not told.
 * Relocated pointers (PIE) read as 0 in the file: those binaries keep
 * their build info anyway.
 */
static int version_from_data(const struct elf_file *ef)
{
	int minor = -1, m;
	uint64_t ptr, len;
	const uint8_t *seg;
	size_t i, n, off;
	GElf_Phdr ph;

	if (elf_getphdrnum(ef->elf, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_W) || ph.p_offset > ef->map_size ||
		    ph.p_filesz > ef->map_size - ph.p_offset)
			continue;
		seg = (const uint8_t *)ef->map + ph.p_offset;
		/* Aligned in memory, where Go's linker aligned it. */
		off = (8 - (ph.p_vaddr & 7)) & 7;
		for (; off + 16 <= ph.p_filesz; off += 8) {
			memcpy(&len, seg + off + 8, 8);
			if (len < 4 || len > BUILD_VERSION_MAX)
				continue;
			memcpy(&ptr, seg + off, 8);
			m = version_string_at(ef, ptr, len);
			if (m < 0)
				continue;
			if (minor >= 0 && m != minor)
				return -1;
			minor = m;
		}
	}
	gt_error_clear();	/* the misses of elf_file__read_vaddr */
	return minor;
}

static int layout_from_version(const struct go_binary *bin,
			       struct goroutine_layout *out)
{
	const char *path = bin->elf->path;
	int minor = go_version__minor(bin->version);

	if (minor < 0)
		minor = version_from_data(bin->elf);
	if (minor < 0)
		return gt_error(-ENOTSUP, "cannot tell the Go version of %s",
				path);
	if (goid_by_minor(minor, &out->goid_offset))
		return gt_error(-ENOTSUP,
				"%s: runtime.g of Go 1.%d is not known (1.%d to 1.%d are); build with DWARF",
				path, minor, GOID_MIN_MINOR, GOID_MAX_MINOR);
	out->stack_hi_offset = STACK_HI_OFFSET;
	return 0;
}

/* The value of the symbol runtime.tlsg, or -ENOENT. */
static int tlsg_value(const struct elf_file *ef, uint64_t *value)
{
	Elf_Scn *scn;
	Elf_Data *data;
	GElf_Shdr shdr;
	GElf_Sym sym;
	const char *name;
	size_t i, n;

	scn = elf_file__section(ef, ".symtab", &shdr);
	if (!scn || !shdr.sh_entsize)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data)
		return gt_error(-EINVAL, "corrupt .symtab in %s: %s", ef->path,
				elf_errmsg(-1));
	n = data->d_size / shdr.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, (int)i, &sym))
			return gt_error(-EINVAL, "corrupt .symtab in %s: %s",
					ef->path, elf_errmsg(-1));
		name = elf_strptr(ef->elf, shdr.sh_link, sym.st_name);
		if (name && !strcmp(name, "runtime.tlsg")) {
			*value = sym.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * With a PT_TLS segment (cgo, external linking, PIE) g lives at
 * runtime.tlsg inside the binary's TLS block, which ends at fsbase
 * (variant II), padded to its alignment: Delve's formula,
 *   tlsg - (memsz + ((-vaddr - memsz) & (align - 1))).
 * A binary without runtime.tlsg in .symtab (stripped, or internally linked
 * PIE, whose TLS block holds only g) is taken to keep g first.
 */
static int tls_g_offset(const struct elf_file *ef, int64_t *out)
{
	uint64_t tlsg = 0, pad, align;
	GElf_Phdr ph;
	size_t i, n;
	int err;

	*out = TLS_G_DEFAULT;
	if (elf_getphdrnum(ef->elf, &n))
		return gt_error(-EINVAL, "corrupt ELF %s: %s", ef->path,
				elf_errmsg(-1));
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph))
			return gt_error(-EINVAL, "corrupt ELF %s: %s",
					ef->path, elf_errmsg(-1));
		if (ph.p_type == PT_TLS)
			break;
	}
	if (i == n)
		return 0;
	err = tlsg_value(ef, &tlsg);
	if (err && err != -ENOENT)
		return err;
	align = ph.p_align ? ph.p_align : 1;
	if ((align & (align - 1)) || ph.p_memsz > (1u << 30) || tlsg > (1u << 30))
		return gt_error(-EINVAL, "%s: implausible TLS segment",
				ef->path);
	pad = (0 - ph.p_vaddr - ph.p_memsz) & (align - 1);
	*out = (int64_t)tlsg - (int64_t)(ph.p_memsz + pad);
	return 0;
}

int goroutine_layout__find(const struct go_binary *bin,
			   struct goroutine_layout *out)
{
	const struct elf_file *ef = bin->elf;
	int err;

	memset(out, 0, sizeof(*out));
	if (bin->is_gccgo)
		return gt_error(-ENOTSUP, "gccgo binaries are not supported yet");
	err = has_debug_info(ef) ? layout_from_dwarf(ef, out) : -ENOENT;
	if (err == -ENOENT)
		err = layout_from_version(bin, out);
	if (err)
		return err;
	err = tls_g_offset(ef, &out->tls_g_offset);
	if (err)
		return err;
	out->regabi = bin->abi == GO_ABI_REGISTER;
	return 0;
}
