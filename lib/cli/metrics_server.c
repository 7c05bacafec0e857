// SPDX-License-Identifier: MIT
/* /metrics over HTTP, pages written by the tracing loop (metrics_server.h). */
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <microhttpd.h>
#include "core/error.h"
#include "core/mem.h"
#include "cli/metrics_server.h"

/* A request of /metrics waiting, its connection suspended, for a page
 * newer than itself: the loop resumes it, and libmicrohttpd calls the
 * handler again, which answers with the page. */
struct metrics_request {
	struct MHD_Connection *conn;
	enum metrics_format format;
	uint64_t number;		/* of its format's requests */
	double deadline;		/* CLOCK_MONOTONIC, s */
	bool resumed;
};

struct metrics_server {
	struct MHD_Daemon *daemon;
	char url[128];
	pthread_mutex_t lock;
	/* under LOCK: by format, the last request's number, the number of
	 * the last request the page answers, the page; the requests
	 * waiting */
	uint64_t asked[METRICS_NFORMATS];
	uint64_t answered[METRICS_NFORMATS];
	struct MHD_Response *page[METRICS_NFORMATS];
	double written_at[METRICS_NFORMATS];	/* CLOCK_MONOTONIC, s */
	struct metrics_request **waiting;
	size_t nwaiting, waiting_cap;
	size_t nrequests;	/* of /metrics, waiting or being answered */
	bool closing;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int addr_error(const char *arg, const char *why)
{
	return gt_error(-EINVAL, "--prometheus: %s: '%s' ([HOST:]PORT, such as 9100 or 0.0.0.0:9100)",
			why, arg);
}

int metrics_addr__parse(struct metrics_addr *a, const char *arg)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV }, *res;
	const char *colon = strrchr(arg, ':'), *port = colon ? colon + 1 : arg;
	char host[256] = "127.0.0.1", *end;
	size_t hlen;
	long p;
	int err;

	memset(a, 0, sizeof(*a));
	if (colon) {
		hlen = colon - arg;
		if (arg[0] == '[') {
			if (hlen < 2 || arg[hlen - 1] != ']')
				return addr_error(arg, "an IPv6 address in brackets, then ':PORT'");
			arg++;
			hlen -= 2;
		} else if (memchr(arg, ':', hlen)) {
			return addr_error(arg, "an IPv6 address goes in brackets");
		}
		if (!hlen)
			return addr_error(arg, "no host before the port");
		if (hlen >= sizeof(host))
			return addr_error(arg, "host name too long");
		memcpy(host, arg, hlen);
		host[hlen] = '\0';
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (strspn(port, "0123456789") != strlen(port) || !*port || *end ||
	    errno || p > 65535)
		return addr_error(port, "not a port (0 to 65535)");
	/* dotted quads only: getaddrinfo() also takes "0" for 0.0.0.0,
	 * which would listen on every address for a typo */
	if (strspn(host, "0123456789.") == strlen(host) &&
	    inet_pton(AF_INET, host, &(struct in_addr){ 0 }) != 1)
		return addr_error(host, "not an IPv4 address (a.b.c.d)");
	err = getaddrinfo(host, port, &hints, &res);
	if (err)
		return gt_error(-EINVAL, "--prometheus: cannot resolve '%s': %s",
				host, gai_strerror(err));
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	snprintf(a->text, sizeof(a->text), "%s%s%s:%ld",
		 strchr(host, ':') ? "[" : "", host,
		 strchr(host, ':') ? "]" : "", p);
	return 0;
}

/* A short answer that is not a page. */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *text)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text,
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* Answer R's request with the page of its format, or 503 before the
 * first. */
static enum MHD_Result answer(struct metrics_server *s,
			      struct MHD_Connection *c,
			      const struct metrics_request *r)
{
	enum MHD_Result ret = MHD_NO;
	bool none;

	pthread_mutex_lock(&s->lock);
	/* queued under the lock: the loop cannot free it meanwhile */
	none = !s->page[r->format];
	if (!none)
		ret = MHD_queue_response(c, MHD_HTTP_OK, s->page[r->format]);
	pthread_mutex_unlock(&s->lock);
	if (none)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			     "the tracer has written no metrics yet\n");
	return ret;
}

/* A new request of /metrics: suspended until the loop has written a page
 * newer than it (or METRICS_WAIT_MS passed: the last page); the thread
 * serves the other connections meanwhile. */
static enum MHD_Result wait_page(struct metrics_server *s,
				 struct MHD_Connection *c,
				 enum metrics_format f, void **con_cls)
{
	struct metrics_request *r = calloc(1, sizeof(*r));
	int err;

