/* SPDX-License-Identifier: MIT */
/*
 * The Go fixtures, opened by the tests that read them.
 */
#ifndef GOTOOLS_TEST_GO_FIXTURE_H
#define GOTOOLS_TEST_GO_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "test.h"

/* Fixture NAME, opened; with NEED_PCLNTAB, one whose pclntab was kept.
 * NULL, said on stderr, when it cannot be: the caller's check fails. */
static inline struct go_binary *go_fixture__open(const char *name,
						 bool need_pclntab)
{
	struct go_binary *bin = NULL;

	if (go_binary__open(test_fixture(name), &bin)) {
		fprintf(stderr, "cannot open fixture %s: %s\n", name,
			gt_last_error());
		return NULL;
	}
	if (need_pclntab && !bin->pclntab) {
		fprintf(stderr, "%s: no pclntab kept\n", name);
		go_binary__close(bin);
		return NULL;
	}
	return bin;
}

#endif
