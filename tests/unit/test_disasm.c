// SPDX-License-Identifier: MIT
/*
 * disasm: x86_insn__flow, the flow of an instruction from its capstone id
 * alone, must say what capstone's groups say (jump, call, ret, int, iret)
 * of every instruction of whole binaries, and of hand-assembled ones that
 * Go code rarely holds; x86_insn__writes_only_flags must never say so of
 * an instruction whose register access says otherwise; x86_insn__rel_target,
 * a branch's target read off its bytes, must be the target its operands
 * give wherever it reads one, and read one for most branches. The tools link a
 * diet capstone, without groups or access: this test links Debian's full
 * build of the same version (the Makefile).
 */
#include <stdint.h>
#include "elf/elf_file.h"
#include "gobin/go_binary.h"
#include "x86/disasm.h"
#include "test.h"

/* The flow capstone's groups give CI (decoded with operands). */
static enum x86_flow groups_flow(csh cs, const cs_insn *ci)
{
	if (cs_insn_group(cs, ci, X86_GRP_JUMP))
		return ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP ?
		       X86_FLOW_JMP : X86_FLOW_JCC;
	if (cs_insn_group(cs, ci, X86_GRP_CALL))
		return X86_FLOW_CALL;
	if (cs_insn_group(cs, ci, X86_GRP_RET) ||
	    cs_insn_group(cs, ci, X86_GRP_INT) ||
	    cs_insn_group(cs, ci, X86_GRP_IRET) ||
	    ci->id == X86_INS_UD2 || ci->id == X86_INS_HLT)
		return X86_FLOW_STOP;
	/* loop branches; capstone 5 leaves it out of its jump group */
	if (ci->id == X86_INS_LOOP || ci->id == X86_INS_LOOPE ||
	    ci->id == X86_INS_LOOPNE)
		return X86_FLOW_JCC;
	return X86_FLOW_PLAIN;
}

