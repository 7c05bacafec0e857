// SPDX-License-Identifier: MIT
/*
 * buildinfo__version on real binaries, checked against the toolchain that
 * built them (its VERSION file) and against `go version FILE`, and on
 * hand-built headers of both formats, whole, truncated and corrupted.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gobin/buildinfo.h"
#include "core/error.h"
#include "fake_mem.h"
#include "test.h"

/* ---- real binaries ---- */

struct bin {
	uint8_t *file;
	size_t size;
	Elf *elf;
};

static bool bin_open(const char *fixture, struct bin *b)
{
	const char *path = test_fixture(fixture);
	struct stat st;
	int fd;

	memset(b, 0, sizeof(*b));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "fixture missing: %s\n", path);
		CHECK(fd >= 0);
		return false;
	}
	if (fstat(fd, &st) || !(b->file = malloc(st.st_size)) ||
	    read(fd, b->file, st.st_size) != st.st_size) {
		close(fd);
		CHECK(!"fixture readable");
		return false;
	}
	close(fd);
	b->size = st.st_size;
	b->elf = elf_memory((char *)b->file, b->size);
	CHECK(b->elf != NULL);
	return b->elf != NULL;
}

static void bin_close(struct bin *b)
{
	if (b->elf)
		elf_end(b->elf);
	free(b->file);
}

/* The read callback: file-backed bytes of one PT_LOAD segment. */
static int read_vaddr(void *ctx, uint64_t vaddr, size_t len,
		      const uint8_t **out)
{
	struct bin *b = ctx;
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(b->elf, &n))
		return -ERANGE;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (vaddr - ph.p_vaddr) ||
		    ph.p_offset + ph.p_filesz > b->size)
			continue;
		*out = b->file + ph.p_offset + (vaddr - ph.p_vaddr);
		return 0;
	}
	return -ERANGE;
}

/* The .go.buildinfo section's bytes; false when there is none. */
static bool section_bytes(struct bin *b, const uint8_t **data, size_t *size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t shstrndx;

	if (elf_getshdrstrndx(b->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(b->elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			return false;
		name = elf_strptr(b->elf, shstrndx, shdr.sh_name);
		if (!name || strcmp(name, ".go.buildinfo") != 0)
			continue;
		if (shdr.sh_offset > b->size ||
		    shdr.sh_size > b->size - shdr.sh_offset)
			return false;
		*data = b->file + shdr.sh_offset;
		*size = shdr.sh_size;
		return true;
	}
	return false;
}

/*
 * Scan every writable, non-executable PT_LOAD from its first 16-byte
 * aligned address. Exactly one may hold the header: its version goes into
 * VERSION and 0 is returned; the others must say -ENOENT.
 */
static int scan_segments(struct bin *b, char *version, size_t len)
{
	int found = -ENOENT;
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(b->elf, &n))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		uint64_t skip;
		char v[64];
		int err;

		if (!gelf_getphdr(b->elf, i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & (PF_X | PF_W)) != PF_W)
			continue;
		skip = (16 - ph.p_vaddr % 16) % 16;
		if (ph.p_offset + ph.p_filesz > b->size || ph.p_filesz < skip)
			return -EINVAL;
		err = buildinfo__version(b->file + ph.p_offset + skip,
					 ph.p_filesz - skip, read_vaddr, b,
					 v, sizeof(v));
		if (err == -ENOENT)
			continue;
		if (err || found == 0)
			return -EINVAL;
		snprintf(version, len, "%s", v);
		found = 0;
	}
	return found;
}

/* The first line of the toolchain's VERSION file ("go1.21.13"). */
static bool toolchain_version(const char *tc, char *out, size_t len)
{
	char path[4096];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/go/%s/VERSION", test_cache(), tc);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "toolchain missing: %s\n", path);
		return false;
	}
	ok = fgets(out, len, f) != NULL;
	fclose(f);
	out[strcspn(out, "\r\n")] = '\0';
	return ok && out[0];
}

/*
 * What `go version FILE` prints with toolchain TC: "FILE: go1.21.13" gives
 * "go1.21.13"; an error gives "". Returns false when go cannot run.
 */
