// SPDX-License-Identifier: MIT
/*
 * A Go binary: functions from the ELF symbol table when there is one, else
 * from the pclntab (which survives stripping); the Go version from build
 * info; gccgo binaries and libgo recognised by their marks.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gobin/buildinfo.h"
#include "core/byteorder.h"
#include "core/error.h"
#include "core/mem.h"
#include "gobin/go_binary.h"
#include "gobin/debug_file.h"
#include "gobin/pclntab.h"

/* A function symbol before deduplication; RANK prefers global symbols. */
struct sym {
	struct go_func f;
	int rank;
};

struct sym_list {
	struct sym *v;
	size_t n, cap;
};

static int sym_list__add(struct sym_list *l, const char *name, size_t len,
			 uint64_t addr, uint64_t size, int rank)
{
	struct sym *v;
	int err;

	err = gt_ensure_mem((void **)&l->v, &l->cap, sizeof(*l->v), l->n + 1);
	if (err)
		return err;
	v = &l->v[l->n];
	v->f.name = strndup(name, len);
	if (!v->f.name)
		return gt_error(-ENOMEM, "out of memory");
	v->f.addr = addr;
	v->f.size = size;
	v->rank = rank;
	l->n++;
	return 0;
}

static void sym_list__free(struct sym_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].f.name);
	free(l->v);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->f.addr != y->f.addr)
		return x->f.addr < y->f.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->f.name, y->f.name);
}

/* Sort by address and keep one function per address (aliases such as a
 * local and a global symbol for the same code), moving them into BIN. */
static int sym_list__finish(struct sym_list *l, struct go_binary *bin)
{
	size_t i, n = 0;

	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof(*l->v), sym_cmp);
	bin->funcs = calloc(l->n, sizeof(*bin->funcs));
	if (!bin->funcs)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++) {
		if (n && bin->funcs[n - 1].addr == l->v[i].f.addr) {
			free(l->v[i].f.name);
			continue;
		}
		bin->funcs[n++] = l->v[i].f;
	}
	bin->nfuncs = n;
	l->n = 0;
	return 0;
}

static int binding_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

static Elf_Scn *section_of_type(const struct elf_file *ef, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

/* The defined, sized functions of symbol table SCN (.symtab or .dynsym). */
static int read_symbols(const struct elf_file *ef, Elf_Scn *scn,
			struct sym_list *out)
{
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Sym s;
	const char *name;
	size_t i, n, len;
	int err;

	if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return gt_error(-EINVAL, "corrupt symbol table: %s", ef->path);
	data = elf_getdata(scn, NULL);
	if (!data)
		return gt_error(-EINVAL, "corrupt symbol table: %s: %s",
				ef->path, elf_errmsg(-1));
	n = data->d_size / sh.sh_entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, i, &s))
			return gt_error(-EINVAL, "corrupt symbol table: %s",
					ef->path);
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(ef->elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		/* Go's linker renames the ABI0 twin of a function NAME.abi0 */
		len = strlen(name);
		if (len > 5 && strcmp(name + len - 5, ".abi0") == 0)
			len -= 5;
		err = sym_list__add(out, name, len, s.st_value, s.st_size,
				    binding_rank(GELF_ST_BIND(s.st_info)));
		if (err)
			return err;
	}
	return 0;
}

static bool is_exec_vaddr(const struct elf_file *ef, uint64_t vaddr)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(ef->elf, &n))
		return false;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(ef->elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr < ph.p_filesz)
			return true;
	return false;
}

/*
 * runtime.firstmoduledata starts with a pointer to the pclntab header and
 * holds minpc, maxpc, text and etext at +160..+184 (Go 1.16 - 1.27). Find
 * it in section NAME and return its text field, or 0.
 */
static uint64_t moduledata_text(const struct elf_file *ef, const char *name,
				uint64_t pcln_vaddr)
{
	const uint8_t *d, *md;
	uint64_t minpc, maxpc, text, etext;
	size_t size, off;

	if (elf_file__section_bytes(ef, name, &d, &size))
		return 0;
	for (off = 0; size >= 192 && off <= size - 192; off += 8) {
		md = d + off;
		if (get_u64(md) != pcln_vaddr)
			continue;
		minpc = get_u64(md + 160);
		maxpc = get_u64(md + 168);
		text = get_u64(md + 176);
		etext = get_u64(md + 184);
		if (text <= minpc && minpc < maxpc && maxpc <= etext &&
		    is_exec_vaddr(ef, text))
			return text;
	}
	return 0;
}

