// SPDX-License-Identifier: MIT
/*
 * gotrace's probe syntax and value printing. The expected float texts are
 * what Go 1.19's fmt.Println printed for the same values.
 */
#include <errno.h>
#include <math.h>
#include "core/error.h"
#include "test.h"
#include "trace/trace_probe.h"

TEST(entry_probe_with_format)
{
	struct trace_probe p;

	CHECK_EQ_INT(trace_probe__parse("main.addInts \"%d %d\" goarg1, goarg2", &p), 0);
	CHECK(!p.ret);
	CHECK_EQ_STR(p.target, "main.addInts");
	CHECK_EQ_INT(p.nconvs, 2);
	CHECK_EQ_STR(p.convs[0].prefix, "");
	CHECK_EQ_STR(p.convs[1].prefix, " ");
	CHECK_EQ_STR(p.suffix, "");
	CHECK_EQ_INT(p.convs[0].kind, TRACE_CONV_INT);
	CHECK(p.convs[0].type == &go_type_int);
	CHECK_EQ_INT(p.convs[0].expr.arg, TRACE_ARG_GOARG);
	CHECK_EQ_INT(p.convs[0].expr.index, 0);
	CHECK_EQ_INT(p.convs[1].expr.index, 1);
	trace_probe__free(&p);
}

TEST(bcc_comma_binary_and_return)
{
	struct trace_probe p;

	CHECK_EQ_INT(trace_probe__parse("  r:/bin/app:main.(*T).Get \"n=%u%% s=%s\\n\", retval, goret2 ", &p), 0);
	CHECK(p.ret);
	CHECK_EQ_STR(p.target, "/bin/app:main.(*T).Get");
	CHECK_EQ_INT(p.nconvs, 2);
	CHECK_EQ_STR(p.convs[0].prefix, "n=");
	CHECK_EQ_STR(p.convs[1].prefix, "% s=");
	CHECK_EQ_STR(p.suffix, "\n");
	CHECK_EQ_INT(p.convs[0].expr.arg, TRACE_ARG_GORET);
	CHECK_EQ_INT(p.convs[0].expr.index, 0);
	CHECK(p.convs[0].type == &go_type_uint64);
	CHECK_EQ_INT(p.convs[1].kind, TRACE_CONV_STR);
	CHECK(p.convs[1].type == &go_type_string);
	CHECK_EQ_INT(p.convs[1].expr.index, 1);
	trace_probe__free(&p);
}

TEST(no_format)
{
	struct trace_probe p;

	CHECK_EQ_INT(trace_probe__parse("p:main.*", &p), 0);
	CHECK_EQ_STR(p.target, "main.*");
	CHECK_EQ_INT(p.nconvs, 0);
	CHECK_EQ_STR(p.suffix, "");
	CHECK(p.bare);		/* every argument is printed */
	trace_probe__free(&p);
	/* a format without values is not bare */
	CHECK_EQ_INT(trace_probe__parse("main.f \"here\"", &p), 0);
	CHECK(!p.bare);
	CHECK_EQ_STR(p.suffix, "here");
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.f (goarg1 > 2)", &p), 0);
	CHECK(p.bare);
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.addInts \"%d\" goarg1", &p), 0);
	CHECK(!p.bare);
	trace_probe__free(&p);
}

