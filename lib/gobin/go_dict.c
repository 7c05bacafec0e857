// SPDX-License-Identifier: MIT
/* A binary's dictionaries by address (go_dict.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/mem.h"
#include "gobin/go_dict.h"

struct go_dict_sym {
	uint64_t addr;
	char *name;
};

static int add_dict(void *ctx, const char *name, uint64_t value)
{
	struct go_dicts *d = ctx;
	int err;

	if (!strstr(name, "..dict."))
		return 0;
	err = gt_ensure_mem((void **)&d->syms, &d->cap, sizeof(*d->syms),
			    d->n + 1);
	if (err)
		return err;
	d->syms[d->n].addr = value;
	d->syms[d->n].name = strdup(name);
	if (!d->syms[d->n].name)
		return gt_error(-ENOMEM, "out of memory");
	d->n++;
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct go_dict_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int go_dicts__load(struct go_dicts *d, const struct go_binary *bin)
{
	int err;

	memset(d, 0, sizeof(*d));
	err = elf_file__each_symbol(bin->elf, add_dict, d);
	if (err == -ENOENT)
		err = 0;	/* stripped: no names */
	if (!err && d->n)
		qsort(d->syms, d->n, sizeof(*d->syms), by_addr);
	return err;
}

const char *go_dicts__name(const struct go_dicts *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (d->syms[mid].addr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->syms[lo].addr == vaddr ? d->syms[lo].name : NULL;
}

void go_dicts__free(struct go_dicts *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->syms[i].name);
	free(d->syms);
	memset(d, 0, sizeof(*d));
}
