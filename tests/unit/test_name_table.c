// SPDX-License-Identifier: MIT
/*
 * name_table: distinct (name, tag) pairs numbered 0, 1, 2... in the order
 * first seen, the same index again for a pair seen before, and -ENOSPC
 * past the size the table was made for.
 */
#include <errno.h>
#include <stdio.h>
#include "core/name_table.h"
#include "test.h"

TEST(numbers_in_order_of_first_sight)
{
	struct name_table t;

	CHECK_EQ_INT(name_table__init(&t, 4), 0);
	CHECK_EQ_INT(name_table__index(&t, "main.a", 0), 0);
	CHECK_EQ_INT(name_table__index(&t, "main.b", 0), 1);
	CHECK_EQ_INT(name_table__index(&t, "main.a", 0), 0);
	CHECK_EQ_INT(name_table__index(&t, "main.b", 0), 1);
	CHECK_EQ_INT(t.n, 2);
	name_table__free(&t);
}

TEST(tag_makes_another_row)
{
	struct name_table t;

	CHECK_EQ_INT(name_table__init(&t, 4), 0);
	CHECK_EQ_INT(name_table__index(&t, "main.a", 0), 0);
	CHECK_EQ_INT(name_table__index(&t, "main.a", 1), 1);
	CHECK_EQ_INT(name_table__index(&t, "main.a", 1), 1);
	CHECK_EQ_INT(name_table__index(&t, "main.a", 0), 0);
	name_table__free(&t);
}

/* Equal names at other addresses are the same name. */
TEST(compares_text_not_pointers)
{
	char a[] = "fmt.Println", b[] = "fmt.Println";
	struct name_table t;

	CHECK_EQ_INT(name_table__init(&t, 2), 0);
	CHECK_EQ_INT(name_table__index(&t, a, 0), 0);
	CHECK_EQ_INT(name_table__index(&t, b, 0), 0);
	name_table__free(&t);
}

TEST(full)
{
	struct name_table t;

	CHECK_EQ_INT(name_table__init(&t, 2), 0);
	CHECK_EQ_INT(name_table__index(&t, "a", 0), 0);
	CHECK_EQ_INT(name_table__index(&t, "b", 0), 1);
	CHECK_EQ_INT(name_table__index(&t, "c", 0), -ENOSPC);
	CHECK_EQ_INT(name_table__index(&t, "a", 0), 0);
	name_table__free(&t);

	CHECK_EQ_INT(name_table__init(&t, 0), 0);
	CHECK_EQ_INT(name_table__index(&t, "a", 0), -ENOSPC);
	name_table__free(&t);
}

/* Many names, each twice, every other one tagged: all kept apart. */
TEST(many)
{
	enum { N = 20000 };
	static char names[N][16];
	struct name_table t;
	int i, bad = 0;

	CHECK_EQ_INT(name_table__init(&t, N), 0);
	for (i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "main.f%d", i / 2);
		bad += name_table__index(&t, names[i], i % 2) != i;
	}
	for (i = N - 1; i >= 0; i--)
		bad += name_table__index(&t, names[i], i % 2) != i;
	CHECK_EQ_INT(bad, 0);
	CHECK_EQ_INT(t.n, N);
	name_table__free(&t);
}

int main(void)
{
	RUN(numbers_in_order_of_first_sight);
	RUN(tag_makes_another_row);
	RUN(compares_text_not_pointers);
	RUN(full);
	RUN(many);
	return TEST_SUMMARY();
}
