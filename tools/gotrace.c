// SPDX-License-Identifier: MIT
/*
 * gotrace: one line per call of a Go function, with its arguments or
 * results, like bcc's trace.
 *
 * Each probe's format string gives the types of the values it prints (no
 * DWARF yet); lib/go_abi.h places them for the binary's calling convention
 * (register ABI, stack ABI, gccgo's C ABI). The result is a plan per
 * function: for each word of each value, a register or a memory slot off
 * a register (SP for stack arguments). The precompiled BPF program reads
 * the plan from a map, keyed by the probe's cookie, and sends raw words and
 * string bytes through a ring buffer; this file formats the lines.
 *
 * Entry probes sit where SP is still SP at entry (the stack check's jump,
 * counted only when morestack is not taken, or the entry byte); r: probes
 * sit on every RET and tail JMP of the function (lib/exit_sites.h), never
 * on a uretprobe: Go copies stacks.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "error.h"
#include "exit_sites.h"
#include "func_probes.h"
#include "go_abi.h"
#include "go_binary.h"
#include "goroutine.h"
#include "json.h"
#include "probe_spec.h"
#include "target.h"
#include "tool.h"
#include "trace_probe.h"
#include "uprobes.h"
#include "gotrace.h"
#include "gotrace.skel.h"

#define TOOL "gotrace"
#define MAX_PROBES 64

static struct env {
	struct tool_options tool;
	struct trace_probe probes[MAX_PROBES];
	size_t nprobes;
	bool rel_time;		/* -t */
	long max_events;	/* -M */
	long str_max;		/* -Z */
} env = { .str_max = 80 };

const char *argp_program_version = TOOL " 0.1";
static const char doc[] =
"Trace Go function calls: one line per call, with arguments or results.\n"
"\n"
"USAGE: gotrace [-h] [-p PID | -c CMD] [-t | -T] [-M MAX] [-Z STRLEN]\n"
"               [-d DURATION] [-r] [-v] [-j] PROBE [PROBE ...]\n"
"\n"
"PROBE is [r:][BINARY:]FUNCTION [\"FORMAT\"[, ARG ...]] as in bcc's trace.\n"
"FUNCTION is a Go name ('main.(*T).Foo'); '*' matches any run of characters.\n"
"r: fires on every return of the function. ARG is goargN, the Nth Go\n"
"parameter (receiver first, from 1), or in an r: probe goretN / retval.\n"
"Without DWARF the format gives the types: %d %i int (8 bytes), %hd int16,\n"
"%hhd int8, %w32d int32 (C23 widths w8 w16 w32 w64), %u %x unsigned (same\n"
"modifiers), %c rune, %p pointer, %s Go string (pointer and length, read up\n"
"to -Z bytes), %t bool, %f float64, %w32f float32.\n"
"They are placed by the binary's calling convention: the register ABI (Go\n"
"1.17+), the stack ABI (Go 1.15, 1.16) or gccgo's C ABI. So every goarg\n"
"before the last one printed needs a conversion (its type decides where the\n"
"next one lives). A value in an XMM register prints <xmm>, one that cannot\n"
"be read <fault>; results at a tail call print <tail call>.\n"
"Not done yet: filters, DWARF types and names (struct fields, []byte,\n"
"slices, interfaces), -U stacks, results of Go 1.15/1.16 functions, probes\n"
"in two binaries at once, methods of generic types. See gotrace(8).\n"
"\n"
"EXAMPLES:\n"
"    gotrace -p 181 'main.add \"%d %d\" goarg1, goarg2'\n"
"    gotrace -p 181 'r:main.add \"%d\" retval'   # its result\n"
"    gotrace -c ./app 'r:main.greet \"%s %d\" goret1, goret2'\n"
"    gotrace -p 181 'main.f \"%w32d %t\" goarg1, goarg2'  # int32, bool\n"
"    gotrace -t -M 10 ./app:'os.OpenFile \"%s %x\" goarg1, goarg2'\n"
"    gotrace -Z 200 -j -p 181 'net/http.(*conn).serve'  # JSON lines\n";

