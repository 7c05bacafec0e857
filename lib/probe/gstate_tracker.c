// SPDX-License-Identifier: MIT
/* The goroutine-state tracker's sites, arguments and wait reasons per Go
 * version (gstate_tracker.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "goabi/go_abi.h"
#include "probe/gstate_tracker.h"
#include "probe/machine_code.h"
#include "probe/uprobes.h"

/* Longer wait reason strings are not the table we look for. */
#define REASON_MAX_LEN	64
/* The first Go version whose syscall fast path bypasses casgstatus. */
#define SYSCALL_FAST_PATH_MINOR	27
/* runtime2.go: _Gdead; 1.27's _Gdeadextra (an extra M's g, parked for a
 * cgo callback), a status no earlier version uses. */
#define DEAD_STATUSES	((1u << 6) | (1u << 11))

static const char *const part_names[GSTATE_PARKED] = {
	[GSTATE_ON_CPU] = "on-CPU",
	[GSTATE_RUNNABLE] = "runnable (P)",
	[GSTATE_OFF_CPU] = "runnable (CPU)",
	[GSTATE_SYSCALL] = "syscall",
};

/* Where a word argument PIECE is at entry, for BPF, which reads the
 * argument registers of MACHINE's ABIs (reg_by_dwarf(): go_abi__arg_reg()). */
static int arg_of_piece(uint16_t machine, const struct go_abi_value *v,
			struct gstate_arg *a)
{
	const struct go_abi_piece *p = &v->pieces[0];

	if (v->npieces != 1)
		return -EINVAL;
	if (p->kind == GO_PIECE_IREG && go_abi__arg_reg(machine, p->reg) &&
	    !p->reg_offset) {
		a->in_reg = 1;
		a->reg = p->reg;
		return 0;
	}
	if (p->kind == GO_PIECE_STACK && p->mem_offset > 0 &&
	    p->mem_offset < 256) {
		a->sp_offset = (__u16)p->mem_offset;
		return 0;
	}
	return -EINVAL;
}

/* Where casgstatus(gp *g, oldval, newval uint32) and preemptPark(gp *g)
 * find their arguments under BIN's ABI. */
static int place_arguments(const struct go_binary *bin,
			   struct gstate_config *c)
{
	static const struct go_type *const params[] = {
		&go_type_uintptr, &go_type_uint32, &go_type_uint32,
	};
	struct go_abi_sig sig = { .params = params, .nparams = 3,
				  .machine = bin->elf->machine };
	struct go_abi_layout l;
	int err;

	err = go_abi__assign(bin->abi, &sig, &l);
	if (err)
		return err;
	if (l.nargs != 3 || arg_of_piece(sig.machine, &l.args[0], &c->gp) ||
	    arg_of_piece(sig.machine, &l.args[2], &c->newval))
		err = gt_error(-ENOTSUP, "%s: cannot place runtime.casgstatus's arguments",
			       bin->elf->path);
	go_abi_layout__free(&l);
	return err;
}

/* The wait reason strings, from the table runtime.waitReason.String
 * indexes. */
