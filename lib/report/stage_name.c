/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The naming stage (pipeline_priv.h): a sample's frames, leaf first,
 * in; a profile frame id and a class for each out (the loader's
 * scratch ids[], cls[], startup[], unnamed[]), with what judging needs
 * (struct named: the outermost user frame, whether it is a root).
 *
 * An address frame is named by its symbol and object as perf script
 * spells them, classified (Python, native of which object, kernel, the
 * interpreter's call plumbing, unknown), and anonymous code is looked
 * up in the session's own perf maps (perf-<pid>.map in maps/).  A
 * Python frame a source named itself (SAMPLE_FRAME_PYTHON) is a Python
 * frame as it is.  Each distinct frame is classified once (the raw
 * table).  Before naming, name_rebuild() replaces the Python callers
 * of a sample that holds a context trampoline by those its context
 * table names (report/stage_name_contexts.h).
 */
#include "compat.h"
#include "alloc.h"
#include "hmap.h"
#include "report/pipeline_priv.h"
#include "utf8.h"

/* ---- classification -------------------------------------------------- */

static const char *const plumbing_names[] = {
	/* the eval loop and its entry points */
	"_PyEval_EvalFrameDefault", "_PyEval_EvalFrame", "_PyEval_Vector",
	"_PyEval_EvalCode", "_PyEval_EvalCodeWithName", "PyEval_EvalCode",
	"PyEval_EvalCodeEx", "PyEval_EvalFrame", "PyEval_EvalFrameEx",
	/* calling a Python function */
	"_PyFunction_Vectorcall", "_PyFunction_FastCallDict",
	"_PyFunction_FastCallKeywords", "_PyFunction_FastCall",
	"function_code_fastcall",
	/* the generic call protocol */
	"PyObject_Vectorcall", "PyObject_VectorcallDict",
	"PyObject_VectorcallMethod", "_PyObject_VectorcallTstate",
	"_PyObject_Vectorcall", "_PyObject_VectorcallDictTstate",
	"_PyObject_FastCall", "_PyObject_FastCallDict",
	"_PyObject_FastCallDictTstate", "_PyObject_FastCallKeywords",
	"_PyObject_FastCall_Prepend", "_PyObject_Call", "PyObject_Call",
	"_PyObject_MakeTpCall", "_PyObject_Call_Prepend",
	"PyObject_CallObject", "PyObject_CallOneArg", "PyObject_CallNoArgs",
	"_PyObject_CallNoArgs", "_PyObject_CallNoArg",
	"_PyObject_CallNoArgsTstate", "PyObject_CallFunctionObjArgs",
	"PyObject_CallMethodObjArgs", "_PyObject_CallMethod",
	"_PyObject_CallMethodId", "_PyObject_CallMethodIdObjArgs",
	"PyObject_CallMethod", "PyObject_CallFunction",
	"_PyObject_CallFunction_SizeT", "PyVectorcall_Call",
	"_PyVectorcall_Call", "_PyObject_VectorcallMethod",
	"object_vacall", "_PyObject_CallMethodIdOneArg",
	/* bound methods and C functions called from Python */
	"method_vectorcall", "method_vectorcall_NOARGS",
	"method_vectorcall_O", "method_vectorcall_FASTCALL",
	"method_vectorcall_FASTCALL_KEYWORDS",
	"method_vectorcall_FASTCALL_KEYWORDS_METHOD",
	"method_vectorcall_VARARGS", "method_vectorcall_VARARGS_KEYWORDS",
	"method_call", "methoddescr_call", "classmethoddescr_call",
	"wrapperdescr_call", "wrapper_call", "cfunction_call",
	"cfunction_call_varargs", "cfunction_vectorcall_FASTCALL",
	"cfunction_vectorcall_FASTCALL_KEYWORDS",
	"cfunction_vectorcall_FASTCALL_KEYWORDS_METHOD",
	"cfunction_vectorcall_NOARGS", "cfunction_vectorcall_O",
	"_PyCFunction_FastCallKeywords", "_PyCFunction_FastCallDict",
	"_PyMethodDef_RawFastCallKeywords", "_PyMethodDef_RawFastCallDict",
	"PyCFunction_Call", "vectorcall_method", "vectorcall_unbound",
	"call_unbound", "call_unbound_noarg", "call_method", "type_call",
	"partial_vectorcall", "partial_call",
	/* generators and coroutines resuming */
	"gen_send_ex", "gen_send_ex2", "gen_iternext", "gen_send",
	"_PyGen_Send", "gen_throw", "_gen_throw", "coro_wrapper_iternext",
	"coro_wrapper_send", "PyIter_Send", "PyIter_Next",
	"async_gen_asend_send",
	"async_gen_asend_iternext", "async_gen_athrow_send",
	/* CPython's perf trampoline */
	"py_trampoline_evaluator", "_Py_trampoline_func_start",
	"_Py_trampoline_func_end",
};

static struct htab plumbing_tab;
static int plumbing_ready;

static int plumb_eq(const void *ctx, uint32_t id)
{
	const struct sample_str *s = ctx;
	const char *n = plumbing_names[id];

	return strlen(n) == s->len && !memcmp(n, s->s, s->len);
}

void name_init(void)
{
	size_t i;

	if (plumbing_ready)
		return;
	htab_init(&plumbing_tab);
	for (i = 0; i < ARRAY_SIZE(plumbing_names); i++)
		htab_insert(&plumbing_tab,
			    hash_mem(plumbing_names[i],
				     strlen(plumbing_names[i]), 0),
			    (uint32_t)i);
	plumbing_ready = 1;
}

static int has_prefix(const char *s, size_t len, const char *pfx)
{
	size_t n = strlen(pfx);

	return len >= n && !memcmp(s, pfx, n);
}

static int contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

/* Is the symbol (without .cold/.isra.0/... suffixes) plumbing? */
static int is_plumbing_sym(const char *sym, size_t len)
{
	const char *dot = memchr(sym, '.', len);
	struct sample_str s;

	if (dot)
		len = (size_t)(dot - sym);
	if (len >= 5 && !memcmp(sym, "slot_", 5))
		return 1;	/* slot_tp_call, slot_nb_add, ... */
	s.s = sym;
	s.len = len;
	return htab_find(&plumbing_tab, hash_mem(sym, len, 0), plumb_eq,
			 &s) != HTAB_NONE;
}

static int is_kernel_dso(const char *dso, size_t len)
{
	if (!len || dso[0] != '[')
		return 0;
	if (has_prefix(dso, len, "[kernel") || has_prefix(dso, len, "[guest"))
		return 1;
	/* modules are "[name]"; user-space pseudo objects are not kernel */
	return !(has_prefix(dso, len, "[vdso") ||
		 has_prefix(dso, len, "[vsyscall") ||
		 has_prefix(dso, len, "[unknown") ||
		 has_prefix(dso, len, "[heap") ||
		 has_prefix(dso, len, "[stack") ||
		 has_prefix(dso, len, "[anon") ||
		 has_prefix(dso, len, "[uprobes"));
}

/* "/tmp/perf-PID.map" -> PID, else 0 */
static pid_t map_dso_pid(const char *dso, size_t len)
{
	const char *base = dso, *p;
	unsigned long pid = 0;

	for (p = dso; p < dso + len; p++)
		if (*p == '/')
			base = p + 1;
	len -= (size_t)(base - dso);
	if (len < 10 || memcmp(base, "perf-", 5) ||
	    memcmp(base + len - 4, ".map", 4))
		return 0;
	for (p = base + 5; p < base + len - 4; p++) {
		if (*p < '0' || *p > '9' || pid > 1000000000UL)
			return 0;
		pid = pid * 10 + (unsigned long)(*p - '0');
	}
	return (pid_t)pid;
}

static int is_python_exe(const char *base, size_t len)
{
	size_t i = 6;

	if (len < 6 || memcmp(base, "python", 6))
		return 0;
	while (i < len && ((base[i] >= '0' && base[i] <= '9') ||
			   base[i] == '.'))
		i++;
	while (i < len && base[i] >= 'a' && base[i] <= 'z')
		i++;
	return i == len;
}

static enum native_class dso_class(const char *dso, size_t len,
				   int *trampoline)
{
	const char *base = dso, *p;
	size_t blen;

	*trampoline = 0;
	for (p = dso; p < dso + len; p++)
		if (*p == '/')
			base = p + 1;
	blen = len - (size_t)(base - dso);
	if (has_prefix(base, blen, "libpython") || is_python_exe(base, blen))
		return NATIVE_LIBPYTHON;
	if (has_prefix(base, blen, "_pyperf_trampoline")) {
		*trampoline = 1;
		return NATIVE_OTHER;
	}
	if (contains(base, blen, ".cpython-") ||
	    contains(base, blen, ".abi3.") ||
	    contains(dso, len, "/lib-dynload/") ||
	    contains(dso, len, "/site-packages/") ||
	    contains(dso, len, "/dist-packages/"))
		return NATIVE_EXTENSION;
	if (has_prefix(dso, len, "[vdso") ||
	    has_prefix(dso, len, "[vsyscall") ||
	    has_prefix(dso, len, "/lib/") || has_prefix(dso, len, "/lib64/") ||
	    has_prefix(dso, len, "/usr/lib/") ||
	    has_prefix(dso, len, "/usr/lib64/") ||
	    has_prefix(dso, len, "/usr/libexec/"))
		return NATIVE_SYSTEM;
	return NATIVE_OTHER;
}

/*
 * Can this name be shown?  Valid UTF-8 without control characters, not
 * two records spliced into one (a second "py::" inside), and a Python
 * name whole: "py::QUALNAME:FILE" (a torn jit dump record can end
 * early at a stray NUL, leaving "py::fresh_55" without its file).
 */
static int name_is_clean(const char *s, size_t len)
{
	if (!utf8_is_clean(s, len))
		return 0;
	if (len > 4 && memmem(s + 1, len - 1, "py::", 4))
		return 0;
	if (len >= 4 && !memcmp(s, "py::", 4) &&
	    (len == 4 || s[4] == ':' || !memchr(s + 4, ':', len - 4)))
		return 0;
	return 1;
}

/* "py::QUALNAME:FILE" -> python frame id */
static uint32_t intern_python(struct profile *p, const char *sym, size_t len)
{
	const char *q = sym + 4, *e = sym + len;
	const char *colon = memchr(q, ':', (size_t)(e - q));
	char *func, *file = NULL;
	uint32_t id;

	if (colon) {
		func = xstrndup(q, (size_t)(colon - q));
		file = xstrndup(colon + 1, (size_t)(e - colon - 1));
	} else {
		func = xstrndup(q, (size_t)(e - q));
	}
	id = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL, func,
				  file, NULL);
	free(func);
	free(file);
	return id;
}

