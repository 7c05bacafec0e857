// SPDX-License-Identifier: MIT
/*
 * goroutine: where the g pointer, goid and stack.hi are.
 *
 * Three independent sources agree on every count fixture: the library
 * (libdw on runtime.g, or the version table for stripped builds), `readelf
 * -wi` of the same binary (runtime.g.goid, runtime.g.stack and
 * runtime.stack.hi), and the table of goid offsets read off runtime2.go
 * of each release, written out here. The TLS slot is checked against `objdump -d`: every %fs access
 * of the runtime's own functions uses that one offset. Binaries without
 * build info (esbuild-latest, and copies of fixtures whose build-info magic
 * is wiped) still get their version from runtime.buildVersion.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "goabi/goroutine.h"
#include "cached_output.h"
#include "test.h"

static const int versions[] = { 15, 19, 21, 23, 25, 27 };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

/* runtime.g.goid by runtime2.go of each release */
static uint32_t table_goid(int minor)
{
	return minor >= 23 && minor <= 24 ? 160 : 152;
}

/* Run CMD and read one line of its output into OUT; false on failure. */
static bool run_line(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	bool ok;

	if (!p)
		return false;
	ok = fgets(out, (int)len, p) != NULL;
	if (pclose(p) != 0)
		ok = false;
	return ok;
}

/* runtime.g.goid, runtime.g.stack, runtime.stack.hi and
 * runtime.g.waitreason per readelf. */
static bool readelf_offsets(const char *path, long *goid, long *stack,
			    long *hi, long *waitreason)
{
	static const char awk[] =
		"/^ <1>/ { s = \"\"; m = \"\"; want = /DW_TAG_structure_type/; next }\n"
		"want && /DW_AT_name/ { want = 0; s = $NF; next }\n"
		"/DW_AT_name/ { m = $NF }\n"
		"/DW_AT_data_member_location/ {\n"
		"  if (s == \"runtime.g\" && m == \"goid\") goid = $NF\n"
		"  if (s == \"runtime.g\" && m == \"stack\") stack = $NF\n"
		"  if (s == \"runtime.stack\" && m == \"hi\") hi = $NF\n"
		"  if (s == \"runtime.g\" && m == \"waitreason\") wr = $NF\n"
		"}\n"
		"END { print goid + 0, stack + 0, hi + 0, wr + 0, (goid != \"\" && stack != \"\" && hi != \"\" && wr != \"\") }\n";
	char cmd[8192], line[256];
	int complete = 0;

	snprintf(cmd, sizeof(cmd), "readelf -wi '%s' | awk '%s'", path, awk);
	if (!run_line(cmd, line, sizeof(line)))
		return false;
	return sscanf(line, "%ld %ld %ld %ld %d", goid, stack, hi, waitreason,
		      &complete) == 5 && complete;
}

/* The one TLS offset the runtime.* functions load g from, per objdump:
 * `mov %fs:0xfffffffffffffff8,%r14`, or `mov $0xfff..f8,%reg` followed by
 * `mov %fs:(%reg),...` in PIE. False unless there is exactly one. */
static bool objdump_tls_offset(const char *path, int64_t *off)
{
	static const char awk[] =
		"/^[0-9a-f]+ <.*>:$/ { fn = $2; prev = \"\"; next }\n"
		"fn ~ /^<runtime\\./ && /%fs:/ {\n"
		"  if (match($0, /%fs:0x[0-9a-f]+($|,)/)) {\n"
		"    v = substr($0, RSTART + 4, RLENGTH - 4); sub(/,$/, \"\", v); seen[v] = 1\n"
		"  } else if (/%fs:(0x0)?\\(%/ && match(prev, /\\$0x[0-9a-f]+,/)) {\n"
		"    seen[substr(prev, RSTART + 1, RLENGTH - 2)] = 1\n"
		"  }\n"
		"}\n"
		"{ prev = $0 }\n"
		"END { n = 0; for (v in seen) { n++; last = v } print n, last }\n";
	char cmd[8192], line[256], val[64];
	bool got;
	FILE *p;
	int n;

	snprintf(cmd, sizeof(cmd),
		 "objdump -d --no-show-raw-insn '%s' | awk '%s'", path, awk);
	p = cached_output__open(cmd, path, "objdump");
	if (!p)
		return false;
	got = fgets(line, sizeof(line), p) != NULL;
	fclose(p);
	if (!got)
		return false;
	if (sscanf(line, "%d %63s", &n, val) != 2 || n != 1)
		return false;
	*off = (int64_t)strtoull(val, NULL, 16);
	return true;
}

