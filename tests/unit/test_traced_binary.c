// SPDX-License-Identifier: MIT
/*
 * lib/trace/traced_binary.h on the fixtures: a trace's table of binaries
 * (each path opened once, found again by path and by go_binary, at most
 * TRACED_BINARIES_MAX, a caller's go_binary left open), errors for what is
 * no Go binary, where each kind of binary was loaded (non-PIE, PIE,
 * library), naming types from run-time addresses (%T and %v), the String
 * and Error methods fmt calls, the dynamic types %v sends to BPF, and a
 * probe planned into a binary. The expected names and types come from the
 * fixtures' sources (tests/fixtures/values, args) and from DWARF's
 * DW_AT_go_runtime_type, read here through go_dwarf.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "core/error.h"
#include "trace/trace_plan.h"
#include "trace/trace_probe.h"
#include "trace/traced_binary.h"
#include "test.h"

/* test_fixture()'s static buffer, copied: several paths live at once. */
static const char *fixture(char *buf, const char *name)
{
	strcpy(buf, test_fixture(name));
	return buf;
}

/* Adding a path twice opens it once; both lookups find it. */
TEST(one_binary_per_path)
{
	struct traced_binaries tbs = { 0 };
	struct traced_binary *a = NULL, *b = NULL;
	char path[4096], other[4096];

	fixture(path, "values-go1.21-default");
	fixture(other, "values-go1.21-pie");
	CHECK_EQ_INT(traced_binaries__add(&tbs, path, NULL, &a), 0);
	CHECK_EQ_INT(traced_binaries__add(&tbs, path, NULL, &b), 0);
	CHECK(a && a == b);
	CHECK_EQ_INT(tbs.n, 1);
	if (!a) {
		traced_binaries__free(&tbs);
		return;
	}
	CHECK_EQ_STR(a->path, path);
	CHECK(a->bin && a->owns_bin);
	CHECK(a->bin && !a->bin->is_gccgo &&
	      !strncmp(a->bin->version, "go1.21", 6));
	CHECK(a->dw != NULL);		/* the default build has DWARF */
	CHECK(traced_binaries__find(&tbs, path) == a);
	CHECK(traced_binaries__of(&tbs, a->bin) == a);
	CHECK(traced_binaries__find(&tbs, other) == NULL);
	CHECK_EQ_INT(traced_binaries__add(&tbs, other, NULL, &b), 0);
	CHECK_EQ_INT(tbs.n, 2);
	CHECK(b && b != a && tbs.bins[0] == a && tbs.bins[1] == b);
	/* the first binary stays where it was */
	CHECK(traced_binaries__find(&tbs, path) == a);
	CHECK(b && traced_binaries__of(&tbs, b->bin) == b);
	CHECK(traced_binaries__of(&tbs, NULL) == NULL);
	traced_binaries__free(&tbs);
	CHECK_EQ_INT(tbs.n, 0);
	CHECK(traced_binaries__find(&tbs, path) == NULL);
}

/* A go_binary the caller opened is used, and left to the caller. */
TEST(callers_binary_stays_open)
{
	struct traced_binaries tbs = { 0 };
	struct traced_binary *tb = NULL;
	struct go_binary *bin = NULL;
	char path[4096];

	fixture(path, "args-go1.23-default");
	CHECK_EQ_INT(go_binary__open(path, &bin), 0);
	if (!bin)
		return;
	CHECK_EQ_INT(traced_binaries__add(&tbs, path, bin, &tb), 0);
	CHECK(tb && tb->bin == bin && !tb->owns_bin);
	CHECK(traced_binaries__of(&tbs, bin) == tb);
	traced_binaries__free(&tbs);
	/* still open: ASan says so if it was closed */
	CHECK(go_binary__func_by_name(bin, "main.main") != NULL);
	go_binary__close(bin);
}

