// SPDX-License-Identifier: MIT
/*
 * A process's user IPs sampled on a CPU clock (cpu_samples.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "core/mem.h"
#include "probe/cpu_samples.h"
#include "cpu_sample.skel.h"

/* A clock on CPU, sampling user space HZ times a second of CPU time. */
static int open_clock(int cpu, unsigned int hz)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = hz,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Attach PROG to a clock on every online CPU into LINKS[0..*N). */
static int attach_clocks(struct bpf_program *prog, unsigned int hz,
			 struct bpf_link **links, int ncpus, int *n)
{
	struct bpf_link *link;
	int cpu, fd, err;

	*n = 0;
	for (cpu = 0; cpu < ncpus; cpu++) {
		fd = open_clock(cpu, hz);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0)
			return gt_error(-errno, "cannot open a CPU clock to sample on: %s",
					strerror(errno));
		link = bpf_program__attach_perf_event(prog, fd);
		if (!link) {
			err = -errno;
			close(fd);
			return gt_error(err, "cannot attach the CPU sampler: %s",
					strerror(-err));
		}
		links[(*n)++] = link;	/* it owns the clock's fd */
	}
	return 0;
}

struct ip_count {
	uint64_t ip, count;
};

static int cmp_ip(const void *a, const void *b)
{
	uint64_t x = ((const struct ip_count *)a)->ip;
	uint64_t y = ((const struct ip_count *)b)->ip;

	return x < y ? -1 : x > y;
}

/* The map's IPs and counts into OUT, sorted by IP. */
static int read_samples(int map_fd, struct cpu_samples *out)
{
	struct ip_count *all = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t key, next, count;
	void *prev = NULL;
	int err = 0;

	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(map_fd, &key, &count))
			continue;
		err = gt_ensure_mem((void **)&all, &cap, sizeof(*all), n + 1);
		if (err)
			goto out;
		all[n++] = (struct ip_count){ key, count };
	}
	if (n)
		qsort(all, n, sizeof(*all), cmp_ip);
	out->ips = malloc((n ? n : 1) * sizeof(*out->ips));
	out->counts = malloc((n ? n : 1) * sizeof(*out->counts));
	if (!out->ips || !out->counts) {
		err = gt_error(-ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		out->ips[i] = all[i].ip;
		out->counts[i] = all[i].count;
		out->total += all[i].count;
	}
	out->n = n;
out:
	free(all);
	return err;
}

int cpu_samples__collect(pid_t pid, unsigned int ms, unsigned int hz,
			 struct cpu_samples *out)
{
	struct timespec wait = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int ncpus = libbpf_num_possible_cpus(), nlinks = 0, i, err;
	struct bpf_link **links = NULL;
	struct cpu_sample_bpf *obj;

	memset(out, 0, sizeof(*out));
	if (ncpus < 0)
		return gt_error(ncpus, "cannot count the CPUs");
	obj = cpu_sample_bpf__open();
	if (!obj)
		return gt_error(-errno, "cannot open the CPU sampler: %s",
				strerror(errno));
	obj->rodata->target_tgid = pid;
	err = cpu_sample_bpf__load(obj);
	if (err)
		err = gt_error(err, "cannot load the CPU sampler: %s",
			       strerror(-err));
	links = calloc(ncpus, sizeof(*links));
	if (!err && !links)
		err = gt_error(-ENOMEM, "out of memory");
	if (!err)
		err = attach_clocks(obj->progs.sample_ip, hz, links, ncpus,
				    &nlinks);
	if (!err)
		nanosleep(&wait, NULL);
	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	if (!err)
		err = read_samples(bpf_map__fd(obj->maps.ip_samples), out);
	if (!err) {
		out->lost = obj->bss->samples_lost;
		out->total += out->lost;
	}
	free(links);
	cpu_sample_bpf__destroy(obj);
	return err;
}

void cpu_samples__free(struct cpu_samples *s)
{
	free(s->ips);
	free(s->counts);
	memset(s, 0, sizeof(*s));
}