static int raw_eq(const void *ctx, uint32_t id)
{
	const struct sample_frame *f = ((const void *const *)ctx)[0];
	const struct loader *l = ((const void *const *)ctx)[1];
	const struct rframe *r = &l->raw[id];

	return r->kind == f->kind && r->line == f->line &&
	       r->keylen == f->sym.len + 1 + f->dso.len &&
	       !memcmp(r->key, f->sym.s, f->sym.len) &&
	       !r->key[f->sym.len] &&
	       !memcmp(r->key + f->sym.len + 1, f->dso.s, f->dso.len);
}

/*
 * A Python frame its source named (SAMPLE_FRAME_PYTHON: sym the
 * qualname, dso the file): the same profile frame as a perf map's
 * "py::QUALNAME:FILE" for that function, or with its line (the
 * walker's frames) one frame per line (profile.h).  A name that
 * cannot be shown is dropped and counted, as a perf map's is.
 */
static void raw_python(struct loader *l, struct rframe *r,
		       const struct sample_frame *f)
{
	char *func, *file;

	if (!f->sym.len) {
		r->cls = C_UNKNOWN;
		r->frame = l->unknown_frame;
		return;
	}
	if (!utf8_is_clean(f->sym.s, f->sym.len) ||
	    !utf8_is_clean(f->dso.s, f->dso.len)) {
		l->p->quality.bad_names++;
		r->cls = C_UNKNOWN;
		r->frame = l->unknown_frame;
		return;
	}
	func = xstrndup(f->sym.s, f->sym.len);
	file = f->dso.len ? xstrndup(f->dso.s, f->dso.len) : NULL;
	r->cls = C_PY;
	r->frame = profile_frame_intern_line(l->p, FRAME_PYTHON, NATIVE_NONE,
					     NULL, func, file, NULL, f->line);
	free(func);
	free(file);
}

