// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
