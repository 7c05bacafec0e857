// SPDX-License-Identifier: MIT
/*
 * elf_file: section lookup and vaddr -> file offset translation checked
 * against the section headers and symbols read here directly through
 * libelf, and every kind of bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "elf/elf_file.h"
#include "core/error.h"
#include "test.h"

static const char *const versions[] = { "1.15", "1.19", "1.21", "1.23",
					"1.25", "1.27" };
static const char *const forms[] = { "default", "pie", "cgo" };

/* Ground truth: symbol NAME's value and the header of its section. */
static bool truth_symbol(const char *path, const char *name, GElf_Sym *sym,
			 GElf_Shdr *sym_scn)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool found = false;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *n;

			gelf_getsym(d, i, sym);
			n = elf_strptr(elf, sh.sh_link, sym->st_name);
			if (n && strcmp(n, name) == 0) {
				found = gelf_getshdr(elf_getscn(elf,
						sym->st_shndx), sym_scn) != NULL;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* Ground truth: the lowest p_vaddr of PATH's PT_LOAD segments, from
 * readelf. */
/* The lowest address of the PT_LOAD segments readelf lists (CODE: of
 * those whose flags have E). */
static uint64_t truth_first_load(const char *path, bool code)
{
	unsigned long long off, vaddr, low = UINT64_MAX;
	char cmd[4200], line[512];
	int flags = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -lW '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return 0;
	/* LOAD Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align */
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%*x 0x%*x 0x%*x %n",
			   &off, &vaddr, &flags) == 2 && flags &&
		    (!code || strchr(line + flags, 'E')) && vaddr < low)
			low = vaddr;
	pclose(p);
	return low;
}

static bool read_file_at(const char *path, uint64_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, buf, len, off) == (ssize_t)len;
	close(fd);
	return ok;
}

static void check_fixture(const char *name)
{
	const char *path = test_fixture(name);
	struct elf_file *ef;
	GElf_Sym sym;
	GElf_Shdr sym_scn;
	uint64_t off, want, addr;
	const uint8_t *bytes;
	uint8_t file_bytes[16];
	size_t size;
	int err;

	err = elf_file__open(path, &ef);
	if (err) {
		fprintf(stderr, "%s: %s\n", name, gt_last_error());
		CHECK_EQ_INT(err, 0);
		return;
	}
	CHECK_EQ_INT(ef->machine, EM_X86_64);
	CHECK_EQ_INT(ef->type, strstr(name, "-pie") ? ET_DYN : ET_EXEC);
	CHECK_EQ_STR(ef->path, path);

	/* main.add's file offset: sh_offset + addr - sh_addr */
	CHECK(truth_symbol(path, "main.add", &sym, &sym_scn));
	want = sym_scn.sh_offset + sym.st_value - sym_scn.sh_addr;
	CHECK_EQ_INT(elf_file__vaddr_to_offset(ef, sym.st_value, &off), 0);
	CHECK_EQ_INT(off, want);
	CHECK_EQ_INT(elf_file__read_vaddr(ef, sym.st_value, 16, &bytes), 0);
	CHECK(read_file_at(path, want, file_bytes, 16));
	CHECK(memcmp(bytes, file_bytes, 16) == 0);

	/* and back: the offset's address; no segment holds the end of the
	 * file past its sections, nor the first bytes of a program whose
	 * lowest segment begins past its headers */
	CHECK_EQ_INT(elf_file__offset_to_vaddr(ef, want, &addr), 0);
	CHECK_EQ_INT(addr, sym.st_value);
	CHECK_EQ_INT(elf_file__offset_to_vaddr(ef, (uint64_t)1 << 40, &addr),
		     -ERANGE);
	CHECK_EQ_INT(elf_file__first_vaddr(ef), truth_first_load(path, false));
	CHECK_EQ_INT(elf_file__first_code_vaddr(ef),
		     truth_first_load(path, true));

	/* the pclntab starts with its magic, 0xfffffff? */
	err = elf_file__section_bytes(ef, ".gopclntab", &bytes, &size);
	if (err == -ENOENT)
		err = elf_file__section_bytes(ef, ".data.rel.ro.gopclntab",
					      &bytes, &size);
	CHECK_EQ_INT(err, 0);
	if (!err) {
		CHECK(size > 64);
		CHECK(bytes[1] == 0xff && bytes[2] == 0xff && bytes[3] == 0xff);
	}
	CHECK(elf_file__section(ef, ".text", &sym_scn) != NULL);
	CHECK(elf_file__section(ef, ".no-such-section", &sym_scn) == NULL);
	CHECK_EQ_INT(elf_file__section_bytes(ef, ".no-such", &bytes, &size),
		     -ENOENT);
	CHECK_EQ_INT(elf_file__section_bytes(ef, ".bss", &bytes, &size),
		     -EINVAL);

	/* unmapped and bss-only addresses have no file offset */
	CHECK_EQ_INT(elf_file__vaddr_to_offset(ef, 0, &off), -ERANGE);
	CHECK(elf_file__section(ef, ".bss", &sym_scn) != NULL);
	CHECK_EQ_INT(elf_file__vaddr_to_offset(ef, sym_scn.sh_addr + 8, &off),
		     -ERANGE);
	CHECK_EQ_INT(elf_file__read_vaddr(ef, UINT64_MAX - 4, 16, &bytes),
		     -ERANGE);
	elf_file__close(ef);
}