static const struct argp_option opts[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only", 0 },
	{ "command", 'c', "CMD", 0, "Run CMD (with its arguments) and trace it until it exits", 0 },
	{ "timestamp", 't', NULL, 0, "Print a TIME column: seconds since the trace started", 0 },
	{ "time", 'T', NULL, 0, "Print a TIME column: HH:MM:SS", 0 },
	{ "max-events", 'M', "MAX", 0, "Exit after MAX events", 0 },
	{ "string-size", 'Z', "STRLEN", 0, "Bytes of a string to read (default 80, at most 512)", 0 },
	{ "duration", 'd', "DURATION", 0, "Total duration of trace, seconds", 0 },
	{ "regexp", 'r', NULL, 0, "FUNCTION is a regular expression", 0 },
	{ "verbose", 'v', NULL, 0, "Print each probe and libbpf's messages", 0 },
	{ "json", 'j', NULL, 0, "Print JSON lines", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 't':
		env.rel_time = true;
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
		return tool__parse_arg(&env.tool, key, arg, state);
	default:
		return tool__parse_arg(&env.tool, key, arg, state);
	}
}

/* Where one value of a conversion comes from: words of the event, each
 * put at VALUE_OFFSET of the value after a shift of REG_SHIFT bytes. */
struct value_src {
	const char *unreadable;	/* "<xmm>", or NULL */
	size_t nwords;
	struct {
		uint8_t word, value_offset, reg_shift, size;
	} w[4];
	int str;		/* index in the event's strings, or -1 */
};

/* One traced function of one probe: a plan in the BPF map. */
struct row {
	char *func;
	const struct trace_probe *probe;
	struct value_src src[TRACE_PROBE_MAX_ARGS];
};

struct trace_plan_set {
	struct row *rows;
	struct trace_plan *plans;
	size_t nrows, cap;
	struct uprobe_list probes;
};

static void plan_set__free(struct trace_plan_set *s)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		free(s->rows[i].func);
	free(s->rows);
	free(s->plans);
	uprobe_list__free(&s->probes);
}

/* A new row and its zeroed plan. */
static int plan_set__add_row(struct trace_plan_set *s, const char *func,
			     const struct trace_probe *probe, size_t *idx)
{
	if (s->nrows == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct row *r = realloc(s->rows, cap * sizeof(*r));
		struct trace_plan *p;

		if (!r)
			return gt_error(-ENOMEM, "out of memory");
		s->rows = r;
		p = realloc(s->plans, cap * sizeof(*p));
		if (!p)
			return gt_error(-ENOMEM, "out of memory");
		s->plans = p;
		s->cap = cap;
	}
	memset(&s->rows[s->nrows], 0, sizeof(s->rows[0]));
	memset(&s->plans[s->nrows], 0, sizeof(s->plans[0]));
	s->rows[s->nrows].func = strdup(func);
	if (!s->rows[s->nrows].func)
		return gt_error(-ENOMEM, "out of memory");
	s->rows[s->nrows].probe = probe;
	*idx = s->nrows++;
	return 0;
}

static int add_word(struct trace_plan *plan, struct value_src *src,
		    struct trace_word w, uint64_t value_offset,
		    unsigned int reg_shift)
{
	if (plan->nwords == TRACE_MAX_WORDS || src->nwords == 4)
		return gt_error(-E2BIG, "too many words to read in one probe");
	src->w[src->nwords].word = plan->nwords;
	src->w[src->nwords].value_offset = value_offset;
	src->w[src->nwords].reg_shift = reg_shift;
	src->w[src->nwords].size = w.size;
	src->nwords++;
	plan->words[plan->nwords++] = w;
	return 0;
}

/* A Go string of SRC: BPF copies its bytes from the pointer word (value
 * offset 0) for as many bytes as the length word (offset 8) says. */
