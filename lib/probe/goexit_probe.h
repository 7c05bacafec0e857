/* SPDX-License-Identifier: MIT */
/*
 * gccgo: a probe where a goroutine ends, libgo's runtime.goexit1. libgo
 * gives a finished goroutine's stack to the next goroutine it starts, and
 * the tools that tell gccgo's goroutines apart by their stacks
 * (goabi/goroutine.h) forget there what they kept of the one that ended.
 */
#ifndef GOTOOLS_GOEXIT_PROBE_H
#define GOTOOLS_GOEXIT_PROBE_H

#include <sys/types.h>
#include <bpf/libbpf.h>
#include "elf/elf_file.h"
#include "probe/uprobes.h"

/*
 * Attach PROG (loaded) to runtime.goexit1: in the file PATH, open as ELF
 * (libgo.so, or a program linked with libgo statically), else in the
 * libgo.so of process PID (0: the one the loader finds). TGID > 0: in that
 * process only. Returns 0 or a negative errno with a reason.
 */
int goexit_probe__attach(struct bpf_program *prog, const struct elf_file *elf,
			 const char *path, pid_t pid, pid_t tgid,
			 struct uprobes **out);

#endif
