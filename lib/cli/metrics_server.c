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
#include "cli/metrics_server.h"

struct metrics_server {
	struct MHD_Daemon *daemon;
	char url[128];
	pthread_mutex_t lock;
	pthread_cond_t written;		/* a page was written */
	/* by format, under LOCK: the last request's number, the number
	 * of the last request the page answers, the page */
	uint64_t asked[METRICS_NFORMATS];
	uint64_t answered[METRICS_NFORMATS];
	struct MHD_Response *page[METRICS_NFORMATS];
	double written_at[METRICS_NFORMATS];	/* CLOCK_MONOTONIC, s */
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
				return addr_error(arg, "no ']' before the port");
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
	if (!*port || *end || errno || p < 0 || p > 65535 || *port == '-' ||
	    *port == '+')
		return addr_error(colon ? colon + 1 : port,
				  "not a port (0 to 65535)");
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

static void deadline_in(struct timespec *t, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* A request of /metrics: a page newer than it, or the last one when the
 * loop is busy (trying probes, say) for METRICS_WAIT_MS. */
static enum MHD_Result serve_page(struct metrics_server *s,
				  struct MHD_Connection *c,
				  enum metrics_format f)
{
	struct timespec deadline;
	enum MHD_Result ret;
	uint64_t mine;
	bool none;

	deadline_in(&deadline, METRICS_WAIT_MS);
	pthread_mutex_lock(&s->lock);
	mine = ++s->asked[f];
	while (s->answered[f] < mine && !s->closing &&
	       pthread_cond_timedwait(&s->written, &s->lock, &deadline) !=
	       ETIMEDOUT)
		;
	/* queued under the lock: the loop cannot free it meanwhile */
	none = !s->page[f];
	ret = none ? MHD_NO : MHD_queue_response(c, MHD_HTTP_OK, s->page[f]);
	pthread_mutex_unlock(&s->lock);
	if (none)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE,
			     "the tracer has written no metrics yet\n");
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			     "only GET and HEAD\n");
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND,
			     "not found: the metrics are at /metrics\n");
	return serve_page(cls, c, metrics__negotiate(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_ACCEPT)));
}

/* As many connections as the file descriptors left allow, after raising
 * their soft limit to the hard one (a quarter of it: the probes and maps
 * need theirs). */
static unsigned int connection_limit(void)
{
	struct rlimit r;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return 64;
	if (r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
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
	pthread_condattr_t ca;
	sigset_t block, old;
	int fd = -1, err;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return gt_error(-ENOMEM, "out of memory");
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->written, &ca);
	pthread_condattr_destroy(&ca);
	err = listen_on(a, s, &fd);
	if (err) {
		metrics_server__close(s);
		return err;
	}
	/* its thread inherits the mask: Ctrl-C goes to the tool's loop */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	s->daemon = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD,
				     0, NULL, NULL, handle, s,
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
		close(fd);
		metrics_server__close(s);
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

int metrics_server__serve(struct metrics_server *s,
			  const struct metrics_source *src)
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
		    now - s->written_at[f] < METRICS_MIN_GAP_MS / 1e3) {
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
		pthread_cond_broadcast(&s->written);
		pthread_mutex_unlock(&s->lock);
		if (old)
			MHD_destroy_response(old);
	}
	return err;
}

void metrics_server__close(struct metrics_server *s)
{
	int f;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->closing = true;
	pthread_cond_broadcast(&s->written);
	pthread_mutex_unlock(&s->lock);
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	for (f = 0; f < METRICS_NFORMATS; f++)
		if (s->page[f])
			MHD_destroy_response(s->page[f]);
	pthread_cond_destroy(&s->written);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
