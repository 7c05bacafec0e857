// SPDX-License-Identifier: MIT
/*
 * gt_ensure_mem: how the capacity grows, that the elements survive it, and
 * that a size which overflows or cannot be had leaves the array as it was.
 */
#include <errno.h>
#include <stdint.h>
#include "core/error.h"
#include "core/mem.h"
#include "test.h"

/* Under ASan, a huge request must fail as it does in libc, not abort. */
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

TEST(appends_keep_elements)
{
	uint32_t *v = NULL;
	size_t cap = 0, n;
	int err = 0;

	for (n = 0; n < 10000 && !err; n++) {
		err = gt_ensure_mem((void **)&v, &cap, sizeof(*v), n + 1);
		if (!err)
			v[n] = (uint32_t)n * 7;
		CHECK(cap >= n + 1);
	}
	CHECK_EQ_INT(err, 0);
	for (n = 0; n < 10000 && !err; n++)
		if (v[n] != n * 7)
			break;
	CHECK_EQ_INT(n, 10000);
	free(v);
}

TEST(capacity_doubles)
{
	uint64_t *v = NULL, *before;
	size_t cap = 0;

	/* The first array holds 16, or what is needed. */
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v), 1), 0);
	CHECK_EQ_INT(cap, 16);
	/* Enough room: nothing moves. */
	before = v;
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v), 16), 0);
	CHECK(v == before);
	CHECK_EQ_INT(cap, 16);
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v), 17), 0);
	CHECK_EQ_INT(cap, 32);
	/* More than twice: exactly what is needed. */
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v), 100), 0);
	CHECK_EQ_INT(cap, 100);
	free(v);

	v = NULL;
	cap = 0;
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v), 1000), 0);
	CHECK_EQ_INT(cap, 1000);
	free(v);
}

TEST(overflow_is_refused)
{
	uint64_t *v = NULL, *before;
	size_t cap = 0;

	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v), 4), 0);
	before = v;
	gt_error_clear();
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, sizeof(*v),
				   SIZE_MAX / sizeof(*v) + 1), -ENOMEM);
	CHECK(strstr(gt_last_error(), "out of memory") != NULL);
	CHECK(v == before);
	CHECK_EQ_INT(cap, 16);
	/* Elements so large that 16 of them overflow: as many as fit, which
	 * no allocator gives. */
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, SIZE_MAX / 4, 17),
		     -ENOMEM);
	CHECK(v == before);
	CHECK_EQ_INT(cap, 16);
	free(v);
}

TEST(failed_realloc_keeps_array)
{
	uint8_t *v = NULL, *before;
	size_t cap = 0;

	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, 1, 3), 0);
	memcpy(v, "go", 3);
	before = v;
	gt_error_clear();
	/* 1 PiB: more than any test machine gives. */
	CHECK_EQ_INT(gt_ensure_mem((void **)&v, &cap, 1, (size_t)1 << 50),
		     -ENOMEM);
	CHECK(strstr(gt_last_error(), "out of memory") != NULL);
	CHECK(v == before);
	CHECK_EQ_INT(cap, 16);
	CHECK_EQ_STR((char *)v, "go");
	free(v);
}

int main(void)
{
	RUN(appends_keep_elements);
	RUN(capacity_doubles);
	RUN(overflow_is_refused);
	RUN(failed_realloc_keeps_array);
	return TEST_SUMMARY();
}
