/* SPDX-License-Identifier: MIT */
/*
 * Loading a tool's BPF skeleton (bpftool gen skeleton). The tool opens it
 * (X_bpf__open()), sets its read-only data, and hands it here; it destroys
 * it (X_bpf__destroy()) whether the load worked or not.
 */
#ifndef GOTOOLS_SKELETON_H
#define GOTOOLS_SKELETON_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
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

/*
 * Prepare the goroutine-state tracker of a skeleton whose programs include
 * bpf/gstate.bpf.h, before loading: ON, its programs are loaded and its
 * maps sized to track up to GSTATE_MAX_GOROUTINES goroutines at once; off,
 * neither is loaded nor takes memory. Returns 0 or a negative errno.
 */
#define GSTATE_MAX_GOROUTINES	16384
int skeleton__prepare_gstate(struct bpf_program *site_prog,
			     struct bpf_program *switch_prog,
			     struct bpf_map *gstates, struct bpf_map *threads,
			     bool on);

/* The same for the skeleton OBJ, on when TRACKER (a struct gstate_tracker,
 * probe/gstate_tracker.h) is not NULL, whose configuration goes to OBJ's
 * read-only data. */
#define skeleton__set_gstate(obj, tracker) ({				\
	if (tracker)							\
		memcpy((void *)&(obj)->rodata->gstate_config,		\
		       &(tracker)->config, sizeof((tracker)->config));	\
	skeleton__prepare_gstate((obj)->progs.gstate_site,		\
				 (obj)->progs.gstate_switch,		\
				 (obj)->maps.gstates,			\
				 (obj)->maps.gstate_threads,		\
				 (tracker) != NULL);			\
})

#endif
