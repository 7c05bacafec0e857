/* SPDX-License-Identifier: MIT */
/*
 * One hand-built Go 1.20+ pclntab and its inline tree, with answers worked
 * out by hand, for the tests of its decoders (test_pcline,
 * test_pclntab_inline) and the template their fuzzers splice inputs into
 * (tests/fuzz/pclntab_input.h). One function, main.f at FAKE_TEXT, 0x100
 * bytes, in a.go; inl.a inlined into it at line 11, inl.b into inl.a at
 * line 30, both in b.go:
 *
 *   [0x00,0x10)  main.f  a.go:10
 *   [0x10,0x20)  inl.b   b.go:20  (inline index 1)
 *   [0x20,0x30)  inl.a   b.go:30  (inline index 0)
 *   [0x30,0x100) main.f  a.go:11, where inl.a's parentPc 0x40 points
 *
 * inl.b's parentPc 0x20 is in inl.a.
 *
 * tab[], the table (little-endian; offsets in bytes):
 *     0  header: magic 0xfffffff1, quantum 1 at 6, pointer size 8 at 7;
 *        words: nfunc 1 at 8, nfiles 2 at 16, textStart FAKE_TEXT at 24,
 *        then the offsets of the parts below: funcnametab at 32, cutab
 *        at 40, filetab at 48, pctab at 56, functab (pclnOff) at 64
 *    72  FAKE_NAMES    "main.f" at 0, "inl.a" at 7, "inl.b" at 13
 *    96  FAKE_CUTAB    main.f's unit: file 0 at 0 (a.go), 1 at 5 (b.go)
 *   104  FAKE_FILETAB  "a.go", "b.go"
 *   120  FAKE_PCTAB    the pc-value tables (offset 0 is none):
 *          +1  FAKE_PCFILE  file 0, 1, 0               (8 bytes)
 *          +9  FAKE_PCLN    line 10, 20, 30, 11        (10 bytes)
 *         +19  FAKE_PCINL   inline index -1, 1, 0, -1  (10 bytes)
 *        each a list of varint pairs (zigzag value delta, PC delta) from
 *        value -1 at the entry, ended by a zero byte
 *   152  FAKE_FUNCTAB  entryoff 0, funcoff 16; the end, 0x100
 *   168  FAKE_FUNC     main.f's _func: nameOff 0 at +4, pcfile
 *        FAKE_PCFILE at +20, pcln FAKE_PCLN at +24, npcdata 3 at +28,
 *        cuOffset 0 at +32, nfuncdata 4 at +43; pcdata[] at +44, its
 *        [2] (InlTreeIndex) FAKE_PCINL at +52; funcdata[] at +56, none
 *        (~0) but [3] (InlTree) at +68: 0, the tree at gofunc + 0
 *   240  8 spare bytes, zero, to FAKE_TABLE_SIZE
 *
 * gofunc[], the funcdata (moduledata.gofunc, mapped at FAKE_GOFUNC): the
 * tree, inlinedCall {funcID u8, _ [3], nameOff, parentPc, startLine}:
 *     0  inl.a: nameOff 7 at +4, parentPc 0x40 at +8
 *    16  inl.b: nameOff 13 at +4, parentPc 0x20 at +8
 */
#ifndef GOTOOLS_TEST_FAKE_PCLNTAB_H
#define GOTOOLS_TEST_FAKE_PCLNTAB_H

#include <stdint.h>
#include <string.h>
#include "fake_mem.h"

#define FAKE_TEXT	0x401000
#define FAKE_GOFUNC	0x500000
#define FAKE_NAMES	72
#define FAKE_CUTAB	96
#define FAKE_FILETAB	104
#define FAKE_PCTAB	120
#define FAKE_PCFILE	1
#define FAKE_PCLN	9
#define FAKE_PCINL	19
#define FAKE_FUNCTAB	152
#define FAKE_FUNC	(FAKE_FUNCTAB + 16)
#define FAKE_TABLE_SIZE	(FAKE_FUNC + 80)

