// SPDX-License-Identifier: MIT
/* A binary gotrace probes, and a trace's table of them (traced_binary.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "probe/machine_code.h"
#include "probe/target.h"
#include "trace/trace_plan.h"
#include "trace/trace_probe.h"
#include "trace/traced_binary.h"

/* Its segments' lowest address, the lowest executable one, and whether it
 * is a non-PIE executable, a PIE one (ET_DYN with an interpreter) or a
 * library. */
static void find_placement(struct traced_binary *tb)
{
	const struct elf_file *ef = tb->bin->elf;

	tb->first_vaddr = elf_file__first_vaddr(ef);
	tb->first_code = elf_file__first_code_vaddr(ef);
	if (ef->type == ET_EXEC)
		tb->placement = PLACED_AS_LINKED;
	else if (ef->program)
		tb->placement = PLACED_PIE;
	else
		tb->placement = PLACED_LIBRARY;
}

int traced_binary__open(struct traced_binary *tb, const char *path,
			struct go_binary *bin)
{
	int err = 0;

	memset(tb, 0, sizeof(*tb));
	if (strlen(path) >= sizeof(tb->path))
		return gt_error(-ENAMETOOLONG, "path too long: %s", path);
	strcpy(tb->path, path);
	if (bin) {
		tb->bin = bin;
	} else {
		err = go_binary__open(path, &tb->bin);
		tb->owns_bin = !err;
		/* BIN, its tool's target, was checked where it was opened */
		if (!err)
			err = elf_file__check_machine(tb->bin->elf);
	}
	if (err)
		return err;
	/* without DWARF the format strings type the values */
	if (go_dwarf__open(tb->bin, &tb->dw))
		tb->dw = NULL;
	machine_code__inline_ends_init(&tb->ends, tb->bin);
	find_placement(tb);
	return 0;
}

int traced_binary__plan_probe(struct traced_binary *tb,
			      struct trace_plan_set *s,
			      const struct trace_probe *probe,
			      const char *pattern, bool regex)
{
	struct func_probes fp = { 0 };
	const struct func_probe *p;
	size_t i, *order = NULL;
	int err = 0;

	/* conversions need the type data; without DWARF, methods are typed
	 * by their receiver's method table in it, when it can be read */
	if (trace_probe__converts(probe))
		err = traced_binary__open_typedata(tb);
	else if (!tb->dw && !tb->bin->is_gccgo &&
		 (probe->nconvs || probe->nterms || probe->bare) &&
		 traced_binary__open_typedata(tb))
		gt_error_clear();
	if (!err)
		err = func_probes__find(tb->bin, tb->path, pattern, regex, &fp);
	if (!err)
		err = func_probes__order_by_caller(&fp, &order);
	for (i = 0; i < fp.n && !err; i++) {
		p = &fp.probes[order[i]];
		if (p->inlined)
			err = trace_plan_set__add_inlined(s, tb->bin, tb->dw,
							  &tb->ends, probe, p,
							  &tb->sites);
		else
			err = trace_plan_set__add(s, tb->bin, tb->dw, tb->td,
						  probe, p, &tb->sites);
	}
	if (!err)
		err = left_out__add_probes(&s->left_out, &fp);
	free(order);
	func_probes__free(&fp);
	return err;
}

void traced_binary__load_names(struct traced_binary *tb, bool types, bool lines,
			       bool verbose)
{
	if (types && !tb->rtypes && go_rtypes__open(tb->bin, &tb->rtypes)) {
		tb->rtypes = NULL;
		if (verbose)
			fprintf(stderr, "%s: interface types print as addresses: %s\n",
				tb->path, gt_last_error());
	}
	if (lines && !tb->lines && pcline__open(tb->bin, &tb->lines)) {
		tb->lines = NULL;
		fprintf(stderr, "%s: stacks print as addresses: %s\n", tb->path,
			gt_last_error());
	}
}

bool traced_binary__file_address(struct traced_binary *tb, pid_t pid,
				 uint64_t start_code, uint64_t addr,
				 uint64_t *vaddr)
{
	switch (tb->placement) {
	case PLACED_AS_LINKED:
		*vaddr = addr;
		return true;
	case PLACED_PIE:
		*vaddr = addr - (start_code - tb->first_code);
		return true;
	default:
		break;
	}
	if (tb->bias_pid != pid) {
		if (target__load_bias(pid, tb->path, tb->first_vaddr, &tb->bias))
			return false;
		tb->bias_pid = pid;
	}
	*vaddr = addr - tb->bias;
	return true;
}

