// SPDX-License-Identifier: MIT
/* ABI wrappers: the small other-ABI twin a Go function may have
 * (abi_wrapper.h). */
#include "site/abi_wrapper.h"

/* A wrapper's branches: a call of the body, of runtime.morestack... */
#define WRAPPER_MAX_TARGETS	64

/* Is ADDR the entry of a member of GROUP other than SELF? */
static bool member_entry(const struct go_func *const *group, size_t n,
			 size_t self, uint64_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (i != self && group[i]->addr == addr)
			return true;
	return false;
}

int abi_wrapper__mark(const struct go_binary *bin,
		      const struct go_func *const *group, size_t n,
		      branch_targets_fn targets_of, bool *wrapper)
{
	uint64_t targets[WRAPPER_MAX_TARGETS];
	size_t i, k, nt;
	int err;

	for (i = 0; i < n; i++)
		wrapper[i] = false;
	if (n < 2)
		return 0;
	for (i = 0; i < n; i++) {
		err = targets_of(bin, group[i], ABI_WRAPPER_MAX_BYTES, targets,
				 WRAPPER_MAX_TARGETS, &nt);
		if (err)
			return err;
		for (k = 0; k < nt && !wrapper[i]; k++)
			wrapper[i] = member_entry(group, n, i, targets[k]);
	}
	return 0;
}
