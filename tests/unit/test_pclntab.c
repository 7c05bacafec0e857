// SPDX-License-Identifier: MIT
/*
 * pclntab__parse on real binaries, checked against the same binary's ELF
 * .symtab (read here with libelf, not through the library), and on
 * hand-built tables of every layout, whole, truncated and corrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include "core/error.h"
#include "gobin/pclntab.h"
#include "test.h"

/* ---- real binaries ---- */

struct bin {
	int fd;
	Elf *elf;
	const uint8_t *tab;	/* the pclntab section */
	size_t tab_size;
	uint64_t text_addr, text_end;	/* the .text section */
};

struct sym {
	char *name;		/* NAME.abi0 stripped to NAME */
	uint64_t addr, size;
};

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			return NULL;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* Open a fixture and find its pclntab and .text. Fails the test loudly. */
static bool bin_open(const char *fixture, struct bin *b)
{
	const char *path = test_fixture(fixture);
	GElf_Shdr shdr;
	Elf_Scn *scn;
	Elf_Data *d;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	elf_version(EV_CURRENT);
	b->fd = open(path, O_RDONLY);
	if (b->fd < 0) {
		fprintf(stderr, "fixture missing: %s\n", path);
		CHECK(b->fd >= 0);
		return false;
	}
	b->elf = elf_begin(b->fd, ELF_C_READ, NULL);
	CHECK(b->elf != NULL);
	if (!b->elf)
		return false;
	scn = find_section(b->elf, ".gopclntab", &shdr);
	if (!scn)	/* PIE binaries up to Go 1.25 */
		scn = find_section(b->elf, ".data.rel.ro.gopclntab", &shdr);
	CHECK(scn != NULL);
	if (!scn)
		return false;
	d = elf_rawdata(scn, NULL);
	CHECK(d && d->d_buf && d->d_size == shdr.sh_size);
	if (!d || !d->d_buf)
		return false;
	b->tab = d->d_buf;
	b->tab_size = d->d_size;
	scn = find_section(b->elf, ".text", &shdr);
	CHECK(scn != NULL);
	if (!scn)
		return false;
	b->text_addr = shdr.sh_addr;
	b->text_end = shdr.sh_addr + shdr.sh_size;
	return true;
}

static void bin_close(struct bin *b)
{
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
}

/* Go 1.17+ .symtab calls assembly (ABI0) functions NAME.abi0; pclntab
 * calls them NAME. Returns a copy to be freed. */
static char *strip_abi0(const char *name)
{
	size_t len = strlen(name);
	char *s;

	if (len > 5 && strcmp(name + len - 5, ".abi0") == 0)
		len -= 5;
	s = strndup(name, len);
	if (!s)
		abort();
	return s;
}

static void free_syms(struct sym *syms, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(syms[i].name);
	free(syms);
}

/* The STT_FUNC symbols with a name and a size; returns how many. */
static size_t read_func_syms(Elf *elf, struct sym **out)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	struct sym *syms = NULL;
	size_t n = 0, i, count;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !shdr.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		count = shdr.sh_size / shdr.sh_entsize;
		syms = realloc(syms, (n + count) * sizeof(*syms));
		if (!syms)
			abort();
		for (i = 0; i < count; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size)
				continue;
			name = elf_strptr(elf, shdr.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			syms[n++] = (struct sym){ strip_abi0(name), s.st_value,
						  s.st_size };
		}
	}
	*out = syms;
	return n;
}

/* runtime.text from .symtab (any type, any size); 0 when there is none. */
static uint64_t runtime_text(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB ||
		    !shdr.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (i = 0; i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, i, &s))
				continue;
			name = elf_strptr(elf, shdr.sh_link, s.st_name);
			if (name && strcmp(name, "runtime.text") == 0)
				return s.st_value;
		}
	}
	return 0;
}

static int cmp_func_name(const void *a, const void *b)
{
	const struct pclntab_func *fa = *(const struct pclntab_func **)a;
	const struct pclntab_func *fb = *(const struct pclntab_func **)b;

	return strcmp(fa->name, fb->name);
}

