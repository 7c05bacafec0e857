// SPDX-License-Identifier: MIT
/*
 * gotrace's plans on the args fixture (tests/fixtures/args): where the
 * words of each value are read, by the register ABI (Go 1.23, x86-64
 * and arm64) and the stack ABI (Go 1.15), typed by the format; the
 * filter's comparisons; the DWARF path with names, fields followed
 * through pointers and len().
 * gccgo's results in memory (System V, AAPCS64's X8 kept at the entry).
 * The expected places come from the ABI rules (go-internals.md, the
 * AAPCS64 document) applied to the fixture's signatures, not from a run
 * of the tool.
 */
#include <errno.h>
#include <string.h>
#include "core/error.h"
#include "probe/func_probes.h"
#include "probe/machine_code.h"
#include "gobin/go_binary.h"
#include "goabi/go_dwarf.h"
#include "goabi/goroutine.h"
#include "trace/trace_plan.h"
#include "cookie.h"
#include "test.h"

struct planned {
	struct go_binary *bin;
	struct go_dwarf *dw;
	struct trace_probe probe;
	struct trace_plan_set set;
	struct uprobe_list sites;
};

/* Plan TEXT for its one function in FIXTURE, with DWARF when USE_DWARF;
 * returns the error of planning. */
static int plan(const char *fixture, const char *text, bool use_dwarf,
		struct planned *p)
{
	struct func_probes fp = { 0 };
	int err;

	memset(p, 0, sizeof(*p));
	p->set.str_max = 80;
	if (go_binary__open(test_fixture(fixture), &p->bin)) {
		fprintf(stderr, "fixture missing: %s\n", test_fixture(fixture));
		return -ENOENT;
	}
	/* a stripped binary has none: the format types the values */
	if (use_dwarf && go_dwarf__open(p->bin, &p->dw))
		p->dw = NULL;
	err = trace_probe__parse(text, &p->probe);
	if (!err)
		err = func_probes__collect(p->bin, p->probe.target, false, &fp);
	if (!err && fp.n < 1)
		err = -ENOENT;
	if (!err)
		err = trace_plan_set__add(&p->set, p->bin, p->dw, NULL, &p->probe,
					  &fp.probes[0], &p->sites);
	func_probes__free(&fp);
	return err;
}

static void planned__free(struct planned *p)
{
	trace_plan_set__free(&p->set);
	uprobe_list__free(&p->sites);
	trace_probe__free(&p->probe);
	go_dwarf__close(p->dw);
	go_binary__close(p->bin);
}

static bool is_reg(const struct trace_word *w, unsigned int reg)
{
	return w->kind == WORD_REG && w->reg == reg;
}

static bool is_stack(const struct trace_word *w, int offset, unsigned int size)
{
	return w->kind == WORD_MEM && w->base == TRACE_NO_BASE &&
	       w->reg == 7 && w->offset == offset && w->size == size;
}

/* greet(name string, n int): name in RAX (pointer) and RBX (length), n in
 * RCX. */
TEST(register_abi_string_and_int)
{
	struct planned p;
	const struct trace_plan *pl;

	CHECK_EQ_INT(plan("args-go1.23-stripped", "main.greet \"%s %d\" goarg1, goarg2",
			  false, &p), 0);
	if (p.set.nrows != 1)
		goto out;
	pl = trace_plan_set__plan(&p.set, 0);
	CHECK_EQ_INT(pl->nwords, 3);
	CHECK(is_reg(&pl->words[0], 0));
	CHECK(is_reg(&pl->words[1], 3));
	CHECK(is_reg(&pl->words[2], 2));
	CHECK_EQ_INT(pl->nstrs, 1);
	CHECK_EQ_INT(pl->strs[0].ptr_word, 0);
	CHECK_EQ_INT(pl->strs[0].len_word, 1);
	CHECK_EQ_INT(pl->strs[0].max, 80);
	CHECK_EQ_INT(p.set.rows[0].src[0].str, 0);
	CHECK_EQ_INT(p.set.rows[0].src[1].nwords, 1);
	CHECK_EQ_INT(p.set.rows[0].src[1].w[0].word, 2);
	CHECK_EQ_INT(p.sites.n, 1);
	CHECK(p.set.rows[0].bin == p.bin);
out:
	planned__free(&p);
}