static bool has_debug_info(const char *path)
{
	char cmd[4200], line[64];

	snprintf(cmd, sizeof(cmd),
		 "readelf -SW '%s' | grep -c 'debug_info' || true", path);
	return run_line(cmd, line, sizeof(line)) && atoi(line) > 0;
}

/* Open NAME and find its layout; false (and a failed check) on error.
 * VERSION gets the version go_binary found; FAKE_VERSION replaces it. */
static bool layout_of_as(const char *path, struct goroutine_layout *l,
			 char *version, size_t version_len,
			 const char *fake_version)
{
	struct go_binary *bin;
	int err;

	err = go_binary__open(path, &bin);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, gt_last_error());
		CHECK_EQ_INT(err, 0);
		return false;
	}
	if (version)
		snprintf(version, version_len, "%s", bin->version);
	if (fake_version)
		snprintf(bin->version, sizeof(bin->version), "%s",
			 fake_version);
	err = goroutine_layout__find(bin, l);
	if (err)
		fprintf(stderr, "%s: %s\n", path, gt_last_error());
	CHECK_EQ_INT(err, 0);
	go_binary__close(bin);
	return err == 0;
}

static bool layout_of(const char *path, struct goroutine_layout *l,
		      char *version, size_t version_len)
{
	return layout_of_as(path, l, version, version_len, NULL);
}

TEST(dwarf_equals_readelf_and_table)
{
	static const char *forms[] = { "default", "pie", "cgo" };
	struct goroutine_layout l;
	long goid, stack, hi, waitreason;
	char name[64];
	const char *path;
	size_t i, f;

	for (i = 0; i < NVERSIONS; i++) {
		for (f = 0; f < 3; f++) {
			snprintf(name, sizeof(name), "count-go1.%d-%s",
				 versions[i], forms[f]);
			path = test_fixture(name);
			CHECK(has_debug_info(path));
			if (!layout_of(path, &l, NULL, 0))
				continue;
			if (!readelf_offsets(path, &goid, &stack, &hi,
					     &waitreason)) {
				fprintf(stderr, "%s: no runtime.g in readelf\n",
					name);
				CHECK(0);
				continue;
			}
			CHECK_EQ_INT(l.goid_offset, goid);
			CHECK_EQ_INT(l.stack_hi_offset, stack + hi);
			CHECK_EQ_INT(l.waitreason_offset, waitreason);
			CHECK_EQ_INT(l.goid_offset, table_goid(versions[i]));
			CHECK_EQ_INT(l.stack_hi_offset, 8);
			CHECK_EQ_INT(l.waitreason_offset, goid + 24);
			/* DWARF answered, not the version: a version the
			 * table does not know changes nothing. */
			if (!layout_of_as(path, &l, NULL, 0, "go1.5"))
				continue;
			CHECK_EQ_INT(l.goid_offset, goid);
			CHECK_EQ_INT(l.stack_hi_offset, stack + hi);
		}
	}
}

TEST(stripped_equals_default_twin)
{
	struct goroutine_layout s, d;
	char name[64], path[4096];
	size_t i;

	for (i = 0; i < NVERSIONS; i++) {
		snprintf(name, sizeof(name), "count-go1.%d-default",
			 versions[i]);
		if (!layout_of(test_fixture(name), &d, NULL, 0))
			continue;
		snprintf(name, sizeof(name), "count-go1.%d-stripped",
			 versions[i]);
		snprintf(path, sizeof(path), "%s", test_fixture(name));
		/* Without DWARF: the version table answered. */
		CHECK(!has_debug_info(path));
		if (!layout_of(path, &s, NULL, 0))
			continue;
		CHECK_EQ_INT(s.goid_offset, d.goid_offset);
		CHECK_EQ_INT(s.stack_hi_offset, d.stack_hi_offset);
		CHECK_EQ_INT(s.waitreason_offset, d.waitreason_offset);
		CHECK_EQ_INT(s.tls_g_offset, d.tls_g_offset);
	}
	/* Without DWARF, a version the table does not know is refused. */
	{
		struct go_binary *bin;
		int err = go_binary__open(test_fixture("count-go1.21-stripped"),
					  &bin);

		CHECK_EQ_INT(err, 0);
		if (err)
			return;
		strcpy(bin->version, "go1.5");
		CHECK_EQ_INT(goroutine_layout__find(bin, &s), -ENOTSUP);
		CHECK(strstr(gt_last_error(), "Go 1.5") != NULL);
		go_binary__close(bin);
	}
}

