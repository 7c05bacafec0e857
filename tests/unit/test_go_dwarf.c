// SPDX-License-Identifier: MIT
/*
 * Tests for go_dwarf: Go signatures and types from DWARF.
 *
 * Ground truth, all independent of the code under test:
 *  - the args fixture's sources (tests/fixtures/args/): names, types,
 *    struct fields, and their offsets by Go's amd64 layout rules;
 *  - the sources of the Go toolchains (/var/cache/gotools/go/1.NN/src) for
 *    the few standard-library functions checked;
 *  - where the compiler put each value of a shape instantiation, read off
 *    the fixtures with llvm-dwarfdump (the location of x and y at the
 *    entry), which says where the hidden `.dict` goes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "gobin/go_binary.h"
#include "goabi/go_dwarf.h"
#include "gobin/go_rtype.h"
#include "test.h"

static const char *const gc_fixtures[] = {
	"args-go1.15-default", "args-go1.19-default", "args-go1.21-default",
	"args-go1.23-default", "args-go1.25-default", "args-go1.27-default",
	"args-go1.27-pie", "args-go1.15-pie", "args-go1.21-cgo",
};

struct fixture {
	struct go_binary *bin;
	struct go_dwarf *d;
};

static int open_fixture(const char *name, struct fixture *f)
{
	int err;

	memset(f, 0, sizeof(*f));
	err = go_binary__open(test_fixture(name), &f->bin);
	if (err) {
		fprintf(stderr, "%s: %s\n", name, gt_last_error());
		CHECK(!"fixture missing");
		return err;
	}
	err = go_dwarf__open(f->bin, &f->d);
	if (err) {
		fprintf(stderr, "%s: %s\n", name, gt_last_error());
		CHECK(!"go_dwarf__open failed");
		go_binary__close(f->bin);
		f->bin = NULL;
	}
	return err;
}

static void close_fixture(struct fixture *f)
{
	go_dwarf__close(f->d);
	go_binary__close(f->bin);
}

/* The signature of function NAME; false (and a failed check) if none. */
static bool sig_of(struct fixture *f, const char *name,
		   struct go_dwarf_sig *sig)
{
	const struct go_func *fn = go_binary__func_by_name(f->bin, name);
	int err;

	memset(sig, 0, sizeof(*sig));
	if (!fn) {
		fprintf(stderr, "%s: no function %s\n", f->bin->elf->path,
			name);
		CHECK(!"function missing");
		return false;
	}
	err = go_dwarf__func_sig(f->d, fn->addr, sig);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", f->bin->elf->path, name,
			gt_last_error());
		CHECK_EQ_INT(err, 0);
		return false;
	}
	return true;
}

#define CHECK_TYPE(t, k, sz) do {					\
	CHECK((t) != NULL);						\
	if (t) {							\
		CHECK_EQ_INT((t)->kind, k);				\
		CHECK_EQ_INT((t)->size, sz);				\
		CHECK_EQ_INT(go_type__check(t), 0);			\
	}								\
} while (0)

#define CHECK_VAR(v, n, k, sz) do {					\
	CHECK_EQ_STR((v).name, n);					\
	CHECK_TYPE((v).type, k, sz);					\
} while (0)

