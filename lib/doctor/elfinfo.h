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

#endif
