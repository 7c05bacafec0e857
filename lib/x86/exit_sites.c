// SPDX-License-Identifier: MIT
/*
 * The exits of a function (exit_sites.h): a linear sweep of its whole
 * x86-64 body with capstone. Go puts no data in function bodies on amd64
 * (jump tables live in .rodata), so a sweep from the entry decodes every
 * instruction.
 *
 * What leaves the function:
 *   - ret and ret imm16;
 *   - jmp rel to an address outside the body (the compiler's tail calls in
 *     wrappers, badmcall in runtime.mcall...). A jmp inside the body is not
 *     an exit: loops, and the morestack tail's jmp back to the entry;
 *   - jmp through a register (`jmp *%rax`). In the objdump of every
 *     fixture these are only in assembly functions, and all leave:
 *     runtime.reflectcall to callNN, runtime.systemstack when already on
 *     the system stack, gogo, cgoSigtramp, runtime.mcall's badmcall (1.15);
 *   - jmp through memory without an index register (`jmp *0x10(%rip)`, a
 *     PLT-style call through a pointer).
 * A jmp through memory with an index register (`jmp *(%rcx,%rsi,8)`) is
 * a switch's jump table (Go 1.19+), whose targets are in the body.
 *
 * Where to sweep. A RET returns through the address on top of the stack,
 * so it runs where SP is what it was at entry; a tail JMP leaves a frame
 * the same way. The pclntab's pcsp table, which the compiler and the
 * assembler write for Go's own unwinder, gives the frame size at each PC:
 * only the runs where it is 0 can hold an exit. They are the entry block,
 * each epilogue's RET or JMP and the morestack tail, a small part of a
 * function with a frame; runs begin and end at instruction boundaries.
 * Decoding is most of what planning a whole binary costs: sweeping only
 * those runs keeps it quick.
 * Only where Go's own unwinder trusts the table (pclntab__func_sp_tracked:
 * not in runtime.mcall or gogo, which switch stacks and leave at a frame
 * size the table gets wrong; not before Go 1.18, whose tables do not say).
 * A function without a trusted table (gccgo, Go 1.17 and older, one the
 * pclntab lacks, one whose table does not read) is swept whole; so is a
 * frameless one, which is 0 throughout. exit_sites__find_known() steps
 * over the prologue and morestack tail besides, and a body up to its
 * first exit, which choosing the counting site has decoded already
 * (x86/probe_site.h: no_exit). The unit tests check that every sweep
 * agrees with the whole one on every function of every fixture and
 * third-party binary.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <capstone/capstone.h>
#include "core/error.h"
#include "core/mem.h"
#include "gobin/pclntab.h"
#include "x86/disasm.h"
#include "x86/exit_sites.h"
#include "x86/jmp_leaves.h"
#include "x86/uprobe_insn.h"


struct site_list {
	struct exit_site *v;
	size_t n, cap;
};

static int site_list__add(struct site_list *l, const cs_insn *ci,
			  enum exit_kind kind)
{
	int err;

	err = gt_ensure_mem((void **)&l->v, &l->cap, sizeof(*l->v), l->n + 1);
	if (err)
		return err;
	l->v[l->n].addr = ci->address;
	l->v[l->n].kind = kind;
	l->v[l->n].emulated = uprobe_insn__emulated(ci->bytes, ci->size);
	l->n++;
	return 0;
}


/* A run of code, as offsets from the function's entry. */
struct run {
	size_t from, to;
};

/* Code known to hold no exit (probe_site's no_exit spans). */
struct known {
	const struct code_span *v;
	size_t n;
};

/* Step *P, *LEFT and *ADDR over the known span that begins at *ADDR, if
 * any. Only where a span begins: its decode and the sweep's agree on the
 * instruction boundaries from there on. */
static void skip_known(const struct known *k, const uint8_t **p,
		       size_t *left, uint64_t *addr)
{
	size_t i, d;

	for (i = 0; i < k->n; i++) {
		if (k->v[i].from != *addr || k->v[i].to <= *addr)
			continue;
		d = k->v[i].to - *addr;
		if (d > *left)
			d = *left;
		*p += d;
		*left -= d;
		*addr += d;
	}
}

/* Sweep [R->from, R->to) of the LEN bytes of FN's code at CODE, but for
 * the KNOWN spans. EXACT: LEN is the function's size, not a guess that may
 * cut the last instruction short. */
static int sweep(csh cs, const struct go_func *fn,
		 const uint8_t *code, size_t len, const struct run *r,
		 const struct known *known, bool exact, struct site_list *out)
{
	const uint8_t *p = code + r->from;
	const uint8_t *pad = x86_disasm__padding(code, len);
	uint64_t entry = fn->addr;
	uint64_t addr = entry + r->from;
	size_t left = r->to - r->from;
	cs_insn *ci;
	int err = 0;

	ci = cs_malloc(cs);
	if (!ci)
		return gt_error(-ENOMEM, "out of memory");
	while (!err && left) {
		skip_known(known, &p, &left, &addr);
		if (!left || p >= pad)
			break;
		if (!cs_disasm_iter(cs, &p, &left, &addr, ci)) {
			if (!exact && left < 16)	/* cut short */
				break;
			err = gt_error(-EINVAL,
				       "%s: cannot decode the instruction at 0x%llx",
				       fn->name, (unsigned long long)addr);
			break;
		}
		if (ci->id == X86_INS_RET)
			err = site_list__add(out, ci, EXIT_RET);
		else if (ci->id == X86_INS_JMP &&
			 x86_jmp__leaves(ci, entry, len))
			err = site_list__add(out, ci, EXIT_TAIL_JMP);
	}
	cs_free(ci, 1);
	return err;
}

