// SPDX-License-Identifier: MIT
/*
 * Where an inlined copy ends (inline_ends.h): the caller's body is swept
 * whole by its machine's decoder, as the exit sweeps do, into its
 * instructions and the edges of its flow of control; a copy's ends are
 * then read off the edges that leave its spans. Nothing here depends on
 * the machine: the decoder says what each instruction is.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "goabi/go_noreturn.h"
#include "site/inline_ends.h"

/* instructions of the caller a way out may pass to its end */
#define MAX_PASSED	16
/* caller's instructions gc may interleave with a copy's, in a row */
#define MAX_INTERLEAVED	16
/* entries of a switch's jump table read, at most */
#define JUMP_TABLE_MAX	4096
/* instructions before a table's jump the decoder may find its address
 * loaded in (x86-64: the lea, and up to 4 NOPs that align the jmp) */
#define JUMP_TABLE_BEFORE	5

struct flow_insn {
	uint64_t addr;
	uint64_t next;		/* the address after it */
	uint64_t target;	/* of a JMP inside the body */
	uint32_t succ;		/* its first edge in the edges by source */
	uint8_t nsucc;		/* and how many */
	int8_t exit;		/* enum exit_kind when it leaves, else -1 */
	bool plain;		/* only falls through */
	bool jmp;		/* a direct JMP inside the body */
	bool cond_leaves;	/* a conditional jump out of the body */
	bool emulated;		/* see struct exit_site */
};

/* Control may go from FROM to TO. */
struct flow_edge {
	uint64_t from, to;
};

void inline_ends__init(struct inline_ends *e, const struct go_binary *bin,
		       const struct inline_decoder *dec)
{
	memset(e, 0, sizeof(*e));
	e->bin = bin;
	e->dec = dec;
}

void inline_ends__free(struct inline_ends *e)
{
	free(e->insns);
	free(e->edges);
	free(e->preds);
	free(e->marks);
	free(e->fillers);
	memset(e, 0, sizeof(*e));
}

static int add_edge(struct inline_ends *e, uint64_t from, uint64_t to)
{
	int err;

	err = gt_ensure_mem((void **)&e->edges, &e->edges_cap,
			    sizeof(*e->edges), e->nedges + 1);
	if (err)
		return err;
	e->edges[e->nedges++] = (struct flow_edge){ from, to };
	return 0;
}

/* Does the call CI return? Not to a function that never does. */
static bool call_returns(const struct go_binary *bin,
			 const struct site_insn *ci)
{
	const struct go_func *callee;

	if (!ci->direct)
		return true;
	callee = go_binary__func_at(bin, ci->target);
	return !callee || callee->addr != ci->target ||
	       !go_func__never_returns(callee->name);
}

/* Is there an edge from I to TO yet? */
static bool has_edge(const struct inline_ends *e, const struct flow_insn *i,
		     uint64_t to)
{
	size_t k;

	for (k = i->succ; k < e->nedges; k++)
		if (e->edges[k].to == to)
			return true;
	return false;
}

/*
 * The edges of the JMP JI through a switch's jump table, I in the body at
 * ENTRY of LEN bytes: the machine's decoder finds the table's address in
 * the code before the jump (x86/inline_ends.c, arm64/inline_ends.c), and
 * the table holds addresses of cases in the body. Its entries are read up
 * to the first that is not in the body (a table of the same body right
 * after it is read too: edges that do not happen make more landings look
 * reached from outside a copy, never fewer). A JMP of another shape, or
 * whose table cannot be read, sets e->jump_table: its targets are not
 * known.
 */
