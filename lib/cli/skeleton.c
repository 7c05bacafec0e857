// SPDX-License-Identifier: MIT
/* Loading a tool's BPF skeleton, with errors that say why (skeleton.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "core/error.h"
#include "probe/uprobes.h"
#include "cli/skeleton.h"

int skeleton__open_error(void)
{
	return gt_error(-errno, "cannot open BPF object: %s", strerror(errno));
}

static int load_error(int err)
{
	/* Root can get EACCES too: from the verifier. */
	if ((err == -EPERM || err == -EACCES) && geteuid() != 0)
		return gt_error(err, "permission denied loading BPF programs: run as root (CAP_BPF and CAP_PERFMON needed)");
	return gt_error(err, "cannot load BPF programs: %s", strerror(-err));
}

int skeleton__load(struct bpf_object_skeleton *s, struct bpf_map *map,
		   size_t nentries)
{
	struct bpf_program *prog;
	int err;

	err = bpf_map__set_max_entries(map, nentries);
	if (err)
		return load_error(err);
	bpf_object__for_each_program(prog, *s->obj) {
		if (bpf_program__type(prog) != BPF_PROG_TYPE_KPROBE)
			continue;	/* not a uprobe: gstate_switch */
		err = uprobes__prepare(prog);
		if (err)
			return load_error(err);
	}
	err = bpf_object__load_skeleton(s);
	return err ? load_error(err) : 0;
}

int skeleton__store_array(struct bpf_map *map, const void *values, size_t n)
{
	size_t size = bpf_map__value_size(map), i;
	int fd = bpf_map__fd(map), err = 0;
	__u32 *keys, count = n;
	LIBBPF_OPTS(bpf_map_batch_opts, opts);

	if (!n)
		return 0;
	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		keys[i] = i;
	if (bpf_map_update_batch(fd, keys, values, &count, &opts)) {
		/* a kernel without batch updates: one at a time */
		for (i = 0, err = 0; i < n && !err; i++)
			if (bpf_map_update_elem(fd, &keys[i],
						(const char *)values + i * size,
						BPF_ANY))
				err = gt_error(-errno, "cannot store row %zu of map %s: %s",
					       i, bpf_map__name(map),
					       strerror(errno));
	}
	free(keys);
	return err;
}

int skeleton__prepare_gstate(struct bpf_program *site_prog,
			     struct bpf_program *switch_prog,
			     struct bpf_map *gstates, struct bpf_map *threads,
			     bool on)
{
	__u32 n = on ? GSTATE_MAX_GOROUTINES : 1;
	int err;

	err = bpf_program__set_autoload(site_prog, on);
	if (!err)
		err = bpf_program__set_autoload(switch_prog, on);
	if (!err)
		err = bpf_map__set_max_entries(gstates, n);
	if (!err)
		err = bpf_map__set_max_entries(threads, n);
	return err ? load_error(err) : 0;
}
