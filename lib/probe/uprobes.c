// SPDX-License-Identifier: MIT
/* Attaching one BPF program to many uprobes: uprobe_multi, or one perf event
 * each (uprobes.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "core/error.h"
#include "core/mem.h"
#include "probe/uprobes.h"
#include "cookie.h"

/* From Linux 6.6 include/uapi/linux/bpf.h, absent from older headers. */
#define GT_BPF_TRACE_UPROBE_MULTI 48

/* The BPF_LINK_CREATE part of union bpf_attr, for uprobe_multi. */
struct link_create_uprobe_multi {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 multi_flags;
	__u32 pid;
};

struct uprobes {
	int multi_fd;			/* the uprobe_multi link, or -1 */
	struct bpf_link **links;	/* one per offset without multi */
	size_t nlinks;
	/* What is attached, for uprobes__replace_begin(). */
	int prog_fd;
	pid_t pid;
	char *path;
	struct uprobe_list list;	/* links[i] is list's i-th probe */
	/* Between uprobes__replace_begin() and _end(): the kept probes,
	 * and their new link (-1: none, or not uprobe_multi). */
	struct uprobe_list kept;
	bool *keep;			/* per probe of list */
	int kept_fd;
};

static int link_create_uprobe_multi(int prog_fd, const char *path,
				    const uint64_t *offsets,
				    const uint64_t *cookies, size_t n,
				    pid_t pid)
{
	struct link_create_uprobe_multi attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = GT_BPF_TRACE_UPROBE_MULTI;
	attr.path = (__u64)(unsigned long)path;
	attr.offsets = (__u64)(unsigned long)offsets;
	attr.cookies = (__u64)(unsigned long)cookies;
	attr.cnt = n;
	attr.pid = pid > 0 ? pid : 0;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return fd < 0 ? -errno : fd;
}

/*
 * Load a trivial uprobe_multi program and attach it to "/": a kernel that
 * knows uprobe_multi rejects the directory with EBADF, older ones reject
 * the attach type with EINVAL.
 */
static bool probe_uprobe_multi(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = GT_BPF_TRACE_UPROBE_MULTI);
	uint64_t offset = 0;
	int prog_fd, link_fd;

	prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns,
				sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog_fd < 0)
		return false;
	link_fd = link_create_uprobe_multi(prog_fd, "/", &offset, NULL, 1, 0);
	close(prog_fd);
	if (link_fd >= 0) {
		close(link_fd);
		return false;
	}
	return link_fd == -EBADF;
}

bool uprobes__multi_supported(void)
{
	static int supported = -1;
	const char *off = getenv("GOTOOLS_NO_UPROBE_MULTI");

	if (off && *off && strcmp(off, "0") != 0)
		return false;
	if (supported < 0)
		supported = probe_uprobe_multi();
	return supported;
}

/* What attaching and detaching took of the CPU, in all threads, in ns. */
static uint64_t work_ns;

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* This thread's CPU time since SINCE (thread_cpu_ns()) into work_ns. */
static void work_add(uint64_t since)
{
	__atomic_fetch_add(&work_ns, thread_cpu_ns() - since, __ATOMIC_RELAXED);
}

uint64_t uprobes__work_ns(void)
{
	return __atomic_load_n(&work_ns, __ATOMIC_RELAXED);
}

int uprobes__prepare(struct bpf_program *prog)
{
	if (!uprobes__multi_supported())
		return 0;
	return bpf_program__set_expected_attach_type(prog,
				(enum bpf_attach_type)GT_BPF_TRACE_UPROBE_MULTI);
}

static int attach_one_by_one(struct uprobes *u, struct bpf_program *prog,
			     const char *path, pid_t pid,
			     const uint64_t *offsets, const uint64_t *cookies,
			     size_t n)
{
	size_t i;

	u->links = calloc(n, sizeof(*u->links));
	if (!u->links)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookies[i]);
		struct bpf_link *link;

		link = bpf_program__attach_uprobe_opts(prog, pid > 0 ? pid : -1,
						       path, offsets[i], &opts);
		if (!link)
			return gt_error(-errno, "cannot attach uprobe at %s+0x%llx: %s",
					path, (unsigned long long)offsets[i],
					strerror(errno));
		u->links[u->nlinks++] = link;
	}
	return 0;
}

