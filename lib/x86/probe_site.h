/* SPDX-License-Identifier: MIT */
/*
 * The counting site of a function of x86-64 code (site/probe_site.h says
 * what a site is): the stack check's cmp (the entry byte) is single-stepped
 * out of line (about 11 us a hit here) and runs again each time morestack
 * restarts the function; its jbe to the morestack tail is emulated (under
 * 1 us) and pt_regs->flags there tells whether it is taken. The choice
 * itself is site/site_code.h's; this file says what each x86-64
 * instruction is.
 */
#ifndef GOTOOLS_PROBE_SITE_H
#define GOTOOLS_PROBE_SITE_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "site/probe_site.h"

/* Choose the counting site of FN (the entry in a binary of another
 * machine). Returns 0, or a negative errno when the code cannot be
 * read. */
int probe_site__for_entry_x86(const struct go_binary *bin,
			      const struct go_func *fn,
			      struct probe_site *site);

/* The choice probe_site__for_entry_x86 makes, on LEN bytes of x86-64
 * code whose first byte (the function's entry) is at virtual address ADDR;
 * NAME_AT recognises runtime.morestack, RESTART_AT (or NULL) tells the
 * restartable sequences. Returns 0, or a negative errno. */
int probe_site__choose_x86(const uint8_t *code, size_t len, uint64_t addr,
			   probe_site_name_fn name_at,
			   probe_site_restart_fn restart_at, void *ctx,
			   struct probe_site *site);

#endif