/* What the args fixture declares, on every compiler. */
static void check_args_sigs(struct fixture *f, bool gccgo)
{
	const struct go_type *t;
	struct go_dwarf_sig s;
	enum go_abi abi = gccgo ? GO_ABI_C : f->bin->abi;

	/* func addInts(x, y int) int */
	if (sig_of(f, "main.addInts", &s)) {
		CHECK_EQ_INT(s.nparams, 2);
		CHECK_EQ_INT(s.nresults, 1);
		if (s.nparams == 2 && s.nresults == 1) {
			CHECK_VAR(s.params[0], "x", GO_KIND_INT, 8);
			CHECK_VAR(s.params[1], "y", GO_KIND_INT, 8);
			CHECK_TYPE(s.results[0].type, GO_KIND_INT, 8);
		}
		CHECK_EQ_INT(s.c_result_size, gccgo ? 8 : 0);
		CHECK_EQ_INT(s.abi, abi);
	}
	/* func greet(name string, n int) string */
	if (sig_of(f, "main.greet", &s)) {
		CHECK_EQ_INT(s.nparams, 2);
		CHECK_EQ_INT(s.nresults, 1);
		if (s.nparams == 2 && s.nresults == 1) {
			CHECK_VAR(s.params[0], "name", GO_KIND_STRING, 16);
			CHECK_VAR(s.params[1], "n", GO_KIND_INT, 8);
			CHECK_TYPE(s.results[0].type, GO_KIND_STRING, 16);
		}
		CHECK_EQ_INT(s.c_result_size, gccgo ? 16 : 0);
		CHECK_EQ_INT(s.abi, abi);
	}
	/* type pair struct { a int; s string }; func splitStruct(p pair,
	 * k int) int */
	if (sig_of(f, "main.splitStruct", &s))
		CHECK_EQ_INT(s.nparams, 2);
	if (s.nparams == 2) {
		CHECK_VAR(s.params[0], "p", GO_KIND_STRUCT, 24);
		t = s.params[0].type;
		if (t) {
			CHECK_EQ_STR(t->name, "main.pair");
			CHECK_EQ_INT(t->nfields, 2);
		}
		if (t && t->nfields == 2) {
			CHECK_EQ_STR(t->fields[0].name, "a");
			CHECK_EQ_INT(t->fields[0].offset, 0);
			CHECK_TYPE(t->fields[0].type, GO_KIND_INT, 8);
			CHECK_EQ_STR(t->fields[1].name, "s");
			CHECK_EQ_INT(t->fields[1].offset, 8);
			CHECK_TYPE(t->fields[1].type, GO_KIND_STRING, 16);
		}
	}
	/* func stackArray(v [3]int, k int) int */
	if (sig_of(f, "main.stackArray", &s))
		CHECK_EQ_INT(s.nparams, 2);
	if (s.nparams == 2) {
		CHECK_VAR(s.params[0], "v", GO_KIND_ARRAY, 24);
		t = s.params[0].type;
		if (t) {
			CHECK_EQ_STR(t->name, "[3]int");
			CHECK_EQ_INT(t->len, 3);
			CHECK_TYPE(t->elem, GO_KIND_INT, 8);
		}
	}
	/* type counter struct{ n int }; func (c *counter) add(d int) int */
	if (sig_of(f, gccgo ? "main.counter.add" : "main.(*counter).add",
		   &s)) {
		CHECK_EQ_INT(s.nparams, 2);
		CHECK_EQ_INT(s.nresults, 1);
		if (s.nparams == 2) {
			CHECK_VAR(s.params[0], "c", GO_KIND_PTR, 8);
			CHECK_VAR(s.params[1], "d", GO_KIND_INT, 8);
		}
		t = s.nparams ? s.params[0].type : NULL;
		if (t) {
			CHECK_EQ_STR(t->name, "*main.counter");
			t = t->elem;
			CHECK_TYPE(t, GO_KIND_STRUCT, 8);
		}
		if (t) {
			CHECK_EQ_STR(t->name, "main.counter");
			CHECK_EQ_INT(t->nfields, 1);
			if (t->nfields == 1) {
				CHECK_EQ_STR(t->fields[0].name, "n");
				CHECK_EQ_INT(t->fields[0].offset, 0);
				CHECK_TYPE(t->fields[0].type, GO_KIND_INT, 8);
			}
		}
	}
	/* func byteLen(b []byte, extra int) int */
	if (sig_of(f, "main.byteLen", &s))
		CHECK_EQ_INT(s.nparams, 2);
	if (s.nparams == 2) {
		CHECK_VAR(s.params[0], "b", GO_KIND_SLICE, 24);
		t = s.params[0].type;
		if (t) {
			CHECK_EQ_STR(t->name, "[]uint8");
			CHECK_TYPE(t->elem, GO_KIND_UINT, 1);
		}
	}
	/* func describe(s string, n int) (string, int, bool) */
	if (sig_of(f, "main.describe", &s)) {
		CHECK_EQ_INT(s.nparams, 2);
		CHECK_EQ_INT(s.nresults, 3);
		if (s.nresults == 3) {
			CHECK_TYPE(s.results[0].type, GO_KIND_STRING, 16);
			CHECK_TYPE(s.results[1].type, GO_KIND_INT, 8);
			CHECK_TYPE(s.results[2].type, GO_KIND_BOOL, 1);
		}
		/* gccgo returns struct { string; int; bool } */
		CHECK_EQ_INT(s.c_result_size, gccgo ? 32 : 0);
	}
	/* func minMax(xs []int) (lo, hi int) */
	if (sig_of(f, "main.minMax", &s)) {
		CHECK_EQ_INT(s.nparams, 1);
		CHECK_EQ_INT(s.nresults, 2);
		if (s.nresults == 2) {
			CHECK_VAR(s.results[0], "lo", GO_KIND_INT, 8);
			CHECK_VAR(s.results[1], "hi", GO_KIND_INT, 8);
		}
		CHECK_EQ_INT(s.c_result_size, gccgo ? 16 : 0);
	}
	/* type celsius int; func (c celsius) toF(scale int) int. gccgo
	 * passes a value receiver by reference, and DWARF says so. */
	if (sig_of(f, "main.celsius.toF", &s))
		CHECK_EQ_INT(s.nparams, 2);
	if (s.nparams == 2) {
		t = s.params[0].type;
		if (gccgo) {
			CHECK_VAR(s.params[0], "pointer", GO_KIND_PTR, 8);
			t = t ? t->elem : NULL;
		} else {
			CHECK_EQ_STR(s.params[0].name, "c");
		}
		CHECK_TYPE(t, GO_KIND_INT, 8);
		if (t)
			CHECK_EQ_STR(t->name, "main.celsius");
		CHECK_VAR(s.params[1], "scale", GO_KIND_INT, 8);
	}
	/* type url struct{ Host, Path string }; type request struct {
	 * Method string; URL *url; Body []byte; ID int }; handle(r *request):
	 * the chain r.URL.Path */
	if (sig_of(f, "main.handle", &s))
		CHECK_EQ_INT(s.nparams, 1);
	if (s.nparams == 1) {
		CHECK_VAR(s.params[0], "r", GO_KIND_PTR, 8);
		t = s.params[0].type ? s.params[0].type->elem : NULL;
		CHECK_TYPE(t, GO_KIND_STRUCT, 56);
		if (t && t->nfields == 4) {
			CHECK_EQ_STR(t->fields[1].name, "URL");
			CHECK_EQ_INT(t->fields[1].offset, 16);
			CHECK_EQ_STR(t->fields[2].name, "Body");
			CHECK_EQ_INT(t->fields[2].offset, 24);
			CHECK_EQ_INT(t->fields[3].offset, 48);
			t = t->fields[1].type;
			CHECK_TYPE(t, GO_KIND_PTR, 8);
			t = t ? t->elem : NULL;
			CHECK_TYPE(t, GO_KIND_STRUCT, 32);
		} else {
			CHECK(!"main.request has 4 fields");
			t = NULL;
		}
		if (t)
			CHECK_EQ_INT(t->nfields, 2);
		if (t && t->nfields == 2) {
			CHECK_EQ_STR(t->fields[1].name, "Path");
			CHECK_EQ_INT(t->fields[1].offset, 16);
			CHECK_TYPE(t->fields[1].type, GO_KIND_STRING, 16);
		}
	}
	/* func ifaces(e interface{}, err error) int */
	if (sig_of(f, "main.ifaces", &s))
		CHECK_EQ_INT(s.nparams, 2);
	if (s.nparams == 2) {
		CHECK_VAR(s.params[0], "e", GO_KIND_EFACE, 16);
		CHECK_VAR(s.params[1], "err", GO_KIND_IFACE, 16);
	}
}

