// SPDX-License-Identifier: MIT
#include <errno.h>
#include "core/error.h"
#include "x86/disasm.h"

int x86_disasm__handle(bool detail, csh *out)
{
	static csh handles[2];
	static bool opened[2];
	cs_err err;
	csh cs;

	if (opened[detail]) {
		*out = handles[detail];
		return 0;
	}
	err = cs_open(CS_ARCH_X86, CS_MODE_64, &cs);
	if (err != CS_ERR_OK)
		return gt_error(-ENOMEM, "capstone: %s", cs_strerror(err));
	if (detail) {
		err = cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
		if (err != CS_ERR_OK) {
			cs_close(&cs);
			return gt_error(-ENOMEM, "capstone: %s",
					cs_strerror(err));
		}
	}
	handles[detail] = cs;
	opened[detail] = true;
	*out = cs;
	return 0;
}