int uprobe_list__add(struct uprobe_list *l, uint64_t offset, uint64_t cookie)
{
	size_t offsets_cap = l->cap, cookies_cap = l->cap;
	int err;

	/* Both arrays hold l->cap: when the second cannot grow, the first
	 * keeps its extra room and l->cap stays true. */
	err = gt_ensure_mem((void **)&l->offsets, &offsets_cap,
			    sizeof(*l->offsets), l->n + 1);
	if (!err)
		err = gt_ensure_mem((void **)&l->cookies, &cookies_cap,
				    sizeof(*l->cookies), l->n + 1);
	if (err)
		return err;
	l->cap = offsets_cap < cookies_cap ? offsets_cap : cookies_cap;
	l->offsets[l->n] = offset;
	l->cookies[l->n++] = cookie;
	return 0;
}

void uprobe_list__free(struct uprobe_list *l)
{
	free(l->offsets);
	free(l->cookies);
	memset(l, 0, sizeof(*l));
}

static int uprobe_list__copy(struct uprobe_list *to,
			     const struct uprobe_list *from)
{
	size_t i;
	int err = 0;

	for (i = 0; i < from->n && !err; i++)
		err = uprobe_list__add(to, from->offsets[i], from->cookies[i]);
	return err;
}

int uprobes__attach(struct bpf_program *prog, const char *path, pid_t pid,
		    const struct uprobe_list *list, struct uprobes **out)
{
	const uint64_t *offsets = list->offsets, *cookies = list->cookies;
	size_t n = list->n;
	struct uprobes *u;
	uint64_t since = thread_cpu_ns();
	int err = 0;

	u = calloc(1, sizeof(*u));
	if (!u)
		return gt_error(-ENOMEM, "out of memory");
	u->multi_fd = -1;
	u->kept_fd = -1;
	u->prog_fd = bpf_program__fd(prog);
	u->pid = pid;
	u->path = strdup(path);
	if (!u->path)
		err = gt_error(-ENOMEM, "out of memory");
	if (!err)
		err = uprobe_list__copy(&u->list, list);
	if (err) {
		uprobes__detach(u);
		return err;
	}
	if (uprobes__multi_supported()) {
		u->multi_fd = link_create_uprobe_multi(bpf_program__fd(prog),
						       path, offsets, cookies,
						       n, pid);
		if (u->multi_fd < 0)
			err = gt_error(u->multi_fd, "cannot attach %zu uprobes to %s: %s",
				       n, path, strerror(-u->multi_fd));
	} else {
		err = attach_one_by_one(u, prog, path, pid, offsets, cookies, n);
	}
	work_add(since);
	if (err) {
		uprobes__detach(u);
		return err;
	}
	*out = u;
	return 0;
}

void uprobes__detach(struct uprobes *u)
{
	uint64_t since;
	size_t i;

	if (!u)
		return;
	since = thread_cpu_ns();
	uprobes__replace_abort(u);
	if (u->multi_fd >= 0)
		close(u->multi_fd);
	for (i = 0; i < u->nlinks; i++)
		bpf_link__destroy(u->links[i]);
	work_add(since);
	free(u->links);
	free(u->path);
	uprobe_list__free(&u->list);
	free(u);
}

struct at_once {
	void (*fn)(struct uprobes *u);
	struct uprobes *u;
};

static void *at_once_thread(void *arg)
{
	struct at_once *a = arg;

	a->fn(a->u);
	return NULL;
}

/* FN(US[i]) for each i < N that is not NULL, from threads of their own
 * (in turn when a thread cannot start). */
static void uprobes__each_at_once(struct uprobes **us, size_t n,
				  void (*fn)(struct uprobes *u))
{
	pthread_t threads[UPROBES_AT_ONCE];
	struct at_once args[UPROBES_AT_ONCE];
	bool started[UPROBES_AT_ONCE];
	size_t i, j, m;

	for (i = 0; i < n; i += m) {
		m = n - i < UPROBES_AT_ONCE ? n - i : UPROBES_AT_ONCE;
		for (j = 0; j < m; j++) {
			args[j] = (struct at_once){ fn, us[i + j] };
			started[j] = us[i + j] &&
				!pthread_create(&threads[j], NULL,
						at_once_thread, &args[j]);
		}
		for (j = 0; j < m; j++) {
			if (started[j])
				pthread_join(threads[j], NULL);
			else if (us[i + j])
				fn(us[i + j]);
		}
	}
}

const struct uprobe_list *uprobes__list(const struct uprobes *u)
{
	return &u->list;
}

