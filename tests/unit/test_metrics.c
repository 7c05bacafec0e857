// SPDX-License-Identifier: MIT
/*
 * metrics, metrics_server: the page in Prometheus' text format 0.0.4 and
 * in OpenMetrics 1.0.0, written out by hand from the two specifications
 * (a counter family is NAME_total in the text format's TYPE line, NAME in
 * OpenMetrics'; its samples are NAME_total in both; OpenMetrics ends with
 * "# EOF"; label values escape \\, \" and \n), the buckets of a log2
 * histogram, content negotiation as Prometheus 2.42 asks, --prometheus's
 * addresses, and the server over a real loopback socket: pages written by
 * a loop in another thread, 404, 405, a request too large, a port in use.
 */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "core/error.h"
#include "cli/metrics.h"
#include "cli/metrics_server.h"
#include "test.h"

static char *secs(uint64_t ns)
{
	static char buf[32];

	return metrics__ns_seconds(buf, sizeof(buf), ns);
}

TEST(ns_seconds)
{
	CHECK_EQ_STR(secs(0), "0.0");
	CHECK_EQ_STR(secs(1), "0.000000001");
	CHECK_EQ_STR(secs(2048), "0.000002048");
	CHECK_EQ_STR(secs(1500000000), "1.5");
	CHECK_EQ_STR(secs(2000000000), "2.0");
	CHECK_EQ_STR(secs(UINT64_MAX), "18446744073.709551615");
}

static const struct metrics_label common[] = {
	{ "binary", "/srv/a \"b\"\\c\nd" },
	{ "pid", "42" },
};

/* A counter and a gauge, one sample each, in FORMAT. */
static char *counter_page(enum metrics_format format)
{
	struct metrics m;

	metrics__init(&m, format, common, 2);
	metrics__family(&m, "t_calls", METRICS_COUNTER, "Calls \"of\" a\\b");
	metrics__sample_begin(&m, NULL);
	metrics__label(&m, "function", "main.(*T).Foo");
	metrics__sample_end(&m, "7");
	metrics__family(&m, "t_functions", METRICS_GAUGE, "Functions");
	metrics__sample_u64(&m, "state", "traced", 3);
	if (metrics__finish(&m))
		return NULL;
	return m.buf;
}

TEST(counter_text)
{
	char *p = counter_page(METRICS_TEXT);

	CHECK_EQ_STR(p,
		"# HELP t_calls_total Calls \"of\" a\\\\b\n"
		"# TYPE t_calls_total counter\n"
		"t_calls_total{binary=\"/srv/a \\\"b\\\"\\\\c\\nd\",pid=\"42\",function=\"main.(*T).Foo\"} 7\n"
		"# HELP t_functions Functions\n"
		"# TYPE t_functions gauge\n"
		"t_functions{binary=\"/srv/a \\\"b\\\"\\\\c\\nd\",pid=\"42\",state=\"traced\"} 3\n");
	free(p);
}

TEST(counter_openmetrics)
{
	char *p = counter_page(METRICS_OPENMETRICS);

	CHECK_EQ_STR(p,
		"# HELP t_calls Calls \\\"of\\\" a\\\\b\n"
		"# TYPE t_calls counter\n"
		"t_calls_total{binary=\"/srv/a \\\"b\\\"\\\\c\\nd\",pid=\"42\",function=\"main.(*T).Foo\"} 7\n"
		"# HELP t_functions Functions\n"
		"# TYPE t_functions gauge\n"
		"t_functions{binary=\"/srv/a \\\"b\\\"\\\\c\\nd\",pid=\"42\",state=\"traced\"} 3\n"
		"# EOF\n");
	free(p);
}

/*
 * Microseconds (unit 1000 ns): slot 0 holds 0 and 1 us, slot 2 2-3 us,
 * slot 3 4-7 us, slot 10 512-1023 us. Buckets: below 2 us (slots 0, 1),
 * 4 us, 8 us, which reaches the largest bound asked for (8 us); slot 10
 * is in +Inf alone.
 */
