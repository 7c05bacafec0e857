// SPDX-License-Identifier: MIT
/*
 * cpu_samples: a real CPU clock and BPF program (root) sampling a child
 * of this test that spins in one function, while another child spins in
 * another: the samples are the first child's, and in its function.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "core/error.h"
#include "elf/elf_file.h"
#include "probe/cpu_samples.h"
#include "test.h"

static volatile uint64_t sink;

__attribute__((noinline)) static void spin_sampled(void)
{
	for (;;)
		sink = sink * 31 + 7;
}

__attribute__((noinline)) static void spin_other(void)
{
	for (;;)
		sink = sink * 17 + 3;
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid = fork();

	if (!pid)
		fn();
	return pid;
}

struct range {
	const char *name;
	uint64_t value, next;
};

static int find_range(void *ctx, const char *name, uint64_t value)
{
	struct range *r = ctx;

	if (!strcmp(name, r->name))
		r->value = value;
	return 0;
}

static int find_next(void *ctx, const char *name, uint64_t value)
{
	struct range *r = ctx;

	if (value > r->value && value < r->next)
		r->next = value;
	return 0;
}

/* Where FN's code is in this process: [*lo, *hi), from the symbol table
 * of /proc/self/exe (FN's symbol to the next symbol above it). */
static bool code_of(void (*fn)(void), const char *name, uint64_t *lo,
		    uint64_t *hi)
{
	struct range r = { name, 0, UINT64_MAX };
	struct elf_file *ef;
	bool ok;

	if (elf_file__open("/proc/self/exe", &ef))
		return false;
	ok = !elf_file__each_symbol(ef, find_range, &r) && r.value &&
	     !elf_file__each_symbol(ef, find_next, &r) && r.next != UINT64_MAX;
	elf_file__close(ef);
	*lo = (uintptr_t)fn;
	*hi = *lo + (r.next - r.value);
	return ok;
}

/* The CPU time PID has used, in ms (-1: unknown). */
static double cpu_ms(pid_t pid)
{
	struct timespec t;
	clockid_t clock;

	if (clock_getcpuclockid(pid, &clock) || clock_gettime(clock, &t))
		return -1;
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

TEST(samples_the_process_where_it_runs)
{
	uint64_t lo, hi, other_lo, other_hi, in = 0, in_other = 0;
	struct cpu_samples s;
	pid_t sampled, other;
	double ran;
	size_t i;
	int err;

	CHECK(code_of(spin_sampled, "spin_sampled", &lo, &hi));
	CHECK(code_of(spin_other, "spin_other", &other_lo, &other_hi));
	sampled = spawn(spin_sampled);
	other = spawn(spin_other);
	CHECK(sampled > 0 && other > 0);
	ran = cpu_ms(sampled);
	err = cpu_samples__collect(sampled, 300, 1000, 1.0, NULL, NULL, &s);
	if (err)
		fprintf(stderr, "%s\n", gt_last_error());
	CHECK_EQ_INT(err, 0);
	ran = ran < 0 ? -1 : cpu_ms(sampled) - ran;
	kill(sampled, SIGKILL);
	kill(other, SIGKILL);
	waitpid(sampled, NULL, 0);
	waitpid(other, NULL, 0);
	for (i = 0; i < s.n; i++) {
		if (s.ips[i] >= lo && s.ips[i] < hi)
			in += s.counts[i];
		if (s.ips[i] >= other_lo && s.ips[i] < other_hi)
			in_other += s.counts[i];
		CHECK(!i || s.ips[i] > s.ips[i - 1]);
	}
	printf("%llu samples, %llu in spin_sampled, which ran %.0f ms\n",
	       (unsigned long long)s.total, (unsigned long long)in, ran);
	/* at 1 kHz of its CPU time: a sample a ms it ran while sampled, which
	 * is most of the time it ran from before to after (less what loading
	 * the program took); 300 ms at most, less what it shared the CPUs */
	CHECK(ran > 0);
	CHECK_EQ_INT(s.hz, 1000);
	CHECK(s.total >= 20 && s.total >= ran * 0.4 &&
	      s.total <= ran * 1.1 + 10);
	CHECK_EQ_INT(s.lost, 0);
	CHECK(in >= s.total * 99 / 100);
	CHECK_EQ_INT(in_other, 0);
	cpu_samples__free(&s);
}

TEST(no_process_no_samples)
{
	struct cpu_samples s;
	pid_t gone = spawn(spin_sampled);

	kill(gone, SIGKILL);
	waitpid(gone, NULL, 0);
	CHECK_EQ_INT(cpu_samples__collect(gone, 50, 1000, 1.0, NULL, NULL, &s),
		     0);
	CHECK_EQ_INT(s.total, 0);
	CHECK_EQ_INT(s.n, 0);
	cpu_samples__free(&s);
}

/* A sample costs the thread it interrupts something (25 us on the tests'
 * virtual machines, a few us on hardware), measured anew at each
 * collection; allowed a share of its CPU that 1,000 Hz would exceed, the
 * sampler takes the rate that costs that share at what it measured: about
 * 100 Hz where the share is what 100 Hz cost before (the same within a
 * factor of 5, on a machine busy building, as the tests run). */
TEST(fewer_samples_where_they_cost_more)
{
	struct cpu_samples s;
	double cost, share, want;

	CHECK_EQ_INT(cpu_samples__collect(getpid(), 10, 1000, 1.0, NULL, NULL,
					  &s), 0);
	cost = s.cost_ns;
	printf("a sample costs %.1f us\n", cost / 1e3);
	CHECK(cost > 50 && cost < 1e6);
	CHECK_EQ_INT(s.hz, 1000);
	cpu_samples__free(&s);
	share = cost * 100 / 1e9;
	CHECK_EQ_INT(cpu_samples__collect(getpid(), 10, 1000, share, NULL,
					  NULL, &s), 0);
	want = share * 1e9 / s.cost_ns;
	printf("at %u Hz (%.1f us a sample)\n", s.hz, s.cost_ns / 1e3);
	CHECK(s.cost_ns > 0 && want < 1000);
	CHECK_EQ_INT(s.hz, (unsigned int)want);
	CHECK(s.hz >= 100 / 5 && s.hz <= 100 * 5);
	cpu_samples__free(&s);
}

struct ticks {
	int n;
	int after;		/* ends the samples at this tick */
};

static int count_tick(void *ctx)
{
	struct ticks *t = ctx;

	return ++t->n == t->after ? -EINTR : 0;
}

/* The caller's tick runs every CPU_SAMPLES_TICK_MS while the samples are
 * taken (the check of --max-overhead, which would otherwise wait for
 * them), and an error of it ends them with that error. */
TEST(ticks_while_sampling)
{
	struct ticks t = { 0, 0 };
	struct cpu_samples s;

	CHECK_EQ_INT(cpu_samples__collect(getpid(), 100, 1000, 1.0,
					  count_tick, &t, &s), 0);
	CHECK_EQ_INT(t.n, 100 / CPU_SAMPLES_TICK_MS);
	cpu_samples__free(&s);
	t = (struct ticks){ 0, 3 };
	CHECK_EQ_INT(cpu_samples__collect(getpid(), 100, 1000, 1.0,
					  count_tick, &t, &s), -EINTR);
	CHECK_EQ_INT(t.n, 3);
	cpu_samples__free(&s);
}

int main(void)
{
	RUN(samples_the_process_where_it_runs);
	RUN(no_process_no_samples);
	RUN(fewer_samples_where_they_cost_more);
	RUN(ticks_while_sampling);
	return TEST_SUMMARY();
}
