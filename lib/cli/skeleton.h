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

#endif
