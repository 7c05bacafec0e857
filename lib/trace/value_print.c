// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include "core/byteorder.h"
#include "core/json.h"
#include "trace/trace_probe.h"
#include "trace/value_print.h"
#include "trace/value_types.h"

int value_memory__parse(struct value_memory *m, const uint8_t *value,
			size_t len, unsigned int nchunks)
{
	size_t off = 0;
	unsigned int i;

	m->n = 0;
	if (nchunks > TRACE_MAX_CHUNKS)
		return -EINVAL;
	for (i = 0; i < nchunks; i++) {
		struct trace_chunk h;

		if (len - off < sizeof(h) || off > len)
			return -EINVAL;
		memcpy(&h, value + off, sizeof(h));
		off += sizeof(h);
		if (h.len > len - off)
			return -EINVAL;
		m->chunks[m->n++] = (struct value_chunk){
			.addr = h.addr, .data = value + off, .len = h.len,
			.fault = h.fault,
		};
		off += (h.len + 7) & ~7U;
	}
	return 0;
}

enum mem_result {
	MEM_READ,
	MEM_NOT_READ,		/* BPF did not get that far */
	MEM_FAULT,
};

/* The bytes [ADDR, ADDR + SIZE) if BPF read them; else why not. With
 * AVAIL: how many bytes from ADDR were read, *OUT set when any were. */
static enum mem_result mem_get(const struct value_memory *m, uint64_t addr,
			       uint64_t size, const uint8_t **out,
			       uint64_t *avail)
{
	bool found = false, fault = false;
	uint64_t best = 0, n;
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct value_chunk *c = &m->chunks[i];

		if (c->fault) {
			fault |= c->addr == addr;
			continue;
		}
		if (addr < c->addr || addr - c->addr > c->len)
			continue;
		n = c->len - (addr - c->addr);
		if (!found || n > best) {
			best = n;
			*out = c->data + (addr - c->addr);
			found = true;
		}
	}
	if (avail)
		*avail = best;
	if (found && best >= size)
		return MEM_READ;
	return fault && !found ? MEM_FAULT : MEM_NOT_READ;
}

/* How a value is reached, which decides what fmt does with it. */
struct where {
	int depth;		/* 0: the top-level value */
	bool exported;		/* fmt could call its methods (CanInterface) */
};

static void print_value(const struct value_printer *p, const struct go_type *t,
			const uint8_t *b, struct where w);

/* A marker ("...", "<fault>"): a JSON string in JSON. */
static void marker(const struct value_printer *p, const char *text)
{
	if (p->json)
		json_print_string(p->f, text);
	else
		fputs(text, p->f);
}

/* nil: <nil>, or null in JSON. */
static void nil(const struct value_printer *p)
{
	fputs(p->json ? "null" : "<nil>", p->f);
}

static void print_at(const struct value_printer *p, const struct go_type *t,
		     uint64_t addr, struct where w)
{
	const uint8_t *b = NULL;

	switch (mem_get(p->mem, addr, t->size, &b, NULL)) {
	case MEM_READ:
		print_value(p, t, b, w);
		break;
	case MEM_FAULT:
		marker(p, "<fault>");
		break;
	default:
		marker(p, "...");
	}
}

static uint64_t word(const uint8_t *b)
{
	return get_u64(b);
}

static void print_int(FILE *f, const struct go_type *t, const uint8_t *b)
{
	switch (t->size) {
	case 1:
		fprintf(f, "%d", (int8_t)b[0]);
		break;
	case 2:
		fprintf(f, "%d", (int16_t)get_u16(b));
		break;
	case 4:
		fprintf(f, "%d", (int32_t)get_u32(b));
		break;
	default:
		fprintf(f, "%lld", (long long)get_u64(b));
	}
}

static void print_uint(FILE *f, const struct go_type *t, const uint8_t *b)
{
	switch (t->size) {
	case 1:
		fprintf(f, "%u", b[0]);
		break;
	case 2:
		fprintf(f, "%u", get_u16(b));
		break;
	case 4:
		fprintf(f, "%u", get_u32(b));
		break;
	default:
		fprintf(f, "%llu", (unsigned long long)get_u64(b));
	}
}

static double float_at(const uint8_t *b, int bits)
{
	uint64_t v = bits == 32 ? get_u32(b) : get_u64(b);
	float f32;
	double f64;

	if (bits == 32) {
		uint32_t v32 = v;

		memcpy(&f32, &v32, 4);
		return f32;
	}
	memcpy(&f64, &v, 8);
	return f64;
}

