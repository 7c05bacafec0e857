// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * gotrace: one event per probe hit. User space turned each probe into a
 * plan (which register or stack slot holds each word of each value, which
 * pointers to follow, which words are a string's pointer and length, what
 * the filter compares); this program follows it, reading user memory only
 * with bpf_probe_read_user(), tests the filter, and sends the raw words,
 * string bytes and (-U) return addresses through a ring buffer; for %v,
 * also the memory the values refer to, read breadth first by their value
 * types (read_values). A full ring buffer is counted in `lost`, never
 * hidden.
 */
#include "gotools.bpf.h"
#include "events.bpf.h"
#include "stack.bpf.h"
#include "gotrace.h"

const volatile bool user_stack = false;	/* -U */
const volatile bool frame_pointers = true;	/* gc keeps RBP chains */
const volatile __u32 value_size = 1024;	/* --value-size: %v bytes */
const volatile __u32 value_depth = 4;	/* --value-depth */
const volatile __u32 value_str_max = 80;	/* -Z: bytes of a string */
/* Where an hmap (Go <= 1.23) keeps B, buckets and oldbuckets: set by user
 * space from lib/goabi/go_map.h (value_types__set_map_layout()). */
const volatile __u32 hmap_b = 0;
const volatile __u32 hmap_buckets = 0;
const volatile __u32 hmap_oldbuckets = 0;

/* Each row's plan: rows (functions) that read alike share one. */
COOKIE_INDEXED_ARRAY(BPF_MAP_TYPE_ARRAY, __u32) row_plans SEC(".maps");

/* The distinct plans; user space sizes the map before loading. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_plan);
} plans SEC(".maps");

/* The event is built here, then copied to the ring buffer if the filter
 * lets it through: a dropped event never takes ring buffer space. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_event);
} scratch SEC(".maps");

/* %v's value types, their slots and the dynamic types of interfaces; user
 * space sizes them before loading (1 until then: BPF refuses 0). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_vtype);
} vtypes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct trace_vslot);
} vslots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct trace_vdyn);
} vdyn SEC(".maps");

/* A register's value at a call's entry, for its return (a plan's
 * entry_keep and entry_reg): by process and SP at entry, which is SP at
 * the RET too, and names the call while it runs (gccgo never moves a
 * stack). User space gives it room (ENTRY_REGS_MAX) when a plan keeps
 * one; 1 until then. */
struct entry_key {
	__u64 sp;
	__u32 tgid;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct entry_key);
	__type(value, __u64);
} entry_regs SEC(".maps");

/* What is left to read of the %v values of one event, breadth first. */
struct walk_item {
	__u64 addr;
	__u32 vtype;
	__u32 count;		/* elements */
	__u32 depth;		/* of references followed to reach it */
	__u32 pad;
};

struct walk {
	struct walk_item items[TRACE_MAX_CHUNKS];
	__u32 nitems;		/* pushed so far */
	__u32 cur;		/* being read */
	bool started;		/* cur's chunk is read: its slots are next */
	__u32 data_off;		/* of cur's bytes in the event's value */
	__u32 nelems;		/* of cur's elements read whole */
	__u32 elem, slot;	/* the next slot to follow */
	struct trace_vtype vt;	/* cur's */
	__u64 start_code;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct walk);
} walks SEC(".maps");

_Static_assert(__builtin_offsetof(struct trace_event, value) % 8 == 0 &&
	       sizeof(struct trace_chunk) == 16, "chunks are 8-byte aligned");
_Static_assert((TRACE_VALUE_MAX & (TRACE_VALUE_MAX - 1)) == 0 &&
	       (TRACE_MAX_CHUNKS & (TRACE_MAX_CHUNKS - 1)) == 0,
	       "masks bound offsets");

/* Bit i: words[i] has no value (faulted, behind nil, out of range). */
static __always_inline __u32 unread(const struct trace_event *e)
{
	return e->word_faults | e->word_nils | e->word_oob;
}

