// SPDX-License-Identifier: MIT
/* Each binary's code read by its machine's decoder (machine_code.h). */
#include <elf.h>
#include "arm64/arg_spills.h"
#include "arm64/disasm.h"
#include "arm64/exit_sites.h"
#include "arm64/indexed_table.h"
#include "arm64/inline_ends.h"
#include "arm64/probe_site.h"
#include "arm64/uprobe_insn.h"
#include "probe/machine_code.h"
#include "site/abi_wrapper.h"
#include "x86/arg_spills.h"
#include "x86/disasm.h"
#include "x86/exit_sites.h"
#include "x86/indexed_table.h"
#include "x86/inline_ends.h"
#include "x86/probe_site.h"
#include "x86/uprobe_insn.h"

static bool is_arm64(const struct elf_file *ef)
{
	return ef->machine == EM_AARCH64;
}

uint64_t machine_code__once_at(const struct go_binary *bin, uint64_t addr)
{
	uint64_t start, end;

	/* gc marks restartable sequences on machines with an assembler's
	 * temporary register (arm64's R27), never on x86-64 */
	if (!is_arm64(bin->elf) ||
	    !probe_site__restart_run_at((void *)bin, addr, &start, &end) ||
	    end <= addr + 4)
		return addr;
	return end - 4;
}

int machine_code__probe_site(const struct go_binary *bin,
			     const struct go_func *fn,
			     struct probe_site *site)
{
	if (is_arm64(bin->elf))
		return probe_site__for_entry_arm64(bin, fn, site);
	return probe_site__for_entry_x86(bin, fn, site);
}

int machine_code__exit_sites(const struct go_binary *bin,
			     const struct go_func *fn,
			     const struct probe_site *site,
			     struct exit_site **sites, size_t *n)
{
	if (is_arm64(bin->elf))
		return arm64_exit_sites__find(bin, fn, site, false, sites, n);
	return exit_sites__find_known(bin, fn, site, sites, n);
}

void machine_code__inline_ends_init(struct inline_ends *e,
				    const struct go_binary *bin)
{
	inline_ends__init(e, bin, is_arm64(bin->elf) ? &arm64_inline_decoder :
						    &x86_inline_decoder);
}

bool machine_code__probeable(const struct elf_file *ef, uint64_t addr)
{
	if (is_arm64(ef))
		return arm64_uprobe_insn__probeable_at(ef, addr);
	return uprobe_insn__probeable(ef, addr);
}

bool machine_code__emulated_at(const struct elf_file *ef, uint64_t addr)
{
	if (is_arm64(ef))
		return arm64_uprobe_insn__simulated_at(ef, addr);
	return uprobe_insn__emulated_at(ef, addr);
}

int machine_code__indexed_table(const struct go_binary *bin,
				const struct go_func *fn, uint64_t *table,
				uint64_t *len)
{
	if (is_arm64(bin->elf))
		return arm64_indexed_table__find(bin, fn, table, len);
	return indexed_table__find(bin, fn, table, len);
}

int machine_code__abi_wrappers(const struct go_binary *bin,
			       const struct go_func *const *group, size_t n,
			       bool *wrapper)
{
	return abi_wrapper__mark(bin, group, n,
				 is_arm64(bin->elf) ?
				 arm64_disasm__branch_targets :
				 x86_disasm__branch_targets, wrapper);
}

int machine_code__arg_spills(const struct go_binary *bin,
			     const uint8_t *code, size_t len, uint64_t addr,
			     struct arg_spill *out, size_t *n)
{
	if (is_arm64(bin->elf))
		return arm64_arg_spills__decode(code, len, addr, out, n);
	return arg_spills__decode(code, len, addr, out, n);
}
