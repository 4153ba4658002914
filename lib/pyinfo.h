/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PYINFO_H
#define PPR_PYINFO_H
#include "compat.h"

/*
 * What we know about a Python interpreter, learnt by running it once
 * with a small probe script (works on Python 2.7 too, so that we can say
 * clearly that it is unsupported).
 */
struct cflag_facts {
	int fp;		/* -fno-omit-frame-pointer is in effect */
	int leaf_fp;	/* -mno-omit-leaf-frame-pointer is in effect */
	char opt[8];	/* last -O option without the dash ("O2", "Og"), or "" */
};

struct pyinfo {
	char *path;		/* what we were asked to run */
	char *executable;	/* sys.executable */
	char *version;		/* "3.11.7" */
	int major, minor, micro;
	char *releaselevel;	/* "final", "candidate"... */
	char *implementation;	/* "cpython", "pypy"... */
	char *machine;		/* "x86_64" */
	int native_perf;	/* PY_HAVE_PERF_TRAMPOLINE */
	int native_perf_jit;	/* perf_jit backend (3.13+ with trampoline) */
	int pydebug;		/* debug build (Py_DEBUG) */
	int free_threaded;	/* Py_GIL_DISABLED */
	int has_headers;	/* Python.h exists */
	struct cflag_facts cflags;
	char *cflags_raw;	/* the flags the facts came from */
	char *include_dir;	/* sysconfig include path */
	char *soabi;		/* SOABI, or "" */
	char *ext_suffix;	/* EXT_SUFFIX, or "" */
	char *purelib;		/* site-packages */
	char *prefix;		/* sys.prefix */
	char *base_prefix;	/* sys.base_prefix (== prefix outside venvs) */
};

/*
 * Run `python` (a path, or a name looked up in PATH) with the probe and
 * fill info.  Returns 0; or -1 with err filled ("cannot run 'x': ...",
 * "'x' is not a Python interpreter") and info released (zeroed; calling
 * pyinfo_release() on it again is harmless).  On success release it with
 * pyinfo_release().
 */
int pyinfo_probe(const char *python, struct pyinfo *info,
		 char *err, size_t errlen);

/*
 * pyinfo_probe() through a command prefix whose last word is the
 * interpreter: { "chroot", ROOT, "/usr/bin/python3.14", NULL } probes the
 * interpreter as the chrooted program will run it (its paths in info are
 * then the root's).  info->path is that last word.
 */
int pyinfo_probe_argv(const char *const *prefix, struct pyinfo *info,
		      char *err, size_t errlen);

/*
 * Parse the probe's "key=value" output into info (used by
 * pyinfo_probe() and by the unit tests).  Returns 0 or -1 with err.
 */
int pyinfo_parse(const char *text, struct pyinfo *info,
		 char *err, size_t errlen);

/*
 * Work out the frame-pointer and optimisation facts from compiler flags,
 * honouring that the last of -fomit/-fno-omit wins.
 */
void pyinfo_parse_cflags(const char *flags, struct cflag_facts *out);

/*
 * The interpreter a command (cmd, then nargs args) runs, where its words
 * say so: the command itself when it is a Python (python3, python3.14,
 * python3.14d, python3.15-dbg), or the program of `chroot [OPTION...]
 * ROOT PROGRAM` when that one is.  prefix gets the words up to and
 * including the interpreter (for pyinfo_probe_argv(): it is probed as
 * the command will run it, in its root), *root the chroot's directory
 * (caller frees; NULL when none).  Returns 1 when found, 0 when the
 * words do not name one (a script, a launcher).
 */
struct strvec;
int pyinfo_command_python(const char *cmd, char *const *args, int nargs,
			  struct strvec *prefix, char **root);

/* 1 when the probe says CPython. */
int pyinfo_is_cpython(const struct pyinfo *info);

/* Compare the version with major.minor: <0, 0, >0. */
int pyinfo_cmp(const struct pyinfo *info, int major, int minor);

void pyinfo_release(struct pyinfo *info);

#endif
