/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_WALKER_PYOBJ_H
#define PPR_WALKER_PYOBJ_H
/*
 * Python objects read from outside the process, at the offsets of its
 * version (pytarget.h's struct pytarget_obj): an object's kind by its
 * type, dicts walked, a module looked up in sys.modules, an instance's
 * attribute, strs and small ints.  For the names the code objects of
 * 3.8-3.10 lack (pyqual.h) and the names of Python's threads
 * (pythreads in wrecord.c).
 *
 * Everything read is bounded before it is used and a failed read is an
 * answer ("not found"), never a crash: the target runs on while it is
 * read, so an object can change or be freed under us.  A value read from
 * a changing object can be stale; the callers use what they read as a
 * name, never as an address to write to.
 */
#include "compat.h"
#include "walker/pytarget.h"
#include "hmap.h"

enum pyobj_kind {
	PYOBJ_OTHER = 0,
	PYOBJ_FUNCTION,
	PYOBJ_CODE,
	PYOBJ_TYPE,		/* a class (any metaclass) */
	PYOBJ_MODULE,
	PYOBJ_STATICMETHOD,
	PYOBJ_CLASSMETHOD,
	PYOBJ_PROPERTY,
	PYOBJ_DICT,
	PYOBJ_TUPLE,
	PYOBJ_STR,
	PYOBJ_INT,
	PYOBJ_UNREADABLE,
};

/* One target and what was learnt of its types (by type address). */
struct pyobj {
	const struct pytarget *t;
	struct umap types;	/* type address -> enum pyobj_kind + 1 */
	uint64_t reads;		/* process_vm_readv calls, for tests */
};

void pyobj_init(struct pyobj *o, const struct pytarget *t);
void pyobj_release(struct pyobj *o);

/* 0 and *v, or -1 when the word at addr cannot be read. */
int pyobj_word(struct pyobj *o, uint64_t addr, uint64_t *v);

enum pyobj_kind pyobj_kind(struct pyobj *o, uint64_t obj);

/*
 * Each (key, value) of the dict at addr, in insertion order, until fn
 * returns non-zero (that value is returned).  -1: not readable as a
 * dict; at most max entries are looked at.
 */
int pyobj_dict_each(struct pyobj *o, uint64_t dict, size_t max,
		    int (*fn)(void *data, uint64_t key, uint64_t value),
		    void *data);
/* The value of str key name in the dict at addr, or 0. */
uint64_t pyobj_dict_get(struct pyobj *o, uint64_t dict, const char *name);

/* A str as UTF-8 (caller frees), or NULL. */
char *pyobj_str(struct pyobj *o, uint64_t str);
/* 0 and *v for an int in [0, 2^60), or -1. */
int pyobj_int(struct pyobj *o, uint64_t obj, uint64_t *v);

/* sys.modules[name] of the target's first interpreter, or 0. */
uint64_t pyobj_module(struct pyobj *o, const char *name);
/* The instance attribute name of obj (its __dict__ or managed values). */
uint64_t pyobj_attr(struct pyobj *o, uint64_t obj, const char *name);

#endif