	if (!r)
		return MHD_NO;
	*con_cls = r;		/* freed when the request completes */
	r->conn = c;
	r->format = f;
	r->deadline = now_s() + METRICS_WAIT_MS / 1e3;
	/* before the loop can see it: it resumes only what is suspended */
	MHD_suspend_connection(c);
	pthread_mutex_lock(&s->lock);
	s->nrequests++;
	r->number = ++s->asked[f];
	err = gt_ensure_mem((void **)&s->waiting, &s->waiting_cap,
			    sizeof(*s->waiting), s->nwaiting + 1);
	if (!err && !s->closing)
		s->waiting[s->nwaiting++] = r;
	else
		r->resumed = true;
	pthread_mutex_unlock(&s->lock);
	if (r->resumed)
		MHD_resume_connection(c);
	return MHD_YES;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	struct metrics_server *s = cls;

	/* called again once resumed */
	if (*con_cls)
		return answer(s, c, *con_cls);
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			     "only GET and HEAD\n");
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND,
			     "not found: the metrics are at /metrics\n");
	return wait_page(s, c, metrics__negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_ACCEPT)), con_cls);
}

static void request_completed(void *cls, struct MHD_Connection *c,
			      void **con_cls,
			      enum MHD_RequestTerminationCode why)
{
	struct metrics_server *s = cls;

	if (!*con_cls)
		return;
	free(*con_cls);
	*con_cls = NULL;
	pthread_mutex_lock(&s->lock);
	s->nrequests--;
	pthread_mutex_unlock(&s->lock);
}

/* Let the requests resumed at close be answered before the daemon stops
 * (which drops every connection): up to METRICS_CLOSE_WAIT_MS, so that
 * a client that never reads cannot hold the tool. */
static void drain_requests(struct metrics_server *s)
{
	const struct timespec step = { 0, 5 * 1000 * 1000 };
	double end = now_s() + METRICS_CLOSE_WAIT_MS / 1e3;
	size_t n;

	do {
		pthread_mutex_lock(&s->lock);
		n = s->nrequests;
		pthread_mutex_unlock(&s->lock);
		if (n)
			nanosleep(&step, NULL);
	} while (n && now_s() < end);
}

/* As many connections as a quarter of the file descriptors allow (the
 * probes and maps need theirs), after raising their soft limit to the
 * hard one, as the process may (a -c command, started before, keeps its
 * own). */
static unsigned int connection_limit(void)
{
	struct rlimit r;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 64;
	if (r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r))
			getrlimit(RLIMIT_NOFILE, &r);
	}
	n = r.rlim_cur / 4;
	if (n > METRICS_MAX_CONNS)
		n = METRICS_MAX_CONNS;
	return n < 16 ? 16 : n;
}

/* The listening socket, and the URL it serves (the port it got). */
static int listen_on(const struct metrics_addr *a, struct metrics_server *s,
		     int *out)
{
	struct sockaddr_storage got;
	socklen_t len = sizeof(got);
	char host[INET6_ADDRSTRLEN];
	int fd, one = 1, port;
	bool v6 = a->ss.ss_family == AF_INET6;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return gt_error(-errno, "cannot listen on %s: %s", a->text,
				strerror(errno));
	/* a restart within TIME_WAIT binds again; another listener still
	 * makes EADDRINUSE */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&a->ss, a->len) ||
	    listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&got, &len)) {
		int err = -errno;

		close(fd);
		return gt_error(err, "cannot listen on %s: %s", a->text,
				strerror(-err));
	}
	if (v6) {
		const struct sockaddr_in6 *in6 = (const void *)&got;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
	} else {
		const struct sockaddr_in *in = (const void *)&got;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
	}
	snprintf(s->url, sizeof(s->url), "http://%s%s%s:%d/metrics",
		 v6 ? "[" : "", host, v6 ? "]" : "", port);
	*out = fd;
	return 0;
}

