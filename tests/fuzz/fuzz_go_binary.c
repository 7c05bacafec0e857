// SPDX-License-Identifier: MIT
/*
 * Fuzz go_binary__open (and through it elf_file, the symbol tables, the
 * pclntab and build info) with arbitrary file contents, through a memfd.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "gobin/go_binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct go_binary *bin;
	char path[64];
	size_t i;
	int fd;

	fd = memfd_create("fuzz_go_binary", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (go_binary__open(path, &bin) == 0) {
		/* touch everything the library handed out */
		for (i = 0; i < bin->nfuncs; i++) {
			if (go_binary__func_by_name(bin, bin->funcs[i].name) == NULL)
				abort();
			go_binary__func_at(bin, bin->funcs[i].addr);
		}
		go_version__minor(bin->version);
		go_binary__close(bin);
	}
	close(fd);
	return 0;
}