/* Every conversion and the Go type it stands for. */
TEST(conversion_types)
{
	static const struct {
		const char *conv;
		enum trace_conv_kind kind;
		const struct go_type *type;
	} cases[] = {
		{ "%d", TRACE_CONV_INT, &go_type_int },
		{ "%i", TRACE_CONV_INT, &go_type_int },
		{ "%ld", TRACE_CONV_INT, &go_type_int },
		{ "%lld", TRACE_CONV_INT, &go_type_int },
		{ "%hd", TRACE_CONV_INT, &go_type_int16 },
		{ "%hhd", TRACE_CONV_INT, &go_type_int8 },
		{ "%w8d", TRACE_CONV_INT, &go_type_int8 },
		{ "%w16d", TRACE_CONV_INT, &go_type_int16 },
		{ "%w32d", TRACE_CONV_INT, &go_type_int32 },
		{ "%w64d", TRACE_CONV_INT, &go_type_int },
		{ "%u", TRACE_CONV_UINT, &go_type_uint64 },
		{ "%hhu", TRACE_CONV_UINT, &go_type_uint8 },
		{ "%w32u", TRACE_CONV_UINT, &go_type_uint32 },
		{ "%x", TRACE_CONV_HEX, &go_type_uint64 },
		{ "%lx", TRACE_CONV_HEX, &go_type_uint64 },
		{ "%llx", TRACE_CONV_HEX, &go_type_uint64 },
		{ "%hx", TRACE_CONV_HEX, &go_type_uint16 },
		{ "%c", TRACE_CONV_CHAR, &go_type_int32 },
		{ "%p", TRACE_CONV_PTR, &go_type_unsafe_pointer },
		{ "%s", TRACE_CONV_STR, &go_type_string },
		{ "%t", TRACE_CONV_BOOL, &go_type_bool },
		{ "%b", TRACE_CONV_BOOL, &go_type_bool },
		{ "%f", TRACE_CONV_FLOAT, &go_type_float64 },
		{ "%g", TRACE_CONV_FLOAT, &go_type_float64 },
		{ "%w32f", TRACE_CONV_FLOAT, &go_type_float32 },
	};
	struct trace_probe p;
	char text[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "f \"<%s>\" goarg1", cases[i].conv);
		CHECK_EQ_INT(trace_probe__parse(text, &p), 0);
		CHECK_EQ_INT(p.nconvs, 1);
		CHECK_EQ_INT(p.convs[0].kind, cases[i].kind);
		if (p.convs[0].type != cases[i].type)
			fprintf(stderr, "conversion %s: wrong type\n", cases[i].conv);
		CHECK(p.convs[0].type == cases[i].type);
		CHECK_EQ_STR(p.convs[0].prefix, "<");
		CHECK_EQ_STR(p.suffix, ">");
		trace_probe__free(&p);
	}
}

/* Malformed probes: -EINVAL and a reason naming the problem. */
TEST(errors)
{
	static const struct {
		const char *text, *reason;
	} cases[] = {
		{ "", "names no function" },
		{ "r:", "names no function" },
		{ "main.f \"%d\"", "1 conversions in the format but 0 arguments" },
		{ "main.f \"%d %d\" goarg1", "2 conversions in the format but 1 arguments" },
		{ "main.f \"%d\" goarg1, goarg2", "more arguments than the 1 conversions" },
		{ "main.f \"%d", "no closing quote" },
		{ "main.f \"%q\" goarg1", "unknown conversion '%q'" },
		{ "main.f \"%\" goarg1", "format ends with '%'" },
		{ "main.f \"%lhd\" goarg1", "bad length modifier" },
		{ "main.f \"%hhhd\" goarg1", "bad length modifier" },
		{ "main.f \"%w12d\" goarg1", "bad width" },
		{ "main.f \"%hs\" goarg1", "length modifier on %s" },
		{ "main.f \"%w8f\" goarg1", "bad width on %f" },
		{ "main.f \"\\q\"", "unknown escape" },
		{ "main.f \"%d\" 1arg", "expected an argument at '1arg'" },
		{ "main.f \"%d\" x.", "expected a field name" },
		{ "main.f \"%d\" len(x", "expected ')'" },
		{ "main.f \"%d\" goarg0", "bad argument 'goarg0'" },
		{ "main.f \"%d\" goarg99", "bad argument 'goarg99'" },
		{ "main.f \"%d\" goret1", "only known in a return probe" },
		{ "main.f \"%d\" retval", "only known in a return probe" },
		{ "r:main.f \"%d\" goarg1", "not known at a return" },
		{ "main.f \"%d %d\" goarg1 goarg2", "expected ','" },
		{ "main.f (goarg1 >> 1)", "bad operator" },
		{ "main.f (goarg1 =< 1)", "bad operator" },
		{ "main.f (goarg1 > )", "expected a number" },
		{ "main.f (goarg1 > 12abc)", "bad number" },
		{ "main.f (goarg1 < \"x\")", "strings compare with == and != only" },
		{ "main.f (goarg1 == \"x)", "no closing quote" },
		{ "main.f (goarg1 & 1)", "expected &&, || or ')'" },
		{ "main.f (goarg1 > 1", "expected &&, || or ')'" },
		{ "main.f (goret1 > 1)", "only known in a return probe" },
		{ "main.f goarg1", "expected a quoted format" },
		{ "main.f \"x\" junk", "unexpected text" },
		{ "main.f \"%d%d%d%d%d%d%d%d%d%d%d%d%d\"", "more than 12 conversions" },
	};
	struct trace_probe p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = trace_probe__parse(cases[i].text, &p);

		if (err != -EINVAL || !strstr(gt_last_error(), cases[i].reason))
			fprintf(stderr, "probe '%s': %d '%s'\n", cases[i].text,
				err, gt_last_error());
		CHECK_EQ_INT(err, -EINVAL);
		CHECK(strstr(gt_last_error(), cases[i].reason) != NULL);
		CHECK(!strchr(gt_last_error(), '\n'));
		trace_probe__free(&p);
	}
}