/*
 * The runs of FN's LEN bytes of CODE where its pcsp table says the frame
 * size is 0 (see the top), into *RUNS (malloc()ed). 0 and *N = 0 when the
 * whole body is to be swept: no trusted table, or one that does not read
 * or stops short of the int3 padding.
 */
static int entry_sp_runs(const struct go_binary *bin, const struct go_func *fn,
			 const uint8_t *code, size_t len, struct run **runs,
			 size_t *n)
{
	const struct pclntab *tab = bin->pclntab;
	struct pclntab_func_tables t;
	struct pclntab_pcvalue it;
	size_t cap = 0, covered = 0, from, to;
	long i;
	int err;

	*runs = NULL;
	*n = 0;
	if (!tab)
		return 0;
	i = pclntab__func_index(tab, fn->addr);
	if (i < 0 || tab->funcs[i].entry != fn->addr ||
	    !pclntab__func_sp_tracked(tab, (size_t)i) ||
	    pclntab__func_tables(tab, (size_t)i, &t) || !t.pcsp)
		goto whole;
	pclntab_pcvalue__init(&it, tab, (size_t)i, t.pcsp);
	while ((err = pclntab_pcvalue__next(&it)) > 0) {
		if (it.pc < fn->addr || it.end > fn->addr + len || it.pc > it.end)
			goto whole;
		covered = it.end - fn->addr;
		if (it.val != 0 || it.pc == it.end)
			continue;
		from = it.pc - fn->addr;
		to = it.end - fn->addr;
		if (*n && (*runs)[*n - 1].to == from) {
			(*runs)[*n - 1].to = to;
			continue;
		}
		err = gt_ensure_mem((void **)runs, &cap, sizeof(**runs), *n + 1);
		if (err)
			return err;
		(*runs)[(*n)++] = (struct run){ from, to };
	}
	/* a table that ends short of the code leaves the rest unknown */
	if (err < 0 || !*n ||
	    covered < (size_t)(x86_disasm__padding(code, len) - code))
		goto whole;
	return 0;
whole:
	gt_error_clear();
	free(*runs);
	*runs = NULL;
	*n = 0;
	return 0;
}

static int find_exits(const struct go_binary *bin, const struct go_func *fn,
		      bool whole, const struct known *known,
		      struct exit_site **sites, size_t *n)
{
	struct site_list l = { 0 };
	struct run *runs = NULL, all;
	const uint8_t *code;
	size_t len = 0, nruns = 0, i;
	csh cs;
	int err;

	*sites = NULL;
	*n = 0;
	err = x86_disasm__func_code(bin, fn, &code, &len);
	if (!err && !whole)
		err = entry_sp_runs(bin, fn, code, len, &runs, &nruns);
	if (!err)
		err = x86_disasm__handle(false, &cs);
	if (!err && !nruns) {
		all = (struct run){ 0, len };
		err = sweep(cs, fn, code, len, &all, known,
			    fn->size != 0, &l);
	}
	for (i = 0; i < nruns && !err; i++)
		err = sweep(cs, fn, code, len, &runs[i], known,
			    fn->size != 0, &l);
	free(runs);
	if (err) {
		free(l.v);
		return err;
	}
	/* The sweeps found them in address order. */
	*sites = l.v;
	*n = l.n;
	return 0;
}

int exit_sites__find(const struct go_binary *bin, const struct go_func *fn,
		     struct exit_site **sites, size_t *n)
{
	const struct known none = { 0 };

	return find_exits(bin, fn, false, &none, sites, n);
}

int exit_sites__find_known(const struct go_binary *bin,
			   const struct go_func *fn,
			   const struct probe_site *site,
			   struct exit_site **sites, size_t *n)
{
	const struct known known = {
		site->no_exit,
		sizeof(site->no_exit) / sizeof(site->no_exit[0]),
	};

	return find_exits(bin, fn, false, &known, sites, n);
}

int exit_sites__find_whole(const struct go_binary *bin,
			   const struct go_func *fn, struct exit_site **sites,
			   size_t *n)
{
	const struct known none = { 0 };

	return find_exits(bin, fn, true, &none, sites, n);
}

const char *exit_kind__str(enum exit_kind kind)
{
	switch (kind) {
	case EXIT_RET:
		return "ret";
	case EXIT_TAIL_JMP:
		return "tail jmp";
	default:
		return "end of inlined copy";
	}
}
