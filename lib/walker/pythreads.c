/* SPDX-License-Identifier: GPL-2.0-only */
/* Python's thread names read from outside the process (pythreads.h). */
#include "compat.h"
#include "walker/pythreads.h"
#include "walker/pyobj.h"
#include "alloc.h"

#define MAX_THREADS 65536

struct walk {
	struct pycode_cache *c;
	struct pyobj *o;
	pid_t pid;
	size_t added;
};

/* One entry of threading._active: ident -> Thread. */
static int one(void *data, uint64_t key, uint64_t thread)
{
	struct walk *w = data;
	uint64_t name_p, nid_p, nid;
	char *name;

	(void)key;
	name_p = pyobj_attr(w->o, thread, "_name");
	nid_p = pyobj_attr(w->o, thread, "_native_id");
	if (!name_p || !nid_p || pyobj_kind(w->o, name_p) != PYOBJ_STR ||
	    pyobj_kind(w->o, nid_p) != PYOBJ_INT ||
	    pyobj_int(w->o, nid_p, &nid) || !nid || nid > INT32_MAX ||
	    !(name = pyobj_str(w->o, name_p)))
		return 0;
	if (!pycode_thread_name(w->c, w->pid, (pid_t)nid))
		w->added++;
	pycode_thread_set(w->c, w->pid, (pid_t)nid, name);
	free(name);
	return 0;
}

size_t pythreads_read(struct pycode_cache *c, const struct pytarget *t)
{
	struct pyobj o;
	struct walk w = { c, &o, t->pid, 0 };
	uint64_t m, dict, active;

	if (t->obj.md_dict == WALKER_NO_FIELD)
		return 0;
	pyobj_init(&o, t);
	m = pyobj_module(&o, "threading");
	if (m && !pyobj_word(&o, m + t->obj.md_dict, &dict) &&
	    pyobj_kind(&o, dict) == PYOBJ_DICT &&
	    (active = pyobj_dict_get(&o, dict, "_active")) &&
	    pyobj_kind(&o, active) == PYOBJ_DICT)
		pyobj_dict_each(&o, active, MAX_THREADS, one, &w);
	pyobj_release(&o);
	return w.added;
}