/*
 * An address frame: classified by its symbol and object (r->key, as
 * perf script names them); anonymous code is marked for the perf maps.
 */
static void raw_address(struct loader *l, struct rframe *r,
			const struct sample_frame *f)
{
	const char *sym = r->key, *dso = r->key + f->sym.len + 1;
	int tramp = 0, unknown_sym;
	enum native_class nc;

	unknown_sym = !strcmp(sym, "[unknown]");
	if (!unknown_sym && !name_is_clean(sym, f->sym.len)) {
		/* a damaged name (a torn map or dump record): drop it */
		l->p->quality.bad_names++;
		unknown_sym = 1;
	}
	r->map_pid = map_dso_pid(dso, f->dso.len);
	r->root = !unknown_sym && stack_is_root_symbol(sym);
	/* perf ends some DWARF chains with an all-ones address */
	r->marker = unknown_sym && f->ip == UINT64_MAX;
	if (!unknown_sym && has_prefix(sym, f->sym.len, "py::")) {
		r->cls = C_PY;
		r->frame = intern_python(l->p, sym, f->sym.len);
		/*
		 * Named by a /tmp map perf found: the session's own copy
		 * wins (a stale /tmp file of a reused pid may be wrong).
		 */
		r->resolve = r->map_pid != 0;
		return;
	}
	if (is_kernel_dso(dso, f->dso.len) ||
	    (!strcmp(dso, "[unknown]") && f->ip >= 0xffff800000000000ULL &&
	     !unknown_sym)) {
		r->cls = C_KERNEL;
		r->frame = profile_frame_intern(l->p, FRAME_KERNEL, NATIVE_NONE,
						NULL, sym, NULL, dso);
		return;
	}
	if (r->map_pid || !strcmp(dso, "[unknown]") || !strcmp(dso, "//anon")) {
		/* anonymous code: a perf map may name it */
		r->resolve = 1;
		r->cls = C_UNKNOWN;
		r->frame = l->unknown_frame;
		if (!unknown_sym && name_is_clean(dso, f->dso.len)) {
			/* perf resolved it itself (the map was in /tmp) */
			r->cls = C_NATIVE;
			r->frame = profile_frame_intern(l->p, FRAME_NATIVE,
							NATIVE_OTHER, NULL,
							sym, NULL, dso);
		}
		return;
	}
	nc = dso_class(dso, f->dso.len, &tramp);
	if (!name_is_clean(dso, f->dso.len)) {
		r->cls = C_UNKNOWN;
		r->frame = l->unknown_frame;
		return;
	}
	if (unknown_sym && !tramp) {
		/*
		 * Code perf has no symbol for (a stripped interpreter's
		 * static functions): shown as "[object]", never credited
		 * to a named neighbour.  The mixed view folds it only
		 * where it is call machinery between Python frames.
		 */
		r->cls = C_NATIVE;
		r->unnamed = 1;
		r->startup = nc == NATIVE_LIBPYTHON || nc == NATIVE_SYSTEM;
		r->frame = profile_frame_intern(l->p, FRAME_NATIVE, nc, NULL,
						NULL, NULL, dso);
		return;
	}
	if (tramp || (nc == NATIVE_LIBPYTHON &&
		      is_plumbing_sym(sym, f->sym.len))) {
		r->cls = C_PLUMB;
		r->startup = 1;
		r->frame = profile_frame_intern(l->p, FRAME_PLUMBING, nc, NULL,
						sym, NULL, dso);
		return;
	}
	r->cls = C_NATIVE;
	r->startup = nc == NATIVE_LIBPYTHON || nc == NATIVE_SYSTEM;
	r->frame = profile_frame_intern(l->p, FRAME_NATIVE, nc, NULL, sym,
					NULL, dso);
}

