// SPDX-License-Identifier: MIT
/*
 * buf 1.75.0 (go1.27.3, stripped; tests/fixtures/thirdparty.sh): the
 * inline tree of every function, and the frames pcline gives, against Go's
 * own view of the same tables.
 *
 * Ground truth, independent of the code under test:
 *  - Go's runtime, in buf itself: on SIGQUIT with GOTRACEBACK=system it
 *    prints every goroutine's stack, inlined calls included, and the pc of
 *    each physical frame (runtime/traceback.go traceback2 over
 *    symtabinl.go's inlineUnwinder). Each group of frames it prints for
 *    one pc must be what pcline__frames() gives at the PC the runtime
 *    resolved (unwinder.symPC()). buf waits in two places: `buf lsp serve`
 *    on its input, `buf curl` on a server that never answers.
 *  - `go tool addr2line` of Go 1.27 (debug/gosym, which knows no inlined
 *    calls): the function and the innermost file:line at the first and
 *    the last PC of every stretch of inlined code of every function.
 *  - the runtime's unwinding rule, applied here to every stretch of
 *    inlined code with the tables read through pclntab.h: the next frame
 *    is at the inline index of entry + parentPc. It never ends in exactly
 *    one function, go.opentelemetry.io/otel/semconv/v1.37.0.init, whose
 *    records all say parentPc 0 while its entry is inlined code: the one
 *    tree pclntab__inline_calls() must reject, and pcline must not walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "core/error.h"
#include "gobin/go_binary.h"
#include "gobin/pcline.h"
#include "gobin/pclntab.h"
#include "gobin/pclntab_inline.h"
#include "go_fixture.h"
#include "test.h"

#define BUF		"buf-1.75.0"
#define SEMCONV_INIT	"go.opentelemetry.io/otel/semconv/v1%2e37%2e0.init"
#define MAX_FRAMES	64
#define MAX_REPORTS	8

/* ---- the runtime's rule, over the tables as pclntab.h reads them ---- */

/* The nonempty runs of one function's inline-index table. */
struct runs {
	struct { uint64_t pc, end; int32_t val; } *v;
	size_t n, cap;
};

static bool read_runs(const struct pclntab *tab, size_t i, size_t off,
		      struct runs *r)
{
	struct pclntab_pcvalue it;
	int ret;

	r->n = 0;
	pclntab_pcvalue__init(&it, tab, i, off);
	while ((ret = pclntab_pcvalue__next(&it)) > 0) {
		if (it.pc == it.end)
			continue;
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 64;
			r->v = realloc(r->v, r->cap * sizeof(*r->v));
			if (!r->v)
				abort();
		}
		r->v[r->n].pc = it.pc;
		r->v[r->n].end = it.end;
		r->v[r->n].val = it.val;
		r->n++;
	}
	return ret == 0;
}

/* pcdatavalue1() at PC: the value of its run, -1 past the table; before
 * the entry (a negative parentPc) the first value, as pcvalue() does. */
