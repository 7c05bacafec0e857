// SPDX-License-Identifier: MIT
/*
 * --max-overhead's order of trials: the target's CPU samples in the
 * functions of each index, before admission (overhead_limit.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "cli/overhead_internal.h"
#include "probe/cpu_samples.h"
#include "probe/target.h"

/* Half a second at 2 kHz: about a thousand samples of a target that
 * uses one CPU. A function called a million times a second takes 1% of
 * it or more (ten samples); one sampled once or never is not hot enough
 * to cost a trial much. Where a sample costs more than SAMPLE_SHARE of
 * the budget at 2 kHz, fewer: on the tests' virtual machines, where one
 * costs 25 us, 500 Hz at --max-overhead 5 (a function called a million
 * times a second, 2 or 3 samples). */
#define SAMPLE_MS	500
#define SAMPLE_HZ	2000
#define SAMPLE_SHARE	4

/* Add S's samples to the functions of BIN they fell in (mapped at BIAS). */
static void count_in_funcs(const struct cpu_samples *s,
			   const struct go_binary *bin, uint64_t bias,
			   __u64 *per_func)
{
	const struct go_func *fn;
	size_t i;

	for (i = 0; i < s->n; i++) {
		fn = go_binary__func_at(bin, s->ips[i] - bias);
		if (fn)
			per_func[fn - bin->funcs] += s->counts[i];
	}
}

/* Each index's samples: the most of any function one of its probes in
 * PATH is in (an inlined copy's is its caller's). */
static void count_by_index(struct overhead_limit *l,
			   const struct go_binary *bin, const char *path,
			   const __u64 *per_func)
{
	const struct uprobe_list *list;
	const struct go_func *fn;
	struct overhead_index *x;
	uint64_t vaddr;
	size_t j, k;
	__u32 i;

	for (k = 0; k < l->nreqs; k++) {
		if (strcmp(l->reqs[k].path, path))
			continue;
		list = &l->reqs[k].list;
		for (j = 0; j < list->n; j++) {
			i = COOKIE_INDEX(list->cookies[j]);
			if (i >= l->nindexes ||
			    elf_file__offset_to_vaddr(bin->elf, list->offsets[j],
						      &vaddr))
				continue;
			fn = go_binary__func_at(bin, vaddr);
			x = &l->indexes[i];
			if (fn && per_func[fn - bin->funcs] > x->samples)
				x->samples = per_func[fn - bin->funcs];
		}
	}
}

/* While the samples are taken: the check, which detaches the fixed probes
 * (the goroutine-state tracker, attached before) when they cost too much:
 * unchecked, the tracker cost a busy server 190 ms of a CPU in those half
 * a second. */
static int sample_tick(void *ctx)
{
	int n = overhead_limit__check(ctx);

	return n < 0 ? n : 0;
}

int overhead_limit__sample(struct overhead_limit *l,
			   const struct go_binary *bin, const char *path,
			   pid_t pid)
{
	struct cpu_samples s;
	__u64 *per_func = NULL;
	uint64_t bias;
	int err;

	if (!l->pending || pid <= 0)
		return 0;
	err = cpu_samples__collect(pid, SAMPLE_MS, SAMPLE_HZ,
				   l->pct / 100 / SAMPLE_SHARE, sample_tick, l,
				   &s);
	if (!err)
		err = target__load_bias(pid, path,
					elf_file__first_vaddr(bin->elf), &bias);
	if (!err) {
		per_func = calloc(bin->nfuncs ? bin->nfuncs : 1,
				  sizeof(*per_func));
		if (!per_func)
			err = gt_error(-ENOMEM, "out of memory");
	}
	if (!err) {
		count_in_funcs(&s, bin, bias, per_func);
		count_by_index(l, bin, path, per_func);
		l->samples = s.total;
		l->sample_hz = s.hz;
		/* the target's, paid before the trials: the ledger's */
		l->ledger.sampled_ns += s.total * s.cost_ns;
		l->ledger.unread_ns += s.total * s.cost_ns;
	}
	free(per_func);
	cpu_samples__free(&s);
	return err;
}

#define SAMPLED_SAID	5	/* the most sampled, by name */

void overhead_limit__print_samples(const struct overhead_limit *l, FILE *f,
				   const char *tool, overhead_name_fn name_of,
				   void *ctx)
{
	size_t top[SAMPLED_SAID], ntop = 0, nsampled = 0, i, j;

	if (!l->samples)
		return;
	for (i = 0; i < l->nindexes; i++) {
		if (!l->indexes[i].samples)
			continue;
		nsampled++;
		/* insert into the most sampled, most first */
		for (j = ntop; j > 0 && l->indexes[top[j - 1]].samples <
					 l->indexes[i].samples; j--)
			if (j < SAMPLED_SAID)
				top[j] = top[j - 1];
		if (j < SAMPLED_SAID) {
			top[j] = i;
			if (ntop < SAMPLED_SAID)
				ntop++;
		}
	}
	fprintf(f, "%s: %llu CPU samples of the target (at %u Hz, %.1f us "
		"each): %zu of %zu probed functions are in them and are tried "
		"last", tool, (unsigned long long)l->samples, l->sample_hz,
		l->samples ? l->ledger.sampled_ns / l->samples / 1e3 : 0.0,
		nsampled, l->nindexes);
	for (i = 0; i < ntop; i++)
		fprintf(f, "%s%s (%llu)", i ? ", " : ", the most sampled ",
			name_of(ctx, top[i]),
			(unsigned long long)l->indexes[top[i]].samples);
	fputc('\n', f);
}
