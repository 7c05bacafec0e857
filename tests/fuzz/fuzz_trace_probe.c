// SPDX-License-Identifier: MIT
/*
 * Parse arbitrary probes; when one parses, its types are asked for and
 * each conversion printed with an arbitrary value taken from the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "trace/trace_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct go_type *types[TRACE_PROBE_MAX_ARGS];
	struct trace_value v = { 0 };
	struct trace_probe p;
	char *buf = malloc(size + 1);
	size_t n, i;
	FILE *f;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	memcpy(&v.word, data, size < 8 ? size : 8);
	v.str = buf;
	v.str_len = strlen(buf);
	if (!trace_probe__parse(buf, &p)) {
		if (!p.target || !*p.target || !p.suffix ||
		    p.nconvs > TRACE_PROBE_MAX_ARGS)
			abort();
		trace_probe__types(&p, false, NULL, types, &n);
		trace_probe__types(&p, true, NULL, types, &n);
		f = fopen("/dev/null", "w");
		for (i = 0; f && i < p.nconvs; i++) {
			/* every conversion but %v gives a type */
			if (!p.convs[i].prefix ||
			    !p.convs[i].type != (p.convs[i].kind == TRACE_CONV_VALUE))
				abort();
			trace_conv__print(f, &p.convs[i], &v);
			trace_conv__print_json(f, &p.convs[i], &v);
		}
		if (f)
			fclose(f);
	}
	trace_probe__free(&p);
	free(buf);
	return 0;
}