/* The raw frame of f: named and classified when first seen. */
static struct rframe *raw_intern(struct loader *l, const struct sample_frame *f)
{
	const void *ctx[2] = { f, l };
	/* object names repeat: their tail tells them apart well enough */
	size_t tail = f->dso.len < 16 ? f->dso.len : 16;
	uint64_t h = hash_mem(f->sym.s, f->sym.len,
			      hash_mem(f->dso.s + f->dso.len - tail, tail,
				       f->dso.len)) + f->kind +
		     ((uint64_t)f->line << 8);
	uint32_t id = htab_find(&l->raw_tab, h, raw_eq, ctx);
	struct rframe *r;
	char *key;

	if (id != HTAB_NONE)
		return &l->raw[id];
	ALLOC_GROW(l->raw, l->nr_raw + 1, l->raw_alloc);
	id = (uint32_t)l->nr_raw++;
	r = &l->raw[id];
	memset(r, 0, sizeof(*r));
	key = xmalloc(f->sym.len + f->dso.len + 2);
	memcpy(key, f->sym.s, f->sym.len);
	key[f->sym.len] = '\0';
	memcpy(key + f->sym.len + 1, f->dso.s, f->dso.len);
	key[f->sym.len + 1 + f->dso.len] = '\0';
	r->key = key;
	r->keylen = (uint32_t)(f->sym.len + 1 + f->dso.len);
	r->kind = f->kind;
	r->line = f->line;
	htab_insert(&l->raw_tab, h, id);
	if (f->kind == SAMPLE_FRAME_PYTHON)
		raw_python(l, r, f);
	else
		raw_address(l, r, f);
	return r;
}

