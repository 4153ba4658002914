/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Python objects read from outside the process (pyobj.h).
 *
 * An object's kind is its type's: a built-in type by its tp_name
 * ("function", "code", ...) and the absence of Py_TPFLAGS_HEAPTYPE (a
 * class of the program's may be called "function" too, but it is a heap
 * type); a class by Py_TPFLAGS_TYPE_SUBCLASS on its type (type itself or
 * a metaclass).  Both flags are part of the stable ABI.
 *
 * Dicts (the keys object: 3.8-3.10 Objects/dict-common.h, 3.11+
 * Include/internal/pycore_dict.h): the entries follow the index table,
 * whose width depends on the table's size (3.8-3.10: 1 byte up to 0xff
 * slots, 2 up to 0xffff, 4 up to 0xffffffff, else 8) or is given as
 * dk_log2_index_bytes (3.11+); entries are (hash, key, value), or
 * (key, value) for str-only keys on 3.11+ (dk_kind not GENERAL).  A split
 * dict's values are in ma_values, by entry.
 *
 * An instance's attributes (pytarget_inst_dict): 3.8-3.10 a dict at
 * tp_dictoffset; 3.11+ classes with Py_TPFLAGS_MANAGED_DICT keep a dict
 * pointer before the object (managed_dict_before), or (until the dict is
 * made) the values alone, indexed like the class's shared keys
 * (ht_cached_keys): managed_values_before the object (3.11), stored as
 * values - 1 (bit 0 set) in the dict's word (3.12), or inline after the object's
 * tp_basicsize bytes with a valid byte (3.13-3.15, Py_TPFLAGS_INLINE_VALUES).
 * Include/internal/pycore_object.h of each version.
 */
#include "compat.h"
#include "walker/pyobj.h"
#include "walker/pycode.h"
#include "alloc.h"

#define NO WALKER_NO_FIELD
#define TPFLAGS_HEAPTYPE (1ul << 9)
#define TPFLAGS_TYPE_SUBCLASS (1ul << 31)
#define MAX_ENTRIES (1u << 20)		/* entries of one dict */

void pyobj_init(struct pyobj *o, const struct pytarget *t)
{
	memset(o, 0, sizeof(*o));
	o->t = t;
}

void pyobj_release(struct pyobj *o)
{
	umap_release(&o->types);
	memset(o, 0, sizeof(*o));
}

static int rd(struct pyobj *o, uint64_t addr, void *buf, size_t len)
{
	o->reads++;
	return pytarget_read(o->t->pid, addr, buf, len);
}

int pyobj_word(struct pyobj *o, uint64_t addr, uint64_t *v)
{
	*v = 0;
	if (!addr || addr % 8)
		return -1;
	return rd(o, addr, v, 8);
}

static int ok(__u32 off)
{
	return off != NO;
}

/* The kind of a type's instances, from the type object at tp. */
static enum pyobj_kind type_kind(struct pyobj *o, uint64_t tp)
{
	static const struct {
		const char *name;
		enum pyobj_kind kind;
	} builtin[] = {
		{ "function", PYOBJ_FUNCTION }, { "code", PYOBJ_CODE },
		{ "module", PYOBJ_MODULE },
		{ "staticmethod", PYOBJ_STATICMETHOD },
		{ "classmethod", PYOBJ_CLASSMETHOD },
		{ "property", PYOBJ_PROPERTY }, { "dict", PYOBJ_DICT },
		{ "tuple", PYOBJ_TUPLE }, { "str", PYOBJ_STR },
		{ "int", PYOBJ_INT },
	};
	const struct pytarget_obj *k = &o->t->obj;
	struct umap_ent *e = umap_find(&o->types, tp);
	uint64_t name_p, flags;
	char name[16];
	size_t i;
	enum pyobj_kind kind = PYOBJ_OTHER;

	if (e)
		return (enum pyobj_kind)((uintptr_t)e->val - 1);
	if (pyobj_word(o, tp + k->tp_flags, &flags) ||
	    pyobj_word(o, tp + k->tp_name, &name_p) || !name_p)
		return PYOBJ_UNREADABLE;
	if (flags & TPFLAGS_TYPE_SUBCLASS) {
		kind = PYOBJ_TYPE;
	} else if (!(flags & TPFLAGS_HEAPTYPE)) {
		/* tp_name: a C string in the interpreter's .rodata */
		memset(name, 0, sizeof(name));
		if (rd(o, name_p, name, sizeof(name) - 1) &&
		    rd(o, name_p, name, 8))
			return PYOBJ_UNREADABLE;
		for (i = 0; i < ARRAY_SIZE(builtin); i++)
			if (!strcmp(name, builtin[i].name))
				kind = builtin[i].kind;
	}
	umap_get(&o->types, tp, NULL)->val = (void *)(uintptr_t)(kind + 1);
	return kind;
}

enum pyobj_kind pyobj_kind(struct pyobj *o, uint64_t obj)
{
	uint64_t tp;

