// SPDX-License-Identifier: MIT
/* Probe specs [BINARY:]PATTERN, glob and regex matching of Go names. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "core/error.h"
#include "probe/probe_spec.h"
#include "test.h"

struct parse_case {
	const char *spec;
	bool have_target;
	int err;		/* 0, or the expected negative errno */
	const char *binary;	/* expected binary, NULL for none */
	const char *pattern;	/* expected pattern, or a word of the error */
};

static const struct parse_case parse_cases[] = {
	/* With -p/-c a bare pattern names functions in the target. */
	{ "main.*", true, 0, NULL, "main.*" },
	{ "main.(*T).M", true, 0, NULL, "main.(*T).M" },
	{ "main.T.M", true, 0, NULL, "main.T.M" },
	{ "main.(*T).M-fm", true, 0, NULL, "main.(*T).M-fm" },
	{ "net/http.(*conn).serve", true, 0, NULL, "net/http.(*conn).serve" },
	{ "main.F[go.shape.int]", true, 0, NULL, "main.F[go.shape.int]" },
	{ "main.F[go.shape.int_0]", true, 0, NULL, "main.F[go.shape.int_0]" },
	{ "main.F[...]", true, 0, NULL, "main.F[...]" },
	{ "main.main.func1", true, 0, NULL, "main.main.func1" },
	{ "main.main.func1.2", true, 0, NULL, "main.main.func1.2" },
	{ "main.main.gowrap1", true, 0, NULL, "main.main.gowrap1" },
	{ "main.main-range1", true, 0, NULL, "main.main-range1" },
	{ "runtime.memmove.abi0", true, 0, NULL, "runtime.memmove.abi0" },
	{ "main.main..func1", true, 0, NULL, "main.main..func1" },
	{ "*", true, 0, NULL, "*" },
	/* Go 1.20+ names with ':' stay whole with a target. */
	{ "type:eq.main.T", true, 0, NULL, "type:eq.main.T" },
	{ "type:.eq.[2]interface {}", true, 0, NULL,
	  "type:.eq.[2]interface {}" },
	{ "type:*", true, 0, NULL, "type:*" },
	{ "go*:buildid", true, 0, NULL, "go*:buildid" },
	{ "^go:buildid", true, 0, NULL, "^go:buildid" },
	{ "go.shape:x", true, 0, NULL, "go.shape:x" },
	{ "main.F[go.shape.struct { A int \"json:\\\"a\\\"\" }]", true, 0,
	  NULL, "main.F[go.shape.struct { A int \"json:\\\"a\\\"\" }]" },
	{ "net/http.F[go.shape.struct { A int \"json:\\\"a\\\"\" }]", true,
	  0, NULL, "net/http.F[go.shape.struct { A int \"json:\\\"a\\\"\" }]" },
	{ "go:", true, 0, NULL, "go:" },
	{ ":main.*", true, 0, NULL, ":main.*" },
	/* A path is a binary, with or without a target. */
	{ "/usr/bin/app:main.*", false, 0, "/usr/bin/app", "main.*" },
	{ "/usr/bin/app:main.*", true, 0, "/usr/bin/app", "main.*" },
	{ "./test:read*", true, 0, "./test", "read*" },
	{ "bin/app:net/http.(*conn).serve", true, 0, "bin/app",
	  "net/http.(*conn).serve" },
	{ "/bin/app:type:eq.main.T", false, 0, "/bin/app", "type:eq.main.T" },
	{ "/bin/app:type:eq.main.T", true, 0, "/bin/app", "type:eq.main.T" },
	{ "/bin/app:main.F[go.shape.int]", true, 0, "/bin/app",
	  "main.F[go.shape.int]" },
	/* bcc's library short names. */
	{ "go:fmt.*", true, 0, "go", "fmt.*" },
	{ "go:fmt.*", false, 0, "go", "fmt.*" },
	{ "go:os.*", true, 0, "go", "os.*" },
	{ "c:malloc", true, 0, "c", "malloc" },
	{ "stdc++:*", true, 0, "stdc++", "*" },
	{ "go:buildid", true, 0, "go", "buildid" },
	/* Without a target the prefix is always the binary. */
	{ "type:eq.main.T", false, 0, "type", "eq.main.T" },
	{ "app:main.*", false, 0, "app", "main.*" },
	/* Errors. */
	{ "", true, -EINVAL, NULL, "empty probe" },
	{ "", false, -EINVAL, NULL, "empty probe" },
	{ "main.*", false, -EINVAL, NULL,
	  "no binary in probe 'main.*': use BINARY:PATTERN, -p PID or -c CMD" },
	{ "main.(*T).M", false, -EINVAL, NULL, "no binary in probe" },
	{ "/bin/app:", true, -EINVAL, NULL, "empty pattern" },
	{ "/bin/app:", false, -EINVAL, NULL, "empty pattern" },
	{ "go:", false, -EINVAL, NULL, "empty pattern" },
	{ ":main.*", false, -EINVAL, NULL, "empty binary" },
	{ ":", false, -EINVAL, NULL, "empty binary" },
};

