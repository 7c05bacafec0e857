// SPDX-License-Identifier: MIT
/*
 * lib/graph/call_tree: hand-made event sequences, as gofuncgraph's BPF
 * program sends them, and the trees that come out, written one node a
 * word: DEPTH:fFUNC[START,END] for a call (u: unwound), DEPTH:wSLOT[START,END]
 * for a wait.
 */
#include "test.h"
#include "graph/call_tree.h"

#define NFUNCS	8

static struct graph_event call(__u8 kind, __u8 flags, __u64 goid, __u32 func,
			       __u64 frame, __u64 ts)
{
	return (struct graph_event){ .ts = ts, .goid = goid, .frame = frame,
				     .func = func, .pid = 100,
				     .tid = 100 + (__u32)goid, .kind = kind,
				     .flags = flags };
}

static int enter(struct call_trees *ts, __u64 goid, __u32 func, __u64 frame,
		 __u64 ts_)
{
	struct graph_event e = call(GRAPH_ENTRY, 0, goid, func, frame, ts_);

	return call_trees__entry(ts, &e);
}

static int enter_root(struct call_trees *ts, __u64 goid, __u32 func,
		      __u64 frame, __u64 ts_)
{
	struct graph_event e = call(GRAPH_ENTRY, GRAPH_ROOT, goid, func, frame,
				    ts_);

	return call_trees__entry(ts, &e);
}

/* An exit inside a root: it ends no tree. */
static void leave(struct call_trees *ts, __u64 goid, __u32 func, __u64 frame,
		  __u64 ts_)
{
	struct graph_event e = call(GRAPH_EXIT, 0, goid, func, frame, ts_);
	struct call_tree *ended = (struct call_tree *)&e;

	call_trees__exit(ts, &e, &ended);
	CHECK(ended == NULL);
}

/* A root's exit (FLAGS besides GRAPH_ROOT): the tree it ends, or NULL. */
static struct call_tree *leave_root(struct call_trees *ts, __u8 flags,
				    __u64 goid, __u32 func, __u64 frame,
				    __u64 ts_)
{
	struct graph_event e = call(GRAPH_EXIT, GRAPH_ROOT | flags, goid, func,
				    frame, ts_);
	struct call_tree *ended = (struct call_tree *)&e;

	call_trees__exit(ts, &e, &ended);
	return ended;
}

static int wait_(struct call_trees *ts, __u64 goid, __u32 slot,
		 __u64 wait_ns, __u64 end)
{
	struct graph_event e = { .ts = end, .goid = goid, .wait_ns = wait_ns,
				 .slot = slot, .kind = GRAPH_WAIT };

	return call_trees__wait(ts, &e);
}

/* The tree of GOID in flight, or NULL. */
static const struct call_tree *in_flight(const struct call_trees *ts,
					 __u64 goid)
{
	const struct call_tree *t;

	for (t = ts->head; t; t = t->next)
		if (t->goid == goid)
			return t;
	return NULL;
}

/* T's nodes, one word each (see the top); "(none)" for a NULL tree. */
static const char *str(const struct call_tree *t)
{
	static char buf[4096];
	size_t i, len = 0;

	if (!t)
		return "(none)";
	buf[0] = '\0';
	for (i = 0; i < t->n && len < sizeof(buf); i++) {
		const struct call_node *nd = &t->nodes[i];

		len += snprintf(buf + len, sizeof(buf) - len, "%s%u:%c%u[%llu,%llu]%s",
				i ? " " : "", nd->depth, nd->wait ? 'w' : 'f',
				nd->wait ? nd->slot : nd->func,
				(unsigned long long)nd->start,
				(unsigned long long)nd->end,
				nd->unwound ? "u" : "");
	}
	return buf;
}

TEST(nesting)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	CHECK_EQ_INT(enter_root(&ts, 1, 0, 10, 100), 0);
	CHECK_EQ_INT(enter(&ts, 1, 1, 20, 110), 0);
	CHECK_EQ_INT(enter(&ts, 1, 2, 30, 120), 0);
	leave(&ts, 1, 2, 30, 130);
	leave(&ts, 1, 1, 20, 140);
	CHECK_EQ_INT(enter(&ts, 1, 3, 20, 150), 0);
	leave(&ts, 1, 3, 20, 160);
	CHECK_EQ_INT(call_trees__in_flight(&ts), 1);
	t = leave_root(&ts, 0, 1, 0, 10, 200);
	CHECK_EQ_STR(str(t), "0:f0[100,200] 1:f1[110,140] 2:f2[120,130] 1:f3[150,160]");
	if (t) {
		CHECK_EQ_INT(t->goid, 1);
		CHECK_EQ_INT(t->pid, 100);
		CHECK_EQ_INT(t->tid, 101);
		CHECK(!t->cut);
	}
	/* the tree is the caller's now */
	CHECK_EQ_INT(call_trees__in_flight(&ts), 0);
	CHECK(ts.head == NULL);
	call_tree__free(t);
	call_trees__free(&ts);
}

