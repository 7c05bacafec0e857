// SPDX-License-Identifier: MIT
/*
 * gotrace: one line per call of a Go function, with its arguments or
 * results, like bcc's trace.
 *
 * lib/trace/trace_plan.h turns each probe into a plan per function (the words
 * to read, the pointers to follow, the filter to test), typed by DWARF, by
 * the binary's runtime type data (conversions, method tables:
 * lib/goabi/go_typedata.h) or by the format string, and placed by the
 * binary's calling convention; functions alike share a plan. The
 * precompiled BPF program reads the plan of the probe's cookie from a map
 * (by its row: each function of each probe) and sends raw words, string
 * bytes, the memory %v values refer to and return addresses through a ring
 * buffer. Each probed binary is opened once (lib/trace/traced_binary.h);
 * each event's values are rebuilt by lib/trace/trace_event.h (%v through
 * lib/trace/value_print.h, interface types named from the type data), its
 * stack frames named by lib/cli/user_stack.h; this file lays out the lines.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "core/error.h"
#include "core/json.h"
#include "core/name_table.h"
#include "cli/overhead_limit.h"
#include "probe/probe_spec.h"
#include "probe/target.h"
#include "cli/skeleton.h"
#include "cli/tool.h"
#include "cli/user_stack.h"
#include "trace/trace_plan.h"
#include "trace/trace_event.h"
#include "trace/value_types.h"
#include "trace/trace_probe.h"
#include "trace/trace_row.h"
#include "trace/traced_binary.h"
#include "probe/uprobes.h"
#include "gotrace.h"
#include "gotrace.skel.h"

#define TOOL "gotrace"
#define MAX_PROBES 128

static struct env {
	struct tool_options tool;
	struct trace_probe probes[MAX_PROBES];
	size_t nprobes;
	bool rel_time;		/* -t */
	bool user_stack;	/* -U */
	long max_events;	/* -M */
	long str_max;		/* -Z */
	long value_size;	/* --value-size */
	long value_depth;	/* --value-depth */
	bool no_values;		/* --no-values */
} env = { .str_max = 80, .value_size = 1024, .value_depth = 4 };

