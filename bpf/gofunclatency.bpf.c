// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Time Go function calls: an entry probe stores a timestamp per call in
 * flight, the probes on every exit of the function (RET, tail JMP) take it
 * out and add the elapsed time to a log2 histogram. Keys carry the tgid, so
 * two processes of one binary never mix.
 *
 * Pairing in gc binaries. A call is keyed by {goid, function, depth},
 * depth being stack.hi - SP of the goroutine at entry (SP at the stack
 * check's jbe, at the entry byte and at every RET or tail JMP is the same,
 * the return address on top). Never by thread: a goroutine may block on
 * one thread and return on another. Recursive frames differ in depth. When
 * the stack is copied mid-call, SP and stack.hi move together, so the depth
 * holds.
 *
 * Why stale keys are harmless there. A panic that unwinds through a traced
 * frame and runtime.Goexit leave its entry in the map without a RET. For
 * that key to be paired with a later exit, the same goroutine (goids are
 * never reused) must leave the same function at the same depth; but that
 * frame was itself entered after the unwinding, and its entry overwrote the
 * key with its own timestamp. So no exit is ever paired with an older call.
 * Entries of goroutines that are gone are never looked up again; the LRU
 * map forgets them when it fills. A recovered panic resumes a frame above
 * at its deferreturn, which then leaves through its own RET, as a normal
 * return would.
 *
 * Inlined copies. A copy's entry (its first instruction) and its ends are
 * in its caller's body, at the caller's depth, and the key carries the
 * copy's number (COOKIE_COPY): copies of one function in one caller, one
 * nested in another (recursion inlined into itself) too, are calls of
 * their own. So an end where code that skips the copy joins it (`if c {
 * f() }; ...`) is probed too: reached past the copy, it finds no entry of
 * that copy in flight and is ignored. The exception is a copy left by a
 * panic (or runtime.Goexit) from code it calls, in a goroutine that
 * recovers above and comes back to the same caller at the same depth: its
 * entry stays, and a later pass that skips the copy ends it, a call as
 * long as the time between.
 *
 * Pairing in gccgo binaries (sp_keyed). gccgo never copies a stack: a
 * goroutine runs on split-stack segments that __morestack allocates and
 * that stay where they are (x86-64), or on one stack of a fixed size
 * (arm64, which has no split stacks), and every thread and segment is its
 * own memory.
 * So while a frame is live no other live frame of the process has its
 * return address at the same place, and {function, SP at entry} names the
 * call, whatever thread it resumes on; no goid and no g are needed (libgo's
 * TLS runtime.g is hard to reach from BPF). The entry probe sits where SP is
 * still the caller's (the entry byte, or the prologue's emulated jump before
 * any push), and every RET or tail JMP that leaves the frame sees that SP.
 *
 * The split-stack prologue (x86-64) is
 *	cmp %fs:0x70,%rsp; jae body        (or jb to an out-of-line block)
 *	mov $frame,%r10; mov $args,%r11; call __morestack; ret; body: ...
 * and runs once per call. When the segment is too small, __morestack
 * switches to a new one and calls the body (the byte after that `ret`).
 * The body's RETs then leave it into __morestack at an SP of the new
 * segment: not the SP this call was entered at, so no pair. __morestack
 * comes back on the old segment to the `ret`, which leaves the frame at the
 * entry SP: the pair. Both RETs are probed (the exit sweep covers the whole
 * body).
 *
 * Stale keys. A panic unwinding a traced frame, or runtime.Goexit, leaves
 * {f, SP} behind. A later exit of f at that SP belongs to a frame that
 * either was entered at that SP, whose entry overwrote the key, or is a
 * body called by __morestack, the only frame of f that leaves at an SP it
 * was not entered at. The latter finds the return address on top of its
 * stack pointing into __morestack, while the stale key holds the return
 * address seen at its entry, which __morestack never is (it calls past the
 * entry probe). So an exit pairs only when the return address it sees (on
 * top of the stack; in LR on arm64, where every RET returns through it) is
 * the one stored at entry, and no exit is paired with an older call.
 *
 * Memory does not grow with the number of calls: the map holds calls in
 * flight (bounded, LRU), the histograms are a fixed per-CPU array.
 *
 * -S (split): where each call's time went. The goroutine-state tracker
 * (gstate.bpf.h) follows the goroutine while it has a call in flight; the
 * entry keeps a copy of its times, the exit adds the difference to the
 * function's parts. Entry and exit flush the tracker's times at the very
 * timestamps the latency is taken at, so the parts of a call add up to its
 * latency. Pairing is unchanged: the copy is keyed as the start is.
 */
