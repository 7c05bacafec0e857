// SPDX-License-Identifier: MIT
/*
 * Resolve what to probe: a path, /proc/PID/exe, or a library by short name
 * ("go" -> libgo.so.21) the way bcc does: the process's mappings first, then
 * the dynamic linker's cache, then the standard library directories.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "core/error.h"
#include "probe/target.h"

#define LD_SO_CACHE "/etc/ld.so.cache"
#define CACHE_MAGIC "glibc-ld.so.cache1.1"

/* glibc's struct cache_file_new and struct file_entry_new */
struct cache_header {
	char magic[sizeof(CACHE_MAGIC) - 1];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t extension_offset;
	uint32_t unused[3];
};

struct cache_entry {
	int32_t flags;
	uint32_t key, value;	/* string offsets from the cache start */
	uint32_t osversion;
	uint64_t hwcap;
};

#define CACHE_FLAG_TYPE_MASK	0x00ff
#define CACHE_FLAG_ELF_LIBC6	0x0003
#define CACHE_FLAG_ARCH_MASK	0xff00
#if defined(__x86_64__)
#define CACHE_FLAG_ARCH		0x0300	/* FLAG_X8664_LIB64 */
#define MULTIARCH		"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define CACHE_FLAG_ARCH		0x0a00	/* FLAG_AARCH64_LIB64 */
#define MULTIARCH		"aarch64-linux-gnu"
#else
#error "unsupported architecture"
#endif

static const char *const lib_dirs[] = {
	"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH,
	"/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

int target__pid_alive(pid_t pid)
{
	if (pid <= 0)
		return 0;
	return kill(pid, 0) == 0 || errno == EPERM;
}

static int copy_path(char *path, size_t len, const char *a, const char *b)
{
	if ((size_t)snprintf(path, len, "%s%s", a, b) >= len)
		return gt_error(-ENAMETOOLONG, "path too long: %s%s", a, b);
	return 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Does file name BASE name library NAME: libNAME.so... or libNAME-...? */
static bool lib_matches(const char *base, const char *name, bool dash)
{
	size_t n = strlen(name);

	if (strncmp(base, "lib", 3) != 0 || strncmp(base + 3, name, n) != 0)
		return false;
	base += 3 + n;
	return strncmp(base, ".so", 3) == 0 || (dash && *base == '-');
}

/*
 * Scan /proc/PID/maps for a mapped file: the path equal to WANT, or else a
 * library matching short name LIB. Copies it to OUT; returns 0 or -ENOENT.
 */
static int maps_find(pid_t pid, const char *want, const char *lib,
		     char *out, size_t len)
{
	char maps[64], *line = NULL, *file, *base;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int err = -ENOENT;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f) {
		err = errno;
		if (err == ENOENT)
			return gt_error(-ESRCH, "no such process: %d", (int)pid);
		return gt_error(-err, "cannot read %s: %s", maps,
				strerror(err));
	}
	while (err == -ENOENT && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		/* address perms offset dev inode path */
		file = strchr(line, '/');
		if (!file)
			continue;
		base = strrchr(file, '/') + 1;
		if ((want && strcmp(file, want) == 0) ||
		    (lib && lib_matches(base, lib, true))) {
			if (strlen(file) >= len)
				err = gt_error(-ENAMETOOLONG,
					       "path too long: %s", file);
			else
				err = 0, strcpy(out, file);
		}
	}
	free(line);
	fclose(f);
	return err;
}

/* Look library NAME up in /etc/ld.so.cache, as the dynamic linker would. */
static int ld_cache_find(const char *name, char *path, size_t len)
{
	const struct cache_header *h;
	const struct cache_entry *e;
	const char *map, *key, *value;
	struct stat st;
	size_t size, i;
	int fd, err = -ENOENT;

	fd = open(LD_SO_CACHE, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		return -ENOENT;
	}
	size = st.st_size;
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -ENOENT;
	h = (const struct cache_header *)map;
	if (memcmp(h->magic, CACHE_MAGIC, sizeof(h->magic)) != 0 ||
	    h->nlibs > (size - sizeof(*h)) / sizeof(*e))
		goto out;
	e = (const struct cache_entry *)(h + 1);
	for (i = 0; i < h->nlibs && err == -ENOENT; i++, e++) {
		if ((e->flags & CACHE_FLAG_TYPE_MASK) != CACHE_FLAG_ELF_LIBC6 ||
		    (e->flags & CACHE_FLAG_ARCH_MASK) != CACHE_FLAG_ARCH ||
		    e->key >= size || e->value >= size)
			continue;
		key = map + e->key;
		value = map + e->value;
		/* the strings must end inside the file */
		if (!memchr(key, '\0', size - e->key) ||
		    !memchr(value, '\0', size - e->value))
			continue;
		if (lib_matches(key, name, false) && is_file(value))
			err = copy_path(path, len, value, "");
	}
out:
	munmap((void *)map, size);
	return err;
}

/* libNAME.so* in the standard directories; the shortest name wins, so
 * libNAME.so beats libNAME.so.6 when both exist. */
static int lib_dirs_find(const char *name, char *path, size_t len)
{
	char best[256] = "";
	struct dirent *d;
	size_t i;
	DIR *dir;

	for (i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]); i++) {
		dir = opendir(lib_dirs[i]);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			if (!lib_matches(d->d_name, name, false) ||
			    strlen(d->d_name) >= sizeof(best))
				continue;
			if (!best[0] || strlen(d->d_name) < strlen(best) ||
			    (strlen(d->d_name) == strlen(best) &&
			     strcmp(d->d_name, best) < 0))
				strcpy(best, d->d_name);
		}
		closedir(dir);
		if (best[0]) {
			if ((size_t)snprintf(path, len, "%s/%s", lib_dirs[i],
					     best) >= len)
				return gt_error(-ENAMETOOLONG,
						"path too long: %s/%s",
						lib_dirs[i], best);
			return 0;
		}
	}
	return -ENOENT;
}