	if (!ok(o->t->obj.ob_type) || pyobj_word(o, obj + o->t->obj.ob_type,
						  &tp) || !tp || tp % 8)
		return PYOBJ_UNREADABLE;
	return type_kind(o, tp);
}

/*
 * The entries of a keys object: where they start, how many, their size
 * and where key and value sit in one.
 */
struct keys {
	uint64_t entries, n;
	unsigned esize, koff, voff;
};

static int read_keys(struct pyobj *o, uint64_t keys, struct keys *ks)
{
	const struct pytarget_obj *k = &o->t->obj;
	unsigned char h[64];
	uint64_t size, ib;
	int64_t n;

	if (!keys || keys % 8 || !ok(k->dk_nentries) || !ok(k->dk_indices) ||
	    k->dk_nentries + 8 > sizeof(h) || rd(o, keys, h, sizeof(h)))
		return -1;
	memcpy(&n, h + k->dk_nentries, 8);
	if (n < 0 || n > (int64_t)MAX_ENTRIES)
		return -1;
	ks->n = (uint64_t)n;
	if (ok(k->dk_size)) {
		/* 3.8-3.10 */
		if (k->dk_size + 8 > sizeof(h))
			return -1;
		memcpy(&size, h + k->dk_size, 8);
		if (!size || size & (size - 1) || size > (1ull << 32))
			return -1;
		ib = size <= 0xff ? 1 : size <= 0xffff ? 2 :
			size <= 0xffffffffull ? 4 : 8;
		ks->entries = keys + k->dk_indices + size * ib;
		ks->esize = k->dk_entry_size;
		ks->koff = 8;
		ks->voff = 16;
	} else {
		if (!ok(k->dk_log2_index_bytes) || !ok(k->dk_kind) ||
		    k->dk_log2_index_bytes >= sizeof(h) ||
		    k->dk_kind >= sizeof(h) || h[k->dk_log2_index_bytes] > 40)
			return -1;
		ks->entries = keys + k->dk_indices +
			(1ull << h[k->dk_log2_index_bytes]);
		if (h[k->dk_kind] == k->dk_general) {
			ks->esize = k->dk_entry_size;
			ks->koff = 8;
			ks->voff = 16;
		} else {
			ks->esize = k->dk_unicode_entry_size;
			ks->koff = 0;
			ks->voff = 8;
		}
	}
	if (ks->esize != 16 && ks->esize != 24)
		return -1;
	return 0;
}

/*
 * Each entry of keys with its value from the entry or, when values is
 * not 0, from the values array (values[i] for entry i).
 */
static int keys_each(struct pyobj *o, const struct keys *ks, uint64_t values,
		     size_t max, int (*fn)(void *, uint64_t, uint64_t),
		     void *data)
{
	unsigned char *ents;
	uint64_t *vals = NULL;
	size_t n = ks->n < max ? (size_t)ks->n : max, i;
	int r = 0;

	if (!n)
		return 0;
	ents = xmalloc(n * ks->esize);
	if (rd(o, ks->entries, ents, n * ks->esize)) {
		free(ents);
		return -1;
	}
	if (values) {
		vals = xmalloc(n * 8);
		if (values % 8 || rd(o, values, vals, n * 8)) {
			free(ents);
			free(vals);
			return -1;
		}
	}
	for (i = 0; i < n && !r; i++) {
		uint64_t key, val;

		memcpy(&key, ents + i * ks->esize + ks->koff, 8);
		if (vals)
			val = vals[i];
		else
			memcpy(&val, ents + i * ks->esize + ks->voff, 8);
		if (key && val)
			r = fn(data, key, val);
	}
	free(ents);
	free(vals);
	return r;
}

int pyobj_dict_each(struct pyobj *o, uint64_t dict, size_t max,
		    int (*fn)(void *data, uint64_t key, uint64_t value),
		    void *data)
{
	const struct pytarget_obj *k = &o->t->obj;
	uint64_t keys, values;
	struct keys ks;

	if (!ok(k->dict_keys) || !ok(k->dict_values) ||
	    pyobj_word(o, dict + k->dict_keys, &keys) ||
	    pyobj_word(o, dict + k->dict_values, &values) ||
	    read_keys(o, keys, &ks))
		return -1;
	if (values) {
		/* 3.11+: PyDictValues, its array at values_values */
		if (ok(k->values_values))
			values += k->values_values;
	}
	return keys_each(o, &ks, values, max, fn, data);
}

struct get {
	struct pyobj *o;
	const char *name;
	size_t len;
	uint64_t found;
};

static int get_one(void *data, uint64_t key, uint64_t value)
{
	struct get *g = data;
	char *s;
	int hit;

	if (pyobj_kind(g->o, key) != PYOBJ_STR)
		return 0;
	s = pyobj_str(g->o, key);
	hit = s && strlen(s) == g->len && !memcmp(s, g->name, g->len);
	free(s);
	if (hit)
		g->found = value;
	return hit;
}

uint64_t pyobj_dict_get(struct pyobj *o, uint64_t dict, const char *name)
{
	struct get g = { o, name, strlen(name), 0 };

	if (pyobj_dict_each(o, dict, MAX_ENTRIES, get_one, &g) <= 0)
		return 0;
	return g.found;
}