/* A finder that knows two types by name. */
static struct go_type point_ptr = { .kind = GO_KIND_PTR, .size = 8, .align = 8,
				    .name = "*main.point" };

static int find_type(void *ctx, const char *name, const struct go_type **out)
{
	if (!strcmp(name, "*main.point")) {
		*out = &point_ptr;
		return 0;
	}
	if (!strcmp(name, "map[string]int")) {
		*out = &go_type_uint64;	/* any word will do here */
		return 0;
	}
	return gt_error(-ENOENT, "no type %s", name);
}

/* (TYPE)(ARG): parsed with the type as written, selectors after; it types
 * its value without DWARF, %v and %T included; unknown types fail. */
TEST(conversions)
{
	const struct trace_type_finder finder = { find_type, NULL };
	const struct go_type *types[TRACE_PROBE_MAX_ARGS];
	struct trace_probe p;
	size_t n;

	CHECK_EQ_INT(trace_probe__parse("f ((*main.point)(goarg2).X > 1) \"%v %d\" "
					"(map[string]int)(goarg1), (*main.point)(goarg2).Y", &p), 0);
	CHECK_EQ_STR(p.convs[0].expr.conv, "map[string]int");
	CHECK_EQ_STR(p.convs[1].expr.conv, "*main.point");
	CHECK_EQ_INT(p.convs[1].expr.nfields, 1);
	CHECK_EQ_STR(p.convs[1].expr.fields[0], "Y");
	CHECK_EQ_STR(p.terms[0].expr.conv, "*main.point");
	CHECK_EQ_INT(trace_probe__types(&p, false, &finder, types, &n), 0);
	CHECK_EQ_INT(n, 2);
	CHECK(types[0] == &go_type_uint64);
	CHECK(types[1] == &point_ptr);
	/* without type data: refused */
	CHECK(trace_probe__types(&p, false, NULL, types, &n) < 0);
	trace_probe__free(&p);

	CHECK_EQ_INT(trace_probe__parse("f \"%v\" (*main.nosuch)(goarg1)", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, &finder, types, &n), -ENOENT);
	CHECK(strstr(gt_last_error(), "main.nosuch") != NULL);
	trace_probe__free(&p);

	CHECK(trace_probe__parse("f \"%v\" (*main.point)goarg1", &p) < 0);
	trace_probe__free(&p);
	CHECK(trace_probe__parse("f \"%v\" (*main.point(goarg1)", &p) < 0);
	trace_probe__free(&p);
	CHECK(trace_probe__parse("f \"%v\" ()(goarg1)", &p) < 0);
	trace_probe__free(&p);
}

