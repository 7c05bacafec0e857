/* SPDX-License-Identifier: MIT */
/*
 * `go tool objdump` of a fixture, by the Go release that built it, as a
 * listing of functions and instructions: the ground truth of the arm64
 * unit tests (Go's own disassembler, not capstone, which lib/arm64 uses).
 */
#ifndef GOTOOLS_TEST_GO_OBJDUMP_H
#define GOTOOLS_TEST_GO_OBJDUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cached_output.h"
#include "test.h"

struct line {
	uint64_t addr;
	uint32_t word;		/* the instruction, as objdump read it */
	char mn[16];
	char ops[112];
};

struct func {
	char *name;
	size_t first, n;	/* its lines */
};

struct listing {
	struct line *lines;
	size_t nlines, cap;
	struct func *funcs;
	size_t nfuncs, fcap;
};

static inline bool grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n < *cap)
		return true;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(*v, *cap * size);
	if (!p)
		return false;
	*v = p;
	return true;
}

/* "  main.go:79\t\t0xa6d60\t\t\tf9400b90\t\tMOVD 16(R28), R16\t\t\t" */
static inline bool parse_line(char *s, struct line *l)
{
	char *f[4], *tok, *save = NULL;
	size_t n = 0, w;

	for (tok = strtok_r(s, "\t\n", &save); tok && n < 4;
	     tok = strtok_r(NULL, "\t\n", &save))
		if (strspn(tok, " ") != strlen(tok))
			f[n++] = tok;
	if (n < 4 || strncmp(f[1], "0x", 2))
		return false;
	l->addr = strtoull(f[1], NULL, 16);
	l->word = (uint32_t)strtoul(f[2], NULL, 16);
	w = strcspn(f[3], " ");
	snprintf(l->mn, sizeof(l->mn), "%.*s", (int)w, f[3]);
	snprintf(l->ops, sizeof(l->ops), "%s", f[3] + w + strspn(f[3] + w, " "));
	w = strlen(l->ops);
	while (w && l->ops[w - 1] == ' ')
		l->ops[--w] = '\0';
	return true;
}

/* `go tool objdump PATH` by Go 1.V, into L. */
static inline bool listing__load(struct listing *l, int v, const char *path)
{
	char cmd[8192], go[4200], *buf = NULL, *end;
	size_t cap = 0;
	FILE *f;

	memset(l, 0, sizeof(*l));
	snprintf(cmd, sizeof(cmd),
		 "GOROOT='%s/go/1.%d' GOTOOLCHAIN=local '%s/go/1.%d/bin/go' "
		 "tool objdump '%s'", test_cache(), v, test_cache(), v, path);
	snprintf(go, sizeof(go), "%s/go/1.%d/bin/go", test_cache(), v);
	f = cached_output__open(cmd, path, go);
	if (!f)
		return false;
	while (getline(&buf, &cap, f) > 0) {
		if (!strncmp(buf, "TEXT ", 5)) {
			/* "TEXT name(SB) file": the name may hold spaces */
			end = strstr(buf, "(SB) ");
			if (!end || !grow((void **)&l->funcs, &l->fcap,
					  l->nfuncs, sizeof(*l->funcs)))
				break;
			l->funcs[l->nfuncs++] = (struct func){
				.name = strndup(buf + 5, end - buf - 5),
				.first = l->nlines,
			};
			continue;
		}
		if (!l->nfuncs || !grow((void **)&l->lines, &l->cap,
					l->nlines, sizeof(*l->lines)))
			continue;
		if (parse_line(buf, &l->lines[l->nlines])) {
			l->nlines++;
			l->funcs[l->nfuncs - 1].n++;
		}
	}
	free(buf);
	fclose(f);
	return l->nfuncs > 0;
}

static inline void listing__free(struct listing *l)
{
	size_t i;

	for (i = 0; i < l->nfuncs; i++)
		free(l->funcs[i].name);
	free(l->funcs);
	free(l->lines);
}

/*
 * The address the function at I of L is found by: its first line's. A
 * symbol of no size has a TEXT line and no instruction (the mapping
 * symbols $x and $d of the C objects in a cgo binary's text): the address
 * of the next line listed, which is no lower than its own, so that the
 * functions stay sorted by it.
 */
static inline uint64_t listing__key(const struct listing *l, size_t i)
{
	return l->funcs[i].first < l->nlines ?
	       l->lines[l->funcs[i].first].addr : UINT64_MAX;
}

/* The function whose first instruction is at ADDR, or NULL. */
static inline const struct func *listing__func_at(const struct listing *l,
					   uint64_t addr)
{
	size_t lo = 0, hi = l->nfuncs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (listing__key(l, mid) < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* past the symbols of no size listed just before it */
	while (lo < l->nfuncs && !l->funcs[lo].n)
		lo++;
	if (lo < l->nfuncs && listing__key(l, lo) == addr)
		return &l->funcs[lo];
	return NULL;
}

/* The target of IN, a branch to "N(PC)" (N instructions away), into *T:
 * its last operand (CBZ R3, N(PC); TBZ $0, R3, N(PC)). */
static inline bool pc_target(const struct line *in, uint64_t *t)
{
	const char *last = strrchr(in->ops, ' ');
	char *end;
	long n;

	last = last ? last + 1 : in->ops;
	n = strtol(last, &end, 10);
	if (end == last || strcmp(end, "(PC)"))
		return false;
	*t = in->addr + (uint64_t)(n * 4);
	return true;
}

/* Is MN, as go tool objdump spells it, a b.cond? */
static inline bool is_bcond(const char *mn)
{
	static const char *const conds[] = {
		"BEQ", "BNE", "BCS", "BCC", "BMI", "BPL", "BVS", "BVC",
		"BHI", "BLS", "BGE", "BLT", "BGT", "BLE",
	};
	size_t i;

	for (i = 0; i < sizeof(conds) / sizeof(conds[0]); i++)
		if (!strcmp(mn, conds[i]))
			return true;
	return false;
}

#endif
