// SPDX-License-Identifier: MIT
/*
 * histogram: slots and bcc's log2 histogram text.
 *
 * The expected text is written out by hand from bcc's format strings
 * (table.py _print_log2_hist, libbpf-tools print_log2_hist):
 *   header  "     %-19s : count     distribution"
 *           "               %-29s : count     distribution" (last slot > 32)
 *   row     "%10d -> %-10d : %-8d |%-40s|"  (20 / 20 stars when wide)
 * with floor(40 * count / max) stars. JSON is checked by parsing it back
 * with python3.
 */
#include <stdint.h>
#include <unistd.h>
#include "cli/histogram.h"
#include "test.h"

static char *render(const uint64_t *slots, unsigned int n, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (json)
		histogram__print_json(f, slots, n, "nsecs");
	else
		histogram__print(f, slots, n, "nsecs");
	fclose(f);
	return buf;
}

static void check_text(const uint64_t *slots, unsigned int n,
		       const char *expected)
{
	char *got = render(slots, n, 0);

	CHECK_EQ_STR(got, expected);
	free(got);
}

TEST(slot_table)
{
	static const struct { uint64_t v; unsigned int slot; } t[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 2 }, { 3, 2 }, { 4, 3 }, { 7, 3 },
		{ 8, 4 }, { 1023, 10 }, { 1024, 11 }, { 1025, 11 },
		{ 1ull << 32, 33 }, { (1ull << 62) - 1, 62 },
		{ 1ull << 62, 63 }, { 1ull << 63, 63 }, { UINT64_MAX, 63 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (histogram__slot(t[i].v) != t[i].slot)
			fprintf(stderr, "value %llu\n",
				(unsigned long long)t[i].v);
		CHECK_EQ_INT(histogram__slot(t[i].v), t[i].slot);
	}
	/* Every value in [2^(i-1), 2^i) lands in slot i: the rows' bounds. */
	for (i = 2; i < 63; i++) {
		CHECK_EQ_INT(histogram__slot(1ull << (i - 1)), i);
		CHECK_EQ_INT(histogram__slot((1ull << i) - 1), i);
	}
}

TEST(small_values)
{
	uint64_t s[HIST_NSLOTS] = { 0 };

	s[histogram__slot(0)] += 1;
	s[histogram__slot(1)] += 2;
	s[histogram__slot(2)] += 1;
	s[histogram__slot(9)] += 6;
	check_text(s, HIST_NSLOTS,
"     nsecs               : count     distribution\n"
"         0 -> 1          : 3        |********************                    |\n"
"         2 -> 3          : 1        |******                                  |\n"
"         4 -> 7          : 0        |                                        |\n"
"         8 -> 15         : 6        |****************************************|\n");
}

TEST(bcc_numbering_prints_the_same)
{
	/* bcc's bpf_log2l() puts 0 and 1 in slot 1 and leaves slot 0. */
	uint64_t s[HIST_NSLOTS] = { 0 };

	s[1] = 3;
	s[2] = 1;
	s[4] = 6;
	check_text(s, HIST_NSLOTS,
"     nsecs               : count     distribution\n"
"         0 -> 1          : 3        |********************                    |\n"
"         2 -> 3          : 1        |******                                  |\n"
"         4 -> 7          : 0        |                                        |\n"
"         8 -> 15         : 6        |****************************************|\n");
}

TEST(leading_and_trailing_empty_slots_left_out)
{
	uint64_t s[HIST_NSLOTS] = { 0 };

	s[10] = 5;
	s[12] = 2;
	check_text(s, HIST_NSLOTS,
"     nsecs               : count     distribution\n"
"       512 -> 1023       : 5        |****************************************|\n"
"      1024 -> 2047       : 0        |                                        |\n"
"      2048 -> 4095       : 2        |****************                        |\n");
	/* Only the slots given are read. */
	check_text(s, 11,
"     nsecs               : count     distribution\n"
"       512 -> 1023       : 5        |****************************************|\n");
}

TEST(wide_when_last_slot_above_32)
{
	uint64_t s[HIST_NSLOTS] = { 0 };

	s[32] = 4;
	s[33] = 1;
	check_text(s, HIST_NSLOTS,
"               nsecs                         : count     distribution\n"
"          2147483648 -> 4294967295           : 4        |********************|\n"
"          4294967296 -> 8589934591           : 1        |*****               |\n");
	/* 32 is still narrow. */
	s[33] = 0;
	check_text(s, HIST_NSLOTS,
"     nsecs               : count     distribution\n"
"2147483648 -> 4294967295 : 4        |****************************************|\n");
	/* The last slot. */
	s[32] = 0;
	s[63] = 12345678901ull;
	check_text(s, HIST_NSLOTS,
"               nsecs                         : count     distribution\n"
" 4611686018427387904 -> 9223372036854775807  : 12345678901 |********************|\n");
}