static bool go_version_of(const char *tc, const char *file, char *out,
			  size_t len)
{
	char cmd[8192], line[4096], *p;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "GOROOT='%s/go/%s' GOTOOLCHAIN=local '%s/go/%s/bin/go' "
		 "version '%s' 2>&1", test_cache(), tc, test_cache(), tc, file);
	f = popen(cmd, "r");
	if (!f)
		return false;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (pclose(f) == -1 || !line[0])
		return false;
	line[strcspn(line, "\r\n")] = '\0';
	/* Not "FILE: ...": go itself did not run. */
	if (strncmp(line, file, strlen(file)) != 0 ||
	    strncmp(line + strlen(file), ": ", 2) != 0) {
		fprintf(stderr, "go version: %s\n", line);
		return false;
	}
	p = line + strlen(file) + 2;
	out[0] = '\0';
	if (strncmp(p, "go", 2) == 0)
		snprintf(out, len, "%s", p);
	return true;
}

/*
 * FIXTURE was built by toolchain TC: the version read from its
 * .go.buildinfo section and from a scan of its data segments must equal
 * the toolchain's VERSION and what `go version` says.
 */
static void check_fixture(const char *fixture, const char *tc)
{
	char want[64] = "", got[64] = "", seg[64] = "", gov[256] = "";
	const uint8_t *data;
	size_t size;
	struct bin b;
	int err;

	if (!bin_open(fixture, &b))
		goto out;
	CHECK(toolchain_version(tc, want, sizeof(want)));
	CHECK(go_version_of(tc, test_fixture(fixture), gov, sizeof(gov)));
	CHECK_EQ_STR(gov, want);

	CHECK(section_bytes(&b, &data, &size));
	err = buildinfo__version(data, size, read_vaddr, &b, got,
				 sizeof(got));
	if (err)
		fprintf(stderr, "%s: %s\n", fixture, gt_last_error());
	CHECK_EQ_INT(err, 0);
	CHECK_EQ_STR(got, want);

	CHECK_EQ_INT(scan_segments(&b, seg, sizeof(seg)), 0);
	CHECK_EQ_STR(seg, want);
out:
	bin_close(&b);
}