int traced_binary__open_typedata(struct traced_binary *tb)
{
	if (tb->td)
		return 0;
	traced_binary__load_names(tb, true, false, false);
	if (!tb->rtypes)
		return gt_error(-ENOTSUP, "%s: no type data to read types from",
				tb->path);
	return go_typedata__open(tb->bin, tb->rtypes, &tb->td);
}

/* Without DWARF: every descriptor of the type data that decodes. */
static int add_typedata_dyns(struct traced_binary *tb, struct value_types *vt)
{
	const struct go_typedata_entry *e;
	const struct go_type *t;
	size_t n, i;
	int err;

	err = go_typedata__all(tb->td, &e, &n);
	for (i = 0; i < n && !err; i++) {
		if (go_typedata__type(tb->td, e[i].addr, &t))
			continue;
		err = value_types__add_dyn(vt, e[i].addr - tb->first_code, t);
	}
	gt_error_clear();
	return err;
}

int traced_binary__add_dyn_types(struct traced_binary *tb,
				 struct value_types *vt)
{
	const struct go_dwarf_rtype *types;
	uint64_t start;
	size_t n, i;
	int err;

	if (tb->placement == PLACED_LIBRARY || tb->bin->is_gccgo)
		return 0;
	traced_binary__load_names(tb, true, false, false);
	if (!tb->rtypes)
		return 0;
	if (!tb->dw)
		return traced_binary__open_typedata(tb) ? 0 :
		       add_typedata_dyns(tb, vt);
	err = go_dwarf__runtime_types(tb->dw, &types, &n);
	if (err)
		return err == -ENOMEM ? err : 0;
	start = go_rtypes__start(tb->rtypes);
	for (i = 0; i < n && !err; i++)
		err = value_types__add_dyn(vt, start + types[i].offset -
					   tb->first_code, types[i].type);
	return err;
}

const struct go_type *traced_binary__dyn_type(struct traced_binary *tb,
					      pid_t pid, uint64_t start_code,
					      uint64_t addr)
{
	const struct go_type *t = NULL;
	uint64_t vaddr, start;

	if (!tb->rtypes ||
	    !traced_binary__file_address(tb, pid, start_code, addr, &vaddr))
		return NULL;
	if (!tb->dw) {
		if (tb->td && go_typedata__type(tb->td, vaddr, &t))
			t = NULL;
		return t;
	}
	start = go_rtypes__start(tb->rtypes);
	return vaddr < start ? NULL : go_dwarf__runtime_type(tb->dw, vaddr - start);
}

const char *traced_binary__type_name(struct traced_binary *tb, pid_t pid,
				     uint64_t start_code, uint64_t addr)
{
	const char *name;
	uint64_t vaddr;

	if (tb->rtypes &&
	    traced_binary__file_address(tb, pid, start_code, addr, &vaddr) &&
	    !go_rtypes__name(tb->rtypes, vaddr, &name))
		return name;
	return NULL;
}

const char *traced_binary__dict_name(struct traced_binary *tb, pid_t pid,
				     uint64_t start_code, uint64_t addr)
{
	uint64_t vaddr;

	if (!tb->dicts_loaded) {
		tb->dicts_loaded = true;
		if (go_dicts__load(&tb->dicts, tb->bin)) {
			go_dicts__free(&tb->dicts);
			gt_error_clear();
		}
	}
	if (!traced_binary__file_address(tb, pid, start_code, addr, &vaddr))
		return NULL;
	return go_dicts__name(&tb->dicts, vaddr);
}

/* Is there a function PKG.T.M or, for a pointer, PKG.(*T).M? */
static bool has_method(const struct go_binary *bin, const char *name,
		       const char *method)
{
	const char *base = name + (name[0] == '*'), *slash, *dot;
	char fn[1024];

	slash = strrchr(base, '/');
	dot = strchr(slash ? slash : base, '.');
	if (!dot)
		return false;
	snprintf(fn, sizeof(fn), "%.*s.%s.%s", (int)(dot - base), base,
		 dot + 1, method);
	if (go_binary__func_by_name(bin, fn))
		return true;
	if (name[0] != '*')
		return false;
	snprintf(fn, sizeof(fn), "%.*s.(*%s).%s", (int)(dot - base), base,
		 dot + 1, method);
	return go_binary__func_by_name(bin, fn);
}

