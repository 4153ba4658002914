/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Qualified names for 3.8-3.10's code objects (pyqual.h), read through
 * pyobj.h from the target's sys.modules.
 */
#include "compat.h"
#include "walker/pyqual.h"
#include "walker/pyobj.h"
#include "alloc.h"
#include "strbuf.h"

#define WALK_FIRST_NS 20000000ull	/* 20 ms */
#define WALK_MAX_NS 8000000000ull	/* 8 s */
#define MAX_DEPTH 8			/* nested code objects */
#define MAX_CONSTS 4096
#define MAX_MODULE_ENTRIES 65536

enum { BY_FUNCTION = 1, BY_LEXICAL = 2 };

struct name {
	char *qualname;
	int by;
};

/* When the modules of one source file were last walked. */
struct qfile {
	uint64_t last_walk, interval;
};

struct qproc {
	pid_t pid;
	struct umap names;	/* code address -> struct name * */
	struct smap files;	/* co_filename -> struct qfile * */
	struct umap modfile;	/* module address -> its __file__ (char *,
				   "" when it has none) */
};

struct pyqual {
	struct umap procs;	/* pid -> struct qproc * */
	uint64_t walks;
};

/* One walk of one process. */
struct walk {
	struct pyobj o;
	struct qproc *p;
	const char *file;	/* the modules of this source file */
	struct umap seen;	/* functions, classes, codes visited */
	size_t added;
};

struct pyqual *pyqual_new(void)
{
	return xcalloc(1, sizeof(struct pyqual));
}

static void names_release(struct umap *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->ents[i].used && m->ents[i].val) {
			struct name *n = m->ents[i].val;

			free(n->qualname);
			free(n);
		}
	umap_release(m);
}

static void qproc_free(struct qproc *p)
{
	size_t i;

	if (!p)
		return;
	names_release(&p->names);
	smap_release(&p->files, free);
	for (i = 0; i < p->modfile.cap; i++)
		if (p->modfile.ents[i].used)
			free(p->modfile.ents[i].val);
	umap_release(&p->modfile);
	free(p);
}

void pyqual_free(struct pyqual *q)
{
	size_t i;

	if (!q)
		return;
	for (i = 0; i < q->procs.cap; i++)
		if (q->procs.ents[i].used)
			qproc_free(q->procs.ents[i].val);
	umap_release(&q->procs);
	free(q);
}

void pyqual_forget(struct pyqual *q, pid_t pid)
{
	struct umap_ent *e = umap_find(&q->procs, (uint64_t)(uint32_t)pid);

	if (!e)
		return;
	qproc_free(e->val);
	/* the entry too: processes that come and go leave nothing */
	umap_del(&q->procs, (uint64_t)(uint32_t)pid);
}

uint64_t pyqual_walks(const struct pyqual *q)
{
	return q->walks;
}

/* First visit of addr in this walk: 1; else 0. */
static int first_visit(struct walk *w, uint64_t addr)
{
	int added = 0;

	umap_get(&w->seen, addr, &added);
	return added;
}

static void set_name(struct walk *w, uint64_t code, const char *qualname,
		     int by)
{
	struct umap_ent *e = umap_get(&w->p->names, code, NULL);
	struct name *n = e->val;

	if (n && (n->by > by || (n->by == by &&
				  !strcmp(n->qualname, qualname))))
		return;
	if (!n) {
		n = xcalloc(1, sizeof(*n));
		e->val = n;
		w->added++;
	}
	free(n->qualname);
	n->qualname = xstrdup(qualname);
	n->by = by;
}

static int is_comprehension(const char *name)
{
	return !strcmp(name, "<listcomp>") || !strcmp(name, "<setcomp>") ||
		!strcmp(name, "<dictcomp>") || !strcmp(name, "<genexpr>");
}

/*
 * The code objects among code's constants, named below qual as the
 * compiler names them (the trampoline's name_children()).
 */
static void name_children(struct walk *w, uint64_t code, const char *qual,
			  int depth)
{
	const struct pytarget_obj *k = &w->o.t->obj;
	uint64_t consts, n, own_p, *items;
	uint32_t flags;
	char *own;
	int in_function, i;

	if (depth > MAX_DEPTH || !first_visit(w, code) ||
	    pyobj_word(&w->o, code + k->co_consts, &consts) ||
	    pyobj_kind(&w->o, consts) != PYOBJ_TUPLE ||
	    pyobj_word(&w->o, consts + k->var_size, &n) || !n ||
	    n > MAX_CONSTS ||
	    pytarget_read(w->o.t->pid, code + k->co_flags, &flags, 4) ||
	    pyobj_word(&w->o, code + w->o.t->code.co_name, &own_p) ||
	    !(own = pyobj_str(&w->o, own_p)))
		return;
	in_function = (flags & k->co_newlocals) && !is_comprehension(own);
	free(own);
	items = xmalloc(n * 8);
	if (pytarget_read(w->o.t->pid, consts + k->tuple_item, items, n * 8)) {
		free(items);
		return;
	}
	for (i = 0; i < (int)n; i++) {
		uint64_t name_p;
		char *name, *child;

		if (pyobj_kind(&w->o, items[i]) != PYOBJ_CODE ||
		    pyobj_word(&w->o, items[i] + w->o.t->code.co_name,
			       &name_p) ||
		    !(name = pyobj_str(&w->o, name_p)))
			continue;
		child = xasprintf("%s%s%s", qual,
				  in_function ? ".<locals>." : ".", name);
		free(name);
		set_name(w, items[i], child, BY_LEXICAL);
		name_children(w, items[i], child, depth + 1);
		free(child);
	}
	free(items);
}