/* ABI0: name at 8(SP) and 16(SP), n at 24(SP); describe's results
 * (string, int, bool) after its 24 bytes of arguments. */
TEST(stack_abi)
{
	struct planned p;
	const struct trace_plan *pl;

	CHECK_EQ_INT(plan("args-go1.15-stripped", "main.greet \"%s %d\" goarg1, goarg2",
			  false, &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nwords, 3);
		CHECK(is_stack(&pl->words[0], 8, 8));
		CHECK(is_stack(&pl->words[1], 16, 8));
		CHECK(is_stack(&pl->words[2], 24, 8));
	}
	planned__free(&p);
	CHECK_EQ_INT(plan("args-go1.15-stripped",
			  "r:main.describe \"%s %d %t\" goret1, goret2, goret3",
			  false, &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nwords, 4);
		CHECK(is_stack(&pl->words[0], 32, 8));
		CHECK(is_stack(&pl->words[1], 40, 8));
		CHECK(is_stack(&pl->words[2], 48, 8));
		CHECK(is_stack(&pl->words[3], 56, 1));
		CHECK(p.sites.n >= 1);	/* every RET */
	}
	planned__free(&p);
}

/* (goarg1 > 5 || goarg2 == -3): two comparisons of RAX and RBX. */
TEST(filter_terms)
{
	struct planned p;
	const struct trace_plan *pl;

	CHECK_EQ_INT(plan("args-go1.23-stripped",
			  "main.addInts (goarg1 > 5 || goarg2 == -3) \"%d\" goarg1",
			  false, &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nterms, 2);
		CHECK(is_reg(&pl->words[pl->terms[0].word], 0));
		CHECK_EQ_INT(pl->terms[0].op, TERM_GT);
		CHECK_EQ_INT(pl->terms[0].flags, TERM_SIGNED | TERM_OR);
		CHECK_EQ_INT(pl->terms[0].value, 5);
		CHECK_EQ_INT(pl->terms[0].size, 8);
		CHECK(is_reg(&pl->words[pl->terms[1].word], 3));
		CHECK_EQ_INT((int64_t)pl->terms[1].value, -3);
		CHECK_EQ_INT(pl->terms[1].flags, TERM_SIGNED);
	}
	planned__free(&p);
	CHECK_EQ_INT(plan("args-go1.23-stripped",
			  "main.greet (goarg1 == \"bob\") \"%d\" goarg2", false, &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nterms, 1);
		CHECK_EQ_INT(pl->terms[0].flags, TERM_STRING);
		CHECK_EQ_INT(pl->terms[0].value, 3);
		CHECK(!memcmp(pl->terms[0].bytes, "bob", 3));
		CHECK_EQ_INT(pl->nstrs, 1);
		CHECK_EQ_INT(pl->strs[0].max, 3);	/* not printed: what it compares */
	}
	planned__free(&p);
}

static bool is_mem(const struct trace_plan *pl, int w, int base, int offset,
		   unsigned int size)
{
	const struct trace_word *x = &pl->words[w];

	return x->kind == WORD_MEM && x->base == base && x->offset == offset &&
	       x->size == size;
}

/* handle(r *request): r in RAX; request{Method string; URL *url; Body
 * []byte; ID int} puts Method at 0, URL at 16, Body at 24, ID at 48, and
 * url{Host, Path string} puts Path at 16. Each field is memory off the
 * word before it. */
