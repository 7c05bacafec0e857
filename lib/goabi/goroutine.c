// SPDX-License-Identifier: MIT
/*
 * Where BPF finds the running goroutine (goroutine.h).
 *
 * runtime.g offsets come from the DWARF type when the binary has one, else
 * from its Go version, by a table read off runtime2.go of each release
 * (goid_by_minor). A binary without build info still names its version in
 * runtime.buildVersion, a Go string {ptr, len} in a writable data segment
 * pointing at "go1.N..." in the read-only data: that pair is what we look
 * for (version_from_data).
 */
#include <errno.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_dwarf.h"
#include "goabi/goroutine.h"

/* runtime.g.goid by Go minor version, from runtime2.go of each release. */
#define GOID_MIN_MINOR	13
#define GOID_MAX_MINOR	27
/* runtime.g starts with stack {lo, hi}, in every version. */
#define STACK_HI_OFFSET	8
/* runtime.g.waitreason follows goid, schedlink and waitsince, in every
 * version from 1.13 to 1.27. */
#define WAITREASON_AFTER_GOID	24
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

/* Offsets from the DWARF type runtime.g: 0, -ENOENT when BIN has no DWARF
 * or no such type or member, or another negative errno. */
static int layout_from_dwarf(const struct go_binary *bin,
			     struct goroutine_layout *out)
{
	uint64_t goid = 0, stack_hi = 0, waitreason = 0;
	struct go_dwarf *d;
	int err;

	err = go_dwarf__open(bin, &d);
	if (err)
		return err;
	err = go_dwarf__member_offset(d, "runtime.g", "goid", &goid);
	if (!err)
		err = go_dwarf__member_offset(d, "runtime.g", "stack.hi",
					      &stack_hi);
	if (!err)
		err = go_dwarf__member_offset(d, "runtime.g", "waitreason",
					      &waitreason);
	go_dwarf__close(d);
	if (err)
		return err;
	if (goid > UINT32_MAX || stack_hi > UINT32_MAX ||
	    waitreason > UINT32_MAX)
		return gt_error(-EINVAL, "corrupt DWARF in %s: runtime.g is over 4 GiB",
				bin->elf->path);
	out->goid_offset = (uint32_t)goid;
	out->stack_hi_offset = (uint32_t)stack_hi;
	out->waitreason_offset = (uint32_t)waitreason;
	return 0;
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
	out->waitreason_offset = out->goid_offset + WAITREASON_AFTER_GOID;
	return 0;
}

/*
 * Where the variable at VALUE in the executable's TLS block lies from
 * fsbase: the block ends there (variant II), padded to its alignment:
 * Delve's formula, value - (memsz + ((-vaddr - memsz) & (align - 1))).
 * -ENOENT without a PT_TLS segment.
 */
static int tls_offset(const struct elf_file *ef, uint64_t value, int64_t *out)
{
	uint64_t pad, align;
	GElf_Phdr ph;
	size_t i, n;

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
		return -ENOENT;
	align = ph.p_align ? ph.p_align : 1;
	if ((align & (align - 1)) || ph.p_memsz > (1u << 30) || value > (1u << 30))
		return gt_error(-EINVAL, "%s: implausible TLS segment",
				ef->path);
	pad = (0 - ph.p_vaddr - ph.p_memsz) & (align - 1);
	*out = (int64_t)value - (int64_t)(ph.p_memsz + pad);
	return 0;
}

/*
 * With a PT_TLS segment (cgo, external linking, PIE) g lives at
 * runtime.tlsg inside the binary's TLS block. A binary without
 * runtime.tlsg in its symbols (stripped, or internally linked PIE, whose
 * TLS block holds only g) is taken to keep g first; one without PT_TLS at
 * -8.
 */
static int tls_g_offset(const struct elf_file *ef, int64_t *out)
{
	uint64_t tlsg;
	int err;

	if (elf_file__symbol(ef, "runtime.tlsg", &tlsg)) {
		tlsg = 0;
		gt_error_clear();
	}
	err = tls_offset(ef, tlsg, out);
	if (err == -ENOENT) {
		*out = TLS_G_DEFAULT;
		return 0;
	}
	return err;
}

/*
 * gccgo: libgo's g is a TLS variable of libgo.so, whose place the loader
 * chooses at run time, but its goroutines run on split stacks, and the
 * executable links libgcc's generic-morestack, whose
 * __morestack_current_segment (the running goroutine's current stack
 * segment, which libgo saves and restores at each switch) lies in the
 * executable's own TLS block, where the linker placed it. On x86-64 only:
 * gccgo has no split stacks on arm64, whose goroutines run on stacks of a
 * fixed size that nothing BPF reads names.
 */
static int layout_from_split_stacks(const struct elf_file *ef,
				    struct goroutine_layout *out)
{
	uint64_t value;
	int err;

	if (!ef->program)
		return gt_error(-ENOTSUP, "%s is a library: the program's executable tells its goroutines apart (name it with -p or -c)",
				ef->path);
	if (elf_file__symbol(ef, "__morestack_current_segment", &value)) {
		gt_error_clear();
		/* fixed stacks, and g a TLS variable of libgo.so */
		if (ef->machine == EM_AARCH64)
			return gt_error(-ENOTSUP, "%s: gccgo has no split stacks on arm64, and they alone tell its goroutines apart",
					ef->path);
		return gt_error(-ENOTSUP, "%s is built by gccgo without split stacks, which tell its goroutines apart",
				ef->path);
	}
	err = tls_offset(ef, value, &out->tls_segment_offset);
	if (err == -ENOENT)
		return gt_error(-EINVAL, "%s: __morestack_current_segment without a TLS segment",
				ef->path);
	return err;
}

int goroutine_layout__find(const struct go_binary *bin,
			   struct goroutine_layout *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if (bin->is_gccgo)
		return layout_from_split_stacks(bin->elf, out);
	err = layout_from_dwarf(bin, out);
	if (err == -ENOENT) {
		gt_error_clear();
		err = layout_from_version(bin, out);
	}
	if (err)
		return err;
	err = tls_g_offset(bin->elf, &out->tls_g_offset);
	if (err)
		return err;
	return 0;
}

int goroutine_layout__find_in(const struct go_binary *bin, const char *exe,
			      struct goroutine_layout *out)
{
	struct go_binary *prog = NULL;
	int err;

	if (!bin->is_gccgo || bin->elf->program || !exe)
		return goroutine_layout__find(bin, out);
	err = go_binary__open(exe, &prog);
	if (!err && !prog->is_gccgo)
		err = gt_error(-ENOTSUP, "%s: libgo's functions traced in a program not built by gccgo",
			       prog->elf->path);
	if (!err)
		err = goroutine_layout__find(prog, out);
	go_binary__close(prog);
	return err;
}
