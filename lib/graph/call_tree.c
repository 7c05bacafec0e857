// SPDX-License-Identifier: MIT
/*
 * gofuncgraph's call trees (call_tree.h): a list of trees, one per
 * goroutine, each an array of nodes and a stack of the open ones.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "graph/call_tree.h"

void call_trees__init(struct call_trees *ts, size_t nfuncs)
{
	ts->head = NULL;
	ts->nfuncs = nfuncs;
}

void call_tree__free(struct call_tree *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->open);
	free(t);
}

void call_trees__free(struct call_trees *ts)
{
	struct call_tree *t;

	while ((t = ts->head)) {
		ts->head = t->next;
		call_tree__free(t);
	}
}

static struct call_tree *tree_of(const struct call_trees *ts, __u64 goid)
{
	struct call_tree *t;

	for (t = ts->head; t; t = t->next)
		if (t->goid == goid)
			return t;
	return NULL;
}

/* Take T out of the list; it is the caller's. */
static void tree_unlink(struct call_trees *ts, struct call_tree *t)
{
	struct call_tree **p;

	for (p = &ts->head; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			return;
		}
	}
}

/* Room for one more node in T, and with OPEN for one more open node. */
static int tree_grow(struct call_tree *t, bool open)
{
	int err;

	err = gt_ensure_mem((void **)&t->nodes, &t->cap, sizeof(*t->nodes),
			    t->n + 1);
	if (!err && open)
		err = gt_ensure_mem((void **)&t->open, &t->open_cap,
				    sizeof(*t->open), t->nopen + 1);
	return err;
}

static int tree_enter(struct call_tree *t, const struct graph_event *e)
{
	int err = tree_grow(t, true);

	if (err)
		return err;
	t->nodes[t->n] = (struct call_node){ .func = e->func,
					     .copy = e->copy,
					     .inlined = e->flags & GRAPH_INLINED,
					     .depth = t->nopen,
					     .frame = e->frame,
					     .start = e->ts };
	t->open[t->nopen++] = t->n++;
	return 0;
}

/* Close the open node of E's function, copy and frame, and the nodes
 * opened after it, which a panic unwound. An exit of no open node is
 * ignored: an inlined copy's end that code skipping the copy passes too
 * (and a return whose call began before the trace). */
static void tree_exit(struct call_tree *t, const struct graph_event *e)
{
	size_t k = t->nopen;

	while (k > 0) {
		const struct call_node *nd = &t->nodes[t->open[k - 1]];

		if (!nd->wait && nd->func == e->func && nd->copy == e->copy &&
		    nd->frame == e->frame)
			break;
		k--;
	}
	if (!k)
		return;
	/* k >= 1: the loop stops at nopen == k - 1, never below 0 */
	while (t->nopen >= k) {
		struct call_node *nd = &t->nodes[t->open[--t->nopen]];

		nd->end = e->ts;
		nd->unwound = t->nopen >= k;
	}
}

int call_trees__entry(struct call_trees *ts, const struct graph_event *e)
{
	struct call_tree *t;

	if (e->func >= ts->nfuncs)
		return 0;
	t = tree_of(ts, e->goid);
	if (!(e->flags & GRAPH_ROOT))
		return t ? tree_enter(t, e) : 0;
	/* a new root: whatever was open on this goroutine was unwound
	 * without reaching its root's return */
	if (t) {
		tree_unlink(ts, t);
		call_tree__free(t);
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return gt_error(-ENOMEM, "out of memory");
	t->goid = e->goid;
	t->pid = e->pid;
	t->tid = e->tid;
	t->next = ts->head;
	ts->head = t;
	return tree_enter(t, e);
}

void call_trees__exit(struct call_trees *ts, const struct graph_event *e,
		      struct call_tree **ended)
{
	struct call_tree *t;

	*ended = NULL;
	if (e->func >= ts->nfuncs)
		return;
	t = tree_of(ts, e->goid);
	if (!t)
		return;		/* its root began before the trace */
	/* cut: the calls still open may have returned unseen; they stay
	 * open, not unwound */
	if (e->flags & GRAPH_CUT && t->n)
		t->nodes[0].end = e->ts;
	else
		tree_exit(t, e);
	if (!(e->flags & GRAPH_ROOT))
		return;
	tree_unlink(ts, t);
	t->cut = e->flags & GRAPH_CUT;
	if (t->n && t->nodes[0].end)
		*ended = t;
	else
		call_tree__free(t);
}

int call_trees__wait(struct call_trees *ts, const struct graph_event *e)
{
	struct call_tree *t = tree_of(ts, e->goid);
	int err;

	if (!t || e->slot >= GSTATE_NSLOTS || !t->nopen)
		return 0;
	err = tree_grow(t, false);
	if (err)
		return err;
	t->nodes[t->n++] = (struct call_node){ .wait = true,
					       .slot = e->slot,
					       .depth = t->nopen,
					       .start = e->ts - e->wait_ns,
					       .end = e->ts };
	return 0;
}

void call_trees__stack(struct call_trees *ts, const struct graph_stack *s)
{
	struct call_tree *t = tree_of(ts, s->head.goid);

	if (!t)
		return;
	t->nstack = s->nframes < STACK_MAX_FRAMES ? s->nframes :
						    STACK_MAX_FRAMES;
	memcpy(t->stack, s->frames, t->nstack * sizeof(t->stack[0]));
	t->start_code = s->start_code;
}

size_t call_trees__in_flight(const struct call_trees *ts)
{
	const struct call_tree *t;
	size_t n = 0;

	for (t = ts->head; t; t = t->next)
		n += t->n > 0;
	return n;
}
