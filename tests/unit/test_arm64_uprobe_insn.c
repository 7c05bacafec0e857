// SPDX-License-Identifier: MIT
/*
 * arm64/uprobe_insn: which arm64 instructions the kernel refuses to probe
 * and which it simulates. The expected answers are arm_probe_decode_insn()'s
 * (arch/arm64/kernel/probes/decode-insn.c), written out by hand per
 * instruction, not from the masks under test; the encodings are llvm-mc's
 * (`llvm-mc -triple=aarch64 -mattr=+v8.5a,+lse -show-encoding`). Then the
 * probe site machine_code.h gives every function of the arm64 count
 * fixtures: one the kernel takes, simulated where site/ says so, and its
 * cookie's skip field, which BPF tests against PSTATE; and every inlined
 * copy's first instruction, which runs once per call (not in a sequence
 * Go's async preemption restarts, restart_runs.h, but as its last).
 */
#include <elf.h>
#include "arm64/probe_site.h"
#include "arm64/uprobe_insn.h"
#include "cookie.h"
#include "gobin/go_binary.h"
#include "probe/func_probes.h"
#include "probe/machine_code.h"
#include "go_fixture.h"
#include "restart_runs.h"
#include "test.h"

enum verdict { REFUSED, STEPPED, SIMULATED };

static const struct {
	uint32_t word;
	const char *text;
	enum verdict v;
} insns[] = {
	/* Go's prologue and frame */
	{ 0xf9400b90, "ldr x16, [x28, #16]", STEPPED },
	{ 0xeb3063ff, "cmp sp, x16", STEPPED },
	{ 0x54000069, "b.ls #12", SIMULATED },
	{ 0xf81f0ffe, "str x30, [sp, #-16]!", STEPPED },
	{ 0x910003fd, "mov x29, sp", STEPPED },
	{ 0x8b020020, "add x0, x1, x2", STEPPED },
	/* branches: simulated, but those that authenticate */
	{ 0xd65f03c0, "ret", SIMULATED },
	{ 0x94000002, "bl #8", SIMULATED },
	{ 0xb4000040, "cbz x0, #8", SIMULATED },
	{ 0x37180040, "tbnz w0, #3, #8", SIMULATED },
	{ 0xd61f0020, "br x1", SIMULATED },
	{ 0xd63f0020, "blr x1", SIMULATED },
	{ 0xd65f0bff, "retaa", REFUSED },
	{ 0xd71f0801, "braa x0, x1", REFUSED },
	{ 0xd69f03e0, "eret", REFUSED },
	/* PC-relative: simulated, but PRFM and the FP/SIMD load */
	{ 0x58000040, "ldr x0, #8", SIMULATED },
	{ 0x98000040, "ldrsw x0, #8", SIMULATED },
	{ 0xb0000000, "adrp x0, #4096", SIMULATED },
	{ 0x10000040, "adr x0, #8", SIMULATED },
	{ 0xd8000040, "prfm pldl1keep, #8", REFUSED },
	{ 0x5c000040, "ldr d0, #8", REFUSED },
	/* exceptions and system registers */
	{ 0xd4000001, "svc #0", REFUSED },
	{ 0xd4200000, "brk #0", REFUSED },
	{ 0xd53bd040, "mrs x0, tpidr_el0", REFUSED },
	{ 0xd53b4220, "mrs x0, daif", STEPPED },
	{ 0xd51bd040, "msr tpidr_el0, x0", REFUSED },
	{ 0xd50342df, "msr daifset, #2", REFUSED },
	{ 0xd5033bbf, "dmb ish", STEPPED },
	/* hints: NOP, PAC and BTI only */
	{ 0xd503201f, "nop", STEPPED },
	{ 0xd503233f, "paciasp", STEPPED },
	{ 0xd503245f, "bti c", STEPPED },
	{ 0xd503203f, "yield", REFUSED },
	{ 0xd503205f, "wfe", REFUSED },
	/* exclusive and ordered loads and stores (the kernel's load_ex and
	 * store_ex masks take CAS in too), but not LSE's atomics */
	{ 0x885ffc20, "ldaxr w0, [x1]", REFUSED },
	{ 0xc802fc20, "stlxr w2, x0, [x1]", REFUSED },
	{ 0xc85f7c20, "ldxr x0, [x1]", REFUSED },
	{ 0xc8dffc20, "ldar x0, [x1]", REFUSED },
	{ 0xc89ffc20, "stlr x0, [x1]", REFUSED },
	{ 0xc8e0fc41, "casal x0, x1, [x2]", REFUSED },
	{ 0xf8e00041, "ldaddal x0, x1, [x2]", STEPPED },
};

TEST(the_kernels_verdicts)
{
	size_t i;

	for (i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		bool probeable = arm64_uprobe_insn__probeable(insns[i].word);
		bool simulated = arm64_uprobe_insn__simulated(insns[i].word);

		if (probeable != (insns[i].v != REFUSED) ||
		    simulated != (insns[i].v == SIMULATED)) {
			fprintf(stderr, "%s (%08x): probeable %d simulated %d\n",
				insns[i].text, insns[i].word, probeable,
				simulated);
			CHECK(0);
		}
	}
}

/* How bpf/arm64/regs.bpf.h's MORESTACK_TAKEN reads a cookie's skip field:
 * taken when some flag of the low four differs from what the call needs,
 * which is clear for those of the high four and set for the others. */