static int32_t value_at(const struct runs *r, uint64_t pc)
{
	size_t lo = 0, hi = r->n;

	if (r->n && pc < r->v[0].pc)
		return r->v[0].val;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->v[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->v[lo].pc <= pc ? r->v[lo].val : -1;
}

/*
 * Does inlineUnwinder.next() ever reach index -1 from every stretch of
 * inlined code of function I? 1 yes, 0 it loops somewhere, -1 the tables
 * cannot be read. A walk longer than the number of records loops.
 */
static int unwinds(const struct go_binary *bin,
		   const struct pclntab_funcdata *fd, size_t i,
		   struct runs *r)
{
	const struct pclntab *tab = bin->pclntab;
	const struct pclntab_func *f = &tab->funcs[i];
	struct pclntab_inltree tree;
	const char *name;
	int32_t inl, parent_pc, last = -1;
	size_t k, steps;
	int err;

	err = pclntab__func_inltree(tab, i, fd, &tree);
	if (err)
		return err == 1 ? 1 : -1;
	if (!read_runs(tab, i, tree.index, r))
		return -1;
	for (k = 0; k < r->n; k++)
		if (r->v[k].val > last)
			last = r->v[k].val;
	for (k = 0; k < r->n; k++) {
		for (inl = r->v[k].val, steps = 0; inl >= 0; steps++) {
			if (steps > (size_t)last + 1)
				return 0;
			if (pclntab__inlined_call(tab, i, fd, &tree, inl,
						  &name, &parent_pc))
				return -1;
			inl = value_at(r, f->entry +
					      (uint64_t)(int64_t)parent_pc);
		}
	}
	return 1;
}

static int count_call(void *ctx, const struct pclntab_inline_call *c)
{
	(*(size_t *)ctx)++;
	return 0;
}

/*
 * Every function's tree: pclntab__inline_calls() rejects exactly those
 * the runtime's rule loops on, which is semconv/v1.37.0.init alone, and
 * that tree is the one the Go 1.25+ compiler writes for an initializer
 * whose inline marks static initialization dropped: every parentPc 0, and
 * inlined code at the entry.
 */
TEST(every_tree)
{
	struct pclntab_funcdata fd;
	struct pclntab_inltree tree;
	struct go_binary *bin = go_fixture__open(BUF, true);
	struct runs r = { 0 };
	const char *name;
	size_t i, k, calls = 0, rejected = 0, bad = 0;
	int32_t node, parent_pc, last;
	int err, u;

	CHECK(bin != NULL);
	if (!bin)
		return;
	CHECK_EQ_INT(pclntab_funcdata__init(&fd, bin), 0);
	for (i = 0; i < bin->pclntab->nfuncs; i++) {
		const struct pclntab_func *f = &bin->pclntab->funcs[i];

		gt_error_clear();
		err = pclntab__inline_calls(bin->pclntab, i, &fd, count_call,
					    &calls);
		u = unwinds(bin, &fd, i, &r);
		if (err == -EBADMSG) {
			rejected++;
			CHECK_EQ_STR(f->name, SEMCONV_INIT);
			CHECK(strstr(gt_last_error(), "cycle of inlined"));
		}
		if ((err == 0) != (u == 1) && bad++ < MAX_REPORTS)
			fprintf(stderr, "%s: inline_calls %d (%s), the "
				"runtime's rule %d\n", f->name, err,
				gt_last_error(), u);
		if (strcmp(f->name, SEMCONV_INIT))
			continue;
		/* why: every record's call site is the entry, inlined code */
		CHECK_EQ_INT(pclntab__func_inltree(bin->pclntab, i, &fd,
						   &tree), 0);
		CHECK(read_runs(bin->pclntab, i, tree.index, &r));
		CHECK(r.n > 0 && r.v[0].pc == f->entry && r.v[0].val >= 0);
		for (k = 0, last = -1; k < r.n; k++)
			if (r.v[k].val > last)
				last = r.v[k].val;
		CHECK(last > 0);
		for (node = 0; node <= last; node++) {
			CHECK_EQ_INT(pclntab__inlined_call(bin->pclntab, i, &fd,
							   &tree, node, &name,
							   &parent_pc), 0);
			CHECK_EQ_INT(parent_pc, 0);
			CHECK(!strncmp(name, "go.opentelemetry.io/otel/"
				       "attribute.", 35));
		}
	}
	fprintf(stderr, "%s: %zu functions, %zu inlined calls, %zu rejected\n",
		BUF, bin->pclntab->nfuncs, calls, rejected);
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(rejected, 1);
	CHECK(calls > 90000);
	free(r.v);
	go_binary__close(bin);
}

/* ---- pcline at every PC ---- */

/*
 * Every fourth PC of every function: frames, the function itself last,
 * inlined calls before it. semconv/v1.37.0.init is inlined code up to its
 * padding, RET included: there it has its own frame alone, at no known
 * position.
 */
TEST(every_pc)
{
	struct pcline_frame fr[MAX_FRAMES];
	const struct pclntab_func *f;
	struct go_binary *bin = go_fixture__open(BUF, true);
	struct pcline *p = NULL;
	size_t i, k, n, pcs = 0, inlined = 0, bad = 0, in_init = 0;
	uint64_t pc;

	CHECK(bin && pcline__open(bin, &p) == 0);
	for (i = 0; p && i < bin->pclntab->nfuncs; i++) {
		f = &bin->pclntab->funcs[i];
		for (pc = f->entry; pc < f->end; pc += 4) {
			pcs++;
			if (pcline__frames(p, pc, fr, MAX_FRAMES, &n) || !n ||
			    strcmp(fr[n - 1].func, f->name) ||
			    fr[n - 1].inlined ||
			    fr[n - 1].func_entry != f->entry) {
				if (bad++ < MAX_REPORTS)
					fprintf(stderr, "%#" PRIx64 ": %s\n",
						pc, gt_last_error());
				continue;
			}
			for (k = 0; k + 1 < n; k++)
				if (!fr[k].inlined && bad++ < MAX_REPORTS)
					fprintf(stderr, "%#" PRIx64 ": frame "
						"%zu not inlined\n", pc, k);
			inlined += n > 1;
			if (strcmp(f->name, SEMCONV_INIT))
				continue;
			/* 17 stores of 11 bytes and a RET, all inlined */
			if (pc < f->entry + 17 * 11 + 1) {
				in_init++;
				CHECK_EQ_INT(n, 1);
				CHECK_EQ_STR(fr[0].file, "?");
				CHECK_EQ_INT(fr[0].line, 0);
			}
		}
	}
	fprintf(stderr, "%s: %zu PCs, %zu in inlined code, %zu bad\n", BUF,
		pcs, inlined, bad);
	CHECK_EQ_INT(bad, 0);
	CHECK(pcs > 1000000);
	CHECK(inlined * 10 > pcs);
	CHECK_EQ_INT(in_init, 47);
	pcline__close(p);
	go_binary__close(bin);
}

/* ---- go tool addr2line ---- */

/*
 * The first and last PC of every stretch of inlined code, in every
 * function but the rejected one: `go tool addr2line` names the function
 * and the innermost file:line there, which must be pcline's last frame's
 * function and first frame's position.
 */
TEST(addr2line)
{
	char tmp[] = "/tmp/test_buf_inline.XXXXXX", cmd[8192], fn[4096],
	     loc[4096], *colon;
	struct pcline_frame fr[MAX_FRAMES];
	struct pclntab_funcdata fd;
	struct pclntab_inltree tree;
	struct go_binary *bin = go_fixture__open(BUF, true);
	struct pcline *p = NULL;
	struct runs r = { 0 };
	uint64_t *pcs = NULL;
	size_t i, k, n, npcs = 0, cap = 0, answered = 0, bad = 0;
	FILE *f = NULL;
	int fd_tmp;

	CHECK(bin && pcline__open(bin, &p) == 0);
	CHECK(bin && pclntab_funcdata__init(&fd, bin) == 0);
	for (i = 0; p && i < bin->pclntab->nfuncs; i++) {
		if (!strcmp(bin->pclntab->funcs[i].name, SEMCONV_INIT) ||
		    pclntab__func_inltree(bin->pclntab, i, &fd, &tree) ||
		    !read_runs(bin->pclntab, i, tree.index, &r))
			continue;
		for (k = 0; k < r.n; k++) {
			if (r.v[k].val < 0)
				continue;
			if (npcs + 2 > cap) {
				cap = cap ? 2 * cap : 4096;
				pcs = realloc(pcs, cap * sizeof(*pcs));
				if (!pcs)
					abort();
			}
			pcs[npcs++] = r.v[k].pc;
			if (r.v[k].end - 1 > r.v[k].pc)
				pcs[npcs++] = r.v[k].end - 1;
		}
	}
	fd_tmp = mkstemp(tmp);
	if (fd_tmp >= 0)
		f = fdopen(fd_tmp, "w");
	CHECK(f != NULL);
	if (!f)
		goto out;
	for (i = 0; i < npcs; i++)
		fprintf(f, "%#" PRIx64 "\n", pcs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "GOROOT='%s/go/1.27' GOTOOLCHAIN=local "
		 "'%s/go/1.27/bin/go' tool addr2line '%s' < %s", test_cache(),
		 test_cache(), test_fixture(BUF), tmp);
	f = popen(cmd, "r");
	for (i = 0; f && i < npcs; i++) {
		if (!fgets(fn, sizeof(fn), f) || !fgets(loc, sizeof(loc), f))
			break;
		answered++;
		fn[strcspn(fn, "\n")] = 0;
		loc[strcspn(loc, "\n")] = 0;
		colon = strrchr(loc, ':');
		if (!colon)
			break;
		*colon = 0;
		if (pcline__frames(p, pcs[i], fr, MAX_FRAMES, &n) || n < 2 ||
		    strcmp(fn, fr[n - 1].func) || strcmp(loc, fr[0].file) ||
		    atoi(colon + 1) != fr[0].line) {
			if (bad++ < MAX_REPORTS)
				fprintf(stderr, "%#" PRIx64 ": go tool "
					"addr2line says %s %s:%s, we %s %s:%d "
					"(%zu frames)\n", pcs[i], fn, loc,
					colon + 1,
					n ? fr[n - 1].func : "-",
					n ? fr[0].file : "-",
					n ? fr[0].line : 0, n);
		}
	}
	if (f)
		pclose(f);
	fprintf(stderr, "%s: go tool addr2line: %zu PCs in inlined code, %zu "
		"answered, %zu differ\n", BUF, npcs, answered, bad);
	CHECK(npcs > 100000);
	CHECK_EQ_INT(answered, npcs);
	CHECK_EQ_INT(bad, 0);
out:
	if (fd_tmp >= 0)
		unlink(tmp);
	free(pcs);
	free(r.v);
	pcline__close(p);
	go_binary__close(bin);
}

/* ---- the runtime's own traceback of buf ---- */

/* A scratch directory: a proto file for buf curl, buf's cache. */
struct scratch {
	char dir[64];
	char proto[128];
	char cache[128];
};

static bool scratch_init(struct scratch *s)
{
	FILE *f;

	strcpy(s->dir, "/tmp/test_buf_inline.XXXXXX");
	if (!mkdtemp(s->dir))
		return false;
	snprintf(s->proto, sizeof(s->proto), "%s/a.proto", s->dir);
	snprintf(s->cache, sizeof(s->cache), "%s/cache", s->dir);
	f = fopen(s->proto, "w");
	if (!f)
		return false;
	fputs("syntax = \"proto3\";\npackage a;\nmessage M { string s = 1; }\n"
	      "service S { rpc Get(M) returns (M); }\n", f);
	return fclose(f) == 0;
}

static void scratch_free(struct scratch *s)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", s->dir);
}