TEST(tls_offset_equals_objdump)
{
	static const char *forms[] = { "default", "pie", "cgo" };
	struct goroutine_layout l;
	char name[64];
	const char *path;
	int64_t off;
	size_t i, f;

	for (i = 0; i < NVERSIONS; i++) {
		for (f = 0; f < 3; f++) {
			snprintf(name, sizeof(name), "count-go1.%d-%s",
				 versions[i], forms[f]);
			path = test_fixture(name);
			if (!layout_of(path, &l, NULL, 0))
				continue;
			if (!objdump_tls_offset(path, &off)) {
				fprintf(stderr, "%s: no single TLS offset in objdump\n",
					name);
				CHECK(0);
				continue;
			}
			CHECK_EQ_INT(l.tls_g_offset, off);
		}
	}
}

TEST(thirdparty_esbuild)
{
	struct goroutine_layout l;
	char version[64];

	/* go1.26 without build info: runtime.buildVersion tells. */
	if (layout_of(test_fixture("esbuild-latest"), &l, version,
		      sizeof(version))) {
		CHECK_EQ_STR(version, "");
		CHECK_EQ_INT(l.goid_offset, 152);
		CHECK_EQ_INT(l.stack_hi_offset, 8);
		CHECK_EQ_INT(l.tls_g_offset, -8);
	}
	if (layout_of(test_fixture("esbuild-go1.15"), &l, NULL, 0)) {
		CHECK_EQ_INT(l.goid_offset, 152);
		CHECK_EQ_INT(l.stack_hi_offset, 8);
		CHECK_EQ_INT(l.tls_g_offset, -8);
	}
}

/* The offset from fsbase the loader gave the executable's
 * __morestack_current_segment, as PATH's own code reads it: the GOT slot
 * of its R_X86_64_TPOFF64 relocation, which ld.so fills, read by gdb at
 * main.main. */
static bool loader_segment_offset(const char *path, int64_t *off)
{
	char cmd[16384], line[256];

	snprintf(cmd, sizeof(cmd),
		 "slot=$(readelf -rW '%s' | awk '$3 == \"R_X86_64_TPOFF64\" && $5 == \"__morestack_current_segment\" { print $1 }'); "
		 "mm=$(readelf -sW '%s' | awk '$8 == \"main.main\" { print $2; exit }'); "
		 "[ -n \"$slot\" ] && [ -n \"$mm\" ] && "
		 "gdb -batch -iex 'set auto-load no' -ex 'break main.main' -ex run "
		 "-ex 'set language c' "
		 "-ex \"p *(long *)((long)&'main.main' - 0x$mm + 0x$slot)\" "
		 "'%s' 2>/dev/null </dev/null | sed -n 's/^[$]1 = //p'",
		 path, path, path);
	if (!run_line(cmd, line, sizeof(line)))
		return false;
	return sscanf(line, "%" SCNd64, off) == 1;
}

/* gccgo: no g to read; the split-stack segment's TLS slot is where the
 * loader put it, in every gccgo fixture. libgo.so itself has no layout:
 * the executable's TLS block holds the slot. */
