/* SPDX-License-Identifier: MIT */
/*
 * Ground truth for the tests of machine-code rules: the listing of
 * `objdump -d --no-show-raw-insn` (binutils, independent of capstone),
 * one line per instruction, sorted by address; of arm64 code, binutils'
 * aarch64-linux-gnu-objdump's.
 */
#ifndef GOTOOLS_TEST_OBJDUMP_H
#define GOTOOLS_TEST_OBJDUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cached_output.h"

struct objdump_line {
	uint64_t addr;
	uint64_t target;	/* of a direct jump or call */
	bool has_target;
	char mn[16];		/* the mnemonic, prefixes dropped */
	char ops[80];		/* the operands (x86-64: AT&T), no comment */
};

struct objdump_listing {
	struct objdump_line *v;
	size_t n, cap;
};

/* Where objdump's comment or symbol begins in operands S: "# 4a0b10"
 * (x86-64), "// #2" (arm64, whose immediates are "#8"), "<sym>". */
static inline size_t objdump_ops__len(const char *s)
{
	size_t n = 0;

	for (; s[n] && s[n] != '\n' && s[n] != '<'; n++)
		if ((s[n] == '#' && s[n + 1] == ' ') ||
		    (s[n] == '/' && s[n + 1] == '/'))
			break;
	return n;
}

/* Parse "  49dda0:\tmov    %fs:0xfffffffffffffff8,%rcx", or
 * "    2d14:\tsub\tsp, sp, #0x20". */
static inline bool objdump_line__parse(const char *s, struct objdump_line *l)
{
	static const char *const prefixes[] = { "lock", "rep", "repz", "repnz",
						"repe", "repne", "bnd",
						"notrack" };
	const size_t nprefixes = sizeof(prefixes) / sizeof(*prefixes);
	char *end;
	size_t i, w;

	while (*s == ' ')
		s++;
	l->addr = strtoull(s, &end, 16);
	if (end == s || end[0] != ':' || end[1] != '\t')
		return false;
	s = end + 2;
	for (;;) {
		w = strcspn(s, " \t\n");
		for (i = 0; i < nprefixes; i++)
			if (strlen(prefixes[i]) == w && !strncmp(s, prefixes[i], w))
				break;
		if (i == nprefixes)
			break;
		s += w + strspn(s + w, " \t");
	}
	snprintf(l->mn, sizeof(l->mn), "%.*s", (int)w, s);
	s += w + strspn(s + w, " \t");
	/* operands up to objdump's comment or symbol */
	snprintf(l->ops, sizeof(l->ops), "%.*s", (int)objdump_ops__len(s), s);
	w = strlen(l->ops);
	while (w && l->ops[w - 1] == ' ')
		l->ops[--w] = '\0';
	l->target = strtoull(l->ops, &end, 16);
	l->has_target = end != l->ops && *end == '\0';
	return true;
}

/* The listing by OBJDUMP ("objdump", "aarch64-linux-gnu-objdump") of
 * SECTION (NULL: every executable section) of PATH. */
static inline bool objdump_listing__load_by(struct objdump_listing *l,
					    const char *objdump,
					    const char *path,
					    const char *section)
{
	char cmd[4200], buf[1024];
	struct objdump_line line;
	FILE *f;

	memset(l, 0, sizeof(*l));
	snprintf(cmd, sizeof(cmd), "%s -d --no-show-raw-insn %s%s '%s'",
		 objdump, section ? "-j " : "", section ? section : "", path);
	f = cached_output__open(cmd, path, objdump);
	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f)) {
		if (!objdump_line__parse(buf, &line))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 4096;
			struct objdump_line *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				break;
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = line;
	}
	fclose(f);
	return l->n > 0;
}

static inline bool objdump_listing__load(struct objdump_listing *l,
					 const char *path, const char *section)
{
	return objdump_listing__load_by(l, "objdump", path, section);
}

/* Index of the instruction at ADDR, or -1. */
static inline long objdump_listing__find(const struct objdump_listing *l,
					 uint64_t addr)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->n && l->v[lo].addr == addr ? (long)lo : -1;
}

static inline void objdump_listing__free(struct objdump_listing *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

#endif