/* A function object: its code named by its __qualname__, and below. */
static void add_function(struct walk *w, uint64_t fn)
{
	const struct pytarget_obj *k = &w->o.t->obj;
	uint64_t code, qual_p;
	char *qual;

	if (!first_visit(w, fn) ||
	    pyobj_word(&w->o, fn + k->func_code, &code) ||
	    pyobj_word(&w->o, fn + k->func_qualname, &qual_p) ||
	    pyobj_kind(&w->o, code) != PYOBJ_CODE ||
	    !(qual = pyobj_str(&w->o, qual_p)))
		return;
	set_name(w, code, qual, BY_FUNCTION);
	name_children(w, code, qual, 0);
	free(qual);
}

struct cls {
	struct walk *w;
	uint64_t self;
	int depth;
};

static void add_class(struct walk *w, uint64_t tp, int depth);

/* One attribute of a class: a function, behind a descriptor, a class. */
static int class_entry(void *data, uint64_t key, uint64_t v)
{
	struct cls *c = data;
	struct walk *w = c->w;
	const struct pytarget_obj *k = &w->o.t->obj;
	uint64_t f;
	int i;

	(void)key;
	switch (pyobj_kind(&w->o, v)) {
	case PYOBJ_FUNCTION:
		add_function(w, v);
		break;
	case PYOBJ_STATICMETHOD:
	case PYOBJ_CLASSMETHOD:
		if (!pyobj_word(&w->o, v + k->sm_callable, &f) &&
		    pyobj_kind(&w->o, f) == PYOBJ_FUNCTION)
			add_function(w, f);
		break;
	case PYOBJ_PROPERTY:
		for (i = 0; i < 3; i++)
			if (!pyobj_word(&w->o, v + k->prop_get + 8 * i, &f) &&
			    f && pyobj_kind(&w->o, f) == PYOBJ_FUNCTION)
				add_function(w, f);
		break;
	case PYOBJ_TYPE:
		if (c->depth > 0 && v != c->self)
			add_class(w, v, c->depth - 1);
		break;
	default:
		break;
	}
	return 0;
}

/* A class of the program's (a heap type): its functions, nested classes. */
static void add_class(struct walk *w, uint64_t tp, int depth)
{
	const struct pytarget_obj *k = &w->o.t->obj;
	struct cls c = { w, tp, depth };
	uint64_t flags, dict;

	if (!first_visit(w, tp) ||
	    pyobj_word(&w->o, tp + k->tp_flags, &flags) ||
	    !(flags & (1ul << 9)) ||	/* Py_TPFLAGS_HEAPTYPE */
	    pyobj_word(&w->o, tp + k->tp_dict, &dict) || !dict)
		return;
	pyobj_dict_each(&w->o, dict, MAX_MODULE_ENTRIES, class_entry, &c);
}

