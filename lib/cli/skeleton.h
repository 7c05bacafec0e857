/* SPDX-License-Identifier: MIT */
/*
 * Loading a tool's BPF skeleton (bpftool gen skeleton). The tool opens it
 * (X_bpf__open()), sets its read-only data, and hands it here; it destroys
 * it (X_bpf__destroy()) whether the load worked or not.
 */
#ifndef GOTOOLS_SKELETON_H
#define GOTOOLS_SKELETON_H

#include <stddef.h>
#include <bpf/libbpf.h>

/* The reason X_bpf__open() returned NULL, from errno: a negative errno. */
int skeleton__open_error(void);

/*
 * Size MAP (the tool's array of rows) to NENTRIES, prepare every program
 * of S for the uprobes it will attach to (uprobes__prepare()) and load S.
 * Returns 0 or a negative errno with a one-line reason: the privileges a
 * user lacks, or why the kernel refused the programs.
 */
int skeleton__load(struct bpf_object_skeleton *s, struct bpf_map *map,
		   size_t nentries);

/*
 * Store VALUES[0..N) (of the map's value size each) at keys 0..N) of the
 * loaded array MAP: one batch update (Linux 5.6+; else element by
 * element), so that 60,000 rows take one system call. Returns 0 or a
 * negative errno with a reason.
 */
int skeleton__store_array(struct bpf_map *map, const void *values, size_t n);

/* Set the goroutine layout (goabi/goroutine.h) in a skeleton's read-only
 * data RODATA, whose programs read g through gotools.bpf.h: goid_offset,
 * stack_hi_offset, tls_g_offset. */
#define skeleton__set_goroutine(rodata, layout) do {			\
	(rodata)->goid_offset = (layout)->goid_offset;			\
	(rodata)->stack_hi_offset = (layout)->stack_hi_offset;		\
	(rodata)->tls_g_offset = (layout)->tls_g_offset;		\
} while (0)

#endif
