// SPDX-License-Identifier: MIT
/*
 * lib/trace/trace_event.h: events as the ring buffer hands them over,
 * checked against the plan of their row (too short for its strings or
 * its %v memory: dropped), and their values rebuilt: %T named from the
 * type data (gc), from the descriptor's string (gccgo), "<type 0xADDR>"
 * when unknown, nil as NULL; %v printed as Go's fmt prints it. Plans come
 * from probes on the values fixture (tests/fixtures/values); events are
 * built here as BPF would send them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "trace/trace_event.h"
#include "trace/trace_plan.h"
#include "trace/trace_probe.h"
#include "trace/traced_binary.h"
#include "test.h"

/* A probe planned into a fixture's binary. */
struct planned {
	struct traced_binaries tbs;
	struct traced_binary *tb;
	struct trace_probe probe;
	struct trace_plan_set set;
};

/* TEXT planned into FIXTURE: 0, or the error of planning (a failed check). */
static int plan(const char *fixture, const char *text, struct planned *p)
{
	char path[4096];
	int err;

	memset(p, 0, sizeof(*p));
	p->set.str_max = 80;
	strcpy(path, test_fixture(fixture));
	err = trace_probe__parse(text, &p->probe);
	if (!err)
		err = traced_binaries__add(&p->tbs, path, NULL, &p->tb);
	if (!err)
		err = traced_binary__plan_probe(p->tb, &p->set, &p->probe,
						p->probe.target, false);
	if (!err && p->set.nrows != 1)
		err = -ENOENT;
	if (err)
		fprintf(stderr, "%s: %s: %s\n", fixture, text, gt_last_error());
	CHECK_EQ_INT(err, 0);
	return err;
}

static void planned__free(struct planned *p)
{
	trace_plan_set__free(&p->set);
	traced_binaries__free(&p->tbs);
	trace_probe__free(&p->probe);
}

static struct trace_event *new_event(void)
{
	struct trace_event *e = calloc(1, sizeof(*e));

	if (!e)
		abort();
	return e;
}

/* An event without strings ends after the words its plan reads, or with
 * -U after its frames; it is of a row of the set. */
TEST(check_header_and_row)
{
	struct trace_event *e = new_event(), *short_event;
	const size_t words = offsetof(struct trace_event, words);
	const size_t frames = offsetof(struct trace_event, frames);
	struct value_memory mem;
	struct planned p;
	size_t end;

	if (plan("values-go1.21-default", "main.showPoint", &p))
		goto out;
	CHECK_EQ_INT(trace_plan_set__plan(&p.set, 0)->nstrs, 0);
	CHECK_EQ_INT(trace_plan_set__plan(&p.set, 0)->nvroots, 0);
	CHECK(trace_plan_set__plan(&p.set, 0)->nwords >= 2);
	end = words + trace_plan_set__plan(&p.set, 0)->nwords *
		      sizeof(e->words[0]);
	CHECK_EQ_INT(trace_event__check(e, end, &p.set, &mem), 0);
	CHECK_EQ_INT(trace_event__check(e, end - 1, &p.set, &mem), -EINVAL);
	CHECK_EQ_INT(trace_event__check(e, 0, &p.set, &mem), -EINVAL);
	e->nframes = 3;
	CHECK_EQ_INT(trace_event__check(e, frames + 3 * sizeof(e->frames[0]),
					&p.set, &mem), 0);
	CHECK_EQ_INT(trace_event__check(e, frames + 3 * sizeof(e->frames[0]) -
					1, &p.set, &mem), -EINVAL);
	e->nframes = 0;
	/* nothing past SIZE is read (ASan says so if it is) */
	short_event = malloc(16);
	CHECK(short_event != NULL);
	if (short_event) {
		memset(short_event, 0xff, 16);
		CHECK_EQ_INT(trace_event__check(short_event, 16, &p.set, &mem),
			     -EINVAL);
		free(short_event);
	}
	e->row = 1;
	CHECK_EQ_INT(trace_event__check(e, sizeof(*e), &p.set, &mem), -EINVAL);
	e->row = 0;
	CHECK_EQ_INT(trace_event__check(e, sizeof(*e), &p.set, &mem), 0);
out:
	planned__free(&p);
	free(e);
}

/* A short event is read whole: what BPF did not send is zeros, and the
 * words it sent are kept; an event with its fixed part is itself. */