TEST(dwarf_pointer_chain)
{
	const struct trace_row *row;
	const struct trace_plan *pl;
	struct planned p;
	int r, url;

	CHECK_EQ_INT(plan("args-go1.23-default",
			  "main.handle \"%s %s %d %d\" r.Method, r.URL.Path, len(r.Body), r.ID",
			  true, &p), 0);
	if (p.set.nrows != 1)
		goto out;
	pl = trace_plan_set__plan(&p.set, 0);
	row = &p.set.rows[0];
	CHECK(is_reg(&pl->words[0], 0));
	r = 0;
	/* r.Method: a string at 0(r) */
	CHECK_EQ_INT(row->src[0].nwords, 2);
	CHECK(is_mem(pl, row->src[0].w[0].word, r, 0, 8));
	CHECK(is_mem(pl, row->src[0].w[1].word, r, 8, 8));
	/* r.URL.Path: URL at 16(r), Path at 16(URL) */
	CHECK_EQ_INT(row->src[1].nwords, 2);
	url = pl->words[row->src[1].w[0].word].base;
	CHECK(is_mem(pl, url, r, 16, 8));
	CHECK(is_mem(pl, row->src[1].w[0].word, url, 16, 8));
	CHECK(is_mem(pl, row->src[1].w[1].word, url, 24, 8));
	CHECK_EQ_INT(pl->nstrs, 2);
	/* len(r.Body) at 32(r), r.ID at 48(r) */
	CHECK(is_mem(pl, row->src[2].w[0].word, r, 32, 8));
	CHECK(is_mem(pl, row->src[3].w[0].word, r, 48, 8));
	CHECK(row->src[3].type->kind == GO_KIND_INT);
out:
	planned__free(&p);
}

/* A bare probe prints every argument of the function, named as DWARF
 * names them, or every result: its row's own format. */
TEST(bare_probe_format)
{
	const struct trace_row *row;
	struct planned p;

	CHECK_EQ_INT(plan("args-go1.23-default", "main.greet", true, &p), 0);
	row = p.set.nrows == 1 ? &p.set.rows[0] : NULL;
	CHECK(row && row->nconvs == 2);
	if (row && row->nconvs == 2) {
		CHECK_EQ_STR(row->convs[0].prefix, "(name=");
		CHECK_EQ_STR(row->convs[1].prefix, ", n=");
		CHECK_EQ_STR(row->suffix, ")");
		CHECK_EQ_STR(row->convs[0].expr.text, "name");
		CHECK(row->convs[0].kind == TRACE_CONV_VALUE);
		CHECK(row->convs[1].expr.arg == TRACE_ARG_GOARG &&
		      row->convs[1].expr.index == 1);
		CHECK(row->src[1].type->kind == GO_KIND_INT);
	}
	planned__free(&p);
	/* results are unnamed (~r0): goretN */
	CHECK_EQ_INT(plan("args-go1.23-default", "r:main.describe", true, &p), 0);
	row = p.set.nrows == 1 ? &p.set.rows[0] : NULL;
	CHECK(row && row->nconvs == 3);
	if (row && row->nconvs == 3) {
		CHECK_EQ_STR(row->convs[0].prefix, "=> (");
		CHECK_EQ_STR(row->convs[2].prefix, ", ");
		CHECK_EQ_STR(row->convs[2].expr.text, "goret3");
		CHECK(row->convs[2].expr.arg == TRACE_ARG_GORET);
		CHECK(row->src[2].type->kind == GO_KIND_BOOL);
		CHECK_EQ_STR(row->suffix, ")");
	}
	planned__free(&p);
	/* a shape function's dictionary is not printed */
	CHECK_EQ_INT(plan("args-go1.23-default", "main.maxOf", true, &p), 0);
	row = p.set.nrows == 1 ? &p.set.rows[0] : NULL;
	CHECK(row && row->nconvs == 2);
	if (row && row->nconvs == 2) {
		CHECK_EQ_STR(row->convs[0].prefix, "(x=");
		CHECK_EQ_STR(row->convs[0].expr.text, "x");
	}
	planned__free(&p);
	/* nothing types it (stripped, not a method): the raw words its
	 * morestack tail spills, RAX RBX RCX (name's two, n) */
	CHECK_EQ_INT(plan("args-go1.23-stripped", "main.greet", false, &p), 0);
	row = p.set.nrows == 1 ? &p.set.rows[0] : NULL;
	CHECK(row && row->nconvs == 3);
	if (row && row->nconvs == 3) {
		const struct trace_plan *pl = trace_plan_set__plan(&p.set, 0);

		CHECK_EQ_STR(row->convs[0].prefix, "(raw: 0x");
		CHECK_EQ_STR(row->convs[2].expr.text, "raw3");
		CHECK(row->convs[1].kind == TRACE_CONV_HEX);
		CHECK(pl->nwords == 3 && is_reg(&pl->words[0], 0) &&
		      is_reg(&pl->words[1], 3) && is_reg(&pl->words[2], 2));
	}
	planned__free(&p);
	/* the stack ABI spills nothing: said, no value */
	CHECK_EQ_INT(plan("args-go1.15-stripped", "main.greet", false, &p), 0);
	row = p.set.nrows == 1 ? &p.set.rows[0] : NULL;
	CHECK(row && row->nconvs == 0);
	if (row)
		CHECK_EQ_STR(row->suffix, "(<no types>)");
	planned__free(&p);
	/* with a format, the probe's own */
	CHECK_EQ_INT(plan("args-go1.23-default", "main.greet \"%s\" name", true,
			  &p), 0);
	row = p.set.nrows == 1 ? &p.set.rows[0] : NULL;
	CHECK(row && row->convs == p.probe.convs && row->nconvs == 1 &&
	      !row->own_convs);
	planned__free(&p);
}

