// SPDX-License-Identifier: MIT
/*
 * %v over memory as BPF leaves it in an event: chunks built here by hand,
 * printed as Go's fmt prints the same values (the expected strings are
 * fmt's, written from Go's rules: go doc fmt); what BPF did not read
 * prints "...", what faulted <fault>. And the value types that tell BPF
 * what to follow.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace/value_print.h"
#include "trace/value_types.h"
#include "test.h"

/* An event's value area, built chunk by chunk. */
struct mem_builder {
	uint8_t buf[2 * TRACE_VALUE_MAX];
	size_t len;
	unsigned int n;
};

static void add_chunk(struct mem_builder *b, uint64_t addr, const void *data,
		      uint32_t len, bool fault)
{
	struct trace_chunk h = { .addr = addr, .len = fault ? 0 : len,
				 .fault = fault };

	memcpy(b->buf + b->len, &h, sizeof(h));
	b->len += sizeof(h);
	if (!fault) {
		memcpy(b->buf + b->len, data, len);
		b->len += (len + 7) & ~7U;
	}
	b->n++;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* Types of the cases: main.point {X, Y int}, main.person {Name string;
 * Tags []string; Home *main.point; note string; Any interface{}; Err
 * error}, errors.errorString {s string}. */
static struct go_type point_t, person_t, errstr_t, errptr_t, pointptr_t,
	strings_t, iface_error_t, named_t;
static struct go_field point_f[2], person_f[6], errstr_f[1];

static void init_types(void)
{
	point_f[0] = (struct go_field){ .name = "X", .type = &go_type_int };
	point_f[1] = (struct go_field){ .name = "Y", .type = &go_type_int };
	go_type__init_struct(&point_t, "main.point", point_f, 2);
	pointptr_t = (struct go_type){ .kind = GO_KIND_PTR, .size = 8, .align = 8,
				       .name = "*main.point", .elem = &point_t };
	strings_t = (struct go_type){ .kind = GO_KIND_SLICE, .size = 24, .align = 8,
				      .name = "[]string", .elem = &go_type_string };
	errstr_f[0] = (struct go_field){ .name = "s", .type = &go_type_string };
	go_type__init_struct(&errstr_t, "errors.errorString", errstr_f, 1);
	errptr_t = (struct go_type){ .kind = GO_KIND_PTR, .size = 8, .align = 8,
				     .name = "*errors.errorString",
				     .elem = &errstr_t };
	iface_error_t = (struct go_type){ .kind = GO_KIND_IFACE, .size = 16, .align = 8,
				    .name = "error" };
	person_f[0] = (struct go_field){ .name = "Name", .type = &go_type_string };
	person_f[1] = (struct go_field){ .name = "Tags", .type = &strings_t };
	person_f[2] = (struct go_field){ .name = "Home", .type = &pointptr_t };
	person_f[3] = (struct go_field){ .name = "note", .type = &go_type_string };
	person_f[4] = (struct go_field){ .name = "Any", .type = &go_type_eface };
	person_f[5] = (struct go_field){ .name = "Err", .type = &iface_error_t };
	go_type__init_struct(&person_t, "main.person", person_f, 6);
	named_t = go_type_int;
	named_t.name = "main.level";
}

/* Dynamic types by descriptor address: 0x1000 int, 0x2000 main.point,
 * 0x3000 *errors.errorString, 0x4000 *main.point, 0x5000 main.level. */
static const struct go_type *dyn_type(void *ctx, uint64_t addr)
{
	switch (addr) {
	case 0x1000: return &go_type_int;
	case 0x2000: return &point_t;
	case 0x3000: return &errptr_t;
	case 0x4000: return &pointptr_t;
	case 0x5000: return &named_t;
	default: return NULL;
	}
}

static const char *type_name(void *ctx, uint64_t addr)
{
	return addr == 0x9000 ? "main.secret" : NULL;
}

/* main.level has a String method */
static bool has_fmt_method(void *ctx, const struct go_type *t)
{
	return t == &named_t;
}

static bool as_json;
static int go_minor = 27;

/* T printed from BYTES (or at ADDR when BYTES is NULL) over B's memory. */
static char *print(const struct mem_builder *b, bool plus,
		   const struct go_type *t, const uint8_t *bytes, uint64_t addr)
{
	static char out[4096];
	struct value_memory mem;
	struct value_printer p = {
		.plus = plus, .json = as_json, .go_minor = go_minor,
		.mem = &mem, .dyn_type = dyn_type,
		.type_name = type_name, .has_fmt_method = has_fmt_method,
	};

	CHECK_EQ_INT(value_memory__parse(&mem, b->buf, b->len, b->n), 0);
	p.f = fmemopen(out, sizeof(out), "w");
	if (bytes)
		value_print(&p, t, bytes);
	else
		value_print_at(&p, t, addr);
	fclose(p.f);
	return out;
}

/* alice: a person at 0x10000 with its strings, tags, home and error. */
static void build_alice(struct mem_builder *b, uint8_t *person)
{
	uint8_t tags[32], home[16], estr[16];

	memset(person, 0, 96);
	put64(person + 0, 0x20000);	/* Name */
	put64(person + 8, 5);
	put64(person + 16, 0x30000);	/* Tags */
	put64(person + 24, 2);
	put64(person + 32, 2);
	put64(person + 40, 0x40000);	/* Home */
	put64(person + 48, 0x20005);	/* note */
	put64(person + 56, 7);
	put64(person + 64, 0x1000);	/* Any: int 7 at 0x50000 */
	put64(person + 72, 0x50000);
	put64(person + 80, 0x60000);	/* Err: itab at 0x60000 */
	put64(person + 88, 0x70000);
	add_chunk(b, 0x10000, person, 96, false);
	add_chunk(b, 0x20000, "aliceprivate", 12, false);
	put64(tags, 0x20000);
	put64(tags + 8, 2);
	put64(tags + 16, 0x20002);
	put64(tags + 24, 3);
	add_chunk(b, 0x30000, tags, 32, false);
	put64(home, 3);
	put64(home + 8, 4);
	add_chunk(b, 0x40000, home, 16, false);
	put64(home, 7);
	add_chunk(b, 0x50000, home, 8, false);
	put64(home, 0);
	put64(home + 8, 0x3000);
	add_chunk(b, 0x60000, home, 16, false);
	put64(estr, 0x80000);
	put64(estr + 8, 4);
	add_chunk(b, 0x70000, estr, 16, false);
	add_chunk(b, 0x80000, "late", 4, false);
}

TEST(struct_whole)
{
	struct mem_builder b = { 0 };
	uint8_t person[96], ptr[8];

	build_alice(&b, person);
	CHECK_EQ_STR(print(&b, false, &person_t, person, 0),
		     "{alice [al ice] 0x40000 private 7 late}");
	CHECK_EQ_STR(print(&b, true, &person_t, NULL, 0x10000),
		     "{Name:alice Tags:[al ice] Home:0x40000 note:private Any:7 Err:late}");
	/* a pointer at the top prints &{...}; nested ones as addresses */
	put64(ptr, 0x10000);
	person_t.name = "main.person";
	{
		struct go_type pp = { .kind = GO_KIND_PTR, .size = 8, .align = 8,
				      .name = "*main.person", .elem = &person_t };

		CHECK_EQ_STR(print(&b, false, &pp, ptr, 0),
			     "&{alice [al ice] 0x40000 private 7 late}");
		put64(ptr, 0);
		CHECK_EQ_STR(print(&b, false, &pp, ptr, 0), "<nil>");
	}
}

TEST(cut_and_fault)
{
	struct mem_builder b = { 0 };
	uint8_t person[96], s[16];

	memset(person, 0, sizeof(person));
	put64(person, 0x20000);
	put64(person + 8, 10);
	put64(person + 16, 0x30000);	/* tags never read */
	put64(person + 24, 2);
	put64(person + 64, 0x2000);	/* Any: a point at a fault */
	put64(person + 72, 0x90000);
	add_chunk(&b, 0x20000, "abcd", 4, false);	/* 4 of 10 bytes */
	add_chunk(&b, 0x90000, NULL, 16, true);
	CHECK_EQ_STR(print(&b, false, &person_t, person, 0),
		     "{abcd... [...] <nil>  <fault> <nil>}");
	/* not read at all */
	CHECK_EQ_STR(print(&b, false, &person_t, NULL, 0x12345), "...");
	/* a string whose bytes faulted */
	put64(s, 0x90000);
	put64(s + 8, 3);
	CHECK_EQ_STR(print(&b, false, &go_type_string, s, 0), "<fault>");
}

TEST(interfaces)
{
	struct mem_builder b = { 0 };
	uint8_t v[16], pt[16];

	put64(pt, 5);
	put64(pt + 8, 6);
	add_chunk(&b, 0xa000, pt, 16, false);
	/* a struct, a pointer to it (the top: &{...}), nil, an unknown type */
	put64(v, 0x2000);
	put64(v + 8, 0xa000);
	CHECK_EQ_STR(print(&b, true, &go_type_eface, v, 0), "{X:5 Y:6}");
	put64(v, 0x4000);
	CHECK_EQ_STR(print(&b, false, &go_type_eface, v, 0), "&{5 6}");
	put64(v, 0);
	CHECK_EQ_STR(print(&b, false, &go_type_eface, v, 0), "<nil>");
	put64(v, 0x9000);
	CHECK_EQ_STR(print(&b, false, &go_type_eface, v, 0), "<main.secret>");
	/* a type with a String method fmt would call: said first */
	put64(v, 0x5000);
	put64(pt, 3);
	add_chunk(&b, 0xb000, pt, 8, false);
	put64(v + 8, 0xb000);
	CHECK_EQ_STR(print(&b, false, &go_type_eface, v, 0), "<main.level>3");
}

TEST(errors)
{
	struct mem_builder b = { 0 };
	uint8_t v[16], itab[16], es[16], holder[16];
	struct go_field hf[1] = { { .name = "err", .type = &iface_error_t } };
	struct go_type h;

	put64(itab + 8, 0x3000);
	add_chunk(&b, 0xc000, itab, 16, false);
	put64(es, 0xd000);
	put64(es + 8, 4);
	add_chunk(&b, 0xe000, es, 16, false);
	add_chunk(&b, 0xd000, "boom", 4, false);
	put64(v, 0xc000);
	put64(v + 8, 0xe000);
	CHECK_EQ_STR(print(&b, false, &iface_error_t, v, 0), "boom");
	/* through an unexported field fmt cannot call Error(): an address */
	go_type__init_struct(&h, "main.holder", hf, 1);
	memcpy(holder, v, 16);
	CHECK_EQ_STR(print(&b, true, &h, holder, 0), "{err:0xe000}");
	put64(v, 0);
	CHECK_EQ_STR(print(&b, false, &iface_error_t, v, 0), "<nil>");
}

TEST(scalars)
{
	struct mem_builder b = { 0 };
	uint8_t v[16];
	double re = 1, im = -2;
	float f = 0.1f;
	struct go_type arr;

	memcpy(v, &re, 8);
	memcpy(v + 8, &im, 8);
	CHECK_EQ_STR(print(&b, false, &go_type_complex128, v, 0), "(1-2i)");
	im = 1.5;
	re = 0;
	memcpy(v, &re, 8);
	memcpy(v + 8, &im, 8);
	CHECK_EQ_STR(print(&b, false, &go_type_complex128, v, 0), "(0+1.5i)");
	memcpy(v, &f, 4);
	CHECK_EQ_STR(print(&b, false, &go_type_float32, v, 0), "0.1");
	re = 1e21;
	memcpy(v, &re, 8);
	CHECK_EQ_STR(print(&b, false, &go_type_float64, v, 0), "1e+21");
	v[0] = 0xfd;
	CHECK_EQ_STR(print(&b, false, &go_type_int8, v, 0), "-3");
	CHECK_EQ_STR(print(&b, false, &go_type_uint8, v, 0), "253");
	v[0] = 1;
	CHECK_EQ_STR(print(&b, false, &go_type_bool, v, 0), "true");
	go_type__init_array(&arr, &go_type_uint16, 3);
	memcpy(v, "\x01\x00\x02\x00\xff\xff", 6);
	CHECK_EQ_STR(print(&b, false, &arr, v, 0), "[1 2 65535]");
	/* a nil slice and a nil map */
	memset(v, 0, 16);
	CHECK_EQ_STR(print(&b, false, &strings_t, v, 0), "[]");
}

/* Integers at their edges; a slice's elements read in one piece, then
 * those after it in a chunk of their own, then "..." where BPF stopped. */
TEST(ints_and_slices)
{
	struct mem_builder b = { 0 };
	struct go_type ints = { .kind = GO_KIND_SLICE, .size = 24, .align = 8,
				.name = "[]int", .elem = &go_type_int };
	uint8_t v[24], elems[24];

	put64(v, 0x8000000000000000ULL);
	CHECK_EQ_STR(print(&b, false, &go_type_int, v, 0),
		     "-9223372036854775808");
	put64(v, UINT64_MAX);
	CHECK_EQ_STR(print(&b, false, &go_type_uint64, v, 0),
		     "18446744073709551615");
	CHECK_EQ_STR(print(&b, false, &go_type_int, v, 0), "-1");
	put64(v, 0);
	CHECK_EQ_STR(print(&b, false, &go_type_int, v, 0), "0");
	put64(elems, 10);
	put64(elems + 8, (uint64_t)-20);
	put64(elems + 16, 30);
	add_chunk(&b, 0x20000, elems, 16, false);	/* 2 of 5 */
	add_chunk(&b, 0x20010, elems + 16, 8, false);	/* the 3rd apart */
	put64(v, 0x20000);
	put64(v + 8, 5);
	put64(v + 16, 5);
	CHECK_EQ_STR(print(&b, false, &ints, v, 0), "[10 -20 30 ...]");
	put64(v + 8, 2);
	CHECK_EQ_STR(print(&b, false, &ints, v, 0), "[10 -20]");
}

/* -j: objects, arrays, strings, numbers, null; markers as strings */
TEST(json)
{
	struct mem_builder b = { 0 };
	uint8_t person[96], v[16];

	build_alice(&b, person);
	as_json = true;
	CHECK_EQ_STR(print(&b, false, &person_t, person, 0),
		     "{\"Name\":\"alice\",\"Tags\":[\"al\",\"ice\"],\"Home\":\"0x40000\","
		     "\"note\":\"private\",\"Any\":7,\"Err\":\"late\"}");
	put64(v, 0x123);
	put64(v + 8, 5);
	CHECK_EQ_STR(print(&b, false, &go_type_string, v, 0), "\"...\"");
	memset(v, 0, sizeof(v));
	CHECK_EQ_STR(print(&b, false, &go_type_eface, v, 0), "null");
	CHECK_EQ_STR(print(&b, false, &strings_t, v, 0), "[]");
	as_json = false;
}

/* map[int]int: one hmap bucket (Go 1.21: tophash >= 5 marks a used slot,
 * stored out of order) and one Swiss group (Go 1.27: a clear high bit of
 * the slot's control byte); printed sorted by key, as fmt does. */
TEST(maps)
{
	struct go_type m = { .kind = GO_KIND_MAP, .size = 8, .align = 8,
			     .key = &go_type_int, .elem = &go_type_int };
	struct mem_builder b = { 0 }, sw = { 0 };
	uint8_t hdr[48] = { 0 }, bucket[8 + 64 + 64 + 8] = { 0 }, v[8];
	uint8_t group[8 + 8 * 16];

	put64(hdr, 2);			/* count */
	hdr[9] = 0;			/* B */
	put64(hdr + 16, 0x2000);	/* buckets */
	add_chunk(&b, 0x1000, hdr, 48, false);
	bucket[0] = 9;			/* slot 0: key 30 */
	bucket[1] = 1;			/* empty */
	bucket[2] = 200;		/* slot 2: key -4 */
	put64(bucket + 8, 30);
	put64(bucket + 8 + 16, (uint64_t)-4);
	put64(bucket + 72, 300);
	put64(bucket + 72 + 16, 16);
	add_chunk(&b, 0x2000, bucket, sizeof(bucket), false);
	put64(v, 0x1000);
	go_minor = 21;
	CHECK_EQ_STR(print(&b, false, &m, v, 0), "map[-4:16 30:300]");
	/* the buckets not read: what is known, then ... */
	b.n = 1;
	b.len = 16 + 48;
	CHECK_EQ_STR(print(&b, false, &m, v, 0), "map[...]");

	memset(hdr, 0, sizeof(hdr));
	put64(hdr, 3);			/* used */
	put64(hdr + 16, 0x3000);	/* dirPtr: one group, dirLen 0 */
	add_chunk(&sw, 0x1000, hdr, 48, false);
	memset(group, 0, sizeof(group));
	put64(group, 0x8080808000000080ULL);	/* slots 1, 2, 3 used */
	put64(group + 8 + 16, 7);
	put64(group + 8 + 16 + 8, 70);
	put64(group + 8 + 32, 5);
	put64(group + 8 + 32 + 8, 50);
	put64(group + 8 + 48, 6);
	put64(group + 8 + 48 + 8, 60);
	add_chunk(&sw, 0x3000, group, sizeof(group), false);
	go_minor = 27;
	CHECK_EQ_STR(print(&sw, false, &m, v, 0), "map[5:50 6:60 7:70]");
	as_json = true;
	CHECK_EQ_STR(print(&sw, false, &m, v, 0), "{\"5\":50,\"6\":60,\"7\":70}");
	as_json = false;
	put64(v, 0);
	CHECK_EQ_STR(print(&sw, false, &m, v, 0), "map[]");
}

TEST(parse_rejects_overruns)
{
	struct mem_builder b = { 0 };
	struct value_memory m;

	add_chunk(&b, 0x1000, "abcdefgh", 8, false);
	CHECK_EQ_INT(value_memory__parse(&m, b.buf, b.len, 1), 0);
	CHECK_EQ_INT(value_memory__parse(&m, b.buf, b.len - 1, 1), -EINVAL);
	CHECK_EQ_INT(value_memory__parse(&m, b.buf, b.len, 2), -EINVAL);
	CHECK_EQ_INT(value_memory__parse(&m, b.buf, b.len, TRACE_MAX_CHUNKS + 1),
		     -EINVAL);
}

/* What BPF is told to follow in a person: Name, each Tags element's
 * string through the slice, note, Any, Err; not Home (a pointer fmt
 * prints as an address); a followed error through its pointer. */
TEST(value_types)
{
	struct value_types vt;
	const struct trace_vslot *sl;
	__u32 id, sid;

	CHECK_EQ_INT(value_types__init(&vt, 27), 0);
	CHECK_EQ_INT(value_types__id(&vt, &person_t, &id), 0);
	CHECK_EQ_INT(vt.types[id].size, 96);
	CHECK_EQ_INT(vt.types[id].nslots, 5);
	sl = &vt.slots[vt.types[id].first_slot];
	CHECK_EQ_INT(sl[0].kind, REF_STRING);
	CHECK_EQ_INT(sl[0].offset, 0);
	CHECK_EQ_INT(sl[1].kind, REF_SLICE);
	CHECK_EQ_INT(sl[1].offset, 16);
	sid = sl[1].vtype;
	CHECK_EQ_INT(vt.types[sid].size, 16);
	CHECK_EQ_INT(vt.types[sid].nslots, 1);
	CHECK_EQ_INT(vt.slots[vt.types[sid].first_slot].kind, REF_STRING);
	CHECK_EQ_INT(sl[2].kind, REF_STRING);
	CHECK_EQ_INT(sl[2].offset, 48);
	CHECK_EQ_INT(sl[3].kind, REF_EFACE);
	CHECK_EQ_INT(sl[4].kind, REF_IFACE);
	CHECK(vt.has_ifaces);
	/* the same type, the same id */
	CHECK_EQ_INT(value_types__id(&vt, &person_t, &sid), 0);
	CHECK_EQ_INT(sid, id);
	/* dynamic types: pointers are direct; errors followed anywhere,
	 * pointers to structs at the top only, ints through their data */
	CHECK_EQ_INT(value_types__add_dyn(&vt, 0x3000, &errptr_t), 0);
	CHECK_EQ_INT(value_types__add_dyn(&vt, 0x4000, &pointptr_t), 0);
	CHECK_EQ_INT(value_types__add_dyn(&vt, 0x1000, &go_type_int), 0);
	CHECK_EQ_INT(vt.dyns[0].dyn.flags, DYN_DIRECT | DYN_FOLLOW);
	CHECK_EQ_INT(vt.types[vt.dyns[0].dyn.vtype].nslots, 1);
	CHECK_EQ_INT(vt.dyns[1].dyn.flags, DYN_DIRECT | DYN_FOLLOW_ROOT);
	CHECK_EQ_INT(vt.types[vt.dyns[1].dyn.vtype].size, 16);
	CHECK_EQ_INT(vt.dyns[2].dyn.flags, 0);
	CHECK_EQ_INT(vt.types[vt.dyns[2].dyn.vtype].size, 8);
	CHECK(value_types__direct_iface(&pointptr_t));
	CHECK(!value_types__direct_iface(&point_t));
	value_types__free(&vt);
}

int main(void)
{
	init_types();
	RUN(struct_whole);
	RUN(cut_and_fault);
	RUN(interfaces);
	RUN(errors);
	RUN(scalars);
	RUN(ints_and_slices);
	RUN(json);
	RUN(maps);
	RUN(parse_rejects_overruns);
	RUN(value_types);
	return TEST_SUMMARY();
}
