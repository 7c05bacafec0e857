/* SPDX-License-Identifier: MIT */
/*
 * DWARF kept apart from a stripped binary, in a separate debug file:
 * named by the user (--debug-file), or found where gdb, perf and bpftrace
 * look: /usr/lib/debug/.build-id/NN/REST.debug by the binary's GNU build
 * ID (where Debian's -dbgsym packages install), or the file its
 * .gnu_debuglink names, next to it, in its .debug/ or under
 * /usr/lib/debug. elfutils' libdwfl searches those places and checks that
 * a file it finds belongs to the binary (the build ID, else the debuglink's
 * CRC); a named file is checked against the build ID when both have one.
 * Never over the network: debuginfod servers are not asked.
 */
#ifndef GOTOOLS_DEBUG_FILE_H
#define GOTOOLS_DEBUG_FILE_H

#include <elfutils/libdw.h>
#include "elf/elf_file.h"

struct debug_file;

/*
 * The DWARF of binary EF from its separate debug file: NAMED (NULL: search
 * for it). Returns 0 with *OUT and *DW (valid until debug_file__close()),
 * -ENOENT with a reason when there is none, or another negative errno with
 * a reason (a named file that cannot be read, has no DWARF, or whose build
 * ID is not the binary's).
 */
int debug_file__open(const struct elf_file *ef, const char *named,
		     struct debug_file **out, Dwarf **dw);

void debug_file__close(struct debug_file *df);

#endif