TEST(types_in_order)
{
	const struct go_type *types[TRACE_PROBE_MAX_ARGS];
	struct trace_probe p;
	size_t n;

	CHECK_EQ_INT(trace_probe__parse("f \"%s %d %s\" goarg2, goarg1, goarg2", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), 0);
	CHECK_EQ_INT(n, 2);
	CHECK(types[0] == &go_type_int);
	CHECK(types[1] == &go_type_string);
	CHECK_EQ_INT(trace_probe__types(&p, true, NULL, types, &n), 0);
	CHECK_EQ_INT(n, 0);
	trace_probe__free(&p);

	/* a gap: goarg1's type decides where goarg3 lives */
	CHECK_EQ_INT(trace_probe__parse("f \"%d %d\" goarg2, goarg3", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), -EINVAL);
	CHECK(strstr(gt_last_error(), "goarg3 needs the type of goarg1") != NULL);
	trace_probe__free(&p);

	CHECK_EQ_INT(trace_probe__parse("f \"%d %s\" goarg1, goarg1", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), -EINVAL);
	CHECK(strstr(gt_last_error(), "two different types") != NULL);
	trace_probe__free(&p);

	CHECK_EQ_INT(trace_probe__parse("r:f \"%t %s\" goret2, retval", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, true, NULL, types, &n), 0);
	CHECK_EQ_INT(n, 2);
	CHECK(types[0] == &go_type_string);
	CHECK(types[1] == &go_type_bool);
	trace_probe__free(&p);
}

/* Print conversion CONV of value V into a string (static storage). */
static const char *print(const char *conv, const struct trace_value *v)
{
	static char *buf;
	struct trace_probe p;
	char text[64];
	size_t len;
	FILE *f;

	free(buf);
	buf = NULL;
	snprintf(text, sizeof(text), "f \"%s\" goarg1", conv);
	if (trace_probe__parse(text, &p))
		return "(parse error)";
	f = open_memstream(&buf, &len);
	if (!f) {
		trace_probe__free(&p);
		return "(no memory)";
	}
	fputs(p.convs[0].prefix, f);
	trace_conv__print(f, &p.convs[0], v);
	fputs(p.suffix, f);
	fclose(f);
	trace_probe__free(&p);
	return buf;
}

static const char *print_word(const char *conv, uint64_t w)
{
	struct trace_value v = { .word = w };

	return print(conv, &v);
}

TEST(print_integers)
{
	CHECK_EQ_STR(print_word("%d", 42), "42");
	CHECK_EQ_STR(print_word("%d", (uint64_t)-13), "-13");
	CHECK_EQ_STR(print_word("%d", 0x8000000000000000ULL), "-9223372036854775808");
	/* a register's upper bytes are garbage below the value's width */
	CHECK_EQ_STR(print_word("%hhd", 0xdeadbeefcafe00ffULL), "-1");
	CHECK_EQ_STR(print_word("%w8d", 0x1234567f), "127");
	CHECK_EQ_STR(print_word("%hd", 0xffff8000), "-32768");
	CHECK_EQ_STR(print_word("%w32d", 0xaaaaaaaa80000000ULL), "-2147483648");
	CHECK_EQ_STR(print_word("%w32u", 0xaaaaaaaaffffffffULL), "4294967295");
	CHECK_EQ_STR(print_word("%hhu", 0x1ff), "255");
	CHECK_EQ_STR(print_word("%u", ~0ULL), "18446744073709551615");
	CHECK_EQ_STR(print_word("%x", 0xc000012345ULL), "c000012345");
	CHECK_EQ_STR(print_word("%hx", 0xabcdef), "cdef");
}

TEST(print_others)
{
	CHECK_EQ_STR(print_word("%p", 0xc00006ef20ULL), "0xc00006ef20");
	CHECK_EQ_STR(print_word("%p", 0), "<nil>");
	CHECK_EQ_STR(print_word("%t", 0xff01), "true");
	CHECK_EQ_STR(print_word("%t", 0xff00), "false");
	CHECK_EQ_STR(print_word("%c", 'A'), "A");
	CHECK_EQ_STR(print_word("%c", 0xe9), "\xc3\xa9");
	CHECK_EQ_STR(print_word("%c", 0x20ac), "\xe2\x82\xac");
	CHECK_EQ_STR(print_word("%c", 0x1f600), "\xf0\x9f\x98\x80");
	CHECK_EQ_STR(print_word("%c", 0xd800), "\xef\xbf\xbd");
}