char *pyobj_str(struct pyobj *o, uint64_t str)
{
	o->reads++;
	return pycode_read_str(o->t->pid, &o->t->code, str);
}

int pyobj_int(struct pyobj *o, uint64_t obj, uint64_t *v)
{
	const struct pytarget_obj *k = &o->t->obj;
	uint64_t size, ndig;
	uint32_t dig[2];

	*v = 0;
	if (!ok(k->long_digit) || !ok(k->var_size) || k->long_shift != 30 ||
	    pyobj_word(o, obj + k->var_size, &size))
		return -1;
	if (k->long_lv_tag) {
		/* 3.12+: digits << 3 | sign (0 positive, 1 zero, 2 negative) */
		if ((size & 3) == 1)
			return 0;
		if ((size & 3) != 0)
			return -1;
		ndig = size >> 3;
	} else {
		if ((int64_t)size < 0)
			return -1;
		ndig = size;
	}
	if (!ndig)
		return 0;
	if (ndig > 2 || rd(o, obj + k->long_digit, dig, ndig * 4))
		return -1;
	*v = dig[0] & 0x3fffffffu;
	if (ndig == 2)
		*v |= (uint64_t)(dig[1] & 0x3fffffffu) << 30;
	return 0;
}

uint64_t pyobj_module(struct pyobj *o, const char *name)
{
	const struct pytarget_obj *k = &o->t->obj;
	uint64_t interp, modules, m;

	if (!ok(k->interp_modules) ||
	    pyobj_word(o, o->t->runtime + o->t->layout.runtime_interp_head,
		       &interp) ||
	    pyobj_word(o, interp + k->interp_modules, &modules) ||
	    pyobj_kind(o, modules) != PYOBJ_DICT)
		return 0;
	m = pyobj_dict_get(o, modules, name);
	return m && pyobj_kind(o, m) == PYOBJ_MODULE ? m : 0;
}

/* The value of name among keys' entries, from values[entry]. */
static uint64_t shared_get(struct pyobj *o, uint64_t tp, uint64_t values,
			   const char *name)
{
	const struct pytarget_obj *k = &o->t->obj;
	uint64_t keys;
	struct keys ks;
	struct get g = { o, name, strlen(name), 0 };

	if (!ok(k->ht_cached_keys) ||
	    pyobj_word(o, tp + k->ht_cached_keys, &keys) ||
	    read_keys(o, keys, &ks) || ks.n > 256)
		return 0;
	if (keys_each(o, &ks, values, 256, get_one, &g) <= 0)
		return 0;
	return g.found;
}

uint64_t pyobj_attr(struct pyobj *o, uint64_t obj, const char *name)
{
	const struct pytarget_obj *k = &o->t->obj;
	uint64_t tp, flags, off, dict = 0, values = 0, w, size;
	unsigned char valid = 0;

	if (!ok(k->ob_type) || pyobj_word(o, obj + k->ob_type, &tp) ||
	    pyobj_word(o, tp + k->tp_flags, &flags))
		return 0;
	switch (k->inst_dict) {
	case PYTARGET_DICT_OFFSET:
		if (pyobj_word(o, tp + k->tp_dictoffset, &off) ||
		    (int64_t)off <= 0 || off > 4096 ||
		    pyobj_word(o, obj + off, &dict))
			return 0;
		break;
	case PYTARGET_DICT_MANAGED_311:
		if (!(flags & k->managed_dict_flag) ||
		    !ok(k->managed_dict_before) ||
		    !ok(k->managed_values_before) ||
		    pyobj_word(o, obj - k->managed_dict_before, &dict) ||
		    (!dict && pyobj_word(o, obj - k->managed_values_before,
					 &values)))
			return 0;
		break;
	case PYTARGET_DICT_MANAGED_312:
		if (!(flags & k->managed_dict_flag) ||
		    !ok(k->managed_dict_before) ||
		    pyobj_word(o, obj - k->managed_dict_before, &w))
			return 0;
		/* _PyDictOrValues_SetValues() stores values - 1 */
		if (w & 1)
			values = w + 1;
		else
			dict = w;
		break;
	case PYTARGET_DICT_MANAGED_313:
		if (!(flags & k->managed_dict_flag) ||
		    !ok(k->managed_dict_before) ||
		    pyobj_word(o, obj - k->managed_dict_before, &dict))
			return 0;
		if (dict || !(flags & k->inline_values_flag))
			break;
		if (pyobj_word(o, tp + k->tp_basicsize, &size) || !size ||
		    size > 4096 || !ok(k->values_valid) ||
		    rd(o, obj + size + k->values_valid, &valid, 1) || !valid)
			return 0;
		values = obj + size;
		break;
	default:
		return 0;
	}
	if (dict)
		return pyobj_kind(o, dict) == PYOBJ_DICT ?
			pyobj_dict_get(o, dict, name) : 0;
	if (!values || !ok(k->values_values))
		return 0;
	return shared_get(o, tp, values + k->values_values, name);
}
