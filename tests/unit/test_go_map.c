// SPDX-License-Identifier: MIT
/*
 * go_map against real maps: the mapmem fixture (tests/fixtures/mapmem) builds
 * maps in a running Go program, prints where each header is and the
 * entries it holds (its own ground truth), and waits; go_map__entries walks
 * them out of the process's memory (/proc/PID/mem) and must find exactly
 * those entries. Go 1.19 and 1.23 lay maps out as buckets (hmap), 1.25 and
 * 1.27 as Swiss tables; a map of 3000 entries has many buckets (and may be
 * caught growing) or a directory of tables; keys of 160 bytes are stored
 * behind pointers.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "goabi/go_map.h"
#include "test.h"

#define MAX_ENTRIES	4096
#define MAX_READS	65536

struct fixture_map {
	char name[16];
	uint64_t addr, count, key_size;
	int64_t keys[MAX_ENTRIES], elems[MAX_ENTRIES];
	size_t n;
};

/* A running fixture, its maps, and the memory read out of it. */
struct proc {
	pid_t pid;
	int mem_fd, to_child;
	struct fixture_map maps[3];
	size_t nmaps;
	uint8_t *reads[MAX_READS];
	size_t nreads;
};

static struct fixture_map *map_named(struct proc *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		if (!strcmp(p->maps[i].name, name))
			return &p->maps[i];
	return NULL;
}

/* One line of the fixture's output. */
static void parse_line(struct proc *p, const char *line)
{
	struct fixture_map *m;
	char name[16];
	long long k, e;

	if (p->nmaps < 3 && sscanf(line, "map %15s %lli %llu %llu", name,
				   (long long *)&p->maps[p->nmaps].addr,
				   (unsigned long long *)&p->maps[p->nmaps].count,
				   (unsigned long long *)&p->maps[p->nmaps].key_size) == 4) {
		snprintf(p->maps[p->nmaps].name, sizeof(p->maps[0].name), "%s", name);
		p->nmaps++;
	} else if (sscanf(line, "entry %15s %lld %lld", name, &k, &e) == 3 &&
		   (m = map_named(p, name)) && m->n < MAX_ENTRIES) {
		m->keys[m->n] = k;
		m->elems[m->n++] = e;
	}
}