static int plan_string(struct trace_plan *plan, struct value_src *src)
{
	int ptr = -1, len = -1;
	size_t i;

	for (i = 0; i < src->nwords; i++) {
		if (src->w[i].reg_shift || src->w[i].size != 8)
			continue;
		if (src->w[i].value_offset == 0)
			ptr = src->w[i].word;
		if (src->w[i].value_offset == 8)
			len = src->w[i].word;
	}
	if (ptr < 0 || len < 0)
		return gt_error(-EINVAL, "a string split in an unexpected way");
	if (plan->nstrs == TRACE_MAX_STRS)
		return gt_error(-E2BIG, "more than %d strings in one probe",
				TRACE_MAX_STRS);
	plan->strs[plan->nstrs].ptr_word = ptr;
	plan->strs[plan->nstrs].len_word = len;
	src->str = plan->nstrs++;
	return 0;
}

/* The words of V, a value of at most 16 bytes, into PLAN and SRC. */
static int plan_value(struct trace_plan *plan, struct value_src *src,
		      const struct go_abi_value *v)
{
	size_t i;
	uint64_t k;
	int err = 0;

	src->str = -1;
	if (!go_abi_value__bpf_readable(v)) {
		src->unreadable = "<xmm>";
		return 0;
	}
	for (i = 0; i < v->npieces && !err; i++) {
		const struct go_abi_piece *p = &v->pieces[i];
		struct trace_word w = { .size = p->size };

		if (p->kind == GO_PIECE_IREG) {
			w.kind = WORD_REG;
			w.reg = p->reg;
			w.size = 8;
			err = add_word(plan, src, w, p->value_offset, p->reg_offset);
			continue;
		}
		/* STACK is memory off SP */
		w.kind = WORD_MEM;
		w.reg = p->kind == GO_PIECE_STACK ? GO_REG_RSP : p->reg;
		for (k = 0; k < p->size && !err; k += 8) {
			w.size = p->size - k < 8 ? p->size - k : 8;
			w.offset = p->mem_offset + k;
			err = add_word(plan, src, w, p->value_offset + k, 0);
		}
	}
	if (err || v->type->kind != GO_KIND_STRING)
		return err;
	return plan_string(plan, src);
}

/*
 * Is NAME a method in gccgo's spelling, PKG.T.M (for value and pointer
 * receivers alike)? Its receiver then goes first, and gccgo passes a value
 * receiver by reference: goarg1 printed as a pointer (%p) stays one, any
 * other type is read through the pointer.
 */
static bool gccgo_method(const char *name)
{
	const char *base = strrchr(name, '/'), *dot;

	base = base ? base + 1 : name;
	if (strstr(base, ".."))
		return false;
	dot = strchr(base, '.');
	return dot && (dot = strchr(dot + 1, '.')) && !strchr(dot + 1, '.');
}

struct dw_find {
	uint64_t addr;
	Dwarf_Die die;
	bool found;
};

static int dw_func_at(Dwarf_Die *die, void *arg)
{
	struct dw_find *f = arg;
	Dwarf_Addr low;

	if (dwarf_lowpc(die, &low) || low != f->addr)
		return DWARF_CB_OK;
	f->die = *die;
	f->found = true;
	return DWARF_CB_ABORT;
}

/*
 * gccgo: do the results of the function at ADDR go to memory the caller
 * provides, whose address takes RDI (so the arguments start at RSI)? The
 * format of an entry probe says nothing of the results: their size comes
 * from the DWARF type of the function (gccgo makes one struct of several
 * results); over 16 bytes they go to memory. Without DWARF (stripped),
 * false: this version cannot tell.
 */
static bool gccgo_results_in_memory(const struct go_binary *bin, uint64_t addr)
{
	Dwarf *dw = dwarf_begin_elf(bin->elf->elf, DWARF_C_READ, NULL);
	struct dw_find f = { .addr = addr };
	Dwarf_Off off = 0, next;
	Dwarf_Attribute attr;
	Dwarf_Word size = 0;
	Dwarf_Die cu, type;
	size_t hsize;

	if (!dw)
		return false;
	while (!f.found &&
	       dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, dw_func_at, &f, 0);
		off = next;
	}
	if (f.found && dwarf_attr_integrate(&f.die, DW_AT_type, &attr) &&
	    dwarf_formref_die(&attr, &type) &&
	    dwarf_aggregate_size(&type, &size))
		size = 0;
	dwarf_end(dw);
	return size > 16;
}