enum { OPT_VALUE_SIZE = TOOL_OPT_OWN, OPT_VALUE_DEPTH, OPT_NO_VALUES };
#define MAX_VALUE_DEPTH	16

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Trace Go function calls: one line per call, with arguments or results.\n"
"\n"
"USAGE: gotrace [-h] [-p PID | -c CMD] [-t | -T] [-U] [-M MAX] [-Z STRLEN]\n"
"               [-d DURATION] [-r] [-v] [-j] [--max-overhead PCT]\n"
"               [--debug-file FILE] [--value-size BYTES] [--value-depth N]\n"
"               [--no-values] PROBE [PROBE ...]\n"
"\n"
"PROBE is [r:][BINARY:]FUNCTION [(FILTER)] [\"FORMAT\"[, ARG ...]] as in\n"
"bcc's trace. FUNCTION is a Go name ('main.(*T).Foo'; 'main.Sum': every\n"
"instantiation of a generic Sum); '*' matches any run of characters. r:\n"
"fires on every return of the function. Without FORMAT a probe prints every\n"
"argument as %v prints it, named from DWARF, (name=gopher, n=2), and r:\n"
"every result, => (abab, 6, true); stripped, the raw words the caller\n"
"passed in registers, (raw: 0x2a, 0xd); --no-values prints none, as bcc.\n"
"ARG is goargN, the Nth Go parameter (receiver first, from 1), in an r:\n"
"probe goretN or retval, or (DWARF) a parameter's or result's name, or\n"
"(TYPE)(ARG), ARG taken for TYPE as %T spells it, from the binary's type\n"
"data (stripped binaries too): (*main.T)(goarg1), ([]int)(goarg2); then\n"
".field selectors, which follow pointers as Go does (req.URL.Path), [N]\n"
"of an array, slice or string (past the length: <out of range>), or\n"
"len(ARG) and cap(ARG) of a string or slice.\n"
"FILTER: ARG OP CONST (OP == != < <= > >=; CONST a number, a \"string\",\n"
"true, false, nil), ARG (non-zero) or !ARG, joined by && and || (&&\n"
"first); evaluated in BPF: only matching calls reach the output.\n"
"With DWARF, values keep their declared types (%s prints a string or a\n"
"[]byte, %T an interface's dynamic type, or a type parameter's argument:\n"
"main.ID, not go.shape.int64), and %v (%+v with field names)\n"
"prints any value as Go's fmt does: structs, slices, strings, interfaces\n"
"by their dynamic type, errors by their message, pointers at the top as\n"
"&{...}, maps sorted by key; a value fmt would call String or Error on is\n"
"said first as <TYPE>. BPF reads at most --value-size bytes and\n"
"--value-depth references per event: \"...\" where it stopped.\n"
"Without DWARF (stripped binaries) there are no names; a method that\n"
"satisfies an interface keeps its types (its receiver's method table);\n"
"elsewhere fields, indexes, %T and %v need a (TYPE)(ARG), and the format\n"
"gives the other types: %d %i int (8 bytes), %hd int16, %hhd int8,\n"
"%w32d int32 (C23 widths w8 w16 w32 w64), %u %x unsigned (same\n"
"modifiers), %c rune, %p pointer, %s Go string (pointer and length), %t\n"
"bool, %f float64, %w32f float32; len()/cap() take a slice. They are\n"
"placed by the binary's calling convention: the register ABI (Go 1.17+),\n"
"the stack ABI (Go 1.15, 1.16) or gccgo's C ABI, so every goarg before the\n"
"last one used needs a conversion (its type decides where the next one\n"
"lives). Strings are read up to -Z bytes. A value in an XMM register\n"
"prints <xmm>, one that cannot be read <fault>, one behind a nil pointer\n"
"<nil>; results at a tail call print <tail call>.\n"
"-U prints the stack under each event: function+offset file:line from the\n"
"binary's pclntab (stripped binaries too), inlined calls included.\n"
"An entry probe fires at inlined copies too, as FUNC [inlined], values\n"
"from DWARF's location lists (<optimized out> where Go recorded none).\n"
"Probes may name different binaries (a program and its libgo). See gotrace(8).\n"
"\n"
"EXAMPLES:\n"
"    gotrace -p 181 'main.add' 'r:main.add'  # every argument, every result\n"
"    gotrace -p 181 'main.add \"%d %d\" goarg1, goarg2'\n"
"    gotrace -p 181 'r:main.add \"%d\" retval'   # its result\n"
"    gotrace -p 181 'main.add (goarg1 > 100) \"%d\" goarg1'  # filtered in BPF\n"
"    gotrace -p 181 'main.(*Server).handle \"%s %s\" req.Method, req.URL.Path'\n"
"    gotrace -p 181 'main.greet (name == \"bob\") \"%s %d\" name, len(name)'\n"
"    gotrace -p 181 'main.send \"%s %T\" buf, err'  # []byte, dynamic type\n"
"    gotrace -p 181 'main.(*Server).handle \"%+v\" req'  # the whole value\n"
"    gotrace -p 181 'main.(*S).h \"%p %v\" goarg1, (*net/http.Request)(goarg2)'\n"
"    gotrace -U --no-values -p 181 'main.add'       # stacks, no values\n"
"    gotrace -c ./app 'r:main.greet \"%s %d\" goret1, goret2'\n"
"    gotrace -t -M 10 ./app:'os.OpenFile \"%s %x\" goarg1, goarg2'  # stripped\n"
"    gotrace -p 181 'main.f' 'go:fmt.Sprintf \"%s\" goarg1'  # gccgo + libgo\n"
"    gotrace -Z 200 -j -p 181 'net/http.(*conn).serve'  # JSON lines\n"
"    gotrace -p 181 --max-overhead 5 'main.*'  # probes under 5% of a CPU\n"
"    gotrace --debug-file ./app.debug -c ./app 'main.f \"%s\" req.URL.Path'\n";