static void check_parse(const struct parse_case *c)
{
	struct probe_spec spec;
	int err;

	gt_error_clear();
	err = probe_spec__parse(c->spec, c->have_target, &spec);
	if (err != c->err)
		fprintf(stderr, "spec '%s' (target %d): %d, expected %d (%s)\n",
			c->spec, c->have_target, err, c->err, gt_last_error());
	CHECK_EQ_INT(err, c->err);
	if (c->err) {
		CHECK(spec.binary == NULL && spec.pattern == NULL);
		if (!strstr(gt_last_error(), c->pattern))
			fprintf(stderr, "spec '%s': reason '%s' lacks '%s'\n",
				c->spec, gt_last_error(), c->pattern);
		CHECK(strstr(gt_last_error(), c->pattern) != NULL);
		return;
	}
	if (c->binary)
		CHECK_EQ_STR(spec.binary, c->binary);
	else
		CHECK(spec.binary == NULL);
	CHECK_EQ_STR(spec.pattern, c->pattern);
	probe_spec__free(&spec);
}

TEST(parse_table)
{
	size_t i;

	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++)
		check_parse(&parse_cases[i]);
}

/* A prefix naming a file in the current directory is a binary; "type"
 * stays Go's prefix even when a file of that name exists. */
TEST(parse_existing_file)
{
	static const struct parse_case cases[] = {
		{ "my.app:main.*", true, 0, "my.app", "main.*" },
		{ "my.app:", true, -EINVAL, NULL, "empty pattern" },
		{ "type:eq.main.T", true, 0, NULL, "type:eq.main.T" },
		{ "./type:eq.main.T", true, 0, "./type", "eq.main.T" },
		{ "not.there:main.*", true, 0, NULL, "not.there:main.*" },
	};
	char dir[] = "/tmp/test_probe_spec.XXXXXX", cwd[PATH_MAX];
	const char *files[] = { "my.app", "type" };
	size_t i;
	int fd;

	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(mkdtemp(dir) != NULL);
	CHECK(chdir(dir) == 0);
	for (i = 0; i < 2; i++) {
		fd = open(files[i], O_CREAT | O_WRONLY, 0644);
		CHECK(fd >= 0);
		close(fd);
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_parse(&cases[i]);
	for (i = 0; i < 2; i++)
		CHECK(unlink(files[i]) == 0);
	CHECK(chdir(cwd) == 0);
	CHECK(rmdir(dir) == 0);
}

struct match_case {
	const char *pattern;
	const char *name;
	bool match;
};

static const struct match_case glob_cases[] = {
	{ "main.*", "main.main", true },
	{ "main.*", "main.(*T).M", true },
	{ "main.*", "runtime.main", false },
	{ "main.*", "main", false },
	{ "*", "anything", true },
	{ "*", "", true },
	{ "", "", true },
	{ "", "x", false },
	{ "**", "x", true },
	{ "main.main", "main.main", true },
	{ "main.main", "main.mainx", false },
	{ "main.main", "xmain.main", false },
	/* '*', '(', ')' in names: the pattern matches itself. */
	{ "main.(*T).Foo", "main.(*T).Foo", true },
	{ "main.(*T).Foo", "main.(xT).Foo", true },
	{ "main.(*T).Foo", "main.T.Foo", false },
	{ "main.(*T).*", "main.(*T).Foo", true },
	{ "main.(\\*T).Foo", "main.(*T).Foo", false },
	/* '[' and ']' are literal, not a character class; '?' too. */
	{ "main.F[go.shape.int]", "main.F[go.shape.int]", true },
	{ "main.F[go.shape.int]", "main.Fg", false },
	{ "main.F[*]", "main.F[go.shape.string]", true },
	{ "main.F[*]", "main.F", false },
	{ "main.?", "main.a", false },
	{ "main.?", "main.?", true },
	/* '.' and '/' are literal; '*' crosses them. */
	{ "net/http.*", "net/http.(*conn).serve", true },
	{ "net/*.serve", "net/http.(*conn).serve", true },
	{ "net.http.*", "net/http.(*conn).serve", false },
	{ "*.abi0", "runtime.memmove.abi0", true },
	{ "*serve", "net/http.(*conn).serve", true },
	{ "*serve", "net/http.(*conn).serveX", false },
	{ "type:*", "type:eq.main.T", true },
	{ "main.main.func*", "main.main.func1.2", true },
	{ "a*b*c", "aXbYc", true },
	{ "a*b*c", "abc", true },
	{ "a*b*c", "aXbY", false },
	{ "a*b*c", "acb", false },
	{ "*ab", "aab", true },
	{ "*aab", "aaab", true },
	{ "a*a", "a", false },
	{ "*a*", "bbb", false },
	/* A pattern without '[' names a generic function as written: it is
	 * matched against names without the type arguments too. */
	{ "main.Sum", "main.Sum[go.shape.int]", true },
	{ "main.Sum", "main.Sum[go.shape.float64]", true },
	{ "main.Sum", "main.Sum[go.shape.int_0]", true },
	{ "main.Sum", "main.Sum[...]", true },
	{ "main.Sum", "main.SumAll", false },
	{ "main.Sum", "main.Summer[go.shape.int]", false },
	{ "main.Sum", "main.Sum[go.shape.int].func1", false },
	{ "main.Sum", "main.XSum[go.shape.int]", false },
	{ "main.Sum.func1", "main.Sum[go.shape.int].func1", true },
	{ "main.Sum.func1", "main.Sum[...].func1", true },
	{ "main.Sum.*", "main.Sum[go.shape.int].func1", true },
	{ "main.Sum.*", "main.Sum[go.shape.int]", false },
	{ "main.(*Box).Get", "main.(*Box[go.shape.int]).Get", true },
	{ "main.(*Box).Get", "main.(*Box[go.shape.string_0]).Get", true },
	{ "main.(*Box).Get", "main.(*Box[...]).Get", true },
	{ "main.(*Box).Get", "main.(*Boxer).Get", false },
	{ "main.(*Box).Get", "main.Box[go.shape.int].Get", false },
	{ "main.(*Box).*", "main.(*Box[go.shape.int]).Get", true },
	{ "main.Box.Get", "main.Box[go.shape.int].Get", true },
	{ "main.Box.Get", "main.(*Box[go.shape.int]).Get", false },
	{ "main.Pair.Swap", "main.Pair[go.shape.int,go.shape.string].Swap",
	  true },
	/* Nested brackets, and brackets in a struct tag. */
	{ "main.Map", "main.Map[go.shape.string,go.shape.[]int]", true },
	{ "main.Map", "main.Map[go.shape.[2]int,go.shape.map[string][]int]",
	  true },
	{ "main.Map.func1", "main.Map[go.shape.string,go.shape.[]int].func1",
	  true },
	{ "main.F", "main.F[go.shape.struct { A int \"json:\\\"a]\\\"\" }]",
	  true },
	{ "main.F.func1",
	  "main.F[go.shape.struct { A int \"[\" }].func1", true },
	/* Globs see both spellings: 'main.S*m' the written one. */
	{ "main.S*", "main.Sum[go.shape.int]", true },
	{ "main.S*m", "main.Sum[go.shape.int]", true },
	{ "*.Get", "main.(*Box[go.shape.int]).Get", true },
	{ "main.*Box).Get", "main.(*Box[go.shape.int]).Get", true },
	/* Type arguments follow an identifier, a Unicode one too; other
	 * brackets are part of a type. */
	{ "main.\xce\xa0", "main.\xce\xa0[go.shape.int]", true },
	{ "type:.eq.interface {}", "type:.eq.[2]interface {}", false },
	{ "type:.eq.main.Pair", "type:.eq.main.Pair[int,string]", true },
	/* With '[' the pattern names instantiations as the binary does. */
	{ "main.Sum[*]", "main.Sum[go.shape.int]", true },
	{ "main.Sum[*]", "main.SumAll", false },
	{ "main.Sum[go.shape.int]", "main.Sum[go.shape.float64]", false },
	{ "main.Sum[...]", "main.Sum[go.shape.int]", false },
	{ "main.(*Box[*]).Get", "main.(*Box[go.shape.int]).Get", true },
};

static const struct match_case regex_cases[] = {
	/* Anchored at the start only, like Python's re.match in bcc. */
	{ "main\\.", "main.main", true },
	{ "main\\.", "xmain.main", false },
	{ "main", "main.main", true },
	{ "ma.n$", "main", true },
	{ "ma.n$", "main.main", false },
	{ "^runtime\\.(mallocgc|newobject)$", "runtime.newobject", true },
	{ "^runtime\\.(mallocgc|newobject)$", "runtime.newobject2", false },
	{ "a|main", "main.x", true },
	{ "a|b", "xb", false },
	{ "x*", "abc", true },
	{ "main\\.\\(\\*T\\)\\.M$", "main.(*T).M", true },
	{ "main\\.\\(\\*T\\)\\.M$", "main.(xT).M", false },
	{ "main\\.F\\[go\\.shape\\.[a-z]+\\]", "main.F[go.shape.int]", true },
	/* A regex sees the binary's names as they are. */
	{ "main\\.Sum$", "main.Sum[go.shape.int]", false },
	{ "main\\.Sum\\[", "main.Sum[go.shape.int]", true },
	{ "main\\.\\(\\*Box\\)\\.Get", "main.(*Box[go.shape.int]).Get",
	  false },
	{ "type:eq\\.", "type:eq.main.T", true },
	{ "[a-z]+/[a-z]+\\.", "net/http.(*conn).serve", true },
	{ ".*serve$", "net/http.(*conn).serve", true },
};

/* What a case asks of a matcher: name_matcher__match() or another. */
typedef bool (*name_test)(const struct name_matcher *m, const char *name);

static void check_cases(const struct match_case *cases, size_t n,
			bool regex, name_test test, const char *what)
{
	struct name_matcher m;
	size_t i;
	bool got;

	for (i = 0; i < n; i++) {
		CHECK_EQ_INT(name_matcher__init(&m, cases[i].pattern, regex),
			     0);
		got = test(&m, cases[i].name);
		if (got != cases[i].match)
			fprintf(stderr, "%s '%s' on '%s': %d, expected %d\n",
				what, cases[i].pattern, cases[i].name, got,
				cases[i].match);
		CHECK(got == cases[i].match);
		name_matcher__free(&m);
	}
}

TEST(glob)
{
	check_cases(glob_cases, sizeof(glob_cases) / sizeof(glob_cases[0]),
		    false, name_matcher__match, "glob");
}

TEST(regex)
{
	check_cases(regex_cases, sizeof(regex_cases) / sizeof(regex_cases[0]),
		    true, name_matcher__match, "regex");
}

TEST(bad_regex)
{
	static const char *bad[] = {
		"(", "main.(*T", "a{2,1}", "[z-a]",
		/* Too costly for glibc: nested repetition, back-references. */
		"a++++++++++++++++++++++++", "((a{99}){99}){99}", ".{0,1000}",
		"(.?){300}", "(.*){1000}", "(a*)*\\1\\1\\1\\1b",
	};
	struct name_matcher m;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gt_error_clear();
		CHECK_EQ_INT(name_matcher__init(&m, bad[i], true), -EINVAL);
		CHECK(strstr(gt_last_error(), "bad regular expression") !=
		      NULL);
		CHECK(strstr(gt_last_error(), bad[i]) != NULL);
		CHECK(m.pattern == NULL);
		name_matcher__free(&m);
	}
	/* Moderate repetition is fine. */
	CHECK_EQ_INT(name_matcher__init(&m,
					"main\\.[a-z]{1,20}(\\.func[0-9]+)+$",
					true), 0);
	CHECK(name_matcher__match(&m, "main.main.func1.func2"));
	CHECK(!name_matcher__match(&m, "main.main.func1.x"));
	name_matcher__free(&m);
	CHECK_EQ_INT(name_matcher__init(&m, "[[:alpha:]{]+\\.x{2,}", true), 0);
	CHECK(name_matcher__match(&m, "ab{.xx"));
	name_matcher__free(&m);
	/* The same text is a fine glob. */
	CHECK_EQ_INT(name_matcher__init(&m, "main.(*T", false), 0);
	CHECK(name_matcher__match(&m, "main.(*T"));
	name_matcher__free(&m);
}

