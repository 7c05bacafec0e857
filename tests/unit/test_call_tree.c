// SPDX-License-Identifier: MIT
/*
 * lib/graph/call_tree.h: hand-made event sequences, as gofuncgraph's BPF
 * program sends them, and the trees that come out.
 *
 * A sequence is written one event a word (G goroutine, F func, D frame
 * depth, T time; the thread is T too, so a tree's says which event it
 * came from):
 *   rG.F@D:T  a root's entry       eG.F@D:T  an entry
 *   RG.F@D:T  a root's exit        xG.F@D:T  an exit
 *   CG.F@D:T  a root's exit, cut   wG.S/N:T  a wait in slot S, N ns long
 * A tree is written "gG tTID: " and its nodes in order, DEPTH:fF[START,END]
 * for a call (u after it: unwound) and DEPTH:wS[START,END] for a wait;
 * " cut" after TID when its root's exit was.
 */
#include "test.h"
#include "graph/call_tree.h"

#define NFUNCS	8

/* T as a tree ("(none)" for NULL), appended to BUF of LEN bytes. */
static void tree_str(const struct call_tree *t, char *buf, size_t len)
{
	size_t i, k = strlen(buf);

	if (!t) {
		snprintf(buf + k, len - k, "(none)");
		return;
	}
	k += snprintf(buf + k, len - k, "g%llu t%u%s:",
		      (unsigned long long)t->goid, t->tid, t->cut ? " cut" : "");
	for (i = 0; i < t->n && k < len; i++) {
		const struct call_node *nd = &t->nodes[i];

		k += snprintf(buf + k, len - k, " %u:%c%u[%llu,%llu]%s%s",
			      nd->depth, nd->wait ? 'w' : 'f',
			      nd->wait ? nd->slot : nd->func,
			      (unsigned long long)nd->start,
			      (unsigned long long)nd->end,
			      nd->unwound ? "u" : "", nd->inlined ? "i" : "");
	}
}

/* One event of a sequence into TS; the tree it ends into ENDED. */
static void feed_one(struct call_trees *ts, const char *word, char *ended,
		     size_t len)
{
	static const char kinds[] = "rRCeix";
	unsigned long long goid, a, ts_;
	struct graph_event e = { .pid = 7 };
	struct call_tree *t;
	unsigned int b;
	char kind;

	if (sscanf(word, "%c%llu.%u/%llu:%llu", &kind, &goid, &b, &a, &ts_) == 5 &&
	    kind == 'w') {
		e = (struct graph_event){ .ts = ts_, .goid = goid, .wait_ns = a,
					  .slot = b, .kind = GRAPH_WAIT };
		CHECK_EQ_INT(call_trees__wait(ts, &e), 0);
		return;
	}
	if (sscanf(word, "%c%llu.%u@%llu:%llu", &kind, &goid, &b, &a, &ts_) != 5 ||
	    !strchr(kinds, kind)) {
		fprintf(stderr, "bad event %s\n", word);
		CHECK(0);
		return;
	}
	e.ts = ts_;
	e.tid = (__u32)ts_;
	e.goid = goid;
	e.func = b;
	e.frame = a;
	e.kind = kind == 'r' || kind == 'e' || kind == 'i' ? GRAPH_ENTRY :
								GRAPH_EXIT;
	e.flags = kind == 'r' || kind == 'R' ? GRAPH_ROOT :
		  kind == 'C' ? GRAPH_ROOT | GRAPH_CUT :
		  kind == 'i' ? GRAPH_INLINED : 0;
	if (e.kind == GRAPH_ENTRY) {
		CHECK_EQ_INT(call_trees__entry(ts, &e), 0);
		return;
	}
	t = (struct call_tree *)&e;	/* exit must set it */
	call_trees__exit(ts, &e, &t);
	if (!t)
		return;
	if (kind == 'x') {
		fprintf(stderr, "%s ended a tree\n", word);
		CHECK(0);
	}
	tree_str(t, ended, len);
	snprintf(ended + strlen(ended), len - strlen(ended), " | ");
	call_tree__free(t);
}

