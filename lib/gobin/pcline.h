/* SPDX-License-Identifier: MIT */
/*
 * Source positions of code addresses: the Go function, file and line of a
 * PC, with the calls inlined there, for printing user stacks. Read from
 * the binary's own pclntab (pcfile, pcln and the inline tree), which
 * survives `-ldflags=-s -w`; for binaries without one (gccgo) from DWARF
 * line info and DW_TAG_inlined_subroutine, read with libdw.
 */
#ifndef GOTOOLS_PCLINE_H
#define GOTOOLS_PCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "gobin/pclntab.h"
#include "gobin/pclntab_inline.h"
#include "gobin/pcline_frame.h"

/* Opaque; caches the decoded tables of each function it has been asked
 * about. Not thread-safe. */
struct pcline;

/*
 * Open the positions of BIN, which must outlive the result: from its
 * pclntab, else from its DWARF. -ENOENT with a reason when it has neither,
 * -EINVAL / -ENOMEM with a reason on corrupt DWARF or out of memory. When
 * the funcdata of a pclntab cannot be located (Go < 1.12, no moduledata)
 * the frames lack inlined calls: the function's own frame then carries
 * the position of the innermost inlined code.
 */
int pcline__open(const struct go_binary *bin, struct pcline **out);

/* The same from DWARF alone, even when BIN has a pclntab; -ENOENT when it
 * has no DWARF. */
int pcline__open_dwarf(const struct go_binary *bin, struct pcline **out);

/* The same from a parsed pclntab alone, pure over TAB's buffer and FD's
 * reader (both must outlive the result); FD NULL: no inlined calls. */
int pcline__open_pclntab(const struct pclntab *tab,
			 const struct pclntab_funcdata *fd,
			 struct pcline **out);

void pcline__close(struct pcline *p);

/*
 * The frames at virtual address PC (a file address, not a runtime one:
 * the caller removes the PIE load bias), innermost first: the inlined
 * calls PC belongs to, then the function itself. At most MAX into OUT;
 * *N = number written. -ENOENT when PC is in no function, -EINVAL with a
 * reason for corrupt tables. A function whose inline tree is rejected
 * (pclntab_inline.h: corrupt, or cyclic so that the runtime would loop)
 * is no error: in its inlined code PC gets the function's frame alone, at
 * an unknown position ("?", 0). For a return address the caller passes
 * pc-1 to get the line of the call.
 */
int pcline__frames(struct pcline *p, uint64_t pc, struct pcline_frame *out,
		   size_t max, size_t *n);

#endif