TEST(empty_prints_nothing)
{
	uint64_t s[HIST_NSLOTS] = { 0 };
	char *got;

	check_text(s, HIST_NSLOTS, "");
	check_text(s, 0, "");
	got = render(s, 0, 1);
	CHECK_EQ_STR(got, "{\"unit\":\"nsecs\",\"buckets\":[]}");
	free(got);
}

TEST(slot_zero_alone)
{
	uint64_t s[1] = { 7 };

	check_text(s, 1,
"     nsecs               : count     distribution\n"
"         0 -> 1          : 7        |****************************************|\n");
}

/* Parse JSON with python3 and print it back in a fixed form. */
static char *python_roundtrip(const char *json)
{
	char path[] = "/tmp/test_histogram.XXXXXX", cmd[256];
	static char out[4096];
	size_t len;
	FILE *p;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	len = strlen(json);
	if (write(fd, json, len) != (ssize_t)len) {
		close(fd);
		unlink(path);
		return NULL;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "print(d[\"unit\"], \";\".join(\"%%d-%%d:%%d\" %% (b[\"low\"], "
		 "b[\"high\"], b[\"count\"]) for b in d[\"buckets\"]))' %s",
		 path);
	p = popen(cmd, "r");
	if (!p) {
		unlink(path);
		return NULL;
	}
	len = fread(out, 1, sizeof(out) - 1, p);
	out[len] = 0;
	if (pclose(p) != 0)
		out[0] = 0;
	unlink(path);
	return out;
}

TEST(json_parses_back)
{
	uint64_t s[HIST_NSLOTS] = { 0 };
	char *got;

	s[0] = 1;
	s[3] = 2;
	s[5] = 9;
	s[63] = 1;
	got = render(s, HIST_NSLOTS, 1);
	CHECK(got != NULL);
	if (!got)
		return;
	CHECK_EQ_STR(python_roundtrip(got), "nsecs 0-1:1;2-3:0;4-7:2;8-15:0;"
		     "16-31:9;32-63:0;64-127:0;128-255:0;256-511:0;512-1023:0;"
		     "1024-2047:0;2048-4095:0;4096-8191:0;8192-16383:0;"
		     "16384-32767:0;32768-65535:0;65536-131071:0;"
		     "131072-262143:0;262144-524287:0;524288-1048575:0;"
		     "1048576-2097151:0;2097152-4194303:0;4194304-8388607:0;"
		     "8388608-16777215:0;16777216-33554431:0;"
		     "33554432-67108863:0;67108864-134217727:0;"
		     "134217728-268435455:0;268435456-536870911:0;"
		     "536870912-1073741823:0;1073741824-2147483647:0;"
		     "2147483648-4294967295:0;4294967296-8589934591:0;"
		     "8589934592-17179869183:0;17179869184-34359738367:0;"
		     "34359738368-68719476735:0;68719476736-137438953471:0;"
		     "137438953472-274877906943:0;274877906944-549755813887:0;"
		     "549755813888-1099511627775:0;"
		     "1099511627776-2199023255551:0;"
		     "2199023255552-4398046511103:0;"
		     "4398046511104-8796093022207:0;"
		     "8796093022208-17592186044415:0;"
		     "17592186044416-35184372088831:0;"
		     "35184372088832-70368744177663:0;"
		     "70368744177664-140737488355327:0;"
		     "140737488355328-281474976710655:0;"
		     "281474976710656-562949953421311:0;"
		     "562949953421312-1125899906842623:0;"
		     "1125899906842624-2251799813685247:0;"
		     "2251799813685248-4503599627370495:0;"
		     "4503599627370496-9007199254740991:0;"
		     "9007199254740992-18014398509481983:0;"
		     "18014398509481984-36028797018963967:0;"
		     "36028797018963968-72057594037927935:0;"
		     "72057594037927936-144115188075855871:0;"
		     "144115188075855872-288230376151711743:0;"
		     "288230376151711744-576460752303423487:0;"
		     "576460752303423488-1152921504606846975:0;"
		     "1152921504606846976-2305843009213693951:0;"
		     "2305843009213693952-4611686018427387903:0;"
		     "4611686018427387904-9223372036854775807:1\n");
	free(got);
	/* The unit is escaped. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(f != NULL);
		if (!f)
			return;
		histogram__print_json(f, s, 4, "a\"b\\c");
		fclose(f);
		CHECK_EQ_STR(python_roundtrip(buf), "a\"b\\c 0-1:1;2-3:0;4-7:2\n");
		free(buf);
	}
}

int main(void)
{
	RUN(slot_table);
	RUN(small_values);
	RUN(bcc_numbering_prints_the_same);
	RUN(leading_and_trailing_empty_slots_left_out);
	RUN(wide_when_last_slot_above_32);
	RUN(empty_prints_nothing);
	RUN(slot_zero_alone);
	RUN(json_parses_back);
	return TEST_SUMMARY();
}