static __always_inline void read_words(struct pt_regs *ctx,
				       struct trace_event *e,
				       const struct trace_plan *plan,
				       const __u64 *regs)
{
	__u32 i;

	for (i = 0; i < TRACE_MAX_WORDS; i++) {
		const struct trace_word *w = &plan->words[i];
		__u64 v = 0, addr;
		__u32 size = w->size, b = w->base, g = w->guard;

		e->words[i] = 0;
		if (i >= plan->nwords)
			continue;
		if (w->kind == WORD_REG) {
			e->words[i] = REG_BY_DWARF(ctx, regs, w->reg);
			continue;
		}
		if (b == TRACE_NO_BASE) {
			addr = REG_BY_DWARF(ctx, regs, w->reg);
		} else {
			b &= TRACE_MAX_WORDS - 1;
			/* a pointer that could not be read, nil, or past
			 * a length */
			if (unread(e) >> b & 1) {
				e->word_faults |= (e->word_faults >> b & 1) << i;
				e->word_nils |= (e->word_nils >> b & 1) << i;
				e->word_oob |= (e->word_oob >> b & 1) << i;
				continue;
			}
			addr = e->words[b];
			if (!addr) {
				e->word_nils |= 1U << i;
				continue;
			}
		}
		/* an element: only below the length */
		if (g) {
			g = (g - 1) & (TRACE_MAX_WORDS - 1);
			if (unread(e) >> g & 1 || e->words[g] <= w->index) {
				e->word_oob |= 1U << i;
				continue;
			}
		}
		if (size > 8)
			size = 8;
		if (bpf_probe_read_user(&v, size, (void *)(addr + w->offset)))
			e->word_faults |= 1U << i;
		e->words[i] = v;
	}
}

static __always_inline void read_strs(struct trace_event *e,
				      const struct trace_plan *plan)
{
	__u32 i;

	for (i = 0; i < TRACE_MAX_STRS; i++) {
		const struct trace_str *s = &plan->strs[i];
		__u32 pw = s->ptr_word & (TRACE_MAX_WORDS - 1);
		__u32 lw = s->len_word & (TRACE_MAX_WORDS - 1);
		__u64 len, ptr;

		e->str_len[i] = 0;
		if (i >= plan->nstrs)
			continue;
		if (unread(e) >> pw & 1 || unread(e) >> lw & 1) {
			e->str_faults |= 1U << i;
			continue;
		}
		ptr = e->words[pw];
		len = e->words[lw];
		if (len > s->max)
			len = s->max;
		if (len > TRACE_STR_MAX)
			len = TRACE_STR_MAX;
		if (!len)
			continue;
		if (bpf_probe_read_user(e->str[i], len, (void *)ptr))
			e->str_faults |= 1U << i;
		else
			e->str_len[i] = len;
	}
}

/* string_equal() reads both strings a word at a time */
_Static_assert(__builtin_offsetof(struct trace_event, str) % 8 == 0 &&
	       TRACE_STR_MAX % 8 == 0, "event strings are 8-byte aligned");
_Static_assert(__builtin_offsetof(struct trace_cmp, bytes) % 8 == 0 &&
	       TRACE_TERM_STR_MAX % 8 == 0, "filter strings are 8-byte aligned");

static __always_inline bool string_equal(const struct trace_event *e,
					 const struct trace_plan *plan,
					 const struct trace_cmp *t)
{
	__u32 s = t->str & (TRACE_MAX_STRS - 1), k;
	__u32 lw = plan->strs[s].len_word & (TRACE_MAX_WORDS - 1);
	__u64 len = t->value, left, mask;

	if (e->str_faults >> s & 1 || e->words[lw] != len)
		return false;
	/* 8 bytes at a time (little-endian: the first byte is the lowest),
	 * the last word masked to the length: the verifier walks 8 steps a
	 * term, not 64 */
	for (k = 0; k < TRACE_TERM_STR_MAX / 8; k++) {
		if (k * 8 >= len)
			break;
		left = len - k * 8;
		mask = left >= 8 ? ~0ULL : (1ULL << (left * 8)) - 1;
		if ((*(const __u64 *)&e->str[s][k * 8] ^
		     *(const __u64 *)&t->bytes[k * 8]) & mask)
			return false;
	}
	return true;
}

/* A comparison whose value cannot be read is false. */
static __always_inline bool term_true(const struct trace_event *e,
				      const struct trace_plan *plan,
				      const struct trace_cmp *t)
{
	__u32 w = t->word & (TRACE_MAX_WORDS - 1), bits = t->size * 8;
	__u64 v, c = t->value;
	bool lt, eq;

	if (t->flags & TERM_STRING) {
		eq = string_equal(e, plan, t);
		return t->op == TERM_NE ? !eq : eq;
	}
	if (unread(e) >> w & 1)
		return false;
	v = e->words[w] >> ((t->shift & 7) * 8);
	if (bits && bits < 64) {
		v &= (1ULL << bits) - 1;
		if (t->flags & TERM_SIGNED && v >> (bits - 1) & 1)
			v |= ~0ULL << bits;
	}
	eq = v == c;
	lt = t->flags & TERM_SIGNED ? (__s64)v < (__s64)c : v < c;
	switch (t->op) {
	case TERM_EQ: return eq;
	case TERM_NE: return !eq;
	case TERM_LT: return lt;
	case TERM_LE: return lt || eq;
	case TERM_GT: return !lt && !eq;
	default: return !lt;
	}
}

