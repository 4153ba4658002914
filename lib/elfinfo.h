/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_ELFINFO_H
#define PPR_ELFINFO_H
#include "compat.h"
#include "strbuf.h"

/*
 * What doctor needs to know about an ELF file, read from its section
 * headers with a small bounds-checked reader (64-bit little-endian
 * only, which is what perf's DWARF mode runs on here): whether it has
 * a full symbol table, its GNU build-id, and the libraries it needs.
 */
struct elf_info {
	int symtab;		/* has a .symtab (not only .dynsym) */
	int debuglink;		/* has a .gnu_debuglink (split debug info) */
	int debug_info;		/* has .debug_info itself */
	char build_id[81];	/* hex, or "" */
	struct strvec needed;	/* DT_NEEDED names */
};

/*
 * Read path.  Returns 0 with out filled (release with
 * elf_info_release()), or -1 with err filled: not ELF, a class or
 * byte order this reader does not handle, or a damaged file.
 */
int elf_info_read(const char *path, struct elf_info *out, char *err,
		  size_t errlen);
void elf_info_release(struct elf_info *e);

/*
 * Where a distribution installs the separate debug file of a build-id:
 * /usr/lib/debug/.build-id/xx/rest.debug (caller frees), or NULL
 * without a build-id.
 */
char *elf_debug_file(const char *build_id);

/*
 * Symbols by name, and where the file's bytes load (walker/pytarget.c
 * finds _PyRuntime and Py_Version this way).  Each wanted name is looked
 * up in .symtab, then .dynsym; value and size are the symbol's (an ELF
 * virtual address: add the load bias).
 */
struct elf_want {
	const char *name;
	uint64_t value, size;
	int found;
};

struct elf_syms {
	/* the PT_LOAD that holds file offset 0: bias = map start - vaddr */
	uint64_t load_vaddr, load_offset;
	int have_load;
	/* .rodata's bytes (read when asked for), and its address */
	unsigned char *rodata;
	size_t rodata_len;
	uint64_t rodata_addr;
};

/*
 * Read path's symbols into want[0..n); with want_rodata also .rodata
 * (at most 64 MiB).  0 with out filled (release with elf_syms_release()),
 * or -1 with err.
 */
int elf_find_symbols(const char *path, struct elf_want *want, size_t n,
		     int want_rodata, struct elf_syms *out, char *err,
		     size_t errlen);
void elf_syms_release(struct elf_syms *s);

#endif