/* %T of a type parameter's value: BPF reads the call's dictionary, whose
 * name gives the type argument (kindOf[T ~int64]: .dict in RAX, x in RBX) */
TEST(type_argument)
{
	const struct trace_plan *pl;
	struct planned p;

	CHECK_EQ_INT(plan("args-go1.27-default", "main.kindOf \"%T\" x", true,
			  &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(p.set.rows[0].src[0].dict_arg, 1);
		CHECK_EQ_INT(p.set.rows[0].src[0].type_word, 0);
		CHECK(pl->nwords == 1 && is_reg(&pl->words[0], 0));
	}
	planned__free(&p);
}

TEST(errors)
{
	static const struct {
		const char *fixture, *probe, *reason;
	} cases[] = {
		{ "args-go1.23-stripped", "main.greet \"%s\" name", "needs DWARF" },
		{ "args-go1.23-stripped", "main.greet \"%d\" goarg1.x", "fields need DWARF" },
		{ "args-go1.23-stripped", "main.greet \"%T\" goarg1", "%T needs DWARF" },
		{ "args-go1.23-default", "main.greet \"%s\" nosuch", "no parameter named 'nosuch'" },
		{ "args-go1.23-default", "main.greet \"%d\" name.x", "has no field x" },
		{ "args-go1.23-default", "main.greet \"%T\" name", "cannot print" },
		{ "args-go1.23-default", "main.greet \"%d\" cap(name)", "is not a slice" },
		{ "args-go1.23-default", "main.greet (name < 3)", "only == nil and != nil compare it" },
		{ "args-go1.23-default", "main.mixFloat (x > 1)", "which a filter cannot compare" },
		{ "args-go1.23-default", "r:main.greet \"%s\" name", "is a parameter, not known at a return" },
		{ "args-go1.27-default", "r:main.maxOf \"%T\" goret1", "known at the entry only" },
	};
	struct planned p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = plan(cases[i].fixture, cases[i].probe, true, &p);

		if (!err || !strstr(gt_last_error(), cases[i].reason))
			fprintf(stderr, "%s: '%s': %d '%s'\n", cases[i].fixture,
				cases[i].probe, err, gt_last_error());
		CHECK(err == -EINVAL || err == -ENOTSUP);
		CHECK(strstr(gt_last_error(), cases[i].reason) != NULL);
		planned__free(&p);
	}
}

/* Add the functions of probe TEXT in P's binary to P's set: the inlined
 * copies when INLINED, else the others; how many in *N. P holds the probe
 * (the last one: the rows of earlier ones point to it too). */
static int plan_all(struct planned *p, const char *text, bool inlined,
		    size_t *n)
{
	struct trace_probe *probe = &p->probe;
	struct func_probes fp = { 0 };
	struct inline_ends ends;
	size_t i;
	int err;

	*n = 0;
	machine_code__inline_ends_init(&ends, p->bin);
	trace_probe__free(probe);
	err = trace_probe__parse(text, probe);
	if (!err)
		err = func_probes__collect(p->bin, probe->target, false, &fp);
	for (i = 0; !err && i < fp.n; i++) {
		if (fp.probes[i].inlined != inlined)
			continue;
		(*n)++;
		err = inlined ?
			trace_plan_set__add_inlined(&p->set, p->bin, p->dw,
						    &ends, probe, &fp.probes[i],
						    &p->sites) :
			trace_plan_set__add(&p->set, p->bin, p->dw, NULL, probe,
					    &fp.probes[i], &p->sites);
	}
	inline_ends__free(&ends);
	func_probes__free(&fp);
	return err;
}

