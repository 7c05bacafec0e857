// SPDX-License-Identifier: MIT
/*
 * cli/overhead_limit with the kernel's own parts: the hit costs measured
 * by real uprobes in this process, a real per-CPU map of hit counters (as
 * the BPF programs keep them, here written by the test), no links. Which
 * indexes a check detaches must follow from the counts written and the
 * costs measured: those whose hits cost the target more than the limit
 * leaves, the most costly first, until the rest cost a quarter of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cli/overhead_limit.h"
#include "test.h"

#define NINDEXES	5

/* The counters of index I, all on CPU 0. */
static int set_hits(int fd, __u32 i, __u64 calls, __u64 emulated,
		    __u64 stepped)
{
	int ncpus = libbpf_num_possible_cpus();
	struct probe_hits *v = calloc(ncpus, sizeof(*v));
	int err;

	if (!v)
		return -ENOMEM;
	v[0] = (struct probe_hits){ calls, emulated, stepped };
	err = bpf_map_update_elem(fd, &i, v, BPF_ANY);
	free(v);
	return err;
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&t, NULL);
}

TEST(check_detaches_the_costly)
{
	struct overhead_limit l;
	__u32 epoch = 0;
	char buf[128];
	int fd, n;

	CHECK_EQ_INT(overhead_limit__init(&l, 5, NINDEXES), 0);
	/* the costs measured in this process: a step costs more */
	CHECK(l.cost.emulated_ns > 0);
	CHECK(l.cost.stepped_ns > l.cost.emulated_ns);
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "test_hits", sizeof(__u32),
			    sizeof(struct probe_hits), NINDEXES, NULL);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK_EQ_INT(overhead_limit__start(&l, fd, &epoch, NULL, 0), 0);
	/* a check before 100 ms have passed does nothing */
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	/* over ~0.1 s: index 0 200,000 emulated hits (~1.8 s of the target's
	 * time a second at 0.9 us), index 4 20,000 single-stepped ones (~3 s
	 * a second at 15 us), index 1 200 emulated (~1.6 ms a second, under
	 * a quarter of the 50 ms that 5% of a CPU allows), index 2 10, index
	 * 3 none */
	CHECK_EQ_INT(set_hits(fd, 0, 200000, 200000, 0), 0);
	CHECK_EQ_INT(set_hits(fd, 1, 200, 200, 0), 0);
	CHECK_EQ_INT(set_hits(fd, 2, 10, 10, 0), 0);
	CHECK_EQ_INT(set_hits(fd, 4, 10000, 0, 20000), 0);
	sleep_ms(110);
	n = overhead_limit__check(&l);
	/* the two that cost most go; the rest cost under a quarter */
	CHECK_EQ_INT(n, 2);
	CHECK(overhead_limit__detached(&l, 0) != NULL);
	CHECK(overhead_limit__detached(&l, 4) != NULL);
	CHECK(overhead_limit__detached(&l, 1) == NULL);
	CHECK(overhead_limit__detached(&l, 2) == NULL);
	CHECK(overhead_limit__detached(&l, 3) == NULL);
	CHECK_EQ_INT(l.ndetached, (size_t)n);
	CHECK_EQ_INT(l.rounds, 1);
	/* what a detached index counted, and at what rate */
	CHECK_EQ_INT(l.indexes[0].detached_calls, 200000);
	CHECK(l.indexes[0].detached_rate > 1e6 && l.indexes[0].detached_rate < 2.1e6);
	CHECK(l.indexes[4].cost_rate > l.indexes[2].cost_rate);
	overhead_index__str(&l.indexes[0], buf, sizeof(buf));
	CHECK(!strncmp(buf, "detached after 200000 calls at ",
		       strlen("detached after 200000 calls at ")));
	CHECK(strstr(buf, "M calls/s") != NULL);
	/* nothing new: nothing more detached, and nothing detached again */
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 0);
	CHECK_EQ_INT(l.rounds, 1);
	/* index 2 gets hot: the next check takes it, and it alone */
	CHECK_EQ_INT(set_hits(fd, 2, 200010, 200010, 0), 0);
	sleep_ms(110);
	CHECK_EQ_INT(overhead_limit__check(&l), 1);
	CHECK(overhead_limit__detached(&l, 2) != NULL);
	CHECK_EQ_INT(l.indexes[2].detached_calls, 200010);
	CHECK_EQ_INT(l.rounds, 2);
	CHECK(overhead_limit__detached(&l, 1) == NULL);
	CHECK(overhead_limit__detached(&l, 3) == NULL);
	CHECK(overhead_limit__detached(NULL, 0) == NULL);
	CHECK(overhead_limit__detached(&l, NINDEXES) == NULL);
	close(fd);
	overhead_limit__free(&l);
}

TEST(rates_read_as_people_do)
{
	struct overhead_index x = { .detached_calls = 42 };
	char buf[128];

	x.detached_rate = 2.5e6;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "detached after 42 calls at 2.5M calls/s");
	x.detached_rate = 35000;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "detached after 42 calls at 35.0k calls/s");
	x.detached_rate = 120;
	CHECK_EQ_STR(overhead_index__str(&x, buf, sizeof(buf)),
		     "detached after 42 calls at 120 calls/s");
}

int main(void)
{
	RUN(check_detaches_the_costly);
	RUN(rates_read_as_people_do);
	return TEST_SUMMARY();
}