/* The same function at different depths: each exit closes the call at its
 * own frame. */
TEST(recursion)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	enter_root(&ts, 1, 0, 10, 100);
	enter(&ts, 1, 4, 20, 110);
	enter(&ts, 1, 4, 30, 120);
	enter(&ts, 1, 4, 40, 130);
	leave(&ts, 1, 4, 40, 140);
	enter(&ts, 1, 5, 40, 145);
	leave(&ts, 1, 5, 40, 146);
	leave(&ts, 1, 4, 30, 150);
	leave(&ts, 1, 4, 20, 160);
	t = leave_root(&ts, 0, 1, 0, 10, 170);
	CHECK_EQ_STR(str(t), "0:f0[100,170] 1:f4[110,160] 2:f4[120,150] 3:f4[130,140] 3:f5[145,146]");
	call_tree__free(t);
	call_trees__free(&ts);
}

/* A panic recovered two frames up: the exit of the frame that recovered
 * closes the frames under it, which never returned, marked unwound. */
TEST(panic_unwinds)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	enter_root(&ts, 1, 0, 10, 100);
	enter(&ts, 1, 1, 20, 110);	/* the catcher */
	enter(&ts, 1, 2, 30, 120);
	enter(&ts, 1, 3, 40, 130);	/* panics */
	leave(&ts, 1, 1, 20, 300);
	enter(&ts, 1, 2, 20, 310);	/* the tree goes on */
	leave(&ts, 1, 2, 20, 320);
	t = leave_root(&ts, 0, 1, 0, 10, 400);
	CHECK_EQ_STR(str(t), "0:f0[100,400] 1:f1[110,300] 2:f2[120,300]u 3:f3[130,300]u 1:f2[310,320]");
	call_tree__free(t);
	call_trees__free(&ts);
}

/* A root over its budget: BPF dropped events (f3's entry, f1's exit) and
 * its exit says GRAPH_CUT. The calls still open stay open, not unwound. */
TEST(root_cut)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	enter_root(&ts, 1, 0, 10, 100);
	enter(&ts, 1, 1, 20, 110);
	enter(&ts, 1, 2, 30, 120);
	leave(&ts, 1, 2, 30, 130);
	t = leave_root(&ts, GRAPH_CUT, 1, 0, 10, 500);
	CHECK_EQ_STR(str(t), "0:f0[100,500] 1:f1[110,0] 2:f2[120,130]");
	CHECK(t && t->cut);
	call_tree__free(t);
	call_trees__free(&ts);
}

/* Waits go under the innermost open call, START their end less their
 * length; a wait outside a root, or of no known slot, is ignored. */
TEST(waits)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	CHECK_EQ_INT(wait_(&ts, 1, GSTATE_SYSCALL, 5, 90), 0);
	CHECK(ts.head == NULL);
	enter_root(&ts, 1, 0, 10, 100);
	enter(&ts, 1, 1, 20, 110);
	CHECK_EQ_INT(wait_(&ts, 1, GSTATE_PARKED + 3, 50, 200), 0);
	CHECK_EQ_INT(wait_(&ts, 1, GSTATE_NSLOTS, 5, 205), 0);
	CHECK_EQ_INT(wait_(&ts, 2, GSTATE_RUNNABLE, 5, 205), 0);
	leave(&ts, 1, 1, 20, 210);
	CHECK_EQ_INT(wait_(&ts, 1, GSTATE_OFF_CPU, 10, 230), 0);
	t = leave_root(&ts, 0, 1, 0, 10, 300);
	CHECK_EQ_STR(str(t), "0:f0[100,300] 1:f1[110,210] 2:w7[150,200] 1:w2[220,230]");
	CHECK(ts.head == NULL);
	call_tree__free(t);
	call_trees__free(&ts);
}