static int cmp_key_name(const void *key, const void *elem)
{
	const struct pclntab_func *f = *(const struct pclntab_func **)elem;

	return strcmp(key, f->name);
}

/* Functions of TAB sorted by name, for lookups. */
static const struct pclntab_func **by_name(const struct pclntab *tab)
{
	const struct pclntab_func **v = malloc(tab->nfuncs * sizeof(*v));
	size_t i;

	if (!v)
		abort();
	for (i = 0; i < tab->nfuncs; i++)
		v[i] = &tab->funcs[i];
	qsort(v, tab->nfuncs, sizeof(*v), cmp_func_name);
	return v;
}

/* The function named NAME whose entry is ADDR, else any named NAME, else
 * NULL (names may repeat: ABI wrappers share their function's name). */
static const struct pclntab_func *
lookup(const struct pclntab_func **v, size_t n, const char *name,
       uint64_t addr)
{
	const struct pclntab_func **hit = bsearch(name, v, n, sizeof(*v),
						  cmp_key_name);
	const struct pclntab_func **p;

	if (!hit)
		return NULL;
	while (hit > v && strcmp(hit[-1]->name, name) == 0)
		hit--;
	for (p = hit; p < v + n && strcmp((*p)->name, name) == 0; p++)
		if ((*p)->entry == addr)
			return *p;
	return *hit;
}

/* Sorted, contiguous, inside .text, with plausible names. */
static void check_table_shape(const struct pclntab *tab, const struct bin *b,
			      size_t min_funcs)
{
	size_t i, bad = 0;

	CHECK_EQ_INT(tab->ptr_size, 8);
	CHECK_EQ_INT(tab->quantum, 1);
	CHECK(tab->nfuncs >= min_funcs);
	CHECK(tab->nfuncs < 1000000);
	for (i = 0; i < tab->nfuncs; i++) {
		const struct pclntab_func *f = &tab->funcs[i];

		if (f->entry >= f->end || f->entry < b->text_addr ||
		    f->end > b->text_end || !f->name[0] ||
		    (i && tab->funcs[i - 1].end != f->entry))
			bad++;
	}
	CHECK_EQ_INT(bad, 0);
}

static bool has_func(const struct pclntab *tab, const char *name)
{
	size_t i;

	for (i = 0; i < tab->nfuncs; i++)
		if (strcmp(tab->funcs[i].name, name) == 0)
			return true;
	return false;
}

/*
 * Parse FIXTURE's pclntab and compare it with its .symtab: every Go
 * function symbol must sit at the entry pclntab gives for that name, and
 * nearly every pclntab function must be such a symbol.
 */
static void check_against_symtab(const char *fixture)
{
	const struct pclntab_func **v;
	struct pclntab *tab = NULL;
	size_t nsyms = 0, i, found = 0, wrong = 0, matched = 0;
	struct sym *syms = NULL;
	struct bin b;
	int err;

	if (!bin_open(fixture, &b))
		goto out;
	nsyms = read_func_syms(b.elf, &syms);
	CHECK(nsyms > 1000);
	err = pclntab__parse(b.tab, b.tab_size,
			     runtime_text(b.elf), &tab);
	if (err)
		fprintf(stderr, "%s: %s\n", fixture, gt_last_error());
	CHECK_EQ_INT(err, 0);
	if (err)
		goto out;
	check_table_shape(tab, &b, 1000);
	CHECK(has_func(tab, "main.main"));
	CHECK(has_func(tab, "main.add"));
	CHECK(has_func(tab, "runtime.morestack_noctxt"));

	v = by_name(tab);
	for (i = 0; i < nsyms; i++) {
		const struct pclntab_func *f = lookup(v, tab->nfuncs,
						      syms[i].name,
						      syms[i].addr);

		if (!f)
			continue;
		found++;
		if (f->entry != syms[i].addr ||
		    syms[i].size > f->end - f->entry) {
			if (wrong++ < 5)
				fprintf(stderr, "%s: %s: symtab %#lx+%lu, "
					"pclntab %#lx-%#lx\n", fixture,
					syms[i].name, syms[i].addr,
					syms[i].size, f->entry, f->end);
		} else {
			matched++;
		}
	}
	free(v);
	CHECK_EQ_INT(wrong, 0);
	/* Every function in the table has a symbol of its name (assembly
	 * functions are NAME.abi0 there); allow a few exceptions. */
	CHECK(found > 1000);
	CHECK(matched * 100 >= tab->nfuncs * 99);
out:
	pclntab__free(tab);
	free_syms(syms, nsyms);
	bin_close(&b);
}

