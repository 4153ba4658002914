/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PERFMAP_H
#define PPR_PERFMAP_H
/*
 * Perf map files (/tmp/perf-<pid>.map, kept by record as
 * SESSION/maps/perf-<pid>.map): one "START SIZE name" line per code
 * region, START and SIZE in hex (an optional "0x" prefix is accepted),
 * name the rest of the line.  Lines that do not have that shape are
 * skipped and counted (a map written by a process that was killed may
 * end in a partial line).  Lookup is a binary search; when regions
 * overlap, the one written last wins.
 */
#include "compat.h"

struct perfmap_entry {
	uint64_t start;
	uint64_t end;		/* exclusive */
	const char *name;	/* points into the map's string storage */
	uint32_t seq;		/* line order, for "last written wins" */
};

struct perfmap {
	struct perfmap_entry *entries;	/* sorted by start */
	size_t nr;
	size_t alloc;
	size_t bad_lines;	/* lines skipped as garbage */
	char *strings;		/* the file's text, names point into it */
	uint64_t max_size;	/* largest region (bounds overlap search) */
};

#define PERFMAP_INIT { NULL, 0, 0, 0, NULL, 0 }

void perfmap_init(struct perfmap *m);
void perfmap_release(struct perfmap *m);

/*
 * Parse text (len bytes, need not be NUL-terminated; it is copied)
 * into m, replacing its contents.  Never fails on content; returns 0.
 */
int perfmap_parse(struct perfmap *m, const char *text, size_t len);

/*
 * Read and parse a map file.  Returns 0, or -errno (the file could not
 * be read; m is then empty).  Files above 1 GiB are refused (-EFBIG).
 */
int perfmap_read(struct perfmap *m, const char *path);

/* The entry covering addr, or NULL. */
const struct perfmap_entry *perfmap_lookup(const struct perfmap *m,
					   uint64_t addr);

#endif
