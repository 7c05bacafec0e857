/* SPDX-License-Identifier: MIT */
/*
 * What admission (overhead_admit.c) tries, in what order: the indexes by
 * the target's CPU samples in their functions, and runs of them in groups
 * with links of their own, in batches (overhead_order.c,
 * overhead_group.c). Not for the tools.
 */
#ifndef GOTOOLS_OVERHEAD_GROUP_H
#define GOTOOLS_OVERHEAD_GROUP_H

#include "cli/overhead_internal.h"

/* Where the index of COOKIE comes in admission's order (one past the
 * last: an index out of range, in no batch). */
static inline __u32 position_of(const struct overhead_limit *l,
				  uint64_t cookie)
{
	__u32 i = COOKIE_INDEX(cookie);

	return i < l->nindexes ? l->position[i] : l->nindexes;
}

/* Admission's order (l->order, l->position): the indexes whose functions
 * the target's CPU was seen in least first, those never seen in it in
 * their own order (overhead_limit__sample(); without it, all are). */
int overhead_order__make(struct overhead_limit *l);

/* Free admission's order, once it is over. */
void overhead_order__free(struct overhead_limit *l);

/* Sort R's probes by their indexes' positions, so that a batch is a run
 * of them. */
int overhead_request__sort(const struct overhead_limit *l,
			   struct overhead_request *r);

/* Read probe_hits of the indexes at positions LO..LO + N) into HITS. */
void overhead__read_positions(const struct overhead_limit *l, __u32 lo,
			      size_t n, struct probe_hits *hits);

/* The indexes at positions [lo, hi) of admission's order and their
 * probes, [from[k], to[k]) of request k. */
struct run {
	__u32 lo, hi;
	size_t *from, *to;
	size_t nprobes;
};

/*
 * A batch is tried in groups of about GROUP probes (more for large
 * patterns: the limit keeps about GROUP_LINKS links at most, of the
 * COOKIE_GENS generations; the others are for trials and replacements),
 * each in links of its own, one per request, of a generation each: a
 * group kept whole is made live as it is, without attaching its probes
 * again; a trial that has cost its cap stops attaching groups; and when
 * the check detaches an index later, the link it replaces is small.
 */
#define GROUP			32
#define GROUP_LINKS		1024

struct group {
	struct run run;
	int *gens;			/* per request; 0: no link */
	struct uprobes **links;
	double on_ns;			/* on trial since (half its attach) */
	double off_ns;			/* off trial since, when closed at the
					 * trial's cap before its end; else 0 */
};

struct batch {
	__u32 lo, hi;
	size_t nprobes;
	struct group *groups;
	size_t ngroups, cap;
};

/* Which of a group's requests to attach. */
enum group_reqs {
	REQS_ALL,
	REQS_TRIED,		/* all but returns tried by their calls */
	REQS_BY_CALLS,		/* those alone */
};

/* Groups of about how many probes: GROUP, or more for a large pattern
 * (at most about GROUP_LINKS links in all, a generation each). */
size_t overhead_group__size(const struct overhead_limit *l);

/* The batch from B->lo on, FROM[k] on in request k: about SIZE probes, in
 * groups of about GROUP_SIZE. */
int overhead_batch__grow(struct overhead_limit *l, struct batch *b,
			 const size_t *from, size_t size, size_t group_size);

/* Free what G holds (not its links: closed before). */
void overhead_group__free(struct group *g);

/* Attach G's probes that KEEP holds (NULL: all) of the requests WHICH
 * says, in links of generations of their own in STATE. On failure nothing
 * of G stays attached. */
int overhead_group__attach(struct overhead_limit *l, struct group *g,
			   const bool *keep, __u32 lo,
			   enum probe_gen_state state, enum group_reqs which);

/* G's links are the limit's from now on, live: exits (the first
 * requests) first, so that every call seen to begin is seen to end. */
int overhead_group__keep(struct overhead_limit *l, struct group *g);

/* Close the links of the groups *GS[0..N) still open, at once and in the
 * background (uprobes__detach_later()), in that order, their generations
 * made dead first, and free once they are closed. */
void overhead_groups__close(struct overhead_limit *l, struct group **gs,
			    size_t n);

/* overhead_groups__close() of G alone. */
void overhead_group__close(struct overhead_limit *l, struct group *g);

#endif