/* fmt's complex: (re+imi), the imaginary part always signed. */
static void print_complex(const struct value_printer *p,
			  const struct go_type *t, const uint8_t *b)
{
	int bits = t->size == 8 ? 32 : 64;
	double im = float_at(b + t->size / 2, bits);
	FILE *f = p->f;

	/* JSON has no complex numbers: the text, as a string */
	if (p->json)
		fputc('"', f);
	fputc('(', f);
	trace_print_float(f, float_at(b, bits), bits);
	/* +NaN; +Inf and -Inf have their sign */
	if (isnan(im) || (!isinf(im) && !signbit(im)))
		fputc('+', f);
	trace_print_float(f, im, bits);
	fputs("i)", f);
	if (p->json)
		fputc('"', f);
}

/* JSON has no NaN or infinities: those as strings */
static void print_float(const struct value_printer *p, double d, int bits)
{
	bool quote = p->json && !isfinite(d);

	if (quote)
		fputc('"', p->f);
	trace_print_float(p->f, d, bits);
	if (quote)
		fputc('"', p->f);
}

/* N bytes of a string, then "..." when CUT. */
static void put_string(const struct value_printer *p, const uint8_t *s,
		       size_t n, bool cut)
{
	char *buf;

	if (!p->json) {
		if (n)
			fwrite(s, 1, n, p->f);
		if (cut)
			fputs("...", p->f);
		return;
	}
	buf = malloc(n + 4);
	if (!buf) {
		fputs("null", p->f);
		return;
	}
	if (n)
		memcpy(buf, s, n);
	memcpy(buf + n, "...", 3);
	json_print_bytes(p->f, buf, n + (cut ? 3 : 0));
	free(buf);
}

static void print_string(const struct value_printer *p, const uint8_t *b)
{
	uint64_t ptr = word(b), len = word(b + 8), avail;
	const uint8_t *s = NULL;

	if (!len) {
		put_string(p, s, 0, false);
		return;
	}
	switch (mem_get(p->mem, ptr, len, &s, &avail)) {
	case MEM_FAULT:
		marker(p, "<fault>");
		return;
	case MEM_READ:
		put_string(p, s, len, false);
		return;
	default:
		put_string(p, s, avail, true);
	}
}

static bool is_exported(const char *name)
{
	return name && isupper((unsigned char)name[0]);
}

/* The elements of an array (at B) or a slice (at ADDR): N of them. */
static void print_elems(const struct value_printer *p, const struct go_type *elem,
			const uint8_t *b, uint64_t addr, uint64_t n,
			struct where w)
{
	const uint8_t *e = NULL;
	uint64_t i;

	fputc('[', p->f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(p->json ? ',' : ' ', p->f);
		if (b) {
			print_value(p, elem, b + i * elem->size, w);
			continue;
		}
		switch (mem_get(p->mem, addr + i * elem->size, elem->size, &e,
				NULL)) {
		case MEM_READ:
			print_value(p, elem, e, w);
			continue;
		case MEM_FAULT:
			marker(p, "<fault>");
			break;
		default:
			marker(p, "...");
		}
		break;
	}
	fputc(']', p->f);
}

static void print_struct(const struct value_printer *p, const struct go_type *t,
			 const uint8_t *b, struct where w)
{
	size_t i;

	fputc('{', p->f);
	for (i = 0; i < t->nfields; i++) {
		const struct go_field *fl = &t->fields[i];
		struct where fw = { w.depth + 1, w.exported && is_exported(fl->name) };

		if (i)
			fputc(p->json ? ',' : ' ', p->f);
		if (p->json) {
			json_print_string(p->f, fl->name ? fl->name : "");
			fputc(':', p->f);
		} else if (p->plus) {
			fprintf(p->f, "%s:", fl->name ? fl->name : "");
		}
		print_value(p, fl->type, b + fl->offset, fw);
	}
	fputc('}', p->f);
}

/* The message of a followed error: its first string field. */
static void print_error(const struct value_printer *p, const struct go_type *t,
			uint64_t ptr)
{
	const struct go_type *s = t->elem;
	const uint8_t *b = NULL;
	size_t i;

	if (!ptr) {
		nil(p);
		return;
	}
	switch (mem_get(p->mem, ptr, s->size, &b, NULL)) {
	case MEM_FAULT:
		marker(p, "<fault>");
		return;
	case MEM_NOT_READ:
		marker(p, "...");
		return;
	default:
		break;
	}
	for (i = 0; i < s->nfields; i++) {
		if (s->fields[i].type->kind == GO_KIND_STRING) {
			print_string(p, b + s->fields[i].offset);
			return;
		}
	}
}

