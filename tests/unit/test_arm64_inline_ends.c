// SPDX-License-Identifier: MIT
/*
 * site/inline_ends over arm64 code (arm64/inline_ends.c's decoder): where
 * the inlined copies of the arm64 fixtures end, checked on this machine
 * whatever it is.
 *
 * Ground truth is `go tool objdump` of the same binary by the toolchain
 * that built it (tests/unit/go_objdump.h: Go's own disassembler, not
 * capstone nor lib/arm64's reading of words), and the switches' jump
 * tables it shows (`ADRP N(PC), Rt; ADD $lo, Rt, Rt; MOVD (Rt)(Ri<<3),
 * Rn; JMP (Rn)`, the table at ADRP's page plus N, plus lo) read through
 * libelf. The ends found are right: every end is an instruction of the
 * caller; a RET or JMP end is in the copy and is a RET or a JMP; a
 * landing is outside the copy's code, and every instruction that leads to
 * it (the one before it, when that one falls through; every branch to it,
 * "N(PC)" or the caller's own "name(SB)"; every table's jump) is in the
 * copy, or is one that goes one way (a plain instruction, a direct JMP)
 * and that only the copy leads to; with ends shared with code that skips
 * a copy (gofunclatency's and gofuncgraph's), some way to it is from the
 * copy. And they are all there: from the copy's code that its first
 * instruction reaches, every RET and jump out of the caller is an end,
 * and every way to outside that code comes to an end (or back into the
 * copy) through at most 16 instructions that go one way.
 *
 * Over every copy of every function of the arm64 count, latency and graph
 * fixtures (Go 1.19 to 1.27), nothing fails to decode, and the share of
 * copies whose ends are found is printed: 88.8-91.5% of them on
 * 2026-11-28 (76865 of 85523; register moves not taken for a copy's
 * entry), 98.4-98.7% with shared ends (the others are
 * entered past their first instruction, end where code that skips them
 * joins, jump back to their first instruction, or end at an instruction
 * the kernel refuses to probe: the runtime's LDAR and STLR, its atomic
 * loads and stores); at least 85% and 95% must be, and copies in callers
 * that jump through a table must be among those found (their tables read:
 * 123-256 a fixture).
 * Against the fixtures' source: the graph fixture's main.inl in main.root
 * and main.join in main.joiner, and the latency fixture's main.latInline,
 * main.latMaybe and main.latJoin, get ends; main.join's and main.latJoin's
 * only shared, as on x86-64 (tests/unit/test_inline_ends.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/code_span.h"
#include "core/error.h"
#include "gobin/go_binary.h"
#include "goabi/go_noreturn.h"
#include "probe/func_probes.h"
#include "probe/machine_code.h"
#include "site/inline_ends.h"
#include "go_fixture.h"
#include "inline_copies.h"
#include "go_objdump.h"
#include "test.h"

static const int versions[] = { 19, 21, 23, 25, 27 };
static const char *const programs[] = { "count", "latency", "graph" };
#define NVERSIONS	(sizeof(versions) / sizeof(versions[0]))
#define NPROGRAMS	(sizeof(programs) / sizeof(programs[0]))

static bool is_cond(const char *mn)
{
	return is_bcond(mn) || !strncmp(mn, "CBZ", 3) ||
	       !strncmp(mn, "CBNZ", 4) || !strncmp(mn, "TBZ", 3) ||
	       !strncmp(mn, "TBNZ", 4);
}

/* The name of "name(SB)" in OPS, into NAME (of SIZE bytes). */
static bool sb_name(const char *ops, char *name, size_t size)
{
	size_t n = strlen(ops);

	if (n < 5 || strcmp(ops + n - 4, "(SB)") || n - 4 >= size)
		return false;
	memcpy(name, ops, n - 4);
	name[n - 4] = '\0';
	return true;
}

/* The target of branch IN of F, "N(PC)" or F's own "name(SB)" (the
 * morestack tail's jump back), into *T. */
static bool branch_target(const struct listing *l, const struct func *f,
			  const struct line *in, uint64_t *t)
{
	char name[4096];

	if (pc_target(in, t))
		return true;
	if (!sb_name(in->ops, name, sizeof(name)) || strcmp(name, f->name))
		return false;
	*t = l->lines[f->first].addr;
	return true;
}

/* Does control fall through from IN to the next instruction? Not after
 * JMP, RET, a trap, a word of padding, or a call to a function that never
 * returns. */
