// SPDX-License-Identifier: MIT
/*
 * hit_cost: real uprobes in this process (root), timed. A hit costs
 * something; a single-stepped one costs more than an emulated one (a
 * second trap); neither costs a millisecond.
 */
#include "probe/hit_cost.h"
#include "test.h"

TEST(measures_both_kinds)
{
	struct hit_cost c = { 0 };

	CHECK_EQ_INT(hit_cost__measure(&c), 0);
	CHECK(c.emulated_ns > 0 && c.emulated_ns < 1e6);
	CHECK(c.stepped_ns > c.emulated_ns && c.stepped_ns < 1e6);
	printf("emulated %.0f ns, single-stepped %.0f ns\n", c.emulated_ns,
	       c.stepped_ns);
}

int main(void)
{
	RUN(measures_both_kinds);
	return TEST_SUMMARY();
}
