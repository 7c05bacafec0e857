// SPDX-License-Identifier: MIT
/*
 * json: strings and bytes as JSON strings. Expected outputs are written
 * out by hand from RFC 8259 and from what Go's encoding/json prints for the
 * same bytes (U+FFFD for each byte that does not begin valid UTF-8).
 */
#include <stdbool.h>
#include <stdlib.h>
#include "core/json.h"
#include "test.h"

/* IN as json_print_bytes() prints its N bytes, or with C_STRING as
 * json_print_string() prints it, must be WANT. */
static void check(const char *in, size_t n, bool c_string, const char *want)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	if (c_string)
		json_print_string(f, in);
	else
		json_print_bytes(f, in, n);
	fclose(f);
	CHECK_EQ_STR(out, want);
	free(out);
}

#define BYTES(s, want) check(s, sizeof(s) - 1, false, want)

TEST(escapes)
{
	BYTES("plain", "\"plain\"");
	BYTES("a\"b\\c", "\"a\\\"b\\\\c\"");
	BYTES("tab\tnl\n", "\"tab\\u0009nl\\u000a\"");
	BYTES("nul\0inside", "\"nul\\u0000inside\"");
	BYTES("", "\"\"");
}

TEST(utf8)
{
	BYTES("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	      "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* a lone continuation byte, a byte that never begins UTF-8 */
	BYTES("a\x80z", "\"a\\ufffdz\"");
	BYTES("\xff", "\"\\ufffd\"");
	/* overlong "/", a surrogate, past U+10FFFF, cut short at the end */
	BYTES("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	BYTES("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	BYTES("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	BYTES("ok\xe2\x82", "\"ok\\ufffd\\ufffd\"");
}

TEST(c_string)
{
	check("x\"y", 0, true, "\"x\\\"y\"");
	/* up to its NUL */
	check("ab\0cd", 0, true, "\"ab\"");
}

int main(void)
{
	RUN(escapes);
	RUN(utf8);
	RUN(c_string);
	return TEST_SUMMARY();
}
