// SPDX-License-Identifier: MIT
/*
 * arm64/indexed_table: the wait reasons' table runtime.waitReason.String
 * indexes, read off its code, in every arm64 count fixture, against the
 * table's own symbol (runtime.waitReasonStrings: its address, and its
 * size over a string's 16 bytes) in the default build's .symtab; in the
 * stripped build, which has no symbol (and its data elsewhere), a table
 * of the same strings.
 */
#include <errno.h>
#include <gelf.h>
#include "arm64/indexed_table.h"
#include "elf/elf_file.h"
#include "gobin/go_binary.h"
#include "go_fixture.h"
#include "test.h"

/* runtime.waitReasonStrings' address and size from BIN's .symtab. */
static bool table_symbol(const struct go_binary *bin, uint64_t *addr,
			 uint64_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file__section(bin->elf, ".symtab", &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Sym sym;
	size_t i;

	for (i = 0; data && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize;
	     i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(bin->elf->elf, sh.sh_link, sym.st_name);
		if (name && !strcmp(name, "runtime.waitReasonStrings")) {
			*addr = sym.st_value;
			*size = sym.st_size;
			return true;
		}
	}
	return false;
}

/* The LEN strings of the table at TABLE of BIN, joined by '|' into OUT. */
static void table_strings(const struct go_binary *bin, uint64_t table,
			  uint64_t len, char *out, size_t size)
{
	size_t i, at = 0;

	out[0] = '\0';
	for (i = 0; i < len; i++) {
		const uint8_t *p, *str;
		uint64_t ptr, n;

		if (elf_file__read_pointers(bin->elf, table + 16 * i, 1, 16,
					    &ptr) ||
		    elf_file__read_vaddr(bin->elf, table + 16 * i + 8, 8, &p)) {
			CHECK(0);
			return;
		}
		memcpy(&n, p, 8);
		if (n && elf_file__read_vaddr(bin->elf, ptr, n, &str)) {
			CHECK(0);
			return;
		}
		if (at + n + 2 > size) {
			CHECK(0);
			return;
		}
		memcpy(out + at, n ? (const char *)str : "", n);
		at += n;
		out[at++] = '|';
		out[at] = '\0';
	}
}

/* Find the table of the fixture NAME, and its strings into STRINGS. */
static bool find(const char *name, uint64_t *table, uint64_t *len,
		 char *strings, size_t size)
{
	struct go_binary *bin = go_fixture__open(name, true);
	const struct go_func *fn;
	int err = -ENOENT;

	CHECK(bin != NULL);
	if (!bin)
		return false;
	fn = go_binary__func_by_name(bin, "runtime.waitReason.String");
	CHECK(fn != NULL);
	if (fn)
		err = arm64_indexed_table__find(bin, fn, table, len);
	CHECK_EQ_INT(err, 0);
	if (!err)
		table_strings(bin, *table, *len, strings, size);
	go_binary__close(bin);
	return !err;
}

TEST(wait_reasons_of_every_version)
{
	static const int versions[] = { 19, 21, 23, 25, 27 };
	static char strings[4096], stripped[4096];
	char name[64];
	size_t v;

	for (v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		uint64_t table, len, addr = 0, size = 0, st, sl;
		struct go_binary *bin;

		snprintf(name, sizeof(name), "count-go1.%d-arm64", versions[v]);
		if (!find(name, &table, &len, strings, sizeof(strings)))
			continue;
		bin = go_fixture__open(name, true);
		CHECK(bin && table_symbol(bin, &addr, &size));
		go_binary__close(bin);
		printf("%s: table 0x%llx, %llu reasons; symbol 0x%llx, %llu bytes\n",
		       name, (unsigned long long)table,
		       (unsigned long long)len, (unsigned long long)addr,
		       (unsigned long long)size);
		CHECK_EQ_INT(table, addr);
		CHECK_EQ_INT(len, size / 16);
		CHECK(len > 20);
		CHECK(strstr(strings, "|chan receive|") != NULL);
		snprintf(name, sizeof(name), "count-go1.%d-arm64-stripped",
			 versions[v]);
		if (!find(name, &st, &sl, stripped, sizeof(stripped)))
			continue;
		CHECK_EQ_INT(sl, len);
		CHECK_EQ_STR(stripped, strings);
	}
}

int main(void)
{
	RUN(wait_reasons_of_every_version);
	return TEST_SUMMARY();
}