static bool falls_through(const struct line *in)
{
	char name[4096];

	if (!strcmp(in->mn, "JMP") || !strcmp(in->mn, "RET") ||
	    !strcmp(in->mn, "BRK") || !strcmp(in->mn, "UNDEF") ||
	    (!strcmp(in->mn, "?") && !in->word))
		return false;
	if (!strcmp(in->mn, "CALL") && sb_name(in->ops, name, sizeof(name)))
		return !go_func__never_returns(name);
	return true;
}

/* Does control go from IN to one place: a plain instruction, or a JMP to
 * an address? */
static bool one_way(const struct listing *l, const struct func *f,
		    const struct line *in)
{
	uint64_t t;

	if (!strcmp(in->mn, "JMP"))
		return branch_target(l, f, in, &t);
	return !is_cond(in->mn) && falls_through(in) &&
	       strcmp(in->mn, "CALL");
}

/* A fixture's listing, its switches' jumps by target, and what was
 * checked. */
struct checked {
	const char *name;
	struct listing l;
	struct table_edge *t;
	size_t nt;
	bool *has_table;	/* by function of the listing */
	bool shared;
	size_t copies, found, in_table_callers;
};

/*
 * Every `ADRP N(PC), Rt; ADD $lo, Rt, Rt; MOVD (Rt)(Ri<<3), Rn; JMP (Rn)`
 * of C's listing, and the entries of the table at the page of ADRP's
 * address plus N, plus lo, read up to the first that is not in the
 * function of the JMP, as edges.
 */
static bool load_tables(struct checked *c, const char *path)
{
	const struct listing *l = &c->l;
	char rt[8], rt2[8], rt3[8], rt4[8], ri[8], rn[8], jn[8];
	uint64_t table, target, lo, hi;
	long long n, off;
	size_t fi, k, i;
	bool ok = true;
	Elf *elf;
	int fd;

	c->has_table = calloc(l->nfuncs + 1, sizeof(*c->has_table));
	fd = open(path, O_RDONLY);
	if (fd < 0 || !c->has_table)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (fi = 0; elf && ok && fi < l->nfuncs; fi++) {
		const struct func *f = &l->funcs[fi];

		if (!f->n)
			continue;
		lo = l->lines[f->first].addr;
		hi = l->lines[f->first + f->n - 1].addr + 4;
		for (k = f->first + 3; k < f->first + f->n; k++) {
			const struct line *v = &l->lines[k - 3];

			if (strcmp(v[3].mn, "JMP") ||
			    sscanf(v[3].ops, "(%7[^)])", jn) != 1 ||
			    strcmp(v[0].mn, "ADRP") ||
			    sscanf(v[0].ops, "%lld(PC), %7s", &n, rt) != 2 ||
			    strcmp(v[1].mn, "ADD") ||
			    sscanf(v[1].ops, "$%lld, %7[^,], %7s", &off, rt2,
				   rt3) != 3 ||
			    strcmp(v[2].mn, "MOVD") ||
			    sscanf(v[2].ops, "(%7[^)])(%7[^<]<<3), %7s", rt4, ri,
				   rn) != 3 ||
			    strcmp(rt, rt2) || strcmp(rt, rt3) ||
			    strcmp(rt, rt4) || strcmp(rn, jn))
				continue;
			c->has_table[fi] = true;
			table = ((v[0].addr & ~0xfffULL) + (uint64_t)n) +
				(uint64_t)off;
			for (i = 0; read_word(elf, fd, table + 8 * i, &target) &&
				    target >= lo && target < hi; i++) {
				struct table_edge *t = realloc(c->t,
					(c->nt + 1) * sizeof(*t));

				if (!t) {
					ok = false;
					break;
				}
				c->t = t;
				c->t[c->nt++] = (struct table_edge){ target, k };
			}
			ok &= i > 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (c->nt)
		qsort(c->t, c->nt, sizeof(*c->t), cmp_table_edges);
	return ok && elf;
}

/* The line of F at ADDR, or -1. */
static long line_at(const struct listing *l, const struct func *f,
		    uint64_t addr)
{
	uint64_t first = l->lines[f->first].addr;

	if (addr < first || (addr - first) % 4 || (addr - first) / 4 >= f->n ||
	    l->lines[f->first + (addr - first) / 4].addr != addr)
		return -1;
	return (long)(f->first + (addr - first) / 4);
}

/* The lines of F that lead to line K: into PREDS, at most MAX; how many. */
static size_t preds_of(const struct checked *c, const struct func *f,
		       size_t k, size_t *preds, size_t max)
{
	const struct listing *l = &c->l;
	size_t i, n = 0, a = 0, b = c->nt;
	uint64_t addr = l->lines[k].addr, t;

	if (k > f->first && falls_through(&l->lines[k - 1]) && n < max)
		preds[n++] = k - 1;
	for (i = f->first; i < f->first + f->n && n < max; i++)
		if ((is_cond(l->lines[i].mn) || !strcmp(l->lines[i].mn, "JMP")) &&
		    branch_target(l, f, &l->lines[i], &t) && t == addr)
			preds[n++] = i;
	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (c->t[mid].to < addr)
			a = mid + 1;
		else
			b = mid;
	}
	for (; a < c->nt && c->t[a].to == addr && n < max; a++)
		if (c->t[a].from >= f->first && c->t[a].from < f->first + f->n)
			preds[n++] = c->t[a].from;
	return n;
}

/* Is every way to line K (with EVERY, else some way) from the copy P, or
 * from lines that go one way and that only the copy leads to, DEPTH or
 * fewer back? */
static bool reached_from_copy(const struct checked *c, const struct func *f,
			      size_t k, const struct func_probe *p, int depth,
			      bool every)
{
	size_t preds[64], n, i;
	bool from;

	n = preds_of(c, f, k, preds, 64);
	for (i = 0; i < n; i++) {
		from = code_spans__contain(p->code, p->ncode,
					   c->l.lines[preds[i]].addr) ||
		       (depth && one_way(&c->l, f, &c->l.lines[preds[i]]) &&
			reached_from_copy(c, f, preds[i], p, depth - 1,
					  every));
		if (from != every)
			return from;
	}
	return n > 0 && every;
}

/* Is an end of ENDS[N] at ADDR, of KIND? */
static bool is_end(const struct exit_site *ends, size_t n, uint64_t addr,
		   enum exit_kind kind)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ends[i].addr == addr && ends[i].kind == kind)
			return true;
	return false;
}