TEST(go115_default) { check_against_symtab("count-go1.15-default"); }
TEST(go119_default) { check_against_symtab("count-go1.19-default"); }
TEST(go121_default) { check_against_symtab("count-go1.21-default"); }
TEST(go123_default) { check_against_symtab("count-go1.23-default"); }
TEST(go125_default) { check_against_symtab("count-go1.25-default"); }
TEST(go127_default) { check_against_symtab("count-go1.27-default"); }

TEST(go115_pie) { check_against_symtab("count-go1.15-pie"); }
TEST(go119_pie) { check_against_symtab("count-go1.19-pie"); }
TEST(go121_pie) { check_against_symtab("count-go1.21-pie"); }
TEST(go123_pie) { check_against_symtab("count-go1.23-pie"); }
TEST(go125_pie) { check_against_symtab("count-go1.25-pie"); }
TEST(go127_pie) { check_against_symtab("count-go1.27-pie"); }

TEST(go115_cgo) { check_against_symtab("count-go1.15-cgo"); }
TEST(go119_cgo) { check_against_symtab("count-go1.19-cgo"); }
TEST(go121_cgo) { check_against_symtab("count-go1.21-cgo"); }
TEST(go123_cgo) { check_against_symtab("count-go1.23-cgo"); }
TEST(go125_cgo) { check_against_symtab("count-go1.25-cgo"); }
TEST(go127_cgo) { check_against_symtab("count-go1.27-cgo"); }

/*
 * A stripped binary has no .symtab: parse it with .text as the text start
 * and compare it with the default build of the same toolchain, whose table
 * was checked against its .symtab: the same functions in the same order.
 */
static void check_stripped(const char *version)
{
	struct pclntab *tab = NULL, *ref = NULL;
	struct bin b, rb;
	char name[64];
	size_t i, diff = 0;
	int err;

	snprintf(name, sizeof(name), "count-go%s-stripped", version);
	if (!bin_open(name, &b)) {
		bin_close(&b);
		return;
	}
	snprintf(name, sizeof(name), "count-go%s-default", version);
	if (!bin_open(name, &rb))
		goto out;
	err = pclntab__parse(b.tab, b.tab_size, b.text_addr, &tab);
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_INT(pclntab__parse(rb.tab, rb.tab_size, rb.text_addr, &ref),
		     0);
	if (!tab || !ref)
		goto out;
	check_table_shape(tab, &b, 1000);
	CHECK(has_func(tab, "main.main"));
	CHECK(has_func(tab, "main.add"));
	CHECK_EQ_INT(tab->nfuncs, ref->nfuncs);
	for (i = 0; i < tab->nfuncs && i < ref->nfuncs; i++)
		if (strcmp(tab->funcs[i].name, ref->funcs[i].name) != 0)
			diff++;
	CHECK_EQ_INT(diff, 0);
out:
	pclntab__free(tab);
	pclntab__free(ref);
	bin_close(&b);
	bin_close(&rb);
}

TEST(go115_stripped) { check_stripped("1.15"); }
TEST(go119_stripped) { check_stripped("1.19"); }
TEST(go121_stripped) { check_stripped("1.21"); }
TEST(go123_stripped) { check_stripped("1.23"); }
TEST(go125_stripped) { check_stripped("1.25"); }
TEST(go127_stripped) { check_stripped("1.27"); }

