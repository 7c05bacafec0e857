// SPDX-License-Identifier: MIT
/*
 * buildinfo__version on arbitrary bytes; the pre-1.18 pointers are served
 * from the same buffer, as if it were mapped at address 0x1000.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/buildinfo.h"

struct input {
	const uint8_t *data;
	size_t size;
};

#define BASE 0x1000u

static int read_input(void *ctx, uint64_t vaddr, size_t len,
		      const uint8_t **out)
{
	const struct input *in = ctx;

	if (vaddr < BASE || vaddr - BASE > in->size ||
	    len > in->size - (vaddr - BASE))
		return -ERANGE;
	*out = in->data + (vaddr - BASE);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	char version[64];

	if (buildinfo__version(data, size, read_input, &in, version,
			       sizeof(version)) == 0 &&
	    strlen(version) >= sizeof(version))
		__builtin_trap();
	return 0;
}
