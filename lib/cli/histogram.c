// SPDX-License-Identifier: MIT
/*
 * log2 histograms in the format of bcc's print_log2_hist (bcc's Python
 * table.py, which libbpf-tools' trace_helpers.c follows):
 *
 *      nsecs               : count     distribution
 *          2 -> 3          : 5        |****************************************|
 *
 * The unit is left-aligned in 19 columns after 5 spaces (in 29 after 15
 * when the last non-empty slot is above 32, with 20-column bounds and 20
 * stars instead of 40). A row of slot i covers [2^(i-1), 2^i - 1], bcc's
 * bpf_log2l() numbering; bcc prints the row of 1 as "0 -> 1". Our slot 0
 * (values 0 and 1, bpf/hist.h) is folded into that same row, so slot
 * arrays filled by bcc's bpf_log2l() (0 and 1 in slot 1) and by
 * histogram__slot() print the same.
 */
#include <stdbool.h>
#include "cli/histogram.h"
#include "core/json.h"

#define STARS_MAX	40

/* Row ROW (>= 1) of the printed histogram: slot ROW, plus slot 0 in row 1. */
static uint64_t row_count(const uint64_t *slots, unsigned int n,
			  unsigned int row)
{
	uint64_t c = row < n ? slots[row] : 0;

	return row == 1 && n ? c + slots[0] : c;
}

/* Rows [*first, *last] span the non-empty ones; false when all are empty. */
static bool row_span(const uint64_t *slots, unsigned int n,
		     unsigned int *first, unsigned int *last, uint64_t *max)
{
	unsigned int row, rows = n < 2 ? 2 : n;
	bool any = false;
	uint64_t c;

	/* Slots past HIST_NSLOTS have no 64-bit bounds: ignored. */
	if (rows > HIST_NSLOTS)
		rows = HIST_NSLOTS;
	*first = *last = 1;
	*max = 0;
	for (row = 1; row < rows; row++) {
		c = row_count(slots, n, row);
		if (!c)
			continue;
		if (!any)
			*first = row;
		*last = row;
		any = true;
		if (c > *max)
			*max = c;
	}
	return any;
}

static uint64_t row_low(unsigned int row)
{
	return row == 1 ? 0 : 1ull << (row - 1);
}

static uint64_t row_high(unsigned int row)
{
	return (1ull << row) - 1;
}

static void print_stars(FILE *f, uint64_t val, uint64_t val_max, int width)
{
	/* floor(width * val / val_max) without overflowing 64 bits */
	int stars = (int)((unsigned __int128)val * width / val_max);
	int i;

	for (i = 0; i < width; i++)
		fputc(i < stars ? '*' : ' ', f);
}

void histogram__print(FILE *f, const uint64_t *slots, unsigned int n,
		      const char *unit)
{
	unsigned int first, last, row;
	uint64_t max, c;
	bool wide;
	int width;

	if (!row_span(slots, n, &first, &last, &max))
		return;
	wide = last > 32;
	width = wide ? 20 : 10;
	fprintf(f, "%*s%-*s : count     distribution\n", wide ? 15 : 5, "",
		wide ? 29 : 19, unit);
	for (row = first; row <= last; row++) {
		c = row_count(slots, n, row);
		fprintf(f, "%*llu -> %-*llu : %-8llu |", width,
			(unsigned long long)row_low(row), width,
			(unsigned long long)row_high(row),
			(unsigned long long)c);
		print_stars(f, c, max, wide ? STARS_MAX / 2 : STARS_MAX);
		fputs("|\n", f);
	}
}

void histogram__print_json(FILE *f, const uint64_t *slots, unsigned int n,
			   const char *unit)
{
	unsigned int first, last, row;
	uint64_t max;
	bool any = row_span(slots, n, &first, &last, &max);

	fputs("{\"unit\":", f);
	json_print_string(f, unit);
	fputs(",\"buckets\":[", f);
	for (row = first; any && row <= last; row++)
		fprintf(f, "%s{\"low\":%llu,\"high\":%llu,\"count\":%llu}",
			row == first ? "" : ",",
			(unsigned long long)row_low(row),
			(unsigned long long)row_high(row),
			(unsigned long long)row_count(slots, n, row));
	fputs("]}", f);
}