static int read_reasons(const struct go_binary *bin, struct gstate_tracker *t)
{
	const struct go_func *fn;
	uint64_t table, n, ptrs[GSTATE_MAX_REASONS], len;
	const uint8_t *p;
	size_t i;
	int err;

	fn = go_binary__func_by_name(bin, "runtime.waitReason.String");
	if (!fn)
		return gt_error(-ENOTSUP, "%s has no runtime.waitReason.String to find the wait reasons by",
				bin->elf->path);
	err = machine_code__indexed_table(bin, fn, &table, &n);
	if (err)
		return err;
	if (!n || n > GSTATE_MAX_REASONS)
		return gt_error(-ENOTSUP, "%s: %llu wait reasons, more than the %d the tracker tells apart",
				bin->elf->path, (unsigned long long)n,
				GSTATE_MAX_REASONS);
	err = elf_file__read_pointers(bin->elf, table, n, 16, ptrs);
	if (err)
		return err;
	t->reasons = calloc(n, sizeof(*t->reasons));
	if (!t->reasons)
		return gt_error(-ENOMEM, "out of memory");
	t->nreasons = n;
	for (i = 0; i < n; i++) {
		err = elf_file__read_vaddr(bin->elf, table + i * 16 + 8, 8, &p);
		if (err)
			return err;
		memcpy(&len, p, 8);
		if (len > REASON_MAX_LEN ||
		    (len && elf_file__read_vaddr(bin->elf, ptrs[i], len, &p)))
			return gt_error(-ENOTSUP, "%s: wait reason %zu is not a string",
					bin->elf->path, i);
		t->reasons[i] = strndup(len ? (const char *)p : "", len);
		if (!t->reasons[i])
			return gt_error(-ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		if (!strcmp(t->reasons[i], "preempted"))
			break;
	if (i == n)
		return gt_error(-ENOTSUP, "%s: no \"preempted\" wait reason",
				bin->elf->path);
	t->config.preempted_reason = (__u32)i;
	return 0;
}

/* A probe at the entry of the runtime function NAME, with SITE as its
 * cookie. */
static int add_site(const struct go_binary *bin, struct gstate_tracker *t,
		    const char *name, enum gstate_site site)
{
	const struct go_func *fn = go_binary__func_by_name(bin, name);
	uint64_t off;

	if (!fn)
		return gt_error(-ENOTSUP, "%s has no %s to follow goroutines by",
				bin->elf->path, name);
	if (!machine_code__probeable(bin->elf, fn->addr))
		return gt_error(-ENOTSUP, "%s: the kernel cannot probe the entry of %s",
				bin->elf->path, name);
	if (elf_file__vaddr_to_offset(bin->elf, fn->addr, &off))
		return gt_error(-ENOTSUP, "%s: %s is not in the file",
				bin->elf->path, name);
	t->emulated[site] = machine_code__emulated_at(bin->elf, fn->addr);
	return uprobe_list__add(&t->sites, off, site);
}

static int find_sites(const struct go_binary *bin, struct gstate_tracker *t)
{
	int minor = go_version__minor(bin->version), err;

	err = add_site(bin, t, "runtime.casgstatus", GSTATE_SITE_CASGSTATUS);
	if (!err)
		err = add_site(bin, t, "runtime.preemptPark",
			       GSTATE_SITE_PREEMPT_PARK);
	if (err || (minor >= 0 && minor < SYSCALL_FAST_PATH_MINOR))
		return err;
	err = add_site(bin, t, "runtime.reentersyscall",
		       GSTATE_SITE_SYSCALL_ENTER);
	if (!err)
		err = add_site(bin, t, "runtime.exitsyscall",
			       GSTATE_SITE_SYSCALL_EXIT);
	return err;
}

int gstate_tracker__open(const struct go_binary *bin,
			 const struct goroutine_layout *layout,
			 struct gstate_tracker **out)
{
	struct gstate_tracker *t;
	int err;

	*out = NULL;
	if (bin->is_gccgo)
		return gt_error(-ENOTSUP, "cannot follow the goroutines of %s: it is built by gccgo, whose scheduler (libgo) has no transitions to probe",
				bin->elf->path);
	t = calloc(1, sizeof(*t));
	if (!t)
		return gt_error(-ENOMEM, "out of memory");
	t->hits_fd = -1;
	t->config.waitreason_offset = layout->waitreason_offset;
	t->config.dead_statuses = DEAD_STATUSES;
	err = place_arguments(bin, &t->config);
	if (!err)
		err = read_reasons(bin, t);
	if (!err)
		err = find_sites(bin, t);
	if (err) {
		gstate_tracker__close(t);
		return err;
	}
	*out = t;
	return 0;
}

const char *gstate_tracker__reason(const struct gstate_tracker *t,
				   uint32_t r)
{
	return r < t->nreasons ? t->reasons[r] : "";
}

const char *gstate_tracker__slot_name(const struct gstate_tracker *t,
				      uint32_t slot)
{
	if (slot < GSTATE_PARKED)
		return part_names[slot];
	return gstate_tracker__reason(t, slot - GSTATE_PARKED);
}

int gstate_tracker__attach(struct gstate_tracker *t,
			   struct bpf_program *site_prog,
			   struct bpf_program *switch_prog,
			   struct bpf_map *site_hits, bool *off,
			   const char *path, pid_t pid)
{
	int err;

	err = uprobes__attach(site_prog, path, pid, &t->sites, &t->probes);
	if (err)
		return err;
	t->hits_fd = bpf_map__fd(site_hits);
	t->off = off;
	t->switch_link = bpf_program__attach(switch_prog);
	if (!t->switch_link) {
		err = -errno;
		uprobes__detach(t->probes);
		t->probes = NULL;
		return gt_error(err, "cannot attach to sched_switch: %s",
				strerror(-err));
	}
	return 0;
}

void gstate_tracker__detach(struct gstate_tracker *t)
{
	bpf_link__destroy(t->switch_link);
	t->switch_link = NULL;
	uprobes__detach(t->probes);
	t->probes = NULL;
}

void gstate_tracker__stop(void *ctx)
{
	struct gstate_tracker *t = ctx;

	if (t->off)
		__atomic_store_n(t->off, true, __ATOMIC_SEQ_CST);
	gstate_tracker__detach(t);
	t->stopped = true;
}

bool gstate_tracker__stopped(const struct gstate_tracker *t)
{
	return t && t->stopped;
}

void gstate_tracker__close(struct gstate_tracker *t)
{
	size_t i;

	if (!t)
		return;
	gstate_tracker__detach(t);
	uprobe_list__free(&t->sites);
	for (i = 0; i < t->nreasons; i++)
		free(t->reasons[i]);
	free(t->reasons);
	free(t);
}