TEST(gccgo_split_stack_slot)
{
	static const char *names[] = {
		"count-gccgo", "latency-gccgo", "args-gccgo", "values-gccgo",
		"graph-gccgo",
	};
	struct goroutine_layout l;
	struct go_binary *bin;
	char libgo[4096] = "";
	int64_t off;
	size_t i;
	int err;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		err = go_binary__open(test_fixture(names[i]), &bin);
		CHECK_EQ_INT(err, 0);
		if (err)
			continue;
		CHECK_EQ_INT(goroutine_layout__find(bin, &l), 0);
		CHECK_EQ_INT(l.goid_offset, 0);
		CHECK_EQ_INT(l.tls_g_offset, 0);
		if (!loader_segment_offset(test_fixture(names[i]), &off)) {
			fprintf(stderr, "%s: gdb read no TPOFF64 slot\n", names[i]);
			CHECK(0);
		} else {
			CHECK_EQ_INT(l.tls_segment_offset, off);
		}
		go_binary__close(bin);
	}
	CHECK(test_libgo_path(libgo, sizeof(libgo)));
	err = go_binary__open(libgo, &bin);
	CHECK_EQ_INT(err, 0);
	if (err)
		return;
	CHECK_EQ_INT(goroutine_layout__find(bin, &l), -ENOTSUP);
	CHECK(strstr(gt_last_error(), "is a library") != NULL);
	go_binary__close(bin);
}

/* gccgo on arm64 has no split stacks: no symbol of libgcc's
 * generic-morestack (__morestack, __morestack_current_segment...) in the
 * arm64 gccgo fixtures nor in the libgo they load (readelf), so nothing
 * tells their goroutines apart, and the layout says why. */
TEST(gccgo_arm64_no_split_stacks)
{
	static const char *names[] = {
		"count-gccgo-arm64", "latency-gccgo-arm64", "args-gccgo-arm64",
		"/usr/aarch64-linux-gnu/lib/libgo.so.21",
	};
	struct goroutine_layout l;
	struct go_binary *bin;
	char cmd[4200], out[64];
	size_t i;
	int err;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *path = names[i][0] == '/' ? names[i] :
				   test_fixture(names[i]);

		/* grep -c exits 1 when it counts none */
		snprintf(cmd, sizeof(cmd),
			 "(readelf -Ws '%s' | grep -c -e morestack -e splitstack) || true",
			 path);
		CHECK(run_line(cmd, out, sizeof(out)) && !strcmp(out, "0\n"));
		err = go_binary__open(path, &bin);
		CHECK_EQ_INT(err, 0);
		if (err)
			continue;
		CHECK(bin->is_gccgo);
		CHECK_EQ_INT(bin->elf->machine, EM_AARCH64);
		CHECK_EQ_INT(goroutine_layout__find(bin, &l), -ENOTSUP);
		CHECK(strstr(gt_last_error(), names[i][0] == '/' ?
			     "is a library" : "no split stacks on arm64") != NULL);
		go_binary__close(bin);
	}
}

/* The layout of the goroutines running a file's code: its own, but for
 * libgo.so, the executable's, which must be gccgo's. */
TEST(layout_in_program)
{
	struct goroutine_layout l, want;
	struct go_binary *bin = NULL, *exe = NULL;
	char libgo[4096] = "";
	int err;

	/* not libgo: its own, whatever the executable */
	err = go_binary__open(test_fixture("graph-go1.23-default"), &bin);
	CHECK_EQ_INT(err, 0);
	if (!err) {
		CHECK_EQ_INT(goroutine_layout__find(bin, &want), 0);
		memset(&l, 0xff, sizeof(l));
		CHECK_EQ_INT(goroutine_layout__find_in(bin, "/nonexistent", &l), 0);
		CHECK(!memcmp(&l, &want, sizeof(l)));
		go_binary__close(bin);
		bin = NULL;
	}
	CHECK(test_libgo_path(libgo, sizeof(libgo)));
	err = go_binary__open(libgo, &bin);
	CHECK_EQ_INT(err, 0);
	if (!err)
		err = go_binary__open(test_fixture("graph-gccgo"), &exe);
	CHECK_EQ_INT(err, 0);
	if (err) {
		go_binary__close(bin);
		return;
	}
	CHECK_EQ_INT(goroutine_layout__find(exe, &want), 0);
	CHECK(want.tls_segment_offset != 0);
	memset(&l, 0xff, sizeof(l));
	CHECK_EQ_INT(goroutine_layout__find_in(bin, test_fixture("graph-gccgo"), &l), 0);
	CHECK(!memcmp(&l, &want, sizeof(l)));
	CHECK_EQ_INT(goroutine_layout__find_in(bin, NULL, &l), -ENOTSUP);
	CHECK(strstr(gt_last_error(), "is a library") != NULL);
	CHECK_EQ_INT(goroutine_layout__find_in(bin, test_fixture("graph-go1.23-default"), &l), -ENOTSUP);
	CHECK(strstr(gt_last_error(), "libgo's functions traced in a program not built by gccgo") != NULL);
	go_binary__close(exe);
	go_binary__close(bin);
}