/*
 * The start of the Go text that pclntab entry offsets are relative to, for
 * Go 1.26+ tables whose header holds 0. With external linking (cgo, PIE)
 * .text starts with C code before runtime.text, hence the other sources.
 */
static uint64_t text_start(const struct elf_file *ef, uint64_t pcln_vaddr)
{
	GElf_Shdr sh;
	uint64_t text;

	if (elf_file__symbol(ef, "runtime.text", &text))
		text = 0;
	/* moduledata has its own section from Go 1.26 */
	if (!text)
		text = moduledata_text(ef, ".go.module", pcln_vaddr);
	if (!text)
		text = moduledata_text(ef, ".noptrdata", pcln_vaddr);
	if (!text)
		text = moduledata_text(ef, ".data", pcln_vaddr);
	if (!text && elf_file__section(ef, ".text", &sh))
		text = sh.sh_addr;
	return text;
}

/* The pclntab's section: PIE binaries up to Go 1.25 keep it in relro. */
static const char *pclntab_section(const struct elf_file *ef, GElf_Shdr *sh)
{
	if (elf_file__section(ef, ".gopclntab", sh))
		return ".gopclntab";
	if (elf_file__section(ef, ".data.rel.ro.gopclntab", sh))
		return ".data.rel.ro.gopclntab";
	return NULL;
}

/* Parse the pclntab of section SCN_NAME into bin->pclntab. */
static int parse_pclntab(struct go_binary *bin, const char *scn_name,
			 const GElf_Shdr *sh)
{
	const uint8_t *data;
	char why[256];
	size_t size;
	int err;

	err = elf_file__section_bytes(bin->elf, scn_name, &data, &size);
	if (err)
		return err;
	err = pclntab__parse(data, size, text_start(bin->elf, sh->sh_addr),
			     &bin->pclntab);
	if (err) {
		snprintf(why, sizeof(why), "%s", gt_last_error());
		return gt_error(err, "%s: %s", bin->elf->path, why);
	}
	return 0;
}

static int read_pclntab_funcs(struct go_binary *bin)
{
	const struct pclntab *tab = bin->pclntab;
	struct sym_list l = {};
	size_t i;
	int err = 0;

	for (i = 0; i < tab->nfuncs && !err; i++) {
		const struct pclntab_func *f = &tab->funcs[i];

		err = sym_list__add(&l, f->name, strlen(f->name), f->entry,
				    f->end > f->entry ? f->end - f->entry : 0,
				    0);
	}
	if (!err)
		err = sym_list__finish(&l, bin);
	sym_list__free(&l);
	bin->source = GO_FUNCS_PCLNTAB;
	return err;
}

static int read_vaddr_cb(void *ctx, uint64_t vaddr, size_t len,
			 const uint8_t **out)
{
	return elf_file__read_vaddr(ctx, vaddr, len, out);
}

/* Build info from .go.buildinfo, or from the first writable data segment
 * of binaries whose section names are gone. Leaves "" when absent. */
static void read_version(struct go_binary *bin)
{
	const struct elf_file *ef = bin->elf;
	const uint8_t *data;
	GElf_Phdr ph;
	size_t size, i, n;

	bin->version[0] = '\0';
	if (!elf_file__section_bytes(ef, ".go.buildinfo", &data, &size)) {
		if (buildinfo__version(data, size, read_vaddr_cb, (void *)ef,
				       bin->version, sizeof(bin->version)))
			bin->version[0] = '\0';
		return;
	}
	if (elf_getphdrnum(ef->elf, &n))
		return;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & (PF_W | PF_X)) != PF_W)
			continue;
		if (buildinfo__version((const uint8_t *)ef->map + ph.p_offset,
				       ph.p_filesz, read_vaddr_cb, (void *)ef,
				       bin->version, sizeof(bin->version)))
			bin->version[0] = '\0';
		return;
	}
}

static bool needs_libgo(const struct elf_file *ef)
{
	Elf_Scn *scn = section_of_type(ef, SHT_DYNAMIC);
	Elf_Data *data;
	GElf_Shdr sh;
	GElf_Dyn dyn;
	const char *name;
	size_t i, n;

	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
	    !(data = elf_getdata(scn, NULL)))
		return false;
	n = data->d_size / sh.sh_entsize;
	for (i = 0; i < n && gelf_getdyn(data, i, &dyn); i++) {
		if (dyn.d_tag != DT_NEEDED)
			continue;
		name = elf_strptr(ef->elf, sh.sh_link, dyn.d_un.d_val);
		if (name && strncmp(name, "libgo.so", 8) == 0)
			return true;
	}
	return false;
}

