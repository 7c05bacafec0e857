/* SPDX-License-Identifier: MIT */
/*
 * Inlined calls from the pclntab inline tree, which survives stripping
 * (`-ldflags=-s -w`) where DWARF does not: FUNCDATA_InlTree of a function
 * is an array of inlinedCall records, and PCDATA_InlTreeIndex maps each of
 * its PCs to the innermost inlined call it belongs to (-1: none).
 * Layouts for Go 1.12 - 1.27; the parser is pure over the pclntab buffer
 * plus a reader of the binary's memory, so that it can be fuzzed.
 */
#ifndef GOTOOLS_PCLNTAB_INLINE_H
#define GOTOOLS_PCLNTAB_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include "core/code_span.h"
#include "gobin/go_binary.h"
#include "gobin/pclntab.h"

/* Point *OUT at LEN bytes of the binary at virtual address VADDR; 0 or a
 * negative errno when they are not in the file. */
typedef int (*pclntab_read_fn)(void *ctx, uint64_t vaddr, size_t len,
			       const uint8_t **out);

/* Where the funcdata of a binary is. */
struct pclntab_funcdata {
	uint64_t gofunc;	/* Go 1.18+: base of funcdata offsets
				 * (moduledata.gofunc); before, funcdata are
				 * absolute addresses and this is unused */
	pclntab_read_fn read;
	void *ctx;
};

struct pclntab_inline_call {
	const char *name;	/* the inlined function; points into the table */
	uint64_t pc;		/* first instruction of this inlined copy */
	uint64_t caller_entry;	/* entry of the function it was inlined into */
	int32_t node;		/* its node in that function's inline tree */
	const void *walk;	/* for pclntab_inline_call__code(), during
				 * the callback only */
};

/* Called once per inlined call; a nonzero return stops the walk and is
 * returned by pclntab__inline_calls(). */
typedef int (*pclntab_inline_fn)(void *ctx,
				 const struct pclntab_inline_call *call);

/*
 * Report every inlined call in function FUNC_INDEX of TAB, in inline-tree
 * order. The site of an inlined call is the lowest PC attributed to it or
 * to a call inlined inside it; calls left with no code are not reported.
 * Returns 0, the callback's nonzero value, -ERANGE for a bad FUNC_INDEX,
 * -EINVAL / -ENOMEM with a reason (error.h), or -EBADMSG with a reason
 * when this one function's tree is rejected: out of the table or memory,
 * or cyclic, so that the runtime's inline unwinder would loop on it (Go
 * 1.25+ writes such trees for some package initializers). A rejected tree
 * reports nothing; the other functions' trees are not affected, and
 * callers walking many functions leave that one out.
 */
int pclntab__inline_calls(const struct pclntab *tab, size_t func_index,
			  const struct pclntab_funcdata *fd,
			  pclntab_inline_fn fn, void *ctx);

/*
 * The code of CALL, during the callback of pclntab__inline_calls() that
 * reports it: the PCs attributed to it or to a call inlined inside it,
 * as merged spans (core/code_span.h) into a malloc()ed *CODE of *N.
 * Returns 0 or -ENOMEM.
 */
int pclntab_inline_call__code(const struct pclntab_inline_call *call,
			      struct code_span **code, size_t *n);

/* The inline tree of one function, for pclntab__inlined_call(). */
struct pclntab_inltree {
	uint64_t calls;		/* address of its inlinedCall array */
	size_t index;		/* its PCDATA_InlTreeIndex table, for
				 * pclntab_pcvalue__init() */
};

/* Find the inline tree of function I of TAB: 0, 1 when it has none,
 * -ERANGE for a bad I, -EINVAL with a reason, or -EBADMSG with a reason
 * when the function's record points out of the table. It is not checked:
 * pclntab__inline_calls() is what rejects a tree. */
int pclntab__func_inltree(const struct pclntab *tab, size_t i,
			  const struct pclntab_funcdata *fd,
			  struct pclntab_inltree *t);

/*
 * Inlined call NODE of T, the tree of function I: the inlined function's
 * name, and parentPc, the offset from the entry of an instruction whose
 * position (file, line and inline index) is the call site, as the
 * runtime's inline unwinder reads it. Returns 0, -EINVAL with a reason,
 * or -EBADMSG with a reason for a record or name out of range.
 */
int pclntab__inlined_call(const struct pclntab *tab, size_t i,
			  const struct pclntab_funcdata *fd,
			  const struct pclntab_inltree *t, int32_t node,
			  const char **name, int32_t *parent_pc);

/*
 * Locate the funcdata of BIN (whose pclntab must be parsed): for Go 1.18+
 * through runtime.firstmoduledata, found by its pointer to the pclntab.
 * Returns 0, -ENOENT when BIN has no pclntab, or -ENOTSUP with a reason
 * when the layout is too old or moduledata cannot be found.
 */
int pclntab_funcdata__init(struct pclntab_funcdata *fd,
			   const struct go_binary *bin);

#endif