/* Besides -p -c -d -v -h --max-overhead --debug-file (lib/cli/tool.h). */
static const struct argp_option opts[] = {
	{ "timestamp", 't', NULL, 0, "Print a TIME column: seconds since the trace started", 0 },
	{ "time", 'T', NULL, 0, "Print a TIME column: HH:MM:SS", 0 },
	{ "user-stack", 'U', NULL, 0, "Print the user stack of each event", 0 },
	{ "max-events", 'M', "MAX", 0, "Exit after MAX events", 0 },
	{ "string-size", 'Z', "STRLEN", 0, "Bytes of a string to read (default 80, at most 512)", 0 },
	{ "regexp", 'r', NULL, 0, "FUNCTION is a regular expression", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines: the message, and its values typed in \"values\" (and by name in \"args\" or \"results\" without FORMAT)", 0 },
	{ "value-size", OPT_VALUE_SIZE, "BYTES", 0, "%v: bytes of memory read per event (default 1024, at most 4096)", 0 },
	{ "value-depth", OPT_VALUE_DEPTH, "N", 0, "%v: references followed from a value (default 4, at most 16)", 0 },
	{ "no-values", OPT_NO_VALUES, NULL, 0, "A probe without FORMAT prints no values (as bcc's trace)", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	size_t i;

	switch (key) {
	case 't':
		env.rel_time = true;
		return 0;
	case 'U':
		env.user_stack = true;
		return 0;
	case 'M':
		env.max_events = tool__parse_positive(arg, "MAX");
		return 0;
	case 'Z':
		env.str_max = tool__parse_positive(arg, "STRLEN");
		if (env.str_max > TRACE_STR_MAX)
			tool__usage_error("STRLEN %ld is over %d", env.str_max,
					  TRACE_STR_MAX);
		return 0;
	case OPT_VALUE_SIZE:
		env.value_size = tool__parse_positive(arg, "BYTES");
		if (env.value_size > TRACE_VALUE_MAX)
			tool__usage_error("--value-size %ld is over %d",
					  env.value_size, TRACE_VALUE_MAX);
		return 0;
	case OPT_VALUE_DEPTH:
		env.value_depth = tool__parse_positive(arg, "N");
		if (env.value_depth > MAX_VALUE_DEPTH)
			tool__usage_error("--value-depth %ld is over %d",
					  env.value_depth, MAX_VALUE_DEPTH);
		return 0;
	case OPT_NO_VALUES:
		env.no_values = true;
		return 0;
	case ARGP_KEY_ARG:
		if (env.nprobes == MAX_PROBES)
			tool__usage_error("more than %d probes", MAX_PROBES);
		if (trace_probe__parse(arg, &env.probes[env.nprobes]))
			tool__usage_error("bad probe '%s': %s", arg, gt_last_error());
		if (!env.nprobes)
			env.tool.spec = env.probes[0].target;
		env.nprobes++;
		return 0;
	case ARGP_KEY_END:
		if (env.tool.timestamp && env.rel_time)
			tool__usage_error("-t and -T cannot be used together");
		for (i = 0; env.no_values && i < env.nprobes; i++)
			env.probes[i].bare = false;
		return tool__parse_arg(&env.tool, key, arg, state);
	default:
		return tool__parse_arg(&env.tool, key, arg, state);
	}
}

/* The traced binary of BINARY (NULL: the target's), added to TBS when new. */
static int binary_of(const struct tool_target *t, struct traced_binaries *tbs,
		     const char *binary, struct traced_binary **out)
{
	char path[sizeof((*out)->path)];
	int err = 0;

	/* no BINARY: the executable of -c or -p */
	if (!binary && env.tool.cmd)
		snprintf(path, sizeof(path), "%s", t->cmd.path);
	else
		err = target__resolve(binary, env.tool.cmd ? 0 : env.tool.pid,
				      path, sizeof(path));
	if (err)
		return err;
	return traced_binaries__add(tbs, path,
				    strcmp(path, t->path) ? NULL : t->bin, out);
}

/* The functions of PROBE, in its binary. */
static int plan_probe(struct trace_plan_set *s, struct traced_binaries *tbs,
		      const struct tool_target *t, const struct trace_probe *probe)
{
	bool have_target = env.tool.pid || env.tool.cmd;
	struct probe_spec spec = { 0 };
	struct traced_binary *tb = NULL;
	int err;

	err = probe_spec__parse(probe->target, have_target, &spec);
	if (!err)
		err = binary_of(t, tbs, spec.binary, &tb);
	if (!err)
		err = traced_binary__plan_probe(tb, s, probe, spec.pattern,
						env.tool.regex);
	probe_spec__free(&spec);
	return err;
}

/* What events are printed with. */
struct printer {
	const struct trace_plan_set *set;
	const struct traced_binaries *bins;
	struct timespec start_mono;
	long nevents;
	const struct overhead_limit *limit;	/* --max-overhead, or NULL */
	unsigned int limit_rounds;	/* its detaching checks printed */
	struct value_memory mem;	/* %v: the event's chunks */
	char row_name[4096];		/* row_name()'s */
	struct trace_event whole;	/* a short event, made whole */
};

/* -U: how many frames of E to print. */
static uint32_t stack_depth(const struct trace_event *e)
{
	return e->nframes < STACK_MAX_FRAMES ? e->nframes : STACK_MAX_FRAMES;
}

/* The message of event E for ROW, its format with its values, to F. */
static void print_message(struct trace_event_ctx *ctx, FILE *f,
			  const struct trace_event *e,
			  const struct trace_row *row)
{
	struct trace_value_text text;
	struct trace_value v;
	size_t i;

	for (i = 0; i < row->nconvs; i++) {
		fputs(row->convs[i].prefix, f);
		trace_event__value(e, row, i, ctx, &v, &text);
		trace_conv__print(f, &row->convs[i], &v);
		free(text.text);
	}
	fputs(row->suffix, f);
}

/* -j: the message of event E for ROW, malloc()ed (NULL: out of memory). */
static char *format_message(struct trace_event_ctx *ctx,
			    const struct trace_event *e,
			    const struct trace_row *row)
{
	char *msg = NULL;
	size_t len = 0;
	FILE *m;

	/* a probe without values ('*' of a server: tens of thousands a second) */
	if (!row->nconvs)
		return strdup(row->suffix);
	m = open_memstream(&msg, &len);
	if (!m)
		return NULL;
	print_message(ctx, m, e, row);
	if (fclose(m)) {
		free(msg);
		return NULL;
	}
	return msg;
}

/* -j: value I of event E for ROW as a JSON value. */
static void print_json_value(struct trace_event_ctx *ctx, FILE *f,
			     const struct trace_event *e,
			     const struct trace_row *row, size_t i)
{
	struct trace_value_text text;
	struct trace_value v;

	if (row->convs[i].kind == TRACE_CONV_VALUE) {
		trace_event__print_value(e, row, i, ctx, f, true);
		return;
	}
	trace_event__value(e, row, i, ctx, &v, &text);
	trace_conv__print_json(f, &row->convs[i], &v);
	free(text.text);
}

/* -j: the values of event E for ROW: a JSON array, and for a bare probe
 * "args" or "results", an object of each value by its name. */
static void print_values(struct trace_event_ctx *ctx, FILE *f,
			 const struct trace_event *e,
			 const struct trace_row *row)
{
	size_t i;

	fputs(",\"values\":[", f);
	for (i = 0; i < row->nconvs; i++) {
		fputs(i ? "," : "", f);
		print_json_value(ctx, f, e, row, i);
	}
	fputc(']', f);
	if (!row->probe->bare)
		return;
	fprintf(f, ",\"%s\":{", row->probe->ret ? "results" : "args");
	for (i = 0; i < row->nconvs; i++) {
		fputs(i ? "," : "", f);
		json_print_string(f, row->convs[i].expr.text);
		fputc(':', f);
		print_json_value(ctx, f, e, row, i);
	}
	fputc('}', f);
}

static void print_event(struct printer *pr, const struct trace_event *e,
			const struct trace_row *row)
{
	struct traced_binary *tb = traced_binaries__of(pr->bins, row->bin);
	struct trace_event_ctx ctx = { tb, &pr->mem, env.str_max };
	char comm[17], tbuf[32] = "", goid[24] = "-", func[4096], *msg;

	memcpy(comm, e->comm, 16);
	comm[16] = '\0';
	if (env.rel_time) {
		double secs = (e->ts - (pr->start_mono.tv_sec * 1000000000ULL +
					pr->start_mono.tv_nsec)) / 1e9;

		snprintf(tbuf, sizeof(tbuf), "%.6f", secs);
	} else if (env.tool.timestamp) {
		tool__timestamp(tbuf, sizeof(tbuf));
	}
	if (env.tool.json) {
		printf("{");
		if (env.rel_time)
			printf("\"time\":%s,", tbuf);
		else if (*tbuf)
			printf("\"time\":\"%s\",", tbuf);
		printf("\"pid\":%u,\"tid\":%u,\"goid\":", e->pid, e->tid);
		if (e->goid)
			printf("%llu", (unsigned long long)e->goid);
		else
			printf("null");
		printf(",\"comm\":");
		json_print_string(stdout, comm);
		printf(",\"func\":");
		json_print_string(stdout, row->func);
		if (row->inlined)
			printf(",\"inlined\":true");
		printf(",\"msg\":");
		msg = format_message(&ctx, e, row);
		json_print_string(stdout, msg ? msg : "<out of memory>");
		free(msg);
		print_values(&ctx, stdout, e, row);
		if (env.user_stack) {
			printf(",\"stack\":[");
			user_stack__print(tb, stdout, true, e->pid,
					  e->start_code, e->frames,
					  stack_depth(e));
			printf("]");
		}
		printf("}\n");
	} else {
		if (e->goid)
			snprintf(goid, sizeof(goid), "%llu",
				 (unsigned long long)e->goid);
		if (env.rel_time)
			printf("%-14s ", tbuf);
		else if (env.tool.timestamp)
			printf("%-8s ", tbuf);
		if (row->inlined)
			snprintf(func, sizeof(func), "%s [inlined]", row->func);
		printf("%-7u %-7u %-7s %-15s %-16s ", e->pid, e->tid, goid,
		       comm, row->inlined ? func : row->func);
		print_message(&ctx, stdout, e, row);
		putchar('\n');
		if (env.user_stack) {
			user_stack__print(tb, stdout, false, e->pid,
					  e->start_code, e->frames,
					  stack_depth(e));
			putchar('\n');
		}
	}
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct printer *pr = ctx;
	const struct trace_event *e = data;

	if (trace_event__check(e, size, pr->set, &pr->mem))
		return 0;
	if (env.max_events && pr->nevents >= env.max_events)
		return 0;
	e = trace_event__whole(data, size, &pr->whole);
	print_event(pr, e, &pr->set->rows[e->row]);
	pr->nevents++;
	return tool__events_slice();
}

/* %v's maps sized to VT's types, slots and dynamic types (at least 1). */
static int size_value_maps(struct gotrace_bpf *obj, const struct value_types *vt)
{
	int err;

	err = bpf_map__set_max_entries(obj->maps.vtypes, vt->ntypes);
	if (!err && vt->nslots)
		err = bpf_map__set_max_entries(obj->maps.vslots, vt->nslots);
	if (!err && vt->ndyns)
		err = bpf_map__set_max_entries(obj->maps.vdyn, vt->ndyns);
	return err ? gt_error(err, "cannot size the %%v maps: %s", strerror(-err)) : 0;
}

static int store_value_maps(struct gotrace_bpf *obj, const struct value_types *vt)
{
	int fd = bpf_map__fd(obj->maps.vdyn), err;
	size_t i;

	err = skeleton__store_array(obj->maps.vtypes, vt->types, vt->ntypes);
	if (!err && vt->nslots)
		err = skeleton__store_array(obj->maps.vslots, vt->slots,
					    vt->nslots);
	for (i = 0; i < vt->ndyns && !err; i++)
		if (bpf_map_update_elem(fd, &vt->dyns[i].key, &vt->dyns[i].dyn,
					BPF_ANY))
			err = gt_error(-errno, "cannot store the %%v types: %s",
				       strerror(errno));
	return err;
}

/* Each row's plan, and the plans. */
static int store_plans(struct gotrace_bpf *obj, const struct trace_plan_set *s)
{
	__u32 *row_plans = calloc(s->nrows, sizeof(*row_plans));
	size_t i;
	int err;

	if (!row_plans)
		return gt_error(-ENOMEM, "out of memory");
	for (i = 0; i < s->nrows; i++)
		row_plans[i] = s->rows[i].plan;
	err = skeleton__store_array(obj->maps.row_plans, row_plans, s->nrows);
	if (!err)
		err = skeleton__store_array(obj->maps.plans, s->plans.plans,
					    s->plans.n);
	free(row_plans);
	return err;
}

/* Does a plan of S keep a register at a call's entry for its return? */
static bool plans_keep_entry_regs(const struct trace_plan_set *s)
{
	size_t i;

	for (i = 0; i < s->plans.n; i++)
		if (s->plans.plans[i].entry_keep)
			return true;
	return false;
}

/* OUT is the caller's to destroy, loaded or not. LIMIT: --max-overhead,
 * or NULL. */
static int load_bpf(struct gotrace_bpf **out, pid_t tgid,
		    const struct trace_plan_set *s,
		    const struct traced_binaries *tbs,
		    struct overhead_limit *limit)
{
	struct gotrace_bpf *obj = gotrace_bpf__open();
	int err;

	if (!obj)
		return skeleton__open_error();
	*out = obj;
	obj->rodata->target_tgid = tgid;
	obj->rodata->user_stack = env.user_stack;
	/* gccgo code is built without frame pointers: PC and caller only */
	obj->rodata->frame_pointers = !traced_binaries__has_gccgo(tbs);
	obj->rodata->value_size = env.value_size;
	obj->rodata->value_depth = env.value_depth;
	obj->rodata->value_str_max = env.str_max;
	value_types__set_map_layout(obj->rodata);
	err = s->vtypes.ntypes ? size_value_maps(obj, &s->vtypes) : 0;
	if (!err) {
		err = bpf_map__set_max_entries(obj->maps.plans, s->plans.n);
		if (err)
			err = gt_error(err, "cannot size the plans map: %s",
				       strerror(-err));
	}
	if (!err && plans_keep_entry_regs(s)) {
		err = bpf_map__set_max_entries(obj->maps.entry_regs,
					       ENTRY_REGS_MAX);
		if (err)
			err = gt_error(err, "cannot size the entry_regs map: %s",
				       strerror(-err));
	}
	if (!err)
		err = skeleton__load_limited(obj, obj->maps.row_plans, s->nrows,
					     limit, obj->progs.trace_hit);
	if (!err)
		err = store_plans(obj, s);
	if (!err && s->vtypes.ntypes)
		err = store_value_maps(obj, &s->vtypes);
	return err;
}

/* Each binary's probe sites, with the one program; LIMIT (or NULL) attaches
 * them, and may leave out or detach some. */
static int attach(struct gotrace_bpf *obj, pid_t tgid,
		  const struct traced_binaries *tbs,
		  struct overhead_limit *limit)
{
	struct traced_binary *tb;
	size_t i;
	int err = 0;

	for (i = 0; i < tbs->n && !err; i++) {
		tb = tbs->bins[i];
		if (!tb->sites.n)
			continue;
		if (limit)
			err = overhead_limit__attach(limit, obj->progs.trace_hit,
						     tb->path, tgid, &tb->sites);
		else
			err = uprobes__attach(obj->progs.trace_hit, tb->path,
					      tgid, &tb->sites, &tb->links);
	}
	return err;
}

/* How --max-overhead names a row: FUNC, or r:FUNC, in the printer's
 * buffer (valid until the next call). */
static const char *row_name(void *ctx, size_t idx)
{
	struct printer *pr = ctx;
	const struct trace_row *row = &pr->set->rows[idx];

	snprintf(pr->row_name, sizeof(pr->row_name), "%s%s",
		 row->probe->ret ? "r:" : "", row->func);
	return pr->row_name;
}

/* With -j, a line for each row the last check detached, or admission
 * left out. */
static void print_detached_json(const struct overhead_limit *l,
				const struct trace_plan_set *s)
{
	const struct overhead_index *d;
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		d = overhead_limit__detached(l, i);
		if (!d || d->round != l->rounds)
			continue;
		printf("{\"func\":");
		json_print_string(stdout, s->rows[i].func);
		if (d->refused && d->no_room)
			printf(",\"ret\":%s,\"partial\":true,\"not_attached\":true,"
			       "\"no_room\":true}\n",
			       s->rows[i].probe->ret ? "true" : "false");
		else if (d->refused)
			printf(",\"ret\":%s,\"partial\":true,\"not_attached\":true,"
			       "\"trial_rate\":%.0f}\n",
			       s->rows[i].probe->ret ? "true" : "false",
			       d->detached_rate);
		else
			printf(",\"ret\":%s,\"partial\":true,\"detached_after\":%llu,"
			       "\"detached_rate\":%.0f}\n",
			       s->rows[i].probe->ret ? "true" : "false",
			       (unsigned long long)d->detached_calls,
			       d->detached_rate);
	}
}