/* gccgo output links libgo and carries export data; libgo itself defines
 * the runtime. */
static bool has_gccgo_marks(const struct go_binary *bin)
{
	GElf_Shdr sh;
	size_t i;

	if (elf_file__section(bin->elf, ".go_export", &sh) ||
	    needs_libgo(bin->elf))
		return true;
	for (i = 0; i < bin->nfuncs; i++)
		if (strncmp(bin->funcs[i].name, "runtime.", 8) == 0 ||
		    strncmp(bin->funcs[i].name, "__go_", 5) == 0)
			return true;
	return false;
}

static int read_symbol_table(struct go_binary *bin, Elf64_Word type)
{
	struct sym_list l = {};
	Elf_Scn *scn = section_of_type(bin->elf, type);
	int err = 0;

	if (scn)
		err = read_symbols(bin->elf, scn, &l);
	if (!err)
		err = sym_list__finish(&l, bin);
	sym_list__free(&l);
	bin->source = GO_FUNCS_SYMTAB;
	return err;
}

static enum go_abi choose_abi(const struct go_binary *bin,
			      enum pclntab_version pcln)
{
	int minor = go_version__minor(bin->version);
	int reg_from = bin->elf->machine == EM_AARCH64 ? 18 : 17;

	if (bin->is_gccgo)
		return GO_ABI_C;
	if (minor < 0) {
		/* no build info: the table layout still bounds the version */
		if (pcln == PCLNTAB_GO12)
			return GO_ABI_STACK;
		if (pcln >= PCLNTAB_GO118)
			return GO_ABI_REGISTER;
		return GO_ABI_UNKNOWN;
	}
	if (minor < reg_from || strstr(bin->version, "X:noregabi"))
		return GO_ABI_STACK;
	return GO_ABI_REGISTER;
}

static int load(struct go_binary *bin)
{
	enum pclntab_version pcln_version = 0;
	const char *path = bin->elf->path;
	GElf_Shdr pcln_sh;
	const char *pcln = pclntab_section(bin->elf, &pcln_sh);
	int err;

	read_version(bin);
	err = read_symbol_table(bin, SHT_SYMTAB);
	if (err)
		return err;
	if (pcln) {
		err = parse_pclntab(bin, pcln, &pcln_sh);
		/* with a symbol table, only the inline tree needs it */
		if (err && !bin->nfuncs)
			return err;
		if (err)
			gt_error_clear();
	}
	if (!bin->nfuncs && bin->pclntab) {
		pcln_version = bin->pclntab->version;
		err = read_pclntab_funcs(bin);
		if (err)
			return err;
	}
	if (!bin->nfuncs && !pcln) {
		/* a stripped gccgo binary or libgo: exported functions */
		err = read_symbol_table(bin, SHT_DYNSYM);
		if (err)
			return err;
	}
	if (!pcln && has_gccgo_marks(bin))
		bin->is_gccgo = true;
	else if (!pcln && !bin->version[0])
		return gt_error(-ENOEXEC, "not a Go binary: %s", path);
	if (!bin->nfuncs)
		return gt_error(-ENOEXEC, "no functions found in Go binary: %s",
				path);
	bin->abi = choose_abi(bin, pcln_version);
	return 0;
}

int go_binary__open(const char *path, struct go_binary **out)
{
	struct go_binary *bin;
	int err;

	*out = NULL;
	bin = calloc(1, sizeof(*bin));
	if (!bin)
		return gt_error(-ENOMEM, "out of memory");
	err = elf_file__open(path, &bin->elf);
	if (!err)
		err = load(bin);
	if (err) {
		go_binary__close(bin);
		return err;
	}
	*out = bin;
	return 0;
}

void go_binary__close(struct go_binary *bin)
{
	size_t i;

	if (!bin)
		return;
	for (i = 0; i < bin->nfuncs; i++)
		free(bin->funcs[i].name);
	free(bin->funcs);
	free(bin->by_name);
	pclntab__free(bin->pclntab);
	/* a debug file's DWARF is the debug file's to end */
	if (bin->debug)
		debug_file__close(bin->debug);
	else
		dwarf_end(bin->dwarf);
	elf_file__close(bin->elf);
	free(bin);
}