/* Does the way out of P to line K come to an end of ENDS[N], or back into
 * the copy (a run of the caller's that gc put amid the copy's), through
 * at most DEPTH lines that go one way? */
static bool way_ends(const struct checked *c, const struct func *f, size_t k,
		     const struct func_probe *p, const struct exit_site *ends,
		     size_t n, int depth)
{
	const struct line *in = &c->l.lines[k];
	uint64_t t;
	long next;

	if (is_end(ends, n, in->addr, EXIT_INLINE_END) ||
	    code_spans__contain(p->code, p->ncode, in->addr))
		return true;
	if (!depth || !one_way(&c->l, f, in))
		return false;
	if (!strcmp(in->mn, "JMP")) {
		if (!branch_target(&c->l, f, in, &t))
			return false;
		next = line_at(&c->l, f, t);
	} else {
		next = k + 1 < f->first + f->n ? (long)k + 1 : -1;
	}
	return next >= 0 && way_ends(c, f, (size_t)next, p, ends, n, depth - 1);
}

/* The lines of F that control goes to from line K: into SUCCS, at most
 * MAX; how many. *LEAVES: K leaves F (RET, or a jump out of it). */
static size_t succs_of(const struct checked *c, const struct func *f,
		       size_t k, size_t *succs, size_t max, bool *leaves)
{
	const struct line *in = &c->l.lines[k];
	size_t n = 0, i;
	uint64_t t;
	long at;
	bool table = false;

	*leaves = !strcmp(in->mn, "RET");
	if (falls_through(in) && k + 1 < f->first + f->n)
		succs[n++] = k + 1;
	if (is_cond(in->mn) || !strcmp(in->mn, "JMP")) {
		if (branch_target(&c->l, f, in, &t)) {
			at = line_at(&c->l, f, t);
			if (at >= 0)
				succs[n++] = (size_t)at;
			else
				*leaves = true;
		} else if (!strcmp(in->mn, "JMP")) {
			for (i = 0; i < c->nt; i++) {
				if (c->t[i].from != k)
					continue;
				table = true;
				at = line_at(&c->l, f, c->t[i].to);
				if (at >= 0 && n < max)
					succs[n++] = (size_t)at;
			}
			*leaves = !table;
		}
	}
	return n;
}

