// SPDX-License-Identifier: MIT
/*
 * uprobe_floor: attach an empty BPF program at file offsets of a binary and
 * wait for Ctrl-C; what a probe hit costs with nothing to do.
 *
 *	uprobe_floor [-p PID] BINARY OFFSET...
 *
 * Attaches the way gofunccount does (lib/probe/uprobes.h: one uprobe_multi link),
 * so the difference between the two is gofunccount's BPF program alone.
 * Prints "Attached N probes" once attached, "Detaching..." at the end.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "probe/uprobes.h"
#include "floor.skel.h"

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static int parse_u64(const char *arg, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (errno || end == arg || *end)
		return gt_error(-EINVAL, "not a number: %s", arg);
	return 0;
}

static int run(pid_t pid, const char *path, const struct uprobe_list *list)
{
	struct uprobes *probes = NULL;
	struct floor_bpf *obj;
	int err;

	obj = floor_bpf__open();
	if (!obj)
		return gt_error(-errno, "cannot open BPF object: %s", strerror(errno));
	err = uprobes__prepare(obj->progs.floor_probe);
	if (!err) {
		err = floor_bpf__load(obj);
		if (err)
			err = gt_error(err, "cannot load BPF program: %s", strerror(-err));
	}
	/* No cookies are read; zeros keep the attach identical to gofunccount's. */
	if (!err)
		err = uprobes__attach(obj->progs.floor_probe, path, pid, list,
				      &probes);
	if (!err) {
		sigset_t block, old;

		/* Blocked until sigsuspend(), so a Ctrl-C is never missed. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigprocmask(SIG_BLOCK, &block, &old);
		printf("Attached %zu probes to %s\n", list->n, path);
		fflush(stdout);
		while (!exiting)
			sigsuspend(&old);
		printf("Detaching...\n");
	}
	uprobes__detach(probes);
	floor_bpf__destroy(obj);
	return err;
}

int main(int argc, char **argv)
{
	struct uprobe_list list = { 0 };
	uint64_t offset;
	pid_t pid = 0;
	int i, opt, err = 0;

	while ((opt = getopt(argc, argv, "p:")) != -1) {
		if (opt != 'p')
			goto usage;
		pid = atoi(optarg);
		if (pid <= 0)
			goto usage;
	}
	if (argc - optind < 2)
		goto usage;
	for (i = optind + 1; i < argc && !err; i++) {
		err = parse_u64(argv[i], &offset);
		if (!err)
			err = uprobe_list__add(&list, offset, 0);
	}
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	if (!err)
		err = run(pid, argv[optind], &list);
	uprobe_list__free(&list);
	if (err) {
		fprintf(stderr, "uprobe_floor: %s\n", gt_last_error());
		return 1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: uprobe_floor [-p PID] BINARY OFFSET...\n");
	return 2;
}
