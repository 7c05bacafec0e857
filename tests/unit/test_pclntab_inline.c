// SPDX-License-Identifier: MIT
/*
 * Inlined calls from the pclntab inline tree, checked against DWARF's
 * DW_TAG_inlined_subroutine sites of the same binary (inline_sites__find on
 * an unstripped fixture), against the unstripped build from the stripped
 * one, and on a hand-built Go 1.20+ table, whole and corrupted.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "probe/inline_sites.h"
#include "gobin/pclntab_inline.h"
#include "probe/probe_spec.h"
#include "fake_pclntab.h"
#include "go_fixture.h"
#include "test.h"

struct site {
	char *name;
	uint64_t addr, caller;
};

struct site_list {
	struct site *v;
	size_t n, cap;
};

static void list_add(struct site_list *l, const char *name, uint64_t addr,
		     uint64_t caller)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	l->v[l->n].name = strdup(name);
	if (!l->v[l->n].name)
		abort();
	l->v[l->n].addr = addr;
	l->v[l->n].caller = caller;
	l->n++;
}

static void list_free(struct site_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int site_cmp(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sort by (name, addr) and keep one site per pair, as inline_sites does. */
static void list_sort_unique(struct site_list *l)
{
	size_t i, n = 0;

	if (!l->n)
		return;
	qsort(l->v, l->n, sizeof(*l->v), site_cmp);
	for (i = 1; i < l->n; i++) {
		if (site_cmp(&l->v[n], &l->v[i]) == 0)
			free(l->v[i].name);
		else
			l->v[++n] = l->v[i];
	}
	l->n = n + 1;
}

static bool list_has(const struct site_list *l, const struct site *s)
{
	return bsearch(s, l->v, l->n, sizeof(*l->v), site_cmp) != NULL;
}

static int collect_cb(void *ctx, const struct pclntab_inline_call *c)
{
	list_add(ctx, c->name, c->pc, c->caller_entry);
	return 0;
}

/* Every inlined call of every function in BIN's pclntab. */
static bool pclntab_sites(const struct go_binary *bin, struct site_list *out)
{
	struct pclntab_funcdata fd;
	size_t i;
	int err;

	err = pclntab_funcdata__init(&fd, bin);
	if (err) {
		fprintf(stderr, "funcdata: %s\n", gt_last_error());
		return false;
	}
	for (i = 0; i < bin->pclntab->nfuncs; i++) {
		err = pclntab__inline_calls(bin->pclntab, i, &fd, collect_cb,
					    out);
		if (err) {
			fprintf(stderr, "inline calls: %s\n", gt_last_error());
			return false;
		}
	}
	list_sort_unique(out);
	return true;
}

/* The sites inline_sites__find gives for PATTERN (DWARF when present). */
static bool found_sites(const struct go_binary *bin, const char *pattern,
			struct site_list *out)
{
	struct name_matcher m;
	struct inline_sites s;
	size_t i;

	if (name_matcher__init(&m, pattern, false))
		return false;
	if (inline_sites__find(bin, &m, &s)) {
		fprintf(stderr, "inline_sites__find: %s\n", gt_last_error());
		name_matcher__free(&m);
		return false;
	}
	for (i = 0; i < s.n; i++)
		list_add(out, s.sites[i].name, s.sites[i].addr,
			 s.sites[i].caller_addr);
	inline_sites__free(&s);
	name_matcher__free(&m);
	list_sort_unique(out);
	return true;
}

/* The sites of NAME in L, as a new list. */
static void only(const struct site_list *l, const char *name,
		 struct site_list *out)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			list_add(out, l->v[i].name, l->v[i].addr,
				 l->v[i].caller);
}