/* Feed the events EVENTS to TS; the trees they ended, each followed by
 * " | ". */
static const char *feed(struct call_trees *ts, const char *events)
{
	static char ended[4096];
	char *copy = strdup(events), *save = NULL, *word;

	ended[0] = '\0';
	for (word = strtok_r(copy, " ", &save); word;
	     word = strtok_r(NULL, " ", &save))
		feed_one(ts, word, ended, sizeof(ended));
	free(copy);
	return ended;
}

/* The trees TS has in flight, the latest begun first, each followed by
 * " | ". */
static const char *left(const struct call_trees *ts)
{
	static char buf[4096];
	const struct call_tree *t;

	buf[0] = '\0';
	for (t = ts->head; t; t = t->next) {
		tree_str(t, buf, sizeof(buf));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " | ");
	}
	return buf;
}

static const struct {
	const char *name, *events;
	const char *ended;	/* the trees the events ended */
	const char *left;	/* the trees still in flight after them */
	size_t in_flight;	/* call_trees__in_flight() then */
} cases[] = {
	{ "nesting",
	  "r1.0@10:100 e1.1@20:110 e1.2@30:120 x1.2@30:130 x1.1@20:140 "
	  "e1.3@20:150 x1.3@20:160 R1.0@10:200",
	  "g1 t100: 0:f0[100,200] 1:f1[110,140] 2:f2[120,130] 1:f3[150,160] | ",
	  "", 0 },
	/* an inlined copy (i) of f1 in f0's body, at its frame, with a call
	 * of its own deeper: marked inlined, its end closes it */
	{ "inlined copy",
	  "r1.0@10:100 i1.1@20:110 e1.2@28:120 x1.2@28:130 x1.1@20:140 "
	  "R1.0@10:200",
	  "g1 t100: 0:f0[100,200] 1:f1[110,140]i 2:f2[120,130] | ",
	  "", 0 },
	/* the same function at different depths: each exit closes the call
	 * at its own frame */
	{ "recursion",
	  "r1.0@10:100 e1.4@20:110 e1.4@30:120 e1.4@40:130 x1.4@40:140 "
	  "e1.5@40:145 x1.5@40:146 x1.4@30:150 x1.4@20:160 R1.0@10:170",
	  "g1 t100: 0:f0[100,170] 1:f4[110,160] 2:f4[120,150] 3:f4[130,140] 3:f5[145,146] | ",
	  "", 0 },
	/* a panic in f3 recovered by f1: f1's exit closes f2 and f3, which
	 * never returned, unwound; the tree goes on */
	{ "panic unwinds",
	  "r1.0@10:100 e1.1@20:110 e1.2@30:120 e1.3@40:130 x1.1@20:300 "
	  "e1.2@20:310 x1.2@20:320 R1.0@10:400",
	  "g1 t100: 0:f0[100,400] 1:f1[110,300] 2:f2[120,300]u 3:f3[130,300]u 1:f2[310,320] | ",
	  "", 0 },
	/* over its budget, BPF dropped f1's exit and its root's exit says
	 * so: the calls still open stay open, not unwound */
	{ "root cut",
	  "r1.0@10:100 e1.1@20:110 e1.2@30:120 x1.2@30:130 C1.0@10:500",
	  "g1 t100 cut: 0:f0[100,500] 1:f1[110,0] 2:f2[120,130] | ",
	  "", 0 },
	/* a wait goes under the innermost open call, its start its end less
	 * its length; one of no tree (goroutine 2) or past the slots is
	 * ignored */
	{ "waits",
	  "w1.3/5:90 r1.0@10:100 e1.1@20:110 w1.7/50:200 w1.68/5:205 "
	  "w2.1/5:205 x1.1@20:210 w1.2/10:230 R1.0@10:300",
	  "g1 t100: 0:f0[100,300] 1:f1[110,210] 2:w7[150,200] 1:w2[220,230] | ",
	  "", 0 },
	/* with no call open (an exit, not the root's, closed the root), a
	 * wait has nowhere to go */
	{ "wait with no call open",
	  "r1.0@10:100 x1.0@10:150 w1.3/5:160",
	  "",
	  "g1 t100: 0:f0[100,150] | ", 1 },
	/* two goroutines, each in its own tree, the same func and frame on
	 * both */
	{ "goroutines interleaved",
	  "r1.0@10:100 r2.0@10:101 e1.1@20:110 e2.1@20:111 w2.3/3:115 "
	  "e2.2@30:116 x2.2@30:117 x2.1@20:118 R2.0@10:130 e1.2@30:131",
	  "g2 t101: 0:f0[101,130] 1:f1[111,118] 2:w3[112,115] 2:f2[116,117] | ",
	  "g1 t100: 0:f0[100,0] 1:f1[110,0] 2:f2[131,0] | ", 1 },
	{ "goroutines both end",
	  "r1.0@10:100 r2.0@10:101 e1.1@20:110 e2.2@20:111 x1.1@20:120 "
	  "R1.0@10:130 x2.2@20:140 R2.0@10:150",
	  "g1 t100: 0:f0[100,130] 1:f1[110,120] | g2 t101: 0:f0[101,150] 1:f2[111,140] | ",
	  "", 0 },
	/* an exit of no open call (never entered, or at another frame)
	 * changes nothing; nor do events of a goroutine whose root began
	 * before the trace, or of funcs from NFUNCS on */
	{ "exit without entry",
	  "x1.1@20:50 e1.1@20:60 R1.0@10:70 r1.0@10:100 e1.1@20:110 "
	  "x1.5@30:120 x1.1@30:125 e1.8@30:126 r3.8@10:128",
	  "",
	  "g1 t100: 0:f0[100,0] 1:f1[110,0] | ", 1 },
	/* a root's entry on a goroutine whose root is still open (a panic or
	 * runtime.Goexit unwound it unseen) starts afresh */
	{ "root restarts",
	  "r1.0@10:100 e1.1@20:110 r1.0@10:200 e1.2@20:210",
	  "",
	  "g1 t200: 0:f0[200,0] 1:f2[210,0] | ", 1 },
	/* a root's exit that closes no root drops its tree */
	{ "root exit of no root",
	  "r1.0@10:100 e1.1@20:110 R1.0@11:300",
	  "", "", 0 },
};

