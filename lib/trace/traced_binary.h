/* SPDX-License-Identifier: MIT */
/*
 * A binary gotrace puts probes into: the Go binary, its DWARF (if any), the
 * probe sites found in it, and what names its run-time addresses: the
 * types of interfaces (%T) and the frames of stacks (-U).
 *
 * Run-time addresses become the file's virtual addresses by how the binary
 * was loaded: a non-PIE executable is where it was linked; a PIE
 * executable moved by the process's mm->start_code minus its lowest
 * executable address (the kernel computes start_code so), which each event
 * carries, so that names resolve after a short-lived process is gone; a
 * library by where /proc/PID/maps says it is mapped, while PID lives.
 *
 * A trace's binaries (struct traced_binaries) are each opened once, however
 * many probes name them, and found again by path or by their go_binary.
 */
#ifndef GOTOOLS_TRACED_BINARY_H
#define GOTOOLS_TRACED_BINARY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "site/inline_ends.h"
#include "gobin/go_binary.h"
#include "gobin/go_dict.h"
#include "goabi/go_dwarf.h"
#include "gobin/go_rtype.h"
#include "goabi/go_typedata.h"
#include "gobin/pcline.h"
#include "probe/uprobes.h"
#include "trace/value_types.h"

struct trace_plan_set;
struct trace_probe;

enum traced_placement {
	PLACED_AS_LINKED,	/* a non-PIE executable */
	PLACED_PIE,		/* a PIE executable */
	PLACED_LIBRARY,
};

struct traced_binary {
	char path[4096];
	struct go_binary *bin;
	bool owns_bin;
	struct go_dwarf *dw;		/* NULL: no DWARF */
	struct uprobe_list sites;	/* offsets and cookies to attach */
	struct inline_ends ends;	/* where r: finds inlined copies' ends */
	struct uprobes *links;		/* once attached */
	struct go_rtypes *rtypes;	/* NULL: %T prints addresses */
	struct go_typedata *td;		/* types from the type data, or NULL */
	struct pcline *lines;		/* NULL: -U prints addresses */
	struct go_dicts dicts;		/* %T of type parameters' values */
	bool dicts_loaded;
	enum traced_placement placement;
	uint64_t first_vaddr;		/* of its loaded segments */
	uint64_t first_code;		/* of its executable segments */
	pid_t bias_pid;			/* whose load bias BIAS is */
	uint64_t bias;
	/* has_fmt_method's answers so far */
	struct { const struct go_type *type; bool has; } *methods;
	size_t nmethods;
};

/*
 * Set up TB for the binary at PATH: BIN when the caller has it open
 * already (it stays the caller's), else opened here. Its DWARF is read
 * when present. Returns 0 or a negative errno with a reason; call
 * traced_binary__close() in both cases.
 */
int traced_binary__open(struct traced_binary *tb, const char *path,
			struct go_binary *bin);

/*
 * The functions of PROBE matching PATTERN (a glob, or a regular expression
 * when REGEX) in TB, planned into S, their sites added to TB's: the type
 * data opened first when the probe converts a value to a type (or, without
 * DWARF, types a method's values by its receiver's method table); an
 * inlined copy left out of an r: probe (it has no return of its own, said
 * when S->verbose). Returns 0 or a negative errno with a reason.
 */
int traced_binary__plan_probe(struct traced_binary *tb,
			      struct trace_plan_set *s,
			      const struct trace_probe *probe,
			      const char *pattern, bool regex);

/* Load what names types (TYPES) and stack frames (LINES); what the binary
 * lacks leaves addresses, said once on stderr when VERBOSE. */
void traced_binary__load_names(struct traced_binary *tb, bool types, bool lines,
			       bool verbose);

/* The types of TB's type data, for conversions and for the dynamic types
 * of a binary without DWARF: opened the first time (TB->td). Returns 0 or
 * a negative errno with a reason (gccgo, an unknown Go version). */
