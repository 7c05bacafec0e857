/* SPDX-License-Identifier: MIT */
/*
 * The DWARF half of pcline.h, for binaries without a pclntab (gccgo): the
 * line table gives the innermost position of a PC, the scopes around it
 * (DW_TAG_inlined_subroutine, then DW_TAG_subprogram) the inlined calls
 * and their call sites.
 */
#ifndef GOTOOLS_PCLINE_DWARF_H
#define GOTOOLS_PCLINE_DWARF_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "gobin/pcline_frame.h"

struct pcline_dwarf;

/* Map the DWARF of BIN (go_binary__dwarf()), which must outlive the
 * result. -ENOENT with a reason when BIN has none, -EINVAL with a reason
 * when libdw rejects it. */
int pcline_dwarf__open(const struct go_binary *bin, struct pcline_dwarf **out);
void pcline_dwarf__close(struct pcline_dwarf *d);

/* As pcline__frames(); *N is 0 on entry. */
int pcline_dwarf__frames(struct pcline_dwarf *d, uint64_t pc,
			 struct pcline_frame *out, size_t max, size_t *n);

#endif