#include "gotools.bpf.h"
#include "gofunclatency.h"

const volatile __u32 goid_offset = 152;
const volatile __u32 stack_hi_offset = 8;
const volatile __s64 tls_g_offset = -8;
const volatile bool per_function = false;
const volatile __u64 unit_div = 1;	/* nsecs 1, usecs 1000, msecs 10^6 */
const volatile bool sp_keyed = false;	/* gccgo: calls keyed by SP alone */
const volatile bool split = false;	/* -S (never with sp_keyed) */
const volatile bool split_hists = false;	/* --split-hists (with -S) */

#include "gstate.bpf.h"

/* gofunclatency adds up a goroutine's times; it needs no word of each
 * interval. */
static __always_inline void gstate__closed(const struct gstate_key *key,
					   const struct gstate *gs, __u64 now)
{
}

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct call_key);
	__type(value, struct call_start);
} starts SEC(".maps");

/* -F: one histogram per function; else the one at 0 */
COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_PERCPU_ARRAY, struct hist) hists SEC(".maps");

/* -S: the goroutine's times at each call's entry, keyed as starts; each
 * function's parts; each function's parked time by reason. Sized 1 by
 * user space without -S. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct call_key);
	__type(value, struct gstate_times);
} split_starts SEC(".maps");

COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_PERCPU_ARRAY, struct split) splits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct parked_key);
	__type(value, __u64);
} parked SEC(".maps");

/* --split-hists: by function and part (SPLIT_NPARTS a function). */
COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_PERCPU_ARRAY, struct hist) part_hists SEC(".maps");

/* Fill KEY for the call running at this probe: gc, by goroutine and frame
 * depth (goroutine_frame()); gccgo, by SP. False when g cannot be read
 * (then the hit is ignored). */
static __always_inline bool call_key_make(struct pt_regs *ctx, __u64 cookie,
					  __u64 pid_tgid, struct call_key *key,
					  __u64 *g)
{
	key->func = COOKIE_INDEX(cookie);
	key->tgid = pid_tgid >> 32;
	key->copy = COOKIE_COPY(cookie);
	key->pad = 0;
	if (sp_keyed) {
		key->goid = 0;
		key->frame = BPF_CORE_READ(ctx, REG_SP);
		return true;
	}
	return goroutine_frame(ctx, cookie, tls_g_offset, goid_offset,
			       stack_hi_offset, g, &key->goid, &key->frame);
}

/* -S at a call's entry: track its goroutine G, keep a copy of its times. */
static __always_inline void split_enter(const struct call_key *key, __u64 g,
					__u64 pid_tgid, __u64 now)
{
	struct gstate_key gkey = { .g = g, .tgid = key->tgid };
	struct gstate *gs;

	gs = gstate__enter(&gkey, key->goid, (__u32)pid_tgid, now);
	if (gs)
		bpf_map_update_elem(&split_starts, key, &gs->times, BPF_ANY);
}

/* Add D nanoseconds of SLOT (enum gstate_part, parked + reason) to the
 * parts of S, a function's, and the parked time by reason of FUNC; and to
 * this call's parts, CALL. */
static __always_inline void split_add(struct split *s, __u64 *call,
				      __u32 func, __u32 slot, __u64 d)
{
	struct parked_key pk = { .func = func };
	__u64 *ns, zero = 0;

	if (slot < GSTATE_PARKED) {
		percpu_add(s->ns[slot], d);
		call[slot] += d;
		return;
	}
	percpu_add(s->ns[GSTATE_PARKED], d);
	call[GSTATE_PARKED] += d;
	pk.reason = slot - GSTATE_PARKED;
	ns = bpf_map_lookup_elem(&parked, &pk);
	if (!ns) {
		bpf_map_update_elem(&parked, &pk, &zero, BPF_NOEXIST);
		ns = bpf_map_lookup_elem(&parked, &pk);
		if (!ns)
			return;
	}
	__sync_fetch_and_add(ns, d);
}