TEST(exact_and_wildcard)
{
	struct name_matcher m;

	CHECK_EQ_INT(name_matcher__init(&m, "main.(*T).Foo", false), 0);
	CHECK(m.has_wildcard);
	CHECK(!m.regex);
	CHECK(name_matcher__is_exact(&m, "main.(*T).Foo"));
	CHECK(!name_matcher__is_exact(&m, "main.(xT).Foo"));
	CHECK(name_matcher__match(&m, "main.(xT).Foo"));
	name_matcher__free(&m);

	CHECK_EQ_INT(name_matcher__init(&m, "main.main", false), 0);
	CHECK(!m.has_wildcard);
	CHECK(name_matcher__is_exact(&m, "main.main"));
	CHECK(!name_matcher__is_exact(&m, "main.main.func1"));
	name_matcher__free(&m);

	/* A regex is exact when taken literally it equals the name. */
	CHECK_EQ_INT(name_matcher__init(&m, "main.main", true), 0);
	CHECK(m.regex);
	CHECK(!m.has_wildcard);
	CHECK(name_matcher__is_exact(&m, "main.main"));
	CHECK(!name_matcher__is_exact(&m, "mainXmain"));
	CHECK(name_matcher__match(&m, "mainXmain"));
	name_matcher__free(&m);
}

