/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * profile_load(): run `perf script` on a session, parse the stream
 * (lib/report/perfscript.h), resolve perf-map addresses from the session's own
 * maps/ (lib/report/perfmap.h), classify frames, apply the view (folding the
 * interpreter's plumbing), and aggregate unique stacks.
 */
#include "compat.h"
#include "alloc.h"
#include "numparse.h"
#include "perfcmd.h"
#include "byteorder.h"
#include "perfdata.h"
#include "report/contexts.h"
#include "report/perfmap.h"
#include "report/native_load.h"
#include "report/perfscript.h"
#include "report/profile.h"
#include "report/profile_priv.h"
#include "report/report_cache.h"
#include "record/cuts.h"
#include "record/record.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"
#include "sysprobe.h"
#include "utf8.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Internal classes of raw frames. */
enum rclass {
	C_PY = 0,
	C_NATIVE,
	C_KERNEL,
	C_PLUMB,
	C_UNKNOWN
};

struct rframe {
	const char *key;	/* "sym\0dso" */
	uint32_t keylen;
	uint32_t frame;		/* profile frame id (fallback when resolving) */
	uint8_t cls;
	uint8_t startup;	/* interpreter / libc start-up code */
	uint8_t resolve;	/* look the ip up in a session map */
	uint8_t unnamed;	/* user code perf found no symbol for */
	uint8_t root;		/* where a process or thread starts */
	uint8_t marker;		/* perf's end-of-chain marker, not code */
	pid_t map_pid;		/* from "/tmp/perf-PID.map", or 0 */
};

/* A jit-mode sample as perf.data has it, to judge its stack dump. */
struct dump {
	uint64_t time;
	uint64_t sp;
	pid_t tid;
	uint8_t full;		/* the kernel copied all it was asked */
};

/* A sample whose stack dump was full: its thread and sp. */
struct cut_dump {
	pid_t tid;
	uint64_t sp;
};

struct pmap {
	pid_t pid;
	int loaded;		/* 1 ok, -1 missing */
	struct perfmap map;
	uint32_t *ids;		/* frame id per entry, HTAB_NONE = not yet */
};

struct loader {
	struct profile *p;
	const struct profile_filter *f;
	const struct session *s;	/* the session read */

	struct htab raw_tab;
	struct rframe *raw;
	size_t nr_raw, raw_alloc;

	struct pmap *maps;
	size_t nr_maps, maps_alloc;
	size_t last_map;
	/* where perf-<pid>.map files are read: the session's maps/ */
	const char *map_dirs[4];
	size_t nr_map_dirs;
	struct ctx_db *ctx;	/* the context tables, or NULL */

	/* per-sample scratch */
	uint32_t *ids;
	uint8_t *cls;
	uint8_t *startup;
	uint8_t *unnamed;
	size_t scratch_alloc;
	uint32_t *out;
	size_t out_alloc;

	uint64_t first_ns, last_ns;
	uint64_t from_ns, to_ns;	/* absolute window; 0 = open */
	int have_first;
	uint32_t pseudo_native, pseudo_kernel, unknown_frame;
	uint32_t startup_frame;	/* "[python start-up]" */
	uint32_t cut_frame[CUT_NR];

	/* judging stacks */
	int jit;		/* DWARF unwinding (jit mode) */
	struct dump *dumps;	/* sorted by (time, tid) */
	size_t nr_dumps;
	/*
	 * Per thread, the stack's ends learnt from dumps that reached
	 * them: sorted by tid up to nr_sorted (tops_compact()); the
	 * native reader appends as it goes.
	 */
	struct report_cache_top *tops;
	size_t nr_tops, tops_alloc, nr_sorted;
	uint32_t unnamed_example;	/* a frame of unnamed code shown */
	/*
	 * The CUT_DUMP samples: the bytes each needed are known once
	 * every stack top is (judge_dumps()); not kept live.
	 */
	struct cut_dump *cut_dumps;
	size_t nr_cut_dumps, cut_dumps_alloc;
	int live;		/* top: no end, no dump advice */
	uint64_t recorded;	/* samples in perf.data */
	uint64_t lost;		/* samples perf lost (buffer full) */
	pid_t helper_pid;	/* record's exec helper: not the program */
	uint64_t next_progress;
};

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

static void plumbing_init(void)
{
	size_t i;

	if (plumbing_ready)
		return;
	htab_init(&plumbing_tab);
	for (i = 0; i < ARRAY_SIZE(plumbing_names); i++)
		htab_insert(&plumbing_tab,
			    prof_hash(plumbing_names[i],
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
	return htab_find(&plumbing_tab, prof_hash(sym, len, 0), plumb_eq,
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

	return r->keylen == f->sym.len + 1 + f->dso.len &&
	       !memcmp(r->key, f->sym.s, f->sym.len) &&
	       !r->key[f->sym.len] &&
	       !memcmp(r->key + f->sym.len + 1, f->dso.s, f->dso.len);
}

static struct rframe *raw_intern(struct loader *l, const struct sample_frame *f)
{
	const void *ctx[2] = { f, l };
	/* object names repeat: their tail tells them apart well enough */
	size_t tail = f->dso.len < 16 ? f->dso.len : 16;
	uint64_t h = prof_hash(f->sym.s, f->sym.len,
			       prof_hash(f->dso.s + f->dso.len - tail, tail,
					 f->dso.len));
	uint32_t id = htab_find(&l->raw_tab, h, raw_eq, ctx);
	struct rframe *r;
	char *key, *sym, *dso;
	int tramp = 0, unknown_sym;
	enum native_class nc;

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
	htab_insert(&l->raw_tab, h, id);

	sym = key;
	dso = key + f->sym.len + 1;
	unknown_sym = !strcmp(sym, "[unknown]");
	if (!unknown_sym && !name_is_clean(sym, f->sym.len)) {
		/* a damaged name (a torn map or dump record): drop it */
		l->p->quality.bad_names++;
		unknown_sym = 1;
	}
	r->map_pid = map_dso_pid(dso, f->dso.len);
	r->root = !unknown_sym && record_is_root_symbol(sym);
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
		return r;
	}
	if (is_kernel_dso(dso, f->dso.len) ||
	    (!strcmp(dso, "[unknown]") && f->ip >= 0xffff800000000000ULL &&
	     !unknown_sym)) {
		r->cls = C_KERNEL;
		r->frame = profile_frame_intern(l->p, FRAME_KERNEL, NATIVE_NONE,
						NULL, sym, NULL, dso);
		return r;
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
		return r;
	}
	nc = dso_class(dso, f->dso.len, &tramp);
	if (!name_is_clean(dso, f->dso.len)) {
		r->cls = C_UNKNOWN;
		r->frame = l->unknown_frame;
		return r;
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
		return r;
	}
	if (tramp || (nc == NATIVE_LIBPYTHON &&
		      is_plumbing_sym(sym, f->sym.len))) {
		r->cls = C_PLUMB;
		r->startup = 1;
		r->frame = profile_frame_intern(l->p, FRAME_PLUMBING, nc, NULL,
						sym, NULL, dso);
		return r;
	}
	r->cls = C_NATIVE;
	r->startup = nc == NATIVE_LIBPYTHON || nc == NATIVE_SYSTEM;
	r->frame = profile_frame_intern(l->p, FRAME_NATIVE, nc, NULL, sym,
					NULL, dso);
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

/* ---- per sample ------------------------------------------------------ */

static int pid_in(const pid_t *v, size_t n, pid_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* ---- judging stacks ------------------------------------------------- */

static int dump_cmp(const void *a, const void *b)
{
	const struct dump *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int fact_dump_cmp(const void *a, const void *b)
{
	const struct report_cache_dump *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int fact_top_cmp(const void *a, const void *b)
{
	const struct report_cache_top *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->top > y->top) - (x->top < y->top);
}

/*
 * Sort stack tops by thread, each distinct top once (a thread may have
 * had several stacks: perf's child before it exec'ed the program had
 * another); returns how many are left.
 */
static size_t tops_sort_unique(struct report_cache_top *t, size_t n)
{
	size_t i, j;

	if (!n)
		return 0;
	qsort(t, n, sizeof(*t), fact_top_cmp);
	for (i = j = 0; i < n; i++)
		if (!j || t[j - 1].tid != t[i].tid || t[j - 1].top != t[i].top)
			t[j++] = t[i];
	return j;
}

/*
 * Read what perf script does not say about each sample: in jit mode
 * whether the kernel's copy of the user stack was full (the stack goes
 * on beyond it) and where each thread's stack ends; the callchain cap
 * asked for; the samples recorded and lost.  This walks all of
 * perf.data (the session's cache keeps the result: see run_perf_script).
 * The native reader needs no such walk: it gives the dump with each
 * sample (sample.dump_*), and its own pass the counts.
 * Without a readable perf.data fa stays zero and the judgement is
 * vaguer (CUT_NOROOT), never wrong.
 */
static void read_dumps(const char *path, struct report_cache_facts *fa)
{
	char why[PPR_ERR_LEN];
	struct perfdata d;
	struct pd_sample s;
	size_t dumps_alloc = 0, tops_alloc = 0;

	memset(fa, 0, sizeof(*fa));
	if (perfdata_open(&d, path, why, sizeof(why)) < 0)
		return;
	d.release_behind = 1;	/* streamed: resident size stays small */
	fa->max_stack = d.attrs[0].sample_max_stack;
	fa->dump_size = d.attrs[0].sample_stack_user;
	/* every record is walked: lost-sample records are anywhere */
	while (perfdata_next(&d, &s) > 0) {
		struct report_cache_dump *dp;

		if (!fa->dump_size || !s.have_time || !s.have_tid ||
		    !s.have_stack)
			continue;
		ALLOC_GROW(fa->dumps, fa->nr_dumps + 1, dumps_alloc);
		dp = &fa->dumps[fa->nr_dumps++];
		dp->time = s.time;
		dp->tid = s.tid;
		dp->sp = s.have_sp ? s.user_sp : 0;
		dp->full = s.dyn_size == s.stack_size;
		/*
		 * The kernel stops copying where the stack's mapping
		 * ends: a short copy shows the thread's stack top.
		 */
		if (!dp->full && s.have_sp) {
			ALLOC_GROW(fa->tops, fa->nr_tops + 1, tops_alloc);
			fa->tops[fa->nr_tops].tid = s.tid;
			fa->tops[fa->nr_tops++].top = s.user_sp + s.dyn_size;
		}
	}
	fa->recorded = d.samples + d.bad_samples;
	fa->lost = d.lost > d.lost_samples ? d.lost : d.lost_samples;
	perfdata_close(&d);
	if (fa->nr_dumps)
		qsort(fa->dumps, fa->nr_dumps, sizeof(*fa->dumps),
		      fact_dump_cmp);
	fa->nr_tops = tops_sort_unique(fa->tops, fa->nr_tops);
}

/* Sort the loader's stack tops by thread, each distinct top once. */
static void tops_compact(struct loader *l)
{
	if (l->nr_sorted != l->nr_tops)
		l->nr_tops = l->nr_sorted = tops_sort_unique(l->tops,
							     l->nr_tops);
}

/*
 * A stack top the native reader saw (a copy that stopped short).
 * Appended; compacted when the unsorted tail outgrows the rest, so the
 * array stays within about twice the distinct tops.
 */
static void add_top(struct loader *l, pid_t tid, uint64_t top)
{
	if (l->nr_tops && l->tops[l->nr_tops - 1].tid == tid &&
	    l->tops[l->nr_tops - 1].top == top)
		return;
	ALLOC_GROW(l->tops, l->nr_tops + 1, l->tops_alloc);
	l->tops[l->nr_tops].tid = tid;
	l->tops[l->nr_tops++].top = top;
	if (l->nr_tops - l->nr_sorted > l->nr_sorted + 64)
		tops_compact(l);
}

/*
 * Take what read_dumps() found, or the session's cache kept, into the
 * loader (data): before the first sample is judged.
 */
static void use_facts(void *data, const struct report_cache_facts *fa)
{
	struct loader *l = data;
	struct profile_quality *q = &l->p->quality;
	size_t i;

	/* as perf.data has them: a 16-bit cap, a 32-bit dump size */
	if (fa->max_stack && fa->max_stack <= UINT16_MAX && !q->max_stack)
		q->max_stack = (unsigned)fa->max_stack;
	if (fa->dump_size && fa->dump_size <= UINT32_MAX) {
		l->jit = 1;
		q->dump_size = fa->dump_size;
	}
	free(l->dumps);
	free(l->tops);
	l->dumps = xcalloc(fa->nr_dumps ? fa->nr_dumps : 1,
			   sizeof(*l->dumps));
	for (i = 0; i < fa->nr_dumps; i++) {
		l->dumps[i].time = fa->dumps[i].time;
		l->dumps[i].sp = fa->dumps[i].sp;
		l->dumps[i].tid = fa->dumps[i].tid;
		l->dumps[i].full = fa->dumps[i].full;
	}
	l->nr_dumps = fa->nr_dumps;
	l->tops = xcalloc(fa->nr_tops ? fa->nr_tops : 1, sizeof(*l->tops));
	if (fa->nr_tops)
		memcpy(l->tops, fa->tops, fa->nr_tops * sizeof(*l->tops));
	l->nr_tops = l->nr_sorted = fa->nr_tops;
	l->tops_alloc = fa->nr_tops ? fa->nr_tops : 1;
	l->recorded = fa->recorded;
	l->lost = fa->lost;
}

static const struct dump *find_dump(const struct loader *l, uint64_t time,
				    pid_t tid)
{
	struct dump key;

	if (!l->nr_dumps)
		return NULL;
	key.time = time;
	key.tid = tid;
	return bsearch(&key, l->dumps, l->nr_dumps, sizeof(*l->dumps),
		       dump_cmp);
}

/*
 * The end of the stack sp is on: the highest top seen for that thread
 * within a default stack limit above sp (a thread's stacks, before and
 * after an exec, lie far apart); 0 when unknown.  Not the lowest: a
 * copy can also stop short inside the stack (the kernel copies without
 * faulting pages in, and a loaded machine can have a page of the stack
 * out of reach), and such a false top would make a bigger dump look
 * like it needs only a few bytes more.
 */
static uint64_t stack_top(const struct loader *l, pid_t tid, uint64_t sp)
{
	size_t lo = 0, hi = l->nr_sorted;
	uint64_t best = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->tops[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->nr_sorted && l->tops[lo].tid == tid; lo++)
		if (l->tops[lo].top > sp &&
		    l->tops[lo].top - sp <= (8u << 20) &&
		    l->tops[lo].top > best)
			best = l->tops[lo].top;
	return best;
}

/*
 * Is the sample's stack complete?  outer_user: index of its outermost
 * user frame (SIZE_MAX: none, not judged); root: that frame is where a
 * process or thread starts.
 */
static enum stack_cut judge(struct loader *l, const struct sample *s,
			    size_t outer_user, int root)
{
	struct profile_quality *q = &l->p->quality;
	enum stack_cut cut;

	if (outer_user == SIZE_MAX)
		return CUT_NONE;
	q->judged++;
	if (root) {
		q->cut[CUT_NONE]++;
		return CUT_NONE;
	}
	if (l->jit) {
		struct dump own;
		const struct dump *dp = NULL;

		if (s->dump_known) {
			/* the native reader says it with the sample */
			own.sp = s->dump_sp;
			own.full = s->dump_full;
			dp = &own;
		} else if (s->time_ns) {
			dp = find_dump(l, s->time_ns, s->tid);
		}
		if (!dp) {
			cut = CUT_NOROOT;
		} else if (dp->full) {
			cut = CUT_DUMP;
			/* what it needed, once every top is known */
			if (dp->sp && !l->live) {
				ALLOC_GROW(l->cut_dumps, l->nr_cut_dumps + 1,
					   l->cut_dumps_alloc);
				l->cut_dumps[l->nr_cut_dumps].tid = s->tid;
				l->cut_dumps[l->nr_cut_dumps++].sp = dp->sp;
			}
		} else {
			cut = CUT_UNWIND;
		}
	} else {
		cut = q->max_stack && s->nr_frames >= q->max_stack ?
			CUT_DEPTH : CUT_NOROOT;
	}
	q->cut[cut]++;
	return cut;
}

/* What a bigger dump would do for the CUT_DUMP samples. */
static void judge_dumps(struct loader *l)
{
	struct profile_quality *q = &l->p->quality;
	uint64_t *needs;
	size_t i, k, n = 0;

	tops_compact(l);
	needs = xcalloc(l->nr_cut_dumps ? l->nr_cut_dumps : 1,
			sizeof(*needs));
	for (i = 0; i < l->nr_cut_dumps; i++) {
		uint64_t sp = l->cut_dumps[i].sp;
		uint64_t top = stack_top(l, l->cut_dumps[i].tid, sp);

		if (top > sp)
			needs[n++] = top - sp;
	}
	q->dump_known = n;
	if (n) {
		qsort(needs, n, sizeof(*needs), u64_cmp);
		for (i = 0; i < n; i++)
			if (needs[i] <= PERF_STACK_DUMP_MAX)
				q->dump_fixable++;
		k = (n * 99 + 99) / 100;	/* ceil(99 %) */
		q->dump_need99 = (needs[k - 1] + 7) & ~(uint64_t)7;
	}
	free(needs);
}

static char *count_str(uint64_t v, char *buf, size_t len)
{
	char tmp[32];
	size_t n, i, o = 0;

	n = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	for (i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* "41%", or "<1%" for a share that rounds to nothing. */
static const char *pct_str(uint64_t part, uint64_t whole, char *buf,
			   size_t len)
{
	double v = whole ? 100.0 * (double)part / (double)whole : 0;

	if (part && v < 0.5)
		snprintf(buf, len, "<1%%");
	else
		snprintf(buf, len, "%.0f%%", v);
	return buf;
}

static const char *const cut_names[CUT_NR] = {
	NULL,
	"[incomplete stack: dump full]",
	"[incomplete stack: unwinding stopped]",
	"[incomplete stack: frame cap]",
	"[incomplete stack: no root]",
};

/* The warnings a reader needs to trust the numbers (see profile.h). */
static void quality_warnings(struct profile *p, const char *unnamed_example)
{
	const struct profile_quality *q = &p->quality;
	char a[32], b[32], c[32], pc[16];
	int r;

	for (r = CUT_DUMP; r < CUT_NR; r++) {
		const char *why = NULL;
		char *extra = NULL;

		if (!q->cut[r])
			continue;
		switch (r) {
		case CUT_DUMP:
			why = "the stack dump was full (the stack is deeper "
			      "than the bytes perf copied)";
			if (q->dump_size)
				extra = xasprintf("the %llu-byte stack dump "
						  "was full (the stack is "
						  "deeper)",
						  (unsigned long long)
						  q->dump_size);
			break;
		case CUT_UNWIND:
			why = "the unwinder stopped inside the stack dump (a "
			      "frame without unwind information; a bigger "
			      "dump would not help)";
			break;
		case CUT_DEPTH:
			if (q->max_stack)
				extra = xasprintf("the call chain reached the "
						  "kernel's cap of %u frames "
						  "(kernel.perf_event_max_"
						  "stack)", q->max_stack);
			else
				why = "the call chain reached the kernel's "
				      "frame cap (kernel.perf_event_max_stack)";
			break;
		default:
			why = "the call chain ended before the program's "
			      "start (code without frame pointers, or an "
			      "unreadable stack)";
			break;
		}
		profile_warn(p, "%s of samples (%s of %s) have incomplete "
			     "stacks: %s; they are under %s",
			     pct_str(q->cut[r], q->judged, pc, sizeof(pc)),
			     count_str(q->cut[r], a, sizeof(a)),
			     count_str(q->judged, b, sizeof(b)),
			     extra ? extra : why, cut_names[r]);
		free(extra);
	}
	/*
	 * Advice only where it matters, as record's hints: a bigger dump
	 * for a handful of samples would multiply the data for nothing.
	 */
	if (q->cut[CUT_DUMP] && q->dump_known &&
	    (double)q->cut[CUT_DUMP] >= RECORD_HINT_SHARE * (double)q->judged) {
		if (q->dump_need99 && q->dump_need99 <= PERF_STACK_DUMP_MAX)
			profile_warn(p, "a %llu-byte stack dump would complete "
				     "99%% of the %s samples whose dump was "
				     "full (record with --stack-size %llu)",
				     (unsigned long long)q->dump_need99,
				     count_str(q->dump_known, c, sizeof(c)),
				     (unsigned long long)q->dump_need99);
		else
			profile_warn(p, "the largest stack dump perf can take "
				     "(%u bytes) would complete only %s of the "
				     "%s samples whose dump was full",
				     PERF_STACK_DUMP_MAX,
				     count_str(q->dump_fixable, a, sizeof(a)),
				     count_str(q->dump_known, c, sizeof(c)));
	}
	if (q->unnamed)
		profile_warn(p, "%s of samples (%s) ran in code without "
			     "symbols, shown as the object's name in brackets "
			     "(e.g. %s), not credited to a named caller; "
			     "debug symbols would name it",
			     pct_str(q->unnamed, p->total_samples, pc,
				     sizeof(pc)),
			     count_str(q->unnamed, a, sizeof(a)),
			     unnamed_example);
	if (q->startup_cut)
		profile_warn(p, "%s of samples (%s) ran in the interpreter's "
			     "start-up, before the trampoline started: their "
			     "native stacks may be cut at the stack dump; they "
			     "are under [python start-up]",
			     pct_str(q->startup_cut, p->total_samples, pc,
				     sizeof(pc)),
			     count_str(q->startup_cut, a, sizeof(a)));
	if (q->ctx_unknown)
		profile_warn(p, "%s of samples (%s) reached the trampoline's "
			     "cap on call paths (PYPERF_TRAMPOLINE_MAX_"
			     "CONTEXTS): above that point their stacks are "
			     "what perf copied, and may be cut",
			     pct_str(q->ctx_unknown, q->judged, pc, sizeof(pc)),
			     count_str(q->ctx_unknown, a, sizeof(a)));
	if (q->ctx_damaged)
		profile_warn(p, "%u context table%s damaged: read up to the "
			     "damage; later Python stacks of %s process%s "
			     "may be cut", q->ctx_damaged,
			     q->ctx_damaged == 1 ? " was" : "s were",
			     q->ctx_damaged == 1 ? "its" : "their",
			     q->ctx_damaged == 1 ? "" : "es");
	if (q->bad_names)
		profile_warn(p, "%s damaged function name%s (invalid UTF-8, "
			     "control bytes or torn records in a perf map or "
			     "jit dump) dropped: those frames are unnamed",
			     count_str(q->bad_names, a, sizeof(a)),
			     q->bad_names == 1 ? "" : "s");
}

/*
 * perf drops samples when it cannot empty its ring buffers in time (a
 * busy machine, big stack dumps): what ran then is under-counted, and
 * perf script says nothing about it.
 */
static void lost_warning(struct profile *p, uint64_t lost, uint64_t recorded)
{
	char a[32], b[32], pc[16];

	if (!lost)
		return;
	profile_warn(p, "perf lost %s of %s samples (%s): it could not keep "
		     "up (a busy machine, or stack dumps too big for its "
		     "buffers), so what ran then is under-counted",
		     count_str(lost, a, sizeof(a)),
		     count_str(lost + recorded, b, sizeof(b)),
		     pct_str(lost, lost + recorded, pc, sizeof(pc)));
}

static int on_sample(void *data, const struct sample *s)
{
	struct loader *l = data;
	struct profile *p = l->p;
	const struct profile_filter *f = l->f;
	size_t n = s->nr_frames, i, d = 0, outer, inner, start;
	size_t outer_user = SIZE_MAX;
	uint32_t task = PROFILE_NO_TASK, th;
	int any_py = 0, outer_root = 0;
	enum stack_cut cut;
	enum ctx_result cr = CTX_NONE;
	struct sample rebuilt;

	/* every sample's copy tells, filtered out or not (read_dumps()) */
	if (s->dump_known && !s->dump_full && s->dump_sp && !l->live)
		add_top(l, s->tid, s->dump_sp + s->dump_len);
	if (!l->have_first) {
		l->have_first = 1;
		l->first_ns = s->time_ns;
		if (f->time_from > 0)
			l->from_ns = s->time_ns +
				(uint64_t)(f->time_from * 1e9);
		if (f->time_to >= 0)
			l->to_ns = s->time_ns + (uint64_t)(f->time_to * 1e9);
	}
	if (l->helper_pid && s->pid == l->helper_pid)
		return 0;
	if ((f->nr_pids && !pid_in(f->pids, f->nr_pids, s->pid)) ||
	    (f->nr_tids && !pid_in(f->tids, f->nr_tids, s->tid)) ||
	    (l->from_ns && s->time_ns < l->from_ns) ||
	    (f->time_to >= 0 && s->time_ns > l->to_ns)) {
		p->dropped++;
		return 0;
	}
	if (s->time_ns) {
		double t = (double)s->time_ns / 1e9;

		if (!p->first_time || t < p->first_time)
			p->first_time = t;
		if (t > p->last_time)
			p->last_time = t;
	}

	/*
	 * Context trampolines: the innermost one the sample holds names
	 * every Python caller, however much of the stack perf copied.
	 */
	if (l->ctx) {
		cr = ctx_db_rebuild(l->ctx, s, &rebuilt);
		if (cr != CTX_NONE) {
			s = &rebuilt;
			n = s->nr_frames;
			p->quality.ctx_rebuilt++;
			if (cr == CTX_UNKNOWN)
				p->quality.ctx_unknown++;
		}
	}

	th = prof_thread_intern(p, s->pid, s->tid, s->comm.s, s->comm.len);
	p->threads[th].samples++;
	if (f->group == PROFILE_BY_THREAD) {
		task = prof_task_intern_len(p, s->pid, s->tid, s->comm.s,
					    s->comm.len);
	} else if (f->group == PROFILE_BY_PROCESS) {
		int main_thread = s->pid == s->tid;

		task = prof_task_intern_len(p, s->pid, s->pid,
					    main_thread ? s->comm.s : NULL,
					    main_thread ? s->comm.len : 0);
		if (!p->tasks[task].comm)
			p->tasks[task].comm = xstrndup(s->comm.s,
						       s->comm.len);
	}

	if (n + 1 > l->scratch_alloc) {
		l->scratch_alloc = (n + 1) * 2;
		l->ids = xrealloc(l->ids, l->scratch_alloc * sizeof(*l->ids));
		l->cls = xrealloc(l->cls, l->scratch_alloc);
		l->startup = xrealloc(l->startup, l->scratch_alloc);
		l->unnamed = xrealloc(l->unnamed, l->scratch_alloc);
		l->out = xrealloc(l->out, l->scratch_alloc * sizeof(*l->out));
	}
	/* classify, leaf first */
	for (i = 0; i < n; i++) {
		const struct sample_frame *fr = &s->frames[i];
		struct rframe *r = raw_intern(l, fr);
		uint32_t id = r->frame;
		uint8_t c = r->cls;

		if (r->resolve) {
			uint32_t rid = HTAB_NONE;

			/*
			 * The sample's own process map first: a forked
			 * child inherits the parent's anonymous code,
			 * which perf names after the parent's map, but
			 * the child's map tells what the child put there.
			 */
			if (fr->ip < 0xffff800000000000ULL)
				rid = map_resolve(l, s->pid, fr->ip);
			if (rid == HTAB_NONE && r->map_pid &&
			    r->map_pid != s->pid)
				rid = map_resolve(l, r->map_pid, fr->ip);
			if (rid != HTAB_NONE) {
				id = rid;
				c = p->frames[rid].kind == FRAME_PYTHON ?
					C_PY : p->frames[rid].kind ==
					FRAME_UNKNOWN ? C_UNKNOWN : C_NATIVE;
			}
		}
		l->ids[i] = id;
		l->cls[i] = c;
		l->startup[i] = r->startup;
		l->unnamed[i] = r->unnamed;
		if (c == C_PY)
			any_py = 1;
		if (c != C_KERNEL && !r->marker)
			outer_user = i, outer_root = r->root;
	}
	/* a stack rebuilt up to its root context is whole */
	if (cr == CTX_ROOT)
		outer_root = 1;
	/*
	 * Before the trampoline started (the interpreter's start-up: its
	 * first imports, site, the trampoline's own loading) there is no
	 * context to rebuild from and these stacks can be deeper than the
	 * dump: shown under their own root, counted and said, not judged
	 * with the program's own stacks.
	 */
	if (cr == CTX_NONE && !outer_root && l->jit && l->ctx &&
	    outer_user != SIZE_MAX &&
	    ctx_db_before_start(l->ctx, s->pid, s->time_ns)) {
		p->quality.startup_cut++;
		l->out[d++] = l->startup_frame;
		outer_user = SIZE_MAX;
	}
	cut = judge(l, s, outer_user, outer_root);

	/* the innermost Python frame: unnamed code above it is plumbing */
	inner = n;
	for (i = 0; i < n; i++)
		if (l->cls[i] == C_PY) {
			inner = i;
			break;
		}
	/*
	 * Unnamed code below it whose nearest named caller is that Python
	 * frame (through the eval loop and other plumbing) is the
	 * interpreter running that function (a stripped build's static
	 * helpers: dict lookups, .cold parts of the eval loop): the
	 * function's own time, as plumbing is.  Only the interpreter's
	 * own object: an extension's unnamed code stays visible.  Unnamed code under a
	 * named C function (gc_collect_main under PyType_GenericAlloc) is
	 * shown as unnamed, never credited to that function.
	 */
	if (inner < n) {
		int py_owned = 1;

		for (i = inner; i-- > 0;) {
			if (l->unnamed[i] &&
			    p->frames[l->ids[i]].native == NATIVE_LIBPYTHON) {
				if (py_owned)
					l->cls[i] = C_PLUMB;
			} else if (l->cls[i] != C_PLUMB) {
				py_owned = 0;
			}
		}
	}
	for (i = 0; i < inner; i++)
		if (l->unnamed[i] && l->cls[i] != C_PLUMB) {
			p->quality.unnamed++;
			if (l->unnamed_example == HTAB_NONE)
				l->unnamed_example = l->ids[i];
			break;
		}

	if (cut != CUT_NONE)
		l->out[d++] = l->cut_frame[cut];
	switch (f->view) {
	case PROFILE_VIEW_ALL:
		for (i = n; i-- > 0;)
			l->out[d++] = l->ids[i];
		break;
	case PROFILE_VIEW_PYTHON:
		for (i = n; i-- > 0;)
			if (l->cls[i] == C_PY)
				l->out[d++] = l->ids[i];
		if (d == (cut != CUT_NONE)) {
			int user = 0;

			for (i = 0; i < n; i++)
				if (l->cls[i] != C_KERNEL)
					user = 1;
			l->out[d++] = user || !n ? l->pseudo_native :
				l->pseudo_kernel;
		}
		break;
	default:
		/*
		 * mixed: drop plumbing; below the outermost Python frame
		 * also drop interpreter / libc start-up frames; unnamed
		 * code between Python frames is plumbing too, elsewhere
		 * one frame per run of unnamed code in one object
		 */
		outer = n;
		if (any_py) {
			for (i = n; i-- > 0;)
				if (l->cls[i] == C_PY) {
					outer = i;
					break;
				}
		}
		start = d;
		for (i = n; i-- > 0;) {
			if (l->cls[i] == C_PLUMB)
				continue;
			if (i > outer && l->startup[i])
				continue;
			if (l->unnamed[i] && i > inner)
				continue;
			if (l->unnamed[i] && d > start &&
			    l->out[d - 1] == l->ids[i])
				continue;
			l->out[d++] = l->ids[i];
		}
		if (d == start && n)
			l->out[d++] = l->ids[0];
		break;
	}
	if (!d)
		l->out[d++] = l->unknown_frame;
	profile_stack_add(p, l->out, (uint32_t)d, task, 1, s->period);
	return 0;
}

/* ---- the session ----------------------------------------------------- */

/*
 * Look at perf.data's header before perf does: perf 6.1 dies with
 * SIGBUS on a file cut short.  Layout (perf_file_header): magic
 * "PERFILE2", header size, attr size, attrs {offset, size}, data
 * {offset, size}, ...
 */
static int check_perf_data(const char *path, off_t file_size, char *err,
			   size_t errlen)
{
	return perfdata_check_header(path, (uint64_t)file_size, err, errlen);
}

/* Samples from perf go to the session's cache and to on_sample(). */
struct cache_tee {
	struct loader *l;
	struct report_cache_writer *w;
};

static int tee_sample(void *data, const struct sample *s)
{
	struct cache_tee *t = data;

	report_cache_add(t->w, s);
	return on_sample(t->l, s);
}

/*
 * Write the cache of a complete perf script run, unless perf.data or
 * perf changed meanwhile.  A session that cannot be written to (read
 * only, full disk) is still read: each report then runs perf script.
 */
static void keep_cache(const struct cache_tee *t, const char *dir,
		       const struct strbuf *key, const char *const *argv,
		       const struct perfscript *ps)
{
	struct strbuf now = STRBUF_INIT;
	struct report_cache_stats st;

	st.bytes = ps->bytes;
	st.bad_lines = ps->bad_lines;
	st.samples = ps->samples;
	if (!report_cache_key(&now, dir, argv) && now.len == key->len &&
	    !memcmp(now.buf, key->buf, key->len))
		report_cache_write(t->w, dir, key, &st);
	strbuf_release(&now);
}

/* The last non-empty line of perf's stderr, for messages. */
static void last_line(struct strbuf *sb, char *buf, size_t len)
{
	char *e;

	strbuf_rtrim(sb);
	e = strrchr(sb->buf, '\n');
	snprintf(buf, len, "%s", e ? e + 1 : sb->buf);
}

/*
 * The perf to read the session with (perfcmd_perf()): the one that
 * recorded it, when no other is asked for and it is still there (perf
 * 6.1 cannot read what 6.12 wrote).
 */
static const char *perf_program(const struct loader *l)
{
	return perfcmd_perf(l->f->perf, profile_meta_get(l->p, "perf"));
}

static void perf_missing(const struct loader *l, char *err, size_t errlen)
{
	set_err(err, errlen,
		"cannot run '%s': not found (install perf, e.g. the Debian "
		"package linux-perf)", perf_program(l));
}

/*
 * When perf fails on a session another perf recorded, say which: the
 * likely cause ("incompatible file format", "unsupported ABI").
 */
static void perf_mismatch(const struct loader *l, char *err, size_t errlen)
{
	const char *rec = profile_meta_get(l->p, "perf");
	const char *ver = profile_meta_get(l->p, "perf_version");
	const char *used = perf_program(l);
	size_t n = strlen(err);

	if (!rec || !strcmp(rec, used) || n + 1 >= errlen)
		return;
	if (access(rec, X_OK))
		snprintf(err + n, errlen - n,
			 " (the session was recorded with perf %s at '%s', "
			 "which is no longer there)", ver ? ver : "?", rec);
	else
		snprintf(err + n, errlen - n,
			 " (the session was recorded with perf %s: try "
			 "--perf '%s')", ver ? ver : "?", rec);
}

static int run_perf_script(struct loader *l, char *err, size_t errlen)
{
	const char *dir = l->s->dir;
	struct strvec argv = STRVEC_INIT;
	struct spawn sp = SPAWN_INIT;
	struct strbuf errout = STRBUF_INIT;
	struct perfscript ps;
	struct strbuf key = STRBUF_INIT;
	struct cache_tee tee = { NULL, NULL };
	struct report_cache_facts facts;
	char *chunk = xmalloc(1 << 18);
	struct pollfd pfd[2];
	int ret = -1, status, open_fds = 2, cb_ret = 0;
	char line[256];

	memset(&facts, 0, sizeof(facts));
	perfscript_init(&ps, on_sample, l);
	{
		/*
		 * jit mode matches samples to perf.data's by time, and the
		 * session's cache (written from this run) must serve a
		 * later --time report too: always ask for times.
		 */
		int need_time = 1;

		perfcmd_script_argv(perf_program(l), l->s->buildid,
				    l->s->perf_data,
				    need_time ? PERFSCRIPT_FIELDS_TIME :
				    PERFSCRIPT_FIELDS,
				    need_time ? PERFCMD_SCRIPT_NS : 0, &argv);
	}
	/*
	 * No --pid/--tid: the session's cache must hold every sample, so
	 * on_sample() filters (and counts what it leaves out).  The cache
	 * also holds what read_dumps() found: a cached report reads only
	 * perf.data's header.
	 */
	if (!report_cache_key(&key, dir, argv.v)) {
		struct report_cache_stats cst;

		if (report_cache_replay(dir, &key, use_facts, on_sample, l,
					&cst, &cb_ret)) {
			if (l->f->progress)
				l->f->progress(l->f->progress_data,
					       cst.bytes, cst.samples);
			ret = 0;
			goto out;
		}
		/* no usable cache: keep what perf script gives */
		tee.l = l;
		tee.w = report_cache_writer_new();
		perfscript_init(&ps, tee_sample, &tee);
	}
	read_dumps(l->s->perf_data, &facts);
	use_facts(l, &facts);
	if (tee.w)
		report_cache_set_facts(tee.w, &facts);
	report_cache_facts_release(&facts);

	sp.argv = argv.v;
	sp.in = SPAWN_DEVNULL;
	sp.out = SPAWN_PIPE;
	sp.err = SPAWN_PIPE;
	sp.flags = SPAWN_DEFAULT_SIGS;
	ret = spawn_start(&sp, err, errlen);
	if (ret < 0) {
		if (ret == -ENOENT)
			perf_missing(l, err, errlen);
		ret = -1;
		goto out;
	}
	ret = -1;
	/*
	 * perf writes its output in small pieces; waking up for each costs
	 * more than parsing it.  A large pipe and a short nap after a small
	 * read let the pieces gather (perf, the slower side, never waits).
	 */
	fcntl(sp.out, F_SETPIPE_SZ, 1 << 20);
	pfd[0].fd = sp.out;
	pfd[0].events = POLLIN;
	pfd[1].fd = sp.err;
	pfd[1].events = POLLIN;
	while (open_fds) {
		int i;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			set_err(err, errlen, "poll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t r;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			r = read(pfd[i].fd, chunk, 1 << 18);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 1) {
				if (errout.len < (1 << 16))
					strbuf_add(&errout, chunk, (size_t)r);
				continue;
			}
			if (!cb_ret)
				cb_ret = perfscript_feed(&ps, chunk,
							 (size_t)r);
			if (r < (1 << 16)) {
				struct timespec nap = { 0, 1000000 };

				nanosleep(&nap, NULL);
			}
			if (l->f->progress && ps.bytes >= l->next_progress) {
				l->f->progress(l->f->progress_data,
					       ps.bytes, ps.samples);
				l->next_progress = ps.bytes + (4 << 20);
			}
		}
	}
	if (!cb_ret)
		cb_ret = perfscript_finish(&ps);
	status = spawn_finish(&sp);
	if (l->f->progress)
		l->f->progress(l->f->progress_data, ps.bytes, ps.samples);
	if (status < 0) {
		set_err(err, errlen, "waiting for perf: %s", strerror(-status));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char desc[128];

		spawn_describe_status(status, desc, sizeof(desc));
		last_line(&errout, line, sizeof(line));
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127 &&
		    !ps.bytes) {
			perf_missing(l, err, errlen);
			goto out;
		}
		set_err(err, errlen, "perf script %s%s%s", desc,
			*line ? ": " : "", line);
		perf_mismatch(l, err, errlen);
		goto out;
	}
	if (!ps.samples && !ps.bytes && errout.len) {
		/* perf said why it produced nothing */
		last_line(&errout, line, sizeof(line));
		set_err(err, errlen, "perf script produced no samples: %s",
			line);
		perf_mismatch(l, err, errlen);
		goto out;
	}
	/*
	 * perf script stops early and still exits 0 on SIGINT (a Ctrl-C
	 * while record reads the session back): a run that delivered
	 * fewer samples than perf.data holds is not kept, or every later
	 * report would show the part.
	 */
	if (tee.w && !cb_ret && (!l->recorded || ps.samples >= l->recorded))
		keep_cache(&tee, dir, &key, argv.v, &ps);
	ret = 0;
out:
	report_cache_writer_free(tee.w);
	strbuf_release(&key);
	perfscript_release(&ps);
	strbuf_release(&errout);
	strvec_clear(&argv);
	free(chunk);
	return ret;
}

/*
 * The session's samples read from perf.data itself (native_load.h),
 * unwound and named as perf script would, into on_sample().
 */
static void native_header(void *data, const struct perfdata *d)
{
	struct report_cache_facts fa;

	/* read_dumps()'s facts from the header; the rest come per sample */
	memset(&fa, 0, sizeof(fa));
	fa.max_stack = d->attrs[0].sample_max_stack;
	fa.dump_size = d->attrs[0].sample_stack_user;
	use_facts(data, &fa);
}

static int run_native(struct loader *l, char *err, size_t errlen)
{
	struct native_opts o;
	struct native_stats st;
	int cb_ret, ret;

	memset(&o, 0, sizeof(o));
	o.session_dir = l->s->dir;
	o.perf_data = l->s->perf_data;
	o.cb = on_sample;
	o.data = l;
	o.header = native_header;
	o.progress = l->f->progress;
	o.progress_data = l->f->progress_data;
	ret = native_load(&o, &st, &cb_ret, err, errlen);
	if (!ret) {
		l->recorded = st.samples + st.bad_samples;
		l->lost = st.lost;
	}
	return ret;
}

static void loader_init(struct loader *l, struct profile *p,
			const struct profile_filter *f)
{
	plumbing_init();
	profile_init(p);
	p->view = f->view;
	p->group = f->group;
	memset(l, 0, sizeof(*l));
	l->p = p;
	l->f = f;
	l->unnamed_example = HTAB_NONE;
	htab_init(&l->raw_tab);
}

/* The pseudo frames, and the callchain cap (after the meta is set). */
static void loader_frames(struct loader *l)
{
	struct profile *p = l->p;
	size_t i;
	long ms;

	l->unknown_frame = profile_frame_intern(p, FRAME_UNKNOWN, NATIVE_NONE,
						NULL, NULL, NULL, NULL);
	if (l->f->view == PROFILE_VIEW_PYTHON) {
		l->pseudo_native = profile_frame_intern(p, FRAME_NATIVE,
							NATIVE_NONE,
							"[native]", NULL,
							NULL, NULL);
		l->pseudo_kernel = profile_frame_intern(p, FRAME_KERNEL,
							NATIVE_NONE,
							"[kernel]", NULL,
							NULL, NULL);
	}
	l->startup_frame = profile_frame_intern(p, FRAME_UNKNOWN, NATIVE_NONE,
						"[python start-up]", NULL,
						NULL, NULL);
	for (i = CUT_DUMP; i < CUT_NR; i++)
		l->cut_frame[i] = profile_frame_intern(p, FRAME_UNKNOWN,
						       NATIVE_NONE,
						       cut_names[i], NULL,
						       NULL, NULL);
	/* the callchain cap frame-pointer chains were recorded with */
	if (!parse_long(profile_meta_get(p, "max_stack"), 10, 1, INT32_MAX,
			&ms) ||
	    !sysprobe_read_long("/proc/sys/kernel/perf_event_max_stack", &ms))
		p->quality.max_stack = (unsigned)ms;
}

/* Forget the perf maps read so far: they are read again when needed. */
static void loader_drop_maps(struct loader *l)
{
	size_t i;

	for (i = 0; i < l->nr_maps; i++) {
		perfmap_release(&l->maps[i].map);
		free(l->maps[i].ids);
	}
	l->nr_maps = 0;
	l->last_map = 0;
}

static void loader_release(struct loader *l)
{
	size_t i;

	htab_release(&l->raw_tab);
	for (i = 0; i < l->nr_raw; i++)
		free((char *)l->raw[i].key);
	free(l->raw);
	loader_drop_maps(l);
	free(l->maps);
	free(l->ids);
	free(l->cls);
	free(l->startup);
	free(l->unnamed);
	free(l->dumps);
	free(l->tops);
	free(l->cut_dumps);
	free(l->out);
	ctx_db_free(l->ctx);
}

/* ---- a live profile (top) -------------------------------------------- */

struct profile_live {
	struct loader l;
	struct profile_filter f;
	char *dirs[4];
	size_t nr_dirs;
};

int profile_live_new(struct profile_live **out, struct profile *p,
		     const struct profile_filter *f, const char *const *dirs,
		     int jit)
{
	struct profile_live *lv = xcalloc(1, sizeof(*lv));
	size_t i;

	lv->f = *f;
	loader_init(&lv->l, p, &lv->f);
	for (i = 0; dirs && dirs[i] && i < ARRAY_SIZE(lv->dirs); i++) {
		lv->dirs[i] = xstrdup(dirs[i]);
		lv->l.map_dirs[i] = lv->dirs[i];
	}
	lv->nr_dirs = lv->l.nr_map_dirs = i;
	lv->l.jit = !!jit;
	lv->l.live = 1;
	loader_frames(&lv->l);
	*out = lv;
	return 0;
}

unsigned profile_live_refresh(struct profile_live *lv)
{
	struct ctx_db *db = NULL, *one;
	unsigned damaged = 0, d;
	char err[PPR_ERR_LEN];
	size_t i;

	loader_drop_maps(&lv->l);
	for (i = 0; i < lv->nr_dirs; i++) {
		if (ctx_db_load(&one, lv->dirs[i], &d, err, sizeof(err)) < 0)
			d = 1, one = NULL;
		damaged += d;
		if (one && !db)
			db = one;
		else
			ctx_db_free(one);	/* contexts live in one place */
	}
	ctx_db_free(lv->l.ctx);
	lv->l.ctx = db;
	return damaged;
}

void profile_live_sample(struct profile_live *lv, const struct sample *s)
{
	on_sample(&lv->l, s);
}

void profile_live_free(struct profile_live *lv)
{
	size_t i;

	if (!lv)
		return;
	loader_release(&lv->l);
	for (i = 0; i < lv->nr_dirs; i++)
		free(lv->dirs[i]);
	free(lv);
}

int profile_load(struct profile *p, const char *session,
		 const struct profile_filter *f, char *err, size_t errlen)
{
	static const struct profile_filter defaults = PROFILE_FILTER_INIT;
	struct loader l;
	struct session s;
	size_t i;
	int ret;

	if (!f)
		f = &defaults;
	loader_init(&l, p, f);
	p->session = xstrdup(session);
	l.s = &s;

	if (session_open(&s, session, 0, err, errlen) < 0) {
		ret = -1;
		goto out;
	}
	l.map_dirs[l.nr_map_dirs++] = s.maps;
	for (i = 0; i < s.meta.keys.nr; i++)
		profile_meta_set(p, s.meta.keys.v[i], s.meta.values.v[i]);
	ret = check_perf_data(s.perf_data, s.perf_data_size, err, errlen);
	if (ret < 0)
		goto out;
	{
		long hp;

		if (!parse_long(profile_meta_get(p, "helper_pid"), 10, 1,
				INT32_MAX, &hp))
			l.helper_pid = (pid_t)hp;
	}
	loader_frames(&l);
	{
		unsigned damaged;

		ret = ctx_db_load(&l.ctx, s.maps, &damaged, err, errlen);
		if (ret < 0)
			goto out;
		p->quality.ctx_damaged = damaged;
	}
	/* the perf-script reader also walks perf.data (read_dumps()) */
	if (f->reader == PROFILE_READER_NATIVE)
		ret = run_native(&l, err, errlen);
	else
		ret = run_perf_script(&l, err, errlen);
	if (ret < 0)
		goto out;
	if (!p->total_samples && !p->dropped && !f->nr_pids && !f->nr_tids) {
		ret = set_err(err, errlen,
			      "no samples in '%s/perf.data' (empty, "
			      "truncated or not a recording with call "
			      "graphs?)", session);
		goto out;
	}
	if (p->duration < 0 && p->last_time > p->first_time)
		p->duration = p->last_time - p->first_time;
	judge_dumps(&l);
	quality_warnings(p, l.unnamed_example != HTAB_NONE ?
			 p->frames[l.unnamed_example].name : "[python3]");
	lost_warning(p, l.lost, l.recorded);
out:
	session_close(&s);
	loader_release(&l);
	return ret;
}