static bool taken_by_cookie(uint32_t pstate, uint16_t skip)
{
	return ((pstate >> PSTATE_NZCV_SHIFT ^ skip >> 4) & skip & 0xf) != 0;
}

/* b.ls: taken on C clear or Z set, over all 16 NZCV values; b.lo on C
 * clear alone; x86's jbe as EFLAGS holds it. */
TEST(cookie_skip_says_when_the_branch_is_taken)
{
	struct probe_site ls = {
		.skip_flags = ARM64_PSTATE_C | ARM64_PSTATE_Z,
		.skip_clear = ARM64_PSTATE_C,
	};
	struct probe_site lo = {
		.skip_flags = ARM64_PSTATE_C,
		.skip_clear = ARM64_PSTATE_C,
	};
	struct probe_site jbe = { .skip_flags = EFLAGS_CF | EFLAGS_ZF };
	uint32_t nzcv;

	for (nzcv = 0; nzcv < 16; nzcv++) {
		uint32_t pstate = nzcv << PSTATE_NZCV_SHIFT;
		bool c = pstate & ARM64_PSTATE_C, z = pstate & ARM64_PSTATE_Z;

		CHECK_EQ_INT(taken_by_cookie(pstate,
					     probe_site__cookie_skip(&ls)),
			     !c || z);
		CHECK_EQ_INT(taken_by_cookie(pstate,
					     probe_site__cookie_skip(&lo)), !c);
	}
	CHECK_EQ_INT(probe_site__cookie_skip(&jbe), EFLAGS_CF | EFLAGS_ZF);
}

/* Every function of the arm64 count fixtures (default, PIE and cgo, the
 * C functions of cgo's included): its site, as the tools ask for it, is
 * one the kernel takes (their code has no instruction it refuses where a
 * site goes), simulated exactly where site/ says, and a stack check's
 * skip field says b.ls. */
TEST(every_site_of_the_arm64_fixtures)
{
	static const int versions[] = { 19, 21, 23, 25, 27 };
	static const char *const forms[] = { "", "-pie", "-cgo" };
	size_t v, m, i;
	char name[64];

	for (v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		for (m = 0; m < sizeof(forms) / sizeof(forms[0]); m++) {
			size_t checks = 0, simulated = 0, refused = 0;
			struct go_binary *bin;

			snprintf(name, sizeof(name), "count-go1.%d-arm64%s",
				 versions[v], forms[m]);
			bin = go_fixture__open(name, true);
			CHECK(bin != NULL);
			if (!bin)
				continue;
			CHECK_EQ_INT(bin->elf->machine, EM_AARCH64);
			for (i = 0; i < bin->nfuncs; i++) {
				struct probe_site s;

				if (!bin->funcs[i].size ||
				    machine_code__probe_site(bin, &bin->funcs[i],
							     &s))
					continue;
				if (!machine_code__probeable(bin->elf, s.addr)) {
					fprintf(stderr, "%s: %s at 0x%llx refused\n",
						name, bin->funcs[i].name,
						(unsigned long long)s.addr);
					refused++;
				}
				CHECK_EQ_INT(machine_code__emulated_at(bin->elf,
								       s.addr),
					     s.emulated);
				if (s.kind == PROBE_SITE_STACK_CHECK) {
					checks++;
					CHECK(probe_site__cookie_skip(&s) == 0x26 ||
					      probe_site__cookie_skip(&s) == 0x22);
				}
				simulated += s.emulated;
			}
			printf("%s: %zu functions, %zu stack checks, %zu simulated sites, %zu refused\n",
			       name, bin->nfuncs, checks, simulated, refused);
			CHECK(checks > bin->nfuncs / 2);
			CHECK_EQ_INT(refused, 0);
			go_binary__close(bin);
		}
	}
}

/* Every probe of '*' in the arm64 count fixtures, inlined copies' too:
 * none that a preemption runs again; the copies whose first instruction
 * begins such a sequence are there, moved to its last. */
TEST(no_site_runs_twice)
{
	static const int versions[] = { 19, 23, 27 };
	size_t v, i, moved = 0;
	char name[64];

	for (v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		struct go_binary *bin;
		struct func_probes fp;
		size_t again = 0, copies = 0;

		snprintf(name, sizeof(name), "count-go1.%d-arm64", versions[v]);
		bin = go_fixture__open(name, true);
		CHECK(bin != NULL);
		if (!bin)
			continue;
		CHECK_EQ_INT(func_probes__collect(bin, "*", false, &fp), 0);
		for (i = 0; i < fp.n; i++) {
			const struct func_probe *p = &fp.probes[i];

			again += restarted(bin, p->site.addr);
			if (!p->inlined)
				continue;
			copies++;
			moved += restart_end(bin, p->site.addr) == p->site.addr + 4 &&
				 p->site.addr > p->code[0].from;
		}
		printf("%s: %zu probes (%zu inlined copies), %zu that a preemption runs again\n",
		       name, fp.n, copies, again);
		CHECK(copies > 1000);
		CHECK_EQ_INT(again, 0);
		func_probes__free(&fp);
		go_binary__close(bin);
	}
	printf("inlined copies moved to a restartable sequence's last instruction: %zu\n",
	       moved);
	CHECK(moved > 0);
}

int main(void)
{
	RUN(the_kernels_verdicts);
	RUN(cookie_skip_says_when_the_branch_is_taken);
	RUN(every_site_of_the_arm64_fixtures);
	RUN(no_site_runs_twice);
	return TEST_SUMMARY();
}
