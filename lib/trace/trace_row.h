/* SPDX-License-Identifier: MIT */
/*
 * gotrace's rows, read back: a row is one traced function of one probe
 * (its index is the one in its probes' cookies, and in the events they
 * send), with how each printed value is rebuilt from an event's words,
 * strings and %v memory. trace_plan.h makes the rows, at startup; this
 * side runs for every event, in user space, the other way: from what BPF
 * read to the values the format prints.
 */
#ifndef GOTOOLS_TRACE_ROW_H
#define GOTOOLS_TRACE_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "gobin/go_binary.h"
#include "goabi/go_abi.h"
#include "trace/trace_probe.h"
#include "trace/value_print.h"
#include "gotrace.h"

/* A value in registers takes at most the ABI's 9 integer registers. */
#define TRACE_SRC_MAX_WORDS	9

/* How one printed value is rebuilt from an event's words. */
struct trace_src {
	const struct go_type *type;	/* the value's type */
	const char *unreadable;	/* "<xmm>" when BPF cannot read it, or NULL */
	size_t nwords;
	struct {
		uint8_t word;		/* index in the event's words */
		uint8_t value_offset;	/* where its bytes go in the value */
		uint8_t reg_shift;	/* bytes to drop from the word first */
		uint8_t size;
	} w[TRACE_SRC_MAX_WORDS];
	int str;		/* index in the event's strings, or -1 */
	int type_word;		/* %T: the word holding the type, or -1 */
	/* %T of a type parameter's value: TYPE_WORD holds the dictionary
	 * of the call, whose name gives type argument DICT_ARG - 1; 0:
	 * none */
	uint8_t dict_arg;
	/* %v of a struct or array in memory: at the value of word
	 * ROOT_WORD plus ROOT_OFFSET (in the event's chunks), when word
	 * ROOT_GATE (its first bytes) could be read; ROOT_WORD -1: the value
	 * is W's */
	int root_word, root_gate;
	int64_t root_offset;
};

/* One traced function of one probe: the index in its probes' cookies. */
struct trace_row {
	char *func;
	bool inlined;			/* an inlined copy of func */
	const struct go_binary *bin;	/* the function's binary */
	const struct trace_probe *probe;
	/* what it prints: its probe's format, or for a bare probe the one
	 * made for this function (trace_plan.h), kept in OWN_CONVS and
	 * OWN_SUFFIX */
	const struct trace_conv *convs;
	size_t nconvs;
	const char *suffix;
	struct trace_conv *own_convs;
	char *own_suffix;
	struct trace_src *src;		/* one per conversion */
	uint32_t plan;			/* its plan: plans[plan] */
};

/*
 * The value conversion I of ROW prints in event E: scalars in V->word,
 * string bytes (at most STR_MAX), and for %T the runtime address of the
 * dynamic type in V->word (0 for a nil interface; the caller names it).
 * Markers for what could not be read: <xmm>, <fault>, <nil> (behind a nil
 * pointer), <tail call>.
 */
void trace_row__value(const struct trace_row *row, size_t i,
		      const struct trace_event *e, unsigned int str_max,
		      struct trace_value *v);

/*
 * %v: print the value conversion I of ROW prints in event E, whose chunks
 * are P's memory, with P (value_print.h); markers as trace_row__value().
 */
void trace_row__print_value(const struct trace_row *row, size_t i,
			    const struct trace_event *e,
			    const struct value_printer *p);

#endif
