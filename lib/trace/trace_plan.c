// SPDX-License-Identifier: MIT
/*
 * The plan set: a row per traced function of each probe (the index in its
 * probes' cookies) and its plan, stored once among rows that read alike
 * (plan_table.h); each binary's goroutine layout, which goes into its
 * plans; the probe sites of a function (its entry, or every exit for r:)
 * and of an inlined copy, with their cookies (trace_plan.h). What a row
 * prints is its probe's format, or a bare probe's own (plan_default.c);
 * what it reads is planned by plan_layout.c, plan_expr.c and plan_conv.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "probe/call_sites.h"
#include "gobin/pclntab.h"
#include "goabi/goroutine.h"
#include "trace/plan_internal.h"
#include "cookie.h"

static void row__free(struct trace_row *row)
{
	size_t i;

	free(row->func);
	free(row->src);
	for (i = 0; row->own_convs && i < row->nconvs; i++)
		trace_conv__free(&row->own_convs[i]);
	free(row->own_convs);
	free(row->own_suffix);
}

/* What ROW prints: its probe's format, or for a bare probe its own, from
 * SIG, else the raw words of RAW (both NULL: nothing types the function);
 * a source for each value. */
static int row__set_format(struct trace_row *row, const struct go_dwarf_sig *sig,
			   const struct go_abi_layout *raw)
{
	const struct trace_probe *probe = row->probe;
	int err;

	if (probe->bare && raw) {
		err = plan_raw_format(row, raw);
		if (err)
			return err;
	} else if (probe->bare) {
		err = plan_default_format(row, sig, probe->ret);
		if (err)
			return err;
	} else {
		row->convs = probe->convs;
		row->nconvs = probe->nconvs;
		row->suffix = probe->suffix;
	}
	row->src = row->nconvs ? calloc(row->nconvs, sizeof(*row->src)) : NULL;
	if (row->nconvs && !row->src)
		return gt_error(-ENOMEM, "out of memory");
	return 0;
}

/* A row for FUNC of PROBE in BIN at *IDX, printing what PROBE's format
 * says, or a bare probe every value of SIG; its plan is interned once
 * planned (plan_set__add_plan). */
static int plan_set__add_row(struct trace_plan_set *s,
			     const struct go_binary *bin, const char *func,
			     const struct trace_probe *probe,
			     const struct go_dwarf_sig *sig,
			     const struct go_abi_layout *raw, size_t *idx)
{
	struct trace_row *row;
	int err;

	err = gt_ensure_mem((void **)&s->rows, &s->rows_cap, sizeof(*s->rows),
			    s->nrows + 1);
	if (err)
		return err;
	row = &s->rows[s->nrows];
	memset(row, 0, sizeof(*row));
	row->bin = bin;
	row->probe = probe;
	row->func = strdup(func);
	err = row->func ? row__set_format(row, sig, raw) :
			  gt_error(-ENOMEM, "out of memory");
	if (err) {
		row__free(row);
		return err;
	}
	*idx = s->nrows++;
	return 0;
}

/* Take back the last row, whose plan could not be made. */
static void plan_set__drop_row(struct trace_plan_set *s)
{
	row__free(&s->rows[--s->nrows]);
}

/* Where BIN keeps goroutines: goroutine.h's layout, looked up once a
 * binary; gccgo's ids are out of reach (zeros: the GOID column says -). */
static int plan_set__goroutines(struct trace_plan_set *s,
				const struct go_binary *bin,
				const struct goroutine_layout **out)
{
	struct trace_plan_goroutines *g;
	size_t i;
	int err;

	for (i = 0; i < s->ngoroutines; i++) {
		if (s->goroutines[i].bin == bin) {
			*out = &s->goroutines[i].layout;
			return 0;
		}
	}
	err = gt_ensure_mem((void **)&s->goroutines, &s->goroutines_cap,
			    sizeof(*s->goroutines), s->ngoroutines + 1);
	if (err)
		return err;
	g = &s->goroutines[s->ngoroutines];
	memset(g, 0, sizeof(*g));
	g->bin = bin;
	if (!bin->is_gccgo) {
		err = goroutine_layout__find(bin, &g->layout);
		if (err)
			return err;
	}
	s->ngoroutines++;
	*out = &g->layout;
	return 0;
}

