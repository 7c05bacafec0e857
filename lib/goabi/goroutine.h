/* SPDX-License-Identifier: MIT */
/*
 * How BPF finds the running goroutine of a Go binary: the TLS slot of the
 * g pointer, and where runtime.g keeps goid, stack.hi and the reason it
 * waits (which the goroutine-state tracker reads: probe/gstate_tracker.h). (Whether a probe
 * reads g from R14 instead is the code's to say: probe/call_sites.h.) Latencies are paired per goroutine and stack depth
 * (stack.hi - SP survives stack copying), never per thread: goroutines
 * migrate between threads mid-call.
 */
#ifndef GOTOOLS_GOROUTINE_H
#define GOTOOLS_GOROUTINE_H

#include <stdbool.h>
#include <stdint.h>
#include "gobin/go_binary.h"

struct goroutine_layout {
	uint32_t goid_offset;		/* runtime.g.goid */
	uint32_t stack_hi_offset;	/* runtime.g.stack.hi */
	uint32_t waitreason_offset;	/* runtime.g.waitreason: a uint8 */
	int64_t tls_g_offset;		/* g = *(fsbase + tls_g_offset) */
	/* gccgo (and only gccgo: the fields above are 0): the running
	 * goroutine's split-stack segment = *(fsbase + tls_segment_offset),
	 * which BPF follows as bpf/gotools.bpf.h's split_stack_frame() says */
	int64_t tls_segment_offset;
};

/*
 * The layout for BIN: offsets from the DWARF type runtime.g when present
 * (go_dwarf.h), else from the Go version, by a table read off runtime2.go
 * of each release; the TLS slot from runtime.tlsg and PT_TLS for cgo /
 * externally linked binaries, else -8. For a gccgo executable, only the
 * TLS slot of its split-stack segment (libgo's g is out of reach). Fails
 * with -ENOTSUP and a reason for a gccgo library (libgo.so: the
 * executable's TLS block holds that slot) or a gccgo program without split
 * stacks, or when the Go version cannot be told or is not in the table.
 */
int goroutine_layout__find(const struct go_binary *bin,
			   struct goroutine_layout *out);

/*
 * The layout of the goroutines that run BIN's code in the program whose
 * executable is the file EXE (NULL: none named): BIN's own, but for a
 * gccgo library (libgo.so), whose goroutines the executable tells apart:
 * then EXE's, which must be built by gccgo (else -ENOTSUP and a reason).
 * A gccgo library without EXE fails as goroutine_layout__find() says.
 */
int goroutine_layout__find_in(const struct go_binary *bin, const char *exe,
			      struct goroutine_layout *out);

#endif