/* The plan of PROBE for function NAME: place its values with the ABI. */
static int plan_row(struct trace_plan_set *s, const struct go_binary *bin,
		    const struct trace_probe *probe, const char *name,
		    uint64_t addr, size_t *idx)
{
	const struct go_type *types[TRACE_PROBE_MAX_ARGS], *mem_result;
	struct go_type big;
	struct go_abi_sig sig = { 0 };
	struct go_abi_layout layout = { 0 };
	struct trace_plan *plan;
	struct row *row;
	size_t n, i;
	int err;

	err = trace_probe__types(probe, probe->ret, types, &n);
	if (err)
		return err;
	if (probe->ret && n && bin->abi == GO_ABI_STACK)
		return gt_error(-ENOTSUP, "%s: results of stack-ABI (Go <= 1.16) functions are not supported yet",
				name);
	if (probe->ret) {
		sig.results = types;
		sig.nresults = n;
	} else if (n && bin->is_gccgo && gccgo_method(name)) {
		sig.recv = types[0];
		sig.params = types + 1;
		sig.nparams = n - 1;
	} else {
		sig.params = types;
		sig.nparams = n;
	}
	/* any result over 16 bytes stands for the real ones: it takes RDI */
	if (n && !probe->ret && bin->is_gccgo &&
	    gccgo_results_in_memory(bin, addr)) {
		err = go_type__init_array(&big, &go_type_uint8, 32);
		if (err)
			return err;
		mem_result = &big;
		sig.results = &mem_result;
		sig.nresults = 1;
	}
	/* A shape instantiation takes a hidden dictionary first. pclntab
	 * spells every instantiation F[...]: in a stripped binary an F[...]
	 * is taken for the shape one. */
	if ((strstr(name, "[go.shape.") || strstr(name, "[...]")) &&
	    !bin->is_gccgo)
		sig.dict = go_abi__dict_position(go_version__minor(bin->version));
	err = go_abi__assign(bin->abi, &sig, &layout);
	if (err)
		return gt_error(err, "%s: %s", name, gt_last_error());
	err = plan_set__add_row(s, name, probe, idx);
	if (err) {
		go_abi_layout__free(&layout);
		return err;
	}
	row = &s->rows[*idx];
	plan = &s->plans[*idx];
	for (i = 0; i < probe->nconvs && !err; i++) {
		const struct trace_conv *c = &probe->convs[i];
		const struct go_abi_value *v = c->arg == TRACE_ARG_GORET ?
			&layout.results[c->index] : &layout.args[c->index];

		err = plan_value(plan, &row->src[i], v);
	}
	go_abi_layout__free(&layout);
	if (err)
		return gt_error(err, "%s: %s", name, gt_last_error());
	return 0;
}

/* Where an entry probe of FN sees SP at entry and the arguments in place. */
static int entry_probe(const struct go_binary *bin, const struct func_probe *p,
		       uint64_t *offset, uint32_t *skip)
{
	int err;

	if ((!bin->is_gccgo && p->site.kind == PROBE_SITE_STACK_CHECK) ||
	    (p->site.addr == p->func_addr && !p->site.skip_flags)) {
		*offset = p->offset;
		*skip = p->site.skip_flags;
		return 0;
	}
	*skip = 0;
	err = elf_file__vaddr_to_offset(bin->elf, p->func_addr, offset);
	if (err)
		return gt_error(err, "%s: entry 0x%llx is not in the file", p->name,
				(unsigned long long)p->func_addr);
	return 0;
}

