// SPDX-License-Identifier: MIT
/*
 * The format of a bare probe, made for each function from its signature,
 * as Delve's trace prints a call: main.callme(i=10) at its entry,
 * main.callme => (100) at a return (plan_internal.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "trace/plan_internal.h"

/* Is NAME a value's name as its source writes it? Not an unnamed or blank
 * one (~r0, ~p0, _: Go's DWARF), nor one a method table typed (""). */
static bool source_name(const char *name)
{
	return name && name[0] && name[0] != '~' && strcmp(name, "_");
}

/* The next conversion of ROW: %v of the INDEXth parameter (RET: result)
 * NAME, written NAME= when it has a name. */
static int add_value(struct trace_row *row, bool ret, const char *name,
		     unsigned int index)
{
	struct trace_conv *c = &row->own_convs[row->nconvs];
	const char *open = row->nconvs ? ", " : ret ? "=> (" : "(";
	char key[32];
	int n;

	c->kind = TRACE_CONV_VALUE;
	c->expr.arg = ret ? TRACE_ARG_GORET : TRACE_ARG_GOARG;
	c->expr.index = index;
	/* its text is what -j calls it: the name, else goargN or goretN */
	snprintf(key, sizeof(key), "%s%u", ret ? "goret" : "goarg", index + 1);
	if (source_name(name)) {
		c->expr.text = strdup(name);
		n = asprintf(&c->prefix, "%s%s=", open, name);
		if (n < 0)
			c->prefix = NULL;
	} else {
		c->expr.text = strdup(key);
		c->prefix = strdup(open);
	}
	row->nconvs++;		/* freed with the row, made or not */
	if (!c->prefix || !c->expr.text)
		return gt_error(-ENOMEM, "out of memory");
	return 0;
}

int plan_default_format(struct trace_row *row, const struct go_dwarf_sig *sig,
			bool ret)
{
	const struct go_dwarf_var *vars = NULL;
	unsigned int index = 0;
	size_t n = 0, i;
	int err = 0;

	if (sig) {
		vars = ret ? sig->results : sig->params;
		n = ret ? sig->nresults : sig->nparams;
	}
	row->own_convs = calloc(n ? n : 1, sizeof(*row->own_convs));
	if (!row->own_convs)
		return gt_error(-ENOMEM, "out of memory");
	row->convs = row->own_convs;
	for (i = 0; i < n && !err; i++) {
		/* a shape function's dictionary is the compiler's */
		if (!ret && go_dwarf_var__is_dict(&vars[i]))
			continue;
		/* gccgo's name of a value receiver is not the source's */
		err = add_value(row, ret, !ret && !i &&
				go_dwarf_sig__gccgo_value_receiver(sig) ?
				NULL : vars[i].name, index++);
	}
	if (err)
		return err;
	if (!sig)
		row->own_suffix = strdup(ret ? "=> (<no types>)" : "(<no types>)");
	else
		row->own_suffix = strdup(row->nconvs ? ")" : ret ? "=> ()" : "()");
	if (!row->own_suffix)
		return gt_error(-ENOMEM, "out of memory");
	row->suffix = row->own_suffix;
	return 0;
}

int plan_raw_format(struct trace_row *row, const struct go_abi_layout *layout)
{
	struct trace_conv *c;
	size_t i;

	row->own_convs = calloc(layout->nargs ? layout->nargs : 1,
				sizeof(*row->own_convs));
	if (!row->own_convs)
		return gt_error(-ENOMEM, "out of memory");
	row->convs = row->own_convs;
	for (i = 0; i < layout->nargs; i++) {
		bool xmm = layout->args[i].pieces[0].kind == GO_PIECE_FREG;
		int n;

		c = &row->own_convs[row->nconvs++];
		c->kind = xmm ? TRACE_CONV_FLOAT : TRACE_CONV_HEX;
		c->type = layout->args[i].type;
		c->expr.arg = TRACE_ARG_GOARG;
		c->expr.index = i;
		n = asprintf(&c->expr.text, "raw%zu", i + 1);
		if (n < 0)
			c->expr.text = NULL;
		c->prefix = strdup(xmm ? (i ? ", " : "(raw: ") :
				   (i ? ", 0x" : "(raw: 0x"));
		if (!c->prefix || !c->expr.text)
			return gt_error(-ENOMEM, "out of memory");
	}
	row->own_suffix = strdup(row->nconvs ? ")" : "(raw: none in registers)");
	if (!row->own_suffix)
		return gt_error(-ENOMEM, "out of memory");
	row->suffix = row->own_suffix;
	return 0;
}