/* Same sites, callers included. */
static bool lists_equal(const struct site_list *a, const struct site_list *b)
{
	size_t i;

	if (a->n != b->n) {
		fprintf(stderr, "%zu sites, expected %zu\n", a->n, b->n);
		return false;
	}
	for (i = 0; i < a->n; i++) {
		if (site_cmp(&a->v[i], &b->v[i]) ||
		    a->v[i].caller != b->v[i].caller) {
			fprintf(stderr, "site %s %#lx (caller %#lx), expected "
				"%s %#lx (caller %#lx)\n", a->v[i].name,
				(unsigned long)a->v[i].addr,
				(unsigned long)a->v[i].caller, b->v[i].name,
				(unsigned long)b->v[i].addr,
				(unsigned long)b->v[i].caller);
			return false;
		}
	}
	return true;
}

static void check_named(const struct site_list *p, const struct site_list *d,
			const char *name, size_t min)
{
	struct site_list a = {}, b = {};

	only(p, name, &a);
	only(d, name, &b);
	if (b.n < min)
		fprintf(stderr, "DWARF has %zu sites of %s\n", b.n, name);
	CHECK(b.n >= min);
	CHECK(lists_equal(&a, &b));
	list_free(&a);
	list_free(&b);
}

/* Is CALLER the pointer-receiver wrapper pkg.(*T).M of method NAME,
 * pkg.T.M? Go <= 1.19 DWARF leaves out the calls inlined into wrappers. */
static bool is_wrapper_of(const struct go_binary *bin, uint64_t caller,
			  const char *name)
{
	const struct go_func *f = go_binary__func_at(bin, caller);
	const char *m = strrchr(name, '.'), *t;
	char want[512];

	if (!f || !m || m == name)
		return false;
	for (t = m - 1; t > name && *t != '.'; t--)
		;
	if (t == name)
		return false;
	snprintf(want, sizeof(want), "%.*s(*%.*s)%s", (int)(t + 1 - name),
		 name, (int)(m - t - 1), t + 1, m);
	return strcmp(f->name, want) == 0;
}

/*
 * Compare the pclntab sites of count-go1.MINOR-default with its DWARF.
 * fmt.Println and main.register agree exactly in every version. In full:
 * from 1.20 the sets are equal; 1.19 DWARF omits the calls inlined into
 * pointer wrappers; 1.15 DWARF starts an inlined call at its own inline
 * mark rather than at the first instruction of a call inlined inside it,
 * so only most sites agree there.
 */
static void check_against_dwarf(int minor)
{
	struct site_list p = {}, d = {};
	struct go_binary *bin;
	char name[64];
	size_t i, common = 0;

	snprintf(name, sizeof(name), "count-go1.%d-default", minor);
	bin = go_fixture__open(name, true);
	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK(pclntab_sites(bin, &p));
	CHECK(found_sites(bin, "*", &d));
	check_named(&p, &d, "fmt.Println", 1);
	check_named(&p, &d, "main.register", 1);
	for (i = 0; i < d.n; i++)
		common += list_has(&p, &d.v[i]);
	if (minor >= 20) {
		CHECK(lists_equal(&p, &d));
	} else if (minor >= 16) {
		CHECK_EQ_INT(common, d.n);
		for (i = 0; i < p.n; i++) {
			if (list_has(&d, &p.v[i]))
				continue;
			if (!is_wrapper_of(bin, p.v[i].caller, p.v[i].name))
				fprintf(stderr, "extra site %s %#lx\n",
					p.v[i].name,
					(unsigned long)p.v[i].addr);
			CHECK(is_wrapper_of(bin, p.v[i].caller, p.v[i].name));
		}
	} else {
		CHECK(d.n > 1000);
		CHECK(common * 10 >= d.n * 9);
	}
	list_free(&p);
	list_free(&d);
	go_binary__close(bin);
}

TEST(dwarf_go1_15) { check_against_dwarf(15); }
TEST(dwarf_go1_19) { check_against_dwarf(19); }
TEST(dwarf_go1_21) { check_against_dwarf(21); }
TEST(dwarf_go1_23) { check_against_dwarf(23); }
TEST(dwarf_go1_25) { check_against_dwarf(25); }
TEST(dwarf_go1_27) { check_against_dwarf(27); }

/*
 * The stripped build has the same code as the default one: the same
 * pclntab sites, and inline_sites__find, without DWARF, falls back to them
 * and finds DWARF's sites of fmt.Println and main.register.
 */
