// SPDX-License-Identifier: MIT
/*
 * call_probes: what gofunclatency and gofuncgraph attach. On real fixtures:
 * every function matched gets a row, an entry probe and its exits (those
 * call_sites finds, with the row in every cookie), or is left out with a
 * reason; so does every inlined copy, in its function's row, at its first
 * instruction and its ends (those code that skips it joins included), all
 * with the copy's number; a name keeps one row; a function or copy
 * added twice is probed once. Go 1.19's runtime.gcWriteBarrierR8, whose
 * entry the kernel would run wrongly, is left out as the kernel's.
 */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "probe/call_probes.h"
#include "probe/call_sites.h"
#include "probe/machine_code.h"
#include "cookie.h"
#include "go_fixture.h"
#include "test.h"

/* Does LIST hold OFFSET with ROW and copy number COPY (0: a function's
 * probe) in its cookie? */
static bool holds(const struct uprobe_list *list, uint64_t offset, int row,
		  __u32 copy)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->offsets[i] == offset &&
		    COOKIE_INDEX(list->cookies[i]) == (__u32)row &&
		    COOKIE_COPY(list->cookies[i]) == copy)
			return true;
	return false;
}

/* The copy number of the entry at OFFSET of ROW in LIST (0: none). */
static __u32 copy_at(const struct uprobe_list *list, uint64_t offset, int row)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->offsets[i] == offset &&
		    COOKIE_INDEX(list->cookies[i]) == (__u32)row)
			return COOKIE_COPY(list->cookies[i]);
	return 0;
}

/* Every probe of FP against call_sites and its row. */
static void check_rows(const struct go_binary *bin, const struct func_probes *fp,
		       const struct call_probes *cp, const int *rows)
{
	size_t i, j, nexits = 0, traced = 0, inlined = 0;
	struct inline_ends ends;
	struct call_sites cs;
	__u32 copy;

	machine_code__inline_ends_init(&ends, bin);
	ends.shared_ends = true;	/* as call_probes finds them */
	for (i = 0; i < fp->n; i++) {
		const struct func_probe *p = &fp->probes[i];

		if (rows[i] < 0)	/* left out, or added before */
			continue;
		CHECK(rows[i] < (int)cp->nrows);
		CHECK_EQ_STR(cp->names[rows[i]], p->name);
		if (p->inlined) {
			inlined++;
			CHECK_EQ_INT(call_sites__find_inlined(bin, p, &ends, NULL,
							      &cs), 0);
		} else {
			traced++;
			CHECK_EQ_INT(call_sites__find(bin, p, CALL_SITES_ENTRY |
						      CALL_SITES_EXITS, NULL, &cs), 0);
		}
		/* a copy's entry and ends carry its number */
		copy = p->inlined ? copy_at(&cp->entries, cs.entry_offset,
					    rows[i]) : 0;
		CHECK(!p->inlined || copy != 0);
		CHECK(holds(&cp->entries, cs.entry_offset, rows[i], copy));
		for (j = 0; j < cs.nexits; j++)
			CHECK(holds(&cp->exits, cs.exits[j].offset, rows[i],
				    copy));
		nexits += cs.nexits;
		call_sites__free(&cs);
	}
	inline_ends__free(&ends);
	CHECK_EQ_INT(traced, cp->ntraced);
	CHECK_EQ_INT(inlined, cp->ncopies);
	CHECK_EQ_INT(cp->entries.n, cp->ntraced + cp->ncopies);
	CHECK_EQ_INT(cp->exits.n, nexits);
}

/* Every function of a whole binary: rows, probes, and what is left out
 * adding up to what was matched. */
TEST(whole_binary)
{
	struct go_binary *bin = go_fixture__open("count-go1.27-default", false);
	struct func_probes fp = { 0 };
	struct call_probes cp;
	size_t i, left = 0, entries, exits;
	int *rows;

	if (!bin) {
		CHECK(!"fixture opens");
		return;
	}
	CHECK_EQ_INT(func_probes__collect(bin, "*", false, &fp), 0);
	rows = calloc(fp.n ? fp.n : 1, sizeof(*rows));
	CHECK_EQ_INT(call_probes__init(&cp, fp.n, false), 0);
	CHECK_EQ_INT(call_probes__add(&cp, bin, &fp, rows), 0);
	check_rows(bin, &fp, &cp, rows);
	for (i = 0; i < LEFT_OUT_NWHY; i++)
		left += cp.left_out.count[i];
	/* a function or copy is traced or left out: nothing else */
	CHECK_EQ_INT(cp.ntraced + cp.ncopies + left - fp.nrefused -
		     cp.left_out.count[LEFT_OUT_INLINE_TREE], fp.n);
	CHECK(cp.ncopies > 1000);
	CHECK(cp.ntraced > 1000);
	CHECK(cp.left_out.count[LEFT_OUT_NO_RETURN] > 0);	/* runtime.throw... */
	/* the same functions again: nothing more */
	entries = cp.entries.n;
	exits = cp.exits.n;
	CHECK_EQ_INT(call_probes__add(&cp, bin, &fp, rows), 0);
	CHECK_EQ_INT(cp.entries.n, entries);
	CHECK_EQ_INT(cp.exits.n, exits);
	for (i = 0; i < fp.n; i++)
		CHECK_EQ_INT(rows[i], -1);
	call_probes__free(&cp);
	func_probes__free(&fp);
	free(rows);
	go_binary__close(bin);
}

/* Go 1.19's write barrier trampolines: all probed but the one that begins
 * with xchg %rax,%r8, left out as an instruction the kernel cannot probe. */
TEST(xchg_r8_left_out)
{
	struct go_binary *bin = go_fixture__open("count-go1.19-default", false);
	struct func_probes fp = { 0 };
	struct call_probes cp;
	int rows[16];
	size_t i, r8 = 0;

	if (!bin) {
		CHECK(!"fixture opens");
		return;
	}
	CHECK_EQ_INT(func_probes__collect(bin, "runtime.gcWriteBarrier*", false, &fp), 0);
	CHECK(fp.n > 2 && fp.n <= 16);
	CHECK_EQ_INT(call_probes__init(&cp, fp.n, false), 0);
	CHECK_EQ_INT(call_probes__add(&cp, bin, &fp, rows), 0);
	for (i = 0; i < fp.n && i < 16; i++) {
		if (strcmp(fp.probes[i].name, "runtime.gcWriteBarrierR8"))
			continue;
		r8++;
		CHECK_EQ_INT(rows[i], -1);
	}
	CHECK_EQ_INT(r8, 1);
	CHECK_EQ_INT(cp.left_out.count[LEFT_OUT_KERNEL], 1);
	CHECK_EQ_INT(cp.ntraced, fp.n - 1);
	check_rows(bin, &fp, &cp, rows);
	call_probes__free(&cp);
	func_probes__free(&fp);
	go_binary__close(bin);
}

int main(void)
{
	RUN(whole_binary);
	RUN(xchg_r8_left_out);
	return TEST_SUMMARY();
}