static int module_entry(void *data, uint64_t key, uint64_t v)
{
	struct walk *w = data;

	(void)key;
	switch (pyobj_kind(&w->o, v)) {
	case PYOBJ_FUNCTION:
		add_function(w, v);
		break;
	case PYOBJ_TYPE:
		add_class(w, v, 2);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * A module's __file__, cached by its address; "" without one (a builtin
 * or frozen module).  The module "__main__" is there from the start and
 * has its __file__ only once the program's script runs: it is not cached
 * until then.
 */
static const char *module_file(struct walk *w, uint64_t key, uint64_t m)
{
	struct umap_ent *e = umap_find(&w->p->modfile, m);
	const struct pytarget_obj *k = &w->o.t->obj;
	uint64_t dict, f;
	char *s = NULL, *name;

	if (e && e->val)
		return e->val;
	if (pyobj_kind(&w->o, m) != PYOBJ_MODULE ||
	    pyobj_word(&w->o, m + k->md_dict, &dict) || !dict ||
	    pyobj_kind(&w->o, dict) != PYOBJ_DICT)
		return "";
	if ((f = pyobj_dict_get(&w->o, dict, "__file__")) &&
	    pyobj_kind(&w->o, f) == PYOBJ_STR) {
		s = pyobj_str(&w->o, f);
	} else {
		name = pyobj_str(&w->o, key);
		if (name && !strcmp(name, "__main__")) {
			free(name);
			return "";
		}
		free(name);
	}
	e = umap_get(&w->p->modfile, m, NULL);
	e->val = s ? s : xstrdup("");
	return e->val;
}

/*
 * Is key (a sys.modules name) the module of frozen code file ("<frozen
 * NAME>")?  NAME itself, or importlib's own modules under the names
 * they are set up by before importlib is imported: "<frozen
 * importlib._bootstrap>" is "_frozen_importlib", "..._external"
 * "_frozen_importlib_external".
 */
static int frozen_module(const char *key, const char *file)
{
	static const char boot[] = "importlib._bootstrap";
	static const char alias[] = "_frozen_importlib";
	size_t n, b = sizeof(boot) - 1, a = sizeof(alias) - 1;

	if (strncmp(file, "<frozen ", 8))
		return 0;
	file += 8;
	n = strlen(file);
	if (!n || file[n - 1] != '>')
		return 0;
	n--;
	if (strlen(key) == n && !strncmp(key, file, n))
		return 1;
	return n >= b && !strncmp(file, boot, b) && !strncmp(key, alias, a) &&
	       strlen(key + a) == n - b && !strncmp(key + a, file + b, n - b);
}

/*
 * A module of sys.modules: walked when its __file__ is the file, or for
 * code of a frozen module when its name is the frozen module's
 * (frozen_module()), __file__ or not: importing importlib gives its
 * frozen modules a __file__ (3.10: ".../importlib/_bootstrap.py"), and
 * a walk after that found no module for "<frozen importlib._bootstrap>"
 * code.  Every module without a __file__ was walked: builtins and each
 * of its classes, 25 ms of the loop that names code objects, for each
 * frozen file.
 */
static int module(void *data, uint64_t key, uint64_t m)
{
	struct walk *w = data;
	const struct pytarget_obj *k = &w->o.t->obj;
	const char *file = module_file(w, key, m);
	uint64_t dict;
	char *name;
	int frozen = 0;

	if (!strncmp(w->file, "<frozen ", 8) &&
	    (name = pyobj_str(&w->o, key))) {
		frozen = frozen_module(name, w->file);
		free(name);
	}
	if ((strcmp(file, w->file) && !frozen) ||
	    pyobj_word(&w->o, m + k->md_dict, &dict) || !dict ||
	    pyobj_kind(&w->o, dict) != PYOBJ_DICT)
		return 0;
	pyobj_dict_each(&w->o, dict, MAX_MODULE_ENTRIES, module_entry, w);
	return 0;
}

/* Walk the modules of source file file: the names found into p. */
static size_t walk_modules(struct pyqual *q, struct qproc *p,
			   const struct pytarget *t, const char *file)
{
	const struct pytarget_obj *k = &t->obj;
	struct walk w;
	uint64_t interp, modules;
	size_t added;

	memset(&w, 0, sizeof(w));
	pyobj_init(&w.o, t);
	w.p = p;
	w.file = file;
	q->walks++;
	if (!pyobj_word(&w.o, t->runtime + t->layout.runtime_interp_head,
			&interp) &&
	    !pyobj_word(&w.o, interp + k->interp_modules, &modules) &&
	    pyobj_kind(&w.o, modules) == PYOBJ_DICT)
		pyobj_dict_each(&w.o, modules, MAX_MODULE_ENTRIES, module, &w);
	added = w.added;
	umap_release(&w.seen);
	pyobj_release(&w.o);
	return added;
}

const char *pyqual_lookup(struct pyqual *q, const struct pytarget *t,
			  uint64_t code, const char *file, uint64_t now_ns)
{
	struct umap_ent *e;
	struct smap_ent *fe;
	struct qproc *p;
	struct qfile *f;

	if (t->obj.interp_modules == WALKER_NO_FIELD ||
	    t->obj.md_dict == WALKER_NO_FIELD || !file || !*file)
		return NULL;
	e = umap_get(&q->procs, (uint64_t)(uint32_t)t->pid, NULL);
	p = e->val;
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->pid = t->pid;
		e->val = p;
	}
	e = umap_find(&p->names, code);
	if (e && e->val)
		return ((struct name *)e->val)->qualname;
	fe = smap_get(&p->files, file, strlen(file), NULL);
	f = fe->val;
	if (!f) {
		f = xcalloc(1, sizeof(*f));
		f->interval = WALK_FIRST_NS;
		fe->val = f;
	} else if (now_ns < f->last_walk + f->interval) {
		return NULL;
	}
	f->last_walk = now_ns;
	if (walk_modules(q, p, t, file))
		f->interval = WALK_FIRST_NS;
	else if (f->interval < WALK_MAX_NS)
		f->interval *= 2;
	e = umap_find(&p->names, code);
	return e && e->val ? ((struct name *)e->val)->qualname : NULL;
}