/* Real third-party binaries: stripped, no .symtab. */
static void check_thirdparty(const char *fixture, enum pclntab_version ver)
{
	struct pclntab *tab = NULL;
	struct bin b;
	int err;

	if (!bin_open(fixture, &b))
		goto out;
	err = pclntab__parse(b.tab, b.tab_size, b.text_addr, &tab);
	if (err)
		fprintf(stderr, "%s: %s\n", fixture, gt_last_error());
	CHECK_EQ_INT(err, 0);
	if (err)
		goto out;
	CHECK_EQ_INT(tab->version, ver);
	check_table_shape(tab, &b, 5000);
	CHECK(has_func(tab, "main.main"));
	CHECK(has_func(tab, "runtime.morestack_noctxt"));
	CHECK(has_func(tab, "github.com/evanw/esbuild/internal/js_parser.Parse"));
out:
	pclntab__free(tab);
	bin_close(&b);
}

TEST(esbuild_go115) { check_thirdparty("esbuild-go1.15", PCLNTAB_GO12); }
TEST(esbuild_latest) { check_thirdparty("esbuild-latest", PCLNTAB_GO120); }

/* ---- hand-built tables ---- */

#define NSYN 3
static const char *const syn_names[NSYN] = { "main.a", "main.(*T).b",
					     "runtime.c" };
static const uint32_t syn_offs[NSYN + 1] = { 0x0, 0x40, 0x41, 0x100 };
#define SYN_TEXT 0x401000u

struct buf {
	uint8_t b[1024];
	size_t n;
};

static void put(struct buf *b, size_t at, uint64_t v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * i));
}

/*
 * A table of layout VER with the NSYN functions above: header, functab,
 * the _func records (entry and name offset only), then the names, so that
 * the table's last byte is the last name's NUL. TEXT_HDR is the textStart
 * written in a 1.18+ header.
 */
static void build_table(struct buf *b, enum pclntab_version ver,
			uint64_t text_hdr)
{
	static const uint32_t magic[] = { 0, 0xfffffffb, 0xfffffffa,
					  0xfffffff0, 0xfffffff1 };
	size_t hdr = ver == PCLNTAB_GO12 ? 16 : ver == PCLNTAB_GO116 ? 64 : 72;
	size_t fs = ver >= PCLNTAB_GO118 ? 4 : 8;	/* functab field */
	size_t functab = hdr, funcs, names, recsize = fs + 4;
	size_t base;		/* what funcoff is relative to */
	size_t nbase;		/* what name offsets are relative to */
	size_t i, at;

	memset(b, 0, sizeof(*b));
	put(b, 0, magic[ver], 4);
	b->b[6] = 1;
	b->b[7] = 8;
	put(b, 8, NSYN, 8);
	funcs = functab + (2 * NSYN + 1) * fs;
	names = funcs + NSYN * recsize;
	base = ver == PCLNTAB_GO12 ? 0 : functab;
	nbase = ver == PCLNTAB_GO12 ? 0 : names;
	if (ver != PCLNTAB_GO12) {
		size_t w = ver == PCLNTAB_GO116 ? 16 : 24;

		put(b, 16, 0, 8);		/* nfiles */
		if (ver != PCLNTAB_GO116)
			put(b, 24, text_hdr, 8);
		put(b, w + 8, names, 8);	/* funcnameOff */
		put(b, w + 16, names, 8);	/* cuOff */
		put(b, w + 24, names, 8);	/* filetabOff */
		put(b, w + 32, names, 8);	/* pctabOff */
		put(b, w + 40, functab, 8);	/* pclnOff */
	}
	at = names;
	for (i = 0; i <= NSYN; i++) {
		uint64_t entry = fs == 4 ? syn_offs[i] : SYN_TEXT + syn_offs[i];

		put(b, functab + 2 * i * fs, entry, fs);
		if (i == NSYN)
			break;
		put(b, functab + (2 * i + 1) * fs, funcs + i * recsize - base,
		    fs);
		put(b, funcs + i * recsize, entry, fs);
		put(b, funcs + i * recsize + fs, at - nbase, 4);
		strcpy((char *)b->b + at, syn_names[i]);
		at += strlen(syn_names[i]) + 1;
	}
	b->n = at;
}

