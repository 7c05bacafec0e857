/* SPDX-License-Identifier: MIT */
/*
 * Calls that the compiler inlined: they have no entry of their own, so the
 * tools probe the first instruction of every inlined copy. Found in DWARF
 * (DW_TAG_inlined_subroutine, read with libdw) when the binary has it, else
 * in the inline tree of the pclntab (stripped binaries), each with its
 * code: its DWARF ranges, or the PCs the inline tree attributes to it.
 */
#ifndef GOTOOLS_INLINE_SITES_H
#define GOTOOLS_INLINE_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "probe/probe_spec.h"

struct inline_site {
	char *name;		/* the inlined function, as Go spells it */
	uint64_t addr;		/* first instruction of this inlined copy */
	uint64_t caller_addr;	/* entry of the function it was inlined into */
	/* its code, with the copies inlined in it: sorted, merged spans
	 * (where site/inline_ends.h finds its ends) */
	struct code_span *code;
	size_t ncode;
};

/* A function whose pclntab inline tree was rejected (pclntab_inline.h):
 * the inlined copies it holds are not among the sites. */
struct inline_rejected {
	const char *func;	/* its name; points into the binary's pclntab */
	uint64_t entry;
	char *reason;		/* one line, as gt_last_error() gave it */
};

struct inline_sites {
	struct inline_site *sites;	/* sorted by name, then addr */
	size_t n;
	/* Functions left out, by entry: only those whose tree names a
	 * function M selects (or a name that cannot be read), so that they
	 * may hide sites of the pattern. Never from DWARF. */
	struct inline_rejected *rejected;
	size_t nrejected, rejected_cap;
};

/*
 * Collect the inlined copies of every function whose name M matches (exact
 * names as in probe_spec.h). A binary without DWARF falls back to the
 * pclntab; one without either yields no sites and returns 0. A function
 * whose pclntab inline tree is rejected is left out and listed in
 * OUT->rejected: that is not an error. Returns a negative errno on corrupt
 * DWARF or a pclntab whose funcdata cannot be found, or out of memory.
 */
int inline_sites__find(const struct go_binary *bin,
		       const struct name_matcher *m,
		       struct inline_sites *out);
void inline_sites__free(struct inline_sites *sites);

#endif