struct fake_pclntab {
	uint8_t tab[FAKE_TABLE_SIZE];
	uint8_t gofunc[32];
};

static inline void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static inline void fake_pclntab__init(struct fake_pclntab *f)
{
	static const uint8_t names[] = "main.f\0inl.a\0inl.b";
	static const uint8_t files[] = "a.go\0b.go";
	/* value deltas (zigzag) and PC deltas from -1 at the entry */
	static const uint8_t pcfile[] = {	/* 0, 1, 0 */
		0x02, 0x10, 0x02, 0x20, 0x01, 0xd0, 0x01, 0x00,
	};
	static const uint8_t pcln[] = {		/* 10, 20, 30, 11 */
		0x16, 0x10, 0x14, 0x10, 0x14, 0x10, 0x25, 0xd0, 0x01, 0x00,
	};
	static const uint8_t pcinl[] = {	/* -1, 1, 0, -1 */
		0x00, 0x10, 0x04, 0x10, 0x01, 0x10, 0x01, 0xd0, 0x01, 0x00,
	};
	uint8_t *t = f->tab, *fn = t + FAKE_FUNC;

	memset(f, 0, sizeof(*f));
	put32(t, 0xfffffff1);
	t[6] = 1;
	t[7] = 8;
	put64(t + 8, 1);		/* nfunc */
	put64(t + 16, 2);		/* nfiles */
	put64(t + 24, FAKE_TEXT);	/* textStart */
	put64(t + 32, FAKE_NAMES);
	put64(t + 40, FAKE_CUTAB);
	put64(t + 48, FAKE_FILETAB);
	put64(t + 56, FAKE_PCTAB);
	put64(t + 64, FAKE_FUNCTAB);
	memcpy(t + FAKE_NAMES, names, sizeof(names));
	put32(t + FAKE_CUTAB, 0);	/* file 0: a.go */
	put32(t + FAKE_CUTAB + 4, 5);	/* file 1: b.go */
	memcpy(t + FAKE_FILETAB, files, sizeof(files));
	memcpy(t + FAKE_PCTAB + FAKE_PCFILE, pcfile, sizeof(pcfile));
	memcpy(t + FAKE_PCTAB + FAKE_PCLN, pcln, sizeof(pcln));
	memcpy(t + FAKE_PCTAB + FAKE_PCINL, pcinl, sizeof(pcinl));
	put32(t + FAKE_FUNCTAB, 0);	/* entryoff */
	put32(t + FAKE_FUNCTAB + 4, 16);	/* funcoff */
	put32(t + FAKE_FUNCTAB + 8, 0x100);	/* end */
	put32(fn + 4, 0);		/* nameOff: main.f */
	put32(fn + 20, FAKE_PCFILE);
	put32(fn + 24, FAKE_PCLN);
	put32(fn + 28, 3);		/* npcdata */
	put32(fn + 32, 0);		/* cuOffset */
	fn[43] = 4;			/* nfuncdata */
	put32(fn + 44 + 2 * 4, FAKE_PCINL);	/* pcdata[InlTreeIndex] */
	put32(fn + 56, UINT32_MAX);
	put32(fn + 60, UINT32_MAX);
	put32(fn + 64, UINT32_MAX);
	put32(fn + 68, 0);		/* funcdata[InlTree] */
	put32(f->gofunc + 4, 7);	/* inl.a */
	put32(f->gofunc + 8, 0x40);
	put32(f->gofunc + 16 + 4, 13);	/* inl.b */
	put32(f->gofunc + 16 + 8, 0x20);
}

/* The funcdata of F, mapped at FAKE_GOFUNC. */
static inline struct fake_mem fake_pclntab__gofunc(struct fake_pclntab *f)
{
	return (struct fake_mem){ FAKE_GOFUNC, f->gofunc, sizeof(f->gofunc) };
}

#endif
