/* SPDX-License-Identifier: MIT */
/*
 * What a command prints about a fixture (binutils' or Go's listing of it),
 * run once a fixture rather than once a test: the unit tests list the same
 * fixtures again and again, plain and under ASan, and objdump took a third
 * of their CPU. The output is kept in $GT_CACHE/listings
 * (/var/cache/gotools/listings) under the command, the fixture's identity
 * (device, inode, size, modification time: the fixtures there are hard
 * links of the cached builds) and the listing program's (its path and
 * modification time, so an upgraded objdump lists again). Only a command
 * whose output depends on nothing but the file and that program belongs
 * here. Without a cache directory it can write, the command just runs.
 * tests/run.sh deletes the listings no test read for two weeks.
 */
#ifndef GOTOOLS_TEST_CACHED_OUTPUT_H
#define GOTOOLS_TEST_CACHED_OUTPUT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"

/* HEADER, then what CMD prints, into a new file DST; false when CMD fails
 * or prints nothing. */
static inline bool cached_output__run(const char *cmd, const char *header,
				      const char *dst)
{
	char buf[65536];
	FILE *p, *f;
	size_t n, total = 0;
	bool ok;

	f = fopen(dst, "w");
	if (!f)
		return false;
	p = popen(cmd, "r");
	if (!p) {
		fclose(f);
		return false;
	}
	fputs(header, f);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		fwrite(buf, 1, n, f);
		total += n;
	}
	ok = pclose(p) == 0 && total > 0 && !ferror(f);
	return fclose(f) == 0 && ok;
}

/* Into OUT, where PROGRAM is: itself when it holds a '/', else the first
 * of $PATH's directories that has it; false when none does. */
static inline bool cached_output__which(const char *program, char *out,
					size_t len)
{
	const char *path = getenv("PATH"), *end;

	if (strchr(program, '/'))
		return (size_t)snprintf(out, len, "%s", program) < len;
	for (; path && *path; path = *end ? end + 1 : end) {
		end = strchrnul(path, ':');
		if ((size_t)snprintf(out, len, "%.*s/%s", (int)(end - path),
				     path, program) < len &&
		    !access(out, X_OK))
			return true;
	}
	return false;
}

/* The key of CMD's output: CMD with PATH replaced, and the identities of
 * PATH and PROGRAM; false when either cannot be read. */
static inline bool cached_output__key(const char *cmd, const char *path,
				      const char *program, char *key,
				      size_t len)
{
	struct stat file, prog;
	const char *at = strstr(cmd, path);
	char where[4096];
	int n;

	if (!at || stat(path, &file) ||
	    !cached_output__which(program, where, sizeof(where)) ||
	    stat(where, &prog))
		return false;
	n = snprintf(key, len,
		     "%.*s<FILE>%s\nfile %ju %ju %jd %jd.%09ld\n"
		     "program %s %jd.%09ld\n",
		     (int)(at - cmd), cmd, at + strlen(path),
		     (uintmax_t)file.st_dev, (uintmax_t)file.st_ino,
		     (intmax_t)file.st_size, (intmax_t)file.st_mtim.tv_sec,
		     file.st_mtim.tv_nsec, where,
		     (intmax_t)prog.st_mtim.tv_sec, prog.st_mtim.tv_nsec);
	return n > 0 && (size_t)n < len;
}

/* F, whose first lines must be KEY, past them; false when they are not. */
static inline bool cached_output__skip_key(FILE *f, const char *key)
{
	size_t len = strlen(key);
	char *got = malloc(len + 1);
	bool same = got && fread(got, 1, len, f) == len &&
		    !memcmp(got, key, len);

	free(got);
	return same;
}

/*
 * The output of CMD, a command that lists PATH with PROGRAM (a name found
 * in $PATH, or a path), to read and fclose(); NULL when CMD fails or
 * prints nothing.
 */
static inline FILE *cached_output__open(const char *cmd, const char *path,
					const char *program)
{
	char key[8192], dir[4096], file[4200], tmp[4300];
	uint64_t hash = 0xcbf29ce484222325ULL;	/* FNV-1a */
	FILE *f;
	int fd;

	if (!cached_output__key(cmd, path, program, key, sizeof(key)))
		return NULL;
	for (const char *c = key; *c; c++)
		hash = (hash ^ (unsigned char)*c) * 0x100000001b3ULL;
	snprintf(dir, sizeof(dir), "%s/listings", test_cache());
	snprintf(file, sizeof(file), "%s/%016" PRIx64, dir, hash);
	f = fopen(file, "r");
	if (f && cached_output__skip_key(f, key))
		return f;
	if (f)
		fclose(f);
	if (mkdir(dir, 0755) && access(dir, W_OK)) {
		/* no cache to write to: a file that goes when closed */
		snprintf(tmp, sizeof(tmp), "/tmp/gotools-listing.XXXXXX");
		fd = mkstemp(tmp);
		if (fd < 0)
			return NULL;
		close(fd);
		f = cached_output__run(cmd, "", tmp) ? fopen(tmp, "r") : NULL;
		unlink(tmp);
		return f;
	}
	/* written aside, then renamed: tests running at once may race here */
	snprintf(tmp, sizeof(tmp), "%s.%d", file, (int)getpid());
	if (!cached_output__run(cmd, key, tmp) || rename(tmp, file)) {
		unlink(tmp);
		return NULL;
	}
	f = fopen(file, "r");
	if (f && !cached_output__skip_key(f, key)) {
		fclose(f);
		return NULL;
	}
	return f;
}

#endif
