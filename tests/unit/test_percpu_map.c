// SPDX-License-Identifier: MIT
/*
 * percpu_map: a real per-CPU array map (root: CAP_BPF), each CPU's copy of
 * an element set apart, summed word by word.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli/percpu_map.h"
#include "test.h"

enum { NWORDS = 3, NKEYS = 2 };

TEST(sums_each_word_over_cpus)
{
	int ncpus = libbpf_num_possible_cpus(), fd, c, w;
	__u64 values[1024 * NWORDS], sum[NWORDS], want[NWORDS] = { 0 };
	__u32 key = 1;

	CHECK(ncpus > 0 && ncpus <= 1024);
	if (ncpus <= 0 || ncpus > 1024)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "test_percpu",
			    sizeof(__u32), NWORDS * sizeof(__u64), NKEYS, NULL);
	CHECK(fd >= 0);	/* as root: make test runs as root */
	if (fd < 0)
		return;
	for (c = 0; c < ncpus; c++) {
		for (w = 0; w < NWORDS; w++) {
			values[c * NWORDS + w] = (__u64)(c + 1) << (16 * w);
			want[w] += values[c * NWORDS + w];
		}
	}
	CHECK_EQ_INT(bpf_map_update_elem(fd, &key, values, BPF_ANY), 0);
	CHECK_EQ_INT(percpu_map__sum(fd, key, sum, NWORDS), 0);
	for (w = 0; w < NWORDS; w++)
		CHECK_EQ_INT(sum[w], want[w]);
	/* an element never written sums to zero */
	sum[0] = 7;
	CHECK_EQ_INT(percpu_map__sum(fd, 0, sum, NWORDS), 0);
	CHECK_EQ_INT(sum[0], 0);
	/* past the end: an error */
	CHECK_EQ_INT(percpu_map__sum(fd, NKEYS, sum, NWORDS), -ENOENT);
	close(fd);
}

/* Every element of a map larger than one batch, read at once, equals what
 * percpu_map__sum() reads element by element and what was written. */
TEST(sums_all_elements_at_once)
{
	enum { MANY = 5000 };
	int ncpus = libbpf_num_possible_cpus(), fd, c, w;
	static __u64 values[1024 * NWORDS], all[MANY * NWORDS];
	__u64 one[NWORDS];
	__u32 key;
	bool same = true;

	CHECK(ncpus > 0 && ncpus <= 1024);
	if (ncpus <= 0 || ncpus > 1024)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "test_percpu_all",
			    sizeof(__u32), NWORDS * sizeof(__u64), MANY, NULL);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (key = 0; key < MANY; key += 7) {
		for (c = 0; c < ncpus; c++)
			for (w = 0; w < NWORDS; w++)
				values[c * NWORDS + w] = key * 10 + c + w;
		CHECK_EQ_INT(bpf_map_update_elem(fd, &key, values, BPF_ANY), 0);
	}
	CHECK_EQ_INT(percpu_map__sum_all(fd, MANY, all, NWORDS), 0);
	for (key = 0; key < MANY; key++) {
		CHECK_EQ_INT(percpu_map__sum(fd, key, one, NWORDS), 0);
		for (w = 0; w < NWORDS; w++) {
			__u64 want = key % 7 ? 0 :
				(__u64)ncpus * (key * 10 + w) +
				(__u64)ncpus * (ncpus - 1) / 2;

			same &= all[key * NWORDS + w] == one[w] &&
				one[w] == want;
		}
	}
	CHECK(same);
	close(fd);
}

/* percpu_map__sum_range() reads LO..LO + N) into SUMS[0..N): from the
 * first key, from the middle, to the last, one key; what was written. */
TEST(sums_a_range_of_elements)
{
	enum { MANY = 3000 };
	static const __u32 ranges[][2] = {
		{ 0, 10 }, { 1, 1 }, { 1234, 500 }, { MANY - 17, 17 },
		{ 0, MANY },
	};
	int ncpus = libbpf_num_possible_cpus(), fd, c, w;
	static __u64 values[1024 * NWORDS], part[MANY * NWORDS];
	__u32 key, r, lo, n;
	bool same = true;

	CHECK(ncpus > 0 && ncpus <= 1024);
	if (ncpus <= 0 || ncpus > 1024)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "test_percpu_range",
			    sizeof(__u32), NWORDS * sizeof(__u64), MANY, NULL);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (key = 0; key < MANY; key++) {
		for (c = 0; c < ncpus; c++)
			for (w = 0; w < NWORDS; w++)
				values[c * NWORDS + w] = key * 10 + w;
		CHECK_EQ_INT(bpf_map_update_elem(fd, &key, values, BPF_ANY), 0);
	}
	for (r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		lo = ranges[r][0];
		n = ranges[r][1];
		memset(part, 0xff, sizeof(part));
		CHECK_EQ_INT(percpu_map__sum_range(fd, lo, n, part, NWORDS), 0);
		for (key = 0; key < n; key++)
			for (w = 0; w < NWORDS; w++)
				same &= part[key * NWORDS + w] ==
					(__u64)ncpus * ((lo + key) * 10 + w);
		/* nothing beyond the range written */
		same &= n == MANY || part[n * NWORDS] == ~0ULL;
	}
	CHECK(same);
	close(fd);
}