/* Parse a private copy of exactly N bytes, so that ASan sees any overread. */
static int parse_copy(const struct buf *b, size_t n, uint64_t text_start,
		      struct pclntab **out)
{
	uint8_t *copy = malloc(n ? n : 1);
	int err;

	if (!copy)
		abort();
	memcpy(copy, b->b, n);
	err = pclntab__parse(copy, n, text_start, out);
	if (!err) {
		/* Names point into the buffer: check them before it goes. */
		size_t i;

		for (i = 0; i < (*out)->nfuncs && i < NSYN; i++)
			CHECK_EQ_STR((*out)->funcs[i].name, syn_names[i]);
		pclntab__free(*out);
		*out = NULL;
	}
	free(copy);
	return err;
}

static void check_synthetic(enum pclntab_version ver, uint64_t text_hdr,
			    uint64_t text_arg)
{
	struct pclntab *tab = NULL;
	struct buf b;
	size_t i, n;

	build_table(&b, ver, text_hdr);
	CHECK_EQ_INT(pclntab__parse(b.b, b.n, text_arg, &tab), 0);
	if (!tab)
		return;
	CHECK_EQ_INT(tab->version, ver);
	CHECK_EQ_INT(tab->ptr_size, 8);
	CHECK_EQ_INT(tab->quantum, 1);
	CHECK_EQ_INT(tab->nfuncs, NSYN);
	CHECK(tab->data == b.b);
	CHECK_EQ_INT(tab->size, b.n);
	if (ver >= PCLNTAB_GO118)
		CHECK_EQ_INT(tab->text_start, SYN_TEXT);
	for (i = 0; i < NSYN && i < tab->nfuncs; i++) {
		CHECK_EQ_INT(tab->funcs[i].entry, SYN_TEXT + syn_offs[i]);
		CHECK_EQ_INT(tab->funcs[i].end, SYN_TEXT + syn_offs[i + 1]);
		CHECK_EQ_STR(tab->funcs[i].name, syn_names[i]);
	}
	pclntab__free(tab);

	/* Every shorter prefix is truncated somewhere that matters. */
	for (n = 0; n < b.n; n++) {
		int err = parse_copy(&b, n, text_arg, &tab);

		if (err != -EINVAL) {
			fprintf(stderr, "truncated to %zu of %zu: %d\n", n,
				b.n, err);
			CHECK_EQ_INT(err, -EINVAL);
			break;
		}
		CHECK(tab == NULL);
	}
	CHECK_EQ_INT(parse_copy(&b, b.n, text_arg, &tab), 0);
}

TEST(synthetic_go12) { check_synthetic(PCLNTAB_GO12, 0, 0); }
TEST(synthetic_go116) { check_synthetic(PCLNTAB_GO116, 0, 0); }
TEST(synthetic_go118) { check_synthetic(PCLNTAB_GO118, SYN_TEXT, 0); }
TEST(synthetic_go120) { check_synthetic(PCLNTAB_GO120, SYN_TEXT, 0); }
/* The header's textStart wins over the caller's guess. */
TEST(synthetic_go120_header_text_wins)
{
	check_synthetic(PCLNTAB_GO120, SYN_TEXT, 0x999000);
}
/* Go 1.26+: textStart 0 in the header, the caller's text start is used. */
TEST(synthetic_go126_text_start_zero)
{
	check_synthetic(PCLNTAB_GO120, 0, SYN_TEXT);
}

