// SPDX-License-Identifier: MIT
/*
 * Type names from the type descriptors of a gc-compiled binary. Formats,
 * from runtime/type.go (to 1.20) and internal/abi/type.go (1.21-1.27), the
 * same on amd64 and arm64:
 *
 *   rtype / abi.Type: its header as gobin/abi_type.h lays it out.
 *   str is an offset from moduledata.types to a name: a flag byte, the
 *     length (1.17+: a uvarint; before: 2 bytes big-endian), the bytes.
 *   tflagExtraStar (1 << 1): the stored name has a '*' in front that the
 *     type's own name drops (the linker shares "*T" between T and *T).
 *
 * Nothing marks where one descriptor starts, so an address is taken for a
 * type when it lies in the type data, is aligned, and its header and name
 * are plausible; a wrong guess yields some name, never a bad read.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "core/byteorder.h"
#include "core/error.h"
#include "gobin/abi_type.h"
#include "gobin/go_moduledata.h"
#include "gobin/go_rtype.h"
#include "gobin/reflect_kind.h"


struct name_slot {
	uint64_t addr;		/* 0: empty */
	char *name;
};

struct go_rtypes {
	const char *path;
	uint64_t types, etypes;
	const uint8_t *data;	/* the file bytes of [types, etypes) */
	bool varint_names;	/* Go 1.17+ */
	struct name_slot *slots;	/* open addressing on addr */
	size_t nslots;		/* a power of two, or 0 */
	size_t nnames;
};

/* Go 1.17 moved name lengths from 2 bytes to a uvarint. */
static int name_encoding(const struct go_binary *bin, bool *varint)
{
	int minor = go_version__minor(bin->version);

	if (minor >= 0) {
		*varint = minor >= 17;
		return 0;
	}
	if (bin->pclntab->version == PCLNTAB_GO116)
		return gt_error(-ENOTSUP,
				"%s: unknown Go version: type names of Go 1.16 and 1.17 differ",
				bin->elf->path);
	*varint = bin->pclntab->version >= PCLNTAB_GO118;
	return 0;
}

/* moduledata.types .. etypes, from the symbols or from moduledata. */
static int find_types(const struct go_binary *bin, uint64_t *types,
		      uint64_t *etypes)
{
	struct go_moduledata md;
	int err;

	if (!elf_file__symbol(bin->elf, "runtime.types", types) &&
	    !elf_file__symbol(bin->elf, "runtime.etypes", etypes))
		return 0;
	err = go_moduledata__find(bin, &md);
	*types = md.types;
	*etypes = md.etypes;
	return err;
}