static int table_edges(struct inline_ends *e, const struct site_insn *ji,
		       uint64_t entry, size_t len, struct flow_insn *i)
{
	struct code_span before[JUMP_TABLE_BEFORE];
	const struct flow_insn *prev;
	uint64_t table = 0, target;
	size_t k, nbefore = 0;
	int err = 0;

	/* the instructions before it, nearest first */
	for (prev = i; prev > e->insns && nbefore < JUMP_TABLE_BEFORE; prev--)
		before[nbefore++] = (struct code_span){ prev[-1].addr,
							 prev[-1].next };
	if (!e->dec->jump_table(&e->body, ji, before, nbefore, &table))
		goto unknown;
	for (k = 0; !err && k < JUMP_TABLE_MAX; k++) {
		if (elf_file__read_pointers(e->bin->elf, table + 8 * k, 1, 8,
					    &target) ||
		    target - entry >= len)
			break;
		if (!has_edge(e, i, target))
			err = add_edge(e, ji->addr, target);
	}
	gt_error_clear();
	if (err)
		return err;
	/* at most as many edges as a flow_insn counts */
	if (k && e->nedges - i->succ <= UINT8_MAX)
		return 0;
	e->nedges = i->succ;
unknown:
	e->jump_table = true;
	return 0;
}

/* The edges out of CI, an instruction of the LEN bytes of the body at
 * ENTRY, and whether it leaves the body, into *I. */
static int follow(struct inline_ends *e, const struct site_insn *ci,
		  uint64_t entry, size_t len, struct flow_insn *i)
{
	uint64_t target = ci->target;

	switch (ci->flow) {
	case SITE_FLOW_PLAIN:
		i->plain = true;
		return add_edge(e, ci->addr, ci->next);
	case SITE_FLOW_CALL:
		return call_returns(e->bin, ci) ? add_edge(e, ci->addr, ci->next) : 0;
	case SITE_FLOW_STOP:
		if (ci->ret)
			i->exit = EXIT_RET;
		return 0;
	case SITE_FLOW_JCC:
		if (!ci->direct)
			return gt_error(-EINVAL, "no target of the branch at 0x%llx",
					(unsigned long long)ci->addr);
		i->cond_leaves = target - entry >= len;
		return add_edge(e, ci->addr, ci->next) ?:
		       (target - entry < len ? add_edge(e, ci->addr, target) : 0);
	case SITE_FLOW_JMP:
		if (exit_jump__leaves(ci->direct, target, ci->through_table,
				      entry, len)) {
			i->exit = EXIT_TAIL_JMP;
			return 0;
		}
		if (!ci->direct)
			return table_edges(e, ci, entry, len, i);
		i->jmp = true;
		i->target = target;
		return add_edge(e, ci->addr, target);
	}
	return 0;
}