/* -S at a call's exit, DELTA after its entry: the goroutine's times since
 * the entry go to the function's parts; one call less tracks it. */
static __always_inline void split_exit(const struct call_key *key, __u64 g,
				       __u64 now, __u64 delta)
{
	struct gstate_key gkey = { .g = g, .tgid = key->tgid };
	__u64 call[SPLIT_NPARTS] = { 0 };
	struct gstate_times *start;
	struct gstate *gs;
	struct split *s;
	struct hist *h;
	__u32 i, idx;

	gs = bpf_map_lookup_elem(&gstates, &gkey);
	if (!gs)
		goto out;
	start = bpf_map_lookup_elem(&split_starts, key);
	s = bpf_map_lookup_elem(&splits, &key->func);
	/* the tracker detached since its entry: its parts stopped there */
	if (!start || !s || gstate_off) {
		gstate__leave(&gkey, gs);	/* its entry tracked it */
		goto out;
	}
	gstate__flush(gs, now);
	percpu_add(s->count, 1);
	percpu_add(s->total_ns, delta);
	/* times only grow, unless the goroutine's state was forgotten (LRU)
	 * and begun again meanwhile: then what is missing is not added */
	for (i = 0; i < GSTATE_NSLOTS; i++)
		if (gs->times.ns[i] > start->ns[i])
			split_add(s, call, key->func, i,
				  gs->times.ns[i] - start->ns[i]);
	gstate__leave(&gkey, gs);
	for (i = 0; split_hists && i < SPLIT_NPARTS; i++) {
		idx = key->func * SPLIT_NPARTS + i;
		h = call[i] ? bpf_map_lookup_elem(&part_hists, &idx) : NULL;
		if (!h)
			continue;
		percpu_add(h->slots[histogram__slot(call[i] / unit_div)], 1);
		percpu_add(h->total_ns, call[i]);
		percpu_add(h->count, 1);
	}
out:
	bpf_map_delete_elem(&split_starts, key);
}

/* The return address at an entry or an exit, where no frame is set up:
 * on top of the stack (x86-64), in LR (arm64). gccgo only; 0 otherwise. */
static __always_inline __u64 return_address(struct pt_regs *ctx)
{
	__u64 ret = 0;

	if (sp_keyed)
		return_address_unframed(ctx, &ret);
	return ret;
}

SEC("uprobe")
int call_entry(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	struct call_start start;
	struct call_key key;
	__u64 g = 0;

	if (!call_hit(ctx, cookie, id))
		return 0;
	if (!call_key_make(ctx, cookie, id, &key, &g))
		return 0;
	start.ret = return_address(ctx);
	start.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&starts, &key, &start, BPF_ANY);
	if (split)
		split_enter(&key, g, id, start.ts);
	return 0;
}

SEC("uprobe")
int call_exit(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	struct call_key key;
	struct hist *h;
	struct call_start *start;
	__u64 delta, g = 0;
	__u32 idx;

	if (other_process(id) || !overhead__hit(cookie, false))
		return 0;
	if (!call_key_make(ctx, cookie, id, &key, &g))
		return 0;
	start = bpf_map_lookup_elem(&starts, &key);
	if (!start)
		return 0;	/* entered before we attached */
	/* gccgo: a body called by __morestack, not the frame of this key */
	if (start->ret != return_address(ctx))
		return 0;
	delta = now - start->ts;
	bpf_map_delete_elem(&starts, &key);
	if (split)
		split_exit(&key, g, now, delta);
	idx = per_function ? key.func : 0;
	h = bpf_map_lookup_elem(&hists, &idx);
	if (!h)
		return 0;
	percpu_add(h->slots[histogram__slot(delta / unit_div)], 1);
	percpu_add(h->total_ns, delta);
	percpu_add(h->count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