TEST(gc_signatures)
{
	for (size_t i = 0; i < sizeof(gc_fixtures) / sizeof(*gc_fixtures);
	     i++) {
		struct fixture f;

		if (open_fixture(gc_fixtures[i], &f))
			continue;
		check_args_sigs(&f, false);
		close_fixture(&f);
	}
}

TEST(gccgo_signatures)
{
	struct go_dwarf_sig s;
	struct fixture f;

	if (open_fixture("args-gccgo", &f))
		return;
	check_args_sigs(&f, true);
	/* func divmod(x, y int) (int, int): unnamed results, by position */
	if (sig_of(&f, "main.divmod", &s))
		CHECK_EQ_INT(s.nresults, 2);
	if (s.nresults == 2) {
		CHECK_VAR(s.results[0], "~r0", GO_KIND_INT, 8);
		CHECK_VAR(s.results[1], "~r1", GO_KIND_INT, 8);
	}
	/* func greet(...) string: one result, no struct */
	if (sig_of(&f, "main.greet", &s))
		CHECK_EQ_INT(s.nresults, 1);
	if (s.nresults == 1)
		CHECK_EQ_STR(s.results[0].name, "~r0");
	close_fixture(&f);
}

TEST(stripped)
{
	static const char *const names[] = {
		"args-go1.15-stripped", "args-go1.21-stripped",
		"args-go1.27-stripped", "count-go1.19-stripped",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct go_binary *bin;
		struct go_dwarf *d = (struct go_dwarf *)1;

		if (go_binary__open(test_fixture(names[i]), &bin)) {
			fprintf(stderr, "%s: %s\n", names[i], gt_last_error());
			CHECK(!"fixture missing");
			continue;
		}
		CHECK_EQ_INT(go_dwarf__open(bin, &d), -ENOENT);
		CHECK(d == NULL);
		go_binary__close(bin);
	}
}