static int cmp_edges(const void *a, const void *b)
{
	const struct flow_edge *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

static int cmp_indexes(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Sweep the body of FN, up to its padding, into E. */
static int decode_body(struct inline_ends *e, const struct go_func *fn)
{
	struct inline_body *b = &e->body;
	struct flow_insn *i;
	struct site_insn ci;
	uint64_t addr;
	size_t len;
	int err;

	e->caller = NULL;
	e->ninsns = e->nedges = 0;
	e->jump_table = false;
	*b = (struct inline_body){ .bin = e->bin, .fn = fn };
	err = e->dec->open(b);
	if (err)
		return err;
	len = b->len;
	for (addr = fn->addr; !err && addr - fn->addr < b->end;
	     addr = ci.next) {
		if (!e->dec->insn(b, addr, &ci)) {
			/* cut short */
			if (!fn->size && len - (addr - fn->addr) <= e->dec->insn_max)
				break;
			err = gt_error(-EINVAL,
				       "%s: cannot decode the instruction at 0x%llx",
				       fn->name, (unsigned long long)addr);
			break;
		}
		err = gt_ensure_mem((void **)&e->insns, &e->insns_cap,
				    sizeof(*e->insns), e->ninsns + 1);
		if (err)
			break;
		i = &e->insns[e->ninsns++];
		*i = (struct flow_insn){
			.addr = ci.addr, .next = ci.next,
			.succ = (uint32_t)e->nedges, .exit = -1,
			.emulated = ci.emulated,
		};
		err = follow(e, &ci, fn->addr, len, i);
		i->nsucc = (uint8_t)(e->nedges - i->succ);
	}
	if (!err)
		err = gt_ensure_mem((void **)&e->preds, &e->preds_cap,
				    sizeof(*e->preds), e->nedges + 1);
	if (!err)
		err = gt_ensure_mem((void **)&e->marks, &e->marks_cap,
				    sizeof(*e->marks), e->ninsns + 1);
	if (!err)
		err = gt_ensure_mem((void **)&e->fillers, &e->fillers_cap,
				    sizeof(*e->fillers), e->ninsns + 1);
	if (err)
		return err;
	/* the edges by source, as decoded; a copy of them by target */
	memcpy(e->preds, e->edges, e->nedges * sizeof(*e->preds));
	if (e->nedges)
		qsort(e->preds, e->nedges, sizeof(*e->preds), cmp_edges);
	memset(e->marks, 0, e->ninsns * sizeof(*e->marks));
	memset(e->fillers, 0, e->ninsns * sizeof(*e->fillers));
	e->epoch = 0;
	e->caller = fn;
	return 0;
}

/* The index of the first of the N elements of SIZE bytes at V, sorted by
 * the address at KEY_AT in each, whose address is KEY or more. */
static size_t lower_bound(const void *v, size_t n, size_t size,
			  size_t key_at, uint64_t key)
{
	size_t lo = 0, hi = n;
	uint64_t at;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&at, (const char *)v + mid * size + key_at, sizeof(at));
		if (at < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The index of the first instruction at or after ADDR. */
static size_t insn_from(const struct inline_ends *e, uint64_t addr)
{
	return lower_bound(e->insns, e->ninsns, sizeof(*e->insns),
			   offsetof(struct flow_insn, addr), addr);
}

static const struct flow_insn *insn_at(const struct inline_ends *e,
				       uint64_t addr)
{
	size_t k = insn_from(e, addr);

	return k < e->ninsns && e->insns[k].addr == addr ? &e->insns[k] : NULL;
}

/* The edges out of I. */
static const struct flow_edge *edges_from(const struct inline_ends *e,
					  const struct flow_insn *i)
{
	return &e->edges[i->succ];
}

/* The index of the first edge by target that lands at or after TO. */
static size_t preds_from(const struct inline_ends *e, uint64_t to)
{
	return lower_bound(e->preds, e->nedges, sizeof(*e->preds),
			   offsetof(struct flow_edge, to), to);
}

/* The edges that land on TO: *N of them from the returned one. */
static const struct flow_edge *edges_to(const struct inline_ends *e,
					uint64_t to, size_t *n)
{
	size_t lo = preds_from(e, to), end;

	for (end = lo; end < e->nedges && e->preds[end].to == to; end++)
		;
	*n = end - lo;
	return &e->preds[lo];
}

/* The copy being looked up, and the JMPs its ways out pass through. */
struct copy {
	struct inline_ends *e;
	uint64_t entry;
	const struct code_span *code;
	size_t ncode;
	struct code_span *own;		/* code, with what it absorbed */
	uint64_t passed[64];		/* see only_way_out() */
	size_t npassed;
	struct exit_site *ends;
	size_t nends, ends_cap;
};

static bool in_copy(const struct copy *c, uint64_t addr)
{
	return code_spans__contain(c->code, c->ncode, addr);
}

static bool is_passed(const struct copy *c, uint64_t addr)
{
	size_t i;

	for (i = 0; i < c->npassed; i++)
		if (c->passed[i] == addr)
			return true;
	return false;
}

/* Does control come to TO only from the copy? */
static bool only_from_copy(const struct copy *c, uint64_t to)
{
	const struct flow_edge *v = NULL;
	size_t n, i;

	v = edges_to(c->e, to, &n);
	for (i = 0; i < n; i++)
		if (!in_copy(c, v[i].from))
			return false;
	return true;
}

/* Does control come to ADDR only from FROM? */
static bool only_from(const struct inline_ends *e, uint64_t addr,
		      uint64_t from)
{
	const struct flow_edge *v;
	size_t n, i;

	v = edges_to(e, addr, &n);
	for (i = 0; i < n; i++)
		if (v[i].from != from)
			return false;
	return true;
}

/* Is the run of plain instructions from K to before J (J > K, both of
 * C's caller) the copy's, interleaved: only the copy falls into it, and
 * it falls back into the copy, not at its entry? */
static bool interleaved(const struct copy *c, size_t k, size_t j)
{
	const struct flow_insn *v = c->e->insns;

	return j < c->e->ninsns && in_copy(c, v[j].addr) &&
	       v[j].addr != c->entry && v[j].addr == v[j - 1].next &&
	       only_from_copy(c, v[k].addr);
}

/*
 * gc's scheduler interleaves a copy's instructions with its caller's
 * (register moves, spills): control leaves the copy's ranges and comes
 * back in their middle. A run of at most MAX_INTERLEAVED plain
 * instructions that only the copy falls into, each only from the one
 * before, and that falls back into the copy, is taken as the copy's code.
 */
static int absorb_interleaved(struct copy *c)
{
	const struct inline_ends *e = c->e;
	const struct flow_insn *v = e->insns, *at;
	const struct flow_edge *out;
	size_t s, i, k, j, n = c->ncode, cap = 0, ncode = c->ncode;
	uint8_t o;
	int err;

	err = gt_ensure_mem((void **)&c->own, &cap, sizeof(*c->own), n + 1);
	if (err)
		return err;
	memcpy(c->own, c->code, n * sizeof(*c->own));
	for (s = 0; s < ncode && !err; s++) {
		for (i = insn_from(e, c->code[s].from);
		     i < e->ninsns && v[i].addr < c->code[s].to && !err; i++) {
			out = edges_from(e, &v[i]);
			for (o = 0; o < v[i].nsucc && !err; o++) {
				/* a run the copy leads to */
				if (in_copy(c, out[o].to) ||
				    !(at = insn_at(e, out[o].to)) || !at->plain)
					continue;
				k = (size_t)(at - v);
				for (j = k + 1; j < e->ninsns &&
				     j - k < MAX_INTERLEAVED &&
				     !in_copy(c, v[j].addr) && v[j].plain &&
				     v[j].addr == v[j - 1].next &&
				     only_from(e, v[j].addr, v[j - 1].addr); j++)
					;
				if (!interleaved(c, k, j))
					continue;
				err = gt_ensure_mem((void **)&c->own, &cap,
						    sizeof(*c->own), n + 1);
				if (!err)
					c->own[n++] = (struct code_span){
						v[k].addr, v[j].addr };
			}
		}
	}
	if (err)
		return err;
	c->ncode = code_spans__merge(c->own, n);
	c->code = c->own;
	return 0;
}

/*
 * Only the code reached from the copy's first instruction without leaving
 * it is the copy's: gc attributes stray instructions of its caller to a
 * copy too (a loop's reload of an argument the copy was passed, at the
 * loop's latch), which run where no call of it is under way.
 */
static int keep_reached(struct copy *c)
{
	struct inline_ends *e = c->e;
	const struct flow_insn *first = insn_at(e, c->entry), *at;
	struct code_span *spans = NULL;
	const struct flow_edge *out;
	size_t *todo = NULL, ntodo = 0, todo_cap = 0, *seen = NULL;
	size_t nseen = 0, seen_cap = 0, k, n = 0, cap = 0;
	uint8_t j;
	int err = 0;

	if (!first)
		return gt_error(-ENOENT, "%s: the inlined copy at 0x%llx starts off its instructions",
				e->caller->name, (unsigned long long)c->entry);
	e->epoch++;
	err = gt_ensure_mem((void **)&todo, &todo_cap, sizeof(*todo), 1);
	if (!err) {
		todo[ntodo++] = (size_t)(first - e->insns);
		e->marks[todo[0]] = e->epoch;
	}
	while (!err && ntodo) {
		k = todo[--ntodo];
		err = gt_ensure_mem((void **)&seen, &seen_cap, sizeof(*seen),
				    nseen + 1);
		if (err)
			break;
		seen[nseen++] = k;
		out = edges_from(e, &e->insns[k]);
		for (j = 0; j < e->insns[k].nsucc && !err; j++) {
			if (!in_copy(c, out[j].to) || !(at = insn_at(e, out[j].to)) ||
			    e->marks[at - e->insns] == e->epoch)
				continue;
			e->marks[at - e->insns] = e->epoch;
			err = gt_ensure_mem((void **)&todo, &todo_cap,
					    sizeof(*todo), ntodo + 1);
			if (!err)
				todo[ntodo++] = (size_t)(at - e->insns);
		}
	}
	free(todo);
	if (!err && nseen)
		qsort(seen, nseen, sizeof(*seen), cmp_indexes);
	for (k = 0; k < nseen && !err; k++) {
		const struct flow_insn *i = &e->insns[seen[k]];

		if (n && spans[n - 1].to == i->addr) {
			spans[n - 1].to = i->next;
			continue;
		}
		err = gt_ensure_mem((void **)&spans, &cap, sizeof(*spans), n + 1);
		if (!err)
			spans[n++] = (struct code_span){ i->addr, i->next };
	}
	free(seen);
	if (err) {
		free(spans);
		return err;
	}
	free(c->own);
	c->own = spans;
	c->code = spans;
	c->ncode = n;
	return 0;
}

static int add_end(struct copy *c, const struct flow_insn *i,
		   enum exit_kind kind)
{
	size_t k;
	int err;

	for (k = 0; k < c->nends; k++)
		if (c->ends[k].addr == i->addr)
			return 0;
	err = gt_ensure_mem((void **)&c->ends, &c->ends_cap, sizeof(*c->ends),
			    c->nends + 1);
	if (err)
		return err;
	c->ends[c->nends++] = (struct exit_site){ i->addr, kind, i->emulated };
	return 0;
}

/*
 * Is the instruction at ADDR, outside the copy, on a way out of it and on
 * that way alone: a plain instruction or a JMP (control goes on to one
 * place) that control comes to only from the copy, or from instructions
 * such as it, at most MAX_PASSED back? Those it passes are noted in
 * C->passed: a way out that passes them ends further on, where it joins
 * the copy's other ways out.
 */
static bool only_way_out(struct copy *c, uint64_t addr, int depth)
{
	const struct flow_insn *i = insn_at(c->e, addr);
	const struct flow_edge *v;
	size_t n, k;

	if (!i || depth > MAX_PASSED || !(i->plain || i->jmp))
		return false;
	if (is_passed(c, addr))
		return true;
	v = edges_to(c->e, addr, &n);
	for (k = 0; k < n; k++)
		if (!in_copy(c, v[k].from) && !only_way_out(c, v[k].from, depth + 1))
			return false;
	if (c->npassed == sizeof(c->passed) / sizeof(*c->passed))
		return false;
	c->passed[c->npassed++] = addr;
	return n > 0;
}

/* Where a way out of C lands, TO, is an end when nothing but the copy's
 * ways out come there. */
static int add_landing(struct copy *c, uint64_t to)
{
	const struct flow_insn *i = insn_at(c->e, to);

	if (!i)
		return gt_error(-ENOENT, "%s: the inlined copy at 0x%llx is left to 0x%llx, off its instructions",
				c->e->caller->name, (unsigned long long)c->entry,
				(unsigned long long)to);
	return add_end(c, i, EXIT_INLINE_END);
}

/* Is every way to the end at ADDR from the copy, or passing through
 * only its ways out? */
static bool only_from_ways_out(struct copy *c, uint64_t addr)
{
	const struct flow_edge *v;
	size_t n, k;

	v = edges_to(c->e, addr, &n);
	for (k = 0; k < n; k++)
		if (!in_copy(c, v[k].from) && !only_way_out(c, v[k].from, 0))
			return false;
	return true;
}

/* Are all the ways into the copy through its first instruction, and
 * none from inside it back there? */
static int check_ways_in(const struct copy *c)
{
	const struct inline_ends *e = c->e;
	const struct go_func *fn = e->caller;
	const struct flow_edge *v;
	size_t s, lo;

	for (s = 0; s < c->ncode; s++) {
		/* the edges into the span, by target */
		for (lo = preds_from(e, c->code[s].from);
		     lo < e->nedges && e->preds[lo].to < c->code[s].to; lo++) {
			v = &e->preds[lo];
			if (in_copy(c, v->from) == (v->to != c->entry))
				continue;
			if (v->to == c->entry)
				return gt_error(-ENOENT, "%s: the inlined copy at 0x%llx jumps back to its first instruction (from 0x%llx)",
						fn->name, (unsigned long long)c->entry,
						(unsigned long long)v->from);
			return gt_error(-ENOENT, "%s: the inlined copy at 0x%llx is entered at 0x%llx (from 0x%llx)",
					fn->name, (unsigned long long)c->entry,
					(unsigned long long)v->to,
					(unsigned long long)v->from);
		}
	}
	return 0;
}

static int cmp_ends(const void *a, const void *b)
{
	const struct exit_site *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* The ends of C, and whether each is reached from the copy alone. */
static int find_ends(struct copy *c)
{
	const struct inline_ends *e = c->e;
	const struct flow_edge *v;
	const struct flow_insn *i;
	size_t s, k, n;
	uint8_t j;
	int err = 0;

	for (s = 0; s < c->ncode && !err; s++) {
		for (k = insn_from(e, c->code[s].from);
		     k < e->ninsns && e->insns[k].addr < c->code[s].to && !err;
		     k++) {
			i = &e->insns[k];
			if (i->cond_leaves)	/* gc emits none; gccgo may */
				err = gt_error(-ENOENT, "%s: a conditional jump at 0x%llx leaves the inlined copy at 0x%llx and its caller",
					       e->caller->name,
					       (unsigned long long)i->addr,
					       (unsigned long long)c->entry);
			else if (i->exit >= 0)
				err = add_end(c, i, (enum exit_kind)i->exit);
			v = edges_from(e, i);
			for (j = 0; j < i->nsucc && !err; j++)
				if (!in_copy(c, v[j].to))
					err = add_landing(c, v[j].to);
		}
	}
	/* every landing where nothing but the copy's ways out come; those
	 * passed on the way to another are not ends */
	for (k = 0; k < c->nends && !err && !e->shared_ends; k++) {
		if (c->ends[k].kind != EXIT_INLINE_END ||
		    only_from_ways_out(c, c->ends[k].addr))
			continue;
		err = gt_error(-ENOENT, "%s: the end of the inlined copy at 0x%llx, 0x%llx, is reached from outside it too",
			       e->caller->name, (unsigned long long)c->entry,
			       (unsigned long long)c->ends[k].addr);
	}
	for (k = 0, n = 0; k < c->nends && !err; k++)
		if (c->ends[k].kind != EXIT_INLINE_END ||
		    !is_passed(c, c->ends[k].addr))
			c->ends[n++] = c->ends[k];
	c->nends = err ? c->nends : n;
	for (k = 0; k < c->nends && !err; k++) {
		if (!e->dec->probeable(e->bin->elf, c->ends[k].addr))
			err = gt_error(-ENOENT, "%s: the kernel cannot probe the end of the inlined copy at 0x%llx, 0x%llx",
				       e->caller->name,
				       (unsigned long long)c->entry,
				       (unsigned long long)c->ends[k].addr);
	}
	if (!err && c->nends)
		qsort(c->ends, c->nends, sizeof(*c->ends), cmp_ends);
	return err;
}

/* Decode the body of the function at CALLER into E, unless it is there. */
static int decode_caller(struct inline_ends *e, uint64_t caller)
{
	const struct go_func *fn = go_binary__func_at(e->bin, caller);

	if (!fn || fn->addr != caller)
		return gt_error(-EINVAL, "no function at 0x%llx",
				(unsigned long long)caller);
	return e->caller == fn ? 0 : decode_body(e, fn);
}

/* How many instructions of the code of C (reached from its entry) do
 * something of the copy's own: not fillers (the decoder's filler(), once
 * per instruction of a body; one that does not decode is a filler). */
static int count_own(const struct copy *c, size_t *n)
{
	struct inline_ends *e = c->e;
	uint64_t next;
	size_t s, k;

	*n = 0;
	for (s = 0; s < c->ncode; s++) {
		for (k = insn_from(e, c->code[s].from);
		     k < e->ninsns && e->insns[k].addr < c->code[s].to; k++) {
			if (!e->fillers[k])
				e->fillers[k] = e->dec->filler(&e->body,
							      e->insns[k].addr,
							      e->insns[k].next,
							      &next) == 0 ?
						2 : 1;
			*n += e->fillers[k] == 2;
		}
	}
	return 0;
}

/* The bytes of the N spans of CODE. */
static uint64_t spans_size(const struct code_span *code, size_t n)
{
	uint64_t size = 0;
	size_t k;

	for (k = 0; k < n; k++)
		size += code[k].to - code[k].from;
	return size;
}

/* Is all of C's code reached from its first span? (Most copies'.) */
static int reaches_all(struct copy *c, bool *all)
{
	uint64_t size = spans_size(c->code, c->ncode);
	int err;

	*all = false;
	if (!insn_at(c->e, c->entry))
		return 0;
	err = absorb_interleaved(c);
	if (!err)
		err = keep_reached(c);
	*all = !err && spans_size(c->code, c->ncode) >= size;
	free(c->own);
	return err;
}

/* Is SPAN, in the body of FN, nothing but fillers (or not decodable)? */
static bool only_fillers(const struct inline_ends *e, const struct go_func *fn,
			 const struct code_span *span)
{
	struct inline_body b = { .bin = e->bin, .fn = fn };
	uint64_t at, next;
	int filler;

	if (e->dec->open(&b) ||
	    span->from < fn->addr || span->to - fn->addr > b.len) {
		gt_error_clear();
		return true;
	}
	for (at = span->from; at < span->to; at = next) {
		filler = e->dec->filler(&b, at, span->to, &next);
		if (filler < 0)
			return true;
		if (!filler)
			return false;
	}
	return true;
}

int inline_ends__entry(struct inline_ends *e, uint64_t caller,
		       const struct code_span *code, size_t ncode,
		       uint64_t *entry)
{
	const struct go_func *fn = go_binary__func_at(e->bin, caller);
	struct copy first = {
		.e = e, .entry = ncode ? code[0].from : 0, .code = code,
		.ncode = ncode,
	};
	size_t s, most = 0, n, nreached = 0, reached_cap = 0;
	struct code_span *reached = NULL;
	bool all;
	int err;

	*entry = first.entry;
	/* a first span that does something of its own is the entry */
	if (ncode < 2 || !fn || !only_fillers(e, fn, &code[0]))
		return 0;
	err = decode_caller(e, caller);
	if (!err)
		err = reaches_all(&first, &all);
	if (err || all)
		return err;
	/* a span reached from one tried before reaches no more than it */
	for (s = 1; s < ncode && !err; s++) {
		struct copy c = {
			.e = e, .entry = code[s].from, .code = code,
			.ncode = ncode,
		};

		if (!insn_at(e, c.entry) ||
		    code_spans__contain(reached, nreached, c.entry) ||
		    only_fillers(e, fn, &code[s]))
			continue;
		err = absorb_interleaved(&c);
		if (!err)
			err = keep_reached(&c);
		if (!err)
			err = count_own(&c, &n);
		if (!err)
			err = gt_ensure_mem((void **)&reached, &reached_cap,
					    sizeof(*reached), nreached + c.ncode);
		if (!err) {
			memcpy(reached + nreached, c.code,
			       c.ncode * sizeof(*reached));
			nreached = code_spans__merge(reached, nreached + c.ncode);
		}
		free(c.own);
		if (!err && n > most) {
			most = n;
			*entry = code[s].from;
		}
	}
	free(reached);
	return err;
}

int inline_ends__find(struct inline_ends *e, uint64_t caller, uint64_t entry,
		      const struct code_span *code, size_t ncode,
		      struct exit_site **ends, size_t *n)
{
	struct copy c = {
		.e = e, .entry = entry, .code = code, .ncode = ncode,
	};
	const struct go_func *fn;
	int err;

	*ends = NULL;
	*n = 0;
	err = decode_caller(e, caller);
	if (err)
		return err;
	fn = e->caller;
	if (!ncode || !code_spans__contain(code, ncode, entry))
		return gt_error(-ENOENT, "%s: the inlined copy at 0x%llx has no code there",
				fn->name, (unsigned long long)entry);
	if (e->jump_table)
		return gt_error(-ENOENT, "%s jumps through a table: where its inlined copies end is not known",
				fn->name);
	err = absorb_interleaved(&c);
	if (!err)
		err = keep_reached(&c);
	if (!err)
		err = check_ways_in(&c);
	if (!err)
		err = find_ends(&c);
	free(c.own);
	if (err) {
		free(c.ends);
		return err;
	}
	*ends = c.ends;
	*n = c.nends;
	return 0;
}