/* What cannot be opened is not added, with a reason. */
TEST(errors)
{
	struct traced_binaries tbs = { 0 };
	struct traced_binary *tb = NULL;
	char path[4096], long_path[5000];

	gt_error_clear();
	CHECK_EQ_INT(traced_binaries__add(&tbs, "/nonexistent/app", NULL, &tb),
		     -ENOENT);
	CHECK(strstr(gt_last_error(), "/nonexistent/app") != NULL);
	CHECK_EQ_INT(tbs.n, 0);
	CHECK(traced_binaries__find(&tbs, "/nonexistent/app") == NULL);

	/* a text file, and a C program: no Go binaries */
	gt_error_clear();
	CHECK(traced_binaries__add(&tbs, fixture(path, "libgo.path"), NULL,
				   &tb) < 0);
	CHECK(gt_last_error()[0] != '\0');
	gt_error_clear();
	CHECK(traced_binaries__add(&tbs, "/bin/true", NULL, &tb) < 0);
	CHECK(gt_last_error()[0] != '\0');
	CHECK_EQ_INT(tbs.n, 0);

	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	CHECK_EQ_INT(traced_binaries__add(&tbs, long_path, NULL, &tb),
		     -ENAMETOOLONG);
	CHECK_EQ_INT(tbs.n, 0);

	/* a failure leaves the table as it was */
	CHECK_EQ_INT(traced_binaries__add(&tbs, fixture(path, "args-go1.21-default"),
					  NULL, &tb), 0);
	CHECK(traced_binaries__add(&tbs, "/bin/true", NULL, &tb) < 0);
	CHECK_EQ_INT(tbs.n, 1);
	CHECK(traced_binaries__find(&tbs, path) == tbs.bins[0]);
	traced_binaries__free(&tbs);
}

/* At most TRACED_BINARIES_MAX binaries; those added are still found. */
TEST(too_many_binaries)
{
	static const char *const names[] = {
		"args-go1.15-default", "args-go1.19-default",
		"args-go1.21-default", "args-go1.23-default",
		"args-go1.25-default", "args-go1.27-default",
		"args-go1.21-pie", "args-go1.23-pie", "args-go1.25-pie",
	};
	struct traced_binaries tbs = { 0 };
	struct traced_binary *tb = NULL;
	char path[4096];
	size_t i;

	CHECK_EQ_INT(TRACED_BINARIES_MAX, 8);
	for (i = 0; i < TRACED_BINARIES_MAX; i++)
		CHECK_EQ_INT(traced_binaries__add(&tbs, fixture(path, names[i]),
						  NULL, &tb), 0);
	CHECK_EQ_INT(tbs.n, TRACED_BINARIES_MAX);
	CHECK_EQ_INT(traced_binaries__add(&tbs, fixture(path, names[8]), NULL,
					  &tb), -E2BIG);
	CHECK(strstr(gt_last_error(), "more than 8 binaries") != NULL);
	CHECK_EQ_INT(tbs.n, TRACED_BINARIES_MAX);
	/* one added before is found, not opened again */
	tb = NULL;
	CHECK_EQ_INT(traced_binaries__add(&tbs, fixture(path, names[3]), NULL,
					  &tb), 0);
	CHECK(tb && tb == tbs.bins[3]);
	traced_binaries__free(&tbs);
}