/* Run FIXTURE until it says "ready"; false when it could not. */
static bool proc_start(struct proc *p, const char *fixture)
{
	int in[2], out[2];
	char line[256], path[64];
	FILE *f;

	memset(p, 0, sizeof(*p));
	if (pipe(in) || pipe(out))
		return false;
	p->pid = fork();
	if (p->pid < 0)
		return false;
	if (!p->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(fixture, fixture, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->to_child = in[1];
	f = fdopen(out[0], "r");
	while (f && fgets(line, sizeof(line), f) && strcmp(line, "ready\n"))
		parse_line(p, line);
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/mem", p->pid);
	p->mem_fd = open(path, O_RDONLY);
	return p->mem_fd >= 0 && p->nmaps == 3;
}

static void proc_stop(struct proc *p)
{
	size_t i;

	close(p->to_child);
	if (p->mem_fd >= 0)
		close(p->mem_fd);
	waitpid(p->pid, NULL, 0);
	for (i = 0; i < p->nreads; i++)
		free(p->reads[i]);
}

/* go_map_read_fn over the fixture's memory; what is read stays until
 * proc_stop(). */
static int read_mem(void *ctx, uint64_t addr, uint64_t size,
		    const uint8_t **out)
{
	struct proc *p = ctx;
	uint8_t *b;

	if (p->nreads == MAX_READS || size > (1 << 24))
		return -ENODATA;
	b = malloc(size ? size : 1);
	if (!b)
		return -ENODATA;
	if (pread(p->mem_fd, b, size, (off_t)addr) != (ssize_t)size) {
		free(b);
		return -EFAULT;
	}
	p->reads[p->nreads++] = b;
	*out = b;
	return 0;
}

/* The entries go_map finds in FM, compared with the fixture's. */
static void check_map(struct proc *p, const struct fixture_map *fm, int minor,
		      const char *fixture)
{
	static struct go_map_entry got[MAX_ENTRIES];
	static bool seen[MAX_ENTRIES];
	struct go_type key_array, map = { .kind = GO_KIND_MAP, .size = 8,
					  .align = 8, .elem = &go_type_int64 };
	struct go_map_types mt;
	size_t n = 0, i, j, matched = 0;
	uint64_t count = 0;
	int64_t k, e;
	int err;

	if (fm->key_size == 8) {
		map.key = &go_type_int64;
	} else {
		CHECK_EQ_INT(go_type__init_array(&key_array, &go_type_int64, 20), 0);
		map.key = &key_array;
	}
	CHECK_EQ_INT(go_map_types__init(&mt, &map, minor), 0);
	CHECK_EQ_INT(mt.swiss, minor >= 24);
	CHECK_EQ_INT(mt.indirect_key, fm->key_size > GO_MAP_MAX_INLINE);
	err = go_map__entries(&mt, fm->addr, read_mem, p, got, MAX_ENTRIES,
			      &n, &count);
	if (err || count != fm->count || n != fm->n || n != count) {
		fprintf(stderr, "%s: map %s: error %d, count %llu of %llu, %zu entries of %zu\n",
			fixture, fm->name, err, (unsigned long long)count,
			(unsigned long long)fm->count, n, fm->n);
		test_case_failed = 1;
		return;
	}
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		memcpy(&k, got[i].key, sizeof(k));
		memcpy(&e, got[i].elem, sizeof(e));
		for (j = 0; j < fm->n; j++) {
			if (!seen[j] && fm->keys[j] == k && fm->elems[j] == e) {
				seen[j] = true;
				matched++;
				break;
			}
		}
	}
	if (matched != fm->n) {
		fprintf(stderr, "%s: map %s: %zu of %zu entries match the fixture's\n",
			fixture, fm->name, matched, fm->n);
		test_case_failed = 1;
	}
}

static void check_version(int minor)
{
	char fixture[64];
	struct proc *p = calloc(1, sizeof(*p));
	size_t i;

	snprintf(fixture, sizeof(fixture), "mapmem-go1.%d-default", minor);
	if (!p || !proc_start(p, test_fixture(fixture))) {
		fprintf(stderr, "%s: cannot run it and read its memory\n", fixture);
		test_case_failed = 1;
		if (p && p->pid > 0) {
			kill(p->pid, SIGKILL);
			proc_stop(p);
		}
		free(p);
		return;
	}
	for (i = 0; i < p->nmaps; i++)
		check_map(p, &p->maps[i], minor, fixture);
	/* what the fixture holds, lest a quiet fixture pass */
	CHECK_EQ_INT(map_named(p, "big") ? map_named(p, "big")->n : 0, 3000);
	proc_stop(p);
	free(p);
}

TEST(buckets_go1_19) { check_version(19); }
TEST(buckets_go1_23) { check_version(23); }
TEST(swiss_go1_25) { check_version(25); }
TEST(swiss_go1_27) { check_version(27); }

/* A map the program did not say it holds: its header unreadable. */
TEST(unreadable_header)
{
	struct go_type map = { .kind = GO_KIND_MAP, .size = 8, .align = 8,
			       .key = &go_type_int64, .elem = &go_type_int64 };
	struct proc p = { .mem_fd = open("/proc/self/mem", O_RDONLY) };
	struct go_map_entry got[1];
	struct go_map_types mt;
	uint64_t count = 1;
	size_t n = 1;

	CHECK_EQ_INT(go_map_types__init(&mt, &map, 27), 0);
	CHECK_EQ_INT(go_map__entries(&mt, 8, read_mem, &p, got, 1, &n, &count),
		     -EFAULT);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(count, 0);
	map.key = NULL;
	CHECK_EQ_INT(go_map_types__init(&mt, &map, 27), -EINVAL);
	close(p.mem_fd);
}

int main(void)
{
	RUN(buckets_go1_19);
	RUN(buckets_go1_23);
	RUN(swiss_go1_25);
	RUN(swiss_go1_27);
	RUN(unreadable_header);
	return TEST_SUMMARY();
}
