// SPDX-License-Identifier: MIT
/*
 * go_binary against independent ground truth: function addresses from the
 * .symtab of the unstripped build (read here through libelf), Go versions
 * from the toolchains' own `go version`, prologue bytes of known functions
 * in the real third-party binaries, and bad inputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "test.h"

static const char *const versions[] = { "1.15", "1.19", "1.21", "1.23",
					"1.25", "1.27" };
static const char *const forms[] = { "default", "stripped", "pie", "cgo" };

/* Ground truth: the defined functions of a symbol table, read directly. */
struct truth {
	size_t n;
	struct { char *name; uint64_t addr; } *v;
};

static bool truth_load_any(const char *path, Elf64_Word type, bool all,
			   struct truth *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	memset(t, 0, sizeof(*t));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Sym s;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? sh.sh_size / sh.sh_entsize : 0;
		t->v = calloc(n ? n : 1, sizeof(*t->v));
		for (i = 0; t->v && i < n; i++) {
			gelf_getsym(d, i, &s);
			if (!all && (GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				     s.st_shndx == SHN_UNDEF || !s.st_size))
				continue;
			t->v[t->n].name = strdup(elf_strptr(elf, sh.sh_link,
							    s.st_name));
			t->v[t->n++].addr = s.st_value;
		}
		break;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return t->n > 0;
}

/* The defined, sized functions of a symbol table. */
static bool truth_load(const char *path, Elf64_Word type, struct truth *t)
{
	return truth_load_any(path, type, false, t);
}

static void truth_free(struct truth *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
}

/* The address of NAME in the truth, or 0. */
static uint64_t truth_addr(const struct truth *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return t->v[i].addr;
	return 0;
}

/*
 * NAME as both tables can agree on: pclntab names may elide type arguments
 * ("main.Sum[...]") and keep the middle dot that .symtab spells '.'.
 */
static void normalise(const char *name, char *out, size_t len)
{
	size_t n = 0;
	int depth = 0;

	for (; *name && n + 1 < len; name++) {
		if (*name == ']')
			depth--;
		if (depth == 0 && !strncmp(name, "\xc2\xb7", 2)) {
			out[n++] = '.';
			name++;
		} else if (depth == 0) {
			out[n++] = *name;
		}
		if (*name == '[')
			depth++;
	}
	out[n] = '\0';
}

/* Is there a truth symbol NAME (or NAME.abi0) at ADDR? */
static bool truth_has(const struct truth *t, const char *name, uint64_t addr)
{
	char want[512], got[512];
	size_t i, len;

	normalise(name, want, sizeof(want));
	len = strlen(want);
	for (i = 0; i < t->n; i++) {
		if (t->v[i].addr != addr)
			continue;
		normalise(t->v[i].name, got, sizeof(got));
		if (strncmp(got, want, len) == 0 &&
		    (!got[len] || strcmp(got + len, ".abi0") == 0))
			return true;
	}
	return false;
}

/* The version `go version [FILE]` of toolchain GOVERSION prints, or "". */
static void run_go_version(const char *goversion, const char *file,
			   char *out, size_t len)
{
	char cmd[1024], line[256], *tok, *save;
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd),
		 "GOTOOLCHAIN=local %s/go/%s/bin/go version %s 2>/dev/null",
		 test_cache(), goversion,
		 file ? file : "");
	p = popen(cmd, "r");
	if (!p)
		return;
	if (fgets(line, sizeof(line), p)) {
		/* "go version go1.21.3 linux/amd64" or "FILE: go1.15.7" */
		strtok_r(line, " \n", &save);
		tok = strtok_r(NULL, " \n", &save);
		if (tok && !file)
			tok = strtok_r(NULL, " \n", &save);
		if (tok)
			snprintf(out, len, "%s", tok);
	}
	pclose(p);
}

static struct go_binary *open_ok(const char *name)
{
	struct go_binary *bin;
	const char *path = name[0] == '/' ? name : test_fixture(name);
	int err = go_binary__open(path, &bin);

	if (err) {
		fprintf(stderr, "%s: %d %s\n", name, err, gt_last_error());
		test_case_failed = 1;
		return NULL;
	}
	return bin;
}