/* Parse B, expect -EINVAL and a reason containing WHY. */
static void expect_corrupt(struct buf *b, const char *why)
{
	struct pclntab *tab = (struct pclntab *)1;

	gt_error_clear();
	CHECK_EQ_INT(pclntab__parse(b->b, b->n, SYN_TEXT, &tab), -EINVAL);
	CHECK(tab == NULL);
	if (!strstr(gt_last_error(), why)) {
		fprintf(stderr, "reason \"%s\" lacks \"%s\"\n",
			gt_last_error(), why);
		CHECK(!"reason names the problem");
	}
}

TEST(corrupt_header)
{
	struct buf b;

	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	b.b[0] = 0xfc;
	expect_corrupt(&b, "magic");

	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	b.b[7] = 4;
	expect_corrupt(&b, "32-bit");

	build_table(&b, PCLNTAB_GO116, 0);
	b.b[7] = 2;
	expect_corrupt(&b, "pointer size");

	build_table(&b, PCLNTAB_GO118, SYN_TEXT);
	b.b[6] = 3;
	expect_corrupt(&b, "quantum");

	build_table(&b, PCLNTAB_GO12, 0);
	b.b[5] = 1;
	expect_corrupt(&b, "padding");
}

TEST(corrupt_counts_and_offsets)
{
	struct buf b;

	/* A count that would need terabytes: rejected, not allocated. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, 8, 1ull << 40, 8);
	expect_corrupt(&b, "function count");
	put(&b, 8, UINT64_MAX, 8);
	expect_corrupt(&b, "function count");
	build_table(&b, PCLNTAB_GO12, 0);
	put(&b, 8, UINT64_MAX / 2, 8);
	expect_corrupt(&b, "function count");
	/* One more function than the table holds. */
	build_table(&b, PCLNTAB_GO116, 0);
	put(&b, 8, ((b.n - 64) / 8 - 1) / 2 + 1, 8);
	expect_corrupt(&b, "function count");

	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, 8, 0, 8);
	expect_corrupt(&b, "no functions");

	/* pclnOff past the end, and inside the header. */
	build_table(&b, PCLNTAB_GO118, SYN_TEXT);
	put(&b, 64, b.n + 1, 8);
	expect_corrupt(&b, "function table out of range");
	put(&b, 64, 8, 8);
	expect_corrupt(&b, "function table out of range");
	build_table(&b, PCLNTAB_GO116, 0);
	put(&b, 56, UINT64_MAX, 8);
	expect_corrupt(&b, "function table out of range");

	/* funcnameOff past the end. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, 32, UINT64_MAX - 7, 8);
	expect_corrupt(&b, "name table out of range");
}

TEST(corrupt_records)
{
	struct buf b;
	size_t functab = 72, funcs = functab + (2 * NSYN + 1) * 4;

	/* funcoff of function 1 past the end. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, functab + 3 * 4, 0xfffffff0, 4);
	expect_corrupt(&b, "record out of range");
	/* A record that starts 2 bytes before the end. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, functab + 3 * 4, b.n - 2 - functab, 4);
	expect_corrupt(&b, "record out of range");

	/* Negative name offset; name offset past the end. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, funcs + 4, 0x80000000u, 4);
	expect_corrupt(&b, "name out of range");
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, funcs + 4, 0x7fffffff, 4);
	expect_corrupt(&b, "name out of range");

	/* The last name loses its NUL. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	b.b[b.n - 1] = 'x';
	expect_corrupt(&b, "runs off");

	/* Entries out of order, equal, and an end before the last entry. */
	build_table(&b, PCLNTAB_GO120, SYN_TEXT);
	put(&b, functab + 2 * 4, 0x100, 4);
	expect_corrupt(&b, "not increasing");
	build_table(&b, PCLNTAB_GO12, 0);
	put(&b, 16 + 2 * 8, SYN_TEXT, 8);
	expect_corrupt(&b, "not increasing");
	build_table(&b, PCLNTAB_GO116, 0);
	put(&b, 64 + 6 * 8, SYN_TEXT, 8);
	expect_corrupt(&b, "not increasing");

	/* textStart + entryoff wraps around. */
	build_table(&b, PCLNTAB_GO120, UINT64_MAX - 0x40);
	expect_corrupt(&b, "overflows");
}