#define FIXTURE_TESTS(nn)						\
TEST(go1##nn##_default) { check_fixture("count-go1." #nn "-default", "1." #nn); } \
TEST(go1##nn##_stripped) { check_fixture("count-go1." #nn "-stripped", "1." #nn); } \
TEST(go1##nn##_pie) { check_fixture("count-go1." #nn "-pie", "1." #nn); } \
TEST(go1##nn##_cgo) { check_fixture("count-go1." #nn "-cgo", "1." #nn); }

FIXTURE_TESTS(15)
FIXTURE_TESTS(19)
FIXTURE_TESTS(21)
FIXTURE_TESTS(23)
FIXTURE_TESTS(25)
FIXTURE_TESTS(27)

/* esbuild 0.8.40, built with go1.15.7: the pointer format. */
TEST(esbuild_go115)
{
	char got[64] = "", seg[64] = "", gov[256] = "";
	const uint8_t *data;
	size_t size;
	struct bin b;

	if (!bin_open("esbuild-go1.15", &b))
		goto out;
	CHECK(section_bytes(&b, &data, &size));
	CHECK_EQ_INT(buildinfo__version(data, size, read_vaddr, &b, got,
					sizeof(got)), 0);
	CHECK(strncmp(got, "go1.15.", 7) == 0);
	CHECK_EQ_INT(scan_segments(&b, seg, sizeof(seg)), 0);
	CHECK_EQ_STR(seg, got);
	CHECK(go_version_of("1.15", test_fixture("esbuild-go1.15"), gov,
			    sizeof(gov)));
	CHECK_EQ_STR(got, gov);
out:
	bin_close(&b);
}

/*
 * esbuild 0.28.2 (go1.26.5) carries no build info at all, not even the
 * magic in its data segment; `go version` cannot read it either.
 */
TEST(esbuild_latest)
{
	char seg[64] = "", gov[256] = "x";
	const uint8_t *data;
	size_t size;
	struct bin b;

	if (!bin_open("esbuild-latest", &b))
		goto out;
	CHECK(!section_bytes(&b, &data, &size));
	CHECK_EQ_INT(scan_segments(&b, seg, sizeof(seg)), -ENOENT);
	CHECK(go_version_of("1.27", test_fixture("esbuild-latest"), gov,
			    sizeof(gov)));
	CHECK_EQ_STR(gov, "");
out:
	bin_close(&b);
}

/* ---- hand-built headers ---- */

static const char magic[] = "\xff Go buildinf:";

/* A 1.18+ header at offset AT of BUF, followed by VERSION and a modinfo. */
static size_t build_inline(uint8_t *buf, size_t at, const char *version)
{
	size_t n = at + 32, len = strlen(version);

	memset(buf, 0, at + 32);
	memcpy(buf + at, magic, 14);
	buf[at + 14] = 8;
	buf[at + 15] = 2;
	buf[n++] = (uint8_t)len;
	memcpy(buf + n, version, len);
	n += len;
	buf[n++] = 3;
	memcpy(buf + n, "mod", 3);
	return n + 3;
}

/* Call buildinfo__version on a private copy of exactly N bytes. */
static int version_copy(const uint8_t *buf, size_t n, buildinfo_read_fn fn,
			void *ctx, char *out, size_t len)
{
	uint8_t *copy = malloc(n ? n : 1);
	int err;

	if (!copy)
		abort();
	memcpy(copy, buf, n);
	err = buildinfo__version(copy, n, fn, ctx, out, len);
	free(copy);
	return err;
}

TEST(inline_format)
{
	uint8_t buf[256];
	char v[64];
	size_t n, i;

	n = build_inline(buf, 0, "go1.21.3");
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), 0);
	CHECK_EQ_STR(v, "go1.21.3");
	/* Further in, at an aligned offset. */
	n = build_inline(buf, 48, "devel go1.22-abc");
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), 0);
	CHECK_EQ_STR(v, "devel go1.22-abc");

	/* Every truncation fails cleanly: no header, or a cut string. */
	n = build_inline(buf, 16, "go1.21.3");
	for (i = 0; i < 16 + 32; i++)
		CHECK_EQ_INT(version_copy(buf, i, NULL, NULL, v, sizeof(v)),
			     -ENOENT);
	for (; i < 16 + 32 + 1 + 8; i++)
		CHECK_EQ_INT(version_copy(buf, i, NULL, NULL, v, sizeof(v)),
			     -EINVAL);
	/* The module info is not needed for the version. */
	for (; i <= n; i++)
		CHECK_EQ_INT(version_copy(buf, i, NULL, NULL, v, sizeof(v)), 0);
}

TEST(unaligned_magic_ignored)
{
	uint8_t buf[256];
	size_t n;
	char v[64];

	n = build_inline(buf, 8, "go1.21.3");
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), -ENOENT);
	CHECK_EQ_INT(version_copy(buf, 0, NULL, NULL, v, sizeof(v)), -ENOENT);
	CHECK_EQ_INT(buildinfo__version(NULL, 0, NULL, NULL, v, sizeof(v)),
		     -ENOENT);
}

TEST(inline_corrupt)
{
	uint8_t buf[256];
	size_t n;
	char v[64], small[8];

	/* Too long for the caller's buffer (8 chars need 9 bytes). */
	n = build_inline(buf, 0, "go1.21.3");
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, small, sizeof(small)),
		     -EINVAL);
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, 9), 0);
	CHECK_EQ_STR(v, "go1.21.3");
	/* Empty version. */
	n = build_inline(buf, 0, "");
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), -EINVAL);
	/* A length running off the data, and a runaway varint. */
	n = build_inline(buf, 0, "go1.21.3");
	buf[32] = 0x7f;
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), -EINVAL);
	memset(buf + 32, 0xff, 16);
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), -EINVAL);
	/* Control bytes are not a version. */
	n = build_inline(buf, 0, "go1\n21");
	CHECK_EQ_INT(version_copy(buf, n, NULL, NULL, v, sizeof(v)), -EINVAL);
}

/* A fake address space for the pointer format: one region at 0x1000. */
#define SPACE_BASE 0x1000u