int go_rtypes__open(const struct go_binary *bin, struct go_rtypes **out)
{
	struct go_rtypes *r;
	int err;

	*out = NULL;
	if (bin->is_gccgo)
		return gt_error(-ENOTSUP,
				"%s: gccgo type descriptors are not supported",
				bin->elf->path);
	if (!bin->pclntab)
		return gt_error(-ENOTSUP, "%s: no pclntab, no type data",
				bin->elf->path);
	r = calloc(1, sizeof(*r));
	if (!r)
		return gt_error(-ENOMEM, "out of memory");
	r->path = bin->elf->path;
	err = name_encoding(bin, &r->varint_names);
	if (!err)
		err = find_types(bin, &r->types, &r->etypes);
	if (!err && (r->etypes < r->types ||
		     elf_file__read_vaddr(bin->elf, r->types,
					  r->etypes - r->types, &r->data)))
		err = gt_error(-ENOTSUP,
			       "%s: type data 0x%llx-0x%llx is not in the file",
			       r->path, (unsigned long long)r->types,
			       (unsigned long long)r->etypes);
	if (err) {
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

int go_rtypes__open_data(const uint8_t *data, uint64_t start, uint64_t end,
			 bool varint, const char *path, struct go_rtypes **out)
{
	struct go_rtypes *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return gt_error(-ENOMEM, "out of memory");
	r->path = path;
	r->data = data;
	r->types = start;
	r->etypes = end < start ? start : end;
	r->varint_names = varint;
	*out = r;
	return 0;
}

const char *go_rtypes__path(const struct go_rtypes *r)
{
	return r->path;
}

void go_rtypes__close(struct go_rtypes *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nslots; i++)
		free(r->slots[i].name);
	free(r->slots);
	free(r);
}

static size_t slot_of(const struct go_rtypes *r, uint64_t addr)
{
	size_t i = (size_t)((addr >> 3) * 0x9e3779b97f4a7c15ull);

	for (i &= r->nslots - 1; r->slots[i].addr && r->slots[i].addr != addr;
	     i = (i + 1) & (r->nslots - 1))
		;
	return i;
}

static const char *cached(const struct go_rtypes *r, uint64_t addr)
{
	return r->nslots ? r->slots[slot_of(r, addr)].name : NULL;
}

/* Keep NAME (malloc()ed) for ADDR, which is not cached yet. */
static int cache(struct go_rtypes *r, uint64_t addr, char *name)
{
	struct name_slot *old = r->slots;
	size_t i, n = r->nslots;

	if (2 * (r->nnames + 1) > r->nslots) {
		r->nslots = n ? 2 * n : 64;
		r->slots = calloc(r->nslots, sizeof(*r->slots));
		if (!r->slots) {
			r->slots = old;
			r->nslots = n;
			free(name);
			return gt_error(-ENOMEM, "out of memory");
		}
		for (i = 0; i < n; i++)
			if (old[i].addr)
				r->slots[slot_of(r, old[i].addr)] = old[i];
		free(old);
	}
	i = slot_of(r, addr);
	r->slots[i].addr = addr;
	r->slots[i].name = name;
	r->nnames++;
	return 0;
}

static bool pow2(uint8_t x)
{
	return x && !(x & (x - 1));
}

/* The header T of the type at ADDR: -ENOENT unless it looks like one. */
static int check_header(const struct go_rtypes *r, uint64_t addr,
			const uint8_t *t)
{
	uint64_t size = get_u64(t), ptrdata = get_u64(t + 8);
	uint8_t kind = t[ABI_TYPE_KIND] & REFLECT_KIND_MASK;

	if (!kind || kind > REFLECT_KIND_UNSAFE_POINTER ||
	    !pow2(t[ABI_TYPE_ALIGN]) || !pow2(t[ABI_TYPE_FIELD_ALIGN]) ||
	    ptrdata > size)
		return gt_error(-ENOENT, "%s: no type at 0x%llx", r->path,
				(unsigned long long)addr);
	return 0;
}

/* The bytes and length of the name at offset OFF in the type data. */
static int read_name(const struct go_rtypes *r, uint64_t addr, int32_t off,
		     const uint8_t **s, size_t *len)
{
	uint64_t end = r->etypes - r->types, pos = (uint64_t)off + 1;
	unsigned shift = 0;
	uint8_t b;

	if (off <= 0 || pos > end)
		goto bad;
	*len = 0;
	if (!r->varint_names) {
		if (end - pos < 2)
			goto bad;
		*len = (size_t)r->data[pos] << 8 | r->data[pos + 1];
		pos += 2;
	} else {
		do {
			if (pos >= end || shift > 28)
				goto bad;
			b = r->data[pos++];
			*len |= (size_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
	}
	if (!*len || *len > end - pos)
		goto bad;
	*s = r->data + pos;
	return 0;
bad:
	return gt_error(-EINVAL, "%s: bad name offset %d of the type at 0x%llx",
			r->path, off, (unsigned long long)addr);
}

static int decode(const struct go_rtypes *r, uint64_t addr, char **out)
{
	const uint8_t *t = r->data + (addr - r->types), *s = NULL;
	size_t len = 0, i;
	int err;

	err = check_header(r, addr, t);
	if (!err)
		err = read_name(r, addr, (int32_t)get_u32(t + ABI_TYPE_STR), &s, &len);
	if (err)
		return err;
	for (i = 0; i < len; i++)
		if (s[i] < 0x20 || s[i] == 0x7f)
			return gt_error(-EINVAL,
					"%s: the type at 0x%llx has a name with control bytes",
					r->path, (unsigned long long)addr);
	if (t[ABI_TYPE_TFLAG] & ABI_TFLAG_EXTRA_STAR) {
		if (len < 2 || s[0] != '*')
			return gt_error(-EINVAL,
					"%s: the type at 0x%llx lacks the '*' its flags promise",
					r->path, (unsigned long long)addr);
		s++;
		len--;
	}
	*out = strndup((const char *)s, len);
	if (!*out)
		return gt_error(-ENOMEM, "out of memory");
	return 0;
}

int go_rtypes__name(struct go_rtypes *r, uint64_t addr, const char **name)
{
	char *s;
	int err;

	if (addr < r->types || addr > r->etypes || addr % 8 ||
	    r->etypes - addr < ABI_TYPE_SIZE)
		return gt_error(-ENOENT, "%s: 0x%llx is not in the type data",
				r->path, (unsigned long long)addr);
	*name = cached(r, addr);
	if (*name)
		return 0;
	err = decode(r, addr, &s);
	if (!err)
		err = cache(r, addr, s);
	if (!err)
		*name = s;
	return err;
}

uint64_t go_rtypes__start(const struct go_rtypes *r)
{
	return r->types;
}

const uint8_t *go_rtypes__data(const struct go_rtypes *r, uint64_t *start,
			       uint64_t *end)
{
	*start = r->types;
	*end = r->etypes;
	return r->data;
}

int go_rtypes__name_at(const struct go_rtypes *r, uint64_t addr,
		       const uint8_t **s, size_t *len, uint8_t *flags)
{
	int err;

	if (addr <= r->types || addr >= r->etypes || addr - r->types > INT32_MAX)
		return gt_error(-EINVAL, "%s: no name at 0x%llx", r->path,
				(unsigned long long)addr);
	err = read_name(r, addr, (int32_t)(addr - r->types), s, len);
	if (!err)
		*flags = r->data[addr - r->types];
	return err;
}

void go_rtype__gccgo_name(const char *name, size_t len, char *out, size_t size)
{
	bool quoted = false;
	size_t i, n = 0;

	if (!size)
		return;
	for (i = 0; i < len && n + 1 < size; i++) {
		if (name[i] == '\t')
			quoted = !quoted;
		else if (!quoted)
			out[n++] = name[i];
	}
	out[n] = '\0';
}