static int resolve_path(const char *binary, pid_t pid, char *path, size_t len)
{
	char root[64], mapped[4096];
	int err;

	if (pid && binary[0] == '/') {
		err = maps_find(pid, binary, NULL, mapped, sizeof(mapped));
		if (err != -ENOENT) {
			if (err)
				return err;
			snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
			return copy_path(path, len, root, binary);
		}
	}
	if (access(binary, F_OK))
		return gt_error(-ENOENT, "no such file: %s", binary);
	return copy_path(path, len, binary, "");
}

static int resolve_short(const char *name, pid_t pid, char *path, size_t len)
{
	char root[64], mapped[4096];
	int err;

	if (pid) {
		err = maps_find(pid, NULL, name, mapped, sizeof(mapped));
		if (err != -ENOENT) {
			if (err)
				return err;
			snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
			return copy_path(path, len, root, mapped);
		}
	}
	if (is_file(name))
		return copy_path(path, len, name, "");
	err = ld_cache_find(name, path, len);
	if (err == -ENOENT)
		err = lib_dirs_find(name, path, len);
	if (err == -ENOENT)
		return gt_error(-ENOENT,
				"no such file, and no library lib%s.so found: %s",
				name, name);
	return err;
}

int target__resolve(const char *binary, pid_t pid, char *path, size_t len)
{
	char exe[64];

	if (pid < 0)
		return gt_error(-EINVAL, "invalid process id: %d", (int)pid);
	if (pid && !target__pid_alive(pid))
		return gt_error(-ESRCH, "no such process: %d", (int)pid);
	if (!binary || !binary[0]) {
		if (!pid)
			return gt_error(-EINVAL, "no binary and no process given");
		/* the exe link opens the right file across mount namespaces */
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
		return copy_path(path, len, exe, "");
	}
	if (strchr(binary, '/'))
		return resolve_path(binary, pid, path, len);
	return resolve_short(binary, pid, path, len);
}

int target__load_bias(pid_t pid, const char *path, uint64_t first_vaddr,
		      uint64_t *bias)
{
	unsigned long long start, offset, inode;
	unsigned int dev_major, dev_minor;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char maps[64], *line = NULL, *file;
	size_t cap = 0;
	struct stat st;
	int err = -ENOENT;
	FILE *f;

	if (stat(path, &st))
		return gt_error(-errno, "cannot stat %s: %s", path, strerror(errno));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return gt_error(-ESRCH, "no such process: %d", (int)pid);
	/* address perms offset dev inode path; the mapping of file offset 0
	 * holds the first segment */
	while (err == -ENOENT && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%llx-%*x %*s %llx %x:%x %llu", &start, &offset,
			   &dev_major, &dev_minor, &inode) != 5)
			continue;
		/* overlayfs shows another device in maps than stat() does:
		 * the inode and the file name must both match then */
		file = strrchr(line, '/');
		if (inode == st.st_ino && offset == 0 &&
		    ((dev_major == major(st.st_dev) && dev_minor == minor(st.st_dev)) ||
		     (file && !strcmp(file + 1, base)))) {
			*bias = start - (first_vaddr & ~0xfffULL);
			err = 0;
		}
	}
	free(line);
	fclose(f);
	if (err)
		return gt_error(err, "process %d has not mapped %s", (int)pid, path);
	return 0;
}
