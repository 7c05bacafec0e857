// SPDX-License-Identifier: MIT
/*
 * Types from the runtime type data against DWARF, the independent oracle:
 * every type whose descriptor DWARF names (DW_AT_go_runtime_type) decodes
 * from the type data alone to the same type (kind, size, alignment,
 * fields with their names and offsets, elements, keys, lengths), on every
 * Go version, PIE and cgo; and the stripped twin of a fixture, which has
 * the same type data, decodes the same types.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_dwarf.h"
#include "goabi/go_typedata.h"
#include "gobin/go_rtype.h"
#include "test.h"

static const char *const fixtures[] = {
	"values-go1.15-default", "values-go1.19-default", "values-go1.21-default",
	"values-go1.23-default", "values-go1.25-default", "values-go1.27-default",
	"values-go1.15-pie", "values-go1.27-pie", "args-go1.21-cgo",
	"args-go1.27-default",
};

/* Where gc's DWARF says less than the type data, which holds: DWARF has
 * no alignments (a zero-size struct's, such as atomic.align64's 8, is
 * guessed 1), and takes a generic shape's interface{} for one with
 * methods. */
static bool dwarf_departs(const struct go_type *a, const struct go_type *b)
{
	if (!a->size && !b->size && a->kind == b->kind)
		return true;
	return a->name && !strncmp(a->name, "go.shape.interface", 18) &&
	       a->kind == GO_KIND_IFACE && b->kind == GO_KIND_EFACE;
}

/* The same type, as far as DEPTH levels down; WHY says where not. */
static bool same(const struct go_type *a, const struct go_type *b, int depth,
		 char *why, size_t len)
{
	size_t i;

	if (!a || !b)
		return a == b || depth <= 0;
	if (depth <= 0 || dwarf_departs(a, b))
		return true;
	if (a->kind != b->kind || a->size != b->size || a->align != b->align ||
	    a->len != b->len || a->nfields != b->nfields) {
		snprintf(why, len, "%s: kind %d/%d size %llu/%llu align %u/%u fields %zu/%zu",
			 a->name ? a->name : "?", a->kind, b->kind,
			 (unsigned long long)a->size, (unsigned long long)b->size,
			 a->align, b->align, a->nfields, b->nfields);
		return false;
	}
	for (i = 0; i < a->nfields; i++) {
		if (strcmp(a->fields[i].name ? a->fields[i].name : "",
			   b->fields[i].name ? b->fields[i].name : "") ||
		    a->fields[i].offset != b->fields[i].offset) {
			snprintf(why, len, "%s: field %zu %s/%s at %llu/%llu",
				 a->name ? a->name : "?", i, a->fields[i].name,
				 b->fields[i].name,
				 (unsigned long long)a->fields[i].offset,
				 (unsigned long long)b->fields[i].offset);
			return false;
		}
		if (!same(a->fields[i].type, b->fields[i].type, depth - 1, why, len))
			return false;
	}
	if (a->kind == GO_KIND_MAP && !same(a->key, b->key, depth - 1, why, len))
		return false;
	return a->kind == GO_KIND_PTR ? true :
	       same(a->elem, b->elem, depth - 1, why, len);
}

struct opened {
	struct go_binary *bin;
	struct go_rtypes *r;
	struct go_typedata *td;
};

static int open_types(const char *name, struct opened *o)
{
	memset(o, 0, sizeof(*o));
	if (go_binary__open(test_fixture(name), &o->bin) ||
	    go_rtypes__open(o->bin, &o->r) ||
	    go_typedata__open(o->bin, o->r, &o->td)) {
		fprintf(stderr, "%s: %s\n", name, gt_last_error());
		CHECK(!"cannot open the fixture's type data");
		return -1;
	}
	return 0;
}

static void close_types(struct opened *o)
{
	go_typedata__close(o->td);
	go_rtypes__close(o->r);
	go_binary__close(o->bin);
}

TEST(against_dwarf)
{
	const struct go_dwarf_rtype *rt;
	const struct go_type *t;
	struct go_dwarf *dw;
	struct opened o;
	char why[512];
	size_t i, k, n, ok, differ, none;
	int err;

	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		if (open_types(fixtures[i], &o))
			continue;
		CHECK_EQ_INT(go_dwarf__open(o.bin, &dw), 0);
		CHECK_EQ_INT(go_dwarf__runtime_types(dw, &rt, &n), 0);
		for (k = 0, ok = 0, differ = 0, none = 0; k < n; k++) {
			err = go_typedata__type(o.td, go_rtypes__start(o.r) + rt[k].offset,
						&t);
			/* DWARF names a few places that hold no type (uintptr's
			 * offset points past the type data): refused */
			if (err == -ENOENT) {
				none++;
				continue;
			}
			if (err) {
				fprintf(stderr, "%s: %s: %s\n", fixtures[i],
					rt[k].type->name, gt_last_error());
				differ++;
				continue;
			}
			if (same(rt[k].type, t, 4, why, sizeof(why))) {
				ok++;
				continue;
			}
			fprintf(stderr, "%s: %s\n", fixtures[i], why);
			differ++;
		}
		printf("%s: %zu types as DWARF has them, %zu differ, %zu not types\n",
		       fixtures[i], ok, differ, none);
		CHECK(ok > 200);
		CHECK_EQ_INT(differ, 0);
		CHECK(none <= 2);
		go_dwarf__close(dw);
		close_types(&o);
	}
}