static void check_stripped(int minor)
{
	struct site_list ps = {}, pd = {}, fs = {}, fd = {};
	struct go_binary *s, *d;
	char name[64];
	const char *pats[] = { "fmt.Println", "main.register" };
	size_t i;

	snprintf(name, sizeof(name), "count-go1.%d-stripped", minor);
	s = go_fixture__open(name, true);
	snprintf(name, sizeof(name), "count-go1.%d-default", minor);
	d = go_fixture__open(name, true);
	CHECK(s && d);
	if (s && d) {
		CHECK_EQ_INT(s->source, GO_FUNCS_PCLNTAB);
		CHECK(pclntab_sites(s, &ps));
		CHECK(pclntab_sites(d, &pd));
		CHECK(ps.n > 1000);
		CHECK(lists_equal(&ps, &pd));
		for (i = 0; i < 2; i++) {
			CHECK(found_sites(s, pats[i], &fs));
			CHECK(found_sites(d, pats[i], &fd));
			CHECK(fd.n >= 1);
			CHECK(lists_equal(&fs, &fd));
			list_free(&fs);
			list_free(&fd);
		}
	}
	list_free(&ps);
	list_free(&pd);
	go_binary__close(s);
	go_binary__close(d);
}

TEST(stripped_go1_15) { check_stripped(15); }
TEST(stripped_go1_19) { check_stripped(19); }
TEST(stripped_go1_21) { check_stripped(21); }
TEST(stripped_go1_23) { check_stripped(23); }
TEST(stripped_go1_25) { check_stripped(25); }
TEST(stripped_go1_27) { check_stripped(27); }

/* A real third-party stripped binary: every function's tree decodes. */
TEST(esbuild)
{
	const char *names[] = { "esbuild-go1.15", "esbuild-latest" };
	struct site_list p = {};
	struct go_binary *bin;
	size_t i;

	for (i = 0; i < 2; i++) {
		bin = go_fixture__open(names[i], true);
		CHECK(bin != NULL);
		if (!bin)
			continue;
		CHECK(pclntab_sites(bin, &p));
		CHECK(p.n > 5000);
		list_free(&p);
		go_binary__close(bin);
	}
}

/* gccgo binaries have no pclntab. */
TEST(gccgo)
{
	struct pclntab_funcdata fd;
	struct go_binary *bin = NULL;

	CHECK_EQ_INT(go_binary__open(test_fixture("count-gccgo"), &bin), 0);
	if (!bin)
		return;
	CHECK(bin->pclntab == NULL);
	CHECK_EQ_INT(pclntab_funcdata__init(&fd, bin), -ENOENT);
	go_binary__close(bin);
}

/* ---- the hand-built Go 1.20+ table of fake_pclntab.h ---- */

/* Run the fake table; the sites go to OUT. */
static int fake_run(struct fake_pclntab *f, struct site_list *out)
{
	struct fake_mem m = fake_pclntab__gofunc(f);
	struct pclntab_funcdata fd = { FAKE_GOFUNC, fake_mem__read, &m };
	struct pclntab *tab;
	int err;

	err = pclntab__parse(f->tab, sizeof(f->tab), 0, &tab);
	if (err) {
		fprintf(stderr, "parse: %s\n", gt_last_error());
		return err;
	}
	err = pclntab__inline_calls(tab, 0, &fd, collect_cb, out);
	pclntab__free(tab);
	return err;
}

