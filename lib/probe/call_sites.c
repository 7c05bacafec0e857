// SPDX-License-Identifier: MIT
/* Where a call begins and ends (call_sites.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "gobin/pclntab.h"
#include "probe/call_sites.h"
#include "cookie.h"
#include "probe/machine_code.h"

/* The counting site when it sees the state of the entry, else the site's
 * entry_addr (the entry, or past a restartable sequence it begins), which
 * func_probes did not check (it checked the counting site): -EPERM when
 * the kernel cannot probe it (machine_code.h). */
static int find_entry(const struct go_binary *bin, const struct func_probe *p,
		      struct call_sites *cs)
{
	uint64_t addr = p->site.entry_addr;
	int err;

	if (p->site.at_entry_state) {
		cs->entry = p->site;
		cs->entry_offset = p->offset;
		return 0;
	}
	if (!machine_code__probeable(bin->elf, addr))
		return gt_error(-EPERM, "%s: the kernel cannot probe the instruction at 0x%llx",
				p->name, (unsigned long long)addr);
	probe_site__init_entry(&cs->entry, addr);
	cs->entry.emulated = p->site.entry_emulated;
	err = elf_file__vaddr_to_offset(bin->elf, addr, &cs->entry_offset);
	if (err)
		return gt_error(err, "%s: entry 0x%llx is not in the file",
				p->name, (unsigned long long)addr);
	return 0;
}

/* On x86-64, R14 is g in register-ABI code only, which its stack check
 * proves (G_IN_REG, the site's g_in_reg: at the counting site, whichever site the entry probe
 * takes; never in an inlined copy, whose caller's ABI nothing checks);
 * the ABI check keeps a binary whose Go version is unknown on TLS. gc's
 * arm64 code keeps g in R28 throughout. */
static enum call_g find_g(const struct go_binary *bin, bool g_in_reg)
{
	if (bin->is_gccgo)
		return CALL_G_NONE;
	if (bin->elf->machine == EM_AARCH64)
		return CALL_G_R28;
	if (bin->abi == GO_ABI_REGISTER && g_in_reg)
		return CALL_G_R14;
	return CALL_G_TLS;
}

/* EXITS[N] (freed here) into CS, with their file offsets. */
static int set_exits(const struct go_binary *bin, const char *name,
		     struct exit_site *exits, size_t n, struct call_sites *cs)
{
	size_t i;
	int err = 0;

	if (n) {
		cs->exits = calloc(n, sizeof(*cs->exits));
		if (!cs->exits) {
			free(exits);
			return gt_error(-ENOMEM, "out of memory");
		}
	}
	for (i = 0; i < n; i++) {
		cs->exits[i].addr = exits[i].addr;
		cs->exits[i].kind = exits[i].kind;
		cs->exits[i].emulated = exits[i].emulated;
		err = elf_file__vaddr_to_offset(bin->elf, exits[i].addr,
						&cs->exits[i].offset);
		if (err) {
			err = gt_error(err, "%s: exit 0x%llx is not in the file",
				       name, (unsigned long long)exits[i].addr);
			break;
		}
	}
	cs->nexits = err ? 0 : n;
	free(exits);
	return err;
}

static int find_exits(const struct go_binary *bin, const struct go_func *fn,
		      const struct func_probe *p, struct call_sites *cs)
{
	struct exit_site *exits = NULL;
	size_t n = 0;
	int err;

	/* not again what the counting site's choice decoded */
	err = machine_code__exit_sites(bin, fn, &p->site, &exits, &n);
	if (err)
		return err;
	return set_exits(bin, p->name, exits, n, cs);
}

