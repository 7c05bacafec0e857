// SPDX-License-Identifier: MIT
/* gotrace's events read back: checked, their values rebuilt (trace_event.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "gobin/go_name.h"
#include "trace/trace_event.h"

int trace_event__check(const struct trace_event *e, size_t size,
		       const struct trace_plan_set *s, struct value_memory *mem)
{
	const size_t strs = offsetof(struct trace_event, str);
	const size_t words = offsetof(struct trace_event, words);
	const size_t frames = offsetof(struct trace_event, frames);
	const struct trace_plan *plan;
	const uint8_t *value;
	size_t values, nframes;

	/* the event ends after the words its plan reads, its frames, the
	 * strings the plan reads, or with %v after the memory it read */
	if (size < words || e->row >= s->nrows)
		return -EINVAL;
	plan = trace_plan_set__plan(s, e->row);
	nframes = e->nframes < STACK_MAX_FRAMES ? e->nframes : STACK_MAX_FRAMES;
	if (size < words + plan->nwords * sizeof(e->words[0]) ||
	    (nframes && size < frames + nframes * sizeof(e->frames[0])))
		return -EINVAL;
	if (plan->nstrs && size < strs + plan->nstrs * sizeof(e->str[0]))
		return -EINVAL;
	mem->n = 0;
	if (!plan->nvroots || e->tail)
		return 0;
	/* the %v memory, moved down where no string is read */
	values = e->value_moved ? strs : offsetof(struct trace_event, value);
	value = e->value_moved ? (const uint8_t *)e->str : e->value;
	if (size < values || size - values < e->value_len ||
	    value_memory__parse(mem, value, e->value_len, e->nchunks))
		return -EINVAL;
	return 0;
}

const struct trace_event *trace_event__whole(const void *data, size_t size,
					     struct trace_event *whole)
{
	const size_t strs = offsetof(struct trace_event, str);

	if (size >= strs)
		return data;
	memcpy(whole, data, size);
	memset((char *)whole + size, 0, strs - size);
	return whole;
}

/* What %v asks of the event's binary: its types, as loaded in the event's
 * process. */
struct event_types {
	struct traced_binary *tb;
	const struct trace_event *e;
};

static const struct go_type *value_dyn_type(void *ctx, uint64_t addr)
{
	struct event_types *t = ctx;

	return t->tb ? traced_binary__dyn_type(t->tb, t->e->pid,
					       t->e->start_code, addr) : NULL;
}

/* NULL when the type data does not name it: the printer says <type ADDR> */
static const char *value_type_name(void *ctx, uint64_t addr)
{
	struct event_types *t = ctx;

	return t->tb ? traced_binary__type_name(t->tb, t->e->pid,
						t->e->start_code, addr) : NULL;
}

static bool value_has_fmt_method(void *ctx, const struct go_type *type)
{
	struct event_types *t = ctx;

	return t->tb && traced_binary__has_fmt_method(t->tb, type);
}

/* %v of a type parameter's value (SRC): its type argument, named by the
 * call's dictionary, said first as <main.ID> when fmt would call its
 * String or Error method (the value itself prints by its shape). */
static void print_type_arg_mark(const struct trace_event *e,
				const struct trace_src *src,
				struct trace_event_ctx *ctx, FILE *f)
{
	unsigned int w = src->type_word;
	const char *dict;
	char name[TRACE_STR_MAX + 1];

	if (!src->dict_arg || !ctx->tb || e->tail || w >= TRACE_MAX_WORDS ||
	    ((e->word_faults | e->word_nils | e->word_oob) >> w) & 1)
		return;
	dict = traced_binary__dict_name(ctx->tb, e->pid, e->start_code,
					e->words[w]);
	if (dict && !go_name__type_arg(dict, src->dict_arg - 1, true, name,
				       sizeof(name)) &&
	    traced_binary__name_has_fmt_method(ctx->tb, name))
		fprintf(f, "<%s>", name);
}

void trace_event__print_value(const struct trace_event *e,
			      const struct trace_row *row, size_t i,
			      struct trace_event_ctx *ctx, FILE *f, bool json)
{
	struct event_types types = { ctx->tb, e };
	struct value_printer p = {
		.f = f, .plus = row->convs[i].plus, .json = json,
		.go_minor = go_version__minor(row->bin->version),
		.mem = ctx->mem, .dyn_type = value_dyn_type,
		.type_name = value_type_name,
		.has_fmt_method = value_has_fmt_method, .ctx = &types,
	};

	if (!json)
		print_type_arg_mark(e, &row->src[i], ctx, f);
	trace_row__print_value(row, i, e, &p);
}

/* %T of a type parameter's value: type argument ARG (0-based) of the
 * call whose dictionary is at V->word, into TEXT->type. */
static void name_type_arg(const struct trace_event *e,
			  struct trace_event_ctx *ctx, struct trace_value *v,
			  unsigned int arg, struct trace_value_text *text)
{
	const char *dict;

	if (v->unreadable)
		return;
	dict = ctx->tb ? traced_binary__dict_name(ctx->tb, e->pid,
						  e->start_code, v->word) : NULL;
	if (dict && !go_name__type_arg(dict, arg, false, text->type,
				       sizeof(text->type)))
		v->type_name = text->type;
	else
		v->unreadable = "<unnamed dictionary>";
}

/* %T: V's dynamic type named, into TEXT->type unless the type data's. */
static void name_type(const struct trace_event *e, struct trace_event_ctx *ctx,
		      struct trace_value *v, struct trace_value_text *text)
{
	if (v->str) {
		go_rtype__gccgo_name(v->str, v->str_len, text->type,
				     sizeof(text->type));
		v->type_name = text->type;
		return;
	}
	/* a nil interface has no type: type_name stays NULL */
	if (v->unreadable || !v->word)
		return;
	v->type_name = ctx->tb ? traced_binary__type_name(ctx->tb, e->pid,
							  e->start_code,
							  v->word) : NULL;
	if (!v->type_name)
		v->type_name = value_print__unnamed_type(text->type,
							 sizeof(text->type),
							 v->word);
}

/* %v: conversion I of ROW in event E as text, into TEXT->text. */
static void print_value(const struct trace_event *e,
			const struct trace_row *row, size_t i,
			struct trace_event_ctx *ctx, struct trace_value *v,
			struct trace_value_text *text)
{
	size_t len = 0;
	FILE *f = open_memstream(&text->text, &len);

	if (!f) {
		v->unreadable = "<out of memory>";
		return;
	}
	trace_event__print_value(e, row, i, ctx, f, false);
	if (fclose(f)) {
		v->unreadable = "<out of memory>";
		return;
	}
	v->str = text->text;
	v->str_len = len;
}

void trace_event__value(const struct trace_event *e,
			const struct trace_row *row, size_t i,
			struct trace_event_ctx *ctx, struct trace_value *v,
			struct trace_value_text *text)
{
	const struct trace_conv *c = &row->convs[i];

	text->text = NULL;
	if (c->kind == TRACE_CONV_VALUE) {
		memset(v, 0, sizeof(*v));
		print_value(e, row, i, ctx, v, text);
		return;
	}
	trace_row__value(row, i, e, ctx->str_max, v);
	if (c->kind == TRACE_CONV_TYPE && row->src[i].dict_arg)
		name_type_arg(e, ctx, v, row->src[i].dict_arg - 1, text);
	else if (c->kind == TRACE_CONV_TYPE)
		name_type(e, ctx, v, text);
}