/* PLAN, planned for row IDX, stored as that row's, or the equal plan
 * already stored (the binary's layout is known: plan_set__goroutines()
 * ran before planning, so that its errors are not taken for planning's). */
static int plan_set__add_plan(struct trace_plan_set *s, size_t idx,
			      struct trace_plan *plan)
{
	const struct goroutine_layout *layout;
	int err;

	err = plan_set__goroutines(s, s->rows[idx].bin, &layout);
	if (err)
		return err;
	plan->goid_offset = layout->goid_offset;
	plan->tls_g_offset = layout->tls_g_offset;
	return plan_table__intern(&s->plans, plan, &s->rows[idx].plan);
}

void trace_plan_set__free(struct trace_plan_set *s)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		row__free(&s->rows[i]);
	free(s->rows);
	free(s->goroutines);
	s->rows = NULL;
	s->goroutines = NULL;
	s->nrows = s->rows_cap = s->ngoroutines = s->goroutines_cap = 0;
	plan_table__free(&s->plans);
	left_out__free(&s->left_out);
	value_types__free(&s->vtypes);
}

/* How far a plan's reads went: where to take it back to. */
struct plan_mark {
	__u32 nwords, nstrs, nvroots;
};

/*
 * Value I of ROW, of a bare probe, could not be planned (too many words
 * to read, say): it prints <not read>, and what its planning added to
 * PLAN since MARK is taken back (the whole probe is not refused for it).
 */
static void unplan_value(const struct trace_plan_set *s, struct trace_row *row,
			 size_t i, struct trace_plan *plan,
			 const struct plan_mark *mark)
{
	if (s->verbose)
		fprintf(stderr, "%s: %s not read: %s\n", row->func,
			row->convs[i].expr.text, gt_last_error());
	gt_error_clear();
	memset(&plan->words[mark->nwords], 0,
	       (plan->nwords - mark->nwords) * sizeof(plan->words[0]));
	memset(&plan->strs[mark->nstrs], 0,
	       (plan->nstrs - mark->nstrs) * sizeof(plan->strs[0]));
	memset(&plan->vroots[mark->nvroots], 0,
	       (plan->nvroots - mark->nvroots) * sizeof(plan->vroots[0]));
	plan->nwords = mark->nwords;
	plan->nstrs = mark->nstrs;
	plan->nvroots = mark->nvroots;
	row->src[i] = (struct trace_src){
		.unreadable = "<not read>", .str = -1, .type_word = -1,
		.root_word = -1,
	};
}

/* The register an r: probe of LAYOUT reads as it was at the call's entry
 * (plan.entry_reg): where results in memory are, when the callee need not
 * keep it (go_abi.h: results_addr_at_entry); 0 for none. */
static __u8 results_entry_reg(const struct go_abi_layout *layout)
{
	size_t i, k;

	if (!layout->results_addr_at_entry)
		return 0;
	for (i = 0; i < layout->nresults; i++)
		for (k = 0; k < layout->results[i].npieces; k++)
			if (layout->results[i].pieces[k].kind == GO_PIECE_MEM)
				return 1 + layout->results[i].pieces[k].reg;
	return 0;
}

/*
 * A row for PL's function: its values and filter planned from PL's
 * layout (freed here), its plan stored. Nothing is added when any of it
 * fails; a bare probe's value that cannot be planned prints <not read>.
 */
static int plan_set__add_planned(struct trace_plan_set *s,
				 struct planner *pl, size_t *idx)
{
	const struct trace_probe *probe = pl->probe;
	struct trace_plan plan;
	struct plan_mark mark;
	struct trace_row *row;
	size_t i;
	int err;