static size_t cur;	/* the case TEST(sequence) runs */

TEST(sequence)
{
	struct call_trees ts;

	call_trees__init(&ts, NFUNCS);
	CHECK_EQ_STR(feed(&ts, cases[cur].events), cases[cur].ended);
	CHECK_EQ_STR(left(&ts), cases[cur].left);
	CHECK_EQ_INT(call_trees__in_flight(&ts), cases[cur].in_flight);
	call_trees__free(&ts);
	CHECK(ts.head == NULL);
	if (test_case_failed)
		fprintf(stderr, "  in case %s\n", cases[cur].name);
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
	CHECK_EQ_STR(feed(&ts, "r1.0@10:100"), "");
	call_trees__stack(&ts, &s);
	t = ts.head;
	CHECK(t != NULL);
	if (t) {
		CHECK_EQ_INT(t->pid, 7);
		CHECK_EQ_INT(t->nstack, STACK_MAX_FRAMES);
		CHECK_EQ_INT(t->stack[0], 0x401000);
		CHECK_EQ_INT(t->stack[STACK_MAX_FRAMES - 1], 0x402000);
		CHECK_EQ_INT(t->start_code, 0x400000);
	}
	call_trees__free(&ts);
}

int main(void)
{
	for (cur = 0; cur < sizeof(cases) / sizeof(cases[0]); cur++)
		RUN(sequence);
	RUN(stack);
	return TEST_SUMMARY();
}
