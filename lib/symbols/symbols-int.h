/*
 * symbols-int.h - what the files of lib/symbols share (internal): one
 * ELF file's function symbols as a sorted table, its load segments (to
 * turn a file offset into a virtual address) and its build id and
 * debug link, read with libelf (elf.c) and used by the address lookups
 * of symbols.c.
 */
#ifndef STROBE_SYMBOLS_INT_H
#define STROBE_SYMBOLS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct sym_entry {
	uint64_t start;
	uint64_t size;		/* 0: unknown, up to the next symbol */
	uint32_t name;		/* offset into names */
};

/* Function symbols sorted by start (ties: the one with a size first). */
struct sym_table {
	struct sym_entry *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
};

#define SYM_MAX_LOADS 16
struct sym_load {
	uint64_t vaddr, off, filesz;
};

struct sym_elf {
	struct sym_table t;
	struct sym_load loads[SYM_MAX_LOADS];
	int nloads;
	uint8_t build_id[20];
	size_t build_id_len;
	char debuglink[256];	/* "" when none */
	bool has_symtab;	/* t came from .symtab (else .dynsym or nothing) */
};

/* Read ELF file fd (or image[0..n) when fd < 0): segments, build id,
 * debug link, and the function symbols of .symtab, else .dynsym, into
 * *e (zeroed first).  0, -EINVAL (not ELF libelf reads), -ENOMEM. */
int sym_elf_read(int fd, const void *image, size_t n, struct sym_elf *e) STROBE_HIDDEN;
void sym_elf_release(struct sym_elf *e) STROBE_HIDDEN;

/* Virtual address of file offset off (through the load segments);
 * false when no segment holds it. */
bool sym_elf_vaddr(const struct sym_elf *e, uint64_t off, uint64_t *vaddr) STROBE_HIDDEN;

int sym_table_add(struct sym_table *t, uint64_t start, uint64_t size, const char *name,
		  size_t name_len) STROBE_HIDDEN;
void sym_table_sort(struct sym_table *t) STROBE_HIDDEN;
/* The symbol holding addr (its name, *start set), or NULL. */
const char *sym_table_find(const struct sym_table *t, uint64_t addr, uint64_t *start) STROBE_HIDDEN;
void sym_table_release(struct sym_table *t) STROBE_HIDDEN;

#endif
