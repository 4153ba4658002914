/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_PYTARGET_H
#define PPR_WALKER_PYTARGET_H
/*
 * A running Python process seen from outside: which interpreter it
 * runs, where its _PyRuntime is, and the frame layout the walker needs
 * (walker_abi.h).  3.8-3.12 from tables keyed by version (checked
 * against each interpreter's own headers by the tests), 3.13-3.15 from
 * _Py_DebugOffsets read from the target (cookie "xdebugpy" and the
 * version checked; where each value lies in it is per minor version).  Unknown versions and free-threaded builds are
 * refused by name, never guessed.  Reads the target only through
 * /proc/PID/{maps,exe,root} and process_vm_readv(2): it is never
 * stopped and never written to.
 */
#include "compat.h"
#include <linux/types.h>
#include "walker/walker_abi.h"

enum pytarget_status {
	PYTARGET_OK = 0,
	PYTARGET_GONE,		/* no such process (exited) */
	PYTARGET_NOT_PYTHON,	/* no libpython / python executable mapped */
	PYTARGET_NOT_YET,	/* python mapped but _PyRuntime not set up */
	PYTARGET_UNSUPPORTED,	/* version (2.x, < 3.8, unknown), free-threaded */
	PYTARGET_NO_ACCESS,	/* ptrace access refused (EPERM) */
	PYTARGET_ERROR,
};

/*
 * Where pycode.c finds a code object's parts and reads strings and
 * bytes: per version, from the same headers as the layout (and from
 * _Py_DebugOffsets on 3.13+ where it has them).  WALKER_NO_FIELD: the
 * field does not exist in that version.
 */
struct pytarget_code {
	__u32 co_filename, co_name;
	__u32 co_qualname;		/* 3.11+; 3.8-3.10 have only co_name */
	__u32 co_linetable;		/* co_lnotab (3.8, 3.9), co_linetable */
	__u32 co_firstlineno;
	__u32 co_code;			/* 3.8-3.10: the bytecode (a bytes) */
	__u32 co_code_adaptive;		/* 3.11+: the bytecode inline */
	__u32 bytes_size, bytes_sval;	/* PyBytesObject: ob_size, ob_sval */
	/* PyASCIIObject / PyCompactUnicodeObject */
	__u32 str_length, str_state, str_ascii_size, str_compact_size;
	__u32 str_kind_bit, str_compact_bit, str_ascii_bit;
};

struct pytarget {
	pid_t pid;
	char path[4096];	/* the object holding _PyRuntime (exe or lib) */
	char version[32];	/* "3.11.2" */
	unsigned hexversion;	/* Py_Version / PY_VERSION_HEX */
	int free_threaded;
	uint64_t runtime;	/* _PyRuntime's address in the target */
	struct walker_layout layout;
	struct pytarget_code code;
	int from_debug_offsets;	/* layout read from _Py_DebugOffsets (3.13+),
				   not from the compiled-in tables */
	char why[256];		/* one line when status != OK */
};

/*
 * Inspect pid.  Returns an enum pytarget_status; t->why says why when
 * not OK ("python 2.7.18 is not supported: ...", "free-threaded
 * CPython 3.13 is not supported", "cannot read process 123: ...").
 */
enum pytarget_status pytarget_inspect(pid_t pid, struct pytarget *t);

/*
 * The layout for a version, from the tables (3.8-3.12) or NULL.  For
 * tests that compare the tables against an interpreter's headers.
 */
const struct walker_layout *pytarget_table_layout(unsigned major,
						  unsigned minor);
/* The code-object offsets of a version's table (3.8-3.15), or NULL. */
const struct pytarget_code *pytarget_table_code(unsigned major,
						unsigned minor);

/*
 * Read len bytes at addr of process pid (process_vm_readv(2), all or
 * nothing).  0, or -1 with errno (ESRCH: gone, EPERM: no ptrace access,
 * EFAULT: not mapped).
 */
int pytarget_read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* The status's name ("ok", "gone", "not-python", ...), for JSON. */
const char *pytarget_status_name(enum pytarget_status st);
#endif
