/* SPDX-License-Identifier: MIT */
/*
 * Where a running process spends its CPU time in user space: for a while,
 * a clock on every CPU interrupts it HZ times a second of its own CPU time
 * and a BPF program (bpf/cpu_sample.bpf.c) counts the user IPs it was
 * interrupted at. --max-overhead orders its trials by it
 * (cli/overhead_limit.h): a function called a million times a second is
 * in the samples, and cheaper ones first is what admission wants.
 */
#ifndef GOTOOLS_CPU_SAMPLES_H
#define GOTOOLS_CPU_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cpu_samples {
	uint64_t *ips;		/* user IPs, sorted */
	uint64_t *counts;	/* samples at each */
	size_t n;
	uint64_t total;		/* samples in all, the lost included */
	uint64_t lost;		/* at IPs past the BPF map's room */
	unsigned int hz;	/* the rate it sampled at */
	double cost_ns;		/* what a sample cost the thread it
				 * interrupted (cpu_samples__cost()) */
};

/* Called every CPU_SAMPLES_TICK_MS while the samples are taken: a
 * negative errno ends them. */
typedef int (*cpu_samples_tick_fn)(void *ctx);
#define CPU_SAMPLES_TICK_MS	10

/*
 * Sample PID's user IPs for MS milliseconds at HZ per CPU second, or
 * fewer, so that the samples cost a thread they interrupt at most SHARE
 * of its time (0.0125: 1.25% of a CPU), into *OUT (zeroed first; free it
 * with cpu_samples__free() in every case). A sample is an interrupt: on
 * the virtual machines of the tests it costs the interrupted thread about
 * 25 us, 30 emulated uprobe hits, where 2 kHz would cost 5% of each CPU.
 * What one costs is measured first (about 60 ms): this thread spins with
 * and without a clock of its own sampling it at 20 kHz into the same
 * program, the best of three rounds each. TICK (NULL: none) is called
 * with CTX meanwhile. Returns 0 or a negative errno with a reason.
 */
int cpu_samples__collect(pid_t pid, unsigned int ms, unsigned int hz,
			 double share, cpu_samples_tick_fn tick, void *ctx,
			 struct cpu_samples *out);

void cpu_samples__free(struct cpu_samples *s);

#endif
