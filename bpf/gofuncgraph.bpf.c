// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gofuncgraph: the calls and returns on a goroutine while a root call runs
 * on it. The entry of a root function (roots, by cookie index) on a
 * goroutine with no root in flight starts a root: the goroutine gets a
 * state, keyed by {goid, tgid}. While it has one, every entry and exit
 * probe of a traced function on it sends an event; the exit at the root's
 * own frame (stack.hi - SP, as gofunclatency pairs calls: goroutine_frame())
 * ends it. A goroutine without a root in flight costs one hash lookup per
 * hit. Events past max_events in one root are dropped and the root's end
 * says so (GRAPH_CUT), as does a full ring buffer (counted in lost).
 *
 * With waits (the default), the goroutine-state tracker (gstate.bpf.h)
 * follows the goroutine while a root is in flight on it, and each time it
 * was not running (parked, runnable, in a system call, its thread off the
 * CPU) becomes an event when that ends, which user space places in the
 * tree where it happened.
 *
 * gccgo: a goroutine is named by its first split-stack segment, and its
 * frames' depths come through the segments (split_stack_frame()); libgo's
 * g is out of reach, so there are no waits. libgo gives a finished
 * goroutine's stack to the next one it starts, so the state of a root left
 * unfinished goes when the goroutine does (graph_goexit).
 *
 * A panic that unwinds the root, or runtime.Goexit inside it, leaves the
 * state behind: the goroutine's next root entry starts afresh (a root entry
 * on a goroutine whose state has no frame above it restarts it), and the
 * LRU map forgets goroutines that are gone.
 */
#include "gotools.bpf.h"
#include "events.bpf.h"
#include "stack.bpf.h"
#include "gofuncgraph.h"

const volatile __u32 goid_offset = 152;
const volatile __u32 stack_hi_offset = 8;
const volatile __s64 tls_g_offset = -8;
const volatile __s64 tls_segment_offset = 0;	/* not 0: gccgo */
const volatile __u32 max_events = 4096;	/* -M: per root call */
const volatile bool waits = false;	/* follow the goroutine's states */
const volatile bool user_stack = false;	/* -U: each root's stack */
const volatile bool frame_pointers = true;	/* gc keeps RBP chains */

#include "gstate.bpf.h"

/* Which cookie indexes are roots (1) */
COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_ARRAY, __u8) roots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct graph_key);
	__type(value, struct graph_state);
} states SEC(".maps");

/* An event of KIND and FLAGS on KEY's goroutine, on the thread of ID
 * (bpf_get_current_pid_tgid()'s form); the caller names the call (frame,
 * func) or the wait (wait_ns, slot), and send() stamps it. */
static __always_inline struct graph_event event_of(__u64 id,
						   const struct graph_key *key,
						   __u8 kind, __u8 flags)
{
	return (struct graph_event){
		.goid = key->goid,
		.pid = id >> 32,
		.tid = (__u32)id,
		.kind = kind,
		.flags = flags,
	};
}

/* A call's entry or exit (KIND): of the function (and inlined copy) of
 * COOKIE, at FRAME. */
static __always_inline struct graph_event call_event(__u64 id,
						     const struct graph_key *key,
						     __u64 frame, __u64 cookie,
						     __u8 kind, __u8 flags)
{
	struct graph_event e = event_of(id, key, kind, flags);

	e.frame = frame;
	e.func = COOKIE_INDEX(cookie);
	e.copy = COOKIE_COPY(cookie);
	return e;
}

/* Send E, stamped now; false when the ring buffer is full (counted). */
static __always_inline bool send(const struct graph_event *e)
{
	struct graph_event *out;

	out = bpf_ringbuf_reserve(&events, sizeof(*out), 0);
	if (!out) {
		events__lost();
		return false;
	}
	*out = *e;
	out->ts = bpf_ktime_get_ns();
	/* (a wakeup per event would also show in the traced goroutines'
	 * trees, as runnable (CPU)) */
	bpf_ringbuf_submit(out, events__wakeup());
	return true;
}

/* -U: the user stack at the entry of the root of KEY. */
static __always_inline void send_stack(struct pt_regs *ctx, __u64 cookie,
				       __u64 id, const struct graph_key *key)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct graph_stack *s;

	s = bpf_ringbuf_reserve(&events, sizeof(*s), 0);
	if (!s) {
		events__lost();
		return;
	}
	s->head = event_of(id, key, GRAPH_STACK, 0);
	s->head.ts = bpf_ktime_get_ns();
	s->start_code = BPF_CORE_READ(task, mm, start_code);
	s->nframes = user_stack__read(ctx, cookie, frame_pointers, s->frames);
	s->pad = 0;
	bpf_ringbuf_submit(s, events__wakeup());
}

/* E, an event inside the root of ST, within its budget; else the root is
 * marked cut. */
static __always_inline void record(struct graph_state *st,
				   const struct graph_event *e)
{
	if (st->nevents < max_events && send(e))
		st->nevents++;
	else
		st->cut = 1;
}

