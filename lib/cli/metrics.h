/* SPDX-License-Identifier: MIT */
/*
 * A page of metrics in the two formats Prometheus scrapes: its text format
 * 0.0.4 and OpenMetrics 1.0.0. They differ where a counter is named (the
 * text format's family is the sample's name, NAME_total; OpenMetrics'
 * family is NAME, its sample NAME_total) and in the end of the page
 * (OpenMetrics ends with "# EOF"); histograms, gauges and the escaping of
 * label values are the same. A page is written family by family, each
 * family's samples together, as both formats require.
 *
 * Times are in seconds, as Prometheus names them (_seconds): a count of
 * nanoseconds is written as its exact decimal (metrics__ns_seconds()), so
 * that a histogram's _sum is the sum BPF kept, to the nanosecond.
 */
#ifndef GOTOOLS_METRICS_H
#define GOTOOLS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum metrics_format {
	METRICS_TEXT,		/* text/plain; version=0.0.4 */
	METRICS_OPENMETRICS,	/* application/openmetrics-text; 1.0.0 */
	METRICS_NFORMATS,
};

enum metrics_type {
	METRICS_COUNTER,
	METRICS_GAUGE,
	METRICS_HISTOGRAM,
};

/* A label given to every sample of a page (the traced binary, the
 * process). */
struct metrics_label {
	const char *name;
	const char *value;
};

#define METRICS_MAX_COMMON	4

struct metrics {
	enum metrics_format format;
	char *buf;
	size_t len, cap;
	int error;			/* the first; the page is then void */
	struct metrics_label common[METRICS_MAX_COMMON];
	size_t ncommon;
	/* the family being written, and its type */
	const char *family;
	enum metrics_type type;
	bool has_label;		/* the sample being written has one */
};

/* An empty page of FORMAT whose samples all carry the labels COMMON
 * (NCOMMON, at most METRICS_MAX_COMMON; their strings must outlive it). */
void metrics__init(struct metrics *m, enum metrics_format format,
		   const struct metrics_label *common, size_t ncommon);

/* A family: its NAME (a counter's without _total), TYPE and HELP. */
void metrics__family(struct metrics *m, const char *name,
		     enum metrics_type type, const char *help);

/* A sample of the family: NAME plus SUFFIX ("_total" for a counter is
 * added by the page, "_bucket", "_sum", "_count" for a histogram), its
 * labels (the common ones, then each metrics__label()), its value. */
void metrics__sample_begin(struct metrics *m, const char *suffix);
void metrics__label(struct metrics *m, const char *name, const char *value);
void metrics__sample_end(struct metrics *m, const char *value);

/* A sample with one label of its own (NULL NAME: none) and VALUE. */
void metrics__sample_u64(struct metrics *m, const char *label,
			 const char *label_value, uint64_t value);

/*
 * A histogram's samples, from log2 slots (bpf/hist.h's rule) of values in
 * units of UNIT_NS nanoseconds (a value truncated to the unit): slot k
 * holds values below 2^k units (slots 0 and 1, below 2), so the bucket
 * le="2^k units, in seconds" counts slots 0 to k. Buckets from 2 units
 * up to the first that reaches MAX_NS, then +Inf (the last slot, which
 * also holds whatever is larger, counts in +Inf alone); _sum (SUM_NS in
 * seconds) and _count (the slots' sum, as +Inf). LABEL (NULL: none) is
 * the histogram's own label.
 */
void metrics__histogram(struct metrics *m, const char *label,
			const char *label_value, const uint64_t *slots,
			size_t nslots, uint64_t unit_ns, uint64_t max_ns,
			uint64_t sum_ns);

/* NS nanoseconds as seconds, exact, into BUF (24 bytes or more): "0",
 * "1.5", "0.000000002". Returns BUF. */
char *metrics__ns_seconds(char *buf, size_t size, uint64_t ns);

/* The end of the page: 0, or the negative errno of the first failure (the
 * page is then freed). The page is M->buf, M->len bytes, the caller's to
 * free(). */
int metrics__finish(struct metrics *m);

void metrics__free(struct metrics *m);

/* The format an HTTP Accept header asks for (NULL: none): OpenMetrics
 * when it ranks application/openmetrics-text above text/plain, as
 * Prometheus does, else the text format. */
enum metrics_format metrics__negotiate(const char *accept);

/* The Content-Type of FORMAT. */
const char *metrics__content_type(enum metrics_format format);

#endif