/* Go 1.15 compresses DWARF into .zdebug_* sections, which the other
 * tests then read: make sure they do. */
TEST(zdebug_fixture)
{
	struct go_binary *bin;
	GElf_Shdr shdr;

	if (go_binary__open(test_fixture("args-go1.15-default"), &bin)) {
		CHECK(!"fixture missing");
		return;
	}
	CHECK(elf_file__section(bin->elf, ".zdebug_info", &shdr) != NULL);
	CHECK(elf_file__section(bin->elf, ".debug_info", &shdr) == NULL);
	go_binary__close(bin);
}

/* A set of the type nodes seen, to walk graphs with cycles. */
struct seen {
	const struct go_type **slots;
	size_t cap, n;
};

static bool seen_add(struct seen *s, const struct go_type *t)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		struct seen bigger = { .cap = s->cap ? s->cap * 2 : 1024 };

		bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
		if (!bigger.slots)
			abort();
		for (i = 0; i < s->cap; i++)
			if (s->slots[i])
				seen_add(&bigger, s->slots[i]);
		free(s->slots);
		*s = bigger;
	}
	i = ((uintptr_t)t >> 4) & (s->cap - 1);
	while (s->slots[i]) {
		if (s->slots[i] == t)
			return false;
		i = (i + 1) & (s->cap - 1);
	}
	s->slots[i] = t;
	s->n++;
	return true;
}

/* Check T and every type it reaches, through pointers too. Returns the
 * number of types failing go_type__check(). */
static int check_graph(struct seen *s, const struct go_type *t)
{
	int bad = 0;

	if (!t || !seen_add(s, t))
		return 0;
	if (go_type__check(t)) {
		fprintf(stderr, "type %s: %s\n", t->name ?: "?",
			gt_last_error());
		bad++;
	}
	bad += check_graph(s, t->elem);
	for (size_t i = 0; i < t->nfields; i++)
		bad += check_graph(s, t->fields[i].type);
	return bad;
}

/* Every function of every fixture: each type returned passes
 * go_type__check(), and almost every value has one. */
TEST(every_type_checks)
{
	static const char *const more[] = {
		"args-gccgo", "count-gccgo", "latency-go1.23-default",
	};
	size_t n = sizeof(gc_fixtures) / sizeof(*gc_fixtures);

	for (size_t i = 0; i < n + sizeof(more) / sizeof(*more); i++) {
		const char *name = i < n ? gc_fixtures[i] : more[i - n];
		struct seen seen = { 0 };
		size_t sigs = 0, vars = 0, untyped = 0;
		struct go_dwarf_sig s;
		struct fixture f;
		int bad = 0;

		if (open_fixture(name, &f))
			continue;
		for (size_t j = 0; j < f.bin->nfuncs; j++) {
			if (go_dwarf__func_sig(f.d, f.bin->funcs[j].addr, &s))
				continue;
			sigs++;
			for (size_t k = 0; k < s.nparams + s.nresults; k++) {
				const struct go_type *t = k < s.nparams ?
					s.params[k].type :
					s.results[k - s.nparams].type;

				vars++;
				untyped += !t;
				bad += check_graph(&seen, t);
			}
		}
		if (bad || untyped * 100 > vars || sigs * 2 < f.bin->nfuncs)
			fprintf(stderr, "%s: %zu of %zu functions, %zu of %zu "
				"values untyped, %d bad types\n", name, sigs,
				f.bin->nfuncs, untyped, vars, bad);
		CHECK_EQ_INT(bad, 0);
		CHECK(untyped * 100 <= vars);
		CHECK(sigs * 2 >= f.bin->nfuncs);
		free(seen.slots);
		close_fixture(&f);
	}
}

