// SPDX-License-Identifier: MIT
/* Summing the per-CPU copies of the tools' counters (percpu_map.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "cli/percpu_map.h"

int percpu_map__sum(int map_fd, __u32 key, __u64 *sum, size_t nwords)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 *values;
	size_t w;
	int c, err;

	if (ncpus <= 0)
		return gt_error(-EINVAL, "cannot count CPUs");
	/* a u64 word per CPU per word: the kernel's 8-byte-rounded copies */
	values = calloc((size_t)ncpus * nwords, sizeof(*values));
	if (!values)
		return gt_error(-ENOMEM, "out of memory");
	if (bpf_map_lookup_elem(map_fd, &key, values)) {
		err = -errno;
		free(values);
		return gt_error(err, "cannot read element %u of a per-CPU map: %s",
				key, strerror(-err));
	}
	memset(sum, 0, nwords * sizeof(*sum));
	for (c = 0; c < ncpus; c++)
		for (w = 0; w < nwords; w++)
			sum[w] += values[(size_t)c * nwords + w];
	free(values);
	return 0;
}

/* Element by element, where the kernel has no batch reads. */
static int sum_each(int map_fd, __u32 lo, size_t nkeys, __u64 *sums,
		    size_t nwords)
{
	size_t key;
	int err = 0;

	for (key = 0; key < nkeys && !err; key++)
		err = percpu_map__sum(map_fd, lo + key, sums + key * nwords,
				      nwords);
	return err;
}

int percpu_map__sum_range(int map_fd, __u32 lo, size_t nkeys, __u64 *sums,
			  size_t nwords)
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 *keys = NULL, in_batch = lo - 1, out_batch, count;
	__u64 *values = NULL;
	size_t i, w, done = 0;
	int c, err = 0;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	if (ncpus <= 0)
		return gt_error(-EINVAL, "cannot count CPUs");
	if (!nkeys)
		return 0;
	keys = calloc(nkeys, sizeof(*keys));
	values = calloc(nkeys * ncpus * nwords, sizeof(*values));
	if (!keys || !values) {
		err = gt_error(-ENOMEM, "out of memory");
		goto out;
	}
	memset(sums, 0, nkeys * nwords * sizeof(*sums));
	while (done < nkeys) {
		bool last;

		/* a batch goes on after the key it is given: LO - 1 first */
		count = nkeys - done;
		err = bpf_map_lookup_batch(map_fd, done || lo ? &in_batch : NULL,
					   &out_batch, keys, values, &count,
					   &opts);
		/* ENOENT: the last batch, COUNT elements still read */
		last = err && errno == ENOENT;
		if (err && !last) {
			err = -errno;
			break;
		}
		err = 0;
		for (i = 0; i < count; i++) {
			if (keys[i] < lo || keys[i] - lo >= nkeys)
				continue;
			for (c = 0; c < ncpus; c++)
				for (w = 0; w < nwords; w++)
					sums[(keys[i] - lo) * nwords + w] +=
						values[(i * ncpus + c) * nwords + w];
		}
		done += count;
		in_batch = out_batch;
		if (last || !count)
			break;
	}
	if (err == -EINVAL || err == -ENOTSUP || err == -EOPNOTSUPP ||
	    err == -524 /* ENOTSUPP */)
		err = sum_each(map_fd, lo, nkeys, sums, nwords);
	else if (err)
		err = gt_error(err, "cannot read a per-CPU map: %s",
			       strerror(-err));
out:
	free(keys);
	free(values);
	return err;
}

int percpu_map__sum_all(int map_fd, size_t nkeys, __u64 *sums, size_t nwords)
{
	return percpu_map__sum_range(map_fd, 0, nkeys, sums, nwords);
}

int percpu_counters__init(struct percpu_counters *c, size_t nkeys,
			  size_t nwords)
{
	size_t n = (nkeys ? nkeys : 1) * nwords;

	c->nkeys = nkeys;
	c->nwords = nwords;
	c->printed = calloc(n, sizeof(*c->printed));
	c->delta = calloc(n, sizeof(*c->delta));
	if (!c->printed || !c->delta)
		return gt_error(-ENOMEM, "out of memory");
	return 0;
}

int percpu_counters__read(struct percpu_counters *c, int map_fd)
{
	size_t n = c->nkeys * c->nwords, i;
	__u64 *sums;
	int err;

	sums = calloc(n ? n : 1, sizeof(*sums));
	if (!sums)
		return gt_error(-ENOMEM, "out of memory");
	err = percpu_map__sum_all(map_fd, c->nkeys, sums, c->nwords);
	for (i = 0; i < n && !err; i++) {
		c->delta[i] = sums[i] - c->printed[i];
		c->printed[i] = sums[i];
	}
	free(sums);
	return err;
}

void percpu_counters__free(struct percpu_counters *c)
{
	free(c->printed);
	free(c->delta);
	memset(c, 0, sizeof(*c));
}

int percpu_mmap__size(struct bpf_map *map, size_t nkeys)
{
	int ncpus = libbpf_num_possible_cpus(), err;

	if (ncpus <= 0)
		return gt_error(-EINVAL, "cannot count CPUs");
	err = bpf_map__set_max_entries(map, (nkeys ? nkeys : 1) * ncpus);
	if (err)
		return gt_error(err, "cannot size map %s: %s", bpf_map__name(map),
				strerror(-err));
	return 0;
}

int percpu_mmap__open(struct percpu_mmap *m, int map_fd, size_t nkeys,
		      size_t nwords)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	long page = sysconf(_SC_PAGESIZE);
	void *mem;

	memset(m, 0, sizeof(*m));
	m->ncpus = libbpf_num_possible_cpus();
	if (m->ncpus <= 0)
		return gt_error(-EINVAL, "cannot count CPUs");
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return gt_error(-errno, "cannot read a map's size: %s",
				strerror(errno));
	nkeys = nkeys ? nkeys : 1;
	if (!(info.map_flags & BPF_F_MMAPABLE) ||
	    info.value_size != nwords * sizeof(__u64) ||
	    info.max_entries != nkeys * m->ncpus)
		return gt_error(-EINVAL, "map %s is not %zu mappable elements of %zu words per CPU",
				info.name, nkeys, nwords);
	m->size = ((size_t)info.max_entries * info.value_size + page - 1) /
		  page * page;
	mem = mmap(NULL, m->size, PROT_READ, MAP_SHARED, map_fd, 0);
	if (mem == MAP_FAILED) {
		m->size = 0;
		return gt_error(-errno, "cannot map %s into memory: %s",
				info.name, strerror(errno));
	}
	m->mem = mem;
	m->nkeys = nkeys;
	m->nwords = nwords;
	return 0;
}

void percpu_mmap__sum(const struct percpu_mmap *m, size_t key, __u64 *sum)
{
	const __u64 *v;
	size_t w;
	int c;

	memset(sum, 0, m->nwords * sizeof(*sum));
	for (c = 0; c < m->ncpus; c++) {
		v = m->mem + ((size_t)c * m->nkeys + key) * m->nwords;
		/* the BPF programs add to it meanwhile: each word read once */
		for (w = 0; w < m->nwords; w++)
			sum[w] += __atomic_load_n(&v[w], __ATOMIC_RELAXED);
	}
}

void percpu_mmap__close(struct percpu_mmap *m)
{
	if (m->size)
		munmap((void *)m->mem, m->size);
	memset(m, 0, sizeof(*m));
}