static int plan_function(struct trace_plan_set *s, const struct go_binary *bin,
			 const struct trace_probe *probe,
			 const struct func_probe *p)
{
	const struct go_func *fn = go_binary__func_at(bin, p->func_addr);
	struct exit_site *exits = NULL;
	size_t nexits = 0, i, idx = 0;
	uint64_t off;
	uint32_t skip;
	int err;

	if (!fn || fn->addr != p->func_addr)
		return gt_error(-EINVAL, "%s: no function at 0x%llx", p->name,
				(unsigned long long)p->func_addr);
	err = plan_row(s, bin, probe, p->name, fn->addr, &idx);
	if (err)
		return err;
	if (!probe->ret) {
		err = entry_probe(bin, p, &off, &skip);
		if (!err && env.tool.verbose)
			fprintf(stderr, "probe %s at offset 0x%llx\n", p->name,
				(unsigned long long)off);
		return err ? err : uprobe_list__add(&s->probes, off, COOKIE_MAKE(idx, skip, 0));
	}
	err = exit_sites__find(bin, fn, &exits, &nexits);
	if (err)
		return err;
	if (!nexits)
		fprintf(stderr, "%s: no return instruction, not traced\n", p->name);
	for (i = 0; i < nexits && !err; i++) {
		err = elf_file__vaddr_to_offset(bin->elf, exits[i].addr, &off);
		if (err) {
			err = gt_error(err, "%s: exit 0x%llx is not in the file",
				       p->name, (unsigned long long)exits[i].addr);
			break;
		}
		if (env.tool.verbose)
			fprintf(stderr, "probe r:%s at 0x%llx (%s)\n", p->name,
				(unsigned long long)exits[i].addr,
				exits[i].kind == EXIT_RET ? "ret" : "tail jmp");
		err = uprobe_list__add(&s->probes, off, COOKIE_MAKE(idx, 0,
				exits[i].kind == EXIT_TAIL_JMP));
	}
	free(exits);
	return err;
}

/* The functions of PROBE in the target binary. All probes of this version
 * go into the one binary of the first. */
