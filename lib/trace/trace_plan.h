/* SPDX-License-Identifier: MIT */
/*
 * gotrace's plans: each probe of each function turned into what its BPF
 * program reads (struct trace_plan, bpf/gotrace.h) and a row that says
 * how to rebuild the printed values from an event (trace_row.h, which
 * reads them back).
 *
 * Types come from DWARF when the binary has it (every parameter, named,
 * with struct fields and pointers to follow), else from the format string
 * (trace_probe__types()); goabi/go_abi.h places them for the binary's
 * calling convention. An expression (r.URL.Path, len(b)) becomes words read in
 * order: a register, a stack slot, or memory off an earlier word, which is
 * how a pointer is followed.
 *
 * A bare probe (no format) prints every argument, or every result, of
 * each function: its row gets a format of its own, "(name=%v, ...)" or
 * "=> (%v, ...)", made from the signature once placed; a value of it
 * that cannot be planned prints <not read> rather than refuse the
 * function (the reason with -v).
 *
 * Entry probes and r: probes sit where probe/call_sites.h says a call
 * begins (SP and the arguments as at entry) and ends (every RET and tail
 * JMP; never a uretprobe: Go copies stacks).
 */
#ifndef GOTOOLS_TRACE_PLAN_H
#define GOTOOLS_TRACE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "probe/func_probes.h"
#include "probe/left_out.h"
#include "gobin/go_binary.h"
#include "goabi/go_dwarf.h"
#include "goabi/go_typedata.h"
#include "goabi/goroutine.h"
#include "trace/plan_table.h"
#include "trace/trace_probe.h"
#include "trace/trace_row.h"
#include "trace/value_types.h"
#include "probe/uprobes.h"
#include "site/inline_ends.h"
#include "gotrace.h"

/* Where a binary keeps goroutines, found once per binary (gccgo's ids
 * are out of reach: zeros). */
struct trace_plan_goroutines {
	const struct go_binary *bin;
	struct goroutine_layout layout;
};

struct trace_plan_set {
	struct trace_row *rows;
	size_t nrows, rows_cap;
	struct plan_table plans;	/* rows alike share a plan */
	struct trace_plan_goroutines *goroutines;
	size_t ngoroutines, goroutines_cap;
	unsigned int str_max;		/* -Z */
	bool verbose;			/* say where each probe goes */
	struct value_types vtypes;	/* of every %v */
	/* functions whose code cannot be decoded, r: of those that never
	 * return */
	struct left_out left_out;
};

/*
 * Plan PROBE for the function of P in BIN, and add its probe sites (its
 * entry, or every return for r:) to SITES. DW is the binary's DWARF or
 * NULL; TD its type data, for conversions ((*main.T)(goarg1)), or NULL. A function whose code cannot be decoded, or for r: that never
 * returns, is added to S->left_out instead. Returns 0, or a negative errno
 * with a one-line reason naming the function (an unknown name or field, a
 * type a conversion cannot print, too many values...).
 */
int trace_plan_set__add(struct trace_plan_set *s, const struct go_binary *bin,
			struct go_dwarf *dw, struct go_typedata *td,
			const struct trace_probe *probe,
			const struct func_probe *p, struct uprobe_list *sites);
/*
 * The same for P, an inlined copy: an entry probe fires at the copy's
 * first instruction, and the values of the format come from where DWARF
 * (DW, or NULL) says Go left the copy's arguments there; what it did not
 * record, or all of it without DWARF, prints as <optimized out>. An r:
 * probe fires at each of the copy's ends (site/inline_ends.h, found with
 * E), where Go records no result: every value prints as <optimized out>.
 * A copy whose filter tests a value not recorded there, or whose ends
 * cannot be told, is added to S->left_out instead.
 */
int trace_plan_set__add_inlined(struct trace_plan_set *s,
				const struct go_binary *bin,
				struct go_dwarf *dw, struct inline_ends *e,
				const struct trace_probe *probe,
				const struct func_probe *p,
				struct uprobe_list *sites);

void trace_plan_set__free(struct trace_plan_set *s);

/* The plan of row ROW (< S->nrows). */
static inline const struct trace_plan *
trace_plan_set__plan(const struct trace_plan_set *s, size_t row)
{
	return &s->plans.plans[s->rows[row].plan];
}

#endif
