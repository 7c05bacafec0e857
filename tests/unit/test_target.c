// SPDX-License-Identifier: MIT
/*
 * target: paths checked against what the dynamic linker really loaded into
 * this test (dladdr, /proc/self/exe) and against the fixture's libgo.
 */
#include <dlfcn.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/error.h"
#include "probe/target.h"
#include "test.h"

static bool same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	if (!realpath(a, ra) || !realpath(b, rb)) {
		fprintf(stderr, "cannot resolve %s or %s\n", a, b);
		return false;
	}
	if (strcmp(ra, rb) != 0)
		fprintf(stderr, "%s is %s, expected %s\n", a, ra, rb);
	return strcmp(ra, rb) == 0;
}

/* The libc this test runs with, as the dynamic linker loaded it. */
static const char *loaded_libc(void)
{
	Dl_info info;

	/* a function sanitizers do not intercept in the executable */
	if (!dladdr((void *)gnu_get_libc_version, &info) || !info.dli_fname)
		return "";
	return info.dli_fname;
}

static pid_t dead_pid(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	return pid;
}

TEST(pid)
{
	char path[PATH_MAX], want[64];
	pid_t dead = dead_pid();

	CHECK_EQ_INT(target__pid_alive(getpid()), 1);
	CHECK_EQ_INT(target__pid_alive(1), 1);
	CHECK_EQ_INT(target__pid_alive(dead), 0);
	CHECK_EQ_INT(target__pid_alive(0), 0);

	CHECK_EQ_INT(target__resolve(NULL, getpid(), path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "/proc/%d/exe", (int)getpid());
	CHECK_EQ_STR(path, want);
	CHECK(same_file(path, "/proc/self/exe"));

	CHECK_EQ_INT(target__resolve(NULL, dead, path, sizeof(path)), -ESRCH);
	snprintf(want, sizeof(want), "no such process: %d", (int)dead);
	CHECK_EQ_STR(gt_last_error(), want);
	CHECK_EQ_INT(target__resolve("c", dead, path, sizeof(path)), -ESRCH);
	CHECK_EQ_INT(target__resolve(NULL, 0, path, sizeof(path)), -EINVAL);
	CHECK_EQ_INT(target__resolve(NULL, -5, path, sizeof(path)), -EINVAL);
}

TEST(paths)
{
	char exe[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 64];

	CHECK(realpath("/proc/self/exe", exe) != NULL);
	CHECK_EQ_INT(target__resolve(exe, 0, path, sizeof(path)), 0);
	CHECK_EQ_STR(path, exe);
	/* mapped into the process: reached through its root */
	CHECK_EQ_INT(target__resolve(exe, getpid(), path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "/proc/%d/root%s", (int)getpid(), exe);
	CHECK_EQ_STR(path, want);
	CHECK(same_file(path, exe));
	/* not mapped: the path as given */
	CHECK_EQ_INT(target__resolve("/bin/sh", getpid(), path, sizeof(path)),
		     0);
	CHECK_EQ_STR(path, "/bin/sh");

	CHECK_EQ_INT(target__resolve("/no/such/bin", 0, path, sizeof(path)),
		     -ENOENT);
	CHECK(strstr(gt_last_error(), "/no/such/bin") != NULL);
	CHECK_EQ_INT(target__resolve(exe, 0, path, 4), -ENAMETOOLONG);
}

TEST(short_names)
{
	char path[PATH_MAX], want[PATH_MAX], libgo[PATH_MAX] = "";
	const char *libc = loaded_libc();

	CHECK(libc[0] == '/');
	/* from ld.so.cache */
	CHECK_EQ_INT(target__resolve("c", 0, path, sizeof(path)), 0);
	CHECK(strstr(path, "/libc.so") != NULL);
	CHECK(same_file(path, libc));
	/* from this process's mappings */
	CHECK_EQ_INT(target__resolve("c", getpid(), path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "/proc/%d/root/", (int)getpid());
	CHECK(strncmp(path, want, strlen(want)) == 0);
	CHECK(same_file(path, libc));

	/* libgo, as count-gccgo loads it */
	CHECK(test_libgo_path(libgo, sizeof(libgo)));
	CHECK_EQ_INT(target__resolve("go", 0, path, sizeof(path)), 0);
	CHECK(libgo[0] && same_file(path, libgo));

	CHECK_EQ_INT(target__resolve("nosuchlibrary", 0, path, sizeof(path)),
		     -ENOENT);
	CHECK(strstr(gt_last_error(), "nosuchlibrary") != NULL);
	CHECK_EQ_INT(target__resolve("nosuchlibrary", getpid(), path,
				     sizeof(path)), -ENOENT);
}

TEST(current_directory)
{
	char dir[] = "/tmp/test_target.XXXXXX", old[PATH_MAX], path[64];
	FILE *f;

	CHECK(getcwd(old, sizeof(old)) != NULL);
	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ_INT(chdir(dir), 0);
	f = fopen("myprog", "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_EQ_INT(target__resolve("myprog", 0, path, sizeof(path)), 0);
	CHECK_EQ_STR(path, "myprog");
	CHECK_EQ_INT(unlink("myprog"), 0);
	CHECK_EQ_INT(target__resolve("myprog", 0, path, sizeof(path)),
		     -ENOENT);
	CHECK_EQ_INT(chdir(old), 0);
	CHECK_EQ_INT(rmdir(dir), 0);
}

int main(void)
{
	RUN(pid);
	RUN(paths);
	RUN(short_names);
	RUN(current_directory);
	return TEST_SUMMARY();
}