static int plan_probe(struct trace_plan_set *s, const struct tool_target *t,
		      const struct trace_probe *probe)
{
	struct probe_spec spec = { 0 }, first = { 0 };
	bool have_target = env.tool.pid || env.tool.cmd;
	struct func_probes fp = { 0 };
	size_t i;
	int err;

	err = probe_spec__parse(probe->target, have_target, &spec);
	if (!err)
		err = probe_spec__parse(env.probes[0].target, have_target, &first);
	if (!err && (!spec.binary != !first.binary ||
		     (spec.binary && strcmp(spec.binary, first.binary))))
		err = gt_error(-ENOTSUP, "probes in more than one binary are not supported yet: '%s'",
			       probe->target);
	if (!err)
		err = func_probes__collect(t->bin, spec.pattern, env.tool.regex, &fp);
	if (!err && !fp.n)
		err = gt_error(-ENOENT, "no functions match '%s' in %s",
			       spec.pattern, t->path);
	for (i = 0; i < fp.n && !err; i++) {
		/* an inlined copy has no arguments in ABI places */
		if (fp.probes[i].inlined) {
			if (env.tool.verbose)
				fprintf(stderr, "%s: inlined copy at 0x%llx not traced\n",
					fp.probes[i].name,
					(unsigned long long)fp.probes[i].site.addr);
			continue;
		}
		err = plan_function(s, t->bin, probe, &fp.probes[i]);
	}
	func_probes__free(&fp);
	probe_spec__free(&spec);
	probe_spec__free(&first);
	return err;
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

struct printer {
	const struct trace_plan_set *set;
	struct timespec start_mono;
	long nevents;
};

/* The value of conversion I of ROW in event E. */
static void event_value(const struct trace_event *e, const struct row *row,
			size_t i, struct trace_value *v)
{
	const struct value_src *src = &row->src[i];
	uint8_t bytes[16] = { 0 };
	size_t k;

	memset(v, 0, sizeof(*v));
	if (e->tail) {
		v->unreadable = "<tail call>";
		return;
	}
	v->unreadable = src->unreadable;
	for (k = 0; k < src->nwords && !v->unreadable; k++) {
		unsigned int w = src->w[k].word;
		uint64_t word;

		if (w >= TRACE_MAX_WORDS || (e->word_faults >> w) & 1) {
			v->unreadable = "<fault>";
			break;
		}
		word = e->words[w] >> (8 * src->w[k].reg_shift);
		if (src->w[k].value_offset + src->w[k].size <= sizeof(bytes))
			memcpy(bytes + src->w[k].value_offset, &word,
			       src->w[k].size > 8 ? 8 : src->w[k].size);
	}
	memcpy(&v->word, bytes, sizeof(v->word));
	if (src->str >= 0 && src->str < TRACE_MAX_STRS && !v->unreadable) {
		uint64_t len;

		memcpy(&len, bytes + 8, sizeof(len));
		if ((e->str_faults >> src->str) & 1) {
			v->unreadable = "<fault>";
			return;
		}
		v->str = e->str[src->str];
		v->str_len = e->str_len[src->str];
		if (v->str_len > TRACE_STR_MAX)
			v->str_len = TRACE_STR_MAX;
		v->truncated = len > v->str_len;
	}
}

static void print_event(struct printer *pr, const struct trace_event *e,
			const struct row *row)
{
	const struct trace_probe *p = row->probe;
	struct trace_value v;
	char comm[17], tbuf[32] = "", *msg = NULL;
	size_t len = 0, i;
	FILE *m;

	memcpy(comm, e->comm, 16);
	comm[16] = '\0';
	if (env.rel_time) {
		double secs = (e->ts - (pr->start_mono.tv_sec * 1000000000ULL +
					pr->start_mono.tv_nsec)) / 1e9;

		snprintf(tbuf, sizeof(tbuf), "%.6f", secs);
	} else if (env.tool.timestamp) {
		time_t now = time(NULL);

		strftime(tbuf, sizeof(tbuf), "%H:%M:%S", localtime(&now));
	}
	m = open_memstream(&msg, &len);
	if (!m)
		return;
	for (i = 0; i < p->nconvs; i++) {
		fputs(p->convs[i].prefix, m);
		event_value(e, row, i, &v);
		trace_conv__print(m, &p->convs[i], &v);
	}
	fputs(p->suffix, m);
	fclose(m);
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
		printf(",\"msg\":");
		json_print_string(stdout, msg);
		printf("}\n");
	} else {
		char goid[24] = "-";

		if (e->goid)
			snprintf(goid, sizeof(goid), "%llu",
				 (unsigned long long)e->goid);
		if (env.rel_time)
			printf("%-14s ", tbuf);
		else if (env.tool.timestamp)
			printf("%-8s ", tbuf);
		printf("%-7u %-7u %-7s %-15s %-16s ", e->pid, e->tid, goid, comm,
		       row->func);
		fwrite(msg, 1, len, stdout);
		putchar('\n');
	}
	free(msg);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct printer *pr = ctx;
	const struct trace_event *e = data;

	if (size < sizeof(*e) || e->plan >= pr->set->nrows)
		return 0;
	if (env.max_events && pr->nevents >= env.max_events)
		return 0;
	print_event(pr, e, &pr->set->rows[e->plan]);
	pr->nevents++;
	return 0;
}

static int load_bpf(struct gotrace_bpf **out, pid_t tgid,
		    const struct go_binary *bin, const struct trace_plan_set *s)
{
	struct goroutine_layout layout = { 0 };
	struct gotrace_bpf *obj;
	__u32 i;
	int err;

	/* gccgo has no goid this program can read: the GOID column says - */
	if (!bin->is_gccgo) {
		err = goroutine_layout__find(bin, &layout);
		if (err)
			return err;
	}
	obj = gotrace_bpf__open();
	if (!obj)
		return gt_error(-errno, "cannot open BPF object: %s", strerror(errno));
	obj->rodata->target_tgid = tgid;
	obj->rodata->have_goid = !bin->is_gccgo;
	obj->rodata->goid_offset = layout.goid_offset;
	obj->rodata->tls_g_offset = layout.tls_g_offset;
	obj->rodata->str_max = env.str_max;
	err = bpf_map__set_max_entries(obj->maps.plans, s->nrows);
	if (!err)
		err = uprobes__prepare(obj->progs.trace_hit);
	if (!err)
		err = gotrace_bpf__load(obj);
	if (err) {
		gotrace_bpf__destroy(obj);
		return tool__load_error(err);
	}
	for (i = 0; i < s->nrows; i++) {
		if (bpf_map_update_elem(bpf_map__fd(obj->maps.plans), &i,
					&s->plans[i], BPF_ANY)) {
			err = gt_error(-errno, "cannot store a plan: %s",
				       strerror(errno));
			gotrace_bpf__destroy(obj);
			return err;
		}
	}
	*out = obj;
	return 0;
}

