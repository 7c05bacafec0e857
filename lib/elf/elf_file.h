/* SPDX-License-Identifier: MIT */
/*
 * A 64-bit ELF file opened read-only through libelf: its sections, its
 * loadable segments, and the translation from virtual addresses to file
 * offsets that uprobes need.
 */
#ifndef GOTOOLS_ELF_FILE_H
#define GOTOOLS_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

/* The file-backed part of a PT_LOAD segment. */
struct elf_load {
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t offset;
	bool exec;		/* PF_X */
};

struct elf_file {
	char *path;		/* as opened */
	int fd;
	Elf *elf;
	uint16_t machine;	/* EM_X86_64 or EM_AARCH64 */
	uint16_t type;		/* ET_EXEC or ET_DYN */
	bool program;		/* ET_EXEC, or ET_DYN with an interpreter
				 * (PIE): not a shared library */
	const char *map;	/* the whole file, mmap()ed read-only */
	size_t map_size;
	/* read once at open: every read of code by address looks it up,
	 * hundreds of thousands of times for a whole binary */
	struct elf_load *loads;
	size_t nloads;
};

/*
 * Open PATH. Fails with a one-line reason (error.h) for a missing or
 * unreadable file (-ENOENT, -EACCES), a file that is not ELF (-ENOEXEC),
 * a 32-bit ELF or an unsupported machine (-ENOTSUP), or a truncated ELF
 * (-EINVAL).
 */
int elf_file__open(const char *path, struct elf_file **out);
void elf_file__close(struct elf_file *ef);

/*
 * Is EF's code for the machine this build runs on, for which its BPF
 * programs are built (x86-64, or arm64: make ARCH=arm64)? 0, or -ENOEXEC
 * with a one-line reason: a breakpoint written into another machine's
 * code (a program run by an emulator) would corrupt it.
 */
int elf_file__check_machine(const struct elf_file *ef);

/* Find a section by name. Returns NULL when absent. */
Elf_Scn *elf_file__section(const struct elf_file *ef, const char *name,
			   GElf_Shdr *shdr);

/*
 * The bytes of a section as stored in the file (no decompression).
 * Returns 0 and points *data and *size into the mapping, or -ENOENT when the
 * section is missing, or -EINVAL when it lies outside the file.
 */
int elf_file__section_bytes(const struct elf_file *ef, const char *name,
			    const uint8_t **data, size_t *size);

/* The value of symbol NAME, defined in .symtab or else .dynsym (which a
 * stripped file keeps). Returns 0, or -ENOENT when neither has it. */
int elf_file__symbol(const struct elf_file *ef, const char *name,
		     uint64_t *value);

/* Called with each defined symbol of .symtab and its value; a non-zero
 * return stops the walk and is returned. */
typedef int (*elf_symbol_fn)(void *ctx, const char *name, uint64_t value);

/* Each defined symbol of .symtab to FN. Returns 0, FN's non-zero value,
 * or -ENOENT when the file has no .symtab (stripped). */
int elf_file__each_symbol(const struct elf_file *ef, elf_symbol_fn fn,
			  void *ctx);

/* Translate a virtual address to a file offset through the PT_LOAD
 * segments. Returns 0 and *off, or -ERANGE when no segment maps it. */
int elf_file__vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr,
			      uint64_t *off);

/* The other way: the virtual address of file offset OFF. Returns 0 and
 * *VADDR, or -ERANGE when no segment holds it. */
int elf_file__offset_to_vaddr(const struct elf_file *ef, uint64_t off,
			      uint64_t *vaddr);

/* The lowest virtual address of the file-backed segments (0: none). */
uint64_t elf_file__first_vaddr(const struct elf_file *ef);

/* The lowest virtual address of the executable segments (0: none). */
uint64_t elf_file__first_code_vaddr(const struct elf_file *ef);

/* Point *data at the file bytes that back [vaddr, vaddr+len), which must lie
 * in one segment's file-backed part. Returns 0 or -ERANGE. */
int elf_file__read_vaddr(const struct elf_file *ef, uint64_t vaddr,
			 size_t len, const uint8_t **data);

/*
 * The N pointers at VADDR, VADDR + STRIDE, ... into OUT, as they are at a
 * load bias of 0: in a position-independent file (ET_DYN) a pointer that
 * an R_X86_64_RELATIVE (R_AARCH64_RELATIVE) relocation sets is its
 * addend, which external linkers leave out of the file's bytes. Returns 0, or -ERANGE with a
 * reason when they are not all in the file.
 */
int elf_file__read_pointers(const struct elf_file *ef, uint64_t vaddr,
			    size_t n, size_t stride, uint64_t *out);

#endif