TEST(print_strings_and_markers)
{
	struct trace_value v = { .str = "h\xc3\xa9llo", .str_len = 6 };

	CHECK_EQ_STR(print("%s", &v), "h\xc3\xa9llo");
	v.str_len = 3;
	v.truncated = true;
	CHECK_EQ_STR(print("[%s]", &v), "[h\xc3\xa9...]");
	v.str_len = 0;
	v.truncated = false;
	CHECK_EQ_STR(print("[%s]", &v), "[]");
	v.unreadable = "<fault>";
	CHECK_EQ_STR(print("%s", &v), "<fault>");
	v.unreadable = "<xmm>";
	CHECK_EQ_STR(print("%f", &v), "<xmm>");
}

static const char *print_double(const char *conv, double d)
{
	uint64_t w;

	memcpy(&w, &d, sizeof(w));
	return print_word(conv, w);
}

static const char *print_float32(float x)
{
	uint32_t w;

	memcpy(&w, &x, sizeof(w));
	return print_word("%w32f", 0xdeadbeef00000000ULL | w);
}

/* Against Go 1.19: fmt.Println(1e6, 123456789.0, 123456.0, 0.0001,
 * 0.00001, 3.5, float32(0.1), float32(1.5e7), 1e21, 0.0, -2.25) printed
 * 1e+06 1.23456789e+08 123456 0.0001 1e-05 3.5 0.1 1.5e+07 1e+21 0 -2.25 */
TEST(print_floats_as_go)
{
	CHECK_EQ_STR(print_double("%f", 1e6), "1e+06");
	CHECK_EQ_STR(print_double("%f", 123456789.0), "1.23456789e+08");
	CHECK_EQ_STR(print_double("%f", 123456.0), "123456");
	CHECK_EQ_STR(print_double("%f", 0.0001), "0.0001");
	CHECK_EQ_STR(print_double("%f", 0.00001), "1e-05");
	CHECK_EQ_STR(print_double("%g", 3.5), "3.5");
	CHECK_EQ_STR(print_float32(0.1f), "0.1");
	CHECK_EQ_STR(print_float32(1.5e7f), "1.5e+07");
	CHECK_EQ_STR(print_double("%f", 1e21), "1e+21");
	CHECK_EQ_STR(print_double("%f", 0.0), "0");
	CHECK_EQ_STR(print_double("%f", -2.25), "-2.25");
	CHECK_EQ_STR(print_double("%f", 0.1), "0.1");
	CHECK_EQ_STR(print_double("%f", INFINITY), "+Inf");
	CHECK_EQ_STR(print_double("%f", -INFINITY), "-Inf");
	CHECK_EQ_STR(print_double("%f", NAN), "NaN");
}

TEST(expressions)
{
	struct trace_probe p;

	CHECK_EQ_INT(trace_probe__parse("main.f \"%s %d %d %s\" r.URL.Path, len(b), cap( goarg2 ), name",
					&p), 0);
	CHECK_EQ_INT(p.nconvs, 4);
	CHECK_EQ_INT(p.convs[0].expr.arg, TRACE_ARG_NAME);
	CHECK_EQ_STR(p.convs[0].expr.name, "r");
	CHECK_EQ_INT(p.convs[0].expr.nfields, 2);
	CHECK_EQ_STR(p.convs[0].expr.fields[0], "URL");
	CHECK_EQ_STR(p.convs[0].expr.fields[1], "Path");
	CHECK_EQ_STR(p.convs[0].expr.text, "r.URL.Path");
	CHECK_EQ_INT(p.convs[1].expr.fn, TRACE_FN_LEN);
	CHECK_EQ_STR(p.convs[1].expr.name, "b");
	CHECK_EQ_INT(p.convs[2].expr.fn, TRACE_FN_CAP);
	CHECK_EQ_INT(p.convs[2].expr.arg, TRACE_ARG_GOARG);
	CHECK_EQ_INT(p.convs[2].expr.index, 1);
	CHECK_EQ_INT(p.convs[3].expr.fn, TRACE_FN_NONE);
	CHECK_EQ_INT(p.convs[3].kind, TRACE_CONV_STR);
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.f \"%d\" r.pts[1].x", &p), 0);
	CHECK_EQ_INT(p.convs[0].expr.nfields, 3);
	CHECK_EQ_STR(p.convs[0].expr.fields[1], "[1]");
	CHECK_EQ_STR(p.convs[0].expr.fields[2], "x");
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.f \"%d\" v[i]", &p), -EINVAL);
	CHECK(strstr(gt_last_error(), "constant N") != NULL);
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("r:main.f \"%T\" err", &p), 0);
	CHECK_EQ_INT(p.convs[0].kind, TRACE_CONV_TYPE);
	CHECK_EQ_INT(p.convs[0].expr.arg, TRACE_ARG_NAME);
	trace_probe__free(&p);
}

