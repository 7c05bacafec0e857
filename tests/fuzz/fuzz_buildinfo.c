// SPDX-License-Identifier: MIT
/*
 * buildinfo__version on arbitrary bytes; the pre-1.18 pointers are served
 * from the same buffer, as if it were mapped at address 0x1000.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gobin/buildinfo.h"
#include "../unit/fake_mem.h"

#define BASE 0x1000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake_mem in = { BASE, data, size };
	char version[64];

	if (buildinfo__version(data, size, fake_mem__read, &in, version,
			       sizeof(version)) == 0 &&
	    strlen(version) >= sizeof(version))
		__builtin_trap();
	return 0;
}