int uprobes__replace_begin(struct uprobes *u, uprobes_keep_fn keep, void *ctx,
			   unsigned int gen)
{
	uint64_t since = thread_cpu_ns();
	uint64_t cookie;
	size_t i;
	int err = 0, fd;

	uprobes__replace_abort(u);
	u->keep = calloc(u->list.n ? u->list.n : 1, sizeof(*u->keep));
	if (!u->keep)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < u->list.n && !err; i++) {
		u->keep[i] = keep(ctx, u->list.cookies[i]);
		cookie = u->list.cookies[i];
		if (u->multi_fd >= 0)
			cookie = COOKIE_WITH_GEN(cookie, gen);
		if (u->keep[i])
			err = uprobe_list__add(&u->kept, u->list.offsets[i],
					       cookie);
	}
	if (!err && u->multi_fd >= 0 && u->kept.n) {
		fd = link_create_uprobe_multi(u->prog_fd, u->path,
					      u->kept.offsets, u->kept.cookies,
					      u->kept.n, u->pid);
		if (fd < 0)
			err = gt_error(fd, "cannot attach %zu uprobes to %s: %s",
				       u->kept.n, u->path, strerror(-fd));
		else
			u->kept_fd = fd;
	}
	if (err)
		uprobes__replace_abort(u);
	work_add(since);
	return err;
}

/* Switch U to its kept probes; what is to be detached of the old (the old
 * uprobe_multi link, or the probes not kept) into a struct uprobes of its
 * own, returned (NULL: nothing, or no memory: then detached now). */
static struct uprobes *replace_switch(struct uprobes *u)
{
	struct uprobes *old;
	size_t i, n = 0;

	if (!u->keep)
		return NULL;
	old = calloc(1, sizeof(*old));
	if (old) {
		old->multi_fd = -1;
		old->kept_fd = -1;
		if (u->multi_fd < 0) {
			old->links = calloc(u->nlinks ? u->nlinks : 1,
					    sizeof(*old->links));
			if (!old->links) {
				free(old);
				old = NULL;
			}
		}
	}
	if (u->multi_fd >= 0) {
		if (old)
			old->multi_fd = u->multi_fd;
		else
			close(u->multi_fd);
		u->multi_fd = u->kept_fd;
		u->kept_fd = -1;
	} else {
		for (i = 0; i < u->nlinks; i++) {
			if (u->keep[i])
				u->links[n++] = u->links[i];
			else if (old)
				old->links[old->nlinks++] = u->links[i];
			else
				bpf_link__destroy(u->links[i]);
		}
		u->nlinks = n;
	}
	uprobe_list__free(&u->list);
	u->list = u->kept;
	memset(&u->kept, 0, sizeof(u->kept));
	free(u->keep);
	u->keep = NULL;
	return old;
}

void uprobes__replace_end(struct uprobes *u)
{
	uprobes__detach(replace_switch(u));
}

void uprobes__replace_abort(struct uprobes *u)
{
	if (u->kept_fd >= 0)
		close(u->kept_fd);
	u->kept_fd = -1;
	uprobe_list__free(&u->kept);
	free(u->keep);
	u->keep = NULL;
}

struct uprobes_closing {
	pthread_t thread;
	struct uprobes *us[UPROBES_AT_ONCE];
	size_t n;
	int done;
};

static void *closing_thread(void *arg)
{
	struct uprobes_closing *c = arg;

	uprobes__each_at_once(c->us, c->n, uprobes__detach);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Detach US[0..N) from a thread of its own, into *OUT (NULL when done
 * already: no memory or no thread, then detached now). */
static void closing__start(struct uprobes **us, size_t n,
			   struct uprobes_closing **out)
{
	struct uprobes_closing *c;

	*out = NULL;
	if (!n)
		return;
	c = calloc(1, sizeof(*c));
	if (c && n <= UPROBES_AT_ONCE) {
		memcpy(c->us, us, n * sizeof(*us));
		c->n = n;
		if (!pthread_create(&c->thread, NULL, closing_thread, c)) {
			*out = c;
			return;
		}
	}
	free(c);
	uprobes__each_at_once(us, n, uprobes__detach);
}

void uprobes__detach_later(struct uprobes **us, size_t n,
			   struct uprobes_closing **out)
{
	size_t i;

	closing__start(us, n, out);
	for (i = 0; i < n; i++)
		us[i] = NULL;
}

void uprobes__replace_end_later(struct uprobes **us, size_t n,
				struct uprobes_closing **out)
{
	struct uprobes *old[UPROBES_AT_ONCE];
	size_t i, m = 0;

	/* a probe of a link of its own counts until it is gone: now */
	for (i = 0; i < n && i < UPROBES_AT_ONCE; i++) {
		if (us[i]->multi_fd >= 0)
			old[m++] = replace_switch(us[i]);
		else
			uprobes__replace_end(us[i]);
	}
	closing__start(old, m, out);
}

bool uprobes_closing__done(const struct uprobes_closing *c)
{
	return !c || __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
}

void uprobes_closing__wait(struct uprobes_closing *c)
{
	if (!c)
		return;
	pthread_join(c->thread, NULL);
	free(c);
}
