// SPDX-License-Identifier: MIT
/* What a uprobe hit costs here, emulated and single-stepped, measured in
 * this process (hit_cost.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/error.h"
#include "probe/hit_cost.h"
#include "probe/uprobes.h"
#include "floor.skel.h"

#define ROUNDS			3
#define EMULATED_CALLS		4000	/* ~3 ms at 0.7 us a hit */
#define STEPPED_CALLS		400	/* ~4 ms at 10 us a hit */

/* The two probed functions: their first instruction is the probe site,
 * one the kernel emulates (simulates, on arm64) and one it single-steps.
 * In assembly, so no compiler puts anything before it. */
#if defined(__x86_64__)
/* "jmp .+2" (eb 00) and "mov %rdi,%rax" (48 89 f8) */
#define HIT_COST_EMULATED	".byte 0xeb, 0x00\n"
#define HIT_COST_STEPPED	".byte 0x48, 0x89, 0xf8\n"
#elif defined(__aarch64__)
/* "b .+4" and "mov x0, x1" (orr x0, xzr, x1) */
#define HIT_COST_EMULATED	".inst 0x14000001\n"
#define HIT_COST_STEPPED	".inst 0xaa0103e0\n"
#endif
__asm__(".pushsection .text\n"
	".type gt_hit_cost_emulated, %function\n"
	"gt_hit_cost_emulated:\n"
	HIT_COST_EMULATED
	"ret\n"
	".size gt_hit_cost_emulated, .-gt_hit_cost_emulated\n"
	".type gt_hit_cost_stepped, %function\n"
	"gt_hit_cost_stepped:\n"
	HIT_COST_STEPPED
	"ret\n"
	".size gt_hit_cost_stepped, .-gt_hit_cost_stepped\n"
	".popsection\n");
void gt_hit_cost_emulated(void);
void gt_hit_cost_stepped(void);

/* The offset in this program's file (libgotools.a is linked in) of its
 * code at ADDR, from /proc/self/maps. */
static int self_offset(uintptr_t addr, uint64_t *offset)
{
	char line[4096 + 128], file[4096];
	uintptr_t lo, hi;
	uint64_t off;
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return gt_error(-errno, "cannot read /proc/self/maps: %s",
				strerror(errno));
	while (!found && fgets(line, sizeof(line), f)) {
		file[0] = '\0';
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %" SCNx64
			   " %*s %*s %4095[^\n]", &lo, &hi, &off, file) < 3)
			continue;
		if (addr < lo || addr >= hi || file[0] != '/')
			continue;
		*offset = addr - lo + off;
		found = 1;
	}
	fclose(f);
	return found ? 0 : gt_error(-ENOENT, "cannot find this program's code");
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The least time per call of FN over ROUNDS rounds of N calls. */
static double least_ns_per_call(void (*volatile fn)(void), int n)
{
	double best = 0, t;
	int r, i;

	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (i = 0; i < n; i++)
			fn();
		t = (now_ns() - t) / n;
		if (!r || t < best)
			best = t;
	}
	return best;
}

/* What a hit at the first instruction of FN costs, with PROG attached. */
static int time_hit(struct bpf_program *prog, void (*fn)(void), int n,
		    double *ns)
{
	struct uprobe_list list = { 0 };
	struct uprobes *probes = NULL;
	uint64_t offset = 0;
	double untraced;
	int err;

	err = self_offset((uintptr_t)fn, &offset);
	if (!err)
		err = uprobe_list__add(&list, offset, 0);
	if (!err) {
		untraced = least_ns_per_call(fn, n);
		err = uprobes__attach(prog, "/proc/self/exe", getpid(), &list,
				      &probes);
	}
	if (!err) {
		*ns = least_ns_per_call(fn, n) - untraced;
		if (*ns <= 0)
			err = gt_error(-EIO, "a probe in this process was not hit");
	}
	uprobes__detach(probes);
	uprobe_list__free(&list);
	return err;
}

int hit_cost__measure(struct hit_cost *c)
{
	struct floor_bpf *obj = floor_bpf__open();
	int err;

	if (!obj)
		return gt_error(-errno, "cannot open the calibration program: %s",
				strerror(errno));
	err = uprobes__prepare(obj->progs.floor_probe);
	if (!err && floor_bpf__load(obj))
		err = gt_error(-errno, "cannot load the calibration program: %s",
			       strerror(errno));
	if (!err)
		err = time_hit(obj->progs.floor_probe, gt_hit_cost_emulated,
			       EMULATED_CALLS, &c->emulated_ns);
	if (!err)
		err = time_hit(obj->progs.floor_probe, gt_hit_cost_stepped,
			       STEPPED_CALLS, &c->stepped_ns);
	floor_bpf__destroy(obj);
	return err;
}
