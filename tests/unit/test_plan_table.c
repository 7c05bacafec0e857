// SPDX-License-Identifier: MIT
/*
 * plan_table: equal plans get one index, distinct ones their own, in the
 * order first seen, also past the growth of the table; a difference in
 * the plan's last byte is a difference (past the entries in use, which
 * are all the hash covers: two plans of one hash, told apart).
 */
#include <string.h>
#include "trace/plan_table.h"
#include "test.h"

/* Plan I of a family of distinct plans. */
static void plan_numbered(struct trace_plan *plan, unsigned int i)
{
	memset(plan, 0, sizeof(*plan));
	plan->nwords = 1;
	plan->words[0].kind = WORD_MEM;
	plan->words[0].offset = (__s32)i;
}

TEST(distinct_and_equal)
{
	struct plan_table t = { 0 };
	struct trace_plan plan;
	uint32_t idx;
	unsigned int i;

	/* 1000 distinct plans: the table grows several times */
	for (i = 0; i < 1000; i++) {
		plan_numbered(&plan, i);
		idx = ~0u;
		CHECK_EQ_INT(plan_table__intern(&t, &plan, &idx), 0);
		if (idx != i) {
			CHECK_EQ_INT(idx, i);
			break;
		}
	}
	CHECK_EQ_INT(t.n, 1000);
	/* equal ones: the index first given, nothing added */
	for (i = 0; i < 1000; i += 7) {
		plan_numbered(&plan, i);
		CHECK_EQ_INT(plan_table__intern(&t, &plan, &idx), 0);
		CHECK_EQ_INT(idx, i);
	}
	CHECK_EQ_INT(t.n, 1000);
	CHECK(memcmp(&t.plans[999], &plan, sizeof(plan)) != 0);
	plan_numbered(&plan, 999);
	CHECK(memcmp(&t.plans[999], &plan, sizeof(plan)) == 0);
	plan_table__free(&t);
}

TEST(last_byte_counts)
{
	struct plan_table t = { 0 };
	struct trace_plan a, b;
	uint32_t ia = 0, ib = 0;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	b.vroots[TRACE_MAX_VROOTS - 1].vtype = 1u << 24;
	CHECK_EQ_INT(plan_table__intern(&t, &a, &ia), 0);
	CHECK_EQ_INT(plan_table__intern(&t, &b, &ib), 0);
	CHECK_EQ_INT(ia, 0);
	CHECK_EQ_INT(ib, 1);
	CHECK_EQ_INT(t.n, 2);
	plan_table__free(&t);
	CHECK(t.plans == NULL && t.n == 0);
}

int main(void)
{
	RUN(distinct_and_equal);
	RUN(last_byte_counts);
	return TEST_SUMMARY();
}
