// SPDX-License-Identifier: MIT
/*
 * How busy the target is: its CPU time, less what the probes cost it, in
 * windows of LOAD_WINDOW_NS; admission tries functions under load only
 * (overhead_limit.h says why).
 */
#include <math.h>
#include <time.h>
#include "cli/overhead_internal.h"

#define LOAD_WINDOW_NS	1e8		/* a window of the target's CPU */
#define LOAD_HALF_LIFE	30e9		/* of the busiest window's rate */
/* A target that never used more of a CPU than this is not busy or idle:
 * it is as it is. */
#define LOAD_MIN	0.05

/* The target's CPU time, in ns, into *NS; false once it cannot be read
 * (the target has exited). */
static bool load__cpu(const struct overhead_load *d, double *ns)
{
	struct timespec t;

	if (clock_gettime(d->clock, &t))
		return false;
	*ns = overhead__ns(&t);
	return true;
}

/* What the probes have cost the target so far, in ns, as the ledger has
 * it: their hits and the samples; attaching and detaching are the tool's
 * own CPU, not the target's. */
static double load__paid(const struct overhead_limit *l)
{
	return l->ledger.total_ns - l->ledger.work_ns;
}

void overhead_load__start(struct overhead_limit *l, pid_t pid)
{
	struct overhead_load *d = &l->load;

	d->on = pid > 0 && !clock_getcpuclockid(pid, &d->clock);
	if (d->on)
		d->on = overhead_load__mark(l, &d->window);
}

bool overhead_load__mark(const struct overhead_limit *l,
			 struct overhead_load_mark *m)
{
	m->ns = overhead__now_ns();
	m->paid = load__paid(l);
	return l->load.on && load__cpu(&l->load, &m->cpu);
}

double overhead_load__since(const struct overhead_limit *l,
			    const struct overhead_load_mark *m)
{
	double cpu, dt = overhead__now_ns() - m->ns;

	if (!l->load.on || dt <= 0 || !load__cpu(&l->load, &cpu))
		return -1;
	cpu -= m->cpu + (load__paid(l) - m->paid);
	return cpu > 0 ? cpu / dt : 0;
}

void overhead_load__update(struct overhead_limit *l)
{
	struct overhead_load *d = &l->load;
	double now = overhead__now_ns(), dt = now - d->window.ns, rate;

	if (!d->on || dt < LOAD_WINDOW_NS)
		return;
	rate = overhead_load__since(l, &d->window);
	if (rate < 0) {
		d->on = false;
		return;
	}
	d->recent = rate;
	d->peak *= exp2(-dt / LOAD_HALF_LIFE);
	if (rate > d->peak)
		d->peak = rate;
	overhead_load__mark(l, &d->window);
}

bool overhead_load__low(const struct overhead_limit *l, double rate)
{
	const struct overhead_load *d = &l->load;

	return d->on && d->peak >= LOAD_MIN && rate >= 0 &&
	       rate < d->peak / OVERHEAD_LOAD_SHARE;
}
