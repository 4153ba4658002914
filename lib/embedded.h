/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_EMBEDDED_H
#define PPR_EMBEDDED_H
#include "compat.h"
#include "mode.h"
#include "pyinfo.h"
#include "strbuf.h"

/*
 * The embedded trampoline library, as the rest of pyperf-run reaches it
 * (the library itself lives in trampoline/ and is built by
 * trampoline/build.sh; it serves CPython 3.8-3.13).
 *
 * A build serves one interpreter ABI.  Its key (a directory name) is
 * "<SOABI>-<16 hex digits>": a hash of the interpreter's version, SOABI,
 * compiler flags, include directory, the real path, size and mtime of
 * its executable (two 3.11.x builds share a SOABI but may differ), and
 * the checksum of the trampoline sources.  Builds are looked up in the
 * trampoline directory (prebuilt at `make` time, see lib/paths.h), then
 * in the user's cache (paths_cache_dir()), where they are built on first
 * use: into a private temporary directory first, renamed into place
 * when complete, so that a crash or a concurrent build never leaves a
 * half-built library behind.
 */

/*
 * Make sure the library for this interpreter is built, and append to
 * env_set the "NAME=value" strings that make an unmodified interpreter
 * started with that environment load it in that mode (MODE_PERF or
 * MODE_JIT): the user's PYTHONPATH is kept after ours.  The map/dump
 * files go to dump_dir (NULL: /tmp).  Returns 0, or -1 with err filled
 * (a missing compiler or missing Python headers name the package).
 */
int embedded_prepare(const struct pyinfo *py, enum mode_name mode,
		     const char *dump_dir, struct strvec *env_set,
		     char *err, size_t errlen);

/*
 * 1 when embedded_prepare() can succeed for this interpreter: it is
 * supported and its library is built already or can be built (headers
 * and a compiler are there); 0 otherwise.
 */
int embedded_available(const struct pyinfo *py);

/* Like embedded_available(), saying why not in why. */
int embedded_check(const struct pyinfo *py, char *why, size_t len);

/* The key of this interpreter's build into buf.  Returns 0 or -1. */
int embedded_key(const struct pyinfo *py, char *buf, size_t len,
		 char *err, size_t errlen);

/*
 * An existing build for this interpreter: *dir (caller owns it) is its
 * directory.  Returns 0, or -ENOENT when there is none.
 */
int embedded_find(const struct pyinfo *py, char **dir);

/*
 * Build the library for this interpreter under parent (NULL: the user's
 * cache), unless it is there already.  *dir (caller owns it) gets the
 * build's directory.  When log is not NULL the build's output is kept
 * there; otherwise it is kept next to the build as <key>.log only when
 * the build fails.  Returns 0, or -1 with err filled.
 */
int embedded_build(const struct pyinfo *py, const char *parent,
		   char **dir, char *err, size_t errlen);

/*
 * The environment strings for a build in dir (see embedded_prepare()).
 * Returns 0, or -1 with err filled.
 */
int embedded_env(const struct pyinfo *py, const char *dir,
		 enum mode_name mode, const char *dump_dir,
		 struct strvec *env_set, char *err, size_t errlen);

/*
 * Context trampolines (trampoline/README.md): every Python call path
 * gets its own trampoline and the process writes ctx-<pid>.tab next to
 * its map or dump, from which the report rebuilds complete stacks.
 * record sets it; pyperf-python and `trampoline` leave it off, since
 * raw perf tools then name every Python frame "[pyperf contexts]".
 */
#define EMBEDDED_CONTEXTS_ENV "PYPERF_TRAMPOLINE_CONTEXTS=1"

/*
 * The package that provides what is missing, for messages:
 * "python3.11-dev" style names for Debian and "python3-devel" for Fedora.
 */
void embedded_headers_hint(const struct pyinfo *py, char *buf, size_t len);

/*
 * What the interpreter's own options (those before the script, -c or -m)
 * say, scanned the way CPython's getopt reads them: short flags may be
 * grouped, -X and -W take a value (attached or next), -c and -m end the
 * options.
 */
struct embedded_args {
	int isolated;		/* -E or -I: the environment is ignored */
	enum mode_name xmode;	/* -X perf / -X perf_jit (last wins), or
				   MODE_NONE */
};
void embedded_scan_args(int argc, const char *const *argv,
			struct embedded_args *a);

/*
 * Permanent installation into an interpreter's site-packages
 * (`pyperf-run trampoline install`).  Every file written is listed in a
 * manifest next to them, so that uninstall removes exactly those.
 */
struct embedded_status {
	int installed;		/* a manifest is there */
	char *site;		/* the site-packages directory */
	char *manifest;		/* its path */
	char *key;		/* the build it came from ("" if unknown) */
	char *version;		/* pyperf-run version that installed it */
	struct strvec files;	/* the files it lists */
	struct strvec missing;	/* the listed files that are gone */
};

/*
 * Fill st for this interpreter.  Returns 0, or -1 with err filled.
 * Release with embedded_status_release().
 */
int embedded_status_read(const struct pyinfo *py, struct embedded_status *st,
			 char *err, size_t errlen);
void embedded_status_release(struct embedded_status *st);

/*
 * Install (building first when needed) / remove.  Return 0, or -1 with
 * err filled.  install fails when it is installed already and
 * uninstall when it is not (-ENOENT / -EEXIST in *code when code is not
 * NULL, so that the CLI can say so kindly).
 */
int embedded_install(const struct pyinfo *py, int *code,
		     char *err, size_t errlen);
int embedded_uninstall(const struct pyinfo *py, int *code,
		       char *err, size_t errlen);

#endif