/* Terms joined by && and ||, && binding tighter; no terms: true. */
static __always_inline bool filter_passes(const struct trace_event *e,
					  const struct trace_plan *plan)
{
	bool clause = true, any = false;
	__u32 i;

	if (!plan->nterms)
		return true;
	for (i = 0; i < TRACE_MAX_TERMS; i++) {
		const struct trace_cmp *t = &plan->terms[i];

		if (i >= plan->nterms)
			break;
		clause = clause && term_true(e, plan, t);
		if (t->flags & TERM_OR || i + 1 == plan->nterms) {
			any = any || clause;
			clause = true;
		}
	}
	return any;
}

/* The word at OFF of the event's %v memory (OFF is 8-byte aligned). */
static __always_inline __u64 value_word(const struct trace_event *e, __u32 off)
{
	return *(const __u64 *)&e->value[off & (2 * TRACE_VALUE_MAX - 8)];
}

/*
 * A chunk of WANT bytes at ADDR, cut to what is left of the budget: its
 * header, then its bytes. Returns the offset of the bytes and sets *GOT, or
 * -1 when no room is left.
 */
static __always_inline int read_chunk(struct trace_event *e, __u64 addr,
				      __u64 want, __u32 *got)
{
	__u32 used = e->value_len & (TRACE_VALUE_MAX - 1), room, n, data;
	struct trace_chunk *h;

	if (e->nchunks >= TRACE_MAX_CHUNKS ||
	    used + sizeof(*h) >= value_size || value_size > TRACE_VALUE_MAX)
		return -1;
	room = value_size - used - sizeof(*h);
	n = want < room ? want : room;
	/* N is below TRACE_VALUE_MAX already, which clang may see and drop
	 * the mask: the verifier, which bounds the size of the read by it,
	 * does not */
	barrier_var(n);
	n &= TRACE_VALUE_MAX - 1;
	h = (struct trace_chunk *)&e->value[used];
	data = used + sizeof(*h);
	h->addr = addr;
	h->len = n;
	h->fault = 0;
	if (n && bpf_probe_read_user(&e->value[data], n, (void *)addr)) {
		h->fault = 1;
		h->len = n = 0;
	}
	e->value_len = data + ((n + 7) & ~7U);
	e->nchunks++;
	*got = n;
	return data;
}

static __always_inline void walk_push(struct walk *w, __u64 addr, __u32 vtype,
				      __u64 count, __u32 depth)
{
	struct walk_item *it;

	if (!addr || !count || depth > value_depth ||
	    w->nitems >= TRACE_MAX_CHUNKS)
		return;
	it = &w->items[w->nitems & (TRACE_MAX_CHUNKS - 1)];
	it->addr = addr;
	it->vtype = vtype;
	it->count = count > TRACE_VALUE_MAX ? TRACE_VALUE_MAX : count;
	it->depth = depth;
	w->nitems++;
}

/* Follow the reference of KIND in words A and B, to a VTYPE at DEPTH. */
static __always_inline void walk_ref(struct walk *w, struct trace_event *e,
				     __u32 kind, __u64 a, __u64 b, __u32 vtype,
				     __u32 depth, __u32 flags)
{
	struct trace_vdyn *dyn;
	__u32 got = 0;
	__u64 key;
	int off;

	switch (kind) {
	case REF_MEM:
	case REF_PTR:
	case REF_MAP:
	case REF_CHAIN:
		walk_push(w, a, vtype, 1, depth);
		return;
	case REF_STRING:
		walk_push(w, a, 0, b < value_str_max ? b : value_str_max, depth);
		return;
	case REF_SLICE:
		walk_push(w, a, vtype, b, depth);
		return;
	case REF_SWISS_GROUP:
		if (!b)
			walk_push(w, a, vtype, 1, depth);
		return;
	case REF_SWISS_DIR:
		if (b)
			walk_push(w, a, vtype, b, depth);
		return;
	case REF_GROUPS:
		walk_push(w, a, vtype, b + 1, depth);
		return;
	case REF_IFACE:
		/* the itab's second word is the type: read, and kept for
		 * user space to name it */
		if (!a || (off = read_chunk(e, a, 16, &got)) < 0 || got < 16)
			return;
		a = value_word(e, off + 8);
		break;
	case REF_EFACE:
		break;
	default:
		return;
	}
	key = a - w->start_code;
	dyn = a ? bpf_map_lookup_elem(&vdyn, &key) : NULL;
	if (!dyn)
		return;
	if (!(dyn->flags & DYN_DIRECT) || dyn->flags & DYN_FOLLOW ||
	    (dyn->flags & DYN_FOLLOW_ROOT && flags & REF_ROOT))
		walk_push(w, b, dyn->vtype, 1, depth);
}

