// SPDX-License-Identifier: MIT
/*
 * cli/overhead_load on a real process: a child that spins, then is
 * stopped. How busy it was must follow from the CPU it used (about one
 * CPU spinning, none stopped), less what the ledger says the probes cost
 * it; its busiest rate is the peak; a rate under half of it is low; a
 * process not watched (pid 0, or gone) is never low.
 */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "cli/overhead_internal.h"
#include "test.h"

#define WINDOW_MS	150	/* past the meter's window of 100 ms */

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

static pid_t spinner(void)
{
	pid_t pid = fork();

	if (!pid)
		for (;;)
			;
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST(busy_then_idle)
{
	struct overhead_limit l;
	struct overhead_load_mark m;
	pid_t pid = spinner();
	double busy, idle, peak, a, b;

	CHECK(pid > 0);
	memset(&l, 0, sizeof(l));
	overhead_load__start(&l, pid);
	CHECK(l.load.on);
	CHECK(overhead_load__mark(&l, &m));
	sleep_ms(WINDOW_MS);
	overhead_load__update(&l);
	busy = l.load.recent;
	printf("spinning: %.2f CPUs, %.2f since the mark\n", busy,
	       overhead_load__since(&l, &m));
	CHECK(busy > 0.3 && busy < 1.2);
	CHECK(l.load.peak == busy);
	CHECK(!overhead_load__low(&l, busy));

	/* what the probes cost it is not its load: half a CPU of it paid
	 * for them, as the ledger says, is half a CPU less */
	CHECK(overhead_load__mark(&l, &m));
	sleep_ms(WINDOW_MS);
	a = overhead_load__since(&l, &m);
	l.ledger.total_ns += (overhead__now_ns() - m.ns) / 2;
	b = overhead_load__since(&l, &m);
	printf("%.2f CPUs, %.2f with half a CPU paid for probes\n", a, b);
	CHECK(a - b > 0.45 && a - b < 0.55);
	/* but attaching and detaching are the tool's CPU, not the target's */
	l.ledger.total_ns += WINDOW_MS * 1e6;
	l.ledger.work_ns += WINDOW_MS * 1e6;
	CHECK(overhead_load__since(&l, &m) > b - 0.05);

	overhead_load__update(&l);	/* the window ends as it stops */
	kill(pid, SIGSTOP);
	sleep_ms(WINDOW_MS);
	overhead_load__update(&l);
	idle = l.load.recent;
	peak = l.load.peak;
	printf("stopped: %.2f CPUs, peak %.2f\n", idle, peak);
	CHECK(idle < 0.05);
	CHECK(peak >= busy * 0.95);
	CHECK(overhead_load__low(&l, idle));
	CHECK(overhead_load__low(&l, peak / 3));
	CHECK(!overhead_load__low(&l, peak / 1.5));

	/* gone: not watched from then on, and never low */
	reap(pid);
	sleep_ms(WINDOW_MS);
	overhead_load__update(&l);
	CHECK(!l.load.on);
	CHECK(!overhead_load__low(&l, 0));
	CHECK(overhead_load__since(&l, &m) < 0);
}

TEST(no_pid_never_low)
{
	struct overhead_limit l;

	memset(&l, 0, sizeof(l));
	overhead_load__start(&l, 0);
	CHECK(!l.load.on);
	sleep_ms(WINDOW_MS);
	overhead_load__update(&l);
	CHECK(!overhead_load__low(&l, 0));
}

/* A process that never ran is neither busy nor idle: as it is. */
TEST(never_busy_never_low)
{
	struct overhead_limit l;
	pid_t pid = spinner();

	CHECK(pid > 0);
	kill(pid, SIGSTOP);
	memset(&l, 0, sizeof(l));
	overhead_load__start(&l, pid);
	sleep_ms(WINDOW_MS);
	overhead_load__update(&l);
	CHECK(l.load.on);
	CHECK(!overhead_load__low(&l, 0));
	reap(pid);
}

int main(void)
{
	RUN(busy_then_idle);
	RUN(no_pid_never_low);
	RUN(never_busy_never_low);
	return TEST_SUMMARY();
}
