// SPDX-License-Identifier: MIT
/*
 * The kernel's xchg-as-nop, reproduced: exchange() runs xchg %rax,%r8
 * (49 90) at the symbol xchg_r8_site with rax = 1 and r8 = 2, and returns
 * r8, which is 1 when the exchange happened. The program calls it N times
 * and prints "N calls, M without the exchange". Run it with a uprobe on
 * xchg_r8_site: up to Linux 6.18 the kernel takes the instruction for a
 * nop (its opcode byte is 0x90) and steps over it, so M == N.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t exchange(void);
__asm__(".pushsection .text\n"
	".globl exchange\n"
	".type exchange, @function\n"
	"exchange:\n"
	"	mov $1, %rax\n"
	"	mov $2, %r8\n"
	".globl xchg_r8_site\n"
	"xchg_r8_site:\n"
	"	.byte 0x49, 0x90\n"	/* xchg %rax,%r8 */
	"	mov %r8, %rax\n"
	"	ret\n"
	".size exchange, .-exchange\n"
	".popsection\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, lost = 0, i;

	for (i = 0; i < n; i++)
		lost += exchange() != 1;
	printf("%ld calls, %ld without the exchange\n", n, lost);
	return 0;
}
