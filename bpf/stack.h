/* SPDX-License-Identifier: MIT */
/* -U: how many return addresses of a user stack an event carries (shared
 * by BPF and user space). */
#ifndef GOTOOLS_STACK_H
#define GOTOOLS_STACK_H

#define STACK_MAX_FRAMES	32	/* a power of 2 */

#endif