	err = plan_set__add_row(s, pl->bin, pl->func, probe,
				pl->dwarf ? &pl->sig : NULL,
				pl->raw_words ? &pl->layout : NULL, idx);
	if (err)
		goto out;
	row = &s->rows[*idx];
	memset(&plan, 0, sizeof(plan));	/* plans are compared as bytes */
	pl->plan = &plan;
	pl->str_max = s->str_max;
	/* the filter first: a bare probe's values take what room is left */
	for (i = 0; i < probe->nterms && !err; i++)
		err = planner__term(pl, &probe->terms[i], &plan.terms[i]);
	plan.nterms = probe->nterms;
	for (i = 0; i < row->nconvs && !err; i++) {
		mark = (struct plan_mark){ plan.nwords, plan.nstrs, plan.nvroots };
		err = planner__conv(pl, &row->convs[i], &row->src[i]);
		if (err && err != -ENOMEM && probe->bare) {
			unplan_value(s, row, i, &plan, &mark);
			err = 0;
		}
	}
	pl->plan = NULL;
	if (probe->ret)
		plan.entry_reg = results_entry_reg(&pl->layout);
	if (!err)
		err = plan_set__add_plan(s, *idx, &plan);
	if (err)
		plan_set__drop_row(s);
out:
	go_abi_layout__free(&pl->layout);
	return err;
}

/* A row for PROBE on the function NAME at ADDR, at *IDX, and its plan. */
static int plan_row(struct trace_plan_set *s, const struct go_binary *bin,
		    struct go_dwarf *dw, struct go_typedata *td,
		    const struct trace_probe *probe, const char *name,
		    uint64_t addr, const struct call_sites *cs, size_t *idx)
{
	struct planner pl = {
		.bin = bin, .func = name, .probe = probe,
		.vtypes = &s->vtypes, .td = td,
		.morestack_tail = cs->entry.kind == PROBE_SITE_STACK_CHECK ?
				  cs->entry.morestack_tail :
				  (struct code_span){ 0, 0 },
	};
	struct go_dwarf_var vars[TRACE_PROBE_MAX_ARGS * 2 + 2];
	int err;

	err = planner__place(&pl, dw, addr, vars);
	if (err)
		return gt_error(err, "%s: %s", name, gt_last_error());
	return plan_set__add_planned(s, &pl, idx);
}

/* The probes of row IDX (their cookies' index) at the sites CS of its
 * function: the entry, or for r: every exit. */
static int add_sites(struct trace_plan_set *s, const struct trace_probe *probe,
		     const struct func_probe *p, size_t idx,
		     const struct call_sites *cs, struct uprobe_list *sites)
{
	uint64_t g = call_sites__g_flag(cs);
	size_t i;
	int err = 0;

	if (!probe->ret) {
		if (s->verbose)
			fprintf(stderr, "probe %s at 0x%llx (%s)\n", p->name,
				(unsigned long long)cs->entry.addr,
				probe_site_kind__str(cs->entry.kind));
		return uprobe_list__add(sites, cs->entry_offset,
					COOKIE_MAKE(idx,
						    probe_site__cookie_skip(&cs->entry),
						    g | COOKIE_COST_FLAG(cs->entry.emulated)));
	}
	for (i = 0; i < cs->nexits && !err; i++) {
		if (s->verbose)
			fprintf(stderr, "probe r:%s at 0x%llx (%s)\n", p->name,
				(unsigned long long)cs->exits[i].addr,
				exit_kind__str(cs->exits[i].kind));
		err = uprobe_list__add(sites, cs->exits[i].offset,
				       COOKIE_MAKE(idx, 0, g |
					COOKIE_COST_FLAG(cs->exits[i].emulated) |
					(cs->exits[i].kind == EXIT_TAIL_JMP ?
					 COOKIE_TAIL : 0)));
	}
	return err;
}

/*
 * The r: row RET_IDX of P's function reads a register as it was at the
 * call's entry (its plan's entry_reg): a row of its own keeps it at the
 * entry, where the sites of P's calls begin, and prints nothing.
 */
static int add_entry_keeper(struct trace_plan_set *s,
			    const struct go_binary *bin,
			    const struct trace_probe *probe,
			    const struct func_probe *p, size_t ret_idx,
			    struct uprobe_list *sites)
{
	__u8 reg = s->plans.plans[s->rows[ret_idx].plan].entry_reg;
	struct trace_plan plan;
	struct call_sites cs;
	size_t idx;
	int err;