/*
 * Does every way out of P come to one of its ENDS[N]: each RET and jump
 * out of the caller in the copy's code reached from its first instruction
 * an end there, each way from that code to outside it one that comes to
 * an end (or back)?
 */
static bool ends_complete(const struct checked *c, const struct func *f,
			  const struct func_probe *p,
			  const struct exit_site *ends, size_t n)
{
	size_t *todo, ntodo = 0, k, j, m, succs[64];
	bool *seen, leaves, ok = true;
	long first = line_at(&c->l, f, p->site.addr);

	if (first < 0)
		return false;
	todo = calloc(f->n, sizeof(*todo));
	seen = calloc(f->n, sizeof(*seen));
	if (!todo || !seen) {
		free(todo);
		free(seen);
		return false;
	}
	todo[ntodo++] = (size_t)first;
	seen[first - f->first] = true;
	while (ok && ntodo) {
		k = todo[--ntodo];
		m = succs_of(c, f, k, succs, 64, &leaves);
		if (leaves && !is_end(ends, n, c->l.lines[k].addr,
				      !strcmp(c->l.lines[k].mn, "RET") ?
				      EXIT_RET : EXIT_TAIL_JMP)) {
			fprintf(stderr, "  %s: %s [inlined] at 0x%" PRIx64 " in %s: 0x%" PRIx64 " leaves the caller, no end\n",
				c->name, p->name, p->site.addr, f->name,
				c->l.lines[k].addr);
			ok = false;
		}
		for (j = 0; j < m && ok; j++) {
			const struct line *to = &c->l.lines[succs[j]];

			if (!code_spans__contain(p->code, p->ncode, to->addr)) {
				if (way_ends(c, f, succs[j], p, ends, n, 16))
					continue;
				fprintf(stderr, "  %s: %s [inlined] at 0x%" PRIx64 " in %s: its way out from 0x%" PRIx64 " to 0x%" PRIx64 " comes to no end\n",
					c->name, p->name, p->site.addr,
					f->name, c->l.lines[k].addr, to->addr);
				ok = false;
			} else if (!seen[succs[j] - f->first]) {
				seen[succs[j] - f->first] = true;
				todo[ntodo++] = succs[j];
			}
		}
	}
	free(todo);
	free(seen);
	return ok;
}

/* Check the ENDS[N] of P against the listing. */
static bool ends_agree(const struct checked *c, const struct func_probe *p,
		       const struct exit_site *ends, size_t n)
{
	const struct func *f = listing__func_at(&c->l, p->func_addr);
	const char *why = NULL;
	const struct line *in;
	size_t i;
	long k;

	if (!f) {
		fprintf(stderr, "  %s: %s: no caller at 0x%" PRIx64 " in objdump\n",
			c->name, p->name, p->func_addr);
		return false;
	}
	for (i = 0; i < n && !why; i++) {
		k = line_at(&c->l, f, ends[i].addr);
		if (k < 0) {
			why = "no instruction of the caller";
			break;
		}
		in = &c->l.lines[k];
		if (ends[i].kind != EXIT_INLINE_END) {
			if (!code_spans__contain(p->code, p->ncode, ends[i].addr))
				why = "a ret or jmp outside the copy";
			else if (strcmp(in->mn, ends[i].kind == EXIT_RET ?
						"RET" : "JMP"))
				why = "no RET or JMP";
			if (why)
				break;
			continue;
		}
		if (code_spans__contain(p->code, p->ncode, ends[i].addr))
			why = "in the copy";
		else if (!reached_from_copy(c, f, (size_t)k, p, 40, !c->shared))
			why = c->shared ? "not reached from the copy" :
					  "reached from elsewhere";
		if (why)
			break;
	}
	if (why)
		fprintf(stderr, "  %s: %s [inlined] at 0x%" PRIx64 " in %s: end 0x%" PRIx64 " is %s\n",
			c->name, p->name, p->site.addr, f->name, ends[i].addr,
			why);
	return !why && ends_complete(c, f, p, ends, n);
}

static bool check_copy(void *ctx, const struct go_binary *bin,
		       const struct func_probe *p, int err,
		       const struct exit_site *ends, size_t n)
{
	struct checked *c = ctx;
	const struct func *f = listing__func_at(&c->l, p->func_addr);

	c->copies++;
	if (err == -ENOENT)
		return true;
	if (err)
		return false;
	c->found++;
	c->in_table_callers += f && c->has_table[f - c->l.funcs];
	return ends_agree(c, p, ends, n);
}

