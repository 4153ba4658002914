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

/*
 * Where pyobj.c (walker/pyobj.h) finds the parts of other objects:
 * types, functions, tuples, dicts and their keys, modules, ints, the
 * interpreter's sys.modules, instances' attributes.  Per version, from
 * the same headers (tests/fixtures/walker-offsets.c `objects`), except
 * what no installed header holds (3.8-3.10's dict keys, 3.8/3.9's module
 * object, the property and staticmethod objects' fields), which t3501
 * checks by reading known objects of a live process.
 */
enum pytarget_inst_dict {
	PYTARGET_DICT_OFFSET = 0,	/* 3.8-3.10: *(obj + tp_dictoffset) */
	PYTARGET_DICT_MANAGED_311,	/* values and dict pointers before obj */
	PYTARGET_DICT_MANAGED_312,	/* one word before obj: the dict, or
					   the values - 1 */
	PYTARGET_DICT_MANAGED_313,	/* the dict before obj; the values
					   inline at obj + tp_basicsize */
};

struct pytarget_obj {
	__u32 ob_type, var_size;
	__u32 tp_name, tp_basicsize, tp_flags, tp_dict, tp_dictoffset;
	__u32 ht_cached_keys;
	__u32 func_code, func_qualname;
	__u32 co_consts, co_flags, co_newlocals;
	__u32 tuple_item;
	__u32 dict_used, dict_keys, dict_values;
	/* PyDictKeysObject: dk_size (3.8-3.10, a Py_ssize_t) or
	   dk_log2_size, dk_log2_index_bytes, dk_kind (3.11+, bytes) */
	__u32 dk_size, dk_log2_size, dk_log2_index_bytes, dk_kind;
	__u32 dk_nentries, dk_indices, dk_entry_size, dk_unicode_entry_size;
	__u32 dk_general;		/* dk_kind of keys of any type */
	__u32 values_values, values_valid; /* PyDictValues (3.11+) */
	__u32 md_dict, interp_modules;
	__u32 sm_callable;		/* staticmethod, classmethod */
	__u32 prop_get;			/* property: fget, fset, fdel */
	__u32 long_digit, long_lv_tag, long_shift;
	__u32 managed_dict_flag, inline_values_flag;
	__u32 managed_dict_before;	/* 3.11+: bytes before the object */
	__u32 managed_values_before;	/* 3.11: bytes before the object */
	__u32 inst_dict;		/* enum pytarget_inst_dict */
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
	struct pytarget_obj obj;	/* all NO_FIELD when not known */
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

/* The object offsets of a version's table (3.8-3.15), or NULL. */
const struct pytarget_obj *pytarget_table_obj(unsigned major, unsigned minor);

/*
 * Read len bytes at addr of process pid (process_vm_readv(2), all or
 * nothing).  0, or -1 with errno (ESRCH: gone, EPERM: no ptrace access,
 * EFAULT: not mapped).
 */
int pytarget_read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* The status's name ("ok", "gone", "not-python", ...), for JSON. */
const char *pytarget_status_name(enum pytarget_status st);
#endif