TEST(fixtures)
{
	char name[64];
	size_t i, j;

	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		for (j = 0; j < sizeof(forms) / sizeof(forms[0]); j++) {
			snprintf(name, sizeof(name), "count-go%s-%s",
				 versions[i], forms[j]);
			check_fixture(name);
		}
}

/* Open PATH expecting failure ERR with a reason containing WHY. */
static void expect_fail(const char *path, int err, const char *why)
{
	struct elf_file *ef = (void *)1;
	int got;

	gt_error_clear();
	got = elf_file__open(path, &ef);
	CHECK_EQ_INT(got, err);
	CHECK(ef == NULL);
	if (!strstr(gt_last_error(), why) || !strstr(gt_last_error(), path)) {
		fprintf(stderr, "reason \"%s\" lacks \"%s\" or the path\n",
			gt_last_error(), why);
		test_case_failed = 1;
	}
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ_INT(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* A 64-byte ELF header with the given class and machine. */
static void craft_header(const char *path, int class, uint16_t machine)
{
	Elf64_Ehdr eh = {};

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = class;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = machine;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	write_file(path, &eh, sizeof(eh));
}

/* A copy of the first LEN bytes of SRC. */
static void truncated_copy(const char *src, const char *dst, size_t len)
{
	char *buf = malloc(len);
	FILE *f = fopen(src, "r");

	CHECK(buf && f);
	if (buf && f) {
		CHECK_EQ_INT(fread(buf, 1, len, f), len);
		write_file(dst, buf, len);
	}
	if (f)
		fclose(f);
	free(buf);
}

TEST(bad_inputs)
{
	char dir[] = "/tmp/test_elf_file.XXXXXX", path[256];
	struct stat st;

	CHECK(mkdtemp(dir) != NULL);
	expect_fail("/no/such/file", -ENOENT, "no such file");
	expect_fail(dir, -ENOEXEC, "not an ELF file");

	snprintf(path, sizeof(path), "%s/empty", dir);
	write_file(path, "", 0);
	expect_fail(path, -ENOEXEC, "not an ELF file");

	snprintf(path, sizeof(path), "%s/text", dir);
	write_file(path, "hello, world\n", 13);
	expect_fail(path, -ENOEXEC, "not an ELF file");

	snprintf(path, sizeof(path), "%s/elf32", dir);
	craft_header(path, ELFCLASS32, EM_386);
	expect_fail(path, -ENOTSUP, "32-bit ELF is not supported");

	snprintf(path, sizeof(path), "%s/ppc64", dir);
	craft_header(path, ELFCLASS64, EM_PPC64);
	expect_fail(path, -ENOTSUP, "unsupported machine");

	snprintf(path, sizeof(path), "%s/short", dir);
	write_file(path, ELFMAG "\2\1\1", 7);
	expect_fail(path, -EINVAL, "truncated");

	/* Go puts its section headers at the start: cut the sections off */
	CHECK_EQ_INT(stat(test_fixture("count-go1.21-default"), &st), 0);
	snprintf(path, sizeof(path), "%s/half", dir);
	truncated_copy(test_fixture("count-go1.21-default"), path,
		       st.st_size / 2);
	expect_fail(path, -EINVAL, "truncated");
	snprintf(path, sizeof(path), "%s/headers", dir);
	truncated_copy(test_fixture("count-go1.21-default"), path, 100);
	expect_fail(path, -EINVAL, "truncated");

	/* an unreadable file, opened as nobody (root reads everything) */
	snprintf(path, sizeof(path), "%s/secret", dir);
	truncated_copy(test_fixture("count-go1.21-default"), path, 4096);
	CHECK_EQ_INT(chmod(path, 0600), 0);
	CHECK_EQ_INT(chmod(dir, 0755), 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct elf_file *ef;

		if (setgid(65534) || setuid(65534))
			_exit(2);
		_exit(elf_file__open(path, &ef) == -EACCES &&
		      strstr(gt_last_error(), "permission denied") ? 0 : 1);
	}
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_EQ_INT(system(cmd), 0);
}

/* An arm64 build of the count fixture opens, and is refused for tracing
 * by an x86-64 build: one line naming both machines. */
TEST(other_machine)
{
	struct elf_file *ef = NULL;

	CHECK_EQ_INT(elf_file__open(test_fixture("count-go1.27-arm64"), &ef),
		     0);
	if (!ef)
		return;
	CHECK_EQ_INT(ef->machine, EM_AARCH64);
	CHECK_EQ_INT(elf_file__check_machine(ef), -ENOEXEC);
	CHECK(strstr(gt_last_error(), "arm64 code") != NULL);
	CHECK(strstr(gt_last_error(), "x86-64 code only") != NULL);
	elf_file__close(ef);
	CHECK_EQ_INT(elf_file__open(test_fixture("count-go1.27-default"), &ef),
		     0);
	if (ef)
		CHECK_EQ_INT(elf_file__check_machine(ef), 0);
	elf_file__close(ef);
}

int main(void)
{
	RUN(fixtures);
	RUN(bad_inputs);
	RUN(other_machine);
	return TEST_SUMMARY();
}
