/* SPDX-License-Identifier: MIT */
/*
 * The probes of tools that see calls begin and end (gofunclatency,
 * gofuncgraph): each function once, as a row, with an entry probe and one
 * on each of its exits where probe/call_sites.h puts them (never a
 * uretprobe), the row's index in every cookie. An inlined copy has its
 * function's row, an entry probe at its first instruction and one at each
 * of its ends (call_sites__find_inlined()), except in gccgo binaries,
 * whose calls are keyed by SP alone (a copy's SP is its caller's). What
 * cannot be traced is left out (probe/left_out.h).
 */
#ifndef GOTOOLS_CALL_PROBES_H
#define GOTOOLS_CALL_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/name_table.h"
#include "gobin/go_binary.h"
#include "probe/func_probes.h"
#include "probe/left_out.h"
#include "probe/uprobes.h"
#include "site/inline_ends.h"

struct call_probes {
	const char **names;		/* by row */
	size_t nrows;
	struct name_table table;	/* names to rows */
	struct uprobe_list entries, exits;	/* two programs */
	struct left_out left_out;
	size_t ninlined;		/* copies not traced (gccgo) */
	size_t ntraced;			/* functions with probes */
	size_t ncopies;			/* inlined copies with probes */
	struct inline_ends ends;	/* where copies end, of one binary */
	bool verbose;			/* say where each probe goes */
	uint64_t *seen;			/* entries added: a set (open
					 * addressing, 0 empty) */
	size_t seen_cap;		/* a power of two */
};

/* Room for MAX_ROWS functions. Returns 0 or -ENOMEM. */
int call_probes__init(struct call_probes *cp, size_t max_rows, bool verbose);

/*
 * The probes of the functions of FP in BIN (FP must outlive CP: rows name
 * its strings). Functions of one name share a row; a function (by entry)
 * added before is not added again. ROWS, when not NULL, gets each probe's
 * row, or -1 (left out, or added before). Returns 0 or a
 * negative errno with a reason.
 */
int call_probes__add(struct call_probes *cp, const struct go_binary *bin,
		     const struct func_probes *fp, int *rows);

void call_probes__free(struct call_probes *cp);

/* The two links of CP's probes, once attached. */
struct call_links {
	struct uprobes *entries, *exits;
};

/*
 * Attach CP's probes in PATH (PID > 0: that process only): its exits to
 * EXIT, then its entries to ENTRY, in that order, so that every call seen
 * to begin is seen to end (with -S and gofuncgraph's waits, no goroutine
 * is left tracked). On failure nothing stays attached. Returns 0 or a
 * negative errno with a reason.
 */
int call_probes__attach(const struct call_probes *cp, struct bpf_program *entry,
			struct bpf_program *exit, const char *path, pid_t pid,
			struct call_links *out);

/* Detach both links (entries first); L may hold none. */
void call_links__detach(struct call_links *l);

#endif
