/* SPDX-License-Identifier: MIT */
/*
 * gofuncgraph's call trees, built from the events its BPF program sends
 * (bpf/gofuncgraph.h): one tree per goroutine inside a root call, its
 * calls and waits as nodes in the order they began, each with its depth.
 *
 * A root's entry starts its goroutine's tree (dropping the one it had: a
 * panic or runtime.Goexit unwound that root without its return). An entry
 * opens a node under the innermost open one; an exit closes the open node
 * of its function and frame depth, and the nodes opened after it, which
 * never returned (a panic unwound them), are closed there and marked; an
 * exit of no open node is ignored. A wait (the goroutine parked, runnable,
 * in a system call) comes when it ends and goes under the innermost open
 * call: the goroutine made no call and no return while it waited. The
 * root's exit ends the tree; when BPF cut the root (events dropped), the
 * calls still open may have returned unseen, and stay open.
 */
#ifndef GOTOOLS_CALL_TREE_H
#define GOTOOLS_CALL_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include "gofuncgraph.h"

/* One call or wait of a tree. */
struct call_node {
	bool wait;		/* a wait, not a call */
	bool unwound;		/* a call closed by a return further up */
	bool inlined;		/* a call of an inlined copy */
	__u32 func;		/* a call: the event's func, a row of the tool */
	__u16 copy;		/* a call of an inlined copy: its number */
	__u32 slot;		/* a wait: enum gstate_part, parked + reason */
	unsigned int depth;	/* the root is 0 */
	__u64 frame;		/* a call: its frame's depth */
	__u64 start, end;	/* end 0: a call still open, or cut */
};

/* The tree of one root call on one goroutine. */
struct call_tree {
	__u64 goid;
	__u32 pid, tid;			/* at the root's entry */
	bool cut;			/* the root's exit said GRAPH_CUT */
	__u64 stack[STACK_MAX_FRAMES];	/* -U: at the root's entry */
	__u32 nstack;
	__u64 start_code;
	struct call_node *nodes;	/* [0]: the root */
	size_t n, cap;
	size_t *open;		/* indexes of the open nodes, innermost last */
	size_t nopen, open_cap;
	struct call_tree *next;
};

/* The trees in flight, one per goroutine inside a root call. */
struct call_trees {
	struct call_tree *head;
	size_t nfuncs;		/* calls of funcs from NFUNCS on are ignored */
};

/* No trees yet; the funcs of calls are below NFUNCS. */
void call_trees__init(struct call_trees *ts, size_t nfuncs);

/* Free the trees in flight. */
void call_trees__free(struct call_trees *ts);

/*
 * E, a GRAPH_ENTRY: a root's (GRAPH_ROOT) starts its goroutine's tree,
 * any other opens a call in it (none: its root began before the trace).
 * Returns 0 or -ENOMEM with a reason.
 */
int call_trees__entry(struct call_trees *ts, const struct graph_event *e);

/*
 * E, a GRAPH_EXIT: closes calls in its goroutine's tree. A root's exit
 * (GRAPH_ROOT) ends the tree: when its root call is closed, it is the
 * caller's in *ENDED, to free with call_tree__free(); else it is dropped
 * and *ENDED is NULL (as it is for every other exit).
 */
void call_trees__exit(struct call_trees *ts, const struct graph_event *e,
		      struct call_tree **ended);

/* E, a GRAPH_WAIT: a wait under the innermost open call of its
 * goroutine's tree. Returns 0 or -ENOMEM with a reason. */
int call_trees__wait(struct call_trees *ts, const struct graph_event *e);

/* S, a GRAPH_STACK (-U): the stack at the root's entry of its goroutine's
 * tree. */
void call_trees__stack(struct call_trees *ts, const struct graph_stack *s);

/* How many trees are in flight, their root open. */
size_t call_trees__in_flight(const struct call_trees *ts);

/* Free T, an ended tree (NULL is fine). */
void call_tree__free(struct call_tree *t);

#endif