/* The whole of file FD, NUL-terminated (malloc'd). */
static char *read_all(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t got;

	if (!buf)
		abort();
	while ((got = pread(fd, buf + len, cap - len - 1, len)) > 0) {
		len += got;
		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
	}
	buf[len] = 0;
	return buf;
}

/* Is buf waiting where we want it? */
typedef bool (*ready_fn)(void *ctx, const char *err);

/*
 * Run buf with ARGV in S->dir, GOTRACEBACK=system, its input a pipe held
 * open here, its stderr in a file; once READY says so (asked every 50 ms,
 * for 30 s at most) and half a second more for its goroutines to settle,
 * SIGQUIT it. Returns what it printed (malloc'd), or NULL.
 */
static char *quit_dump(const struct scratch *s, char *const argv[],
		       ready_fn ready, void *ctx)
{
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	char path[160], *out = NULL, *err;
	int in[2], efd, status, i;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/stderr", s->dir);
	efd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (efd < 0 || pipe2(in, O_CLOEXEC)) {
		if (efd >= 0)
			close(efd);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(efd, 2);
		close(1);
		open("/dev/null", O_WRONLY);
		if (chdir(s->dir))
			_exit(126);
		setenv("GOTRACEBACK", "system", 1);
		setenv("BUF_CACHE_DIR", s->cache, 1);
		execv(test_fixture(BUF), argv);
		_exit(127);
	}
	close(in[0]);
	for (i = 0; pid > 0 && i < 600; i++) {
		err = read_all(efd);
		if (ready(ctx, err)) {
			free(err);
			nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 },
				  NULL);
			kill(pid, SIGQUIT);
			break;
		}
		free(err);
		nanosleep(&tick, NULL);
	}
	if (pid > 0) {
		if (i == 600) {
			fprintf(stderr, "%s never got ready\n", argv[1]);
			kill(pid, SIGKILL);
		}
		waitpid(pid, &status, 0);
		if (i < 600)
			out = read_all(efd);
	}
	close(in[1]);
	close(efd);
	return out;
}