/* Every function of BIN is in TRUTH at the same address and name. */
static void check_against(const struct go_binary *bin, const struct truth *t)
{
	size_t i, bad = 0;

	for (i = 0; i < bin->nfuncs; i++)
		if (!truth_has(t, bin->funcs[i].name, bin->funcs[i].addr)) {
			if (bad++ < 5)
				fprintf(stderr, "  %s at 0x%llx not in .symtab\n",
					bin->funcs[i].name,
					(unsigned long long)bin->funcs[i].addr);
		}
	CHECK_EQ_INT(bad, 0);
	for (i = 1; i < bin->nfuncs; i++)
		CHECK(bin->funcs[i - 1].addr < bin->funcs[i].addr);
}

static void check_count(const char *version, const char *form)
{
	static const char *const funcs[] = { "main.main", "main.add",
					     "main.(*counter).inc" };
	char name[64], sibling[64], want[64];
	const struct go_func *f;
	struct go_binary *bin;
	struct truth t;
	size_t i;

	snprintf(name, sizeof(name), "count-go%s-%s", version, form);
	/* the stripped build's truth is the default build of the same code
	 * (arm64-stripped's, arm64's) */
	snprintf(sibling, sizeof(sibling), "count-go%s-%s", version,
		 !strcmp(form, "stripped") ? "default" :
		 !strcmp(form, "arm64-stripped") ? "arm64" : form);
	bin = open_ok(name);
	if (!bin)
		return;
	if (!truth_load(test_fixture(sibling), SHT_SYMTAB, &t)) {
		fprintf(stderr, "%s: no .symtab\n", sibling);
		test_case_failed = 1;
	}
	CHECK_EQ_INT(bin->source, strstr(form, "stripped") ?
		     GO_FUNCS_PCLNTAB : GO_FUNCS_SYMTAB);
	CHECK_EQ_INT(bin->elf->machine, strncmp(form, "arm64", 5) ?
		     EM_X86_64 : EM_AARCH64);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		f = go_binary__func_by_name(bin, funcs[i]);
		CHECK(f != NULL);
		if (!f)
			continue;
		CHECK_EQ_INT(f->addr, truth_addr(&t, funcs[i]));
		CHECK(f->size > 0);
		CHECK(go_binary__func_at(bin, f->addr) == f);
		CHECK(go_binary__func_at(bin, f->addr + f->size - 1) == f);
	}
	check_against(bin, &t);
	CHECK(bin->nfuncs > 1000);
	run_go_version(version, NULL, want, sizeof(want));
	CHECK(want[0] != '\0');
	CHECK_EQ_STR(bin->version, want);
	CHECK_EQ_INT(go_version__minor(bin->version), atoi(version + 2));
	CHECK_EQ_INT(bin->abi, strcmp(version, "1.15") ? GO_ABI_REGISTER :
		     GO_ABI_STACK);
	CHECK(!bin->is_gccgo);
	if (test_case_failed)
		fprintf(stderr, "  in %s\n", name);
	truth_free(&t);
	go_binary__close(bin);
}

TEST(count_fixtures)
{
	int failed = 0;
	size_t i, j;

	/* test_case_failed is per fixture inside, for the "in NAME" lines */
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		for (j = 0; j < sizeof(forms) / sizeof(forms[0]); j++) {
			test_case_failed = 0;
			check_count(versions[i], forms[j]);
			failed |= test_case_failed;
		}
	test_case_failed = failed;
}

/*
 * arm64 builds (issue 25): the function table, from .symtab or a stripped
 * build's pclntab, build info and the ABI read as on x86-64 (the register
 * ABI on arm64 from Go 1.18).
 */
TEST(arm64_fixtures)
{
	static const char *const arm64_forms[] = { "arm64", "arm64-stripped",
						   "arm64-pie" };
	int failed = 0;
	size_t i, j;

	/* from versions[1], Go 1.19: the arm64 builds */
	for (i = 1; i < sizeof(versions) / sizeof(versions[0]); i++)
		for (j = 0; j < 3; j++) {
			test_case_failed = 0;
			check_count(versions[i], arm64_forms[j]);
			failed |= test_case_failed;
		}
	test_case_failed = failed;
}

