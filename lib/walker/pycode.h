/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_PYCODE_H
#define PPR_WALKER_PYCODE_H
/*
 * Code objects named from outside the process: qualname, filename,
 * first line and the line table, read with process_vm_readv(2), kept
 * in a cache keyed by (pid, address) and checked against the frame's
 * tag (walker_code_tag(): its first line, its file name's address and
 * its name's hash) so
 * that an address freed and reused by another code object is read
 * again.  Line numbers from an
 * instruction's byte offset, per version: co_lnotab (3.8, 3.9),
 * co_linetable (3.10), the location table (3.11+).
 *
 * The cache is saved into the session (pycode_save) and loaded by the
 * report (pycode_load): a code object is named once, while the
 * process lives.
 */
#include "compat.h"
#include "strbuf.h"
#include "walker/pytarget.h"

struct pycode_cache;

struct pycode {
	const char *qualname;	/* "Class.method" ("<unknown>" when unread) */
	const char *filename;
	uint32_t firstlineno;
	unsigned named : 1;	/* read from the target */
	unsigned qualified : 1;	/* qualname is co_qualname (3.11+); 3.8-3.10
				   have only co_name: "method", no class */
};

struct pycode_cache *pycode_cache_new(void);
void pycode_cache_free(struct pycode_cache *c);

/*
 * The code object at addr in target t, read now if not cached or its
 * tag differs.  Returns the entry (owned by the cache) or NULL when the
 * object could not be read (process gone, freed memory).
 */
const struct pycode *pycode_get(struct pycode_cache *c,
				const struct pytarget *t, uint64_t addr,
				uint16_t tag);
/*
 * The tag the walker gives the code object at addr in t's process
 * (walker_code_tag()), its fields read now: for tests.  0, or -1.
 */
int pycode_tag(const struct pytarget *t, uint64_t addr, uint16_t *tag);
/* How many code objects pycode_get() has read (not cached before). */
uint64_t pycode_reads(const struct pycode_cache *c);
/* The line of a byte offset in the code (0: unknown). */
uint32_t pycode_line(struct pycode_cache *c, const struct pycode *code,
		     uint32_t instr);

/*
 * A str object of the target as UTF-8 (caller frees), or NULL: not a
 * compact str, longer than 4096 characters, or unreadable.
 */
char *pycode_read_str(pid_t pid, const struct pytarget_code *k,
		      uint64_t addr);

/*
 * The entry's name replaced by its qualified name (pyqual.h, 3.8-3.10);
 * qualified set.  -1 when no such entry.
 */
int pycode_qualify(struct pycode_cache *c, pid_t pid, uint64_t addr,
		   uint16_t tag, const char *qualname);
/* The entries named without their qualified name; *example one of them. */
size_t pycode_unqualified(const struct pycode_cache *c, const char **example);

/*
 * Python's name of a thread (threading.Thread.name) by its OS thread id,
 * kept with the code objects and saved in the same file.  Set replaces;
 * name NULL when not known.
 */
int pycode_thread_set(struct pycode_cache *c, pid_t pid, pid_t tid,
		      const char *name);
const char *pycode_thread_name(const struct pycode_cache *c, pid_t pid,
			       pid_t tid);
size_t pycode_threads(const struct pycode_cache *c);

/* The cache holds code objects of process pid: its Python was read. */
int pycode_has_pid(const struct pycode_cache *c, pid_t pid);

/* Lookup without reading (report): NULL when not known. */
const struct pycode *pycode_find(const struct pycode_cache *c, pid_t pid,
				 uint64_t addr, uint16_t tag);

/* The session's file: save every entry; load them back. 0 or -1 + err. */
int pycode_save(const struct pycode_cache *c, const char *path, char *err,
		size_t errlen);
/*
 * The file in parts, for a recording of hours (walker/wrecord.c):
 * pycode_header() its first line; pycode_spill() the lines of the
 * entries and thread names of a process that has exited, appended to
 * out and dropped from the cache (no sample can need them again: the
 * cache is keyed by the living process), so that it keeps only the
 * living processes'; pycode_lines() every line still held.  The header,
 * the spills and the lines at the end make the file pycode_save()
 * writes (the order of lines does not matter to pycode_load()).
 */
void pycode_header(struct strbuf *out);
void pycode_spill(struct pycode_cache *c, pid_t pid, struct strbuf *out);
void pycode_lines(const struct pycode_cache *c, struct strbuf *out);
int pycode_load(struct pycode_cache *c, const char *path, char *err,
		size_t errlen);
/* pycode_load() on the file's bytes (fuzzed: tests/fuzz/fuzz-pycode.c). */
int pycode_load_buf(struct pycode_cache *c, const char *buf, size_t len,
		    char *err, size_t errlen);

#endif