TEST(garbage)
{
	struct pclntab *tab = NULL;
	uint8_t junk[256];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	CHECK_EQ_INT(pclntab__parse(junk, sizeof(junk), 0, &tab), -EINVAL);
	CHECK(tab == NULL);
	CHECK_EQ_INT(pclntab__parse(NULL, 0, 0, &tab), -EINVAL);
	CHECK(tab == NULL);
	pclntab__free(NULL);
}

/*
 * _func.args under the stack ABI, from the args fixture's signatures (Go
 * 1.15, stripped): arguments and results laid out by ABI0, each aligned to
 * its type and the whole rounded to 8 bytes.
 */
static void check_func_args(const char *fixture)
{
	static const struct {
		const char *name;
		int32_t args;
	} want[] = {
		{ "main.addInts", 24 },		/* x, y int -> int */
		{ "main.widthI8", 16 },		/* x, y int8; the result at 8 */
		{ "main.divmod", 32 },		/* x, y int -> int, int */
		{ "main.greet", 16 + 8 + 16 },	/* string, int -> string */
		{ "main.describe", 56 },	/* string, int -> string, int, bool */
		{ "main.stackArray", 24 + 8 + 8 },	/* [3]int, int -> int */
	};
	struct pclntab *tab = NULL;
	struct bin b;
	size_t i, k;
	int32_t args;

	if (!bin_open(fixture, &b)) {
		bin_close(&b);
		return;
	}
	CHECK_EQ_INT(pclntab__parse(b.tab, b.tab_size, b.text_addr, &tab), 0);
	for (i = 0; tab && i < sizeof(want) / sizeof(want[0]); i++) {
		for (k = 0; k < tab->nfuncs; k++)
			if (!strcmp(tab->funcs[k].name, want[i].name))
				break;
		CHECK(k < tab->nfuncs);
		if (k == tab->nfuncs)
			continue;
		args = -2;
		CHECK_EQ_INT(pclntab__func_args(tab, k, &args), 0);
		if (args != want[i].args)
			fprintf(stderr, "%s: %s args %d, want %d\n", fixture,
				want[i].name, args, want[i].args);
		CHECK_EQ_INT(args, want[i].args);
	}
	if (tab)
		CHECK_EQ_INT(pclntab__func_args(tab, tab->nfuncs, &args), -ERANGE);
	pclntab__free(tab);
	bin_close(&b);
}

TEST(func_args_go115) { check_func_args("args-go1.15-stripped"); }

int main(void)
{
	RUN(func_args_go115);
	RUN(go115_default);
	RUN(go119_default);
	RUN(go121_default);
	RUN(go123_default);
	RUN(go125_default);
	RUN(go127_default);
	RUN(go115_pie);
	RUN(go119_pie);
	RUN(go121_pie);
	RUN(go123_pie);
	RUN(go125_pie);
	RUN(go127_pie);
	RUN(go115_cgo);
	RUN(go119_cgo);
	RUN(go121_cgo);
	RUN(go123_cgo);
	RUN(go125_cgo);
	RUN(go127_cgo);
	RUN(go115_stripped);
	RUN(go119_stripped);
	RUN(go121_stripped);
	RUN(go123_stripped);
	RUN(go125_stripped);
	RUN(go127_stripped);
	RUN(esbuild_go115);
	RUN(esbuild_latest);
	RUN(synthetic_go12);
	RUN(synthetic_go116);
	RUN(synthetic_go118);
	RUN(synthetic_go120);
	RUN(synthetic_go120_header_text_wins);
	RUN(synthetic_go126_text_start_zero);
	RUN(corrupt_header);
	RUN(corrupt_counts_and_offsets);
	RUN(corrupt_records);
	RUN(garbage);
	return TEST_SUMMARY();
}