/*
 * Shape instantiations take `.dict` where go_abi__dict_position() says:
 * llvm-dwarfdump shows x in RBX and y in RCX at the entry of
 * main.maxOf[go.shape.int] (1.19: [go.shape.int_0]), so `.dict` takes RAX.
 * Go 1.27 lists `.dict` in DWARF, older ones do not.
 */
TEST(shape_dict)
{
	static const char *const names[] = {
		"args-go1.19-default", "args-go1.21-default",
		"args-go1.25-default", "args-go1.27-default",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		const struct go_type *types[3];
		struct go_abi_layout layout;
		struct go_abi_sig as = { 0 };
		const struct go_func *fn = NULL;
		struct go_dwarf_sig s;
		struct fixture f;

		if (open_fixture(names[i], &f))
			continue;
		for (size_t j = 0; j < f.bin->nfuncs && !fn; j++)
			if (!strncmp(f.bin->funcs[j].name,
				     "main.maxOf[go.shape.int", 23))
				fn = &f.bin->funcs[j];
		CHECK(fn != NULL);
		if (!fn || go_dwarf__func_sig(f.d, fn->addr, &s)) {
			CHECK(!"no signature of main.maxOf");
			close_fixture(&f);
			continue;
		}
		CHECK_EQ_INT(s.nparams, 3);
		CHECK_EQ_INT(s.nresults, 1);
		CHECK_EQ_INT(s.abi, GO_ABI_REGISTER);
		if (s.nparams == 3) {
			CHECK_VAR(s.params[0], ".dict", GO_KIND_PTR, 8);
			CHECK_VAR(s.params[1], "x", GO_KIND_INT, 8);
			CHECK_VAR(s.params[2], "y", GO_KIND_INT, 8);
			for (size_t k = 0; k < 3; k++)
				types[k] = s.params[k].type;
			as.params = types;
			as.nparams = 3;
			as.dict = GO_DICT_NONE;
			CHECK_EQ_INT(go_abi__assign(GO_ABI_REGISTER, &as,
						    &layout), 0);
			CHECK_EQ_INT(layout.args[0].pieces[0].reg, GO_REG_RAX);
			CHECK_EQ_INT(layout.args[1].pieces[0].reg, GO_REG_RBX);
			CHECK_EQ_INT(layout.args[2].pieces[0].reg, GO_REG_RCX);
			go_abi_layout__free(&layout);
		}
		close_fixture(&f);
	}
}

/*
 * main.(*codeErr).Error is the compiler's wrapper of codeErr.Error. Go
 * 1.15-1.22 leave its receiver out of DWARF; it comes back typed *codeErr
 * (unnamed), Go 1.23+ list it as c.
 */
TEST(wrapper_receiver)
{
	static const char *const names[] = {
		"args-go1.15-default", "args-go1.21-default",
		"args-go1.27-default",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct go_dwarf_sig s;
		struct fixture f;

		if (open_fixture(names[i], &f))
			continue;
		if (sig_of(&f, "main.(*codeErr).Error", &s)) {
			CHECK_EQ_INT(s.nparams, 1);
			CHECK_EQ_INT(s.nresults, 1);
			CHECK_EQ_INT(s.abi, f.bin->abi);
		}
		if (s.nparams == 1) {
			CHECK_EQ_STR(s.params[0].name, i < 2 ? "" : "c");
			CHECK_TYPE(s.params[0].type, GO_KIND_PTR, 8);
		}
		if (s.nparams == 1 && s.params[0].type) {
			CHECK_EQ_STR(s.params[0].type->name, "*main.codeErr");
			CHECK_TYPE(s.params[0].type->elem, GO_KIND_INT, 8);
		}
		close_fixture(&f);
	}
}

/*
 * The frame check against the pclntab (go_dwarf_sig.abi), on the standard
 * library in the fixtures:
 *  - internal/bytealg.countGeneric(b []byte, c byte) int has an ABI0
 *    wrapper (.abi0 in .symtab) with the same DWARF: stack ABI;
 *  - cgo's main._Cfunc_gotools_one() (r1 _Ctype_int) exists in ABI0 only
 *    (nm shows main._Cfunc_gotools_one.abi0);
 *  - internal/bytealg.IndexByteString is assembly (indexbyte_amd64.s):
 *    DWARF has no parameters for it, unknown;
 *  - Go 1.21's func(s any, _ uintptr) in (*scavengerState).init
 *    (runtime/mgcscavenge.go) loses `_` in DWARF: unknown; Go 1.27 names
 *    its two blank parameters ~p1 ~p2.
 */