static bool lsp_ready(void *ctx, const char *err)
{
	return strstr(err, "starting LSP server") != NULL;
}

/* buf curl has connected to the listening socket *CTX, which never
 * accepts: the connection waits in its backlog, and buf on its answer. */
static bool curl_ready(void *ctx, const char *err)
{
	int fd = *(int *)ctx;
	struct timeval tv = { 0, 0 };
	fd_set set;

	FD_ZERO(&set);
	FD_SET(fd, &set);
	return select(fd + 1, &set, NULL, NULL, &tv) > 0;
}

/* How the runtime prints a function's name (funcNamePiecesForPrint):
 * whatever is in the outermost brackets as "...". */
static void print_name(const char *name, char *buf, size_t len)
{
	const char *i = strchr(name, '['), *j = strrchr(name, ']');

	if (!i || !j || j <= i)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%.*s[...]%s", (int)(i - name), name, j + 1);
}

/* One frame as the runtime printed it. */
struct rt_frame {
	char func[1024];
	char file[1024];
	int line;
};

struct rt_check {
	struct pcline *p;
	const char *what;
	size_t groups, frames, inlined, bad;
};

/* Compare the frames of one pc, innermost first, with pcline's at the
 * PC the runtime resolved. */
static void check_group(struct rt_check *c, const struct rt_frame *want,
			size_t nwant, uint64_t pc, uint64_t sym_pc)
{
	struct pcline_frame fr[MAX_FRAMES];
	char name[1024];
	size_t k, n = 0;
	int err;

	c->groups++;
	c->frames += nwant;
	c->inlined += nwant - 1;
	err = pcline__frames(c->p, sym_pc, fr, MAX_FRAMES, &n);
	for (k = 0; !err && k < nwant && n == nwant; k++) {
		print_name(fr[k].func, name, sizeof(name));
		if (strcmp(name, want[k].func) ||
		    strcmp(fr[k].file, want[k].file) ||
		    fr[k].line != want[k].line ||
		    fr[k].inlined != (k + 1 < nwant))
			break;
	}
	if (!err && n == nwant && k == nwant)
		return;
	if (c->bad++ >= MAX_REPORTS)
		return;
	fprintf(stderr, "%s: pc %#" PRIx64 " (%#" PRIx64 "): %zu frames, "
		"the runtime %zu\n", c->what, pc, sym_pc, n, nwant);
	for (k = 0; k < nwant || k < n; k++)
		fprintf(stderr, "  runtime %s %s:%d | we %s %s:%d\n",
			k < nwant ? want[k].func : "-",
			k < nwant ? want[k].file : "-",
			k < nwant ? want[k].line : 0,
			k < n ? fr[k].func : "-", k < n ? fr[k].file : "-",
			k < n ? fr[k].line : 0);
}