/* percpu_counters: each read's delta is what grew since the read before. */
TEST(counters_delta_since_last_read)
{
	int ncpus = libbpf_num_possible_cpus(), fd, c, w;
	__u64 values[1024 * NWORDS];
	struct percpu_counters pc = { 0 };
	__u32 key = 1;

	CHECK(ncpus > 0 && ncpus <= 1024);
	if (ncpus <= 0 || ncpus > 1024)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "test_counters",
			    sizeof(__u32), NWORDS * sizeof(__u64), NKEYS, NULL);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_INT(percpu_counters__init(&pc, NKEYS, NWORDS), 0);
	for (c = 0; c < ncpus; c++)
		for (w = 0; w < NWORDS; w++)
			values[c * NWORDS + w] = w + 1;
	CHECK_EQ_INT(bpf_map_update_elem(fd, &key, values, BPF_ANY), 0);
	CHECK_EQ_INT(percpu_counters__read(&pc, fd), 0);
	for (w = 0; w < NWORDS; w++)
		CHECK_EQ_INT(percpu_counters__delta(&pc, 1)[w],
			     (__u64)ncpus * (w + 1));
	CHECK_EQ_INT(percpu_counters__delta(&pc, 0)[0], 0);
	/* CPU 0 counts 5 more of word 2: that alone is new */
	values[2] += 5;
	CHECK_EQ_INT(bpf_map_update_elem(fd, &key, values, BPF_ANY), 0);
	CHECK_EQ_INT(percpu_counters__read(&pc, fd), 0);
	CHECK_EQ_INT(percpu_counters__delta(&pc, 1)[0], 0);
	CHECK_EQ_INT(percpu_counters__delta(&pc, 1)[2], 5);
	percpu_counters__free(&pc);
	close(fd);
}

/* A mappable array of NKEYS elements per CPU: each CPU's copy written
 * through the bpf() syscall at CPU * NKEYS + KEY, as a BPF program would
 * (percpu_mmap__lookup()), read summed from memory; written again, read
 * again without reopening. A map not sized per CPU, or not mappable, is
 * refused. */
TEST(mapped_copies_summed_from_memory)
{
	enum { MKEYS = 1000 };
	int ncpus = libbpf_num_possible_cpus(), fd, bad, c, w;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_MMAPABLE);
	__u64 value[NWORDS], sum[NWORDS];
	struct percpu_mmap m;
	bool same = true;
	__u32 key, k;

	CHECK(ncpus > 0);
	if (ncpus <= 0)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "test_mmap", sizeof(__u32),
			    NWORDS * sizeof(__u64), MKEYS * ncpus, &opts);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	for (key = 3; key < MKEYS; key += 100) {
		for (c = 0; c < ncpus; c++) {
			for (w = 0; w < NWORDS; w++)
				value[w] = key * 100 + c * 10 + w;
			k = c * MKEYS + key;
			CHECK_EQ_INT(bpf_map_update_elem(fd, &k, value, BPF_ANY), 0);
		}
	}
	CHECK_EQ_INT(percpu_mmap__open(&m, fd, MKEYS, NWORDS), 0);
	for (key = 0; key < MKEYS && m.mem; key++) {
		percpu_mmap__sum(&m, key, sum);
		for (w = 0; w < NWORDS; w++) {
			__u64 want = key % 100 != 3 ? 0 :
				(__u64)ncpus * (key * 100 + w) +
				10ULL * ncpus * (ncpus - 1) / 2;

			same &= sum[w] == want;
		}
	}
	CHECK(same);
	/* the last CPU counts 7 more of word 1 of key 3: seen at once */
	k = (ncpus - 1) * MKEYS + 3;
	for (w = 0; w < NWORDS; w++)
		value[w] = 300 + (ncpus - 1) * 10 + w + (w == 1 ? 7 : 0);
	CHECK_EQ_INT(bpf_map_update_elem(fd, &k, value, BPF_ANY), 0);
	if (m.mem) {
		percpu_mmap__sum(&m, 3, sum);
		CHECK_EQ_INT(sum[1], (__u64)ncpus * 301 +
				     10ULL * ncpus * (ncpus - 1) / 2 + 7);
	}
	percpu_mmap__close(&m);
	CHECK(m.mem == NULL);
	/* sized for other keys, or not mappable: refused with a reason */
	CHECK_EQ_INT(percpu_mmap__open(&m, fd, MKEYS + 1, NWORDS), -EINVAL);
	bad = bpf_map_create(BPF_MAP_TYPE_ARRAY, "test_nommap", sizeof(__u32),
			     NWORDS * sizeof(__u64), MKEYS * ncpus, NULL);
	CHECK(bad >= 0);
	CHECK_EQ_INT(percpu_mmap__open(&m, bad, MKEYS, NWORDS), -EINVAL);
	percpu_mmap__close(&m);
	close(bad);
	close(fd);
}

int main(void)
{
	RUN(sums_each_word_over_cpus);
	RUN(sums_all_elements_at_once);
	RUN(sums_a_range_of_elements);
	RUN(counters_delta_since_last_read);
	RUN(mapped_copies_summed_from_memory);
	return TEST_SUMMARY();
}
