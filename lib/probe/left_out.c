// SPDX-License-Identifier: MIT
/* What a tool leaves out of a pattern, and why, said in one line
 * (left_out.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "probe/left_out.h"

int left_out__add(struct left_out *lo, enum left_out_why why,
		  const char *fmt, ...)
{
	char *reason;
	va_list ap;
	int err;

	err = gt_ensure_mem((void **)&lo->v, &lo->cap, sizeof(*lo->v),
			    lo->n + 1);
	if (err)
		return err;
	va_start(ap, fmt);
	err = vasprintf(&reason, fmt, ap);
	va_end(ap);
	if (err < 0)
		return gt_error(-ENOMEM, "out of memory");
	lo->v[lo->n++] = (struct left_out_item){ .why = why, .reason = reason };
	lo->count[why]++;
	return 0;
}

int left_out__add_probes(struct left_out *lo, const struct func_probes *fp)
{
	const struct func_probe *p;
	size_t i;
	int err = 0;

	for (i = 0; i < fp->nrefused && !err; i++) {
		p = &fp->refused[i];
		err = left_out__add(lo, LEFT_OUT_KERNEL,
				    "%s%s: the kernel cannot probe the instruction at 0x%llx",
				    p->name, p->inlined ? " [inlined]" : "",
				    (unsigned long long)p->site.addr);
	}
	for (i = 0; i < fp->nrejected_trees && !err; i++)
		err = left_out__add(lo, LEFT_OUT_INLINE_TREE, "%s",
				    fp->rejected_trees[i].reason);
	return err;
}

int left_out__code_error(struct left_out *lo, int err)
{
	if (err == -ENOMEM)
		return err;
	return left_out__add(lo, LEFT_OUT_CODE, "%s", gt_last_error());
}

void left_out__print(const struct left_out *lo, FILE *f, const char *tool,
		     bool verbose)
{
	/* one, several */
	static const char *const what[LEFT_OUT_NWHY][2] = {
		[LEFT_OUT_KERNEL] = { "call site the kernel cannot probe",
				      "call sites the kernel cannot probe" },
		[LEFT_OUT_INLINE_TREE] = {
			"function whose inline tree Go's runtime cannot walk",
			"functions whose inline trees Go's runtime cannot walk" },
		[LEFT_OUT_CODE] = { "function whose code cannot be decoded",
				    "functions whose code cannot be decoded" },
		[LEFT_OUT_NO_RETURN] = { "function that never returns",
					 "functions that never return" },
		[LEFT_OUT_INLINED_FILTER] = {
			"inlined copy whose arguments a filter cannot test",
			"inlined copies whose arguments a filter cannot test" },
		[LEFT_OUT_INLINED_END] = {
			"inlined copy whose ends cannot be found",
			"inlined copies whose ends cannot be found" },
	};
	const char *sep = "";
	size_t i;

	if (!lo->n)
		return;
	for (i = 0; verbose && i < lo->n; i++)
		fprintf(f, "left out: %s\n", lo->v[i].reason);
	fprintf(f, "%s: %zu left out%s:", tool, lo->n,
		verbose ? "" : " (-v lists them)");
	for (i = 0; i < LEFT_OUT_NWHY; i++) {
		if (!lo->count[i])
			continue;
		fprintf(f, "%s %zu %s", sep, lo->count[i],
			what[i][lo->count[i] > 1]);
		sep = ",";
	}
	fprintf(f, "\n");
}

void left_out__free(struct left_out *lo)
{
	size_t i;

	for (i = 0; i < lo->n; i++)
		free(lo->v[i].reason);
	free(lo->v);
	memset(lo, 0, sizeof(*lo));
}