/* Two goroutines' events interleaved: each in its own tree. */
TEST(goroutines_interleaved)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	enter_root(&ts, 1, 0, 10, 100);
	enter_root(&ts, 2, 0, 10, 101);
	enter(&ts, 1, 1, 20, 110);
	enter(&ts, 2, 2, 20, 111);
	wait_(&ts, 2, GSTATE_SYSCALL, 3, 115);
	/* the same function and frame on the other goroutine */
	enter(&ts, 2, 1, 30, 116);
	leave(&ts, 2, 1, 30, 117);
	leave(&ts, 2, 2, 20, 118);
	leave(&ts, 1, 1, 20, 120);
	CHECK_EQ_STR(str(in_flight(&ts, 1)), "0:f0[100,0] 1:f1[110,120]");
	t = leave_root(&ts, 0, 2, 0, 10, 130);
	CHECK_EQ_STR(str(t), "0:f0[101,130] 1:f2[111,118] 2:w3[112,115] 2:f1[116,117]");
	CHECK(t && t->goid == 2 && t->tid == 102);
	call_tree__free(t);
	CHECK_EQ_INT(call_trees__in_flight(&ts), 1);
	t = leave_root(&ts, 0, 1, 0, 10, 140);
	CHECK_EQ_STR(str(t), "0:f0[100,140] 1:f1[110,120]");
	CHECK(t && t->goid == 1 && t->tid == 101);
	call_tree__free(t);
	CHECK_EQ_INT(call_trees__in_flight(&ts), 0);
	call_trees__free(&ts);
}

/* An exit of no open call (of another frame, or never entered) changes
 * nothing; events of a goroutine without a root in flight (it began
 * before the trace) and of funcs past NFUNCS are ignored. */
TEST(exit_without_entry)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	leave(&ts, 1, 1, 20, 50);
	CHECK_EQ_INT(enter(&ts, 1, 1, 20, 60), 0);
	CHECK(ts.head == NULL);
	t = leave_root(&ts, 0, 1, 0, 10, 70);
	CHECK(t == NULL);
	enter_root(&ts, 1, 0, 10, 100);
	enter(&ts, 1, 1, 20, 110);
	leave(&ts, 1, 5, 30, 120);	/* never entered */
	leave(&ts, 1, 1, 30, 125);	/* f1, at another frame */
	CHECK_EQ_INT(enter(&ts, 1, NFUNCS, 30, 126), 0);
	leave(&ts, 1, NFUNCS, 20, 127);
	CHECK_EQ_STR(str(in_flight(&ts, 1)), "0:f0[100,0] 1:f1[110,0]");
	leave(&ts, 1, 1, 20, 130);
	t = leave_root(&ts, 0, 1, 0, 10, 140);
	CHECK_EQ_STR(str(t), "0:f0[100,140] 1:f1[110,130]");
	call_tree__free(t);
	call_trees__free(&ts);
}

/* A root's entry on a goroutine whose root is still open (a panic or
 * runtime.Goexit unwound it unseen) starts a tree afresh; a root's exit
 * that closes no root drops its tree. */
TEST(root_restarts)
{
	struct call_trees ts;
	struct call_tree *t;

	call_trees__init(&ts, NFUNCS);
	enter_root(&ts, 1, 0, 10, 100);
	enter(&ts, 1, 1, 20, 110);
	enter_root(&ts, 1, 0, 10, 200);
	CHECK_EQ_INT(call_trees__in_flight(&ts), 1);
	CHECK_EQ_STR(str(in_flight(&ts, 1)), "0:f0[200,0]");
	t = leave_root(&ts, 0, 1, 0, 11, 300);
	CHECK(t == NULL);
	CHECK(ts.head == NULL);
	/* trees in flight at the end are freed with the rest */
	enter_root(&ts, 3, 0, 10, 400);
	enter(&ts, 3, 1, 20, 410);
	CHECK_EQ_INT(call_trees__in_flight(&ts), 1);
	call_trees__free(&ts);
	CHECK(ts.head == NULL);
}

/* -U: the stack sent after a root's entry goes with its tree. */
TEST(stack)
{
	struct graph_stack s = { .head = { .goid = 1, .kind = GRAPH_STACK },
				 .start_code = 0x400000,
				 .nframes = STACK_MAX_FRAMES + 5 };
	struct call_trees ts;
	const struct call_tree *t;

	s.frames[0] = 0x401000;
	s.frames[STACK_MAX_FRAMES - 1] = 0x402000;
	call_trees__init(&ts, NFUNCS);
	call_trees__stack(&ts, &s);
	CHECK(ts.head == NULL);
	enter_root(&ts, 1, 0, 10, 100);
	call_trees__stack(&ts, &s);
	t = in_flight(&ts, 1);
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->nstack, STACK_MAX_FRAMES);
		CHECK_EQ_INT(t->stack[0], 0x401000);
		CHECK_EQ_INT(t->stack[STACK_MAX_FRAMES - 1], 0x402000);
		CHECK_EQ_INT(t->start_code, 0x400000);
	}
	call_trees__free(&ts);
}

int main(void)
{
	RUN(nesting);
	RUN(recursion);
	RUN(panic_unwinds);
	RUN(root_cut);
	RUN(waits);
	RUN(goroutines_interleaved);
	RUN(exit_without_entry);
	RUN(root_restarts);
	RUN(stack);
	return TEST_SUMMARY();
}