/*
 * Externally linked and stripped: .text starts with C code before
 * runtime.text, so Go 1.26+ tables (textStart 0) need moduledata's text.
 */
TEST(stripped_cgo)
{
	static const char *const vs[] = { "1.25", "1.27" };
	char tmp[] = "/tmp/test_go_binary.cgo.XXXXXX", cmd[8300], name[64];
	const struct go_func *f;
	struct go_binary *bin;
	struct truth t;
	uint64_t text;
	GElf_Shdr sh;
	size_t i;
	int fd = mkstemp(tmp);

	CHECK(fd >= 0);
	close(fd);
	for (i = 0; i < sizeof(vs) / sizeof(vs[0]); i++) {
		snprintf(name, sizeof(name), "count-go%s-cgo", vs[i]);
		snprintf(cmd, sizeof(cmd), "strip -o %s %s", tmp,
			 test_fixture(name));
		CHECK_EQ_INT(system(cmd), 0);
		/* the case this is about: .text is not runtime.text */
		CHECK(truth_load_any(test_fixture(name), SHT_SYMTAB, true, &t));
		text = truth_addr(&t, "runtime.text");
		truth_free(&t);
		CHECK(truth_load(test_fixture(name), SHT_SYMTAB, &t));
		bin = open_ok(tmp);
		if (bin) {
			CHECK(elf_file__section(bin->elf, ".text", &sh));
			CHECK(text != 0 && sh.sh_addr != text);
			CHECK_EQ_INT(bin->source, GO_FUNCS_PCLNTAB);
			f = go_binary__func_by_name(bin, "main.add");
			CHECK(f && f->addr == truth_addr(&t, "main.add"));
			check_against(bin, &t);
			go_binary__close(bin);
		}
		truth_free(&t);
	}
	unlink(tmp);
}

/* Does function NAME of BIN start with a Go stack check (amd64)? */
static bool has_stack_check(const struct go_binary *bin, const char *name,
			    bool stack_abi)
{
	/* 1.17+: CMPQ SP, 16(R14) (or R12 for bigger frames);
	 * before: MOVQ %fs:-8, CX */
	static const uint8_t reg[] = { 0x3b, 0x66, 0x10 };
	static const uint8_t tls[] = { 0x64, 0x48, 0x8b, 0x0c, 0x25,
				       0xf8, 0xff, 0xff, 0xff };
	const struct go_func *f = go_binary__func_by_name(bin, name);
	const uint8_t *code;

	if (!f || elf_file__read_vaddr(bin->elf, f->addr, 16, &code))
		return false;
	if (stack_abi)
		return memcmp(code, tls, sizeof(tls)) == 0;
	return memmem(code, 16, reg, sizeof(reg)) != NULL;
}

TEST(esbuild)
{
	static const struct {
		const char *name;
		enum go_abi abi;
	} cases[] = {
		{ "esbuild-go1.15", GO_ABI_STACK },
		{ "esbuild-latest", GO_ABI_REGISTER },
	};
	static const char *const funcs[] = { "main.main", "runtime.main",
					     "runtime.newproc1" };
	char want[64];
	struct go_binary *bin;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bin = open_ok(cases[i].name);
		if (!bin)
			continue;
		CHECK_EQ_INT(bin->source, GO_FUNCS_PCLNTAB);
		CHECK(bin->nfuncs > 5000);
		CHECK_EQ_INT(bin->abi, cases[i].abi);
		/* esbuild-latest has no build info: `go version` fails too */
		run_go_version("1.27", test_fixture(cases[i].name), want,
			       sizeof(want));
		CHECK_EQ_STR(bin->version, want);
		for (j = 0; j < sizeof(funcs) / sizeof(funcs[0]); j++)
			if (!has_stack_check(bin, funcs[j],
					     cases[i].abi == GO_ABI_STACK)) {
				fprintf(stderr, "%s: %s has no prologue\n",
					cases[i].name, funcs[j]);
				test_case_failed = 1;
			}
		go_binary__close(bin);
	}
}