TEST(histogram)
{
	uint64_t slots[64] = { [0] = 2, [2] = 3, [3] = 1, [10] = 1 };
	struct metrics m;

	metrics__init(&m, METRICS_TEXT, NULL, 0);
	metrics__family(&m, "t_seconds", METRICS_HISTOGRAM, "Latency");
	metrics__histogram(&m, "function", "f", slots, 64, 1000, 8000,
			   1234567);
	CHECK_EQ_INT(metrics__finish(&m), 0);
	CHECK_EQ_STR(m.buf,
		"# HELP t_seconds Latency\n"
		"# TYPE t_seconds histogram\n"
		"t_seconds_bucket{function=\"f\",le=\"0.000002\"} 2\n"
		"t_seconds_bucket{function=\"f\",le=\"0.000004\"} 5\n"
		"t_seconds_bucket{function=\"f\",le=\"0.000008\"} 6\n"
		"t_seconds_bucket{function=\"f\",le=\"+Inf\"} 7\n"
		"t_seconds_sum{function=\"f\"} 0.001234567\n"
		"t_seconds_count{function=\"f\"} 7\n");
	metrics__free(&m);
}

/* Nanoseconds: the last slot (2^62 ns and above, clamped) in +Inf alone,
 * no bound past what 64 bits hold. */
TEST(histogram_wide)
{
	uint64_t slots[64] = { [63] = 1 };
	struct metrics m;

	metrics__init(&m, METRICS_OPENMETRICS, NULL, 0);
	metrics__family(&m, "t_seconds", METRICS_HISTOGRAM, "Latency");
	metrics__histogram(&m, NULL, NULL, slots, 64, 1, UINT64_MAX, 0);
	CHECK_EQ_INT(metrics__finish(&m), 0);
	CHECK(strstr(m.buf, "t_seconds_bucket{le=\"4611686018.427387904\"} 0\n"
			    "t_seconds_bucket{le=\"+Inf\"} 1\n"));
	CHECK(!strstr(m.buf, "9223372036"));
	metrics__free(&m);
}

TEST(negotiate)
{
	/* what Prometheus 2.42 sends */
	CHECK_EQ_INT(metrics__negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
		     METRICS_OPENMETRICS);
	CHECK_EQ_INT(metrics__negotiate(NULL), METRICS_TEXT);
	CHECK_EQ_INT(metrics__negotiate("*/*"), METRICS_TEXT);
	CHECK_EQ_INT(metrics__negotiate("text/plain"), METRICS_TEXT);
	CHECK_EQ_INT(metrics__negotiate("application/openmetrics-text"),
		     METRICS_OPENMETRICS);
	CHECK_EQ_INT(metrics__negotiate("application/openmetrics-text; q=0.1, text/plain; q=0.5"),
		     METRICS_TEXT);
	CHECK_EQ_INT(metrics__negotiate("application/openmetrics-text;q=0, */*"),
		     METRICS_TEXT);
	CHECK_EQ_INT(metrics__negotiate("application/json"), METRICS_TEXT);
}

static int port_of(const struct metrics_addr *a)
{
	return a->ss.ss_family == AF_INET6 ?
	       ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port) :
	       ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
}

