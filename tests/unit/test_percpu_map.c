// SPDX-License-Identifier: MIT
/*
 * percpu_map: a real per-CPU array map (root: CAP_BPF), each CPU's copy of
 * an element set apart, summed word by word.
 */
#include <errno.h>
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

int main(void)
{
	RUN(sums_each_word_over_cpus);
	return TEST_SUMMARY();
}
