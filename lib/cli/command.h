/* SPDX-License-Identifier: MIT */
/*
 * `-c CMD`: start a program held at a gate, so that probes are attached
 * before its first instruction runs, then let it go and notice its exit.
 */
#ifndef GOTOOLS_COMMAND_H
#define GOTOOLS_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

struct command {
	pid_t pid;
	int gate_fd;		/* closing it without a byte aborts the child */
	char path[4096];	/* the executable, as found in PATH */
	int status;		/* wait status, once exited */
	bool exited;
};

/*
 * Split CMDLINE into words as a shell would (no command substitution),
 * find the program in PATH and fork a child that waits at the gate.
 * Returns 0, or -ENOENT / -EACCES with a reason when the program cannot be
 * run.
 */
int command__start(const char *cmdline, struct command *cmd);

/* Open the gate: the child execs the program. Once: a second call does
 * nothing. */
int command__release(struct command *cmd);

/* Has the child exited? Reaps it without blocking. */
bool command__exited(struct command *cmd);

/* Kill the child (if still running) and reap it. */
void command__kill(struct command *cmd);

#endif