/* A process that existed, and is gone. */
static pid_t gone_pid(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/* Where each kind was loaded: a non-PIE executable as linked, a PIE one
 * moved by start_code, a library by the process's maps. */
TEST(placement)
{
	struct traced_binary tb;
	char libgo[4096];
	uint64_t vaddr = 0;

	CHECK_EQ_INT(traced_binary__open(&tb, test_fixture("args-go1.21-default"),
					 NULL), 0);
	CHECK_EQ_INT(tb.placement, PLACED_AS_LINKED);
	CHECK(traced_binary__file_address(&tb, 1, 0x7000000, 0x401234, &vaddr));
	CHECK_EQ_INT(vaddr, 0x401234);
	traced_binary__close(&tb);

	CHECK_EQ_INT(traced_binary__open(&tb, test_fixture("args-go1.21-pie"),
					 NULL), 0);
	CHECK_EQ_INT(tb.placement, PLACED_PIE);
	CHECK(tb.first_code != 0 || tb.first_vaddr == 0);
	CHECK(traced_binary__file_address(&tb, 1,
					  0x555555000000 + tb.first_code,
					  0x555555001234, &vaddr));
	CHECK_EQ_INT(vaddr, 0x1234);
	traced_binary__close(&tb);

	CHECK(test_libgo_path(libgo, sizeof(libgo)));
	CHECK_EQ_INT(traced_binary__open(&tb, libgo, NULL), 0);
	CHECK_EQ_INT(tb.placement, PLACED_LIBRARY);
	CHECK(tb.bin && tb.bin->is_gccgo);
	/* our parent has not mapped libgo, a reaped child is gone: no
	 * address of it is known (this process maps it: libelf reads it) */
	CHECK(!traced_binary__file_address(&tb, getppid(), 0, 0x1000, &vaddr));
	CHECK(!traced_binary__file_address(&tb, gone_pid(), 0, 0x1000, &vaddr));
	traced_binary__close(&tb);
}

/* The runtime type DWARF names NAME in TB: its descriptor's file address
 * into *VADDR, and its go_type; NULL when there is none. */
static const struct go_type *dwarf_type(struct traced_binary *tb,
					const char *name, uint64_t *vaddr)
{
	const struct go_dwarf_rtype *types;
	size_t n, i;

	if (!tb->dw || !tb->rtypes ||
	    go_dwarf__runtime_types(tb->dw, &types, &n))
		return NULL;
	for (i = 0; i < n; i++) {
		if (types[i].type->name && !strcmp(types[i].type->name, name)) {
			*vaddr = go_rtypes__start(tb->rtypes) + types[i].offset;
			return types[i].type;
		}
	}
	return NULL;
}

/* %T and %v name the type of a run-time descriptor address, through the
 * load bias of a PIE. */
TEST(type_names)
{
	static const char *const fixtures[] = {
		"values-go1.21-default", "values-go1.21-pie",
		"values-go1.27-pie",
	};
	const struct go_type *t;
	struct traced_binary tb;
	uint64_t vaddr = 0, bias, start_code, addr;
	size_t f;

	for (f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		if (traced_binary__open(&tb, test_fixture(fixtures[f]), NULL)) {
			CHECK(!"fixture opened");
			fprintf(stderr, "%s: %s\n", fixtures[f], gt_last_error());
			traced_binary__close(&tb);
			continue;
		}
		/* nothing is named before the type data is loaded */
		CHECK(!traced_binary__type_name(&tb, 1, 0, 0x401000));
		traced_binary__load_names(&tb, true, false, false);
		CHECK(tb.rtypes != NULL);
		t = dwarf_type(&tb, "main.point", &vaddr);
		CHECK(t != NULL);
		if (!t) {
			fprintf(stderr, "%s: no main.point\n", fixtures[f]);
			traced_binary__close(&tb);
			continue;
		}
		bias = tb.placement == PLACED_PIE ? 0x555555554000 : 0;
		start_code = tb.first_code + bias;
		addr = vaddr + bias;
		CHECK_EQ_STR(traced_binary__type_name(&tb, 1, start_code, addr),
			     "main.point");
		CHECK(traced_binary__dyn_type(&tb, 1, start_code, addr) == t);
		t = dwarf_type(&tb, "*main.point", &vaddr);
		CHECK(t != NULL);
		if (t)
			CHECK_EQ_STR(traced_binary__type_name(&tb, 1, start_code,
							      vaddr + bias),
				     "*main.point");
		/* an address that is no descriptor */
		CHECK(!traced_binary__type_name(&tb, 1, start_code, bias + 1));
		CHECK(!traced_binary__dyn_type(&tb, 1, start_code, bias + 1));
		traced_binary__close(&tb);
	}
}

/* fmt calls Error or String on a type that has one (pkg.T.M, or
 * pkg.(*T).M for a pointer); a value receiver does not have its
 * pointer's methods. */
TEST(fmt_methods)
{
	struct go_type errptr = { .kind = GO_KIND_PTR, .name = "*errors.errorString" },
		errval = { .kind = GO_KIND_STRUCT, .name = "errors.errorString" },
		wrap = { .kind = GO_KIND_PTR, .name = "*fmt.wrapError" },
		point = { .kind = GO_KIND_STRUCT, .name = "main.point" },
		english = { .kind = GO_KIND_PTR, .name = "*main.english" },
		unnamed = { .kind = GO_KIND_STRUCT };
	struct traced_binary tb;

	if (traced_binary__open(&tb, test_fixture("values-go1.21-default"),
				NULL)) {
		CHECK(!"fixture opened");
		traced_binary__close(&tb);
		return;
	}
	CHECK(traced_binary__has_fmt_method(&tb, &errptr));
	CHECK(traced_binary__has_fmt_method(&tb, &wrap));
	CHECK(!traced_binary__has_fmt_method(&tb, &errval));
	CHECK(!traced_binary__has_fmt_method(&tb, &point));
	CHECK(!traced_binary__has_fmt_method(&tb, &english));	/* Greet only */
	CHECK(!traced_binary__has_fmt_method(&tb, &unnamed));
	/* answered again from what it found */
	CHECK(traced_binary__has_fmt_method(&tb, &errptr));
	CHECK(!traced_binary__has_fmt_method(&tb, &point));
	traced_binary__close(&tb);
}

/* The fixtures A and B added to TBS, into *TA and *TB; false (TBS freed)
 * when one cannot be. */
static bool add_two(struct traced_binaries *tbs, const char *a, const char *b,
		    struct traced_binary **ta, struct traced_binary **tb)
{
	char path[4096];

	CHECK_EQ_INT(traced_binaries__add(tbs, fixture(path, a), NULL, ta), 0);
	CHECK_EQ_INT(traced_binaries__add(tbs, fixture(path, b), NULL, tb), 0);
	if (tbs->n == 2)
		return true;
	traced_binaries__free(tbs);
	return false;
}

/* %v's dynamic types for BPF: DWARF's, or without DWARF the type data's;
 * none for gccgo, and none when no type holds an interface. */
TEST(dyn_types)
{
	struct traced_binaries tbs = { 0 };
	struct traced_binary *tb = NULL, *gccgo = NULL;
	const struct go_dwarf_rtype *types;
	struct value_types vt;
	char path[4096];
	size_t n = 0;

	if (!add_two(&tbs, "values-go1.21-default", "values-gccgo", &tb,
		     &gccgo))
		return;
	CHECK(traced_binaries__has_gccgo(&tbs));
	CHECK_EQ_INT(value_types__init(&vt, 21), 0);
	CHECK_EQ_INT(traced_binaries__add_dyn_types(&tbs, &vt), 0);
	CHECK_EQ_INT(vt.ndyns, 0);	/* no interface among its types */
	vt.has_ifaces = true;
	CHECK_EQ_INT(traced_binaries__add_dyn_types(&tbs, &vt), 0);
	CHECK_EQ_INT(go_dwarf__runtime_types(tb->dw, &types, &n), 0);
	CHECK(n > 100);
	CHECK_EQ_INT(vt.ndyns, n);	/* the gc binary's, none of gccgo's */
	value_types__free(&vt);
	traced_binaries__free(&tbs);

	/* stripped: the type data's descriptors */
	CHECK_EQ_INT(traced_binaries__add(&tbs, fixture(path, "values-go1.21-stripped"),
					  NULL, &tb), 0);
	CHECK(!traced_binaries__has_gccgo(&tbs));
	CHECK(tb && !tb->dw);
	CHECK_EQ_INT(value_types__init(&vt, 21), 0);
	vt.has_ifaces = true;
	CHECK_EQ_INT(traced_binaries__add_dyn_types(&tbs, &vt), 0);
	CHECK(vt.ndyns > 100);
	CHECK(tb && tb->td != NULL);
	value_types__free(&vt);
	traced_binaries__free(&tbs);
}

/* What loading the types' names of TBS (or of TB alone) says on stderr,
 * verbose. */
static const char *stderr_of_load_names(struct traced_binaries *tbs,
					struct traced_binary *tb)
{
	static char out[4096];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n = 0;

	out[0] = '\0';
	if (!f || saved < 0) {
		strcpy(out, "no tmpfile: print as addresses");
		return out;
	}
	fflush(stderr);
	dup2(fileno(f), 2);
	if (tbs)
		traced_binaries__load_names(tbs, true, false, true);
	else
		traced_binary__load_names(tb, true, false, true);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

/* Names are loaded as asked, but for gccgo's types (BPF reads their
 * names). */
TEST(load_names)
{
	struct traced_binaries tbs = { 0 };
	struct traced_binary *gc = NULL, *gccgo = NULL;

	if (!add_two(&tbs, "args-go1.21-default", "args-gccgo", &gc, &gccgo))
		return;
	traced_binaries__load_names(&tbs, false, false, false);
	CHECK(!gc->rtypes && !gc->lines && !gccgo->rtypes && !gccgo->lines);
	/* gccgo's type data is not read: nothing said about it */
	CHECK(!strstr(stderr_of_load_names(&tbs, NULL), "print as addresses"));
	CHECK(gc->rtypes && !gc->lines);
	CHECK(!gccgo->rtypes);
	/* (as it would be if it were) */
	CHECK(strstr(stderr_of_load_names(NULL, gccgo), "print as addresses"));
	traced_binaries__load_names(&tbs, true, true, false);
	CHECK(gc->lines && gccgo->lines);
	traced_binaries__free(&tbs);
}

/* PROBE planned into the fixture's binary TB (added to TBS); its error. */
static int plan(struct traced_binaries *tbs, const char *name,
		const char *text, struct trace_plan_set *s,
		struct trace_probe *probe, struct traced_binary **tb)
{
	char path[4096];
	int err;

	memset(s, 0, sizeof(*s));
	s->str_max = 80;
	*tb = NULL;
	err = trace_probe__parse(text, probe);
	if (err)
		return err;
	err = traced_binaries__add(tbs, fixture(path, name), NULL, tb);
	if (!err)
		err = traced_binary__plan_probe(*tb, s, probe, probe->target,
						false);
	return err;
}

static void unplan(struct traced_binaries *tbs, struct trace_plan_set *s,
		   struct trace_probe *probe)
{
	traced_binaries__free(tbs);
	trace_plan_set__free(s);
	trace_probe__free(probe);
}

/* A probe's functions become rows, their sites the binary's. */
TEST(plan_probe)
{
	struct traced_binaries tbs = { 0 };
	struct trace_plan_set s;
	struct trace_probe probe;
	struct traced_binary *tb;

	CHECK_EQ_INT(plan(&tbs, "values-go1.21-default", "main.showPoint",
			  &s, &probe, &tb), 0);
	CHECK_EQ_INT(s.nrows, 1);
	CHECK(tb && tb->sites.n == 1);
	if (s.nrows == 1 && tb) {
		CHECK_EQ_STR(s.rows[0].func, "main.showPoint");
		CHECK(s.rows[0].bin == tb->bin && !s.rows[0].inlined);
	}
	unplan(&tbs, &s, &probe);

	CHECK(plan(&tbs, "values-go1.21-default", "main.noSuchFunction",
		   &s, &probe, &tb) < 0);
	CHECK(strstr(gt_last_error(), "main.noSuchFunction") != NULL);
	CHECK_EQ_INT(s.nrows, 0);
	unplan(&tbs, &s, &probe);
}

/* main.add is inlined into its callers: its copies are traced at entry,
 * and an r: probe fires at their ends (site/inline_ends.h), a row per
 * copy, or leaves the copy out with its reason. */
TEST(plan_inlined_copies)
{
	struct traced_binaries tbs = { 0 };
	struct trace_plan_set s;
	struct trace_probe probe;
	struct traced_binary *tb;
	size_t i, inlined = 0, ended, entry_rows;

	CHECK_EQ_INT(plan(&tbs, "values-go1.21-default", "main.add", &s,
			  &probe, &tb), 0);
	for (i = 0; i < s.nrows; i++)
		inlined += s.rows[i].inlined;
	CHECK(inlined >= 1);
	entry_rows = s.nrows;
	unplan(&tbs, &s, &probe);

	CHECK_EQ_INT(plan(&tbs, "values-go1.21-default", "r:main.add", &s,
			  &probe, &tb), 0);
	for (i = 0, ended = 0; i < s.nrows; i++)
		ended += s.rows[i].inlined;
	CHECK(ended >= 1);
	CHECK_EQ_INT(ended + s.left_out.count[LEFT_OUT_INLINED_END], inlined);
	CHECK_EQ_INT(s.nrows, entry_rows);
	CHECK(tb && tb->sites.n >= s.nrows);
	unplan(&tbs, &s, &probe);
}

/* A conversion needs the type data: opened for it (stripped binaries
 * too), an error for gccgo, whose type descriptors differ. */
TEST(plan_conversion)
{
	static const char *const text = "main.showPoint \"%v\" (main.point)(goarg1)";
	struct traced_binaries tbs = { 0 };
	struct trace_plan_set s;
	struct trace_probe probe;
	struct traced_binary *tb;

	CHECK_EQ_INT(plan(&tbs, "values-go1.21-stripped", text, &s, &probe,
			  &tb), 0);
	CHECK(tb && tb->td != NULL);
	CHECK_EQ_INT(s.nrows, 1);
	unplan(&tbs, &s, &probe);

	/* with DWARF too */
	CHECK_EQ_INT(plan(&tbs, "values-go1.21-default", text, &s, &probe,
			  &tb), 0);
	CHECK(tb && tb->td != NULL);
	unplan(&tbs, &s, &probe);

	/* without a conversion, a binary with DWARF needs no type data */
	CHECK_EQ_INT(plan(&tbs, "values-go1.21-default",
			  "main.showPoint \"%v\" goarg1", &s, &probe, &tb), 0);
	CHECK(tb && tb->td == NULL);
	unplan(&tbs, &s, &probe);

	CHECK(plan(&tbs, "values-gccgo", text, &s, &probe, &tb) < 0);
	CHECK_EQ_INT(s.nrows, 0);
	unplan(&tbs, &s, &probe);
}

int main(void)
{
	RUN(one_binary_per_path);
	RUN(callers_binary_stays_open);
	RUN(errors);
	RUN(too_many_binaries);
	RUN(placement);
	RUN(type_names);
	RUN(fmt_methods);
	RUN(dyn_types);
	RUN(load_names);
	RUN(plan_probe);
	RUN(plan_inlined_copies);
	RUN(plan_conversion);
	return TEST_SUMMARY();
}