/* A wait of a goroutine inside a root ended: an event of the root. */
static __always_inline void gstate__closed(const struct gstate_key *gkey,
					   const struct gstate *gs, __u64 now)
{
	struct graph_key key = { .goid = gs->goid, .tgid = gkey->tgid };
	struct graph_state *st;
	struct graph_event e;

	if (gs->part == GSTATE_ON_CPU)
		return;
	st = bpf_map_lookup_elem(&states, &key);
	if (!st)
		return;
	e = event_of((__u64)gkey->tgid << 32 | gs->tid, &key, GRAPH_WAIT, 0);
	e.wait_ns = now > gs->since ? now - gs->since : 0;
	e.slot = gs->part;
	record(st, &e);
}

/* The goroutine at this probe (its id in *GOID: gccgo's first stack
 * segment) and the depth of its frame; *G is 0 for gccgo, whose g is out
 * of reach. False when they cannot be read. */
static __always_inline bool graph_frame(struct pt_regs *ctx, __u64 cookie,
					__u64 *g, __u64 *goid, __u64 *frame)
{
	if (tls_segment_offset) {
		*g = 0;
		return split_stack_frame(ctx, tls_segment_offset, goid, frame);
	}
	return goroutine_frame(ctx, cookie, tls_g_offset, goid_offset,
			       stack_hi_offset, g, goid, frame);
}

/* GRAPH_INLINED at an inlined copy's entry, else 0. */
static __always_inline __u8 inlined_flag(__u64 cookie)
{
	return cookie & COOKIE_INLINED ? GRAPH_INLINED : 0;
}

SEC("uprobe")
int graph_entry(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	struct graph_key key = { .tgid = id >> 32 };
	struct graph_state *st, fresh = { 0 };
	__u32 func = COOKIE_INDEX(cookie);
	struct graph_event e;
	__u64 frame, g;
	__u8 *root;

	if (!call_hit(ctx, cookie, id))
		return 0;
	if (!graph_frame(ctx, cookie, &g, &key.goid, &frame))
		return 0;
	st = bpf_map_lookup_elem(&states, &key);
	/* a frame deeper than the root's (a larger stack.hi - SP) is inside
	 * it; one at or above it means that root was unwound */
	if (st && frame > st->root_frame) {
		e = call_event(id, &key, frame, cookie, GRAPH_ENTRY,
			       inlined_flag(cookie));
		record(st, &e);
		return 0;
	}
	root = bpf_map_lookup_elem(&roots, &func);
	if (!root || !*root)
		return 0;
	fresh.root_frame = frame;
	fresh.root_func = func;
	fresh.root_copy = COOKIE_COPY(cookie);
	fresh.nevents = 1;
	if (bpf_map_update_elem(&states, &key, &fresh, BPF_ANY))
		return 0;
	e = call_event(id, &key, frame, cookie, GRAPH_ENTRY,
		       GRAPH_ROOT | inlined_flag(cookie));
	send(&e);
	if (user_stack)
		send_stack(ctx, cookie, id, &key);
	if (waits) {
		struct gstate_key gkey = { .g = g, .tgid = key.tgid };
		struct gstate *gs;

		/* one root at a time on a goroutine: one user */
		gs = gstate__enter(&gkey, key.goid, (__u32)id, bpf_ktime_get_ns());
		if (gs)
			gs->users = 1;
	}
	return 0;
}

SEC("uprobe")
int graph_exit(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	struct graph_key key = { .tgid = id >> 32 };
	__u32 func = COOKIE_INDEX(cookie);
	struct graph_state *st;
	struct graph_event e;
	__u64 frame, g;

	if (other_process(id) || !overhead__hit(cookie, false))
		return 0;
	if (!graph_frame(ctx, cookie, &g, &key.goid, &frame))
		return 0;
	st = bpf_map_lookup_elem(&states, &key);
	if (!st)
		return 0;
	if (frame == st->root_frame && func == st->root_func &&
	    COOKIE_COPY(cookie) == st->root_copy) {
		e = call_event(id, &key, frame, cookie, GRAPH_EXIT,
			       GRAPH_ROOT | (st->cut ? GRAPH_CUT : 0));
		send(&e);
		bpf_map_delete_elem(&states, &key);
		if (waits) {
			struct gstate_key gkey = { .g = g, .tgid = key.tgid };
			struct gstate *gs = bpf_map_lookup_elem(&gstates, &gkey);

			if (gs)
				gstate__leave(&gkey, gs);
		}
		return 0;
	}
	if (frame > st->root_frame) {	/* inside the root */
		e = call_event(id, &key, frame, cookie, GRAPH_EXIT, 0);
		record(st, &e);
	}
	return 0;
}

/* gccgo: libgo ends the running goroutine (runtime.goexit1), and will
 * start another on its stack: a root a recovered panic or runtime.Goexit
 * left unfinished on it goes, or the next goroutine would inherit it. */
SEC("uprobe")
int graph_goexit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), frame;
	struct graph_key key = { .tgid = id >> 32 };

	if (other_process(id))
		return 0;
	if (split_stack_frame(ctx, tls_segment_offset, &key.goid, &frame))
		bpf_map_delete_elem(&states, &key);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
