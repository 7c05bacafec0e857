// SPDX-License-Identifier: MIT
/*
 * gccgo: the probe on libgo's runtime.goexit1 (goexit_probe.h), found by
 * its symbol in the traced file or in the libgo.so the program loads.
 */
#include <stdio.h>
#include "core/error.h"
#include "probe/goexit_probe.h"
#include "probe/target.h"

int goexit_probe__attach(struct bpf_program *prog, const struct elf_file *elf,
			 const char *path, pid_t pid, pid_t tgid,
			 struct uprobes **out)
{
	static const char symbol[] = "runtime.goexit1";
	struct uprobe_list sites = { 0 };
	struct elf_file *libgo = NULL;
	const struct elf_file *in = elf;
	char file[4096];
	uint64_t vaddr, offset;
	int err;

	snprintf(file, sizeof(file), "%s", path);
	err = elf_file__symbol(in, symbol, &vaddr);
	if (err) {
		gt_error_clear();
		err = target__resolve("go", pid, file, sizeof(file));
		if (!err)
			err = elf_file__open(file, &libgo);
		in = libgo;
		if (!err)
			err = elf_file__symbol(in, symbol, &vaddr);
	}
	if (!err)
		err = elf_file__vaddr_to_offset(in, vaddr, &offset);
	if (!err)
		err = uprobe_list__add(&sites, offset, 0);
	if (!err)
		err = uprobes__attach(prog, file, tgid, &sites, out);
	uprobe_list__free(&sites);
	elf_file__close(libgo);
	return err;
}