/* ---- session maps ---------------------------------------------------- */

static struct pmap *map_get(struct loader *l, pid_t pid)
{
	struct pmap *m;
	char *path;
	size_t i;

	if (l->last_map < l->nr_maps && l->maps[l->last_map].pid == pid)
		return &l->maps[l->last_map];
	for (i = 0; i < l->nr_maps; i++)
		if (l->maps[i].pid == pid) {
			l->last_map = i;
			return &l->maps[i];
		}
	ALLOC_GROW(l->maps, l->nr_maps + 1, l->maps_alloc);
	m = &l->maps[l->nr_maps];
	l->last_map = l->nr_maps++;
	m->pid = pid;
	m->ids = NULL;
	perfmap_init(&m->map);
	m->loaded = -1;
	for (i = 0; i < l->nr_map_dirs && m->loaded < 0; i++) {
		path = xasprintf("%s/perf-%ld.map", l->map_dirs[i], (long)pid);
		if (!perfmap_read(&m->map, path) && m->map.nr) {
			m->loaded = 1;
			m->ids = xmalloc(m->map.nr * sizeof(*m->ids));
			memset(m->ids, 0xff, m->map.nr * sizeof(*m->ids));
		} else {
			perfmap_release(&m->map);
			perfmap_init(&m->map);
		}
		free(path);
	}
	return m;
}

/* The frame for ip in pid's map, or HTAB_NONE. */
static uint32_t map_resolve(struct loader *l, pid_t pid, uint64_t ip)
{
	struct pmap *m = map_get(l, pid);
	const struct perfmap_entry *e;
	size_t idx;

	if (m->loaded < 0)
		return HTAB_NONE;
	e = perfmap_lookup(&m->map, ip);
	if (!e)
		return HTAB_NONE;
	idx = (size_t)(e - m->map.entries);
	if (m->ids[idx] == HTAB_NONE) {
		size_t n = strlen(e->name);

		if (!name_is_clean(e->name, n)) {
			/* a torn or overwritten map line: unnamed */
			l->p->quality.bad_names++;
			m->ids[idx] = l->unknown_frame;
		} else if (has_prefix(e->name, n, "py::"))
			m->ids[idx] = intern_python(l->p, e->name, n);
		else
			m->ids[idx] = profile_frame_intern(l->p, FRAME_NATIVE,
							   NATIVE_OTHER, NULL,
							   e->name, NULL,
							   NULL);
	}
	return m->ids[idx];
}

/* Forget the perf maps read so far: they are read again when needed. */
void name_drop_maps(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nr_maps; i++) {
		perfmap_release(&l->maps[i].map);
		free(l->maps[i].ids);
	}
	l->nr_maps = 0;
	l->last_map = 0;
}