TEST(gccgo)
{
	char libgo[4096] = "";
	struct go_binary *bin;
	const struct go_func *f;
	struct truth t;

	bin = open_ok("count-gccgo");
	if (bin) {
		CHECK(bin->is_gccgo);
		CHECK_EQ_INT(bin->abi, GO_ABI_C);
		CHECK_EQ_INT(bin->source, GO_FUNCS_SYMTAB);
		CHECK(truth_load(test_fixture("count-gccgo"), SHT_SYMTAB, &t));
		/* gccgo spells a pointer method PKG.TYPE.NAME */
		CHECK(go_binary__func_by_name(bin, "main.main") != NULL);
		f = go_binary__func_by_name(bin, "main.add");
		CHECK(f && f->addr == truth_addr(&t, "main.add"));
		f = go_binary__func_by_name(bin, "main.counter.inc");
		CHECK(f && f->addr == truth_addr(&t, "main.counter.inc"));
		check_against(bin, &t);
		truth_free(&t);
		go_binary__close(bin);
	}

	/* libgo itself: its exported functions, so go:fmt.* works */
	CHECK(test_libgo_path(libgo, sizeof(libgo)));
	bin = libgo[0] ? open_ok(libgo) : NULL;
	CHECK(bin != NULL);
	if (bin) {
		CHECK(bin->is_gccgo);
		CHECK_EQ_INT(bin->abi, GO_ABI_C);
		/* Debian ships libgo with its .symtab */
		CHECK(truth_load(libgo, SHT_SYMTAB, &t));
		f = go_binary__func_by_name(bin, "fmt.Println");
		CHECK(f && f->addr == truth_addr(&t, "fmt.Println"));
		check_against(bin, &t);
		CHECK(bin->nfuncs > 1000);
		truth_free(&t);
		go_binary__close(bin);
	}

	/* a stripped libgo: only .dynsym is left */
	char stripped[] = "/tmp/test_go_binary.libgo.XXXXXX", cmd[8300];
	int fd = mkstemp(stripped);

	CHECK(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "strip -o %s %s", stripped, libgo);
	CHECK_EQ_INT(system(cmd), 0);
	bin = open_ok(stripped);
	if (bin) {
		CHECK(bin->is_gccgo);
		CHECK(!truth_load(stripped, SHT_SYMTAB, &t));
		CHECK(truth_load(stripped, SHT_DYNSYM, &t));
		f = go_binary__func_by_name(bin, "fmt.Println");
		CHECK(f && f->addr == truth_addr(&t, "fmt.Println"));
		check_against(bin, &t);
		truth_free(&t);
		go_binary__close(bin);
	}
	unlink(stripped);
}

/* How many compilation units readelf finds in PATH, or -1. */
static long readelf_units(const char *path)
{
	char cmd[4200], line[64];
	FILE *p;
	long n = -1;

	snprintf(cmd, sizeof(cmd),
		 "readelf --debug-dump=info '%s' 2>/dev/null | grep -c 'Compilation Unit @'",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fgets(line, sizeof(line), p))
		n = atol(line);
	pclose(p);
	return n;
}

/*
 * One DWARF handle per binary, opened on demand: from .debug_info, or from
 * Go 1.15's zlib-compressed .zdebug_info; its units are those readelf
 * counts. A stripped build has none and says so.
 */
TEST(dwarf_handle)
{
	char name[64];
	struct go_binary *bin;
	Dwarf_CU *cu;
	Dwarf *dw, *again;
	size_t i, units;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		snprintf(name, sizeof(name), "count-go%s-default", versions[i]);
		bin = open_ok(name);
		if (!bin)
			continue;
		CHECK(bin->dwarf == NULL);
		CHECK_EQ_INT(go_binary__dwarf(bin, &dw), 0);
		CHECK(dw != NULL);
		CHECK_EQ_INT(go_binary__dwarf(bin, &again), 0);
		CHECK(again == dw);
		for (cu = NULL, units = 0;
		     dw && dwarf_get_units(dw, cu, &cu, NULL, NULL, NULL,
					   NULL) == 0;)
			units++;
		CHECK(units > 0);
		CHECK_EQ_INT(units, readelf_units(test_fixture(name)));
		go_binary__close(bin);

		snprintf(name, sizeof(name), "count-go%s-stripped",
			 versions[i]);
		bin = open_ok(name);
		if (!bin)
			continue;
		gt_error_clear();
		dw = (void *)1;
		CHECK_EQ_INT(go_binary__dwarf(bin, &dw), -ENOENT);
		CHECK(dw == NULL);
		CHECK(strstr(gt_last_error(), "no DWARF") != NULL);
		CHECK(strstr(gt_last_error(), bin->elf->path) != NULL);
		go_binary__close(bin);
	}
}

