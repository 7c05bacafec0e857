// SPDX-License-Identifier: MIT
/*
 * A 64-bit little-endian ELF file, mapped read-only and parsed by libelf.
 * Every header, section and segment is bounds-checked against the file size
 * at open, so later lookups can hand out pointers into the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/elf_file.h"
#include "core/error.h"

/* Does [off, off+len) lie inside a file of SIZE bytes? */
static bool in_file(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/* The checks that need only the raw identification bytes. */
static int check_ident(const struct elf_file *ef)
{
	const unsigned char *id = (const unsigned char *)ef->map;

	if (ef->map_size < SELFMAG || memcmp(id, ELFMAG, SELFMAG) != 0)
		return gt_error(-ENOEXEC, "not an ELF file: %s", ef->path);
	if (ef->map_size < EI_NIDENT)
		return gt_error(-EINVAL, "truncated ELF header: %s", ef->path);
	if (id[EI_CLASS] == ELFCLASS32)
		return gt_error(-ENOTSUP, "32-bit ELF is not supported: %s",
				ef->path);
	if (id[EI_CLASS] != ELFCLASS64)
		return gt_error(-ENOEXEC, "not an ELF file: %s (bad class %u)",
				ef->path, id[EI_CLASS]);
	if (id[EI_DATA] != ELFDATA2LSB)
		return gt_error(-ENOTSUP, "big-endian ELF is not supported: %s",
				ef->path);
	if (ef->map_size < sizeof(Elf64_Ehdr))
		return gt_error(-EINVAL, "truncated ELF header: %s", ef->path);
	return 0;
}

/*
 * The section and segment header counts as the ELF header states them
 * (libelf silently clamps them to what fits in the file). Counts too large
 * for 16 bits live in section header 0.
 */
static int header_counts(const struct elf_file *ef, const GElf_Ehdr *eh,
			 uint64_t *shnum, uint64_t *phnum)
{
	Elf64_Shdr sh0;

	*shnum = eh->e_shnum;
	*phnum = eh->e_phnum;
	if (!eh->e_shoff || (*shnum && *phnum != PN_XNUM))
		return 0;
	if (!in_file(eh->e_shoff, sizeof(sh0), ef->map_size))
		return gt_error(-EINVAL,
				"truncated ELF: %s: section headers past the end",
				ef->path);
	memcpy(&sh0, ef->map + eh->e_shoff, sizeof(sh0));
	if (!*shnum)
		*shnum = sh0.sh_size;
	if (*phnum == PN_XNUM)
		*phnum = sh0.sh_info;
	return 0;
}

/* Check the program headers; keep the PT_LOAD segments, and whether there
 * is an interpreter. */
static int check_segments(struct elf_file *ef, const GElf_Ehdr *eh,
			  uint64_t phnum)
{
	GElf_Phdr ph;
	size_t i, n;

	if (phnum && (eh->e_phentsize != sizeof(Elf64_Phdr) ||
		      phnum > ef->map_size / sizeof(Elf64_Phdr) ||
		      !in_file(eh->e_phoff, phnum * sizeof(Elf64_Phdr),
			       ef->map_size)))
		return gt_error(-EINVAL,
				"truncated ELF: %s: program headers past the end",
				ef->path);
	if (elf_getphdrnum(ef->elf, &n) || n != phnum)
		return gt_error(-EINVAL, "corrupt ELF: %s: program headers",
				ef->path);
	ef->loads = calloc(n ? n : 1, sizeof(*ef->loads));
	if (!ef->loads)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph))
			return gt_error(-EINVAL, "corrupt ELF: %s: %s",
					ef->path, elf_errmsg(-1));
		ef->program |= ph.p_type == PT_INTERP;
		if (ph.p_type != PT_LOAD)
			continue;
		if (!in_file(ph.p_offset, ph.p_filesz, ef->map_size))
			return gt_error(-EINVAL,
					"truncated ELF: %s: segment %zu past the end",
					ef->path, i);
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr ||
		    ph.p_filesz > ph.p_memsz)
			return gt_error(-EINVAL, "corrupt ELF: %s: segment %zu",
					ef->path, i);
		ef->loads[ef->nloads++] = (struct elf_load){
			ph.p_vaddr, ph.p_filesz, ph.p_offset, ph.p_flags & PF_X,
		};
	}
	return 0;
}