TEST(fake_table)
{
	struct fake_pclntab f;
	struct site_list l = {};

	fake_pclntab__init(&f);
	CHECK_EQ_INT(fake_run(&f, &l), 0);
	CHECK_EQ_INT(l.n, 2);
	if (l.n == 2) {
		/* in tree order; inl.a starts where inl.b inside it does */
		CHECK_EQ_STR(l.v[0].name, "inl.a");
		CHECK_EQ_INT(l.v[0].addr, FAKE_TEXT + 0x10);
		CHECK_EQ_INT(l.v[0].caller, FAKE_TEXT);
		CHECK_EQ_STR(l.v[1].name, "inl.b");
		CHECK_EQ_INT(l.v[1].addr, FAKE_TEXT + 0x10);
	}
	list_free(&l);

	/* inl.b called from main.f itself: inl.a starts at 0x20 */
	fake_pclntab__init(&f);
	put32(f.gofunc + 16 + 8, 0x40);
	CHECK_EQ_INT(fake_run(&f, &l), 0);
	CHECK_EQ_INT(l.n, 2);
	if (l.n == 2)
		CHECK_EQ_INT(l.v[0].addr, FAKE_TEXT + 0x20);
	list_free(&l);

	/* no inline tree */
	fake_pclntab__init(&f);
	put32(f.tab + FAKE_FUNC + 68, UINT32_MAX);
	CHECK_EQ_INT(fake_run(&f, &l), 0);
	CHECK_EQ_INT(l.n, 0);
	list_free(&l);
}

static int stop_cb(void *ctx, const struct pclntab_inline_call *c)
{
	(*(int *)ctx)++;
	return 42;
}

TEST(fake_table_callback_stops)
{
	struct fake_pclntab f;
	struct fake_mem m = fake_pclntab__gofunc(&f);
	struct pclntab_funcdata fd = { FAKE_GOFUNC, fake_mem__read, &m };
	struct pclntab *tab;
	int calls = 0;

	fake_pclntab__init(&f);
	CHECK_EQ_INT(pclntab__parse(f.tab, sizeof(f.tab), 0, &tab), 0);
	if (!tab)
		return;
	CHECK_EQ_INT(pclntab__inline_calls(tab, 0, &fd, stop_cb, &calls), 42);
	CHECK_EQ_INT(calls, 1);
	CHECK_EQ_INT(pclntab__inline_calls(tab, 1, &fd, stop_cb, &calls),
		     -ERANGE);
	pclntab__free(tab);
}

/*
 * The tree Go 1.25+ writes for some package initializers (buf 1.75.0's
 * go.opentelemetry.io/otel/semconv/v1.37.0.init): static initialization
 * dropped the inline marks, so every parentPc is 0, and the function
 * starts in inlined code, so that the call site of inl.b is inl.b itself.
 * The runtime's inlineUnwinder would loop on it for ever: it is rejected
 * with -EBADMSG, and nothing is reported.
 */
TEST(fake_table_cyclic)
{
	/* 1 for 0x20, 0 for 0x10, -1 for 0xd0 */
	static const uint8_t pcvals[] = {
		0x04, 0x20, 0x01, 0x10, 0x01, 0xd0, 0x01, 0x00,
	};
	struct site_list l = {};
	struct fake_pclntab f;

	fake_pclntab__init(&f);
	memcpy(f.tab + FAKE_PCTAB + FAKE_PCINL, pcvals, sizeof(pcvals));
	put32(f.gofunc + 16 + 8, 0);
	gt_error_clear();
	CHECK_EQ_INT(fake_run(&f, &l), -EBADMSG);
	CHECK_EQ_STR(gt_last_error(), "corrupt inline tree of main.f: cycle "
		     "of inlined calls: the call site of call 1 is in call 1");
	CHECK_EQ_INT(l.n, 0);
	list_free(&l);

	/* inl.a's call site in inl.b, inl.b's in inl.a */
	fake_pclntab__init(&f);
	put32(f.gofunc + 8, 0x10);
	CHECK_EQ_INT(fake_run(&f, &l), -EBADMSG);
	CHECK(strstr(gt_last_error(), "the call site of call 0 is in call 1"));
	CHECK_EQ_INT(l.n, 0);
	list_free(&l);

	/* parentPc 0 in a function that starts with its own code, as Go
	 * 1.21-1.23 wrote such initializers: no cycle, as the runtime
	 * unwinds it, inl.b called from main.f */
	fake_pclntab__init(&f);
	put32(f.gofunc + 16 + 8, 0);
	CHECK_EQ_INT(fake_run(&f, &l), 0);
	CHECK_EQ_INT(l.n, 2);
	if (l.n == 2) {
		CHECK_EQ_STR(l.v[0].name, "inl.a");
		CHECK_EQ_INT(l.v[0].addr, FAKE_TEXT + 0x20);
		CHECK_EQ_STR(l.v[1].name, "inl.b");
		CHECK_EQ_INT(l.v[1].addr, FAKE_TEXT + 0x10);
	}
	list_free(&l);
}