TEST(addr)
{
	static const char *const bad[] = {
		"", "abc", "99999", "-1", "+80", ":9100", "::1:9100",
		"[::1:9100", "[::1]", "host:", "1.2.3.4:x", "[]:80",
		" 9100", "9100 ", "0:9100", "01:80", "2130706433:80",
		"1.2.3:80",
	};
	struct metrics_addr a;
	size_t i;

	CHECK_EQ_INT(metrics_addr__parse(&a, "9100"), 0);
	CHECK_EQ_INT(a.ss.ss_family, AF_INET);
	CHECK_EQ_INT(port_of(&a), 9100);
	CHECK_EQ_INT(ntohl(((struct sockaddr_in *)&a.ss)->sin_addr.s_addr),
		     INADDR_LOOPBACK);
	CHECK_EQ_STR(a.text, "127.0.0.1:9100");
	CHECK_EQ_INT(metrics_addr__parse(&a, "0.0.0.0:0"), 0);
	CHECK_EQ_INT(port_of(&a), 0);
	CHECK_EQ_INT(metrics_addr__parse(&a, "[::1]:8080"), 0);
	CHECK_EQ_INT(a.ss.ss_family, AF_INET6);
	CHECK_EQ_INT(port_of(&a), 8080);
	CHECK_EQ_STR(a.text, "[::1]:8080");
	CHECK_EQ_INT(metrics_addr__parse(&a, "localhost:9"), 0);
	CHECK_EQ_INT(port_of(&a), 9);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (metrics_addr__parse(&a, bad[i]) != -EINVAL)
			fprintf(stderr, "accepted '%s'\n", bad[i]);
		CHECK(metrics_addr__parse(&a, bad[i]) == -EINVAL);
		CHECK(strstr(gt_last_error(), "--prometheus: "));
	}
}

/* The tracing loop of a tool, in a thread: pages of "t_calls" COUNT. */
struct loop {
	struct metrics_server *s;
	volatile int stop;
	int pages;
};

static int write_page(struct metrics *m, void *ctx)
{
	struct loop *l = ctx;

	l->pages++;
	metrics__family(m, "t_calls", METRICS_COUNTER, "Calls");
	metrics__sample_u64(m, "function", "main.f", l->pages);
	return 0;
}

static void *run_loop(void *arg)
{
	struct loop *l = arg;
	const struct metrics_source src = { .write = write_page, .ctx = l };

	while (!l->stop) {
		metrics_server__serve(l->s, &src);
		usleep(10000);
	}
	return NULL;
}

/* Send REQ to PORT on loopback, return all of the answer. */
static char *ask(int port, const char *req, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	static char buf[1 << 16];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (size_t sent = 0; sent < len; sent += n) {
		n = send(fd, req + sent, len - sent, MSG_NOSIGNAL);
		if (n <= 0)
			break;
	}
	while (got < sizeof(buf) - 1 &&
	       (n = recv(fd, buf + got, sizeof(buf) - 1 - got, 0)) > 0)
		got += n;
	buf[got] = '\0';
	close(fd);
	return buf;
}

static char *ask_str(int port, const char *req)
{
	return ask(port, req, strlen(req));
}

/* Scrapes at once: each its own answer. */
struct scrape {
	pthread_t thread;
	int port;
	bool ok;
	char text[4096];
};

