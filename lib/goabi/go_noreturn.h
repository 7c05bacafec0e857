/* SPDX-License-Identifier: MIT */
/*
 * Go functions that never return to their caller: gc ends a block with a
 * call to one of them (a panic, a bounds check's failure, a throw), and
 * whatever instruction follows the call belongs to another block. A
 * decoder that follows the flow of control must not fall through such a
 * call (site/inline_ends.h).
 */
#ifndef GOTOOLS_GO_NORETURN_H
#define GOTOOLS_GO_NORETURN_H

#include <stdbool.h>

/*
 * Does the function named NAME (as Go spells it, or gccgo's runtime
 * names) never return? The runtime's panics and throws: every
 * runtime.panic* but runtime.panicCheck1 and panicCheck2 (which check a
 * panic's context and return), runtime.goPanic* (what panicIndex and its
 * kin jump to), runtime.gopanic, throw, fatal, fatalthrow, fatalpanic,
 * block and Goexit; and gccgo's runtime.panicmem and its kin, which the
 * same prefix covers. A function not named here may still not return:
 * this is what gc itself treats so, not all there is.
 */
bool go_func__never_returns(const char *name);

#endif
