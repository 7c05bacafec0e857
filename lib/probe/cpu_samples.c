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

/* A clock on CPU (-1: any) of PID (-1: any; 0: this thread), sampling
 * user space HZ times a second of CPU time. */
static int open_clock(pid_t pid, int cpu, unsigned int hz)
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

	return syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Attach PROG to a clock of PID on CPU (open_clock()) into *LINK, which
 * owns the clock's fd. Returns 0, -ENODEV for an offline CPU, or a
 * negative errno with a reason. */
static int attach_clock(struct bpf_program *prog, pid_t pid, int cpu,
			unsigned int hz, struct bpf_link **link)
{
	int fd, err;

	fd = open_clock(pid, cpu, hz);
	if (fd < 0 && errno == ENODEV)
		return -ENODEV;
	if (fd < 0)
		return gt_error(-errno, "cannot open a CPU clock to sample on: %s",
				strerror(errno));
	*link = bpf_program__attach_perf_event(prog, fd);
	if (!*link) {
		err = -errno;
		close(fd);
		return gt_error(err, "cannot attach the CPU sampler: %s",
				strerror(-err));
	}
	return 0;
}

/* Attach PROG to a clock on every online CPU into LINKS[0..*N). */
static int attach_clocks(struct bpf_program *prog, unsigned int hz,
			 struct bpf_link **links, int ncpus, int *n)
{
	int cpu, err;

	*n = 0;
	for (cpu = 0; cpu < ncpus; cpu++) {
		err = attach_clock(prog, -1, cpu, hz, &links[*n]);
		if (err == -ENODEV)
			continue;	/* offline */
		if (err)
			return err;
		(*n)++;
	}
	return 0;
}

#define COST_HZ		20000
#define COST_SPIN_NS	10e6
#define COST_ROUNDS	3

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* Spin for COST_SPIN_NS; the most loops a ns of COST_ROUNDS rounds (a
 * round the thread lost its CPU in is slower). */
static double spin_rate(void)
{
	static volatile unsigned long sink;
	double best = 0, t0, t;
	unsigned long loops;
	int r, i;

	for (r = 0; r < COST_ROUNDS; r++) {
		t0 = now_ns();
		for (loops = 0; (t = now_ns() - t0) < COST_SPIN_NS; loops++)
			for (i = 0; i < 100; i++)
				sink += i;
		if (loops / t > best)
			best = loops / t;
	}
	return best;
}

/* What a sample of PROG costs the thread it interrupts, in ns, into *NS:
 * the share of its time a clock of this thread's own at COST_HZ takes,
 * over COST_HZ. */
static int sample_cost(struct bpf_program *prog, double *ns)
{
	struct bpf_link *link;
	double untraced, sampled;
	int err;

	untraced = spin_rate();
	err = attach_clock(prog, 0, -1, COST_HZ, &link);
	if (err)
		return err == -ENODEV ?
		       gt_error(err, "cannot open a CPU clock to sample on") : err;
	sampled = spin_rate();
	bpf_link__destroy(link);	/* and the clock's fd */
	*ns = untraced > sampled ? (1 - sampled / untraced) * 1e9 / COST_HZ :
				   0;
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

/* Wait MS milliseconds, calling TICK (if any) every CPU_SAMPLES_TICK_MS. */
static int wait_ticking(unsigned int ms, cpu_samples_tick_fn tick, void *ctx)
{
	unsigned int step, done;
	int err = 0;

	for (done = 0; done < ms && !err; done += step) {
		step = ms - done < CPU_SAMPLES_TICK_MS ? ms - done :
							 CPU_SAMPLES_TICK_MS;
		nanosleep(&(struct timespec){ 0, step * 1000000L }, NULL);
		if (tick)
			err = tick(ctx);
	}
	return err < 0 ? err : 0;
}

int cpu_samples__collect(pid_t pid, unsigned int ms, unsigned int hz,
			 double share, cpu_samples_tick_fn tick, void *ctx,
			 struct cpu_samples *out)
{
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
		err = sample_cost(obj->progs.sample_ip, &out->cost_ns);
	if (!err && out->cost_ns * hz > share * 1e9)
		hz = share * 1e9 / out->cost_ns;
	out->hz = hz ? hz : 1;
	if (!err)
		err = attach_clocks(obj->progs.sample_ip, out->hz, links, ncpus,
				    &nlinks);
	if (!err)
		err = wait_ticking(ms, tick, ctx);
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
