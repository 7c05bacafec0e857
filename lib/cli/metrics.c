// SPDX-License-Identifier: MIT
/* A page of metrics in Prometheus' text format or OpenMetrics (metrics.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/error.h"
#include "core/mem.h"
#include "cli/metrics.h"

void metrics__init(struct metrics *m, enum metrics_format format,
		   const struct metrics_label *common, size_t ncommon)
{
	memset(m, 0, sizeof(*m));
	m->format = format;
	if (ncommon > METRICS_MAX_COMMON)
		ncommon = METRICS_MAX_COMMON;
	if (ncommon)
		memcpy(m->common, common, ncommon * sizeof(*common));
	m->ncommon = ncommon;
}

static void put(struct metrics *m, const char *s, size_t n)
{
	int err;

	if (m->error)
		return;
	err = gt_ensure_mem((void **)&m->buf, &m->cap, 1, m->len + n + 1);
	if (err) {
		m->error = err;
		return;
	}
	memcpy(m->buf + m->len, s, n);
	m->len += n;
	m->buf[m->len] = '\0';
}

static void put_str(struct metrics *m, const char *s)
{
	put(m, s, strlen(s));
}

/* A label's value, escaped as both formats escape it: \\, \" and \n;
 * or a HELP text (QUOTES false), where the text format leaves '"' as it
 * is. */
static void put_escaped(struct metrics *m, const char *s, bool quotes)
{
	const char *run = s;

	for (; *s; s++) {
		const char *esc = *s == '\\' ? "\\\\" :
				  *s == '"' && quotes ? "\\\"" :
				  *s == '\n' ? "\\n" : NULL;

		if (!esc)
			continue;
		put(m, run, s - run);
		put_str(m, esc);
		run = s + 1;
	}
	put(m, run, s - run);
}

static const char *const type_names[] = {
	[METRICS_COUNTER] = "counter",
	[METRICS_GAUGE] = "gauge",
	[METRICS_HISTOGRAM] = "histogram",
};

void metrics__family(struct metrics *m, const char *name,
		     enum metrics_type type, const char *help)
{
	/* the text format names a counter's family as its sample */
	const char *total = type == METRICS_COUNTER &&
			    m->format == METRICS_TEXT ? "_total" : "";

	m->family = name;
	m->type = type;
	put_str(m, "# HELP ");
	put_str(m, name);
	put_str(m, total);
	put_str(m, " ");
	put_escaped(m, help, m->format == METRICS_OPENMETRICS);
	put_str(m, "\n# TYPE ");
	put_str(m, name);
	put_str(m, total);
	put_str(m, " ");
	put_str(m, type_names[type]);
	put_str(m, "\n");
}

void metrics__sample_begin(struct metrics *m, const char *suffix)
{
	size_t i;

	put_str(m, m->family);
	put_str(m, m->type == METRICS_COUNTER ? "_total" : suffix ? suffix : "");
	put_str(m, "{");
	m->has_label = false;
	for (i = 0; i < m->ncommon; i++)
		metrics__label(m, m->common[i].name, m->common[i].value);
}

void metrics__label(struct metrics *m, const char *name, const char *value)
{
	if (m->has_label)
		put_str(m, ",");
	m->has_label = true;
	put_str(m, name);
	put_str(m, "=\"");
	put_escaped(m, value, true);
	put_str(m, "\"");
}

void metrics__sample_end(struct metrics *m, const char *value)
{
	put_str(m, "} ");
	put_str(m, value);
	put_str(m, "\n");
	m->has_label = false;
}

void metrics__sample_u64(struct metrics *m, const char *label,
			 const char *label_value, uint64_t value)
{
	char v[24];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	metrics__sample_begin(m, NULL);
	if (label)
		metrics__label(m, label, label_value);
	metrics__sample_end(m, v);
}

char *metrics__ns_seconds(char *buf, size_t size, uint64_t ns)
{
	unsigned long long frac = ns % 1000000000ULL;
	int n;

	n = snprintf(buf, size, "%llu.%09llu",
		     (unsigned long long)(ns / 1000000000ULL), frac);
	/* trailing zeros off, one digit kept after the point */
	while (n > 0 && (size_t)n < size && buf[n - 1] == '0' &&
	       buf[n - 2] != '.')
		buf[--n] = '\0';
	return buf;
}

