/* SPDX-License-Identifier: MIT */
/*
 * An event of gotrace's BPF program (bpf/gotrace.h) read back: checked
 * against its row's plan as the ring buffer hands it over (the strings
 * the plan reads, the %v memory BPF sent, parsed), and each value the
 * format prints rebuilt from it: a %T's dynamic type named, a %v printed
 * as Go's fmt prints it (value_print.h).
 */
#ifndef GOTOOLS_TRACE_EVENT_H
#define GOTOOLS_TRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "trace/trace_plan.h"
#include "trace/trace_probe.h"
#include "trace/trace_row.h"
#include "trace/traced_binary.h"
#include "trace/value_print.h"
#include "gotrace.h"

/*
 * Is E, SIZE bytes from the ring buffer, a whole event of S: one of S's
 * rows, with the words its plan reads, its frames (-U), the strings its
 * plan reads and, for %v (but at a tail call, which reads nothing), the
 * memory BPF read, parsed into MEM? Returns 0, or -EINVAL for an event to
 * drop.
 */
int trace_event__check(const struct trace_event *e, size_t size,
		       const struct trace_plan_set *s, struct value_memory *mem);

/*
 * DATA, SIZE bytes of a checked event, as a whole struct trace_event: BPF
 * sends an event without strings only as far as its words or frames
 * (bpf/gotrace.h), and the rest of its fixed part is read as zeros, from
 * a copy in WHOLE. Returns DATA itself when it has its fixed part.
 */
const struct trace_event *trace_event__whole(const void *data, size_t size,
					     struct trace_event *whole);

/* What the values of an event are rebuilt with. */
struct trace_event_ctx {
	struct traced_binary *tb;	/* its row's binary, which names its
					 * types (NULL: none is named) */
	const struct value_memory *mem;	/* %v: its memory */
	unsigned int str_max;		/* bytes of a string (-Z) */
};

/* Where a value's %T name or %v text is kept while it is printed. */
struct trace_value_text {
	char type[TRACE_STR_MAX + 1];
	char *text;			/* %v, malloc()ed: free() it */
};

/*
 * Value conversion I of ROW in event E into V, for trace_conv__print():
 * a %T with its dynamic type named (gccgo's type descriptor string without
 * its quoted package paths, else the descriptor's address named by the
 * type data, or "<type 0xADDR>"; NULL for a nil interface), a %v printed
 * as text ("<out of memory>" when it cannot be). Names and text are kept
 * in TEXT: free TEXT->text after.
 */
void trace_event__value(const struct trace_event *e,
			const struct trace_row *row, size_t i,
			struct trace_event_ctx *ctx, struct trace_value *v,
			struct trace_value_text *text);

/* %v: value conversion I of ROW in event E printed to F, as text or as a
 * JSON value (JSON). */
void trace_event__print_value(const struct trace_event *e,
			      const struct trace_row *row, size_t i,
			      struct trace_event_ctx *ctx, FILE *f, bool json);

#endif