/* C for FIXTURE, built by Go 1.V: its listing and tables. */
static bool checked__load(struct checked *c, const char *fixture, int v)
{
	memset(c, 0, sizeof(*c));
	c->name = fixture;
	if (!listing__load(&c->l, v, test_fixture(fixture)) ||
	    !load_tables(c, test_fixture(fixture))) {
		fprintf(stderr, "  %s: no listing or tables\n", fixture);
		return false;
	}
	return true;
}

static void checked__free(struct checked *c)
{
	listing__free(&c->l);
	free(c->t);
	free(c->has_table);
}

/* The copies of PATTERN in C's fixture, each checked against go tool
 * objdump, with ends SHARED or not: C's counts. */
static bool check_copies(struct checked *c, const char *pattern, bool shared)
{
	c->shared = shared;
	c->copies = c->found = c->in_table_callers = 0;
	return each_copy(c->name, pattern, shared, check_copy, c);
}

/* Every copy of every function: none fails to decode, every end found
 * agrees with objdump, most copies' ends are found, more with ends
 * shared. */
TEST(every_copy_matches_go_objdump)
{
	size_t v, m, copies = 0, found = 0, shared_found = 0, n, in_tables;
	struct checked c;
	char name[64];

	for (v = 0; v < NVERSIONS; v++) {
		for (m = 0; m < NPROGRAMS; m++) {
			snprintf(name, sizeof(name), "%s-go1.%d-arm64",
				 programs[m], versions[v]);
			if (!checked__load(&c, name, versions[v])) {
				CHECK(!"listing loaded");
				continue;
			}
			CHECK(check_copies(&c, "*", false));
			n = c.found;
			in_tables = c.in_table_callers;
			CHECK(c.copies > 1000);
			CHECK(n * 20 >= c.copies * 17);
			CHECK(in_tables > 0);
			CHECK(check_copies(&c, "*", true));
			printf("  %s: the ends of %zu of %zu inlined copies (%zu in callers with jump tables), %zu with shared ends\n",
			       name, n, c.copies, in_tables, c.found);
			CHECK(c.found * 20 >= c.copies * 19);
			copies += c.copies;
			found += n;
			shared_found += c.found;
			checked__free(&c);
		}
	}
	printf("  all: the ends of %zu of %zu inlined copies, %zu with shared ends\n",
	       found, copies, shared_found);
}

/*
 * The fixtures' own copies: the graph fixture's main.inl (in main.root)
 * ends, and main.join (in main.joiner, whose code after it runs whether
 * it was called or not) ends only with shared ends; the latency
 * fixture's main.latInline and main.latMaybe end, main.latJoin (in
 * joinPass, the same shape as main.join) only with shared ends.
 */
TEST(fixture_copies_end)
{
	static const struct {
		const char *program, *name;
		bool shared_only;
	} want[] = {
		{ "graph", "main.inl", false },
		{ "graph", "main.join", true },
		{ "latency", "main.latInline", false },
		{ "latency", "main.latMaybe", false },
		{ "latency", "main.latJoin", true },
	};
	struct checked c;
	char fixture[64];
	size_t v, m, i;

	for (v = 0; v < NVERSIONS; v++) {
		for (m = 1; m < NPROGRAMS; m++) {
			snprintf(fixture, sizeof(fixture), "%s-go1.%d-arm64",
				 programs[m], versions[v]);
			if (!checked__load(&c, fixture, versions[v])) {
				CHECK(!"listing loaded");
				continue;
			}
			for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
				if (strcmp(want[i].program, programs[m]))
					continue;
				CHECK(check_copies(&c, want[i].name, false));
				if (!c.copies || c.found != (want[i].shared_only ?
							     0 : c.copies))
					fprintf(stderr, "  %s: %s: %zu of %zu copies found\n",
						fixture, want[i].name, c.found,
						c.copies);
				CHECK(c.copies >= 1);
				CHECK_EQ_INT(c.found, want[i].shared_only ?
						      0 : c.copies);
				CHECK(check_copies(&c, want[i].name, true));
				CHECK(c.copies >= 1);
				CHECK_EQ_INT(c.found, c.copies);
			}
			checked__free(&c);
		}
	}
}

int main(void)
{
	elf_version(EV_CURRENT);
	RUN(fixture_copies_end);
	RUN(every_copy_matches_go_objdump);
	return TEST_SUMMARY();
}
