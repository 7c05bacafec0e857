// SPDX-License-Identifier: MIT
/*
 * Type names from type descriptors, against DWARF of the same binary: gc
 * puts DW_AT_go_runtime_type (0x2904) on type DIEs, the offset of that
 * type's descriptor from runtime.types, the start of the Go linker's type
 * section (uintptr's alone is an absolute address), next to DW_AT_name.
 * Every such type of the args fixture of each version, plain, PIE and cgo
 * (external linking), compared modulo DWARF's spelling (normalize()), and
 * a dozen exactly. Then the stripped build of each version against the
 * unstripped one; moduledata against the linker's symbols; gccgo; and
 * addresses that are no type.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "gobin/go_moduledata.h"
#include "gobin/go_rtype.h"
#include "go_fixture.h"
#include "test.h"

#define DW_AT_go_runtime_type 0x2904

struct type_ref {
	uint64_t addr;
	char *name;
};

struct type_list {
	struct type_ref *v;
	size_t n, cap;
};

static void list_add(struct type_list *l, uint64_t addr, const char *name)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n].addr = addr;
	l->v[l->n].name = strdup(name);
	if (!l->v[l->n].name)
		abort();
	l->n++;
}

static void list_free(struct type_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void walk_dies(Dwarf_Die *die, uint64_t types,
		      struct type_list *l)
{
	Dwarf_Attribute attr;
	Dwarf_Addr v;
	Dwarf_Die child;
	const char *name;

	do {
		name = dwarf_diename(die);
		if (name && dwarf_attr(die, DW_AT_go_runtime_type, &attr) &&
		    dwarf_formaddr(&attr, &v) == 0 && v) {
			if (v < types)	/* an offset, not uintptr's address */
				v += types;
			list_add(l, v, name);
		}
		if (dwarf_haschildren(die) > 0 && dwarf_child(die, &child) == 0)
			walk_dies(&child, types, l);
	} while (dwarf_siblingof(die, die) == 0);
}

/* Every (runtime type address, DWARF name) pair of unstripped BIN. */
static bool dwarf_types(const struct go_binary *bin, struct type_list *l)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cu_die, child;
	uint64_t types;
	Dwarf *dw;

	if (elf_file__symbol(bin->elf, "runtime.types", &types)) {
		fprintf(stderr, "%s: no runtime.types\n", bin->elf->path);
		return false;
	}
	dw = dwarf_begin_elf(bin->elf->elf, DWARF_C_READ, NULL);
	if (!dw) {
		fprintf(stderr, "%s: %s\n", bin->elf->path, dwarf_errmsg(-1));
		return false;
	}
	while (dwarf_get_units(dw, cu, &cu, NULL, NULL, &cu_die, NULL) == 0)
		if (dwarf_child(&cu_die, &child) == 0)
			walk_dies(&child, types, l);
	dwarf_end(dw);
	return l->n > 0;
}

static bool word_char(char c)
{
	return c == '_' || c == '.' || c == '/' || (c >= '0' && c <= '9') ||
	       ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || (c & 0x80);
}

/*
 * Spell a name the way both sides can agree on. DWARF qualifies a type by
 * its package path ("internal/abi.Type"), the runtime by the package name
 * ("abi.Type"), except inside a generic's type arguments where it keeps
 * the path ("atomic.Pointer[internal/sync.entry[...]]"): drop every path
 * up to its last '/'. DWARF also names types without equality "noalg.T",
 * a type declared in a function "T·7", and qualifies unexported struct
 * field names ("struct { runtime.n int32 }"): drop those too.
 */
static void normalize(const char *in, char *out, size_t size)
{
	size_t o = 0, word = 0;
	bool field = false;
	const char *p, *dot;

	if (strncmp(in, "noalg.", 6) == 0)
		in += 6;
	for (p = in; *p && o + 1 < size; p++) {
		if (!word_char(*p)) {
			field = *p == ' ' && p > in &&
				(p[-1] == '{' || p[-1] == ';');
			out[o++] = *p;
			word = o;
			continue;
		}
		if (*p == '/') {
			o = word;
			continue;
		}
		if (strncmp(p, "\xc2\xb7", 2) == 0 &&	/* "·" */
		    p[2] >= '0' && p[2] <= '9') {
			for (p += 2; p[1] >= '0' && p[1] <= '9'; p++)
				;
			continue;
		}
		if (field && o == word) {
			/* a field name is followed by its type */
			size_t n = strcspn(p, " ;}");

			dot = memchr(p, '.', n);
			if (dot && p[n] == ' ' && p[n + 1] != '}')
				p = dot + 1;
			field = false;
		}
		out[o++] = *p;
	}
	out[o] = 0;
}