/* A generic function as written selects its instantiations, and only
 * them: the caller prefers that reading to the glob's. */
TEST(written)
{
	static const struct match_case cases[] = {
		{ "main.Sum", "main.Sum[go.shape.int]", true },
		{ "main.Sum", "main.Sum[go.shape.int_0]", true },
		{ "main.Sum", "main.Sum[...]", true },
		{ "main.Sum", "main.Sum", false },
		{ "main.Sum", "main.SumAll", false },
		{ "main.Sum", "main.Sum[go.shape.int].func1", false },
		{ "main.Sum.func1", "main.Sum[go.shape.int].func1", true },
		{ "main.(*Box).Get", "main.(*Box[go.shape.int]).Get", true },
		{ "main.(*Box).Get", "main.(*Box[...]).Get", true },
		{ "main.(*Box).Get", "main.(*Boxer).Get", false },
		{ "main.(*Box).Get", "main.(*MyBox[go.shape.int]).Get", false },
		{ "main.(*Box).Get", "main.Box[go.shape.int].Get", false },
		{ "main.Box.Get", "main.Box[go.shape.int].Get", true },
		{ "main.Map", "main.Map[go.shape.string,go.shape.[]int]", true },
		{ "main.Map.func1",
		  "main.Map[go.shape.string,go.shape.[]int].func1", true },
		{ "main.(*Box).*", "main.(*Box[go.shape.int]).Get", false },
		{ "main.Sum[*]", "main.Sum[go.shape.int]", false },
		{ "main.Sum[go.shape.int]", "main.Sum[go.shape.int]", false },
		{ "main.F", "main.F[go.shape.int", true },
	};
	struct name_matcher m;

	check_cases(cases, sizeof(cases) / sizeof(cases[0]), false,
		    name_matcher__is_written, "written");
	/* A regex is never a generic function as written. */
	CHECK_EQ_INT(name_matcher__init(&m, "main.Sum", true), 0);
	CHECK(!name_matcher__is_written(&m, "main.Sum[go.shape.int]"));
	name_matcher__free(&m);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Patterns that make a backtracking glob exponential must stay fast. */
/* A list of a thousand names, as scripts pass them: long, but no
 * repetition to multiply, so it must compile and select exactly. */
TEST(long_name_list)
{
	struct name_matcher m;
	char *re = malloc(20 * 1000 + 8), *p = re;
	int i;

	p += sprintf(p, "^(");
	for (i = 0; i < 1000; i++)
		p += sprintf(p, "%smain\\.f%d", i ? "|" : "", i);
	sprintf(p, ")$");
	CHECK_EQ_INT(name_matcher__init(&m, re, true), 0);
	CHECK(name_matcher__match(&m, "main.f500"));
	CHECK(name_matcher__match(&m, "main.f999"));
	CHECK(!name_matcher__match(&m, "main.f1000"));
	CHECK(!name_matcher__match(&m, "mainxf5"));
	name_matcher__free(&m);
	free(re);
}

TEST(pathological_glob)
{
	enum { NAME_LEN = 20000, STARS = 40 };
	char *name = malloc(NAME_LEN + 2), *pat = malloc(STARS * 2 + 3);
	struct name_matcher m;
	double start;
	size_t i;

	CHECK(name && pat);
	if (!name || !pat)
		goto out;
	memset(name, 'a', NAME_LEN);
	name[NAME_LEN] = '\0';
	for (i = 0; i < STARS; i++)
		memcpy(pat + 2 * i, "*a", 2);
	strcpy(pat + 2 * STARS, "*b");

	start = now();
	CHECK_EQ_INT(name_matcher__init(&m, pat, false), 0);
	CHECK(!name_matcher__match(&m, name));
	strcpy(name + NAME_LEN, "b");
	CHECK(name_matcher__match(&m, name));
	name_matcher__free(&m);
	/* Type arguments everywhere, closed or not: each list is skipped
	 * once per visit, an unclosed one to the end of the name. */
	CHECK_EQ_INT(name_matcher__init(&m, pat, false), 0);
	for (i = 0; i + 3 <= NAME_LEN; i += 3)
		memcpy(name + i, "a[]", 3);
	name[i] = '\0';
	CHECK(!name_matcher__match(&m, name));
	for (i = 0; i + 2 <= NAME_LEN; i += 2)
		memcpy(name + i, "a[", 2);
	name[i] = '\0';
	CHECK(!name_matcher__match(&m, name));
	CHECK(!name_matcher__is_written(&m, name));
	name_matcher__free(&m);
	/* Linear-ish: about 1 ms here; exponential would never finish. */
	CHECK(now() - start < 2.0);
out:
	free(name);
	free(pat);
}

int main(void)
{
	alarm(60);	/* a runaway matcher fails instead of hanging */
	RUN(parse_table);
	RUN(parse_existing_file);
	RUN(glob);
	RUN(regex);
	RUN(bad_regex);
	RUN(exact_and_wildcard);
	RUN(written);
	RUN(long_name_list);
	RUN(pathological_glob);
	return TEST_SUMMARY();
}