int call_sites__find(const struct go_binary *bin, const struct func_probe *p,
		     unsigned int want, struct left_out *lo,
		     struct call_sites *out)
{
	const struct go_func *fn = go_binary__func_at(bin, p->func_addr);
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (p->inlined || !fn || fn->addr != p->func_addr)
		return gt_error(-EINVAL, "%s: no function at 0x%llx", p->name,
				(unsigned long long)p->func_addr);
	out->g = find_g(bin, p->site.g_in_reg);
	if (want & CALL_SITES_ENTRY)
		err = find_entry(bin, p, out);
	if (!err && (want & CALL_SITES_EXITS))
		err = find_exits(bin, fn, p, out);
	if (!lo)
		return err;
	if (err == -EPERM)
		return left_out__add(lo, LEFT_OUT_KERNEL, "%s", gt_last_error()) ?: 1;
	if (err)
		return left_out__code_error(lo, err) ?: 1;
	if ((want & CALL_SITES_EXITS) && !out->nexits)
		return left_out__add(lo, LEFT_OUT_NO_RETURN,
				     "%s: no return instruction", p->name) ?: 1;
	return 0;
}

/* Is SP at each of the ENDS[N] of the copy P what it is at its entry,
 * as the pcsp table says (an end at its caller's RET is not, where the
 * caller has a frame)? -ENOENT with a reason when not; without a table
 * (gccgo), nothing says: 0. */
static int same_sp(const struct go_binary *bin, const struct func_probe *p,
		   const struct exit_site *ends, size_t n)
{
	int32_t at_entry, at_end;
	size_t i;

	if (!bin->pclntab ||
	    pclntab__frame_size_at(bin->pclntab, p->site.addr, &at_entry)) {
		gt_error_clear();
		return 0;
	}
	for (i = 0; i < n; i++)
		if (pclntab__frame_size_at(bin->pclntab, ends[i].addr, &at_end) ||
		    at_end != at_entry)
			return gt_error(-ENOENT, "the inlined copy at 0x%llx ends at 0x%llx, where SP is not as at its entry",
					(unsigned long long)p->site.addr,
					(unsigned long long)ends[i].addr);
	return 0;
}

int call_sites__find_inlined(const struct go_binary *bin,
			     const struct func_probe *p, struct inline_ends *e,
			     struct left_out *lo, struct call_sites *out)
{
	struct exit_site *ends = NULL;
	size_t n = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!p->inlined)
		return gt_error(-EINVAL, "%s: not an inlined copy", p->name);
	out->g = find_g(bin, false);
	out->entry = p->site;
	out->entry_offset = p->offset;
	err = inline_ends__find(e, p->func_addr, p->site.addr, p->code,
				p->ncode, &ends, &n);
	if (!err)
		err = same_sp(bin, p, ends, n);
	if (err)
		free(ends);
	else
		err = set_exits(bin, p->name, ends, n, out);
	if (!lo)
		return err;
	if (err == -ENOENT)
		return left_out__add(lo, LEFT_OUT_INLINED_END, "%s [inlined]: %s",
				     p->name, gt_last_error()) ?: 1;
	if (err)
		return left_out__code_error(lo, err) ?: 1;
	if (!out->nexits)
		return left_out__add(lo, LEFT_OUT_NO_RETURN,
				     "%s [inlined] at 0x%llx: it never ends",
				     p->name, (unsigned long long)p->site.addr) ?: 1;
	return 0;
}

uint64_t call_sites__inlined_flags(const struct go_binary *bin, uint64_t addr)
{
	uint64_t flags = COOKIE_INLINED;
	int32_t frame;

	if (find_g(bin, false) == CALL_G_R28)
		flags |= COOKIE_G_IN_REG;
	if (!bin->pclntab ||
	    pclntab__frame_size_at(bin->pclntab, addr, &frame) || frame)
		flags |= COOKIE_IN_FRAME;
	gt_error_clear();
	return flags;
}

uint64_t call_sites__g_flag(const struct call_sites *cs)
{
	return cs->g == CALL_G_R14 || cs->g == CALL_G_R28 ? COOKIE_G_IN_REG : 0;
}

void call_sites__free(struct call_sites *cs)
{
	free(cs->exits);
	memset(cs, 0, sizeof(*cs));
}

const char *call_g__str(enum call_g g)
{
	switch (g) {
	case CALL_G_R14:
		return "g from R14";
	case CALL_G_R28:
		return "g from R28";
	case CALL_G_TLS:
		return "g from TLS";
	case CALL_G_NONE:
		return "keyed by SP";
	}
	return "unknown";
}
