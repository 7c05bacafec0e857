// SPDX-License-Identifier: MIT
/*
 * Fuzz go_abi: type descriptions as corrupt DWARF could produce them
 * (wrong sizes, cycles, fields anywhere), placed under every ABI. Every
 * piece must stay inside its value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "goabi/go_abi.h"

#define NTYPES 16
#define NFIELDS 4
#define NVALUES 24

static uint8_t next(const uint8_t **p, const uint8_t *end)
{
	return *p < end ? *(*p)++ : 0;
}

static void check_value(const struct go_abi_value *v)
{
	for (size_t i = 0; i < v->npieces; i++) {
		const struct go_abi_piece *p = &v->pieces[i];

		if (v->npieces > GO_ABI_MAX_PIECES ||
		    p->value_offset + p->size > v->type->size)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum go_abi abis[] = {
		GO_ABI_REGISTER, GO_ABI_STACK, GO_ABI_C,
	};
	const uint8_t *p = data, *end = data + size;
	struct go_type types[NTYPES];
	struct go_field fields[NTYPES][NFIELDS];
	const struct go_type *params[NVALUES], *results[NVALUES];
	struct go_abi_sig sig = { .params = params, .results = results };
	struct go_abi_layout l;

	memset(types, 0, sizeof(types));
	memset(fields, 0, sizeof(fields));
	for (int i = 0; i < NTYPES; i++) {
		struct go_type *t = &types[i];

		t->kind = next(&p, end) % (GO_KIND_ARRAY + 2);
		t->size = next(&p, end);
		if (t->size & 0x80)
			t->size = (t->size & 0x7f) << 20;
		t->align = next(&p, end) % 10;
		t->elem = &types[next(&p, end) % NTYPES];
		t->len = next(&p, end);
		t->nfields = next(&p, end) % (NFIELDS + 1);
		t->fields = fields[i];
		for (size_t f = 0; f < NFIELDS; f++) {
			fields[i][f].type = &types[next(&p, end) % NTYPES];
			fields[i][f].offset = next(&p, end);
		}
	}
	sig.recv = next(&p, end) & 1 ? &types[next(&p, end) % NTYPES] : NULL;
	sig.nparams = next(&p, end) % NVALUES;
	sig.nresults = next(&p, end) % NVALUES;
	sig.dict = next(&p, end) % 4;
	for (int i = 0; i < NVALUES; i++) {
		params[i] = &types[next(&p, end) % NTYPES];
		results[i] = &types[next(&p, end) % NTYPES];
	}
	for (size_t k = 0; k < 2 * sizeof(abis) / sizeof(abis[0]); k++) {
		sig.machine = k & 1 ? EM_AARCH64 : EM_X86_64;
		if (go_abi__assign(abis[k / 2], &sig, &l))
			continue;
		for (size_t i = 0; i < l.nargs; i++)
			check_value(&l.args[i]);
		for (size_t i = 0; i < l.nresults; i++)
			check_value(&l.results[i]);
		go_abi_layout__free(&l);
	}
	return 0;
}