TEST(frame_abi)
{
	struct go_dwarf_sig s;
	struct fixture f;

	if (open_fixture("args-go1.27-default", &f) == 0) {
		int twins = 0, stack = 0;

		/* go_binary names both twins internal/bytealg.countGeneric */
		for (size_t i = 0; i < f.bin->nfuncs; i++) {
			const struct go_func *fn = &f.bin->funcs[i];

			if (strcmp(fn->name, "internal/bytealg.countGeneric"))
				continue;
			twins++;
			CHECK_EQ_INT(go_dwarf__func_sig(f.d, fn->addr, &s), 0);
			CHECK_EQ_INT(s.nparams, 2);
			CHECK_EQ_INT(s.nresults, 1);
			CHECK(s.abi == GO_ABI_STACK ||
			      s.abi == GO_ABI_REGISTER);
			stack += s.abi == GO_ABI_STACK;
		}
		CHECK_EQ_INT(twins, 2);
		CHECK_EQ_INT(stack, 1);
		if (sig_of(&f, "internal/bytealg.IndexByteString", &s))
			CHECK_EQ_INT(s.abi, GO_ABI_UNKNOWN);
		if (sig_of(&f, "runtime.(*scavengerState).init.func1", &s)) {
			CHECK_EQ_INT(s.abi, GO_ABI_REGISTER);
			CHECK_EQ_INT(s.nparams, 3);
		}
		close_fixture(&f);
	}
	if (open_fixture("args-go1.21-cgo", &f) == 0) {
		if (sig_of(&f, "main._Cfunc_gotools_one", &s)) {
			CHECK_EQ_INT(s.abi, GO_ABI_STACK);
			CHECK_EQ_INT(s.nparams, 0);
			CHECK_EQ_INT(s.nresults, 1);
		}
		if (s.nresults == 1)
			CHECK_VAR(s.results[0], "r1", GO_KIND_INT, 4);
		close_fixture(&f);
	}
	if (open_fixture("args-go1.21-default", &f) == 0) {
		if (sig_of(&f, "runtime.(*scavengerState).init.func1", &s)) {
			CHECK_EQ_INT(s.abi, GO_ABI_UNKNOWN);
			CHECK_EQ_INT(s.nparams, 1);
		}
		close_fixture(&f);
	}
}

/* Go 1.18-1.25 list the results of internal/poll.(*FD).Write(p []byte)
 * (int, error) twice (golang/go#61357): they come once. */
TEST(duplicate_results)
{
	for (size_t i = 1; i < 7; i++) {
		struct go_dwarf_sig s;
		struct fixture f;

		if (open_fixture(gc_fixtures[i], &f))
			continue;
		if (sig_of(&f, "internal/poll.(*FD).Write", &s)) {
			CHECK_EQ_INT(s.abi, GO_ABI_REGISTER);
			CHECK_EQ_INT(s.nparams, 2);
			CHECK_EQ_INT(s.nresults, 2);
		}
		if (s.nresults == 2) {
			CHECK_VAR(s.results[0], "~r0", GO_KIND_INT, 8);
			CHECK_VAR(s.results[1], "~r1", GO_KIND_IFACE, 16);
		}
		close_fixture(&f);
	}
}

TEST(lookup)
{
	const struct go_func *fn;
	struct go_dwarf_sig s, again;
	struct fixture f;

	if (open_fixture("args-go1.21-default", &f))
		return;
	fn = go_binary__func_by_name(f.bin, "main.greet");
	CHECK(fn != NULL);
	if (fn) {
		CHECK_EQ_INT(go_dwarf__func_sig(f.d, fn->addr + 1, &s),
			     -ENOENT);
		CHECK_EQ_INT(go_dwarf__func_sig(f.d, fn->addr, &s), 0);
		CHECK_EQ_INT(go_dwarf__func_sig(f.d, fn->addr, &again), 0);
		/* Built once, kept: the same arrays and types. */
		CHECK(s.params == again.params);
		CHECK(s.nparams && s.params[0].type == again.params[0].type);
	}
	CHECK_EQ_INT(go_dwarf__func_sig(f.d, 0, &s), -ENOENT);
	close_fixture(&f);
}