struct walk_ctx {
	struct walk *w;
	struct trace_event *e;
};

/* One step: read the next chunk, or follow one slot of one element of it.
 * Returns 1 when nothing is left to do. */
static long walk_step(__u32 i, struct walk_ctx *c)
{
	struct walk *w = c->w;
	struct trace_event *e = c->e;
	struct walk_item *it;
	struct trace_vtype *vt;
	struct trace_vslot *sl;
	__u32 idx, got = 0, off = 0, depth;
	__u64 b;
	int data;

	if (w->cur >= w->nitems)
		return 1;
	it = &w->items[w->cur & (TRACE_MAX_CHUNKS - 1)];
	if (!w->started) {
		idx = it->vtype;
		vt = bpf_map_lookup_elem(&vtypes, &idx);
		if (!vt) {
			w->cur++;
			return 0;
		}
		w->vt = *vt;
		data = read_chunk(e, it->addr, (__u64)vt->size * it->count, &got);
		if (data < 0)
			return 1;
		w->data_off = data;
		w->nelems = vt->size ? got / vt->size : 0;
		w->elem = w->slot = 0;
		if (vt->nslots && w->nelems && it->depth < value_depth)
			w->started = true;
		else
			w->cur++;
		return 0;
	}
	idx = w->vt.first_slot + w->slot;
	sl = bpf_map_lookup_elem(&vslots, &idx);
	/* a map's storage is as deep as the map */
	depth = it->depth + (sl && sl->kind < REF_CHAIN);
	if (sl)
		off = w->data_off + w->elem * w->vt.size + sl->offset;
	if (sl && sl->kind == REF_BUCKETS) {
		/* an hmap: its 1 << B buckets, and while it grows the old
		 * ones, half as many */
		b = value_word(e, off + (hmap_b & ~7)) >> (hmap_b & 7) * 8 & 0xff;
		if (b > 15)
			b = 15;
		walk_push(w, value_word(e, off + hmap_buckets), sl->vtype,
			  1ULL << b, depth);
		if (b)
			walk_push(w, value_word(e, off + hmap_oldbuckets),
				  sl->vtype, 1ULL << (b - 1), depth);
	} else if (sl) {
		walk_ref(w, e, sl->kind, value_word(e, off), value_word(e, off + 8),
			 sl->vtype, depth, 0);
	}
	if (++w->slot >= w->vt.nslots) {
		w->slot = 0;
		if (++w->elem >= w->nelems) {
			w->started = false;
			w->cur++;
		}
	}
	return 0;
}

/* %v: the memory the plan's values refer to, from its roots on. */
static __always_inline void read_values(struct trace_event *e,
					const struct trace_plan *plan,
					__u64 start_code)
{
	struct walk_ctx c = { .e = e };
	__u32 zero = 0, i, w0, w1;
	struct walk *w;

	e->value_len = 0;
	e->nchunks = 0;
	w = bpf_map_lookup_elem(&walks, &zero);
	if (!w)
		return;
	w->nitems = 0;
	w->cur = 0;
	w->started = false;
	w->start_code = start_code;
	for (i = 0; i < TRACE_MAX_VROOTS; i++) {
		const struct trace_vroot *r = &plan->vroots[i];

		if (i >= plan->nvroots)
			break;
		w0 = r->word0 & (TRACE_MAX_WORDS - 1);
		w1 = r->word1 & (TRACE_MAX_WORDS - 1);
		if (unread(e) >> w0 & 1 || unread(e) >> w1 & 1)
			continue;
		/* a value in memory is the value itself, depth 0; anything
		 * else a root refers to is one reference away */
		walk_ref(w, e, r->kind, e->words[w0] + r->offset, e->words[w1],
			 r->vtype, r->kind != REF_MEM, r->flags);
	}
	c.w = w;
	bpf_loop(TRACE_MAX_CHUNKS * 16, walk_step, &c, 0);
}

