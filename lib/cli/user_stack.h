/* SPDX-License-Identifier: MIT */
/*
 * -U: printing a user stack (bpf/stack.bpf.h read it): one line per frame,
 * innermost first, inlined calls included, or one JSON element each.
 */
#ifndef GOTOOLS_USER_STACK_H
#define GOTOOLS_USER_STACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "trace/traced_binary.h"

/*
 * Print the N run-time addresses of FRAMES (the PC, then return
 * addresses) of process PID, whose mm->start_code is START_CODE, to F:
 * each named by TB's lines ("        main.f+0x1c /src/main.go:12", an
 * inlined call "        main.g (inlined) /src/main.go:7"), or as its
 * address where TB (which may be NULL) cannot name it; with JSON,
 * comma-separated objects {"func","file","line","inlined"} or {"addr"}.
 */
void user_stack__print(struct traced_binary *tb, FILE *f, bool json,
		       pid_t pid, uint64_t start_code, const __u64 *frames,
		       uint32_t n);

#endif