TEST(filters)
{
	struct trace_probe p;

	CHECK_EQ_INT(trace_probe__parse("main.f (goarg1 > -5 && name == \"a\\\"b\" || !ok || p)", &p), 0);
	CHECK_EQ_STR(p.target, "main.f");
	CHECK_EQ_INT(p.nconvs, 0);
	CHECK_EQ_INT(p.nterms, 4);
	CHECK_EQ_INT(p.terms[0].op, TRACE_OP_GT);
	CHECK_EQ_INT(p.terms[0].value, -5);
	CHECK(p.terms[0].negative);
	CHECK(!p.terms[0].or_next);
	CHECK_EQ_INT(p.terms[1].kind, TRACE_CONST_STR);
	CHECK_EQ_INT(p.terms[1].str_len, 3);
	CHECK(!memcmp(p.terms[1].str, "a\"b", 3));
	CHECK(p.terms[1].or_next);
	CHECK_EQ_INT(p.terms[2].op, TRACE_OP_EQ);	/* !ok: ok == 0 */
	CHECK_EQ_INT(p.terms[2].value, 0);
	CHECK(p.terms[2].or_next);
	CHECK_EQ_INT(p.terms[3].op, TRACE_OP_NE);	/* p: p != 0 */
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("r:main.f (retval <= 0x10 && err != nil) \"%d\" retval", &p), 0);
	CHECK_EQ_INT(p.terms[0].op, TRACE_OP_LE);
	CHECK_EQ_INT(p.terms[0].value, 16);
	CHECK_EQ_INT(p.terms[1].value, 0);
	CHECK_EQ_INT(p.nconvs, 1);
	trace_probe__free(&p);
}

/* Without DWARF, a filter or len() types only what nothing else types. */
TEST(types_from_uses)
{
	const struct go_type *types[TRACE_PROBE_MAX_ARGS];
	struct trace_probe p;
	size_t n;

	CHECK_EQ_INT(trace_probe__parse("main.f (goarg1 == \"x\" && goarg3 > 2) \"%d\" len(goarg2)", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), 0);
	CHECK_EQ_INT(n, 3);
	CHECK(types[0] == &go_type_string);
	CHECK(types[1] == &go_type_byte_slice);
	CHECK(types[2] == &go_type_int);
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.f (goarg1 == \"x\") \"%d\" goarg1", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), 0);
	CHECK(types[0] == &go_type_int);	/* the conversion decides */
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.f \"%s\" name", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), -EINVAL);
	CHECK(strstr(gt_last_error(), "needs DWARF") != NULL);
	trace_probe__free(&p);
	CHECK_EQ_INT(trace_probe__parse("main.f \"%d\" goarg1.n", &p), 0);
	CHECK_EQ_INT(trace_probe__types(&p, false, NULL, types, &n), -EINVAL);
	trace_probe__free(&p);
}

int main(void)
{
	RUN(entry_probe_with_format);
	RUN(bcc_comma_binary_and_return);
	RUN(no_format);
	RUN(conversion_types);
	RUN(errors);
	RUN(expressions);
	RUN(filters);
	RUN(types_from_uses);
	RUN(conversions);
	RUN(types_in_order);
	RUN(print_integers);
	RUN(print_others);
	RUN(print_strings_and_markers);
	RUN(print_floats_as_go);
	return TEST_SUMMARY();
}