int metrics_server__open(const struct metrics_addr *a,
			 struct metrics_server **out)
{
	struct metrics_server *s;
	sigset_t block, old;
	int fd = -1, err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return gt_error(-ENOMEM, "out of memory");
	pthread_mutex_init(&s->lock, NULL);
	err = listen_on(a, s, &fd);
	if (err) {
		metrics_server__close(s, NULL);
		return err;
	}
	/* its thread inherits the mask: Ctrl-C goes to the tool's loop */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	s->daemon = MHD_start_daemon(MHD_USE_AUTO |
				     MHD_USE_INTERNAL_POLLING_THREAD |
				     MHD_ALLOW_SUSPEND_RESUME,
				     0, NULL, NULL, handle, s,
				     MHD_OPTION_NOTIFY_COMPLETED,
				     request_completed, s,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_CONNECTION_LIMIT,
				     connection_limit(),
				     MHD_OPTION_CONNECTION_TIMEOUT,
				     (unsigned int)METRICS_CONN_TIMEOUT_S,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				     (size_t)METRICS_CONN_MEMORY,
				     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!s->daemon) {
		/* not closed here: libmicrohttpd has, on most ways out */
		metrics_server__close(s, NULL);
		return gt_error(-EIO, "cannot serve HTTP on %s (libmicrohttpd)",
				a->text);
	}
	*out = s;
	return 0;
}

const char *metrics_server__url(const struct metrics_server *s)
{
	return s->url;
}

/* Page F written from SRC, or NULL with the error in *ERR. */
static struct MHD_Response *write_page(const struct metrics_source *src,
				       enum metrics_format f, int *err)
{
	struct MHD_Response *r;
	struct metrics m;

	metrics__init(&m, f, src->labels, src->nlabels);
	*err = src->write(&m, src->ctx);
	if (*err) {
		metrics__free(&m);
		return NULL;
	}
	*err = metrics__finish(&m);
	if (*err)
		return NULL;
	r = MHD_create_response_from_buffer(m.len, m.buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		metrics__free(&m);
		*err = gt_error(-ENOMEM, "out of memory for the metrics");
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				metrics__content_type(f));
	return r;
}

/* Resume the requests a page answers now (or whose wait is over; all
 * when closing), outside the lock: libmicrohttpd takes its own. */
static void resume_answered(struct metrics_server *s)
{
	struct MHD_Connection *conns[64];
	struct metrics_request *r;
	size_t i, kept, n;
	double now;

	do {
		now = now_s();
		n = 0;
		pthread_mutex_lock(&s->lock);
		for (i = kept = 0; i < s->nwaiting; i++) {
			r = s->waiting[i];
			if (n < 64 && (s->closing || now >= r->deadline ||
				       r->number <= s->answered[r->format])) {
				r->resumed = true;
				conns[n++] = r->conn;
			} else {
				s->waiting[kept++] = r;
			}
		}
		s->nwaiting = kept;
		pthread_mutex_unlock(&s->lock);
		for (i = 0; i < n; i++)
			MHD_resume_connection(conns[i]);
	} while (n == 64);
}

/* Write, from SRC, the page of each format asked for since its last
 * (at most every METRICS_MIN_GAP_MS unless LAST: the final state). */
static int write_asked(struct metrics_server *s,
		       const struct metrics_source *src, bool last)
{
	struct MHD_Response *page, *old;
	uint64_t asked;
	int f, err = 0;
	double now;

	for (f = 0; f < METRICS_NFORMATS && !err; f++) {
		now = now_s();
		pthread_mutex_lock(&s->lock);
		asked = s->asked[f];
		if (asked == s->answered[f] ||
		    (!last && now - s->written_at[f] < METRICS_MIN_GAP_MS / 1e3)) {
			pthread_mutex_unlock(&s->lock);
			continue;
		}
		pthread_mutex_unlock(&s->lock);
		page = write_page(src, f, &err);
		pthread_mutex_lock(&s->lock);
		old = page ? s->page[f] : NULL;
		if (page)
			s->page[f] = page;
		/* on an error, those asking get the page before */
		s->answered[f] = asked;
		s->written_at[f] = now;
		pthread_mutex_unlock(&s->lock);
		if (old)
			MHD_destroy_response(old);
	}
	return err;
}

int metrics_server__serve(struct metrics_server *s,
			  const struct metrics_source *src)
{
	int err = write_asked(s, src, false);

	resume_answered(s);
	return err;
}

void metrics_server__close(struct metrics_server *s,
			   const struct metrics_source *last)
{
	int f;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->closing = true;
	pthread_mutex_unlock(&s->lock);
	/* a scrape as the tool stops gets its final state, not the page
	 * before (or 503 before the first); an error leaves that */
	if (last)
		write_asked(s, last, true);
	/* no connection may be suspended when the daemon stops */
	resume_answered(s);
	if (s->daemon) {
		drain_requests(s);
		MHD_stop_daemon(s->daemon);
	}
	for (f = 0; f < METRICS_NFORMATS; f++)
		if (s->page[f])
			MHD_destroy_response(s->page[f]);
	pthread_mutex_destroy(&s->lock);
	free(s->waiting);
	free(s);
}
