// SPDX-License-Identifier: MIT
/* A function's code (func_code.h). */
#include <errno.h>
#include "core/error.h"
#include "elf/elf_file.h"
#include "site/func_code.h"

/* With no known size: as much as the segment holds from ADDR, below *LEN
 * (found by bisection). */
static int read_to_segment_end(const struct elf_file *ef, uint64_t addr,
			       size_t *len, const uint8_t **code)
{
	size_t lo = 0, hi = *len, mid;	/* lo readable, hi not */

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (elf_file__read_vaddr(ef, addr, mid, code))
			hi = mid;
		else
			lo = mid;
	}
	gt_error_clear();
	*len = lo;
	return lo ? elf_file__read_vaddr(ef, addr, lo, code) : -ERANGE;
}

int func_code__read(const struct go_binary *bin, const struct go_func *fn,
		    const uint8_t **code, size_t *len)
{
	int err;

	*len = go_binary__func_span(bin, fn);
	if (*len > UINT64_MAX - fn->addr)
		return gt_error(-EINVAL, "%s: code at 0x%llx wraps around",
				fn->name, (unsigned long long)fn->addr);
	err = elf_file__read_vaddr(bin->elf, fn->addr, *len, code);
	if (err && !fn->size)
		err = read_to_segment_end(bin->elf, fn->addr, len, code);
	if (err)
		return gt_error(err, "cannot read the code of %s at 0x%llx",
				fn->name, (unsigned long long)fn->addr);
	return 0;
}
