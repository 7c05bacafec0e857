// SPDX-License-Identifier: MIT
/*
 * uprobe_insn: which x86-64 instructions the kernel lets a uprobe replace.
 * Expected answers come from the comments of arch/x86/kernel/uprobes.c
 * ("opcodes we'll probably never support", the bad prefixes), written out
 * here by hand, not from the bitmaps under test.
 */
#include <elf.h>
#include <stdlib.h>
#include <unistd.h>
#include "elf/elf_file.h"
#include "gobin/go_binary.h"
#include "x86/uprobe_insn.h"
#include "test.h"

/* An in-memory "ELF" whose only segment is CODE: elf_file__read_vaddr
 * needs an elf_file, so write a minimal one to a temporary file. */
static struct elf_file *elf_with_code(const uint8_t *code, size_t len)
{
	char path[] = "/tmp/test_uprobe_insn.XXXXXX";
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	struct elf_file *ef = NULL;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_offset = 0x1000;
	ph.p_vaddr = 0x401000;
	ph.p_filesz = len;
	ph.p_memsz = len;
	ph.p_align = 0x1000;
	if (pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, &ph, sizeof(ph), sizeof(eh)) != sizeof(ph) ||
	    pwrite(fd, code, len, 0x1000) != (ssize_t)len)
		goto out;
	if (elf_file__open(path, &ef))
		ef = NULL;
out:
	close(fd);
	unlink(path);
	return ef;
}

static int probeable(const uint8_t *code, size_t len)
{
	struct elf_file *ef = elf_with_code(code, len);
	int ok;

	if (!ef)
		return -1;
	ok = uprobe_insn__probeable(ef, 0x401000);
	elf_file__close(ef);
	return ok;
}

#define CASE(want, ...) do {						\
	const uint8_t c[] = { __VA_ARGS__ };				\
	int got = probeable(c, sizeof(c));				\
	if (got != (want)) {						\
		fprintf(stderr, "%s:%d: { %s }: got %d, want %d\n",	\
			__FILE__, __LINE__, #__VA_ARGS__, got, want);	\
		test_case_failed = 1;					\
	}								\
} while (0)

TEST(go_prologue_and_common)
{
	CASE(1, 0x49, 0x3b, 0x66, 0x10);	/* cmp 0x10(%r14),%rsp */
	CASE(1, 0x76, 0x2e);			/* jbe */
	CASE(1, 0x0f, 0x86, 0x10, 0x00, 0x00, 0x00);	/* jbe rel32 */
	CASE(1, 0x55);				/* push %rbp */
	CASE(1, 0x48, 0x89, 0xe5);		/* mov %rsp,%rbp */
	CASE(1, 0x48, 0x8d, 0x04, 0x18);	/* lea (%rax,%rbx),%rax */
	CASE(1, 0xc3);				/* ret */
	CASE(1, 0xe8, 0, 0, 0, 0);		/* call */
	CASE(1, 0x0f, 0x1f, 0x44, 0x00, 0x00);	/* nopl */
	CASE(1, 0x64, 0x48, 0x8b, 0x0c, 0x25, 0xf8, 0xff, 0xff, 0xff);
						/* mov %fs:-8,%rcx: fs is fine */
	CASE(1, 0xf3, 0x0f, 0x1e, 0xfa);	/* endbr64 */
}

TEST(refused)
{
	CASE(0, 0xcc);				/* int3 */
	CASE(0, 0xcd, 0x80);			/* int $0x80 */
	CASE(0, 0xf4);				/* hlt */
	CASE(0, 0xf0, 0x48, 0x0f, 0xb1, 0x0b);	/* lock cmpxchg */
	CASE(0, 0xf0, 0x80, 0x08, 0x01);	/* lock orb */
	CASE(0, 0x2e, 0x74, 0x02);		/* cs: (branch hint) je */
	CASE(0, 0x3e, 0x48, 0x8b, 0x00);	/* ds: mov */
	CASE(0, 0x0f, 0x05);			/* syscall */
	CASE(0, 0x0f, 0x0b);			/* ud2 */
	CASE(0, 0xec);				/* in (%dx),%al */
	CASE(0, 0xc5, 0xf8, 0x77);		/* vzeroupper (VEX) */
	CASE(0, 0x66, 0x0f, 0x38, 0x00, 0xc1);	/* pshufb: 3-byte opcode */
}