TEST(whole_event)
{
	const size_t words = offsetof(struct trace_event, words);
	struct trace_event *sent = new_event(), *whole = new_event();
	const struct trace_event *e;

	sent->row = 7;
	sent->nframes = 0;
	sent->words[0] = 42;
	sent->words[1] = 43;
	memset(whole, 0xff, sizeof(*whole));
	e = trace_event__whole(sent, words + sizeof(sent->words[0]), whole);
	CHECK(e == whole);
	CHECK_EQ_INT(e->row, 7);
	CHECK_EQ_INT(e->words[0], 42);
	CHECK_EQ_INT(e->words[1], 0);
	CHECK_EQ_INT(e->frames[STACK_MAX_FRAMES - 1], 0);
	CHECK_EQ_INT(e->str_len[0], 0);
	e = trace_event__whole(sent, offsetof(struct trace_event, str), whole);
	CHECK(e == sent);
	free(sent);
	free(whole);
}

/* An event ends after the strings its plan reads. */
TEST(check_strings)
{
	struct trace_event *e = new_event();
	const size_t strs = offsetof(struct trace_event, str);
	struct value_memory mem;
	struct planned p;

	if (plan("values-go1.21-default",
		 "main.(*english).Greet \"%s %s\" p.Name, e.Prefix", &p))
		goto out;
	CHECK_EQ_INT(trace_plan_set__plan(&p.set, 0)->nstrs, 2);
	CHECK_EQ_INT(trace_event__check(e, strs + 2 * sizeof(e->str[0]),
					&p.set, &mem), 0);
	CHECK_EQ_INT(trace_event__check(e, strs + 2 * sizeof(e->str[0]) - 1,
					&p.set, &mem), -EINVAL);
	CHECK_EQ_INT(trace_event__check(e, strs + sizeof(e->str[0]),
					&p.set, &mem), -EINVAL);
out:
	planned__free(&p);
	free(e);
}

/* Put a chunk of LEN bytes at ADDR into E's value area. */
static void add_chunk(struct trace_event *e, uint64_t addr, const void *data,
		      uint32_t len)
{
	struct trace_chunk h = { .addr = addr, .len = len };

	memcpy(e->value + e->value_len, &h, sizeof(h));
	e->value_len += sizeof(h);
	memcpy(e->value + e->value_len, data, len);
	e->value_len += (len + 7) & ~7U;
	e->nchunks++;
}

/* With %v, the memory BPF read follows; its chunks are parsed, but at a
 * tail call, which reads nothing. */
TEST(check_value_memory)
{
	struct trace_event *e = new_event();
	const size_t values = offsetof(struct trace_event, value);
	int64_t point[2] = { 3, 4 };
	struct value_memory mem = { .n = 9 };
	struct planned p;

	if (plan("values-go1.21-default", "main.showAny \"%v\" goarg1", &p))
		goto out;
	CHECK(trace_plan_set__plan(&p.set, 0)->nvroots >= 1);
	add_chunk(e, 0xc000010000, point, sizeof(point));
	CHECK_EQ_INT(trace_event__check(e, values + e->value_len, &p.set,
					&mem), 0);
	CHECK_EQ_INT(mem.n, 1);
	CHECK(mem.n == 1 && mem.chunks[0].addr == 0xc000010000 &&
	      mem.chunks[0].len == sizeof(point));
	/* cut short of its memory */
	CHECK_EQ_INT(trace_event__check(e, values + e->value_len - 1, &p.set,
					&mem), -EINVAL);
	CHECK_EQ_INT(trace_event__check(e, values - 1, &p.set, &mem), -EINVAL);
	/* chunks that do not fit in value_len */
	e->nchunks = 2;
	CHECK_EQ_INT(trace_event__check(e, sizeof(*e), &p.set, &mem), -EINVAL);
	/* where the plan reads no string, BPF moves the memory down over
	 * the strings' room */
	memmove(e->str, e->value, e->value_len);
	e->value_moved = 1;
	e->nchunks = 1;
	mem.n = 9;
	CHECK_EQ_INT(trace_event__check(e, offsetof(struct trace_event, str) +
					e->value_len, &p.set, &mem), 0);
	CHECK(mem.n == 1 && mem.chunks[0].addr == 0xc000010000 &&
	      mem.chunks[0].len == sizeof(point));
	CHECK_EQ_INT(trace_event__check(e, offsetof(struct trace_event, str) +
					e->value_len - 1, &p.set, &mem), -EINVAL);
	/* a tail call read nothing: nothing to parse */
	e->tail = 1;
	mem.n = 9;
	CHECK_EQ_INT(trace_event__check(e, values - 1, &p.set, &mem), 0);
	CHECK_EQ_INT(mem.n, 0);
out:
	planned__free(&p);
	free(e);
}

/* The runtime type DWARF names NAME in TB: its descriptor's address. */
static uint64_t descriptor_of(struct traced_binary *tb, const char *name)
{
	const struct go_dwarf_rtype *types;
	size_t n, i;

	traced_binary__load_names(tb, true, false, false);
	if (!tb->dw || !tb->rtypes ||
	    go_dwarf__runtime_types(tb->dw, &types, &n))
		return 0;
	for (i = 0; i < n; i++)
		if (types[i].type->name && !strcmp(types[i].type->name, name))
			return go_rtypes__start(tb->rtypes) + types[i].offset;
	return 0;
}

