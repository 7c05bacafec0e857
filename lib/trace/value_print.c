// SPDX-License-Identifier: MIT
/* %v and %+v as Go's fmt prints them, from the memory BPF read
 * (value_print.h). Written a character at a time by the one thread that
 * prints: stdio's _unlocked calls, which take no lock and are inlined. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>
#include "core/byteorder.h"
#include "core/json.h"
#include "goabi/go_map.h"
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
		fputs_unlocked(text, p->f);
}

/* nil: <nil>, or null in JSON. */
static void nil(const struct value_printer *p)
{
	fputs_unlocked(p->json ? "null" : "<nil>", p->f);
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

/* V in decimal: fprintf's parsing of its format was a tenth of gotrace's
 * CPU printing byte slices element by element. */
static void put_u64(FILE *f, uint64_t v)
{
	char buf[20], *s = buf + sizeof(buf);

	do {
		*--s = '0' + v % 10;
		v /= 10;
	} while (v);
	while (s < buf + sizeof(buf))
		putc_unlocked(*s++, f);
}

static void put_i64(FILE *f, int64_t v)
{
	if (v < 0)
		putc_unlocked('-', f);
	put_u64(f, v < 0 ? -(uint64_t)v : (uint64_t)v);
}

static void print_int(FILE *f, const struct go_type *t, const uint8_t *b)
{
	switch (t->size) {
	case 1:
		put_i64(f, (int8_t)b[0]);
		break;
	case 2:
		put_i64(f, (int16_t)get_u16(b));
		break;
	case 4:
		put_i64(f, (int32_t)get_u32(b));
		break;
	default:
		put_i64(f, (int64_t)get_u64(b));
	}
}

static void print_uint(FILE *f, const struct go_type *t, const uint8_t *b)
{
	switch (t->size) {
	case 1:
		put_u64(f, b[0]);
		break;
	case 2:
		put_u64(f, get_u16(b));
		break;
	case 4:
		put_u64(f, get_u32(b));
		break;
	default:
		put_u64(f, get_u64(b));
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
		putc_unlocked('"', f);
	putc_unlocked('(', f);
	trace_print_float(f, float_at(b, bits), bits);
	/* +NaN; +Inf and -Inf have their sign */
	if (isnan(im) || (!isinf(im) && !signbit(im)))
		putc_unlocked('+', f);
	trace_print_float(f, im, bits);
	fputs_unlocked("i)", f);
	if (p->json)
		putc_unlocked('"', f);
}

/* JSON has no NaN or infinities: those as strings */
static void print_float(const struct value_printer *p, double d, int bits)
{
	bool quote = p->json && !isfinite(d);

	if (quote)
		putc_unlocked('"', p->f);
	trace_print_float(p->f, d, bits);
	if (quote)
		putc_unlocked('"', p->f);
}

/* N bytes of a string, then "..." when CUT. */
static void put_string(const struct value_printer *p, const uint8_t *s,
		       size_t n, bool cut)
{
	char *buf;

	if (!p->json) {
		if (n)
			fwrite_unlocked(s, 1, n, p->f);
		if (cut)
			fputs_unlocked("...", p->f);
		return;
	}
	buf = malloc(n + 4);
	if (!buf) {
		fputs_unlocked("null", p->f);
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
	const uint8_t *e = NULL, *run = NULL;
	uint64_t i, in_run = 0, avail = 0;

	/* a slice's elements read in one piece, found once, not each */
	if (!b && elem->size) {
		mem_get(p->mem, addr, 0, &run, &avail);
		in_run = run ? avail / elem->size : 0;
	}
	putc_unlocked('[', p->f);
	for (i = 0; i < n; i++) {
		if (i)
			putc_unlocked(p->json ? ',' : ' ', p->f);
		if (b || i < in_run) {
			print_value(p, elem, (b ? b : run) + i * elem->size, w);
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
	putc_unlocked(']', p->f);
}

static void print_struct(const struct value_printer *p, const struct go_type *t,
			 const uint8_t *b, struct where w)
{
	size_t i;

	putc_unlocked('{', p->f);
	for (i = 0; i < t->nfields; i++) {
		const struct go_field *fl = &t->fields[i];
		struct where fw = { w.depth + 1, w.exported && is_exported(fl->name) };

		if (i)
			putc_unlocked(p->json ? ',' : ' ', p->f);
		if (p->json) {
			json_print_string(p->f, fl->name ? fl->name : "");
			putc_unlocked(':', p->f);
		} else if (p->plus) {
			fprintf(p->f, "%s:", fl->name ? fl->name : "");
		}
		print_value(p, fl->type, b + fl->offset, fw);
	}
	putc_unlocked('}', p->f);
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
			putc_unlocked('&', p->f);
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
			value_print__unnamed_type(unknown, sizeof(unknown), type);
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

/* Memory for go_map.h. */
static int map_read(void *ctx, uint64_t addr, uint64_t size, const uint8_t **out)
{
	const struct value_printer *p = ctx;

	switch (mem_get(p->mem, addr, size, out, NULL)) {
	case MEM_READ:
		return 0;
	case MEM_FAULT:
		return -EFAULT;
	default:
		return -ENODATA;
	}
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int64_t int_at(const struct go_type *t, const uint8_t *b)
{
	switch (t->size) {
	case 1: return (int8_t)b[0];
	case 2: return (int16_t)get_u16(b);
	case 4: return (int32_t)get_u32(b);
	default: return (int64_t)get_u64(b);
	}
}

static uint64_t uint_at(const struct go_type *t, const uint8_t *b)
{
	switch (t->size) {
	case 1: return b[0];
	case 2: return get_u16(b);
	case 4: return get_u32(b);
	default: return get_u64(b);
	}
}

/* fmtsort: NaN before every other float */
static int cmp_float(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) ? (isnan(b) ? 0 : -1) : 1;
	return a < b ? -1 : a > b;
}

/* Keys in the order Go's internal/fmtsort puts them. */
static int cmp_key(const struct value_printer *p, const struct go_type *t,
		   const uint8_t *a, const uint8_t *b)
{
	const uint8_t *sa = NULL, *sb = NULL;
	uint64_t la, lb, n, i;
	int bits, c = 0;

	switch (t->kind) {
	case GO_KIND_BOOL:
		return (a[0] != 0) - (b[0] != 0);
	case GO_KIND_INT: {
		int64_t x = int_at(t, a), y = int_at(t, b);

		return x < y ? -1 : x > y;
	}
	case GO_KIND_UINT:
		return cmp_u64(uint_at(t, a), uint_at(t, b));
	case GO_KIND_FLOAT:
		bits = t->size == 4 ? 32 : 64;
		return cmp_float(float_at(a, bits), float_at(b, bits));
	case GO_KIND_COMPLEX:
		bits = t->size == 8 ? 32 : 64;
		c = cmp_float(float_at(a, bits), float_at(b, bits));
		return c ? c : cmp_float(float_at(a + t->size / 2, bits),
					 float_at(b + t->size / 2, bits));
	case GO_KIND_STRING:
		/* as far as both were read */
		mem_get(p->mem, word(a), word(a + 8), &sa, &la);
		mem_get(p->mem, word(b), word(b + 8), &sb, &lb);
		n = la < lb ? la : lb;
		c = n && sa && sb ? memcmp(sa, sb, n) : 0;
		return c ? c : cmp_u64(word(a + 8), word(b + 8));
	case GO_KIND_STRUCT:
		for (i = 0; i < t->nfields && !c; i++)
			c = cmp_key(p, t->fields[i].type, a + t->fields[i].offset,
				    b + t->fields[i].offset);
		return c;
	case GO_KIND_ARRAY:
		for (i = 0; i < t->len && !c; i++)
			c = cmp_key(p, t->elem, a + i * t->elem->size,
				    b + i * t->elem->size);
		return c;
	case GO_KIND_EFACE:
	case GO_KIND_IFACE:
		/* nil first, then by type, then by the words */
		c = cmp_u64(word(a), word(b));
		return c ? c : cmp_u64(word(a + 8), word(b + 8));
	default:
		return cmp_u64(word(a), word(b));
	}
}

/* Was all of the key of type T at B read (its strings whole)? Only keys
 * read whole can be put in fmt's order. */
static bool key_read(const struct value_printer *p, const struct go_type *t,
		     const uint8_t *b)
{
	const uint8_t *s;
	uint64_t i;

	switch (t->kind) {
	case GO_KIND_STRING:
		return !word(b + 8) ||
		       mem_get(p->mem, word(b), word(b + 8), &s, NULL) == MEM_READ;
	case GO_KIND_STRUCT:
		for (i = 0; i < t->nfields; i++)
			if (!key_read(p, t->fields[i].type, b + t->fields[i].offset))
				return false;
		return true;
	case GO_KIND_ARRAY:
		for (i = 0; i < t->len; i++)
			if (!key_read(p, t->elem, b + i * t->elem->size))
				return false;
		return true;
	default:
		return true;
	}
}

struct key_order {
	const struct value_printer *p;
	const struct go_type *key;
};

static int cmp_entries(const void *x, const void *y, void *ctx)
{
	const struct go_map_entry *a = x, *b = y;
	const struct key_order *o = ctx;

	return cmp_key(o->p, o->key, a->key, b->key);
}

/* A map's key as a JSON object's name: its %v text. */
static void print_json_key(const struct value_printer *p,
			   const struct go_type *t, const uint8_t *b,
			   struct where w)
{
	struct value_printer text = *p;
	char *s = NULL;
	size_t len = 0;

	text.json = false;
	text.f = open_memstream(&s, &len);
	if (!text.f) {
		fputs_unlocked("\"\"", p->f);
		return;
	}
	print_value(&text, t, b, w);
	if (fclose(text.f))
		len = 0;
	json_print_bytes(p->f, s ? s : "", len);
	free(s);
}

/* map[k:v ...], sorted by key as fmt sorts it; in JSON an object. */
static void print_map(const struct value_printer *p, const struct go_type *t,
		      const uint8_t *b, struct where w)
{
	struct go_map_entry *e;
	struct go_map_types m;
	struct key_order o = { p, t->key };
	struct where kw = { w.depth + 1, w.exported };
	uint64_t count;
	size_t n, i, k;
	int err;

	if (!word(b)) {
		fputs_unlocked(p->json ? "null" : "map[]", p->f);
		return;
	}
	if (go_map_types__init(&m, t, p->go_minor)) {
		marker(p, "map[...]");
		return;
	}
	e = calloc(VALUE_MAP_MAX, sizeof(*e));
	if (!e) {
		marker(p, "map[...]");
		return;
	}
	err = go_map__entries(&m, word(b), map_read, (void *)p, e,
			      VALUE_MAP_MAX, &n, &count);
	if (err && err != -ENODATA) {
		marker(p, "<fault>");
		free(e);
		return;
	}
	if (err && !n && !count) {
		marker(p, "...");	/* not even its header */
		free(e);
		return;
	}
	/* the entries whose keys were read, in order; the rest are "..." */
	for (i = 0, k = 0; i < n; i++)
		if (key_read(p, t->key, e[i].key))
			e[k++] = e[i];
	if (k < n)
		err = -ENODATA;
	n = k;
	qsort_r(e, n, sizeof(*e), cmp_entries, &o);
	fputs_unlocked(p->json ? "{" : "map[", p->f);
	for (i = 0; i < n; i++) {
		if (i)
			putc_unlocked(p->json ? ',' : ' ', p->f);
		if (p->json)
			print_json_key(p, t->key, e[i].key, kw);
		else
			print_value(p, t->key, e[i].key, kw);
		putc_unlocked(':', p->f);
		print_value(p, t->elem, e[i].elem, kw);
	}
	if (err)
		fprintf(p->f, "%s%s", n ? (p->json ? "," : " ") : "",
			p->json ? "\"...\":null" : "...");
	fputs_unlocked(p->json ? "}" : "]", p->f);
	free(e);
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
		fputs_unlocked(b[0] ? "true" : "false", f);
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
		print_map(p, t, b, w);
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

char *value_print__unnamed_type(char *buf, size_t len, uint64_t addr)
{
	snprintf(buf, len, "<type 0x%llx>", (unsigned long long)addr);
	return buf;
}
