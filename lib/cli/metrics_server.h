/* SPDX-License-Identifier: MIT */
/*
 * --prometheus [HOST:]PORT: the tool's current state on /metrics, for
 * Prometheus to scrape, in its text format or OpenMetrics as the request's
 * Accept header asks (metrics.h).
 *
 * libmicrohttpd serves HTTP from a thread of its own; the tracing loop
 * writes the pages, so that nothing but that loop ever reads the BPF maps
 * or the tool's state. A request's connection is suspended (the thread
 * serves the others meanwhile) until the loop, which looks every 10 to
 * 100 ms (metrics_server__serve()), has written a page newer than the
 * request, or METRICS_WAIT_MS have passed (then it gets the page before,
 * or 503 before the first); the loop writes a format's page at most every
 * METRICS_MIN_GAP_MS however often it is asked, and one page answers
 * every request waiting for it, so scrapers cost the loop little, and
 * nothing when nobody scrapes. A page is one libmicrohttpd response that
 * every request served with it shares, freed with the last of them.
 *
 * What a slow or hostile client can take: a connection of at most
 * METRICS_CONN_MEMORY bytes (a larger request is refused), closed after
 * METRICS_CONN_TIMEOUT_S seconds idle (a client that never reads); at most
 * METRICS_MAX_CONNS connections (a quarter of the file descriptor limit
 * when that is lower: the tool's probes and maps need theirs), the others
 * wait in the listening socket's backlog. None of it touches the tracing
 * loop, which only ever waits for the lock around the pages and the
 * requests waiting.
 */
#ifndef GOTOOLS_METRICS_SERVER_H
#define GOTOOLS_METRICS_SERVER_H

#include <stddef.h>
#include <sys/socket.h>
#include "cli/metrics.h"

#define METRICS_WAIT_MS		2000
#define METRICS_MIN_GAP_MS	200
#define METRICS_CONN_MEMORY	(16 * 1024)
#define METRICS_CONN_TIMEOUT_S	10
#define METRICS_MAX_CONNS	1024
#define METRICS_CLOSE_WAIT_MS	1000

/* Where to listen: --prometheus's [HOST:]PORT. */
struct metrics_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char text[64 + 8];	/* HOST:PORT as given, [HOST]:PORT for IPv6 */
};

/*
 * Parse ARG: PORT (0 to 65535; 0, any free port) binds 127.0.0.1;
 * HOST:PORT binds HOST, an IPv4 address, a name, or an IPv6 address in
 * brackets ([::1]:9100). Returns 0, or -EINVAL with a reason.
 */
int metrics_addr__parse(struct metrics_addr *a, const char *arg);

/* Writes the families of a page (the page is initialized with the
 * source's labels): 0 or a negative errno with a reason. */
typedef int (*metrics_write_fn)(struct metrics *m, void *ctx);

struct metrics_source {
	metrics_write_fn write;
	void *ctx;
	struct metrics_label labels[METRICS_MAX_COMMON];
	size_t nlabels;
};

struct metrics_server;

/*
 * Listen on A and serve from a thread of libmicrohttpd's (which never
 * takes SIGINT or SIGTERM: the tool's loop does). Raises the soft limit
 * of open files to the hard one (for the connections): a child started
 * after would inherit it. Returns 0 with *OUT, or a negative errno with a
 * reason ("cannot listen on 127.0.0.1:9100: Address already in use").
 */
int metrics_server__open(const struct metrics_addr *a,
			 struct metrics_server **out);

/* Where it serves: http://HOST:PORT/metrics, the port it was given. */
const char *metrics_server__url(const struct metrics_server *s);

/*
 * Write the pages requests wait for from SRC, when the last of their
 * format is METRICS_MIN_GAP_MS old or more, and resume the requests they
 * answer (and those that waited METRICS_WAIT_MS). Called by the tracing
 * loop. Returns 0 or SRC's error (the requests get the page before).
 */
int metrics_server__serve(struct metrics_server *s,
			  const struct metrics_source *src);

/*
 * Stop serving and free everything. The requests waiting get a page
 * written from LAST, the tool's final state (the last page when LAST is
 * NULL or fails, 503 before the first), and up to METRICS_CLOSE_WAIT_MS
 * to take it.
 */
void metrics_server__close(struct metrics_server *s,
			   const struct metrics_source *last);

#endif