/* The %T name of main.showAny's argument, planned in P, for an event
 * whose type word is WORD and (gccgo) whose type string is STR, named with
 * P's binary or without (TB NULL): "(nil)" for NULL. */
static const char *type_of(struct planned *p, struct traced_binary *tb,
			   uint64_t word, const char *str)
{
	static char out[256];
	const struct trace_src *src = &p->set.rows[0].src[0];
	struct trace_event *e = new_event();
	struct trace_event_ctx ctx = { tb, NULL, 80 };
	struct trace_value_text text;
	struct trace_value v;

	if (src->type_word >= 0)
		e->words[src->type_word] = word;
	if (src->str >= 0 && str) {
		e->str_len[src->str] = strlen(str);
		memcpy(e->str[src->str], str, e->str_len[src->str]);
	}
	trace_event__value(e, &p->set.rows[0], 0, &ctx, &v, &text);
	snprintf(out, sizeof(out), "%s", v.type_name ? v.type_name : "(nil)");
	CHECK(!text.text && !v.unreadable);
	free(e);
	return out;
}

/* %T of gc: the type data's name of the descriptor, "<type 0xADDR>" for
 * one it does not know or without the binary, NULL for nil. */
TEST(type_gc)
{
	struct planned p;
	uint64_t addr;
	char unknown[64];

	if (plan("values-go1.21-default", "main.showAny \"%T\" goarg1", &p))
		goto out;
	CHECK(p.set.rows[0].src[0].type_word >= 0);
	CHECK(p.set.rows[0].src[0].str < 0);
	addr = descriptor_of(p.tb, "main.point");
	CHECK(addr != 0);
	CHECK_EQ_STR(type_of(&p, p.tb, addr, NULL), "main.point");
	CHECK_EQ_STR(type_of(&p, p.tb, 0x10, NULL), "<type 0x10>");
	snprintf(unknown, sizeof(unknown), "<type 0x%llx>",
		 (unsigned long long)addr);
	CHECK_EQ_STR(type_of(&p, NULL, addr, NULL), unknown);
	CHECK_EQ_STR(type_of(&p, p.tb, 0, NULL), "(nil)");
out:
	planned__free(&p);
}

/* %T of gccgo: BPF read the descriptor's string, package paths quoted
 * between tabs, which the name leaves out. */
TEST(type_gccgo)
{
	struct planned p;

	if (plan("values-gccgo", "main.showAny \"%T\" goarg1", &p))
		goto out;
	CHECK(p.set.rows[0].src[0].str >= 0);
	CHECK_EQ_STR(type_of(&p, p.tb, 0x1000, "*\tmain\tmain.point"),
		     "*main.point");
	CHECK_EQ_STR(type_of(&p, p.tb, 0x1000, "main.point"), "main.point");
out:
	planned__free(&p);
}

/* %v of a struct in registers: Go's fmt, as text and as JSON. */
TEST(value_text)
{
	struct trace_event *e = new_event();
	struct trace_value_text text;
	struct trace_event_ctx ctx;
	struct value_memory mem = { 0 };
	struct trace_value v;
	struct planned p;
	const struct trace_src *src;
	char out[256] = "";
	FILE *f;

	if (plan("values-go1.21-default", "main.showPoint \"%v\" goarg1", &p))
		goto out;
	src = &p.set.rows[0].src[0];
	CHECK_EQ_INT(src->nwords, 2);
	if (src->nwords != 2)
		goto out;
	e->words[src->w[0].word] = (uint64_t)-1;	/* X */
	e->words[src->w[1].word] = 2;			/* Y */
	ctx = (struct trace_event_ctx){ p.tb, &mem, 80 };
	trace_event__value(e, &p.set.rows[0], 0, &ctx, &v, &text);
	CHECK(v.str && v.str_len == 6 && !memcmp(v.str, "{-1 2}", 6));
	CHECK(!v.unreadable);
	free(text.text);

	f = fmemopen(out, sizeof(out), "w");
	CHECK(f != NULL);
	if (!f)
		goto out;
	trace_event__print_value(e, &p.set.rows[0], 0, &ctx, f, true);
	fclose(f);
	CHECK_EQ_STR(out, "{\"X\":-1,\"Y\":2}");
out:
	planned__free(&p);
	free(e);
}

int main(void)
{
	RUN(check_header_and_row);
	RUN(whole_event);
	RUN(check_strings);
	RUN(check_value_memory);
	RUN(type_gc);
	RUN(type_gccgo);
	RUN(value_text);
	return TEST_SUMMARY();
}
