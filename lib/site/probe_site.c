// SPDX-License-Identifier: MIT
/* A counting site, whatever the machine (probe_site.h). */
#include "core/error.h"
#include "gobin/go_binary.h"
#include "gobin/pclntab.h"
#include "site/probe_site.h"
#include "cookie.h"

void probe_site__init_entry(struct probe_site *site, uint64_t entry)
{
	*site = (struct probe_site){
		.addr = entry,
		.kind = PROBE_SITE_ENTRY,
		.at_entry_state = true,
		.entry_addr = entry,
	};
}

const char *probe_site_kind__str(enum probe_site_kind kind)
{
	switch (kind) {
	case PROBE_SITE_ENTRY:
		return "entry";
	case PROBE_SITE_STACK_CHECK:
		return "stack-check";
	case PROBE_SITE_EMULATED:
		return "emulated";
	case PROBE_SITE_INLINE:
		return "inline";
	}
	return "unknown";
}

const char *probe_site__func_name_at(void *ctx, uint64_t addr)
{
	const struct go_func *fn = go_binary__func_at(ctx, addr);

	return fn ? fn->name : NULL;
}

/* PCDATA_UnsafePoint's values (runtime/abi/symtab.go) that mark a
 * restartable sequence, alternating so that two in a row are told apart. */
#define UNSAFE_POINT_RESTART1	(-3)
#define UNSAFE_POINT_RESTART2	(-4)

bool probe_site__restart_run_at(void *ctx, uint64_t addr, uint64_t *start,
				uint64_t *end)
{
	const struct go_binary *bin = ctx;
	struct pclntab_func_tables t;
	struct pclntab_pcvalue it;
	long i;

	if (!bin->pclntab)
		return false;
	i = pclntab__func_index(bin->pclntab, addr);
	if (i < 0 || pclntab__func_tables(bin->pclntab, (size_t)i, &t) ||
	    !t.unsafe_point) {
		gt_error_clear();
		return false;
	}
	pclntab_pcvalue__init(&it, bin->pclntab, (size_t)i, t.unsafe_point);
	while (pclntab_pcvalue__next(&it) > 0) {
		if (addr < it.pc || addr >= it.end)
			continue;
		*start = it.pc;
		*end = it.end;
		return it.val == UNSAFE_POINT_RESTART1 ||
		       it.val == UNSAFE_POINT_RESTART2;
	}
	gt_error_clear();
	return false;
}

/* x86's EFLAGS bits are all below PSTATE's NZCV (bits 31-28): a site's
 * flags tell its machine. */
_Static_assert(((EFLAGS_CF | EFLAGS_ZF) >> PSTATE_NZCV_SHIFT) == 0,
	       "EFLAGS' bits are apart from NZCV's");

uint16_t probe_site__cookie_skip(const struct probe_site *site)
{
	if ((site->skip_flags | site->skip_clear) >> PSTATE_NZCV_SHIFT)
		return COOKIE_SKIP_NZCV(site->skip_flags, site->skip_clear);
	return site->skip_flags;
}