static int check_sections(const struct elf_file *ef, const GElf_Ehdr *eh,
			  uint64_t shnum)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n, strndx;

	if (shnum && (eh->e_shentsize != sizeof(Elf64_Shdr) ||
		      shnum > ef->map_size / sizeof(Elf64_Shdr) ||
		      !in_file(eh->e_shoff, shnum * sizeof(Elf64_Shdr),
			       ef->map_size)))
		return gt_error(-EINVAL,
				"truncated ELF: %s: section headers past the end",
				ef->path);
	if (elf_getshdrnum(ef->elf, &n) || n != shnum)
		return gt_error(-EINVAL, "corrupt ELF: %s: section headers",
				ef->path);
	if (!n)
		return 0;
	if (elf_getshdrstrndx(ef->elf, &strndx) || strndx >= n)
		return gt_error(-EINVAL, "corrupt ELF: %s: no section names",
				ef->path);
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return gt_error(-EINVAL, "corrupt ELF: %s: %s",
					ef->path, elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS &&
		    !in_file(sh.sh_offset, sh.sh_size, ef->map_size))
			return gt_error(-EINVAL,
					"truncated ELF: %s: section %zu past the end",
					ef->path, elf_ndxscn(scn));
	}
	return 0;
}

static int check_elf(struct elf_file *ef)
{
	uint64_t shnum, phnum;
	GElf_Ehdr eh;
	int err;

	err = check_ident(ef);
	if (err)
		return err;
	elf_version(EV_CURRENT);
	/* MAP_PRIVATE mapping: libelf may write to it, the file never sees it */
	ef->elf = elf_memory((char *)ef->map, ef->map_size);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &eh))
		return gt_error(-EINVAL, "corrupt ELF: %s: %s", ef->path,
				elf_errmsg(-1));
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return gt_error(-ENOEXEC,
				"not an executable or shared library: %s",
				ef->path);
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)
		return gt_error(-ENOTSUP,
				"unsupported machine %u (only x86_64 and aarch64): %s",
				eh.e_machine, ef->path);
	ef->machine = eh.e_machine;
	ef->type = eh.e_type;
	ef->program = eh.e_type == ET_EXEC;
	err = header_counts(ef, &eh, &shnum, &phnum);
	if (!err)
		err = check_segments(ef, &eh, phnum);
	if (!err)
		err = check_sections(ef, &eh, shnum);
	return err;
}

static int open_error(int err, const char *path)
{
	if (err == ENOENT || err == ENOTDIR)
		return gt_error(-ENOENT, "no such file: %s", path);
	if (err == EACCES || err == EPERM)
		return gt_error(-EACCES, "permission denied: %s", path);
	return gt_error(-err, "cannot open %s: %s", path, strerror(err));
}

static int map_file(struct elf_file *ef)
{
	struct stat st;
	void *map;

	ef->fd = open(ef->path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return open_error(errno, ef->path);
	if (fstat(ef->fd, &st))
		return gt_error(-errno, "cannot stat %s: %s", ef->path,
				strerror(errno));
	if (S_ISDIR(st.st_mode))
		return gt_error(-ENOEXEC, "not an ELF file: %s is a directory",
				ef->path);
	if (!S_ISREG(st.st_mode))
		return gt_error(-ENOEXEC, "not an ELF file: %s is not a regular file",
				ef->path);
	if (st.st_size == 0)
		return gt_error(-ENOEXEC, "not an ELF file: %s is empty",
				ef->path);
	if ((uint64_t)st.st_size > SIZE_MAX)
		return gt_error(-EFBIG, "file too large: %s", ef->path);
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		   ef->fd, 0);
	if (map == MAP_FAILED)
		return gt_error(-errno, "cannot map %s: %s", ef->path,
				strerror(errno));
	ef->map = map;
	ef->map_size = st.st_size;
	return 0;
}