static void print_pointer(const struct value_printer *p, const struct go_type *t,
			  const uint8_t *b, struct where w)
{
	uint64_t ptr = word(b);

	if (w.exported && t->kind == GO_KIND_PTR &&
	    value_types__followed_error(t)) {
		print_error(p, t, ptr);
		return;
	}
	if (!ptr) {
		nil(p);
		return;
	}
	if (!w.depth && t->kind == GO_KIND_PTR && value_types__followed_root(t)) {
		if (!p->json)
			fputc('&', p->f);
		print_at(p, t->elem, ptr, (struct where){ 1, w.exported });
		return;
	}
	fprintf(p->f, p->json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)ptr);
}

static void print_iface(const struct value_printer *p, const struct go_type *t,
			const uint8_t *b, struct where w)
{
	uint64_t type = word(b), data = word(b + 8);
	const struct go_type *dyn;
	const uint8_t *itab = NULL;
	const char *name;

	char unknown[1024];

	if (!type) {
		nil(p);
		return;
	}
	if (t->kind == GO_KIND_IFACE) {
		switch (mem_get(p->mem, type + 8, 8, &itab, NULL)) {
		case MEM_READ:
			type = word(itab);
			break;
		case MEM_FAULT:
			marker(p, "<fault>");
			return;
		default:
			marker(p, "...");
			return;
		}
	}
	dyn = p->dyn_type ? p->dyn_type(p->ctx, type) : NULL;
	if (!dyn) {
		name = p->type_name ? p->type_name(p->ctx, type) : NULL;
		if (name)
			snprintf(unknown, sizeof(unknown), "<%s>", name);
		else
			snprintf(unknown, sizeof(unknown), "<type 0x%llx>",
				 (unsigned long long)type);
		marker(p, unknown);
		return;
	}
	/* fmt prints a top-level interface's dynamic value as the top */
	w.depth = w.depth ? w.depth + 1 : 0;
	if (value_types__direct_iface(dyn)) {
		uint8_t v[8];

		memcpy(v, b + 8, 8);
		print_value(p, dyn, v, w);
		return;
	}
	print_at(p, dyn, data, w);
}

static void print_value(const struct value_printer *p, const struct go_type *t,
			const uint8_t *b, struct where w)
{
	FILE *f = p->f;

	/* fmt would call a method this cannot: said, then the value (in
	 * JSON, the value alone) */
	if (!p->json && w.exported && t->name && p->has_fmt_method &&
	    !value_types__followed_error(t) && p->has_fmt_method(p->ctx, t))
		fprintf(f, "<%s>", t->name);
	switch (t->kind) {
	case GO_KIND_BOOL:
		fputs(b[0] ? "true" : "false", f);
		break;
	case GO_KIND_INT:
		print_int(f, t, b);
		break;
	case GO_KIND_UINT:
		print_uint(f, t, b);
		break;
	case GO_KIND_FLOAT:
		print_float(p, float_at(b, t->size == 4 ? 32 : 64),
			    t->size == 4 ? 32 : 64);
		break;
	case GO_KIND_COMPLEX:
		print_complex(p, t, b);
		break;
	case GO_KIND_STRING:
		print_string(p, b);
		break;
	case GO_KIND_PTR:
	case GO_KIND_CHAN:
	case GO_KIND_FUNC:
		print_pointer(p, t, b, w);
		break;
	case GO_KIND_MAP:
		if (p->json)
			fputs(word(b) ? "\"map[...]\"" : "null", f);
		else
			fputs(word(b) ? "map[...]" : "map[]", f);
		break;
	case GO_KIND_SLICE:
		if (!t->elem) {
			marker(p, "[...]");
			break;
		}
		print_elems(p, t->elem, NULL, word(b), word(b + 8),
			    (struct where){ w.depth + 1, w.exported });
		break;
	case GO_KIND_ARRAY:
		print_elems(p, t->elem, b, 0, t->len,
			    (struct where){ w.depth + 1, w.exported });
		break;
	case GO_KIND_STRUCT:
		print_struct(p, t, b, w);
		break;
	case GO_KIND_EFACE:
	case GO_KIND_IFACE:
		print_iface(p, t, b, w);
		break;
	}
}

void value_print(const struct value_printer *p, const struct go_type *t,
		 const uint8_t *bytes)
{
	print_value(p, t, bytes, (struct where){ 0, true });
}

void value_print_at(const struct value_printer *p, const struct go_type *t,
		    uint64_t addr)
{
	print_at(p, t, addr, (struct where){ 0, true });
}