	err = call_sites__find(bin, p, CALL_SITES_ENTRY, NULL, &cs);
	if (!err)
		err = plan_set__add_row(s, bin, p->name, probe, NULL, NULL,
					&idx);
	if (err)
		goto out;
	memset(&plan, 0, sizeof(plan));
	plan.entry_keep = reg;
	err = plan_set__add_plan(s, idx, &plan);
	if (err) {
		plan_set__drop_row(s);
		goto out;
	}
	if (s->verbose)
		fprintf(stderr, "probe %s at 0x%llx (%s): keeps %s for r:\n",
			p->name, (unsigned long long)cs.entry.addr,
			probe_site_kind__str(cs.entry.kind),
			go_abi__reg_name(bin->elf->machine, GO_PIECE_IREG,
					 reg - 1));
	err = uprobe_list__add(sites, cs.entry_offset,
			       COOKIE_MAKE(idx, probe_site__cookie_skip(&cs.entry),
					   call_sites__g_flag(&cs) |
					   COOKIE_COST_FLAG(cs.entry.emulated)));
out:
	call_sites__free(&cs);
	return err;
}

int trace_plan_set__add(struct trace_plan_set *s, const struct go_binary *bin,
			struct go_dwarf *dw, struct go_typedata *td,
			const struct trace_probe *probe,
			const struct func_probe *p, struct uprobe_list *sites)
{
	const struct goroutine_layout *layout;
	struct call_sites cs;
	size_t idx = 0;
	int err;

	err = plan_set__goroutines(s, bin, &layout);
	if (err)
		return err;
	err = call_sites__find(bin, p, probe->ret ? CALL_SITES_EXITS :
					CALL_SITES_ENTRY, &s->left_out, &cs);
	if (err) {
		err = err < 0 ? err : 0;	/* 1: left out */
		goto out;
	}
	err = plan_row(s, bin, dw, td, probe, p->name, p->func_addr, &cs, &idx);
	if (err)
		goto out;
	err = add_sites(s, probe, p, idx, &cs, sites);
	if (!err && s->plans.plans[s->rows[idx].plan].entry_reg)
		err = add_entry_keeper(s, bin, probe, p, idx, sites);
out:
	call_sites__free(&cs);
	return err;
}

/* A row for an inlined copy, at *IDX, planned from the arguments DWARF
 * places at its start. */
static int plan_inlined_row(struct trace_plan_set *s, const struct go_binary *bin,
			    struct go_dwarf *dw, const struct trace_probe *probe,
			    const struct func_probe *p, size_t *idx)
{
	struct go_dwarf_var vars[TRACE_PROBE_MAX_ARGS * 2];
	struct go_dwarf_inline_param *params = NULL;
	struct planner pl = {
		.bin = bin, .func = p->name, .probe = probe,
		.vtypes = &s->vtypes,
	};
	size_t n, i;
	int err;

	err = go_dwarf__inline_params(dw, p->site.addr, p->name, &params, &n);
	if (!err && n > TRACE_PROBE_MAX_ARGS * 2)
		err = -E2BIG;
	for (i = 0; !err && i < n; i++)
		if (!params[i].type)
			err = -ENOENT;	/* DWARF does not type it */
	if (!err)
		err = planner__place_inlined(&pl, p->site.addr, params, n, vars);
	free(params);
	if (err)
		return err;
	return plan_set__add_planned(s, &pl, idx);
}

/*
 * Without DWARF's places: every value <optimized out>, no filter. A bare
 * r: probe prints each result of the signature the function has out of
 * line (DW, or NULL), when it has one.
 */