int traced_binary__open_typedata(struct traced_binary *tb);

/* Run-time address ADDR of process PID, whose mm->start_code is
 * START_CODE, as a virtual address of the file; false when unknown. */
bool traced_binary__file_address(struct traced_binary *tb, pid_t pid,
				 uint64_t start_code, uint64_t addr,
				 uint64_t *vaddr);

/*
 * %v: the dynamic types interfaces may hold in TB, an executable with type
 * data (every type DWARF gives a descriptor, or without DWARF every
 * descriptor of the type data), added to VT for BPF, keyed by the
 * descriptor's address minus start_code. Returns 0 (nothing added for a
 * library or gccgo), or -ENOMEM.
 */
int traced_binary__add_dyn_types(struct traced_binary *tb,
				 struct value_types *vt);

/* The type of the descriptor at run-time address ADDR of PID, whose
 * mm->start_code is START_CODE; NULL when unknown. */
const struct go_type *traced_binary__dyn_type(struct traced_binary *tb,
					      pid_t pid, uint64_t start_code,
					      uint64_t addr);

/* The name of the dictionary at run-time address ADDR of PID, whose
 * mm->start_code is START_CODE, from TB's symbols (loaded on first use);
 * NULL when no dictionary symbol is there (a stripped binary). */
const char *traced_binary__dict_name(struct traced_binary *tb, pid_t pid,
				     uint64_t start_code, uint64_t addr);

/* The name %T gives the type whose descriptor is at run-time address ADDR
 * of PID, whose mm->start_code is START_CODE, from TB's type data; NULL
 * when it names none there (or it was not loaded). */
const char *traced_binary__type_name(struct traced_binary *tb, pid_t pid,
				     uint64_t start_code, uint64_t addr);

/* Has the type T (named as gc names it: "main.T", "*main.T") an Error or
 * a String method among TB's functions (pkg.T.M, pkg.(*T).M)? */
bool traced_binary__has_fmt_method(struct traced_binary *tb,
				   const struct go_type *t);

/* The same for the type gc names NAME ("main.ID"), not cached. */
bool traced_binary__name_has_fmt_method(const struct traced_binary *tb,
					const char *name);

void traced_binary__close(struct traced_binary *tb);

#define TRACED_BINARIES_MAX 8

/* The binaries a trace's probes go into, in the order they were added
 * (the target's first). Each is allocated once: pointers to them stay
 * valid until traced_binaries__free(). */
struct traced_binaries {
	struct traced_binary *bins[TRACED_BINARIES_MAX];
	size_t n;
};

/*
 * The traced binary at PATH into *OUT: the one added before, else opened
 * as traced_binary__open() does (BIN, or NULL, as there) and added.
 * Returns 0, -E2BIG past TRACED_BINARIES_MAX binaries, -ENOMEM or what
 * traced_binary__open() returns; with a reason.
 */
int traced_binaries__add(struct traced_binaries *tbs, const char *path,
			 struct go_binary *bin, struct traced_binary **out);

/* The traced binary at PATH, or NULL. */
struct traced_binary *traced_binaries__find(const struct traced_binaries *tbs,
					    const char *path);

/* The traced binary whose go_binary is BIN, or NULL. */
struct traced_binary *traced_binaries__of(const struct traced_binaries *tbs,
					  const struct go_binary *bin);

/* traced_binary__load_names() of each binary; TYPES but for gccgo's,
 * whose %T names BPF reads from the type descriptor. */
void traced_binaries__load_names(const struct traced_binaries *tbs,
				 bool types, bool lines, bool verbose);

/* traced_binary__add_dyn_types() of each binary, when VT has interfaces. */
int traced_binaries__add_dyn_types(const struct traced_binaries *tbs,
				   struct value_types *vt);

/* Is one of the binaries built by gccgo? */
bool traced_binaries__has_gccgo(const struct traced_binaries *tbs);

void traced_binaries__free(struct traced_binaries *tbs);

#endif