/* One sample of a histogram: SUFFIX, its own label, le (NULL: none). */
static void histogram_sample(struct metrics *m, const char *suffix,
			     const char *label, const char *label_value,
			     const char *le, const char *value)
{
	metrics__sample_begin(m, suffix);
	if (label)
		metrics__label(m, label, label_value);
	if (le)
		metrics__label(m, "le", le);
	metrics__sample_end(m, value);
}

void metrics__histogram(struct metrics *m, const char *label,
			const char *label_value, const uint64_t *slots,
			size_t nslots, uint64_t unit_ns, uint64_t max_ns,
			uint64_t sum_ns)
{
	char le[32], v[24];
	uint64_t cum = 0;
	size_t k;

	/* the last slot also holds all that is larger: in +Inf alone */
	for (k = 0; k + 1 < nslots; k++) {
		cum += slots[k];
		/* slot 0 (0 and 1 unit) goes with slot 1: below 2 units */
		if (!k)
			continue;
		/* 2^k units, while that fits in 64 bits of nanoseconds */
		if (k >= 64 || unit_ns > (UINT64_MAX >> k))
			break;
		snprintf(v, sizeof(v), "%llu", (unsigned long long)cum);
		histogram_sample(m, "_bucket", label, label_value,
				 metrics__ns_seconds(le, sizeof(le),
						     unit_ns << k), v);
		if ((unit_ns << k) >= max_ns)
			break;
	}
	/* the slots' sum, not the count BPF keeps beside them: a read while
	 * calls end may see one without the other, and +Inf must not be
	 * below a bucket */
	for (cum = 0, k = 0; k < nslots; k++)
		cum += slots[k];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)cum);
	histogram_sample(m, "_bucket", label, label_value, "+Inf", v);
	histogram_sample(m, "_sum", label, label_value, NULL,
			 metrics__ns_seconds(le, sizeof(le), sum_ns));
	histogram_sample(m, "_count", label, label_value, NULL, v);
}

int metrics__finish(struct metrics *m)
{
	if (m->format == METRICS_OPENMETRICS)
		put_str(m, "# EOF\n");
	if (!m->error && !m->buf)
		put_str(m, "");
	if (m->error) {
		metrics__free(m);
		return gt_error(m->error, "out of memory for the metrics");
	}
	return 0;
}

void metrics__free(struct metrics *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = m->cap = 0;
}

/* The q value of one media range's parameters ("; q=0.5"): 1 without. */
static double media_q(const char *params, size_t n)
{
	const char *p = params, *end = params + n;

	while ((p = memchr(p, ';', end - p))) {
		p++;
		while (p < end && *p == ' ')
			p++;
		if (end - p > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
			return strtod(p + 2, NULL);
	}
	return 1;
}

enum metrics_format metrics__negotiate(const char *accept)
{
	double om = 0, text = 0, any = 0, q;
	const char *p = accept, *end;
	size_t n, tn;

	while (p && *p) {
		end = strchr(p, ',');
		n = end ? (size_t)(end - p) : strlen(p);
		while (n && *p == ' ') {
			p++;
			n--;
		}
		tn = strcspn(p, ";, ");
		if (tn > n)
			tn = n;
		q = media_q(p, n);
		if (tn == 28 && !strncasecmp(p, "application/openmetrics-text", tn))
			om = q > om ? q : om;
		else if (tn == 10 && !strncasecmp(p, "text/plain", tn))
			text = q > text ? q : text;
		else if ((tn == 3 && !strncmp(p, "*/*", tn)) ||
			 (tn == 6 && !strncasecmp(p, "text/*", tn)))
			any = q > any ? q : any;
		p = end ? end + 1 : NULL;
	}
	if (text < any)
		text = any;
	return om > 0 && om > text ? METRICS_OPENMETRICS : METRICS_TEXT;
}

const char *metrics__content_type(enum metrics_format format)
{
	return format == METRICS_OPENMETRICS ?
	       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
	       "text/plain; version=0.0.4; charset=utf-8";
}
