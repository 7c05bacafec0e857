/* SPDX-License-Identifier: MIT */
/*
 * Where a call of a Go function begins and where it ends: the one place
 * that decides it for every tool that reads arguments at entry or pairs
 * an entry with a return (gofunclatency, gotrace, gofuncgraph).
 *
 * The entry is passed exactly once per call, with SP and the argument
 * registers as they were at entry: the function's counting site
 * (x86/probe_site.h) when it keeps that state (the stack check's jump,
 * skipped when morestack restarts the function; an emulated instruction
 * that only flag-setting code precedes), else the entry byte.
 *
 * The exits are every RET and every tail JMP of the body (x86/exit_sites.h).
 * Never a uretprobe: it rewrites the return address on the stack, and Go
 * copies stacks. Each exit sees SP as the entry saw it (the return address
 * on top), so an entry and its exit pair by goroutine and stack depth.
 *
 * g: on x86-64, in R14 at the entry and at every exit of register-ABI Go
 * code (its stack check compares against g.stackguard0 through R14), in
 * the thread's TLS slot in other gc code; on arm64, in R28 in all gc code,
 * whatever its ABI; nowhere BPF reads it in gccgo code, whose calls are
 * told apart by SP alone (its stacks never move).
 */
#ifndef GOTOOLS_CALL_SITES_H
#define GOTOOLS_CALL_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "gobin/go_binary.h"
#include "probe/func_probes.h"
#include "probe/left_out.h"
#include "site/probe_site.h"
#include "x86/exit_sites.h"
#include "site/inline_ends.h"

enum call_g {
	CALL_G_TLS,	/* gc: g = *(fsbase + the layout's TLS offset) */
	CALL_G_R14,	/* gc register-ABI code on x86-64: g = R14 */
	CALL_G_R28,	/* gc code on arm64, every ABI: g = R28 */
	CALL_G_NONE,	/* gccgo: no g that BPF reads */
};

struct call_exit {
	uint64_t addr;		/* virtual address of the RET or JMP */
	uint64_t offset;	/* its file offset, for uprobes */
	enum exit_kind kind;
	bool emulated;		/* see struct exit_site */
};

struct call_sites {
	struct probe_site entry;
	uint64_t entry_offset;	/* file offset of entry.addr */
	enum call_g g;
	struct call_exit *exits;	/* by address; NULL unless asked for */
	size_t nexits;
};

enum call_sites_want {
	CALL_SITES_ENTRY = 1,
	CALL_SITES_EXITS = 2,
};

/*
 * The sites of the function of P (an out-of-line function, not an inlined
 * copy), as WANT asks: its entry, its exits, or both. Returns 0, or a
 * negative errno with a reason naming the function (its code cannot be
 * read or decoded, an address outside the file; -EPERM, the kernel cannot
 * probe its entry byte). With LO, a function that cannot be traced is
 * recorded there instead, and 1 returned: its code cannot be read or
 * decoded, the kernel cannot probe its entry, or (exits asked for) it
 * never returns; without LO such a function yields nexits = 0. Call
 * call_sites__free() in every case.
 */
int call_sites__find(const struct go_binary *bin, const struct func_probe *p,
		     unsigned int want, struct left_out *lo,
		     struct call_sites *out);
void call_sites__free(struct call_sites *cs);

/*
 * The ends of P, an inlined copy (site/inline_ends.h; E decodes each
 * caller once for all its copies), as OUT's exits, of kind
 * EXIT_INLINE_END where the copy's code is left, EXIT_RET or
 * EXIT_TAIL_JMP where it ends its caller too, each where SP is as at the
 * copy's entry (the pcsp table says; an end where it is not leaves the
 * copy out), so that entry and end pair by stack depth as a call's do;
 * its entry, P's site; g from TLS on x86-64 (the copy's code is its
 * caller's, whatever its ABI), from R28 on arm64, none in gccgo.
 * Returns as call_sites__find(): with LO, a copy whose ends cannot be
 * told, or that never ends, is recorded there and 1 returned.
 */
int call_sites__find_inlined(const struct go_binary *bin,
			     const struct func_probe *p, struct inline_ends *e,
			     struct left_out *lo, struct call_sites *out);

/*
 * The cookie flags (bpf/cookie.h) of a probe at ADDR in an inlined copy,
 * whose code is its caller's: COOKIE_INLINED; COOKIE_IN_FRAME, the
 * caller's frame set up, unless the pcsp table says it has none there
 * (where nothing says, no return address is read off the stack: a frame
 * missing from -U, never a wrong one). g is read from TLS there on x86-64,
 * whatever the caller's ABI, from R28 on arm64 (COOKIE_G_IN_REG).
 */
uint64_t call_sites__inlined_flags(const struct go_binary *bin, uint64_t addr);

/* The cookie flag (bpf/cookie.h) that tells BPF where g is at the sites
 * of CS: COOKIE_G_IN_REG (R14 or R28), or 0 (TLS; for gccgo, unused). */
uint64_t call_sites__g_flag(const struct call_sites *cs);

/* "g from R14", "g from R28", "g from TLS", "keyed by SP" (gccgo), for
 * -v. */
const char *call_g__str(enum call_g g);

#endif