static void *scrape_once(void *arg)
{
	struct scrape *sc = arg;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(sc->port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	char *buf = sc->text;
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == sizeof(req) - 1)
		while (got < sizeof(sc->text) - 1 &&
		       (n = recv(fd, buf + got, sizeof(sc->text) - 1 - got, 0)) > 0)
			got += n;
	buf[got] = '\0';
	sc->ok = strstr(buf, "HTTP/1.1 200") != NULL;
	if (fd >= 0)
		close(fd);
	return NULL;
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* A server on a free port of loopback into *S: its port, or -1. */
static int open_loopback(struct metrics_server **s)
{
	struct metrics_addr a;
	int port = -1;

	CHECK_EQ_INT(metrics_addr__parse(&a, "127.0.0.1:0"), 0);
	if (metrics_server__open(&a, s)) {
		fprintf(stderr, "%s\n", gt_last_error());
		return -1;
	}
	CHECK(sscanf(metrics_server__url(*s), "http://127.0.0.1:%d/metrics",
		     &port) == 1);
	return port;
}

TEST(server)
{
	struct loop l = { 0 };
	struct metrics_addr a;
	char again_addr[32];
	struct metrics_server *again;
	pthread_t thread;
	char *r, *big;
	int port;

	port = open_loopback(&l.s);
	if (port < 0) {
		CHECK(0);
		return;
	}
	pthread_create(&thread, NULL, run_loop, &l);

	r = ask_str(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(r && strstr(r, "HTTP/1.1 200"));
	CHECK(r && strstr(r, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
	CHECK(r && strstr(r, "# TYPE t_calls_total counter\nt_calls_total{function=\"main.f\"} 1\n"));
	/* a page newer than the request: the loop's second */
	r = ask_str(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		    "Accept: application/openmetrics-text;version=1.0.0\r\n\r\n");
	CHECK(r && strstr(r, "Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"));
	CHECK(r && strstr(r, "t_calls_total{function=\"main.f\"} 2\n# EOF\n"));
	r = ask_str(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(r && strstr(r, "HTTP/1.1 404"));
	r = ask_str(port, "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab");
	CHECK(r && strstr(r, "HTTP/1.1 405"));
	CHECK(r && strstr(r, "Allow: GET, HEAD\r\n"));
	/* a request larger than a connection may hold: refused, no page */
	big = malloc(METRICS_CONN_MEMORY * 4 + 64);
	if (big) {
		int n = sprintf(big, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");

		memset(big + n, 'a', METRICS_CONN_MEMORY * 4);
		strcpy(big + n + METRICS_CONN_MEMORY * 4, "\r\n\r\n");
		r = ask(port, big, strlen(big));
		CHECK(r && !strstr(r, "HTTP/1.1 200"));
		free(big);
	}
	/* still serving */
	r = ask_str(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
	CHECK(r && strstr(r, "HTTP/1.1 200"));
	/* twenty at once: answered together by a page or two (the loop
	 * writes one every 200 ms at most), not one after another (4 s) */
	{
		struct scrape sc[20];
		double t0 = mono_s();
		int i, ok = 0;

		for (i = 0; i < 20; i++) {
			sc[i] = (struct scrape){ .port = port };
			pthread_create(&sc[i].thread, NULL, scrape_once, &sc[i]);
		}
		for (i = 0; i < 20; i++) {
			pthread_join(sc[i].thread, NULL);
			ok += sc[i].ok;
		}
		CHECK_EQ_INT(ok, 20);
		if (mono_s() - t0 >= 1.5)
			fprintf(stderr, "20 scrapes at once took %.2f s\n", mono_s() - t0);
		CHECK(mono_s() - t0 < 1.5);
	}

	/* the same port again: a one-line reason */
	snprintf(again_addr, sizeof(again_addr), "127.0.0.1:%d", port);
	CHECK_EQ_INT(metrics_addr__parse(&a, again_addr), 0);
	CHECK_EQ_INT(metrics_server__open(&a, &again), -EADDRINUSE);
	CHECK(!again);
	CHECK(strstr(gt_last_error(), "cannot listen on 127.0.0.1:") &&
	      strstr(gt_last_error(), ": Address already in use"));

	l.stop = 1;
	pthread_join(thread, NULL);
	metrics_server__close(l.s, NULL);
}

/* A scrape waiting when the tool stops gets its final state, written at
 * close: not the page before, not 503 (the loop wrote none). */
TEST(server_close)
{
	struct loop l = { .pages = 41 };
	const struct metrics_source last = { .write = write_page, .ctx = &l };
	struct scrape sc = { 0 };
	int port;

	port = open_loopback(&l.s);
	if (port < 0) {
		CHECK(0);
		return;
	}
	sc.port = port;
	pthread_create(&sc.thread, NULL, scrape_once, &sc);
	usleep(300 * 1000);	/* asked, suspended: nothing serves */
	metrics_server__close(l.s, &last);
	pthread_join(sc.thread, NULL);
	CHECK(sc.ok);
	CHECK(strstr(sc.text, "t_calls_total{function=\"main.f\"} 42\n"));
	CHECK_EQ_INT(l.pages, 42);
}

int main(void)
{
	RUN(ns_seconds);
	RUN(counter_text);
	RUN(counter_openmetrics);
	RUN(histogram);
	RUN(histogram_wide);
	RUN(negotiate);
	RUN(addr);
	RUN(server);
	RUN(server_close);
	return TEST_SUMMARY();
}
