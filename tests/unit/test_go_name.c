// SPDX-License-Identifier: MIT
/*
 * The type arguments in gc's names of instantiations (gobin/go_name.h),
 * and the dictionaries of a binary by address (gobin/go_dict.h) on the
 * args fixture, whose kindOf[T ~int64] is called with main.ID and int64.
 */
#include <errno.h>
#include <string.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "gobin/go_dict.h"
#include "gobin/go_name.h"
#include "test.h"

TEST(skip_type_args)
{
	const char *n = "main.(*Box[go.shape.int]).Get";
	const char *tag = "main.F[go.shape.struct { A int \"json:\\\"a]\\\"\" }].func1";

	CHECK_EQ_STR(go_name__skip_type_args(n, n + 10), ").Get");
	/* a '[' after a '.' is part of a type, not a list */
	n = "type:.eq.[2]string";
	CHECK(go_name__skip_type_args(n, n + 9) == n + 9);
	CHECK_EQ_STR(go_name__skip_type_args(tag, tag + 6), ".func1");
}

TEST(type_param)
{
	size_t i = 99;

	CHECK_EQ_INT(go_name__type_param("main.Sum[go.shape.int]", "go.shape.int", &i), 0);
	CHECK_EQ_INT(i, 0);
	CHECK_EQ_INT(go_name__type_param("main.Map[go.shape.string,go.shape.[]int]",
					 "go.shape.[]int", &i), 0);
	CHECK_EQ_INT(i, 1);
	CHECK_EQ_INT(go_name__type_param("main.(*Box[go.shape.int,go.shape.func(int, string)]).Get",
					 "go.shape.func(int, string)", &i), 0);
	CHECK_EQ_INT(i, 1);
	/* Go 1.18-1.19 number their shapes; pclntab writes F[...] */
	CHECK_EQ_INT(go_name__type_param("main.Pair[...]", "go.shape.int_1", &i), 0);
	CHECK_EQ_INT(i, 1);
	/* two type parameters of one shape: which is not known */
	CHECK_EQ_INT(go_name__type_param("main.P[go.shape.int,go.shape.int]",
					 "go.shape.int", &i), -EEXIST);
	CHECK_EQ_INT(go_name__type_param("main.Sum[go.shape.int]", "go.shape.string", &i),
		     -ENOENT);
	CHECK_EQ_INT(go_name__type_param("main.Sum", "go.shape.int", &i), -ENOENT);
	CHECK_EQ_INT(go_name__type_param("main.Sum[int]", "int", &i), -ENOENT);
}

TEST(type_arg)
{
	char buf[64];

	CHECK_EQ_INT(go_name__type_arg("main..dict.kindOf[main.ID]", 0, false, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "main.ID");
	CHECK_EQ_INT(go_name__type_arg("main..dict.M[string,map[string]github.com/x/y-z.T]",
				       1, false, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "map[string]y-z.T");
	CHECK_EQ_INT(go_name__type_arg("main..dict.(*Box[*net/http.Request]).Get", 0, false,
				       buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "*http.Request");
	CHECK_EQ_INT(go_name__type_arg("main..dict.kindOf[main.ID]", 1, false, buf, sizeof(buf)),
		     -ENOENT);
	/* as gc names it */
	CHECK_EQ_INT(go_name__type_arg("main..dict.M[string,map[string]github.com/x/y-z.T]",
				       1, true, buf, sizeof(buf)), 0);
	CHECK_EQ_STR(buf, "map[string]github.com/x/y-z.T");
	/* cut to fit */
	CHECK_EQ_INT(go_name__type_arg("main..dict.F[main.LongName]", 0, false, buf, 6), 0);
	CHECK_EQ_STR(buf, "main.");
}

/* The dictionary kindOf[main.ID] by its address, in a build with symbols;
 * none in a stripped one. */
TEST(dicts)
{
	struct go_binary *bin = NULL;
	struct go_dicts d = { 0 };
	uint64_t addr = 0;

	if (go_binary__open(test_fixture("args-go1.27-default"), &bin)) {
		CHECK(!"args-go1.27-default opens");
		return;
	}
	CHECK_EQ_INT(go_dicts__load(&d, bin), 0);
	CHECK(d.n >= 4);
	CHECK_EQ_INT(elf_file__symbol(bin->elf, "main..dict.kindOf[main.ID]", &addr), 0);
	CHECK_EQ_STR(go_dicts__name(&d, addr), "main..dict.kindOf[main.ID]");
	CHECK(go_dicts__name(&d, addr + 1) == NULL);
	go_dicts__free(&d);
	go_binary__close(bin);
	if (go_binary__open(test_fixture("args-go1.27-stripped"), &bin)) {
		CHECK(!"args-go1.27-stripped opens");
		return;
	}
	CHECK_EQ_INT(go_dicts__load(&d, bin), 0);
	CHECK_EQ_INT(d.n, 0);
	go_dicts__free(&d);
	go_binary__close(bin);
}

int main(void)
{
	RUN(skip_type_args);
	RUN(type_param);
	RUN(type_arg);
	RUN(dicts);
	return TEST_SUMMARY();
}