/* Opcode 90 with REX.B exchanges with r8: the kernel would skip it as a
 * nop (runtime.gcWriteBarrierR8 of Go 1.17 to 1.20 begins with 49 90).
 * Without REX.B, and the other exchanges with rax, it runs as it is. */
TEST(xchg_r8_is_no_nop)
{
	CASE(0, 0x49, 0x90);			/* xchg %rax,%r8 */
	CASE(0, 0x41, 0x90);			/* xchg %eax,%r8d */
	CASE(0, 0x4d, 0x90);			/* xchg %rax,%r8 (REX.WRB) */
	CASE(0, 0x66, 0x41, 0x90);		/* xchg %ax,%r8w */
	CASE(1, 0x90);				/* nop */
	CASE(1, 0x66, 0x90);			/* xchg %ax,%ax: a nop */
	CASE(1, 0x48, 0x90);			/* xchg %rax,%rax: a nop */
	CASE(1, 0xf3, 0x90);			/* pause: kept as a nop */
	CASE(1, 0x48, 0x91);			/* xchg %rax,%rcx */
	CASE(1, 0x49, 0x91);			/* xchg %rax,%r9: opcode 91 */
	CASE(1, 0x48, 0x87, 0xc1);		/* xchg %rax,%rcx (87 /r) */
	CHECK(!uprobe_insn__emulated((const uint8_t[]){ 0x49, 0x90 }, 2));
}

/* What the kernel emulates it has accepted first (uprobe_init_insn, then
 * branch_setup_xol_ops): func_probes takes an emulated site as probeable
 * without decoding it again. Every form uprobe_insn__emulated() knows. */
TEST(emulated_are_probeable)
{
	static const uint8_t prefixes[][2] = {
		{ 0 }, { 0x48 }, { 0xf2 }, { 0x64 }, { 0xf3, 0x48 },
	};
	uint8_t c[16];
	size_t p, n, k, nemulated = 0;
	unsigned int op;

	for (p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		for (op = 0; op < 0x200; op++) {
			n = 0;
			for (k = 0; k < 2 && prefixes[p][k]; k++)
				c[n++] = prefixes[p][k];
			if (op < 0x100) {
				c[n++] = op;
				/* a rel32, or a rel8 and 3 more bytes */
				memset(c + n, 0, 4);
				if (op == 0xe8 || op == 0xe9)
					n += 4;
				else if (op == 0xeb || (op >= 0x70 && op <= 0x7f))
					n += 1;
			} else {
				c[n++] = 0x0f;
				c[n++] = op & 0xff;
				memset(c + n, 0, 4);
				n += 4;
			}
			if (!uprobe_insn__emulated(c, n))
				continue;
			nemulated++;
			if (probeable(c, n) != 1) {
				fprintf(stderr, "%s:%d: emulated %02x %02x %02x is refused\n",
					__FILE__, __LINE__, c[0], c[1], c[2]);
				test_case_failed = 1;
			}
		}
	}
	/* jmp call jcc, nop, push: under each prefix that keeps them */
	CHECK(nemulated > 100);
	/* two-byte forms: nop, push r8-r15 */
	CASE(1, 0x66, 0x90);
	CASE(1, 0x41, 0x57);
}

int main(void)
{
	elf_version(EV_CURRENT);
	RUN(go_prologue_and_common);
	RUN(emulated_are_probeable);
	RUN(refused);
	RUN(xchg_r8_is_no_nop);
	return TEST_SUMMARY();
}