static int plan_inlined_blind(struct trace_plan_set *s,
			      const struct go_binary *bin, struct go_dwarf *dw,
			      const struct trace_probe *probe,
			      const struct func_probe *p, size_t *idx)
{
	const struct go_func *fn;
	struct go_dwarf_sig sig, *signature = NULL;
	struct trace_plan plan;
	struct trace_src *src;
	size_t i;
	int err;

	if (probe->nterms)
		return left_out__add(&s->left_out, LEFT_OUT_INLINED_FILTER,
				     "%s [inlined] at 0x%llx: a filter on arguments Go did not record there",
				     p->name, (unsigned long long)p->site.addr) ?: 1;
	if (probe->bare && probe->ret && dw &&
	    (fn = go_binary__func_by_name(bin, p->name)) &&
	    !go_dwarf__func_sig(dw, fn->addr, &sig))
		signature = &sig;
	gt_error_clear();
	err = plan_set__add_row(s, bin, p->name, probe, signature, NULL, idx);
	if (err)
		return err;
	for (i = 0; i < s->rows[*idx].nconvs; i++) {
		src = &s->rows[*idx].src[i];
		src->unreadable = "<optimized out>";
		src->str = -1;
		src->type_word = -1;
		src->root_word = -1;
	}
	memset(&plan, 0, sizeof(plan));	/* reads nothing */
	err = plan_set__add_plan(s, *idx, &plan);
	if (err)
		plan_set__drop_row(s);
	return err;
}

/* The probes of row IDX for P, an inlined copy: at its first instruction,
 * or for r: at each of its ends, CS (call_sites__find_inlined()). */
static int add_inlined_sites(struct trace_plan_set *s,
			     const struct go_binary *bin,
			     const struct trace_probe *probe,
			     const struct func_probe *p, size_t idx,
			     const struct call_sites *cs,
			     struct uprobe_list *sites)
{
	uint64_t flags = call_sites__inlined_flags(bin, p->site.addr);
	const struct call_exit *x;
	size_t i;
	int err = 0;

	if (!probe->ret) {
		if (s->verbose)
			fprintf(stderr, "probe %s [inlined] at 0x%llx (%s)\n",
				p->name, (unsigned long long)p->site.addr,
				probe_site_kind__str(p->site.kind));
		return uprobe_list__add(sites, p->offset,
					COOKIE_MAKE(idx,
						    probe_site__cookie_skip(&p->site),
						    flags | COOKIE_COST_FLAG(p->site.emulated)));
	}
	/* SP, and so the frame, at each end is as at the entry */
	for (i = 0; !err && i < cs->nexits; i++) {
		x = &cs->exits[i];
		if (s->verbose)
			fprintf(stderr, "probe r:%s [inlined] at 0x%llx (%s)\n",
				p->name, (unsigned long long)x->addr,
				exit_kind__str(x->kind));
		err = uprobe_list__add(sites, x->offset, COOKIE_MAKE(idx, 0,
				flags | COOKIE_COST_FLAG(x->emulated) |
				(x->kind == EXIT_TAIL_JMP ? COOKIE_TAIL : 0)));
	}
	return err;
}

int trace_plan_set__add_inlined(struct trace_plan_set *s,
				const struct go_binary *bin,
				struct go_dwarf *dw, struct inline_ends *e,
				const struct trace_probe *probe,
				const struct func_probe *p,
				struct uprobe_list *sites)
{
	const struct goroutine_layout *layout;
	struct call_sites cs = { 0 };
	size_t idx;
	int err;

	err = plan_set__goroutines(s, bin, &layout);
	if (err)
		return err;
	/* r: needs the copy's ends: one whose ends are not known gets no
	 * row (1: left out) */
	if (probe->ret) {
		err = call_sites__find_inlined(bin, p, e, &s->left_out, &cs);
		if (err)
			goto out;
	}
	/* Go records no result of a copy: an r: probe's values are not read */
	err = dw && !probe->ret ? plan_inlined_row(s, bin, dw, probe, p, &idx) :
				  -ENOENT;
	/* a value a filter tests is not recorded there: left out */
	if (err == -EINVAL && probe->nterms) {
		err = left_out__add(&s->left_out, LEFT_OUT_INLINED_FILTER,
				    "%s [inlined] at 0x%llx: %s", p->name,
				    (unsigned long long)p->site.addr,
				    gt_last_error());
		goto out;
	}
	if (err == -ENOENT || err == -E2BIG) {
		gt_error_clear();
		err = plan_inlined_blind(s, bin, dw, probe, p, &idx);
	}
	if (err)
		goto out;
	s->rows[idx].inlined = true;
	err = add_inlined_sites(s, bin, probe, p, idx, &cs, sites);
out:
	call_sites__free(&cs);
	return err < 0 ? err : 0;	/* 1: left out */
}
