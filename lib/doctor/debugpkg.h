/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_DEBUGPKG_H
#define PPR_DEBUGPKG_H
#include "compat.h"
#include "strbuf.h"

/*
 * Which package holds the debug symbols of an ELF object (a stripped
 * interpreter whose code shows as [python3.11]), proved by its GNU
 * build-id, never guessed from a name: a Debian debug package lists the
 * build-ids of the files it ships under /usr/lib/debug/.build-id/ in
 * its Build-Ids field (`apt-cache show`).
 *
 * The candidates are the object's package's OWNER-dbgsym (Debian's
 * automatic debug packages), SOURCE-dbg (python3.11-dbg, which carries
 * python3.11-minimal's debug files) and OWNER-dbg; every version apt
 * knows of each is checked.  When none lists the build-id, `apt-get -s
 * install` (a simulation, nothing is installed) tells whether
 * installing the candidate would upgrade the object's own package to
 * the version it is built with.
 *
 * Asking apt costs about 2 s (apt-cache show, apt-get -s), so answers
 * are cached in ${XDG_CACHE_HOME:-$HOME/.cache}/pyperf-run/debugpkg-cache
 * by build-id, valid while dpkg's status file and apt's package lists
 * keep their modification times (an install, removal or `apt-get
 * update` that changed a list asks again).
 *
 * Nothing here prints.
 */

enum debugpkg_verdict {
	DEBUGPKG_UNKNOWN = 0,	/* the package manager cannot tell (no
				   build-id, no dpkg, an object of no
				   package, apt failed): see why */
	DEBUGPKG_INSTALLED,	/* the debug file of the build-id is
				   installed (debug_file; package and
				   version when dpkg knows its owner) */
	DEBUGPKG_AVAILABLE,	/* package at version lists the build-id:
				   install (or, when apt refuses it,
				   apt_error) says how */
	DEBUGPKG_OTHER_VERSION,	/* no version lists it; installing
				   package (at version) would upgrade owner
				   from owner_version to upgrade_version */
	DEBUGPKG_NONE,		/* no version of the candidates lists it,
				   and installing one would not upgrade
				   owner */
};

/* "unknown", "installed", "available", "other_version", "none". */
const char *debugpkg_verdict_name(enum debugpkg_verdict v);

struct debugpkg {
	enum debugpkg_verdict verdict;
	char path[4096];		/* the object, resolved */
	char build_id[81];		/* hex, or "" */
	char debug_file[160];		/* where its debug file goes */
	char owner[128];		/* the object's package, or "" */
	char owner_version[128];	/* ...its installed version */
	char candidates[400];		/* packages looked for, by ' ' */
	char package[128];		/* the debug package, or "" */
	char version[128];		/* AVAILABLE: the version listing
					   the build-id; OTHER_VERSION: the
					   one apt would install;
					   INSTALLED: the installed one */
	char versions[400];		/* OTHER_VERSION, NONE: every
					   version of package apt knows,
					   ", "-separated */
	char upgrade_version[128];	/* OTHER_VERSION: owner's version
					   after installing package */
	char install[300];		/* AVAILABLE, OTHER_VERSION: the
					   command, or "" */
	char apt_error[PPR_ERR_LEN];	/* AVAILABLE: why `apt-get -s
					   install` refuses it, or "" */
	char why[PPR_ERR_LEN];		/* UNKNOWN: why not */
	int unpackaged;			/* UNKNOWN: dpkg works, but no
					   package has the object */
	int unlisted;			/* NONE: package has no Build-Ids
					   field at all, so apt cannot
					   tell what it holds */
	int cached;			/* the answer came from the cache */
};

/*
 * Look up the debug symbols of the ELF object at path.  Always fills
 * out (UNKNOWN with why when nothing can be told).
 */
void debugpkg_lookup(const char *path, struct debugpkg *out);

/*
 * One sentence on what to do for d's debug symbols ("" for INSTALLED),
 * appended to sb without a trailing period: the one wording doctor's
 * fix and record's hint use.
 */
void debugpkg_advice(const struct debugpkg *d, struct strbuf *sb);

/* --- the parsers (exposed for the unit tests) --------------------------- */

/* One version of a package in `apt-cache show` text. */
struct debugpkg_stanza {
	char package[128];
	char version[128];
	int lists;		/* its Build-Ids field has the build-id */
	int has_ids;		/* it has a Build-Ids field */
};

/*
 * Read the stanzas of `apt-cache show` text (fields "Name: value",
 * continuation lines starting with a blank, stanzas separated by an
 * empty line) into out (at most max); lists is set when build_id is
 * one of the Build-Ids field's words, has_ids when there is one.  Returns the number of stanzas
 * found (those beyond max are counted, not stored).
 */
size_t debugpkg_parse_show(const char *text, const char *build_id,
			   struct debugpkg_stanza *out, size_t max);

/*
 * In `apt-get -s install` text, the line "Inst PKG [FROM] (TO ..." of
 * pkg (a ":arch" suffix on either side is ignored): 0 with from (""
 * when newly installed) and to filled, or -1 when apt would not
 * install or upgrade pkg.
 */
int debugpkg_parse_sim(const char *text, const char *pkg, char *from,
		       size_t fromlen, char *to, size_t tolen);

/*
 * In `dpkg -S PATH...` text ("pkg1, pkg2: /path" lines; diversion
 * lines skipped), the first package owning one of paths exactly: 0 with
 * pkg filled, or -1.
 */
int debugpkg_parse_owner(const char *text, const char *const *paths,
			 char *pkg, size_t len);

/*
 * Why `apt-get -s install` refused (its stdout out, stderr errout): the
 * first unmet dependency, else its first "E: " message, else "apt-get
 * failed"; into buf.
 */
void debugpkg_parse_refusal(const char *out, const char *errout, char *buf,
			    size_t len);

#endif