/* A stripped build has the same type data: every type DWARF names in the
 * default build decodes alike in the stripped one, at the same offset. */
TEST(stripped_twin)
{
	const char *pairs[][2] = {
		{ "args-go1.27-default", "args-go1.27-stripped" },
		{ "args-go1.15-default", "args-go1.15-stripped" },
	};
	const struct go_dwarf_rtype *rt;
	const struct go_type *a, *b;
	struct opened d, s;
	struct go_dwarf *dw;
	char why[512];
	size_t i, k, n, ok;

	for (i = 0; i < 2; i++) {
		if (open_types(pairs[i][0], &d))
			continue;
		if (open_types(pairs[i][1], &s)) {
			close_types(&d);
			continue;
		}
		CHECK_EQ_INT(go_dwarf__open(d.bin, &dw), 0);
		CHECK_EQ_INT(go_dwarf__runtime_types(dw, &rt, &n), 0);
		for (k = 0, ok = 0; k < n; k++) {
			if (go_typedata__type(d.td, go_rtypes__start(d.r) + rt[k].offset, &a))
				continue;
			CHECK_EQ_INT(go_typedata__type(s.td, go_rtypes__start(s.r) +
						       rt[k].offset, &b), 0);
			if (b && same(a, b, 4, why, sizeof(why)) &&
			    !strcmp(a->name, b->name))
				ok++;
			else
				fprintf(stderr, "%s: %s\n", pairs[i][1], why);
		}
		printf("%s: %zu types as in %s\n", pairs[i][1], ok, pairs[i][0]);
		CHECK(ok > 200);
		go_dwarf__close(dw);
		close_types(&s);
		close_types(&d);
	}
}

/* Method signatures from method tables against DWARF's signature of the
 * same function: receiver, parameters and results alike wherever DWARF
 * lists them all. */
TEST(methods)
{
	const char *names[] = { "values-go1.15-default", "values-go1.21-default",
				"values-go1.27-default", "values-go1.27-pie" };
	struct go_method_sig m;
	struct go_dwarf_sig sig;
	struct go_dwarf *dw;
	struct opened o;
	char why[512];
	size_t i, k, j, ok, differ, greet;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (open_types(names[i], &o))
			continue;
		CHECK_EQ_INT(go_dwarf__open(o.bin, &dw), 0);
		for (k = 0, ok = 0, differ = 0, greet = 0; k < o.bin->nfuncs; k++) {
			const struct go_func *f = &o.bin->funcs[k];
			bool same_sig = true;

			if (go_typedata__method(o.td, o.bin, f->addr, &m))
				continue;
			greet += !strcmp(f->name, "main.(*english).Greet");
			if (go_dwarf__func_sig(dw, f->addr, &sig) ||
			    sig.nparams != m.nparams + 1 || sig.nresults != m.nresults)
				continue;	/* DWARF leaves some out */
			same_sig = same(sig.params[0].type, m.recv, 2, why, sizeof(why));
			for (j = 0; j < m.nparams && same_sig; j++)
				same_sig = same(sig.params[j + 1].type, m.params[j], 2,
						why, sizeof(why));
			for (j = 0; j < m.nresults && same_sig; j++)
				same_sig = same(sig.results[j].type, m.results[j], 2,
						why, sizeof(why));
			if (same_sig) {
				ok++;
			} else {
				differ++;
				fprintf(stderr, "%s: %s: %s\n", names[i], f->name, why);
			}
		}
		printf("%s: %zu method signatures as DWARF has them, %zu differ\n",
		       names[i], ok, differ);
		CHECK(ok > 50);
		CHECK_EQ_INT(differ, 0);
		CHECK_EQ_INT(greet, 1);
		go_dwarf__close(dw);
		close_types(&o);
	}
}

/* Not a type: refused with a reason, never a guess. */
TEST(refuses)
{
	const struct go_type *t;
	struct opened o;

	if (open_types("args-go1.27-stripped", &o))
		return;
	CHECK(go_typedata__type(o.td, 8, &t) < 0);
	CHECK(!t);
	CHECK(go_typedata__type(o.td, go_rtypes__start(o.r) + 3, &t) < 0);
	close_types(&o);
}

int main(void)
{
	RUN(against_dwarf);
	RUN(stripped_twin);
	RUN(methods);
	RUN(refuses);
	return TEST_SUMMARY();
}