/* Does capstone's register access say CI writes no register but EFLAGS? */
static bool access_writes_only_flags(csh cs, const cs_insn *ci)
{
	const cs_x86 *x86 = &ci->detail->x86;
	cs_regs rd, wr;
	uint8_t nrd, nwr, i;

	/* capstone 5 has `test eax, imm32` (a9) write EAX: it only reads it
	 * (Intel SDM, TEST) */
	if (ci->id == X86_INS_TEST && x86->operands[0].type == X86_OP_REG &&
	    x86->operands[0].reg == X86_REG_EAX &&
	    x86->operands[1].type == X86_OP_IMM)
		return true;
	if (cs_regs_access(cs, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return false;
	for (i = 0; i < nwr; i++)
		if (wr[i] != X86_REG_EFLAGS)
			return false;
	return true;
}

/* Does x86_insn__rel_target agree with CI's operands (CI decoded with
 * them)? Counts the branches in *NBRANCH, those it read in *NREL. */
static bool rel_target_agrees(const cs_insn *ci, size_t *nbranch, size_t *nrel)
{
	uint64_t want, got;
	bool direct = x86_insn__direct_target(ci, &want);

	*nbranch += direct;
	if (!x86_insn__rel_target(ci, &got))
		return true;
	++*nrel;
	return direct && got == want;
}

/* Every instruction of every function of fixture NAME; returns how many
 * branches, calls and stops it met, and into *NFLAGS how many writers of
 * flags alone x86_insn__writes_only_flags knew. */
static size_t check_binary(const char *name, size_t *nflags)
{
	struct go_binary *bin = NULL;
	size_t i, nflow = 0, nbad = 0, nbranch = 0, nrel = 0;
	cs_insn *ci;
	csh cs;

	CHECK_EQ_INT(x86_disasm__handle(true, &cs), 0);
	CHECK_EQ_INT(go_binary__open(test_fixture(name), &bin), 0);
	if (!bin)
		return 0;
	ci = cs_malloc(cs);
	CHECK(ci != NULL);
	for (i = 0; ci && i < bin->nfuncs; i++) {
		const struct go_func *fn = &bin->funcs[i];
		size_t len = go_binary__func_span(bin, fn);
		const uint8_t *code;
		uint64_t addr = fn->addr;
		enum x86_flow want, got;

		if (elf_file__read_vaddr(bin->elf, fn->addr, len, &code))
			continue;
		while (len) {
			if (!cs_disasm_iter(cs, &code, &len, &addr, ci)) {
				code++, len--, addr++;	/* data: step over */
				continue;
			}
			if (!rel_target_agrees(ci, &nbranch, &nrel) && nbad++ < 5)
				fprintf(stderr, "%s: %s %s at 0x%llx: target read off its bytes wrong\n",
					name, ci->mnemonic, ci->op_str,
					(unsigned long long)ci->address);
			want = groups_flow(cs, ci);
			got = x86_insn__flow(ci->id);
			nflow += want != X86_FLOW_PLAIN;
			if (want != got && nbad++ < 5)
				fprintf(stderr, "%s: %s at 0x%llx: flow %d, groups say %d\n",
					name, ci->mnemonic,
					(unsigned long long)ci->address, got,
					want);
			if (!x86_insn__writes_only_flags(ci))
				continue;
			++*nflags;
			if (!access_writes_only_flags(cs, ci) && nbad++ < 5)
				fprintf(stderr, "%s: %s %s at 0x%llx writes a register\n",
					name, ci->mnemonic, ci->op_str,
					(unsigned long long)ci->address);
		}
	}
	CHECK_EQ_INT(nbad, 0);
	fprintf(stderr, "  %s: %zu of %zu direct branches read off their bytes\n",
		name, nrel, nbranch);
	/* nearly all of gc's and gcc's branches are plain rel8 or rel32
	 * (the others: loop, jrcxz, a prefix) */
	CHECK(nrel * 100 >= nbranch * 98);
	if (ci)
		cs_free(ci, 1);
	go_binary__close(bin);
	return nflow;
}

TEST(whole_binaries_agree_with_groups_and_access)
{
	size_t nflags = 0;

	/* a diet capstone would answer neither */
	CHECK(!cs_support(CS_SUPPORT_DIET));
	CHECK(check_binary("buf-1.75.0", &nflags) > 100000);
	CHECK(check_binary("esbuild-go1.15", &nflags) > 10000);
	CHECK(check_binary("count-go1.21-cgo", &nflags) > 1000);
	CHECK(check_binary("count-gccgo", &nflags) > 500);
	CHECK(nflags > 100000);
}

/* One instruction of BYTES: its flow by id, and by groups. */
static void check_bytes(const uint8_t *bytes, size_t n, enum x86_flow want)
{
	cs_insn *ci = NULL;
	csh cs;

	CHECK_EQ_INT(x86_disasm__handle(true, &cs), 0);
	CHECK_EQ_INT(cs_disasm(cs, bytes, n, 0x1000, 1, &ci), 1);
	if (!ci)
		return;
	CHECK_EQ_INT(ci->size, n);
	CHECK_EQ_INT(x86_insn__flow(ci->id), want);
	CHECK_EQ_INT(groups_flow(cs, ci), want);
	cs_free(ci, 1);
}

#define CASE(want, ...) do {						\
	static const uint8_t b[] = { __VA_ARGS__ };			\
	check_bytes(b, sizeof(b), want);				\
} while (0)

TEST(rare_instructions)
{
	CASE(X86_FLOW_JCC, 0xe2, 0xfe);			/* loop */
	CASE(X86_FLOW_JCC, 0xe1, 0xfe);			/* loope */
	CASE(X86_FLOW_JCC, 0xe3, 0x00);			/* jrcxz */
	CASE(X86_FLOW_JCC, 0xc7, 0xf8, 0, 0, 0, 0);	/* xbegin */
	CASE(X86_FLOW_JCC, 0x0f, 0x84, 0, 0, 0, 0);	/* je rel32 */
	CASE(X86_FLOW_JMP, 0xff, 0xe0);			/* jmp *%rax */
	CASE(X86_FLOW_JMP, 0xff, 0x28);			/* ljmp *(%rax) */
	CASE(X86_FLOW_CALL, 0xff, 0x18);		/* lcall *(%rax) */
	CASE(X86_FLOW_CALL, 0xe8, 0, 0, 0, 0);		/* call rel32 */
	CASE(X86_FLOW_STOP, 0xc2, 0x08, 0x00);		/* ret $8 */
	CASE(X86_FLOW_STOP, 0xcb);			/* lret */
	CASE(X86_FLOW_STOP, 0x48, 0xcf);		/* iretq */
	CASE(X86_FLOW_STOP, 0x0f, 0x05);		/* syscall */
	CASE(X86_FLOW_STOP, 0x0f, 0x34);		/* sysenter */
	CASE(X86_FLOW_STOP, 0x48, 0x0f, 0x07);		/* sysretq */
	CASE(X86_FLOW_STOP, 0xcc);			/* int3 */
	CASE(X86_FLOW_STOP, 0xcd, 0x80);		/* int $0x80 */
	CASE(X86_FLOW_STOP, 0x0f, 0x0b);		/* ud2 */
	CASE(X86_FLOW_STOP, 0xf4);			/* hlt */
	CASE(X86_FLOW_PLAIN, 0x0f, 0x01, 0xd0);		/* xgetbv */
	CASE(X86_FLOW_PLAIN, 0x90);			/* nop */
}

int main(void)
{
	elf_version(EV_CURRENT);
	RUN(whole_binaries_agree_with_groups_and_access);
	RUN(rare_instructions);
	return TEST_SUMMARY();
}
