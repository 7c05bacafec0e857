/* SPDX-License-Identifier: MIT */
/*
 * The goroutine-state tracker, user-space side: which runtime functions
 * its probes go on, where their arguments are, and what its wait reasons
 * are called, per Go version (the BPF side, bpf/gstate.bpf.h, says what
 * the probes do).
 *
 * Sites: runtime.casgstatus(gp, old, new), through which (nearly) every
 * change of a goroutine's status goes; runtime.preemptPark(gp), which
 * parks a goroutine for the GC without it; and from Go 1.27 on (or when
 * the version cannot be told), runtime.reentersyscall and
 * runtime.exitsyscall, whose fast paths set _Gsyscall and back without it.
 * Not followed: coroutine switches (iter.Pull, Go 1.23+), which hand a
 * goroutine's status over without casgstatus; their time counts as the
 * state before the switch.
 *
 * Wait reasons are the runtime's own strings: the table
 * runtime.waitReason.String indexes (runtime.waitReasonStrings), found in
 * its machine code (x86/indexed_table.h), which stripping keeps.
 */
#ifndef GOTOOLS_GSTATE_TRACKER_H
#define GOTOOLS_GSTATE_TRACKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <bpf/libbpf.h>
#include "gobin/go_binary.h"
#include "goabi/goroutine.h"
#include "probe/uprobes.h"
#include "gstate.h"

struct gstate_tracker {
	struct gstate_config config;	/* for the BPF programs' rodata */
	char **reasons;			/* by runtime.waitReason */
	size_t nreasons;
	struct uprobe_list sites;	/* cookies: enum gstate_site */
	struct uprobes *probes;		/* once attached */
	struct bpf_link *switch_link;
	/* the kernel emulates the probed instruction of each site (a hit
	 * costs less than a single-stepped one: x86/uprobe_insn.h) */
	bool emulated[GSTATE_SITES];
	/* once attached: the traced process's hits of each site, a per-CPU
	 * array (bpf/gstate.bpf.h), which --max-overhead counts */
	int hits_fd;
	/* the BPF programs' gstate_off (bss), once attached */
	bool *off;
	bool stopped;			/* by gstate_tracker__stop() */
};

/*
 * The tracker of BIN's goroutines (LAYOUT from goroutine_layout__find()).
 * Fails with a negative errno and a one-line reason: -ENOTSUP for gccgo
 * (libgo's scheduler has no casgstatus to follow), when a site function
 * or the wait reasons cannot be found, or the arguments cannot be placed;
 * -ENOENT when runtime.waitReason.String has not the shape expected; or
 * the error of a read of the file.
 */
int gstate_tracker__open(const struct go_binary *bin,
			 const struct goroutine_layout *layout,
			 struct gstate_tracker **out);

/* The runtime's name of wait reason R ("chan receive"); "" for reasons
 * past the table. */
const char *gstate_tracker__reason(const struct gstate_tracker *t,
				   uint32_t r);

/* The name of slot SLOT of struct gstate_times: "on-CPU", "runnable (P)"
 * (ready, waiting for a P), "runnable (CPU)" (running, its thread off the
 * CPU), "syscall", or the wait reason of a parked slot. */
const char *gstate_tracker__slot_name(const struct gstate_tracker *t,
				      uint32_t slot);

/*
 * Attach SITE_PROG (gstate_site, loaded) to the site functions of the file
 * PATH (PID > 0: in that process only) and SWITCH_PROG (gstate_switch) to
 * sched_switch; SITE_HITS and OFF are their object's gstate_site_hits and
 * gstate_off. Returns 0 or a negative errno with a reason; on failure
 * nothing stays attached.
 */
int gstate_tracker__attach(struct gstate_tracker *t,
			   struct bpf_program *site_prog,
			   struct bpf_program *switch_prog,
			   struct bpf_map *site_hits, bool *off,
			   const char *path, pid_t pid);

/* Detach T's probes (before the BPF object they run is destroyed). */
void gstate_tracker__detach(struct gstate_tracker *t);

/* Over --max-overhead, while the trace goes on: gstate_off set (no
 * goroutine is tracked from then on), then T's probes detached. T is a
 * struct gstate_tracker (an overhead_detach_fn). */
void gstate_tracker__stop(void *t);

/* Did gstate_tracker__stop() stop T? */
bool gstate_tracker__stopped(const struct gstate_tracker *t);

/* Detach and free T (NULL is fine). */
void gstate_tracker__close(struct gstate_tracker *t);

#endif
