// SPDX-License-Identifier: MIT
/* Separate debug files: named, or found by build ID as gdb finds them
 * (debug_file.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include "core/error.h"
#include "gobin/debug_file.h"

struct debug_file {
	Dwfl *dwfl;		/* a file libdwfl found, which it owns */
	struct elf_file *named;	/* or a file the user named */
	Dwarf *dwarf;		/* of a named file */
};

/* The places libdwfl searches by name (besides the build ID's path):
 * the binary's directory, its .debug/, and /usr/lib/debug. */
static char *debuginfo_path = ":.debug:/usr/lib/debug";

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static bool same_build_id(Elf *a, Elf *b)
{
	const void *ida, *idb;
	ssize_t na = dwelf_elf_gnu_build_id(a, &ida);
	ssize_t nb = dwelf_elf_gnu_build_id(b, &idb);

	return na <= 0 || nb <= 0 || (na == nb && !memcmp(ida, idb, na));
}

static int open_named(const struct elf_file *ef, const char *named,
		      struct debug_file *df)
{
	int err;

	err = elf_file__open(named, &df->named);
	if (err)
		return gt_error(err, "debug file %s: %s", named, gt_last_error());
	if (!same_build_id(ef->elf, df->named->elf))
		return gt_error(-EINVAL, "debug file %s is not %s's: their build IDs differ",
				named, ef->path);
	df->dwarf = dwarf_begin_elf(df->named->elf, DWARF_C_READ, NULL);
	if (!df->dwarf)
		return gt_error(-ENOENT, "debug file %s has no DWARF: %s",
				named, dwarf_errmsg(-1));
	return 0;
}

/* libdwfl finds the debug file of EF: the binary is reported as an
 * offline module, and its DWARF asked for. */
static int find(const struct elf_file *ef, struct debug_file *df, Dwarf **dw)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;

	/* Local files only: with DEBUGINFOD_URLS set (Debian's login shells
	 * set it), libdwfl would ask debuginfod servers over the network for
	 * every binary without a debug file. A tracer never waits on that. */
	unsetenv("DEBUGINFOD_URLS");
	df->dwfl = dwfl_begin(&callbacks);
	if (!df->dwfl)
		return gt_error(-ENOMEM, "libdwfl: %s", dwfl_errmsg(-1));
	mod = dwfl_report_offline(df->dwfl, "", ef->path, -1);
	if (!mod || dwfl_report_end(df->dwfl, NULL, NULL))
		return gt_error(-EINVAL, "libdwfl cannot read %s: %s", ef->path,
				dwfl_errmsg(-1));
	/* addresses in that DWARF are the file's own: BIAS is not needed */
	*dw = dwfl_module_getdwarf(mod, &bias);
	if (!*dw)
		return gt_error(-ENOENT, "%s has no DWARF (stripped?), and no debug file was found (/usr/lib/debug/.build-id, .gnu_debuglink)",
				ef->path);
	return 0;
}

int debug_file__open(const struct elf_file *ef, const char *named,
		     struct debug_file **out, Dwarf **dw)
{
	struct debug_file *df = calloc(1, sizeof(*df));
	int err;

	*out = NULL;
	*dw = NULL;
	if (!df)
		return gt_error(-ENOMEM, "out of memory");
	if (named) {
		err = open_named(ef, named, df);
		*dw = df->dwarf;
	} else {
		err = find(ef, df, dw);
	}
	if (err) {
		debug_file__close(df);
		*dw = NULL;
		return err;
	}
	*out = df;
	return 0;
}

void debug_file__close(struct debug_file *df)
{
	if (!df)
		return;
	dwarf_end(df->dwarf);
	elf_file__close(df->named);
	if (df->dwfl)
		dwfl_end(df->dwfl);
	free(df);
}