/* Copy the file SRC to a temporary file; overwrite every occurrence of
 * FROM with TO (same length). Returns the count replaced, or -1. */
static int copy_patched(const char *src, char *out, size_t out_len,
			const char *from, const char *to)
{
	char tmpl[] = "/tmp/test_goroutine.XXXXXX";
	size_t n = strlen(from), i, size;
	uint8_t *buf = NULL;
	FILE *in;
	int fd, count = 0;
	struct stat st;

	in = fopen(src, "rb");
	if (!in)
		return -1;
	if (fstat(fileno(in), &st) || !(buf = malloc(st.st_size)) ||
	    fread(buf, 1, st.st_size, in) != (size_t)st.st_size) {
		fclose(in);
		free(buf);
		return -1;
	}
	fclose(in);
	size = st.st_size;
	for (i = 0; i + n <= size; i++) {
		if (!memcmp(buf + i, from, n)) {
			memcpy(buf + i, to, n);
			count++;
		}
	}
	fd = mkstemp(tmpl);
	if (fd < 0 || write(fd, buf, size) != (ssize_t)size) {
		if (fd >= 0) {
			close(fd);
			unlink(tmpl);
		}
		free(buf);
		return -1;
	}
	close(fd);
	free(buf);
	snprintf(out, out_len, "%s", tmpl);
	return count;
}

TEST(version_from_build_version_string)
{
	static const char magic[] = "\xff Go buildinf:";
	struct goroutine_layout l;
	struct go_binary *bin;
	char path[64], tmp[64], version[64], msg[256];
	size_t i;
	int n, err;

	for (i = 0; i < NVERSIONS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "count-go1.%d-stripped",
			 versions[i]);
		n = copy_patched(test_fixture(name), path, sizeof(path), magic,
				 "\xff No buildinf:");
		CHECK_EQ_INT(n, 1);
		if (n < 0)
			continue;
		if (layout_of(path, &l, version, sizeof(version))) {
			CHECK_EQ_STR(version, "");
			CHECK_EQ_INT(l.goid_offset, table_goid(versions[i]));
			CHECK_EQ_INT(l.stack_hi_offset, 8);
		}
		unlink(path);
	}

	/* With no version anywhere: a reason, not a guess. */
	n = copy_patched(test_fixture("count-go1.23-stripped"), tmp,
			 sizeof(tmp), magic, "\xff No buildinf:");
	CHECK_EQ_INT(n, 1);
	if (n < 0)
		return;
	n = copy_patched(tmp, path, sizeof(path), "go1.", "xx1.");
	unlink(tmp);
	CHECK(n > 0);
	if (n < 0)
		return;
	err = go_binary__open(path, &bin);
	CHECK_EQ_INT(err, 0);
	if (!err) {
		CHECK_EQ_STR(bin->version, "");
		CHECK_EQ_INT(goroutine_layout__find(bin, &l), -ENOTSUP);
		snprintf(msg, sizeof(msg), "cannot tell the Go version of %s",
			 path);
		CHECK_EQ_STR(gt_last_error(), msg);
		go_binary__close(bin);
	}
	unlink(path);
}

int main(void)
{
	RUN(dwarf_equals_readelf_and_table);
	RUN(stripped_equals_default_twin);
	RUN(tls_offset_equals_objdump);
	RUN(thirdparty_esbuild);
	RUN(gccgo_split_stack_slot);
	RUN(gccgo_arm64_no_split_stacks);
	RUN(layout_in_program);
	RUN(version_from_build_version_string);
	return TEST_SUMMARY();
}
