/* SPDX-License-Identifier: MIT */
/*
 * The machine code of a binary, read by the decoder of its machine: the
 * one place that asks x86/ for an x86-64 binary and arm64/ for an arm64
 * one (elf_file's machine), so that everything above it, the probes of
 * every tool, is the same on both.
 *
 * The tools probe only code of the machine they run on (the BPF programs
 * are built for it: elf_file__check_machine()); the decoders read either
 * on any machine, which the unit tests use.
 */
#ifndef GOTOOLS_MACHINE_CODE_H
#define GOTOOLS_MACHINE_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "elf/elf_file.h"
#include "gobin/go_binary.h"
#include "site/arg_spills.h"
#include "site/exit_site.h"
#include "site/inline_ends.h"
#include "site/probe_site.h"

/* The counting site of FN (site/probe_site.h). Returns 0, or a negative
 * errno when its code cannot be read or decoded. */
int machine_code__probe_site(const struct go_binary *bin,
			     const struct go_func *fn,
			     struct probe_site *site);

/* Every exit of FN, by address (malloc()ed into *SITES, *N of them), not
 * decoding again the code SITE, FN's counting site, found none in
 * (site/exit_site.h). Returns 0, or a negative errno. */
int machine_code__exit_sites(const struct go_binary *bin,
			     const struct go_func *fn,
			     const struct probe_site *site,
			     struct exit_site **sites, size_t *n);

/* E for the inlined copies of BIN (site/inline_ends.h), with its
 * machine's decoder: inline_ends__init(). */
void machine_code__inline_ends_init(struct inline_ends *e,
				    const struct go_binary *bin);

/* Does the kernel accept a uprobe on the instruction at ADDR of EF? */
bool machine_code__probeable(const struct elf_file *ef, uint64_t addr);

/* Does it emulate (x86-64) or simulate (arm64) that instruction, rather
 * than single-step it? False where it cannot be read. */
bool machine_code__emulated_at(const struct elf_file *ef, uint64_t addr);

/* ADDR, a first instruction of an inlined copy of BIN's; or, when Go's
 * asynchronous preemption would make it run again (it is in a
 * restartable sequence, site/probe_site.h, but not last), the sequence's
 * last instruction, which runs once. */
uint64_t machine_code__once_at(const struct go_binary *bin, uint64_t addr);

/* The length and address of the table FN indexes (x86/indexed_table.h,
 * arm64/indexed_table.h). Returns 0, or -ENOENT with a reason. */
int machine_code__indexed_table(const struct go_binary *bin,
				const struct go_func *fn, uint64_t *table,
				uint64_t *len);

/* Which of the N functions of GROUP, which share a name, are ABI
 * wrappers of another (site/abi_wrapper.h). */
int machine_code__abi_wrappers(const struct go_binary *bin,
			       const struct go_func *const *group, size_t n,
			       bool *wrapper);

/* The argument spills of the morestack tail in the LEN bytes of CODE at
 * ADDR, a function of BIN's (site/arg_spills.h). Returns 0, or -EINVAL
 * with a reason. */
int machine_code__arg_spills(const struct go_binary *bin,
			     const uint8_t *code, size_t len, uint64_t addr,
			     struct arg_spill *out, size_t *n);

#endif