/* What names types and frames in each binary, as the probes need. */
static void load_names(const struct traced_binaries *tbs)
{
	bool types = false;
	size_t i, k;

	for (i = 0; i < env.nprobes; i++)
		for (k = 0; k < env.probes[i].nconvs; k++)
			types |= env.probes[i].convs[k].kind == TRACE_CONV_TYPE;
	traced_binaries__load_names(tbs, types, env.user_stack,
				    env.tool.verbose);
}

/* After each poll: with -j, what --max-overhead detached since; with -M,
 * whether that many events were printed (1: stop). */
static int after_poll(void *ctx)
{
	struct printer *pr = ctx;

	if (pr->limit && env.tool.json && pr->limit->rounds != pr->limit_rounds) {
		print_detached_json(pr->limit, pr->set);
		pr->limit_rounds = pr->limit->rounds;
	}
	return env.max_events && pr->nevents >= env.max_events;
}

/* How many functions S traces: rows of one name (an entry and an r:
 * probe, a function and its inlined copies) are one. */
static int count_functions(const struct trace_plan_set *s, size_t *n)
{
	struct name_table names;
	size_t i;
	int err, idx;

	err = name_table__init(&names, s->nrows);
	for (i = 0; i < s->nrows && !err; i++) {
		idx = name_table__index(&names, s->rows[i].func, 0);
		if (idx < 0)
			err = idx;
	}
	*n = names.n;
	name_table__free(&names);
	return err;
}

