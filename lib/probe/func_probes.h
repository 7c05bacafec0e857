/* SPDX-License-Identifier: MIT */
/*
 * The probes for a pattern: every function whose name matches, at its
 * counting site (probe_site.h), and every inlined copy of a matching
 * function (inline_sites.h).
 */
#ifndef GOTOOLS_FUNC_PROBES_H
#define GOTOOLS_FUNC_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "probe/inline_sites.h"
#include "site/probe_site.h"

struct func_probe {
	const char *name;	/* the function, as Go spells it */
	bool inlined;		/* an inlined copy, not the function itself */
	uint64_t func_addr;	/* entry of the function, or of the caller an
				 * inlined copy lives in */
	struct probe_site site;
	uint64_t offset;	/* file offset of site.addr, for uprobes */
	/* an inlined copy's code (inline_sites.h), where its ends are */
	const struct code_span *code;
	size_t ncode;
};

struct func_probes {
	struct func_probe *probes;	/* functions first, then inlined copies */
	size_t n;
	/* Sites whose instruction the kernel cannot probe: left out. */
	struct func_probe *refused;
	size_t nrefused;
	size_t nfuncs;		/* how many distinct names are probed */
	char **names;		/* storage for inlined names */
	size_t nnames;
	struct code_span **codes;	/* and for their code */
	size_t ncodes;
	/* Functions whose inline tree was rejected as corrupt
	 * (inline_sites.h): copies of the pattern inlined there are not
	 * probed. Only those whose tree names a function the pattern
	 * selects. */
	struct inline_rejected *rejected_trees;
	size_t nrejected_trees;
};

/*
 * Find the probes for PATTERN (a glob, or a regular expression when REGEX)
 * in BIN. A pattern that equals a function's name exactly matches only that
 * name; else one that names a generic function as its source writes it
 * (probe_spec.h) only that function's instantiations. Returns 0
 * (possibly with no probes: func_probes__find() says so), or a negative
 * errno with a reason.
 */
int func_probes__collect(const struct go_binary *bin, const char *pattern,
			 bool regex, struct func_probes *out);

/*
 * func_probes__collect() for a tool: PATTERN in BIN, opened from PATH.
 * Fails with a one-line reason when nothing is left to probe: "no
 * functions match 'PATTERN' in PATH", or, when the functions that match
 * are all at sites the kernel cannot probe, "the kernel cannot probe the
 * instructions of 'PATTERN' in PATH".
 */
int func_probes__find(const struct go_binary *bin, const char *path,
		      const char *pattern, bool regex, struct func_probes *out);

/*
 * The indexes of FP's probes in the order to plan them: its functions as
 * they are, then its inlined copies by the function they are in, so that
 * each caller is decoded once for all its copies (site/inline_ends.h);
 * into a malloc()ed *ORDER of FP->n. Returns 0 or -ENOMEM.
 */
int func_probes__order_by_caller(const struct func_probes *fp, size_t **order);

void func_probes__free(struct func_probes *fp);

#endif