int go_binary__dwarf(const struct go_binary *bin, Dwarf **out)
{
	/* A cache: opening it changes nothing a holder of a const binary
	 * can see, and every go_binary is allocated writable. */
	struct go_binary *b = (struct go_binary *)bin;
	GElf_Shdr sh;
	int err;

	*out = NULL;
	if (!b->dwarf && !b->debug_file_name &&
	    (elf_file__section(bin->elf, ".debug_info", &sh) ||
	     elf_file__section(bin->elf, ".zdebug_info", &sh))) {
		/* libdw decompresses SHF_COMPRESSED (Go 1.19+) and .zdebug
		 * (Go 1.11 to 1.18) sections itself. */
		b->dwarf = dwarf_begin_elf(bin->elf->elf, DWARF_C_READ, NULL);
		if (!b->dwarf)
			return gt_error(-EINVAL, "cannot read DWARF of %s: %s",
					bin->elf->path, dwarf_errmsg(-1));
	}
	/* searched once: every reader of DWARF asks */
	if (!b->dwarf && b->dwarf_err)
		return gt_error(b->dwarf_err, "%s", b->dwarf_why);
	if (!b->dwarf) {
		err = debug_file__open(bin->elf, bin->debug_file_name,
				       &b->debug, &b->dwarf);
		if (err) {
			b->dwarf_err = err;
			snprintf(b->dwarf_why, sizeof(b->dwarf_why), "%s",
				 gt_last_error());
			return err;
		}
	}
	*out = b->dwarf;
	return 0;
}

const struct go_func *go_binary__func_at(const struct go_binary *bin,
					 uint64_t addr)
{
	size_t lo = 0, hi = bin->nfuncs;
	const struct go_func *f;

	/* the last function starting at or before ADDR */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bin->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	f = &bin->funcs[lo - 1];
	return addr - f->addr < f->size ? f : NULL;
}

int go_func__cmp_by_name(const void *a, const void *b)
{
	const struct go_func *x = *(const struct go_func *const *)a;
	const struct go_func *y = *(const struct go_func *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

const struct go_func *go_binary__func_by_name(const struct go_binary *bin,
					      const char *name)
{
	/* an index, as go_binary__dwarf() keeps its cache: it changes
	 * nothing a holder of a const binary can see */
	struct go_binary *b = (struct go_binary *)bin;
	size_t i, lo = 0, hi = bin->nfuncs;

	if (!b->by_name && bin->nfuncs) {
		b->by_name = malloc(bin->nfuncs * sizeof(*b->by_name));
		if (!b->by_name) {	/* then a scan, as slow as it is */
			for (i = 0; i < bin->nfuncs; i++)
				if (strcmp(bin->funcs[i].name, name) == 0)
					return &bin->funcs[i];
			return NULL;
		}
		for (i = 0; i < bin->nfuncs; i++)
			b->by_name[i] = &bin->funcs[i];
		qsort(b->by_name, bin->nfuncs, sizeof(*b->by_name),
		      go_func__cmp_by_name);
	}
	/* the first of that name: the lowest address, as the scan was */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(bin->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < bin->nfuncs && strcmp(bin->by_name[lo]->name, name) == 0)
		return bin->by_name[lo];
	return NULL;
}

int go_version__minor(const char *version)
{
	const char *p = version;
	int minor = 0;

	/* "go1.N..." at the start or after "devel " */
	if (strncmp(p, "devel ", 6) == 0)
		p += 6;
	if (strncmp(p, "go1", 3) != 0)
		return -1;
	p += 3;
	if (*p != '.')
		return *p == '\0' || *p == ' ' ? 0 : -1;
	p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	while (isdigit((unsigned char)*p) && minor < 1000)
		minor = minor * 10 + (*p++ - '0');
	return minor < 1000 ? minor : -1;
}

/* How much code to read when the size of a function is unknown. */
#define UNKNOWN_SIZE_WINDOW	4096
#define UNKNOWN_SIZE_MAX	(16u << 20)

size_t go_binary__func_span(const struct go_binary *bin,
			    const struct go_func *fn)
{
	size_t lo = 0, hi = bin->nfuncs, mid;

	if (fn->size)
		return fn->size;
	while (lo < hi) {	/* the first function starting after fn */
		mid = lo + (hi - lo) / 2;
		if (bin->funcs[mid].addr <= fn->addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < bin->nfuncs)
		return bin->funcs[lo].addr - fn->addr < UNKNOWN_SIZE_MAX ?
		       bin->funcs[lo].addr - fn->addr : UNKNOWN_SIZE_MAX;
	return UNKNOWN_SIZE_WINDOW;
}

int go_binary__dwarf_reader(const struct go_binary *bin, size_t size,
			    Dwarf **dw, void **out)
{
	int err;

	*out = NULL;
	err = go_binary__dwarf(bin, dw);
	if (err)
		return err;
	*out = calloc(1, size);
	return *out ? 0 : gt_error(-ENOMEM, "out of memory");
}
