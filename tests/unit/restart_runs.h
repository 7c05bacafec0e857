/* SPDX-License-Identifier: MIT */
/*
 * The restartable sequences of an arm64 binary, read here off its
 * pclntab's PCDATA_UnsafePoint table by table (the truth the arm64 site
 * tests hold lib/site to): async preemption resumes such a sequence at its
 * first instruction, so a probe in one but at its last counts twice.
 */
#ifndef GOTOOLS_TEST_RESTART_RUNS_H
#define GOTOOLS_TEST_RESTART_RUNS_H

#include <stdbool.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "gobin/pclntab.h"

/* The end of the restartable sequence at ADDR (PCDATA_UnsafePoint -3 or
 * -4, read here off the pclntab table by table), or 0 when it is in none:
 * async preemption resumes such a sequence at its first instruction. */
static inline uint64_t restart_end(const struct go_binary *bin, uint64_t addr)
{
	long i = pclntab__func_index(bin->pclntab, addr);
	struct pclntab_func_tables t;
	struct pclntab_pcvalue it;

	if (i < 0 || pclntab__func_tables(bin->pclntab, (size_t)i, &t) ||
	    !t.unsafe_point)
		return 0;
	pclntab_pcvalue__init(&it, bin->pclntab, (size_t)i, t.unsafe_point);
	while (pclntab_pcvalue__next(&it) > 0)
		if (addr >= it.pc && addr < it.end)
			return it.val == -3 || it.val == -4 ? it.end : 0;
	return 0;
}

/* Would async preemption make the instruction at ADDR run again? */
static inline bool restarted(const struct go_binary *bin, uint64_t addr)
{
	uint64_t end = restart_end(bin, addr);

	return end && addr + 4 < end;
}

#endif