/* At a call's entry: keep V, a register's value, for its return, SP
 * being SP there. Not inlined: trace_hit's own code stays as the verifier
 * checks it. */
static __noinline void entry_reg__keep(__u64 sp, __u32 tgid, __u64 v)
{
	struct entry_key key = { .sp = sp, .tgid = tgid };

	bpf_map_update_elem(&entry_regs, &key, &v, BPF_ANY);
}

/* At its return, SP being SP there: the value its entry kept (once), else
 * 0, which no read through it gets past. */
static __noinline __u64 entry_reg__take(__u64 sp, __u32 tgid)
{
	struct entry_key key = { .sp = sp, .tgid = tgid };
	__u64 *kept = bpf_map_lookup_elem(&entry_regs, &key), v = 0;

	if (kept) {
		v = *kept;
		bpf_map_delete_elem(&entry_regs, &key);
	}
	return v;
}

SEC("uprobe")
int trace_hit(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), id = bpf_get_current_pid_tgid();
	__u64 regs[REGS_BY_DWARF_N] = REGS_BY_DWARF(ctx);
	__u32 row = COOKIE_INDEX(cookie), zero = 0, *plan_idx;
	__u64 size;
	struct task_struct *task;
	struct trace_plan *plan;
	struct trace_event *e;

	if (!call_hit(ctx, cookie, id))
		return 0;
	plan_idx = bpf_map_lookup_elem(&row_plans, &row);
	if (!plan_idx)
		return 0;
	plan = bpf_map_lookup_elem(&plans, plan_idx);
	e = bpf_map_lookup_elem(&scratch, &zero);
	if (!plan || !e)
		return 0;
	if (plan->entry_keep) {
		entry_reg__keep(BPF_CORE_READ(ctx, REG_SP), id >> 32,
				REG_BY_DWARF(ctx, regs, plan->entry_keep - 1));
		return 0;
	}
	if (plan->entry_reg && !(cookie & COOKIE_TAIL))
		REG_BY_DWARF(ctx, regs, plan->entry_reg - 1) =
			entry_reg__take(BPF_CORE_READ(ctx, REG_SP), id >> 32);
	e->row = row;
	e->tail = !!(cookie & COOKIE_TAIL);
	e->word_faults = 0;
	e->word_nils = 0;
	e->word_oob = 0;
	e->str_faults = 0;
	e->nframes = 0;
	/* at a tail JMP the results are not set: nothing to read or test */
	if (!e->tail) {
		read_words(ctx, e, plan, regs);
		read_strs(e, plan);
		if (!filter_passes(e, plan))
			return 0;
	} else if (plan->nterms) {
		return 0;
	}
	e->ts = bpf_ktime_get_ns();
	e->pid = id >> 32;
	e->tid = (__u32)id;
	task = (struct task_struct *)bpf_get_current_task();
	e->goid = current_goid(task, REG_G_VALUE(ctx, regs), cookie, plan->tls_g_offset,
				plan->goid_offset);
	e->start_code = BPF_CORE_READ(task, mm, start_code);
	if (plan->nvroots && !e->tail)
		read_values(e, plan, e->start_code);
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (user_stack)
		e->nframes = user_stack__read(ctx, cookie, frame_pointers,
					      e->frames);
	/* only the strings the plan reads, the %v memory it read */
	e->value_moved = 0;
	if (plan->nvroots && !e->tail) {
		size = e->value_len & (2 * TRACE_VALUE_MAX - 1);
		if (!plan->nstrs && size <= sizeof(e->str) &&
		    !bpf_probe_read_kernel(e->str, size, e->value)) {
			e->value_moved = 1;
			size += __builtin_offsetof(struct trace_event, str);
		} else {
			size += __builtin_offsetof(struct trace_event, value);
		}
	} else if (plan->nstrs) {
		size = __builtin_offsetof(struct trace_event, str) +
		       (__u64)(plan->nstrs & 7) * sizeof(e->str[0]);
	} else if (e->nframes) {
		/* no strings: up to its last frame, or its last word (an
		 * event of --no-values is a sixth the size, and the ring
		 * buffer holds six times as many) */
		size = __builtin_offsetof(struct trace_event, frames) +
		       (__u64)(e->nframes & (2 * STACK_MAX_FRAMES - 1)) *
		       sizeof(e->frames[0]);
	} else {
		size = __builtin_offsetof(struct trace_event, words) +
		       (__u64)(plan->nwords & (2 * TRACE_MAX_WORDS - 1)) *
		       sizeof(e->words[0]);
	}
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&events, e, size, events__wakeup()))
		events__lost();
	return 0;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