int elf_file__open(const char *path, struct elf_file **out)
{
	struct elf_file *ef;
	int err;

	*out = NULL;
	ef = calloc(1, sizeof(*ef));
	if (!ef)
		return gt_error(-ENOMEM, "out of memory");
	ef->fd = -1;
	ef->path = strdup(path);
	if (!ef->path) {
		free(ef);
		return gt_error(-ENOMEM, "out of memory");
	}
	err = map_file(ef);
	if (!err)
		err = check_elf(ef);
	if (err) {
		elf_file__close(ef);
		return err;
	}
	*out = ef;
	return 0;
}

static const char *machine_name(uint16_t machine)
{
	return machine == EM_X86_64 ? "x86-64" : "arm64";
}

/* The machine this build runs on, whose kernel runs its BPF programs. */
#if defined(__aarch64__)
#define TRACED_MACHINE	EM_AARCH64
#else
#define TRACED_MACHINE	EM_X86_64
#endif

int elf_file__check_machine(const struct elf_file *ef)
{
	if (ef->machine != TRACED_MACHINE)
		return gt_error(-ENOEXEC, "%s: %s code, and this build of gotools traces %s code only",
				ef->path, machine_name(ef->machine),
				machine_name(TRACED_MACHINE));
	return 0;
}

void elf_file__close(struct elf_file *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->map)
		munmap((void *)ef->map, ef->map_size);
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef->loads);
	free(ef->path);
	free(ef);
}

Elf_Scn *elf_file__section(const struct elf_file *ef, const char *name,
			   GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	const char *sname;
	size_t strndx;

	if (elf_getshdrstrndx(ef->elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, shdr))
			return NULL;
		sname = elf_strptr(ef->elf, strndx, shdr->sh_name);
		if (sname && strcmp(sname, name) == 0)
			return scn;
	}
	return NULL;
}

int elf_file__section_bytes(const struct elf_file *ef, const char *name,
			    const uint8_t **data, size_t *size)
{
	GElf_Shdr sh;

	if (!elf_file__section(ef, name, &sh))
		return gt_error(-ENOENT, "%s: no section %s", ef->path, name);
	if (sh.sh_type == SHT_NOBITS ||
	    !in_file(sh.sh_offset, sh.sh_size, ef->map_size))
		return gt_error(-EINVAL, "%s: section %s is not in the file",
				ef->path, name);
	*data = (const uint8_t *)ef->map + sh.sh_offset;
	*size = sh.sh_size;
	return 0;
}

/* Each defined symbol of the first section of TYPE to FN: 0, FN's
 * non-zero value, or -ENOENT when there is no such section. Undefined
 * symbols (imports, in .dynsym) are left out. */
static int each_symbol_in(const struct elf_file *ef, Elf64_Word type,
			  elf_symbol_fn fn, void *ctx)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym s;
	const char *sname;
	size_t i, n;
	int err;

	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return -ENOENT;
	n = data->d_size / sh.sh_entsize;
	for (i = 0; i < n && gelf_getsym(data, i, &s); i++) {
		if (s.st_shndx == SHN_UNDEF)
			continue;
		sname = elf_strptr(ef->elf, sh.sh_link, s.st_name);
		if (sname && (err = fn(ctx, sname, s.st_value)))
			return err;
	}
	return 0;
}

struct symbol_query {
	const char *name;
	uint64_t value;
};

static int match_symbol(void *ctx, const char *name, uint64_t value)
{
	struct symbol_query *q = ctx;

	if (strcmp(name, q->name))
		return 0;
	q->value = value;
	return 1;
}

int elf_file__symbol(const struct elf_file *ef, const char *name,
		     uint64_t *value)
{
	struct symbol_query q = { name, 0 };

	if (each_symbol_in(ef, SHT_SYMTAB, match_symbol, &q) == 1 ||
	    each_symbol_in(ef, SHT_DYNSYM, match_symbol, &q) == 1) {
		*value = q.value;
		return 0;
	}
	return gt_error(-ENOENT, "%s: no symbol %s", ef->path, name);
}

int elf_file__each_symbol(const struct elf_file *ef, elf_symbol_fn fn,
			  void *ctx)
{
	return each_symbol_in(ef, SHT_SYMTAB, fn, ctx);
}