/* The type names %T must print exactly, by their DWARF names. */
static const struct {
	const char *dwarf, *go;
} exact[] = {
	{ "int", "int" },
	{ "uintptr", "uintptr" },	/* an absolute address in DWARF */
	{ "string", "string" },
	{ "[]uint8", "[]uint8" },
	{ "error", "error" },
	{ "main.point", "main.point" },		/* stored as "*main.point" */
	{ "main.codeErr", "main.codeErr" },
	{ "*main.myErr", "*main.myErr" },
	{ "*main.counter", "*main.counter" },
	{ "*errors.errorString", "*errors.errorString" },
	{ "*os.File", "*os.File" },
	{ "*internal/poll.FD", "*poll.FD" },
	{ "map[string]*unicode.RangeTable", "map[string]*unicode.RangeTable" },
};

static const struct type_ref *find_dwarf(const struct type_list *l,
					 const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

/* Names from R for every DWARF type of L, equal modulo spelling. */
static void check_names(const char *fixture, struct go_rtypes *r,
			const struct type_list *l)
{
	char want[1024], got[1024];
	const char *name;
	size_t i, bad = 0;
	int err;

	for (i = 0; i < l->n; i++) {
		err = go_rtypes__name(r, l->v[i].addr, &name);
		if (!err) {
			normalize(name, got, sizeof(got));
			normalize(l->v[i].name, want, sizeof(want));
		}
		if ((err || strcmp(got, want)) && bad++ < 10)
			fprintf(stderr, "%s: 0x%llx: \"%s\", DWARF \"%s\"\n",
				fixture, (unsigned long long)l->v[i].addr,
				err ? gt_last_error() : name, l->v[i].name);
	}
	CHECK_EQ_INT(bad, 0);
}

/* FIXTURE against its own DWARF: every type, and with EXACT the args
 * fixture's exact names. */
static void check_dwarf_types(const char *fixture, bool exact_names)
{
	struct type_list l = {};
	struct go_binary *bin = go_fixture__open(fixture, false);
	struct go_rtypes *r = NULL;
	const struct type_ref *t;
	const char *name;
	size_t i;

	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK(dwarf_types(bin, &l));
	/* a fixture's runtime alone has hundreds */
	CHECK(l.n >= 300);
	CHECK_EQ_INT(go_rtypes__open(bin, &r), 0);
	if (r)
		check_names(fixture, r, &l);
	for (i = 0; r && exact_names && i < sizeof(exact) / sizeof(exact[0]);
	     i++) {
		t = find_dwarf(&l, exact[i].dwarf);
		CHECK(t != NULL);
		if (!t)
			continue;
		name = NULL;
		CHECK_EQ_INT(go_rtypes__name(r, t->addr, &name), 0);
		CHECK_EQ_STR(name, exact[i].go);
	}
	go_rtypes__close(r);
	list_free(&l);
	go_binary__close(bin);
}

static void check_dwarf(const char *fixture)
{
	check_dwarf_types(fixture, true);
}

/* Functions whose entry must not move between the two builds. */
static const char *const anchors[] = {
	"main.main", "main.ifaces", "runtime.main", "fmt.Sprintf",
	"runtime.mallocgc",
};

/* Do BIN and SBIN place code and type data at the same addresses? */
static bool same_layout(const struct go_binary *bin,
			const struct go_binary *sbin)
{
	struct go_moduledata md, smd;
	const struct go_func *f, *sf;
	size_t i;

	for (i = 0; i < sizeof(anchors) / sizeof(anchors[0]); i++) {
		f = go_binary__func_by_name(bin, anchors[i]);
		sf = go_binary__func_by_name(sbin, anchors[i]);
		if (!f || !sf || f->addr != sf->addr)
			return false;
	}
	return !go_moduledata__find(bin, &md) &&
	       !go_moduledata__find(sbin, &smd) && md.types == smd.types;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every name R decodes in its type data, sorted. */
static const char **all_names(struct go_rtypes *r,
			      const struct go_binary *bin, size_t *n)
{
	struct go_moduledata md;
	const char **v = NULL, *name;
	uint64_t a;
	size_t cap = 0;

	*n = 0;
	if (go_moduledata__find(bin, &md))
		return NULL;
	for (a = md.types; a < md.etypes; a += 8) {
		if (go_rtypes__name(r, a, &name))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				abort();
		}
		v[(*n)++] = name;
	}
	qsort(v, *n, sizeof(*v), str_cmp);
	return v;
}

/*
 * The stripped build of VERSION against the unstripped one, checked
 * against DWARF. Where both place code and types at the same addresses,
 * the stripped build must name every DWARF type address alike; where
 * they do not (Go 1.27 puts the build settings, which name the strip
 * flags, before the type data), its type data must hold every one of
 * those names.
 */
static void check_stripped_pair(const char *dflt, const char *path)
{
	struct go_binary *bin = NULL, *sbin = NULL;
	struct go_rtypes *r = NULL, *sr = NULL;
	struct type_list l = {};
	const char *name, *sname, **names = NULL;
	size_t i, n = 0, bad = 0;
	bool same;

	bin = go_fixture__open(dflt, false);
	sbin = go_fixture__open(path, false);
	CHECK(bin && sbin);
	if (!bin || !sbin)
		goto out;
	CHECK_EQ_INT(sbin->source, GO_FUNCS_PCLNTAB);
	CHECK(dwarf_types(bin, &l));
	CHECK_EQ_INT(go_rtypes__open(bin, &r), 0);
	CHECK_EQ_INT(go_rtypes__open(sbin, &sr), 0);
	if (!r || !sr)
		goto out;
	same = same_layout(bin, sbin);
	if (!same) {
		names = all_names(sr, sbin, &n);
		CHECK(n > 0);
	}
	for (i = 0; i < l.n; i++) {
		if (go_rtypes__name(r, l.v[i].addr, &name)) {
			bad++;
			continue;
		}
		if (same ? go_rtypes__name(sr, l.v[i].addr, &sname) ||
			   strcmp(name, sname) :
			   !bsearch(&name, names, n, sizeof(*names), str_cmp)) {
			if (bad++ < 10)
				fprintf(stderr, "%s: %s (0x%llx) not alike\n",
					path, name,
					(unsigned long long)l.v[i].addr);
		}
	}
	CHECK_EQ_INT(bad, 0);
out:
	free(names);
	go_rtypes__close(sr);
	go_rtypes__close(r);
	list_free(&l);
	go_binary__close(sbin);
	go_binary__close(bin);
}

static void check_stripped(const char *version)
{
	char dflt[64], path[64];

	snprintf(dflt, sizeof(dflt), "args-go%s-default", version);
	snprintf(path, sizeof(path), "args-go%s-stripped", version);
	check_stripped_pair(dflt, path);
}

#define VERSION_TESTS(v, nn)						\
TEST(dwarf_go##nn)							\
{									\
	check_dwarf("args-go" v "-default");				\
	check_dwarf("args-go" v "-pie");				\
	check_dwarf("args-go" v "-cgo");				\
}									\
TEST(stripped_go##nn)							\
{									\
	check_stripped(v);						\
}

VERSION_TESTS("1.15", 1_15)
VERSION_TESTS("1.19", 1_19)
VERSION_TESTS("1.21", 1_21)
VERSION_TESTS("1.23", 1_23)
VERSION_TESTS("1.25", 1_25)
VERSION_TESTS("1.27", 1_27)

static uint64_t symbol(const struct go_binary *bin, const char *name)
{
	uint64_t v = 0;

	CHECK_EQ_INT(elf_file__symbol(bin->elf, name, &v), 0);
	return v;
}

/* go_moduledata__find against the linker's own symbols. */
TEST(moduledata)
{
	static const char *const versions[] = {
		"1.15", "1.19", "1.21", "1.23", "1.25", "1.27",
	};
	static const char *const forms[] = { "default", "pie", "cgo" };
	struct go_moduledata md;
	struct go_binary *bin;
	char path[64];
	size_t i, j;

	for (i = 0; i < 6; i++) {
		for (j = 0; j < 3; j++) {
			snprintf(path, sizeof(path), "args-go%s-%s",
				 versions[i], forms[j]);
			bin = go_fixture__open(path, false);
			CHECK(bin != NULL);
			if (!bin)
				continue;
			CHECK_EQ_INT(go_moduledata__find(bin, &md), 0);
			CHECK_EQ_INT(md.addr,
				     symbol(bin, "runtime.firstmoduledata"));
			CHECK_EQ_INT(md.types, symbol(bin, "runtime.types"));
			CHECK_EQ_INT(md.etypes, symbol(bin, "runtime.etypes"));
			if (i == 0)	/* no gofunc before 1.18 */
				CHECK_EQ_INT(md.gofunc, 0);
			else
				CHECK_EQ_INT(md.gofunc, symbol(bin,
					i == 1 ? "go.func.*" : "go:func.*"));
			go_binary__close(bin);
		}
	}
}

/*
 * arm64 builds (issue 25): the type data, its names against DWARF, a
 * stripped build's against the unstripped one, and moduledata found
 * without symbols, as on x86-64.
 */
TEST(arm64)
{
	static const char *const versions[] = {
		"1.19", "1.21", "1.23", "1.25", "1.27",
	};
	struct go_moduledata md;
	struct go_binary *bin;
	char dflt[64], path[64];
	size_t i;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		snprintf(dflt, sizeof(dflt), "count-go%s-arm64", versions[i]);
		snprintf(path, sizeof(path), "count-go%s-arm64-pie",
			 versions[i]);
		check_dwarf_types(dflt, false);
		check_dwarf_types(path, false);
		snprintf(path, sizeof(path), "count-go%s-arm64-stripped",
			 versions[i]);
		check_stripped_pair(dflt, path);
		bin = go_fixture__open(dflt, false);
		CHECK(bin != NULL);
		if (!bin)
			continue;
		CHECK_EQ_INT(bin->elf->machine, EM_AARCH64);
		CHECK_EQ_INT(go_moduledata__find(bin, &md), 0);
		CHECK_EQ_INT(md.addr, symbol(bin, "runtime.firstmoduledata"));
		CHECK_EQ_INT(md.types, symbol(bin, "runtime.types"));
		CHECK_EQ_INT(md.etypes, symbol(bin, "runtime.etypes"));
		go_binary__close(bin);
	}
}

TEST(gccgo)
{
	struct go_binary *bin = go_fixture__open("args-gccgo", false);
	struct go_rtypes *r = (struct go_rtypes *)1;
	struct go_moduledata md;

	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK_EQ_INT(go_rtypes__open(bin, &r), -ENOTSUP);
	CHECK(r == NULL);
	CHECK(strstr(gt_last_error(), "gccgo") != NULL);
	CHECK_EQ_INT(go_moduledata__find(bin, &md), -ENOENT);
	go_binary__close(bin);
}

/* Addresses that are no type: an error each, never a crash (this test
 * also runs under ASan); every aligned word of the type data decodes to
 * something or fails cleanly. */
static void check_not_types(const char *fixture)
{
	struct go_binary *bin = go_fixture__open(fixture, false);
	struct go_rtypes *r = NULL;
	const struct go_func *f;
	uint64_t types = 0, etypes = 0, a;
	const char *name, *again;
	size_t i, ok = 0, enoent = 0;
	int err;

	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK_EQ_INT(go_rtypes__open(bin, &r), 0);
	types = symbol(bin, "runtime.types");
	etypes = symbol(bin, "runtime.etypes");
	f = go_binary__func_by_name(bin, "main.main");
	CHECK(f != NULL);
	if (!r || !f || test_case_failed)
		goto out;
	{
		const uint64_t bad[] = {
			0, 1, 8, types - 8, types - 1, etypes, etypes - 8,
			etypes + 4096, f->addr, f->addr & ~7ull,
			UINT64_MAX, UINT64_MAX - 7, UINT64_MAX - 47,
		};

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK_EQ_INT(go_rtypes__name(r, bad[i], &name),
				     -ENOENT);
	}
	for (a = types; a < etypes; a += 4) {
		err = go_rtypes__name(r, a, &name);
		if (a % 8)
			CHECK_EQ_INT(err, -ENOENT);
		if (err == -ENOENT)
			enoent++;
		else if (err)
			CHECK_EQ_INT(err, -EINVAL);
		else if (!*name)
			CHECK(*name);
		else
			ok++;
	}
	/* the cache answers the second time, with the same string */
	for (a = types; a < etypes; a += 8) {
		if (go_rtypes__name(r, a, &name))
			continue;
		CHECK_EQ_INT(go_rtypes__name(r, a, &again), 0);
		CHECK(again == name);
	}
	CHECK(ok > 0 && enoent > 0);
out:
	go_rtypes__close(r);
	go_binary__close(bin);
}

TEST(not_types)
{
	check_not_types("args-go1.15-default");
	check_not_types("args-go1.21-pie");
	check_not_types("args-go1.27-default");
}

/* gccgo's reflection strings quote package paths between tabs. */
TEST(gccgo_names)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\tmain\tmain.point", "main.point" },
		{ "*\tmain\tmain.myErr", "*main.myErr" },
		{ "int", "int" },
		{ "map[\tmain\tmain.k]*\tnet/http\thttp.Request", "map[main.k]*http.Request" },
		{ "", "" },
	};
	char out[64], small[4];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		go_rtype__gccgo_name(cases[i].in, strlen(cases[i].in), out,
				     sizeof(out));
		CHECK_EQ_STR(out, cases[i].out);
	}
	go_rtype__gccgo_name("*\tmain\tmain.myErr", 17, small, sizeof(small));
	CHECK_EQ_STR(small, "*ma");
}

int main(void)
{
	RUN(gccgo_names);
	RUN(dwarf_go1_15);
	RUN(dwarf_go1_19);
	RUN(dwarf_go1_21);
	RUN(dwarf_go1_23);
	RUN(dwarf_go1_25);
	RUN(dwarf_go1_27);
	RUN(stripped_go1_15);
	RUN(stripped_go1_19);
	RUN(stripped_go1_21);
	RUN(stripped_go1_23);
	RUN(stripped_go1_25);
	RUN(stripped_go1_27);
	RUN(moduledata);
	RUN(arm64);
	RUN(gccgo);
	RUN(not_types);
	return TEST_SUMMARY();
}