static void expect_fail(const char *path, int err, const char *why)
{
	struct go_binary *bin = (void *)1;

	gt_error_clear();
	CHECK_EQ_INT(go_binary__open(path, &bin), err);
	CHECK(bin == NULL);
	if (!strstr(gt_last_error(), why) || !strstr(gt_last_error(), path)) {
		fprintf(stderr, "%s: reason \"%s\" lacks \"%s\" or the path\n",
			path, gt_last_error(), why);
		test_case_failed = 1;
	}
}

TEST(bad_inputs)
{
	char dir[] = "/tmp/test_go_binary.XXXXXX", path[256], cmd[600];
	struct stat st;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	expect_fail("/bin/ls", -ENOEXEC, "not a Go binary");
	expect_fail("/no/such/file", -ENOENT, "no such file");
	expect_fail(dir, -ENOEXEC, "not an ELF file");
	snprintf(path, sizeof(path), "%s/empty", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	expect_fail(path, -ENOEXEC, "not an ELF file");
	snprintf(path, sizeof(path), "%s/text", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("package main\n", f);
		fclose(f);
	}
	expect_fail(path, -ENOEXEC, "not an ELF file");

	/* a 32-bit ELF header */
	snprintf(path, sizeof(path), "%s/elf32", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fwrite("\177ELF\1\1\1\0\0\0\0\0\0\0\0\0\2\0\3\0", 1, 20, f);
		fclose(f);
	}
	expect_fail(path, -ENOTSUP, "32-bit");

	/* truncated Go binaries */
	CHECK_EQ_INT(stat(test_fixture("count-go1.23-stripped"), &st), 0);
	snprintf(path, sizeof(path), "%s/trunc", dir);
	snprintf(cmd, sizeof(cmd), "head -c %lld %s > %s",
		 (long long)st.st_size * 3 / 4,
		 test_fixture("count-go1.23-stripped"), path);
	CHECK_EQ_INT(system(cmd), 0);
	expect_fail(path, -EINVAL, "truncated");

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

TEST(version_minor)
{
	CHECK_EQ_INT(go_version__minor("go1.21.3"), 21);
	CHECK_EQ_INT(go_version__minor("go1.9"), 9);
	CHECK_EQ_INT(go_version__minor("go1.18beta1"), 18);
	CHECK_EQ_INT(go_version__minor("go1.22rc2"), 22);
	CHECK_EQ_INT(go_version__minor("devel go1.22-abc123 Tue"), 22);
	CHECK_EQ_INT(go_version__minor("go1.17.2 X:noregabi"), 17);
	CHECK_EQ_INT(go_version__minor("go1"), 0);
	CHECK_EQ_INT(go_version__minor(""), -1);
	CHECK_EQ_INT(go_version__minor("go2.1"), -1);
	CHECK_EQ_INT(go_version__minor("go1."), -1);
	CHECK_EQ_INT(go_version__minor("go1.x"), -1);
	CHECK_EQ_INT(go_version__minor("gccgo"), -1);
	CHECK_EQ_INT(go_version__minor("go1.99999999999999999999"), -1);
}

int main(void)
{
	RUN(count_fixtures);
	RUN(arm64_fixtures);
	RUN(stripped_cgo);
	RUN(esbuild);
	RUN(gccgo);
	RUN(dwarf_handle);
	RUN(bad_inputs);
	RUN(version_minor);
	return TEST_SUMMARY();
}