bool traced_binary__name_has_fmt_method(const struct traced_binary *tb,
					const char *name)
{
	return has_method(tb->bin, name, "Error") ||
	       has_method(tb->bin, name, "String");
}

bool traced_binary__has_fmt_method(struct traced_binary *tb,
				   const struct go_type *t)
{
	size_t cap = tb->nmethods, i;
	bool has;

	for (i = 0; i < tb->nmethods; i++)
		if (tb->methods[i].type == t)
			return tb->methods[i].has;
	has = t->name && traced_binary__name_has_fmt_method(tb, t->name);
	if (!gt_ensure_mem((void **)&tb->methods, &cap, sizeof(*tb->methods),
			   tb->nmethods + 1)) {
		tb->methods[tb->nmethods].type = t;
		tb->methods[tb->nmethods++].has = has;
	}
	return has;
}

void traced_binary__close(struct traced_binary *tb)
{
	free(tb->methods);
	inline_ends__free(&tb->ends);
	uprobes__detach(tb->links);
	uprobe_list__free(&tb->sites);
	go_typedata__close(tb->td);
	go_rtypes__close(tb->rtypes);
	go_dicts__free(&tb->dicts);
	pcline__close(tb->lines);
	go_dwarf__close(tb->dw);
	if (tb->owns_bin)
		go_binary__close(tb->bin);
	memset(tb, 0, sizeof(*tb));
}

int traced_binaries__add(struct traced_binaries *tbs, const char *path,
			 struct go_binary *bin, struct traced_binary **out)
{
	struct traced_binary *tb = traced_binaries__find(tbs, path);
	int err;

	if (tb) {
		*out = tb;
		return 0;
	}
	if (tbs->n == TRACED_BINARIES_MAX)
		return gt_error(-E2BIG, "probes in more than %d binaries",
				TRACED_BINARIES_MAX);
	tb = calloc(1, sizeof(*tb));
	if (!tb)
		return gt_error(-ENOMEM, "out of memory");
	err = traced_binary__open(tb, path, bin);
	if (err) {
		traced_binary__close(tb);
		free(tb);
		return err;
	}
	tbs->bins[tbs->n++] = tb;
	*out = tb;
	return 0;
}

struct traced_binary *traced_binaries__find(const struct traced_binaries *tbs,
					    const char *path)
{
	size_t i;

	for (i = 0; i < tbs->n; i++)
		if (!strcmp(tbs->bins[i]->path, path))
			return tbs->bins[i];
	return NULL;
}

struct traced_binary *traced_binaries__of(const struct traced_binaries *tbs,
					  const struct go_binary *bin)
{
	size_t i;

	for (i = 0; i < tbs->n; i++)
		if (tbs->bins[i]->bin == bin)
			return tbs->bins[i];
	return NULL;
}

void traced_binaries__load_names(const struct traced_binaries *tbs,
				 bool types, bool lines, bool verbose)
{
	size_t i;

	for (i = 0; i < tbs->n; i++)
		traced_binary__load_names(tbs->bins[i],
					  types && !tbs->bins[i]->bin->is_gccgo,
					  lines, verbose);
}

int traced_binaries__add_dyn_types(const struct traced_binaries *tbs,
				   struct value_types *vt)
{
	size_t i;
	int err = 0;

	for (i = 0; i < tbs->n && !err && vt->has_ifaces; i++)
		err = traced_binary__add_dyn_types(tbs->bins[i], vt);
	return err;
}

bool traced_binaries__has_gccgo(const struct traced_binaries *tbs)
{
	size_t i;

	for (i = 0; i < tbs->n; i++)
		if (tbs->bins[i]->bin->is_gccgo)
			return true;
	return false;
}

void traced_binaries__free(struct traced_binaries *tbs)
{
	size_t i;

	for (i = 0; i < tbs->n; i++) {
		traced_binary__close(tbs->bins[i]);
		free(tbs->bins[i]);
	}
	memset(tbs, 0, sizeof(*tbs));
}
