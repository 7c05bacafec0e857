/* SPDX-License-Identifier: MIT */
/* One frame of a PC's position (pcline.h), as both of its sources, the
 * pclntab and DWARF (pcline_dwarf.h), return it. */
#ifndef GOTOOLS_PCLINE_FRAME_H
#define GOTOOLS_PCLINE_FRAME_H

#include <stdbool.h>
#include <stdint.h>

struct pcline_frame {
	const char *func;	/* "main.add", "fmt.Fprintf"; owned by the reader */
	const char *file;	/* "/home/u/app/main.go"; "?" when unknown */
	int line;		/* 0 when unknown */
	bool inlined;		/* this frame was inlined into the next one */
	uint64_t func_entry;	/* entry address of the out-of-line function
				 * that holds PC (same for all frames of PC) */
};

#endif
