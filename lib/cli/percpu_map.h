/* SPDX-License-Identifier: MIT */
/*
 * Reading the per-CPU array maps the tools count in: each CPU adds to its
 * own copy of an element, and a read sums the copies.
 */
#ifndef GOTOOLS_PERCPU_MAP_H
#define GOTOOLS_PERCPU_MAP_H

#include <stddef.h>
#include <linux/types.h>

struct bpf_map;

/*
 * Read element KEY of the per-CPU array MAP_FD, whose value is NWORDS u64
 * words (a counter, a struct of counters), and sum each word over the
 * possible CPUs into SUM[0..NWORDS). Returns 0 or a negative errno with a
 * reason.
 */
int percpu_map__sum(int map_fd, __u32 key, __u64 *sum, size_t nwords);

/*
 * The same for elements 0..NKEYS) at once, into SUMS[key * NWORDS + word]:
 * one batch read (Linux 5.6+; else element by element), so that a map of
 * 100,000 elements is read in a few milliseconds.
 */
int percpu_map__sum_all(int map_fd, size_t nkeys, __u64 *sums, size_t nwords);

/* The same for elements LO..LO + NKEYS), into SUMS[(key - LO) * NWORDS +
 * word]: what a read of a few of many elements costs is theirs alone. */
int percpu_map__sum_range(int map_fd, __u32 lo, size_t nkeys, __u64 *sums,
			  size_t nwords);

/*
 * What is new in a per-CPU array since it was last read, the way every
 * tool prints its counts: the BPF side never clears them (no hit is lost
 * between a read and a clear), so each read keeps the sums (PRINTED) and
 * what grew since the read before (DELTA), NKEYS elements of NWORDS u64
 * words each, element KEY at KEY * NWORDS.
 */
struct percpu_counters {
	__u64 *printed, *delta;
	size_t nkeys, nwords;
};

/* Room for NKEYS elements of NWORDS words, all 0. Returns 0 or -ENOMEM. */
int percpu_counters__init(struct percpu_counters *c, size_t nkeys,
			  size_t nwords);

/* Read MAP_FD (percpu_map__sum_all()) into C. Returns 0 or a negative
 * errno with a reason. */
int percpu_counters__read(struct percpu_counters *c, int map_fd);

/* Element KEY of what grew at the last read. */
static inline const __u64 *percpu_counters__delta(const struct percpu_counters *c,
						  size_t key)
{
	return c->delta + key * c->nwords;
}

void percpu_counters__free(struct percpu_counters *c);

/*
 * A per-CPU array that the BPF side keeps as one plain array
 * (BPF_F_MMAPABLE), CPU C's copy of element KEY at C * NKEYS + KEY
 * (percpu_mmap__lookup() in bpf/gotools.bpf.h), mapped into this process:
 * reading it reads memory, with no system call and no copy. Counters read
 * up to a hundred times a second are kept so (--max-overhead's): a batch
 * read of 24,000 per-CPU elements took 14 ms of the tool's CPU, on CPUs
 * that a busy target shares.
 */
struct percpu_mmap {
	const __u64 *mem;
	size_t size;			/* of the mapping, in bytes */
	size_t nkeys, nwords;
	int ncpus;
};

/* Before the object is loaded: MAP sized for NKEYS elements on each
 * possible CPU. Returns 0 or a negative errno with a reason. */
int percpu_mmap__size(struct bpf_map *map, size_t nkeys);

/* Once it is loaded: MAP_FD, of NKEYS elements of NWORDS u64 words per
 * CPU, mapped into M. Returns 0 or a negative errno with a reason. */
int percpu_mmap__open(struct percpu_mmap *m, int map_fd, size_t nkeys,
		      size_t nwords);

/* Element KEY (< M's nkeys) summed over the CPUs into SUM[0..nwords). */
void percpu_mmap__sum(const struct percpu_mmap *m, size_t key, __u64 *sum);

/* Unmap M (one never opened, all zeros, too). */
void percpu_mmap__close(struct percpu_mmap *m);

#endif