static void put(uint8_t *p, uint64_t v, int size, bool big)
{
	int i;

	for (i = 0; i < size; i++)
		p[big ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

/*
 * A pre-1.18 header at 0 of MEM (mapped at SPACE_BASE): the pointer at 16
 * leads to a string header at 64, whose data at 96 is VERSION.
 */
static void build_pointer(uint8_t *mem, int ptr_size, bool big,
			  const char *version)
{
	memset(mem, 0, 128);
	memcpy(mem, magic, 14);
	mem[14] = (uint8_t)ptr_size;
	mem[15] = big;
	put(mem + 16, SPACE_BASE + 64, ptr_size, big);
	put(mem + 64, SPACE_BASE + 96, ptr_size, big);
	put(mem + 64 + ptr_size, strlen(version), ptr_size, big);
	memcpy(mem + 96, version, strlen(version));
}

TEST(pointer_format)
{
	uint8_t mem[128];
	struct fake_mem s = { SPACE_BASE, mem, sizeof(mem) };
	char v[64];

	build_pointer(mem, 8, false, "go1.15.15");
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), 0);
	CHECK_EQ_STR(v, "go1.15.15");
	build_pointer(mem, 4, false, "go1.13.8");
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), 0);
	CHECK_EQ_STR(v, "go1.13.8");
	build_pointer(mem, 8, true, "go1.16.2");
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), 0);
	CHECK_EQ_STR(v, "go1.16.2");
	build_pointer(mem, 4, true, "go1.14");
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), 0);
	CHECK_EQ_STR(v, "go1.14");
}

TEST(pointer_corrupt)
{
	uint8_t mem[128];
	struct fake_mem s = { SPACE_BASE, mem, sizeof(mem) };
	char v[64];

	/* No reader. */
	build_pointer(mem, 8, false, "go1.15.15");
	CHECK_EQ_INT(buildinfo__version(mem, 32, NULL, NULL, v, sizeof(v)),
		     -EINVAL);
	/* Pointer to nowhere (as in an unrelocated file), to the last byte. */
	put(mem + 16, 0, 8, false);
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), -EINVAL);
	put(mem + 16, SPACE_BASE + sizeof(mem) - 1, 8, false);
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), -EINVAL);
	/* String data outside, a huge length, an empty string. */
	build_pointer(mem, 8, false, "go1.15.15");
	put(mem + 64, UINT64_MAX - 3, 8, false);
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), -EINVAL);
	build_pointer(mem, 8, false, "go1.15.15");
	put(mem + 72, UINT64_MAX, 8, false);
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), -EINVAL);
	build_pointer(mem, 8, false, "");
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), -EINVAL);
	/* A pointer size that is neither 4 nor 8. */
	build_pointer(mem, 8, false, "go1.15.15");
	mem[14] = 2;
	CHECK_EQ_INT(buildinfo__version(mem, 32, fake_mem__read, &s, v,
					sizeof(v)), -EINVAL);
	/* A header cut short is no header. */
	build_pointer(mem, 8, false, "go1.15.15");
	CHECK_EQ_INT(buildinfo__version(mem, 31, fake_mem__read, &s, v,
					sizeof(v)), -ENOENT);
}

int main(void)
{
	RUN(go115_default);
	RUN(go115_stripped);
	RUN(go115_pie);
	RUN(go115_cgo);
	RUN(go119_default);
	RUN(go119_stripped);
	RUN(go119_pie);
	RUN(go119_cgo);
	RUN(go121_default);
	RUN(go121_stripped);
	RUN(go121_pie);
	RUN(go121_cgo);
	RUN(go123_default);
	RUN(go123_stripped);
	RUN(go123_pie);
	RUN(go123_cgo);
	RUN(go125_default);
	RUN(go125_stripped);
	RUN(go125_pie);
	RUN(go125_cgo);
	RUN(go127_default);
	RUN(go127_stripped);
	RUN(go127_pie);
	RUN(go127_cgo);
	RUN(esbuild_go115);
	RUN(esbuild_latest);
	RUN(inline_format);
	RUN(unaligned_magic_ignored);
	RUN(inline_corrupt);
	RUN(pointer_format);
	RUN(pointer_corrupt);
	return TEST_SUMMARY();
}
