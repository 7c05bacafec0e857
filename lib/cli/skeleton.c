// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <unistd.h>
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
		err = uprobes__prepare(prog);
		if (err)
			return load_error(err);
	}
	err = bpf_object__load_skeleton(s);
	return err ? load_error(err) : 0;
}
