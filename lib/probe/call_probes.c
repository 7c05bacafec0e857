// SPDX-License-Identifier: MIT
/* The entry and exit probes of gofunclatency and gofuncgraph, a row per
 * function (call_probes.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "probe/call_probes.h"
#include "probe/call_sites.h"
#include "probe/machine_code.h"
#include "cookie.h"

int call_probes__init(struct call_probes *cp, size_t max_rows, bool verbose)
{
	memset(cp, 0, sizeof(*cp));
	cp->verbose = verbose;
	for (cp->seen_cap = 16; cp->seen_cap < 2 * max_rows; cp->seen_cap *= 2)
		;
	cp->names = calloc(max_rows ? max_rows : 1, sizeof(*cp->names));
	cp->seen = calloc(cp->seen_cap, sizeof(*cp->seen));
	if (!cp->names || !cp->seen)
		return gt_error(-ENOMEM, "out of memory");
	return name_table__init(&cp->table, max_rows);
}

/* Was the function at ENTRY added before? Marks it added. (An inlined
 * copy's key is copy_key().) */
static bool seen_before(struct call_probes *cp, uint64_t entry)
{
	size_t i = (entry >> 4) * 0x9e3779b97f4a7c15ULL & (cp->seen_cap - 1);

	for (; cp->seen[i]; i = (i + 1) & (cp->seen_cap - 1))
		if (cp->seen[i] == entry)
			return true;
	cp->seen[i] = entry;
	return false;
}

/* The key of the inlined copy P among those added: its first instruction
 * and its function's name (copies nested in each other may start at one
 * address), hashed (FNV-1a) with the top bit set, apart from the entries
 * of functions (user addresses are below 2^63). */
static uint64_t copy_key(const struct func_probe *p)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ p->site.addr;
	const char *c;

	for (c = p->name; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ULL;
	return h | 1ULL << 63;
}

void call_probes__free(struct call_probes *cp)
{
	free(cp->seen);
	free(cp->names);
	inline_ends__free(&cp->ends);
	name_table__free(&cp->table);
	left_out__free(&cp->left_out);
	uprobe_list__free(&cp->entries);
	uprobe_list__free(&cp->exits);
	memset(cp, 0, sizeof(*cp));
}

/* The entry probe and the exit probes CS of P into *ROW, its function's
 * (an inlined copy's is its function's); COPY, an inlined copy's number
 * (0 for a function), in their cookies. */
static int add_sites(struct call_probes *cp, const struct func_probe *p,
		     const struct call_sites *cs, uint64_t flags,
		     uint16_t copy, int *row)
{
	const char *what = p->inlined ? " [inlined]" : "";
	size_t i;
	int err;

	err = name_table__index(&cp->table, p->name, 0);
	if (err < 0)
		return err;
	*row = err;
	cp->names[*row] = p->name;
	cp->nrows = cp->table.n;
	if (cp->verbose)
		fprintf(stderr, "probe %s%s entry at 0x%llx (%s), %s\n",
			p->name, what, (unsigned long long)cs->entry.addr,
			probe_site_kind__str(cs->entry.kind), call_g__str(cs->g));
	/* a copy's entry is no jump to morestack: no skip flags */
	err = uprobe_list__add(&cp->entries, cs->entry_offset,
			       COOKIE_MAKE(*row, copy ? copy :
						 probe_site__cookie_skip(&cs->entry),
					   flags |
					   COOKIE_COST_FLAG(cs->entry.emulated)));
	for (i = 0; i < cs->nexits && !err; i++) {
		if (cp->verbose)
			fprintf(stderr, "probe %s%s exit at 0x%llx (%s)\n",
				p->name, what,
				(unsigned long long)cs->exits[i].addr,
				exit_kind__str(cs->exits[i].kind));
		err = uprobe_list__add(&cp->exits, cs->exits[i].offset,
				       COOKIE_MAKE(*row, copy, flags |
					   COOKIE_COST_FLAG(cs->exits[i].emulated)));
	}
	return err;
}

/* The entry probe and the exit probes of one function into *ROW, or the
 * function left out (-1): its code cannot be decoded, or it never
 * returns. */
static int add_function(struct call_probes *cp, const struct go_binary *bin,
			const struct func_probe *p, int *row)
{
	struct call_sites cs;
	int err;

	*row = -1;
	err = call_sites__find(bin, p, CALL_SITES_ENTRY | CALL_SITES_EXITS,
			       &cp->left_out, &cs);
	if (!err) {
		cp->ntraced++;
		err = add_sites(cp, p, &cs, call_sites__g_flag(&cs), 0, row);
	}
	call_sites__free(&cs);
	return err < 0 ? err : 0;	/* 1: left out */
}

/*
 * The probes of P, an inlined copy, at its first instruction and at its
 * ends (call_sites__find_inlined()), into *ROW, or the copy left out (-1).
 * Its code is its caller's (call_sites__inlined_flags()): SP at its entry
 * and ends is its caller's body's, which pairs them by stack depth as a
 * call's entry and exit are, and by the copy's number (1 to 65535, round
 * again past that: two copies of a function in one frame that far apart
 * do not run at once), so that an end where code that skips the copy
 * joins pairs with nothing when the copy was skipped.
 */
static int add_copy(struct call_probes *cp, const struct go_binary *bin,
		    const struct func_probe *p, int *row)
{
	uint16_t copy;
	struct call_sites cs;
	int err;

	*row = -1;
	err = call_sites__find_inlined(bin, p, &cp->ends, &cp->left_out, &cs);
	if (!err) {
		copy = (uint16_t)(cp->ncopies % COOKIE_SKIP_MASK + 1);
		cp->ncopies++;
		err = add_sites(cp, p, &cs,
				call_sites__inlined_flags(bin, p->site.addr),
				copy, row);
	}
	call_sites__free(&cs);
	return err < 0 ? err : 0;	/* 1: left out */
}

int call_probes__add(struct call_probes *cp, const struct go_binary *bin,
		     const struct func_probes *fp, int *rows)
{
	const struct func_probe *p;
	size_t *order, k, i;
	int err, row;

	if (cp->ends.bin != bin) {
		inline_ends__free(&cp->ends);
		machine_code__inline_ends_init(&cp->ends, bin);
		/* an end pairs with its own copy's entry (COOKIE_COPY) */
		cp->ends.shared_ends = true;
	}
	err = func_probes__order_by_caller(fp, &order);
	for (k = 0; k < fp->n && !err; k++) {
		i = order[k];
		p = &fp->probes[i];
		row = -1;
		/* gccgo's calls are keyed by SP alone: a copy's is its
		 * caller's */
		if (p->inlined && bin->is_gccgo)
			cp->ninlined++;
		else if (p->inlined && !seen_before(cp, copy_key(p)))
			err = add_copy(cp, bin, p, &row);
		else if (!seen_before(cp, p->func_addr))
			err = add_function(cp, bin, p, &row);
		if (rows)
			rows[i] = row;
	}
	free(order);
	return err ?: left_out__add_probes(&cp->left_out, fp);
}

int call_probes__attach(const struct call_probes *cp, struct bpf_program *entry,
			struct bpf_program *exit, const char *path, pid_t pid,
			struct call_links *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	err = uprobes__attach(exit, path, pid, &cp->exits, &out->exits);
	if (!err)
		err = uprobes__attach(entry, path, pid, &cp->entries,
				      &out->entries);
	if (err)
		call_links__detach(out);
	return err;
}

void call_links__detach(struct call_links *l)
{
	uprobes__detach(l->entries);
	uprobes__detach(l->exits);
	l->entries = l->exits = NULL;
}