/*
 * Parse a SIGQUIT dump: "goroutine N ...:" starts a stack; each frame is
 * "FUNC(ARGS)" and "\tFILE:LINE", inlined ones with "(...)" and nothing
 * after the line, the physical one that ends a group with " +0xOFF"
 * (when pc > entry) and " fp=... sp=... pc=0x...". The runtime looks the
 * group up at pc - 1 (a return address), but at pc itself at the entry
 * and in the frame the signal interrupted (symPC()), whose pc the dump's
 * "PC=0x..." line gives.
 */
static void check_dump(struct rt_check *c, char *dump)
{
	static struct rt_frame group[MAX_FRAMES];
	char *line, *save = NULL, *p, *q, *pending = NULL;
	uint64_t trap_pc = 0, pc;
	size_t n = 0;
	bool first = false, skip = false, trapped;

	for (line = strtok_r(dump, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "PC=0x", 5)) {
			trap_pc = strtoull(line + 3, NULL, 16);
		} else if (!strncmp(line, "goroutine ", 10)) {
			first = true;
			n = 0;
			pending = NULL;
		} else if (!strncmp(line, "created by ", 11)) {
			skip = true;
		} else if (line[0] != '\t') {
			p = strrchr(line, '(');
			pending = p && line[strlen(line) - 1] == ')' ? line :
								      NULL;
			if (pending)
				*p = 0;
			if (!pending)
				n = 0;
			skip = false;
		} else if (skip || !pending || n == MAX_FRAMES) {
			skip = false;
			pending = NULL;
		} else {
			/* "\tFILE:LINE[ +0xOFF][ fp=0x.. sp=0x.. pc=0x..]" */
			snprintf(group[n].func, sizeof(group[n].func), "%s",
				 pending);
			pending = NULL;
			p = line + 1;
			q = strchr(p, ' ');
			if (q)
				*q++ = 0;
			p = strrchr(line + 1, ':');
			if (!p)
				continue;
			*p = 0;
			snprintf(group[n].file, sizeof(group[n].file), "%s",
				 line + 1);
			group[n].line = atoi(p + 1);
			n++;
			if (!q || !(p = strstr(q, " pc=0x")))
				continue;
			pc = strtoull(p + 4, NULL, 16);
			trapped = first && pc == trap_pc;
			check_group(c, group, n, pc,
				    trapped || !strstr(q, "+0x") ? pc : pc - 1);
			first = false;
			n = 0;
		}
	}
}

