// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "probe/target.h"
#include "trace/traced_binary.h"

/* Its segments' lowest address, the lowest executable one, and whether it
 * is a non-PIE executable, a PIE one (ET_DYN with an interpreter) or a
 * library. */
static void find_placement(struct traced_binary *tb)
{
	Elf *elf = tb->bin->elf->elf;
	uint64_t low = UINT64_MAX, code = UINT64_MAX;
	bool interp = false;
	size_t i, n = 0;
	GElf_Ehdr eh;
	GElf_Phdr ph;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		n = 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			continue;
		interp |= ph.p_type == PT_INTERP;
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_vaddr < low)
			low = ph.p_vaddr;
		if (ph.p_flags & PF_X && ph.p_vaddr < code)
			code = ph.p_vaddr;
	}
	tb->first_vaddr = low == UINT64_MAX ? 0 : low;
	tb->first_code = code == UINT64_MAX ? 0 : code;
	if (n && eh.e_type == ET_EXEC)
		tb->placement = PLACED_AS_LINKED;
	else if (interp)
		tb->placement = PLACED_PIE;
	else
		tb->placement = PLACED_LIBRARY;
}

int traced_binary__open(struct traced_binary *tb, const char *path,
			struct go_binary *bin)
{
	int err = 0;

	memset(tb, 0, sizeof(*tb));
	if (strlen(path) >= sizeof(tb->path))
		return gt_error(-ENAMETOOLONG, "path too long: %s", path);
	strcpy(tb->path, path);
	if (bin) {
		tb->bin = bin;
	} else {
		err = go_binary__open(path, &tb->bin);
		tb->owns_bin = !err;
	}
	if (err)
		return err;
	/* without DWARF the format strings type the values */
	if (go_dwarf__open(tb->bin, &tb->dw))
		tb->dw = NULL;
	find_placement(tb);
	return 0;
}

void traced_binary__load_names(struct traced_binary *tb, bool types, bool lines,
			       bool verbose)
{
	if (types && !tb->rtypes && go_rtypes__open(tb->bin, &tb->rtypes)) {
		tb->rtypes = NULL;
		if (verbose)
			fprintf(stderr, "%s: interface types print as addresses: %s\n",
				tb->path, gt_last_error());
	}
	if (lines && !tb->lines && pcline__open(tb->bin, &tb->lines)) {
		tb->lines = NULL;
		fprintf(stderr, "%s: stacks print as addresses: %s\n", tb->path,
			gt_last_error());
	}
}

bool traced_binary__file_address(struct traced_binary *tb, pid_t pid,
				 uint64_t start_code, uint64_t addr,
				 uint64_t *vaddr)
{
	switch (tb->placement) {
	case PLACED_AS_LINKED:
		*vaddr = addr;
		return true;
	case PLACED_PIE:
		*vaddr = addr - (start_code - tb->first_code);
		return true;
	default:
		break;
	}
	if (tb->bias_pid != pid) {
		if (target__load_bias(pid, tb->path, tb->first_vaddr, &tb->bias))
			return false;
		tb->bias_pid = pid;
	}
	*vaddr = addr - tb->bias;
	return true;
}

void traced_binary__close(struct traced_binary *tb)
{
	uprobes__detach(tb->links);
	uprobe_list__free(&tb->sites);
	go_rtypes__close(tb->rtypes);
	pcline__close(tb->lines);
	go_dwarf__close(tb->dw);
	if (tb->owns_bin)
		go_binary__close(tb->bin);
	memset(tb, 0, sizeof(*tb));
}
