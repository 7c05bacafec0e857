/* SPDX-License-Identifier: MIT */
/*
 * Which file to probe: a path, the executable of a running process, or a
 * library by short name the way bcc resolves `go:fmt.*` (libgo.so).
 */
#ifndef GOTOOLS_TARGET_H
#define GOTOOLS_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Resolve BINARY (a path, a short library name such as "go" or "c", or
 * NULL for the process's own executable) for process PID (0: none) into a
 * path the tool can open and attach to. For a process, paths go through
 * /proc/PID/root so that a process in a container works, and a short
 * library name is looked up in /proc/PID/maps first. Without a process, a
 * short name is looked up like the dynamic linker does (ld.so.cache, then
 * the standard directories).
 * Fails with -ESRCH for a PID that does not exist, -ENOENT when nothing is
 * found, each with a reason.
 */
int target__resolve(const char *binary, pid_t pid, char *path, size_t len);

/*
 * Where process PID mapped file PATH: BIAS is added to the file's virtual
 * addresses (0 for a non-PIE executable); FIRST_VADDR is the lowest
 * virtual address of its segments. The mapping is found by device and
 * inode, so that PATH may go through /proc/PID/root. -ENOENT when PID has
 * not mapped the file (yet), -ESRCH when it is gone.
 */
int target__load_bias(pid_t pid, const char *path, uint64_t first_vaddr,
		      uint64_t *bias);

/* Is PID a live process? */
int target__pid_alive(pid_t pid);

#endif