/*
 * buf's own runtime prints its goroutines' stacks with every inlined
 * call, idle in `buf lsp serve` and waiting in `buf curl` on a server
 * that never answers: pcline gives the same frames at the same PCs.
 */
TEST(runtime_traceback)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	char url[64], *dump;
	struct go_binary *bin = go_fixture__open(BUF, true);
	struct pcline *p = NULL;
	struct scratch s;
	struct rt_check c = { 0 };
	int lfd = -1;

	CHECK(bin && pcline__open(bin, &p) == 0);
	CHECK(scratch_init(&s));
	if (!p)
		goto out;
	c.p = p;

	{
		char *argv[] = { BUF, "lsp", "serve", NULL };

		dump = quit_dump(&s, argv, lsp_ready, NULL);
		CHECK(dump && strstr(dump, "SIGQUIT"));
		c.what = "buf lsp serve";
		if (dump)
			check_dump(&c, dump);
		free(dump);
	}

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(lfd >= 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, alen) ||
	    listen(lfd, 4) ||
	    getsockname(lfd, (struct sockaddr *)&addr, &alen)) {
		CHECK(!"cannot listen on the loopback");
		goto out;
	}
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/a.S/Get",
		 ntohs(addr.sin_port));
	{
		char *argv[] = { BUF, "curl", "--schema", s.proto,
				 "--http2-prior-knowledge", "--protocol",
				 "grpc", "-d", "{}", url, NULL };

		dump = quit_dump(&s, argv, curl_ready, &lfd);
		CHECK(dump && strstr(dump, "SIGQUIT"));
		c.what = "buf curl";
		if (dump)
			check_dump(&c, dump);
		free(dump);
	}
	fprintf(stderr, "%s: the runtime's traceback: %zu pcs, %zu frames, "
		"%zu inlined, %zu differ\n", BUF, c.groups, c.frames,
		c.inlined, c.bad);
	CHECK(c.groups >= 100);
	CHECK(c.inlined >= 10);
	CHECK_EQ_INT(c.bad, 0);
out:
	if (lfd >= 0)
		close(lfd);
	scratch_free(&s);
	pcline__close(p);
	go_binary__close(bin);
}

int main(void)
{
	RUN(every_tree);
	RUN(every_pc);
	RUN(addr2line);
	RUN(runtime_traceback);
	return TEST_SUMMARY();
}