static int trace(struct gotrace_bpf *obj, const struct trace_plan_set *s,
		 struct tool_target *target)
{
	struct printer pr = { .set = s };
	struct ring_buffer *rb;
	struct timespec now;
	__u64 lost = 0;
	__u32 zero = 0;
	bool gone = false;
	int err = 0;

	rb = ring_buffer__new(bpf_map__fd(obj->maps.events), handle_event, &pr,
			      NULL);
	if (!rb)
		return gt_error(-errno, "cannot open the ring buffer: %s",
				strerror(errno));
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	fprintf(stderr, "Tracing %zu functions... Hit Ctrl-C to end.\n", s->nrows);
	if (!env.tool.json) {
		if (env.rel_time)
			printf("%-14s ", "TIME");
		else if (env.tool.timestamp)
			printf("%-8s ", "TIME");
		printf("%-7s %-7s %-7s %-15s %-16s %s\n", "PID", "TID", "GOID",
		       "COMM", "FUNC", "-");
	}
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &pr.start_mono);
	err = tool_target__release(target, &env.tool);
	while (!err && !exiting) {
		err = ring_buffer__poll(rb, 100);
		if (err == -EINTR)
			err = 0;
		if (err < 0) {
			err = gt_error(err, "cannot read events: %s", strerror(-err));
			break;
		}
		err = 0;
		fflush(stdout);
		if (env.max_events && pr.nevents >= env.max_events)
			break;
		if (env.tool.cmd && command__exited(&target->cmd))
			break;
		if (env.tool.pid && !target__pid_alive(env.tool.pid)) {
			gone = true;
			break;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (env.tool.duration &&
		    now.tv_sec - pr.start_mono.tv_sec >= env.tool.duration)
			break;
	}
	/* what the target sent before it exited */
	if (!err)
		ring_buffer__consume(rb);
	fflush(stdout);
	ring_buffer__free(rb);
	if (!bpf_map_lookup_elem(bpf_map__fd(obj->maps.lost), &zero, &lost) && lost)
		fprintf(stderr, "%llu events lost\n", (unsigned long long)lost);
	if (!err && gone)
		err = gt_error(-ESRCH, "process %d exited", env.tool.pid);
	return err;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.args_doc = "PROBE [PROBE ...]",
		.doc = doc,
	};
	struct tool_target target = { .cmd.gate_fd = -1 };
	struct trace_plan_set set = { 0 };
	struct gotrace_bpf *obj = NULL;
	struct uprobes *probes = NULL;
	size_t i;
	int err;

	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return 2;
	tool__init(&env.tool);
	err = tool_target__open(&target, &env.tool);
	for (i = 0; i < env.nprobes && !err; i++)
		err = plan_probe(&set, &target, &env.probes[i]);
	if (!err && !set.probes.n)
		err = gt_error(-ENOENT, "nothing to trace");
	if (!err)
		err = load_bpf(&obj, target.tgid, target.bin, &set);
	if (!err)
		err = uprobes__attach(obj->progs.trace_hit, target.path,
				      target.tgid, &set.probes, &probes);
	if (!err)
		err = trace(obj, &set, &target);
	uprobes__detach(probes);
	gotrace_bpf__destroy(obj);
	plan_set__free(&set);
	tool_target__close(&target);
	for (i = 0; i < env.nprobes; i++)
		trace_probe__free(&env.probes[i]);
	if (err) {
		fprintf(stderr, "%s: %s\n", TOOL, gt_last_error());
		return 1;
	}
	return 0;
}