/* A table whose first pair covers no PC: runtime step() ends a table at
 * a zero value delta only past the entry, so the pair after it counts. */
TEST(fake_table_empty_first_run)
{
	/* 1 for 0, 1 for 0x10, 0 for 0x10, -1 for 0xe0 */
	static const uint8_t pcvals[] = {
		0x04, 0x00, 0x00, 0x10, 0x01, 0x10, 0x01, 0xe0, 0x01, 0x00,
	};
	struct site_list l = {};
	struct fake_pclntab f;

	fake_pclntab__init(&f);
	memcpy(f.tab + FAKE_PCTAB + FAKE_PCINL, pcvals, sizeof(pcvals));
	CHECK_EQ_INT(fake_run(&f, &l), 0);
	CHECK_EQ_INT(l.n, 2);
	if (l.n == 2) {
		/* inl.b's parentPc 0x20 is now in main.f */
		CHECK_EQ_STR(l.v[0].name, "inl.a");
		CHECK_EQ_INT(l.v[0].addr, FAKE_TEXT + 0x10);
		CHECK_EQ_STR(l.v[1].name, "inl.b");
		CHECK_EQ_INT(l.v[1].addr, FAKE_TEXT);
	}
	list_free(&l);
}

/* Each corruption rejects the tree with -EBADMSG and its reason. */
TEST(fake_table_corrupt)
{
	static const struct {
		const char *what;
		int at;			/* < 0: in gofunc, else in the table */
		uint32_t val;
		const char *reason;
	} cases[] = {
		{ "parent cycle", -(16 + 8), 0x10, "cycle" },
		{ "name past the table", -(16 + 4), 1000, "name out of range" },
		{ "negative name", -4, UINT32_MAX, "name out of range" },
		{ "tree outside memory", FAKE_FUNC + 68, 0x100000,
		  "inlined call out of range" },
		{ "pcdata past the table", FAKE_FUNC + 52, 4096,
		  "pc-value table out of range" },
		{ "npcdata huge", FAKE_FUNC + 28, UINT32_MAX,
		  "funcdata out of range" },
		{ "pc past the end", FAKE_PCTAB + FAKE_PCINL + 7, 0x0fff,
		  "past the end" },
		/* the table moved to the last two bytes, an endless varint */
		{ "table runs off", FAKE_FUNC + 52,
		  FAKE_TABLE_SIZE - 2 - FAKE_PCTAB, "bad pc-value table" },
	};
	struct site_list l = {};
	struct fake_pclntab f;
	size_t i;
	uint8_t *p;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake_pclntab__init(&f);
		p = cases[i].at < 0 ? f.gofunc - cases[i].at :
				      f.tab + cases[i].at;
		put32(p, cases[i].val);
		f.tab[FAKE_TABLE_SIZE - 2] = 0x81;
		f.tab[FAKE_TABLE_SIZE - 1] = 0x81;
		gt_error_clear();
		if (fake_run(&f, &l) != -EBADMSG || l.n ||
		    !strstr(gt_last_error(), cases[i].reason)) {
			fprintf(stderr, "%s: %s\n", cases[i].what,
				gt_last_error());
			CHECK(!"corruption not reported");
		}
		list_free(&l);
	}
}

int main(void)
{
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
	RUN(esbuild);
	RUN(gccgo);
	RUN(fake_table);
	RUN(fake_table_callback_stops);
	RUN(fake_table_cyclic);
	RUN(fake_table_empty_first_run);
	RUN(fake_table_corrupt);
	return TEST_SUMMARY();
}