/* The PT_LOAD whose file-backed part holds [vaddr, vaddr+len), or NULL. */
static const struct elf_load *find_load(const struct elf_file *ef,
					uint64_t vaddr, uint64_t len)
{
	const struct elf_load *l;
	size_t i;

	for (i = 0; i < ef->nloads; i++) {
		l = &ef->loads[i];
		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz &&
		    len <= l->filesz - (vaddr - l->vaddr))
			return l;
	}
	return NULL;
}

int elf_file__vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr,
			      uint64_t *off)
{
	const struct elf_load *l = find_load(ef, vaddr, 1);

	if (!l)
		return gt_error(-ERANGE, "%s: address 0x%llx is in no segment",
				ef->path, (unsigned long long)vaddr);
	*off = l->offset + (vaddr - l->vaddr);
	return 0;
}

int elf_file__offset_to_vaddr(const struct elf_file *ef, uint64_t off,
			      uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < ef->nloads; i++) {
		const struct elf_load *l = &ef->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = l->vaddr + (off - l->offset);
			return 0;
		}
	}
	return gt_error(-ERANGE, "%s: file offset 0x%llx is in no segment",
			ef->path, (unsigned long long)off);
}

/* The lowest address of the segments (CODE: the executable ones), 0 when
 * there are none. */
static uint64_t first_vaddr(const struct elf_file *ef, bool code)
{
	uint64_t low = UINT64_MAX;
	size_t i;

	for (i = 0; i < ef->nloads; i++)
		if ((!code || ef->loads[i].exec) && ef->loads[i].vaddr < low)
			low = ef->loads[i].vaddr;
	return low == UINT64_MAX ? 0 : low;
}

uint64_t elf_file__first_vaddr(const struct elf_file *ef)
{
	return first_vaddr(ef, false);
}

uint64_t elf_file__first_code_vaddr(const struct elf_file *ef)
{
	return first_vaddr(ef, true);
}

int elf_file__read_vaddr(const struct elf_file *ef, uint64_t vaddr,
			 size_t len, const uint8_t **data)
{
	const struct elf_load *l = find_load(ef, vaddr, len ? len : 1);

	if (!l)
		return gt_error(-ERANGE,
				"%s: %zu bytes at 0x%llx are not in the file",
				ef->path, len, (unsigned long long)vaddr);
	*data = (const uint8_t *)ef->map + l->offset + (vaddr - l->vaddr);
	return 0;
}

/* The relocation that sets a word to the load bias plus its addend. */
static uint32_t relative_type(uint16_t machine)
{
	return machine == EM_AARCH64 ? R_AARCH64_RELATIVE : R_X86_64_RELATIVE;
}

/* Set the words of OUT that RELATIVE relocations of the SHT_RELA section
 * SCN place at [VADDR, VADDR + N * STRIDE), on STRIDE boundaries. */
static void apply_relative(const struct elf_file *ef, Elf_Scn *scn,
			   const GElf_Shdr *sh, uint64_t vaddr, size_t n,
			   size_t stride, uint64_t *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, count;
	GElf_Rela r;

	if (!data || !sh->sh_entsize)
		return;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		if (!gelf_getrela(data, (int)i, &r) ||
		    GELF_R_TYPE(r.r_info) != relative_type(ef->machine) ||
		    r.r_offset < vaddr || r.r_offset - vaddr >= n * stride ||
		    (r.r_offset - vaddr) % stride)
			continue;
		out[(r.r_offset - vaddr) / stride] = (uint64_t)r.r_addend;
	}
}

int elf_file__read_pointers(const struct elf_file *ef, uint64_t vaddr,
			    size_t n, size_t stride, uint64_t *out)
{
	const uint8_t *p;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i;
	int err;

	if (!n)
		return 0;
	if (stride < 8 || n > SIZE_MAX / stride)
		return gt_error(-ERANGE, "%s: %zu pointers at 0x%llx",
				ef->path, n, (unsigned long long)vaddr);
	err = elf_file__read_vaddr(ef, vaddr, (n - 1) * stride + 8, &p);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		memcpy(&out[i], p + i * stride, 8);
	if (ef->type != ET_DYN)
		return 0;
	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			apply_relative(ef, scn, &sh, vaddr, n, stride, out);
	return 0;
}
