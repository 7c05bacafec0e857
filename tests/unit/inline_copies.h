/* SPDX-License-Identifier: MIT */
/*
 * Every inlined copy of a pattern, its ends looked up as the tools plan
 * them, and the words of a switch's jump table read through libelf: what
 * test_inline_ends.c (x86-64, against objdump) and
 * test_arm64_inline_ends.c (arm64, against go tool objdump) share.
 */
#ifndef GOTOOLS_TEST_INLINE_COPIES_H
#define GOTOOLS_TEST_INLINE_COPIES_H

#include <errno.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "probe/func_probes.h"
#include "probe/machine_code.h"
#include "site/inline_ends.h"
#include "go_fixture.h"

/* A jump through a switch's table, line FROM of the listing, to TO. */
struct table_edge {
	uint64_t to;
	size_t from;
};

static inline int cmp_table_edges(const void *a, const void *b)
{
	const struct table_edge *x = a, *y = b;

	return (x->to > y->to) - (x->to < y->to);
}

/* The 8 bytes at VADDR of the file open as ELF and FD, through its
 * PT_LOAD segments (libelf, not the library's reader), into *V. */
static inline bool read_word(Elf *elf, int fd, uint64_t vaddr, uint64_t *v)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    vaddr < ph.p_vaddr || vaddr + 8 > ph.p_vaddr + ph.p_filesz)
			continue;
		return pread(fd, v, 8, (off_t)(ph.p_offset + vaddr -
					       ph.p_vaddr)) == 8;
	}
	return false;
}

/* Called with each inlined copy P of a pattern in BIN, the result ERR of
 * looking its ends up, and those ENDS[N] (freed by the caller); false
 * stops the walk and fails it. */
typedef bool (*copy_fn)(void *ctx, const struct go_binary *bin,
			const struct func_probe *p, int err,
			const struct exit_site *ends, size_t n);

/* Look up the ends of every copy of PATTERN in FIXTURE, in the order the
 * tools plan them (by caller), ends shared with code that skips a copy
 * too with SHARED (as gofunclatency does), and hand each to FN. */
static inline bool each_copy(const char *fixture, const char *pattern,
			     bool shared, copy_fn fn, void *ctx)
{
	struct go_binary *bin = go_fixture__open(fixture, false);
	struct exit_site *ends;
	struct func_probes fp;
	struct inline_ends e;
	size_t *order = NULL, i, n;
	bool ok = true;
	int err;

	if (!bin)
		return false;
	if (func_probes__collect(bin, pattern, false, &fp)) {
		go_binary__close(bin);
		return false;
	}
	ok = !func_probes__order_by_caller(&fp, &order);
	machine_code__inline_ends_init(&e, bin);
	e.shared_ends = shared;
	for (i = 0; ok && i < fp.n; i++) {
		const struct func_probe *p = &fp.probes[order[i]];

		if (!p->inlined)
			continue;
		err = inline_ends__find(&e, p->func_addr, p->site.addr,
					p->code, p->ncode, &ends, &n);
		if (err && err != -ENOENT)
			fprintf(stderr, "  %s: %s\n", fixture, gt_last_error());
		ok = fn(ctx, bin, p, err, ends, n);
		free(ends);
	}
	free(order);
	inline_ends__free(&e);
	func_probes__free(&fp);
	go_binary__close(bin);
	return ok;
}

#endif
