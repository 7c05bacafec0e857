// SPDX-License-Identifier: MIT
/*
 * The argument registers a morestack tail spills (x86/arg_spills.h), on
 * tails as gc writes them: the bytes below are what objdump shows of the
 * args fixture's (main.widthU8: movb %al / %bl; main.splitStruct: four
 * movq), and a float's movsd.
 */
#include <errno.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "x86/arg_spills.h"
#include "test.h"

TEST(spills_in_slot_order)
{
	static const uint8_t tail[] = {
		0x48, 0x89, 0x5c, 0x24, 0x10,		/* mov %rbx,0x10(%rsp) */
		0x48, 0x89, 0x44, 0x24, 0x08,		/* mov %rax,0x8(%rsp) */
		0x88, 0x4c, 0x24, 0x18,			/* mov %cl,0x18(%rsp) */
		0xf2, 0x0f, 0x11, 0x44, 0x24, 0x20,	/* movsd %xmm0,0x20(%rsp) */
		0x44, 0x89, 0x44, 0x24, 0x28,		/* mov %r8d,0x28(%rsp) */
		0x0f, 0x1f, 0x00,			/* nopl (%rax) */
		0xe8, 0x00, 0x00, 0x00, 0x00,		/* call */
	};
	struct arg_spill s[ARG_SPILLS_MAX];
	size_t n = 0;

	CHECK_EQ_INT(arg_spills__decode(tail, sizeof(tail), 0x1000, s, &n), 0);
	CHECK_EQ_INT(n, 5);
	if (n != 5)
		return;
	CHECK(s[0].reg == GO_REG_RAX && s[0].size == 8 && s[0].sp_offset == 8 &&
	      !s[0].xmm);
	CHECK(s[1].reg == GO_REG_RBX && s[1].size == 8 && s[1].sp_offset == 16);
	CHECK(s[2].reg == GO_REG_RCX && s[2].size == 1 && s[2].sp_offset == 24);
	CHECK(s[3].xmm && s[3].reg == 0 && s[3].size == 8 && s[3].sp_offset == 32);
	CHECK(s[4].reg == GO_REG_R8 && s[4].size == 4 && !s[4].xmm);
}

/* Anything else before the call, or no call: not read. */
TEST(not_a_tail)
{
	static const uint8_t other[] = {
		0x48, 0x89, 0x44, 0x24, 0x08,		/* mov %rax,0x8(%rsp) */
		0x48, 0x89, 0xc3,			/* mov %rax,%rbx */
		0xe8, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t no_call[] = {
		0x48, 0x89, 0x44, 0x24, 0x08,
	};
	static const uint8_t not_an_arg[] = {
		0x4c, 0x89, 0x74, 0x24, 0x08,		/* mov %r14,0x8(%rsp) */
		0xe8, 0x00, 0x00, 0x00, 0x00,
	};
	struct arg_spill s[ARG_SPILLS_MAX];
	size_t n;

	CHECK_EQ_INT(arg_spills__decode(other, sizeof(other), 0x1000, s, &n), -EINVAL);
	CHECK_EQ_INT(arg_spills__decode(no_call, sizeof(no_call), 0x1000, s, &n), -EINVAL);
	CHECK_EQ_INT(arg_spills__decode(not_an_arg, sizeof(not_an_arg), 0x1000, s, &n),
		     -EINVAL);
	gt_error_clear();
}

int main(void)
{
	RUN(spills_in_slot_order);
	RUN(not_a_tail);
	return TEST_SUMMARY();
}
