/* SPDX-License-Identifier: MIT */
/*
 * runtime.firstmoduledata of a gc-compiled binary, found without symbols
 * so that it works on stripped binaries: the runtime's table of where the
 * module's code, pclntab, type data and funcdata are. It is the one piece
 * of data that starts with a pointer to the pclntab.
 */
#ifndef GOTOOLS_GO_MODULEDATA_H
#define GOTOOLS_GO_MODULEDATA_H

#include <stdint.h>
#include "gobin/go_binary.h"

struct go_moduledata {
	uint64_t addr;		/* of runtime.firstmoduledata */
	uint64_t types;		/* moduledata.types: start of the type data,
				 * the base of nameOff and typeOff */
	uint64_t etypes;	/* its end */
	uint64_t gofunc;	/* Go 1.18+: moduledata.gofunc, the base of
				 * funcdata offsets; 0 before */
};

/*
 * Find runtime.firstmoduledata of BIN (whose pclntab must be parsed), in
 * the layouts of Go 1.15 - 1.27. Returns 0, -ENOENT when BIN has no
 * pclntab, -EINVAL for a corrupt pclntab header, or -ENOTSUP with a reason
 * when no data of a known layout points to the pclntab.
 */
int go_moduledata__find(const struct go_binary *bin, struct go_moduledata *md);

#endif