/*
 * Member offsets by name, against the fixture's sources and Go's amd64
 * layout (request: Method string, URL *url, Body []byte, ID int; rect:
 * pts [2]int, w int) and runtime2.go (g starts with stack {lo, hi}).
 * Only values are followed: not pointers, not what is no structure.
 */
TEST(member_offset)
{
	static const struct {
		const char *type, *path;
		uint64_t off;
	} want[] = {
		{ "main.request", "Method", 0 },
		{ "main.request", "URL", 16 },
		{ "main.request", "Body", 24 },
		{ "main.request", "ID", 48 },
		{ "main.rect", "w", 16 },
		{ "runtime.g", "stack", 0 },
		{ "runtime.g", "stack.hi", 8 },
		{ "runtime.stack", "hi", 8 },
	};
	static const struct {
		const char *type, *path, *why;
	} missing[] = {
		{ "main.nosuch", "x", "no type main.nosuch" },
		{ "main.request", "Nope", "main.request has no member Nope" },
		{ "main.request", "ID.x", "main.request has no member ID.x" },
		{ "main.request", "URL.Path", "has no member URL.Path" },
		{ "runtime.g", "stack.mid", "runtime.g has no member stack.mid" },
		{ "runtime.g", "", "runtime.g has no member " },
	};
	struct fixture f;
	uint64_t off;
	size_t i, j;

	for (i = 0; i < sizeof(gc_fixtures) / sizeof(*gc_fixtures); i++) {
		if (open_fixture(gc_fixtures[i], &f))
			continue;
		for (j = 0; j < sizeof(want) / sizeof(*want); j++) {
			off = 99;
			CHECK_EQ_INT(go_dwarf__member_offset(f.d, want[j].type,
							     want[j].path, &off),
				     0);
			CHECK_EQ_INT(off, want[j].off);
		}
		for (j = 0; j < sizeof(missing) / sizeof(*missing); j++) {
			gt_error_clear();
			CHECK_EQ_INT(go_dwarf__member_offset(f.d,
							     missing[j].type,
							     missing[j].path,
							     &off),
				     -ENOENT);
			if (!strstr(gt_last_error(), missing[j].why)) {
				fprintf(stderr, "%s: \"%s\" lacks \"%s\"\n",
					gc_fixtures[i], gt_last_error(),
					missing[j].why);
				CHECK(0);
			}
		}
		close_fixture(&f);
	}
}

/* Runtime types: each DWARF type of the fixture's own package whose
 * descriptor DWARF gives is, by the type data's own name at that offset
 * (go_rtype, an independent reader), the same type; and lookups find it. */
TEST(runtime_types)
{
	const struct go_dwarf_rtype *r;
	struct go_rtypes *rt;
	struct fixture f;
	const char *name;
	size_t i, k, n, own;

	for (i = 0; i < sizeof(gc_fixtures) / sizeof(gc_fixtures[0]); i++) {
		if (open_fixture(gc_fixtures[i], &f))
			continue;
		CHECK_EQ_INT(go_rtypes__open(f.bin, &rt), 0);
		CHECK_EQ_INT(go_dwarf__runtime_types(f.d, &r, &n), 0);
		CHECK(n > 100);
		for (k = 0, own = 0; rt && k < n; k++) {
			const char *t = r[k].type->name;

			if (k)
				CHECK(r[k].offset > r[k - 1].offset);
			CHECK(go_dwarf__runtime_type(f.d, r[k].offset) == r[k].type);
			if (!t || (strncmp(t, "main.", 5) && strncmp(t, "*main.", 6)))
				continue;
			own++;
			if (go_rtypes__name(rt, go_rtypes__start(rt) + r[k].offset,
					    &name) || strcmp(name, t)) {
				fprintf(stderr, "%s: %s at +0x%llx is %s\n",
					gc_fixtures[i], t,
					(unsigned long long)r[k].offset, name);
				CHECK(!"runtime type names differ");
			}
		}
		CHECK(own >= 5);
		CHECK(!go_dwarf__runtime_type(f.d, 1));
		go_rtypes__close(rt);
		close_fixture(&f);
	}
}

int main(void)
{
	RUN(gc_signatures);
	RUN(gccgo_signatures);
	RUN(stripped);
	RUN(zdebug_fixture);
	RUN(every_type_checks);
	RUN(shape_dict);
	RUN(wrapper_receiver);
	RUN(frame_abi);
	RUN(duplicate_results);
	RUN(lookup);
	RUN(member_offset);
	RUN(runtime_types);
	return TEST_SUMMARY();
}