static int trace(struct gotrace_bpf *obj, struct printer *pr,
		 struct tool_target *target, struct overhead_limit *limit)
{
	struct tool_limit watch = {
		.limit = limit, .name_of = row_name, .ctx = pr,
		.after_poll = after_poll, .poll_ctx = pr,
	};
	struct ring_buffer *rb;
	struct tool_clock clock;
	size_t nfuncs;
	int err;

	err = count_functions(pr->set, &nfuncs);
	if (err)
		return err;
	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), handle_event, pr,
			      NULL);
	if (!rb)
		return gt_error(-errno, "cannot open the ring buffer: %s",
				strerror(errno));
	pr->limit = limit;
	watch.rb = rb;
	tool__print_tracing(&env.tool, nfuncs, NULL);
	if (!env.tool.json) {
		if (env.rel_time)
			printf("%-14s ", "TIME");
		else if (env.tool.timestamp)
			printf("%-8s ", "TIME");
		printf("%-7s %-7s %-7s %-15s %-16s %s\n", "PID", "TID", "GOID",
		       "COMM", "FUNC", "-");
	}
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &pr->start_mono);
	/* what the probes kept see while the others are tried, printed */
	err = tool_limit__admit(&watch, &env.tool, target, NULL);
	tool_clock__start(&clock, &env.tool);
	clock.limit = watch;
	if (!err)
		err = tool_target__release(target, &env.tool);
	if (!err)
		err = tool__read_events(rb, &clock, &env.tool, target,
					bpf_map__fd(obj->maps.lost), "",
					after_poll, pr);
	tool_limit__print_cost(&clock.limit);
	ring_buffer__free(rb);
	return err;
}