void name_release(struct loader *l)
{
	size_t i;

	htab_release(&l->raw_tab);
	for (i = 0; i < l->nr_raw; i++)
		free((char *)l->raw[i].key);
	free(l->raw);
	name_drop_maps(l);
	free(l->maps);
	free(l->ids);
	free(l->cls);
	free(l->startup);
	free(l->unnamed);
	free(l->out);
	ctx_db_free(l->ctx);
}

/* ---- per sample ------------------------------------------------------ */

/*
 * Context trampolines: the innermost one the sample holds names every
 * Python caller, however much of the stack perf copied.  Returns the
 * sample to name (s, or *rebuilt whose frames live in the context
 * tables' scratch until the next sample).
 */
const struct sample *name_rebuild(struct loader *l, const struct sample *s,
				  struct sample *rebuilt, struct named *nm)
{
	struct profile *p = l->p;

	nm->cr = CTX_NONE;
	if (!l->ctx)
		return s;
	nm->cr = ctx_db_rebuild(l->ctx, s, rebuilt);
	if (nm->cr == CTX_NONE)
		return s;
	p->quality.ctx_rebuilt++;
	if (nm->cr == CTX_UNKNOWN)
		p->quality.ctx_unknown++;
	return rebuilt;
}

/*
 * Room for n frames, and in out for the pseudo frames a stack may get
 * around them (start-up, cut, the off-CPU reason).
 */
static void scratch_grow(struct loader *l, size_t n)
{
	if (n + 4 <= l->scratch_alloc)
		return;
	l->scratch_alloc = (n + 4) * 2;
	l->ids = xrealloc(l->ids, l->scratch_alloc * sizeof(*l->ids));
	l->cls = xrealloc(l->cls, l->scratch_alloc);
	l->startup = xrealloc(l->startup, l->scratch_alloc);
	l->unnamed = xrealloc(l->unnamed, l->scratch_alloc);
	l->out = xrealloc(l->out, l->scratch_alloc * sizeof(*l->out));
}

/* The profile frame of f in sample s (and its class in *c). */
static uint32_t name_frame(struct loader *l, const struct sample *s,
			   const struct sample_frame *fr,
			   const struct rframe *r, uint8_t *c)
{
	const struct profile *p = l->p;
	uint32_t rid = HTAB_NONE;

	*c = r->cls;
	if (!r->resolve)
		return r->frame;
	/*
	 * The sample's own process map first: a forked child inherits
	 * the parent's anonymous code, which perf names after the
	 * parent's map, but the child's map tells what the child put
	 * there.
	 */
	if (fr->ip < 0xffff800000000000ULL)
		rid = map_resolve(l, s->pid, fr->ip);
	if (rid == HTAB_NONE && r->map_pid && r->map_pid != s->pid)
		rid = map_resolve(l, r->map_pid, fr->ip);
	if (rid == HTAB_NONE)
		return r->frame;
	*c = p->frames[rid].kind == FRAME_PYTHON ? C_PY :
		p->frames[rid].kind == FRAME_UNKNOWN ? C_UNKNOWN : C_NATIVE;
	return rid;
}

void name_frames(struct loader *l, const struct sample *s,
		 struct named *nm)
{
	size_t n = s->nr_frames, i;

	nm->n = n;
	nm->any_py = 0;
	nm->outer_user = SIZE_MAX;
	nm->outer_root = 0;
	nm->startup = 0;
	scratch_grow(l, n);
	/* classify, leaf first */
	for (i = 0; i < n; i++) {
		const struct sample_frame *fr = &s->frames[i];
		struct rframe *r = raw_intern(l, fr);
		uint8_t c;

		l->ids[i] = name_frame(l, s, fr, r, &c);
		l->cls[i] = c;
		l->startup[i] = r->startup;
		l->unnamed[i] = r->unnamed;
		if (c == C_PY)
			nm->any_py = 1;
		if (c != C_KERNEL && !r->marker)
			nm->outer_user = i, nm->outer_root = r->root;
	}
	/*
	 * a stack rebuilt up to its root context is whole; so is one whose
	 * Python frames the walker followed to the thread's first
	 */
	if (nm->cr == CTX_ROOT || (s->py_whole && nm->any_py))
		nm->outer_root = 1;
}