/* main.stackMiddle(n int), inlined into its two callers: a filter on a
 * copy whose format cannot be planned leaves the copy out, no row (and no
 * row without a plan) left behind; without the filter each copy has a row
 * and a plan (Go records no n there: it prints <optimized out>). */
TEST(inlined_rows)
{
	struct planned p;
	size_t copies = 0, i;

	CHECK_EQ_INT(plan("args-go1.23-default", "main.addInts", true, &p), 0);
	if (!p.bin || !p.dw) {
		CHECK(p.dw != NULL);
		planned__free(&p);
		return;
	}
	trace_plan_set__free(&p.set);
	memset(&p.set, 0, sizeof(p.set));
	CHECK_EQ_INT(plan_all(&p, "main.stackMiddle (goarg1 == 5) \"%s\" goarg1",
			      true, &copies), 0);
	CHECK_EQ_INT(copies, 2);
	CHECK_EQ_INT(p.set.nrows, 0);
	CHECK_EQ_INT(p.set.left_out.count[LEFT_OUT_INLINED_FILTER], 2);
	CHECK_EQ_INT(plan_all(&p, "main.stackMiddle \"%d\" goarg1", true,
			      &copies), 0);
	CHECK_EQ_INT(p.set.nrows, 2);
	for (i = 0; i < p.set.nrows; i++) {
		CHECK(p.set.rows[i].inlined);
		CHECK(p.set.rows[i].plan < p.set.plans.n);
	}
	planned__free(&p);
}

/* Functions that read alike share one plan, which has the binary's
 * goroutine layout; a probe that reads otherwise gets its own. */
TEST(shared_plans)
{
	struct goroutine_layout layout;
	const struct trace_plan *pl;
	struct planned p;
	size_t i, n;

	CHECK_EQ_INT(plan("args-go1.23-stripped", "main.addInts", false, &p), 0);
	if (!p.bin)
		return;
	trace_plan_set__free(&p.set);
	memset(&p.set, 0, sizeof(p.set));
	CHECK_EQ_INT(goroutine_layout__find(p.bin, &layout), 0);
	CHECK_EQ_INT(plan_all(&p, "main.width* \"%d\" goarg1", false, &n), 0);
	CHECK(n >= 8);	/* widthI8 ... widthU64 */
	CHECK_EQ_INT(p.set.nrows, n);
	CHECK_EQ_INT(p.set.plans.n, 1);
	for (i = 0; i < p.set.nrows; i++)
		CHECK_EQ_INT(p.set.rows[i].plan, 0);
	if (p.set.plans.n >= 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nwords, 1);
		CHECK(is_reg(&pl->words[0], 0));
		CHECK(pl->goid_offset != 0);
		CHECK_EQ_INT(pl->goid_offset, layout.goid_offset);
		CHECK_EQ_INT(pl->tls_g_offset, layout.tls_g_offset);
	}
	CHECK_EQ_INT(plan_all(&p, "main.addInts \"%d %d\" goarg1, goarg2",
			      false, &n), 0);
	CHECK_EQ_INT(p.set.plans.n, 2);
	if (p.set.nrows >= 1)
		CHECK_EQ_INT(p.set.rows[p.set.nrows - 1].plan, 1);
	planned__free(&p);
}

/* arm64 (Go 1.23, DWARF): stackArray(v [3]int, k int) takes v at 8(RSP),
 * as its DWARF's DW_OP_fbreg +8 says (the CFA is SP at entry), and k in
 * R0; the stack is read off SP, DWARF's 31, not x86-64's 7. greet's
 * name is in R0 and R1, n in R2. */
TEST(arm64_registers)
{
	struct planned p;
	const struct trace_plan *pl;

	CHECK_EQ_INT(plan("args-go1.23-arm64", "main.stackArray \"%d %d\" v[1], k",
			  true, &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nwords, 2);
		CHECK(pl->words[0].kind == WORD_MEM &&
		      pl->words[0].base == TRACE_NO_BASE &&
		      pl->words[0].reg == 31 && pl->words[0].offset == 16 &&
		      pl->words[0].size == 8);
		CHECK(is_reg(&pl->words[1], 0));
	}
	planned__free(&p);
	CHECK_EQ_INT(plan("args-go1.23-arm64", "main.greet \"%s %d\" name, n",
			  true, &p), 0);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->nwords, 3);
		CHECK(is_reg(&pl->words[0], 0));
		CHECK(is_reg(&pl->words[1], 1));
		CHECK(is_reg(&pl->words[2], 2));
	}
	planned__free(&p);
}

