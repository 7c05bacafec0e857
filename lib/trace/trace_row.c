// SPDX-License-Identifier: MIT
/*
 * A row's values read back from an event, at print time: the bytes of
 * each value from the words BPF read, the strings it copied, %T's type
 * word, %v's memory; the markers of what could not be read (<fault>,
 * <nil>, <out of range>, <tail call>) (trace_row.h). The other direction
 * from the planning files: from what BPF read to what the format prints.
 */
#include <stdio.h>
#include <string.h>
#include "trace/trace_row.h"

/* The marker of word W of E that could not be read, or NULL. */
static const char *word_marker(const struct trace_event *e, unsigned int w)
{
	if (w >= TRACE_MAX_WORDS || (e->word_faults >> w) & 1)
		return "<fault>";
	if ((e->word_oob >> w) & 1)
		return "<out of range>";
	if ((e->word_nils >> w) & 1)
		return "<nil>";
	return NULL;
}

/* The bytes of SRC's value from E's words into BYTES (SIZE of them), or
 * the marker of a word that could not be read. */
static const char *src_bytes(const struct trace_src *src,
			     const struct trace_event *e, uint8_t *bytes,
			     size_t size)
{
	const char *marker;
	size_t k;

	memset(bytes, 0, size);
	for (k = 0; k < src->nwords; k++) {
		unsigned int w = src->w[k].word;
		uint64_t word;

		marker = word_marker(e, w);
		if (marker)
			return marker;
		word = e->words[w] >> (8 * src->w[k].reg_shift);
		if (src->w[k].value_offset + src->w[k].size <= size)
			memcpy(bytes + src->w[k].value_offset, &word,
			       src->w[k].size > 8 ? 8 : src->w[k].size);
	}
	return NULL;
}

void trace_row__value(const struct trace_row *row, size_t i,
		      const struct trace_event *e, unsigned int str_max,
		      struct trace_value *v)
{
	const struct trace_src *src = &row->src[i];
	uint8_t bytes[16];
	uint64_t len;

	memset(v, 0, sizeof(*v));
	v->type = src->type;
	if (e->tail) {
		v->unreadable = "<tail call>";
		return;
	}
	v->unreadable = src->unreadable;
	if (src->type_word >= 0) {
		unsigned int w = src->type_word;

		/* behind a nil itab: a nil interface, word 0 */
		if (w >= TRACE_MAX_WORDS || (e->word_faults >> w) & 1)
			v->unreadable = "<fault>";
		else if ((e->word_oob >> w) & 1)
			v->unreadable = "<out of range>";
		else if (!((e->word_nils >> w) & 1))
			v->word = e->words[w];
		/* gccgo: the name BPF read */
		if (v->word && src->str >= 0 && src->str < TRACE_MAX_STRS &&
		    !((e->str_faults >> src->str) & 1)) {
			v->str = e->str[src->str];
			v->str_len = e->str_len[src->str];
		}
		return;
	}
	if (!v->unreadable)
		v->unreadable = src_bytes(src, e, bytes, sizeof(bytes));
	memcpy(&v->word, bytes, sizeof(v->word));
	if (src->str < 0 || src->str >= TRACE_MAX_STRS || v->unreadable)
		return;
	if ((e->str_faults >> src->str) & 1) {
		v->unreadable = "<fault>";
		return;
	}
	memcpy(&len, bytes + 8, sizeof(len));
	v->str = e->str[src->str];
	v->str_len = e->str_len[src->str];
	if (v->str_len > str_max)
		v->str_len = str_max;
	v->truncated = len > v->str_len;
}

void trace_row__print_value(const struct trace_row *row, size_t i,
			    const struct trace_event *e,
			    const struct value_printer *p)
{
	const struct trace_src *src = &row->src[i];
	uint8_t bytes[TRACE_SRC_MAX_WORDS * 8];
	const char *marker = src->unreadable;

	if (e->tail)
		marker = "<tail call>";
	if (!marker && src->root_word >= 0)
		marker = word_marker(e, src->root_gate);
	if (!marker && src->root_word >= 0) {
		value_print_at(p, src->type, e->words[src->root_word] +
			       src->root_offset);
		return;
	}
	if (!marker && src->type->size > sizeof(bytes))
		marker = "<too large>";
	if (!marker)
		marker = src_bytes(src, e, bytes, sizeof(bytes));
	if (marker)
		fputs(p->json ? "null" : marker, p->f);
	else
		value_print(p, src->type, bytes);
}
