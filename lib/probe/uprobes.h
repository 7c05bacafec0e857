/* SPDX-License-Identifier: MIT */
/*
 * Attaching one BPF program to many uprobes in one file.
 *
 * With uprobe_multi (Linux 6.6+), all offsets go into ONE link: attaching
 * and detaching 1000 probes takes tens of milliseconds. Without it, one
 * perf-event uprobe per offset, which detaches slowly (an RCU grace period
 * per probe). Debian's libbpf 1.1 predates uprobe_multi, so the link is
 * made with the raw bpf(BPF_LINK_CREATE) syscall.
 */
#ifndef GOTOOLS_UPROBES_H
#define GOTOOLS_UPROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <bpf/libbpf.h>

/* Does this kernel have uprobe_multi links? The environment variable
 * GOTOOLS_NO_UPROBE_MULTI=1 forces the answer to no (to test the fallback). */
bool uprobes__multi_supported(void);

/*
 * Prepare PROG, before the object is loaded, for the attach mode that
 * uprobes__multi_supported() chose.
 */
int uprobes__prepare(struct bpf_program *prog);

/* The probes to attach: a file offset and an attach cookie each. */
struct uprobe_list {
	uint64_t *offsets;
	uint64_t *cookies;
	size_t n, cap;
};

int uprobe_list__add(struct uprobe_list *l, uint64_t offset, uint64_t cookie);
void uprobe_list__free(struct uprobe_list *l);

struct uprobes;

/*
 * Attach PROG (prepared and loaded) at the file offsets of LIST in PATH,
 * with their cookies for bpf_get_attach_cookie(). PID > 0 restricts the
 * probes to that process. On failure nothing stays attached.
 */
int uprobes__attach(struct bpf_program *prog, const char *path, pid_t pid,
		    const struct uprobe_list *list, struct uprobes **out);

/* Detach everything and free U (NULL is fine). */
void uprobes__detach(struct uprobes *u);

/*
 * The CPU time attaching and detaching probes took so far, in every
 * thread (ns): the kernel's work writing breakpoints into the traced
 * program's memory and out of it (its memory map locked meanwhile, its
 * CPUs interrupted to flush what they cached of the page), which
 * --max-overhead counts as a cost to the target.
 */
uint64_t uprobes__work_ns(void);

/* Links closed at once (uprobes__detach_later()), at most. */
#define UPROBES_AT_ONCE	32

/* The probes attached by U. */
const struct uprobe_list *uprobes__list(const struct uprobes *u);

/*
 * Detach some of U's probes while the others stay attached, without a
 * moment when one of those is missing (lib/cli/overhead_limit.h). KEEP(CTX,
 * COOKIE) says which stay. In two steps:
 *   uprobes__replace_begin() attaches the kept probes anew, in a new
 *     uprobe_multi link whose cookies have the generation GEN
 *     (COOKIE_GEN, bpf/cookie.h): the caller sets which link's hits the
 *     BPF programs count by the states of the two generations. Without
 *     uprobe_multi each probe is a link of its own, and nothing changes
 *     yet (nor do the cookies);
 *   uprobes__replace_end() detaches the old link (or the probes not kept).
 * uprobes__replace_abort() undoes a begin: the old probes stay. Returns 0
 * or a negative errno with a reason.
 */
typedef bool (*uprobes_keep_fn)(void *ctx, uint64_t cookie);
int uprobes__replace_begin(struct uprobes *u, uprobes_keep_fn keep, void *ctx,
			   unsigned int gen);
void uprobes__replace_end(struct uprobes *u);
void uprobes__replace_abort(struct uprobes *u);

/*
 * Closing in the background: a uprobe_multi link's probes are gone as
 * soon as its close begins, and the close then waits for a grace period
 * (tens of ms) that the caller need not wait for; links are closed at
 * once, from threads of their own (one after the other, the last link's
 * probes would stay for all the others' waits).
 *   uprobes__detach_later() detaches US[0..N) (NULLs are fine; N at most
 *     UPROBES_AT_ONCE) and sets them to NULL;
 *   uprobes__replace_end_later() ends the replacement of each of
 *     US[0..N): they hold their kept probes when it returns (and the
 *     probes not kept of a link each, which the generations cannot tell
 *     apart, are gone);
 * both at once from threads of their own, into *OUT: what is still
 * closing (NULL when nothing is: without memory or threads, they close
 * before returning). uprobes_closing__done() says whether all of *OUT has
 * closed; uprobes_closing__wait() waits until it has, and frees it.
 */
struct uprobes_closing;
void uprobes__detach_later(struct uprobes **us, size_t n,
			   struct uprobes_closing **out);
void uprobes__replace_end_later(struct uprobes **us, size_t n,
				struct uprobes_closing **out);
bool uprobes_closing__done(const struct uprobes_closing *c);
void uprobes_closing__wait(struct uprobes_closing *c);

#endif