/* gccgo's results in memory: on x86-64 at RAX at the RET, which System V
 * returns their address in; on arm64 at X8 as it was at the call's entry
 * (AAPCS64's indirect result register, which the callee need not keep):
 * a row of its own keeps X8 at the entry, and the r: row reads through
 * it. Results in registers need nothing kept. */
TEST(gccgo_results_in_memory)
{
	const char *ret3 = "r:main.describe \"%s %d %t\" goret1, goret2, goret3";
	const struct go_func *fn;
	const struct trace_plan *pl;
	struct planned p;
	uint64_t entry;

	CHECK_EQ_INT(plan("args-gccgo", ret3, true, &p), 0);
	CHECK_EQ_INT(p.set.nrows, 1);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->entry_reg, 0);
		CHECK(pl->words[0].kind == WORD_MEM && pl->words[0].reg == 0 &&
		      pl->words[0].base == TRACE_NO_BASE &&
		      pl->words[0].offset == 0);
	}
	planned__free(&p);

	CHECK_EQ_INT(plan("args-gccgo-arm64", ret3, true, &p), 0);
	CHECK_EQ_INT(p.set.nrows, 2);
	if (p.set.nrows == 2) {
		/* the r: row: the string's words at [X8] and [X8 + 8], the
		 * int at [X8 + 16], X8 as the entry kept it */
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->entry_reg, 8 + 1);
		CHECK_EQ_INT(pl->entry_keep, 0);
		CHECK(pl->nwords >= 3);
		for (int i = 0; i < 3 && i < (int)pl->nwords; i++)
			CHECK(pl->words[i].kind == WORD_MEM &&
			      pl->words[i].reg == 8 &&
			      pl->words[i].base == TRACE_NO_BASE &&
			      pl->words[i].offset == 8 * i);
		/* the keeper: reads nothing, keeps X8, at the entry */
		pl = trace_plan_set__plan(&p.set, 1);
		CHECK_EQ_INT(pl->entry_keep, 8 + 1);
		CHECK_EQ_INT(pl->nwords, 0);
		CHECK_EQ_STR(p.set.rows[1].func, "main.describe");
		fn = go_binary__func_by_name(p.bin, "main.describe");
		CHECK(fn != NULL);
		CHECK(p.sites.n >= 2);
		if (fn && p.sites.n >= 2) {
			CHECK_EQ_INT(elf_file__vaddr_to_offset(p.bin->elf,
							       fn->addr, &entry), 0);
			CHECK_EQ_INT(p.sites.offsets[p.sites.n - 1], entry);
			CHECK_EQ_INT(COOKIE_INDEX(p.sites.cookies[p.sites.n - 1]), 1);
			for (size_t i = 0; i + 1 < p.sites.n; i++)
				CHECK_EQ_INT(COOKIE_INDEX(p.sites.cookies[i]), 0);
		}
	}
	planned__free(&p);

	/* divmod's (int, int) in X0 X1: nothing kept */
	CHECK_EQ_INT(plan("args-gccgo-arm64",
			  "r:main.divmod \"%d %d\" goret1, goret2", true, &p), 0);
	CHECK_EQ_INT(p.set.nrows, 1);
	if (p.set.nrows == 1) {
		pl = trace_plan_set__plan(&p.set, 0);
		CHECK_EQ_INT(pl->entry_reg, 0);
		CHECK(is_reg(&pl->words[0], 0));
		CHECK(is_reg(&pl->words[1], 1));
	}
	planned__free(&p);
}

int main(void)
{
	RUN(register_abi_string_and_int);
	RUN(stack_abi);
	RUN(filter_terms);
	RUN(dwarf_pointer_chain);
	RUN(bare_probe_format);
	RUN(type_argument);
	RUN(errors);
	RUN(shared_plans);
	RUN(inlined_rows);
	RUN(arm64_registers);
	RUN(gccgo_results_in_memory);
	return TEST_SUMMARY();
}