int main(int argc, char **argv)
{
	struct tool_target target = { .cmd.gate_fd = -1 };
	struct trace_plan_set set = { 0 };
	struct traced_binaries bins = { 0 };
	struct printer pr = { .set = &set, .bins = &bins };
	struct gotrace_bpf *obj = NULL;
	struct overhead_limit limit = { 0 }, *limited = NULL;
	size_t i;
	int err;

	tool__start(&env.tool, opts, parse_arg, "PROBE [PROBE ...]", doc,
		    argc, argv);
	set.str_max = env.str_max;
	set.verbose = env.tool.verbose;
	err = tool_target__open(&target, &env.tool);
	for (i = 0; i < env.nprobes && !err; i++)
		err = plan_probe(&set, &bins, &target, &env.probes[i]);
	/* with nothing left to trace, the list says why */
	if (!err)
		left_out__print(&set.left_out, stderr, TOOL,
				env.tool.verbose || !set.nrows);
	if (!err && !set.nrows)
		err = gt_error(-ENOENT, "nothing to trace");
	if (!err)
		err = traced_binaries__add_dyn_types(&bins, &set.vtypes);
	if (!err && env.tool.max_overhead) {
		err = overhead_limit__init(&limit, env.tool.max_overhead,
					   set.nrows);
		limited = &limit;
	}
	if (!err)
		err = load_bpf(&obj, target.tgid, &set, &bins, limited);
	if (!err)
		err = attach(obj, target.tgid, &bins, limited);
	if (!err) {
		load_names(&bins);
		err = trace(obj, &pr, &target, limited);
	}
	traced_binaries__free(&bins);
	gotrace_bpf__destroy(obj);
	overhead_limit__free(&limit);
	trace_plan_set__free(&set);
	tool_target__close(&target);
	for (i = 0; i < env.nprobes; i++)
		trace_probe__free(&env.probes[i]);
	return tool__exit_status(err);
}
