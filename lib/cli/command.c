// SPDX-License-Identifier: MIT
/* -c CMD: a program started at a gate, let go once probes are attached
 * (command.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "cli/command.h"
#include "core/error.h"

static bool is_executable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* Find NAME the way execvp() would. */
static int find_in_path(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH");
	const char *p, *end;

	if (strchr(name, '/')) {
		if (access(name, F_OK) != 0)
			return gt_error(-ENOENT, "no such file: %s", name);
		if (!is_executable_file(name))
			return gt_error(-EACCES, "not an executable file: %s", name);
		snprintf(path, len, "%s", name);
		return 0;
	}
	for (p = dirs ? dirs : "/usr/local/bin:/usr/bin:/bin"; *p; p = end) {
		end = strchrnul(p, ':');
		snprintf(path, len, "%.*s/%s", (int)(end - p),
			 end == p ? "." : p, name);
		if (is_executable_file(path))
			return 0;
		if (*end)
			end++;
	}
	return gt_error(-ENOENT, "command not found: %s", name);
}

/* The child: wait at the gate, then become the program. */
static void __attribute__((noreturn))
run_child(int gate, const char *path, char **argv)
{
	char go;

	if (read(gate, &go, 1) != 1)
		_exit(127);
	close(gate);
	execv(path, argv);
	fprintf(stderr, "cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

int command__start(const char *cmdline, struct command *cmd)
{
	wordexp_t words;
	int gate[2];
	int err;

	memset(cmd, 0, sizeof(*cmd));
	cmd->gate_fd = -1;
	if (wordexp(cmdline, &words, WRDE_NOCMD) != 0)
		return gt_error(-EINVAL, "cannot parse command: '%s'", cmdline);
	if (words.we_wordc == 0) {
		wordfree(&words);
		return gt_error(-EINVAL, "empty command");
	}
	err = find_in_path(words.we_wordv[0], cmd->path, sizeof(cmd->path));
	if (err)
		goto out;
	if (pipe2(gate, O_CLOEXEC) < 0) {
		err = gt_error(-errno, "pipe: %s", strerror(errno));
		goto out;
	}
	cmd->pid = fork();
	if (cmd->pid < 0) {
		err = gt_error(-errno, "fork: %s", strerror(errno));
		close(gate[0]);
		close(gate[1]);
		goto out;
	}
	if (cmd->pid == 0) {
		close(gate[1]);
		run_child(gate[0], cmd->path, words.we_wordv);
	}
	close(gate[0]);
	cmd->gate_fd = gate[1];
out:
	wordfree(&words);
	return err;
}

int command__release(struct command *cmd)
{
	char go = 'g';
	ssize_t n;

	if (cmd->gate_fd < 0)		/* released before */
		return 0;
	n = write(cmd->gate_fd, &go, 1);
	close(cmd->gate_fd);
	cmd->gate_fd = -1;
	if (n != 1)
		return gt_error(-EPIPE, "cannot start %s", cmd->path);
	return 0;
}

bool command__exited(struct command *cmd)
{
	if (!cmd->exited && waitpid(cmd->pid, &cmd->status, WNOHANG) == cmd->pid)
		cmd->exited = true;
	return cmd->exited;
}

void command__kill(struct command *cmd)
{
	if (cmd->pid <= 0)
		return;
	if (cmd->gate_fd >= 0) {
		close(cmd->gate_fd);	/* the child exits at the gate */
		cmd->gate_fd = -1;
	} else if (!command__exited(cmd)) {
		kill(cmd->pid, SIGKILL);
	}
	if (!cmd->exited && waitpid(cmd->pid, &cmd->status, 0) == cmd->pid)
		cmd->exited = true;
}
