/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Context tables and the rebuild of Python stacks (see
 * stage_name_contexts.h and trampoline/README.md for the file format).
 */
#include "compat.h"
#include "alloc.h"
#include "byteorder.h"
#include "numparse.h"
#include "report/stage_name_contexts.h"

#include <dirent.h>
#include <errno.h>
#include <zlib.h>

#define CTX_MAGIC "PPRCTX01"
#define CTX_ID_UNKNOWN 0xffffffffu
/* Bounds a hostile file cannot push us past. */
#define CTX_FILE_MAX (1u << 30)
#define CTX_ARENA_SLOTS_MAX (1u << 20)
#define CTX_ARENAS_MAX 65536u

enum { REC_END = 0, REC_FUNC = 1, REC_CTX = 2, REC_ARENA = 3,
       REC_START = 4 };

struct ctx_ent {
	uint32_t parent;	/* 0 root, CTX_ID_UNKNOWN, or an earlier id */
	uint32_t func;		/* 1-based */
};

struct ctx_arena {
	uint64_t start, len;
	uint32_t slot;
	uint32_t *ids;		/* context id per slot, 0 = none */
};

/* Native frames outside a root context, as one sample held them. */
struct ctx_suffix {
	uint32_t root;
	struct sample_frame *frames;
	size_t nr;
};

struct ctx_table {
	pid_t pid;
	uint64_t start_ns;	/* activation, CLOCK_MONOTONIC; 0 unknown */
	struct ctx_ent *ctx;	/* [id - 1] */
	uint32_t nr_ctx;
	size_t ctx_alloc;
	struct sample_str *funcs;	/* [func - 1], NUL-terminated copies */
	uint32_t nr_funcs;
	size_t funcs_alloc;
	struct ctx_arena *arenas;	/* sorted by start once loaded */
	size_t nr_arenas, arenas_alloc;
	struct ctx_suffix *suffixes;
	size_t nr_suffixes, suffixes_alloc;
};

struct ctx_db {
	struct ctx_table *t;
	size_t nr, alloc;
	size_t last;
	/* rebuild scratch */
	struct sample_frame *out;
	size_t out_alloc;
	size_t *tpos;		/* positions of trampoline frames */
	uint32_t *tid;		/* and their context ids */
	size_t t_alloc;
};

static struct ctx_table *table_of(struct ctx_db *db, pid_t pid);

/* ---- loading --------------------------------------------------------- */

static int arena_cmp(const void *a, const void *b)
{
	const struct ctx_arena *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static struct ctx_arena *arena_of(struct ctx_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr_arenas;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct ctx_arena *a = &t->arenas[mid];

		if (addr < a->start)
			hi = mid;
		else if (addr - a->start >= a->len)
			lo = mid + 1;
		else
			return a;
	}
	return NULL;
}

/* While loading: arenas are in file order; the newest comes last. */
static struct ctx_arena *arena_of_loading(struct ctx_table *t, uint64_t addr)
{
	size_t i;

	for (i = t->nr_arenas; i-- > 0;) {
		struct ctx_arena *a = &t->arenas[i];

		if (addr >= a->start && addr - a->start < a->len)
			return a;
	}
	return NULL;
}

static void table_release(struct ctx_table *t)
{
	size_t i;

	free(t->ctx);
	for (i = 0; i < t->nr_funcs; i++)
		free((char *)t->funcs[i].s);
	free(t->funcs);
	for (i = 0; i < t->nr_arenas; i++)
		free(t->arenas[i].ids);
	free(t->arenas);
	for (i = 0; i < t->nr_suffixes; i++) {
		size_t k;

		for (k = 0; k < t->suffixes[i].nr; k++) {
			free((char *)t->suffixes[i].frames[k].sym.s);
			free((char *)t->suffixes[i].frames[k].dso.s);
		}
		free(t->suffixes[i].frames);
	}
	free(t->suffixes);
}

/* One record; -1 when it is damaged (reading stops there). */
static int add_record(struct ctx_table *t, uint32_t type,
		      const unsigned char *p, size_t len)
{
	if (type == REC_FUNC) {
		const unsigned char *name = p + 8, *nul;
		uint32_t id;

		if (len < 8)
			return -1;
		id = get_le32(p);
		nul = memchr(name, '\0', len - 8);
		if (id != t->nr_funcs + 1 || !nul || nul - name < 4 ||
		    memcmp(name, "py::", 4))
			return -1;
		ALLOC_GROW(t->funcs, t->nr_funcs + 1, t->funcs_alloc);
		t->funcs[t->nr_funcs].s = xstrndup((const char *)name,
						   (size_t)(nul - name));
		t->funcs[t->nr_funcs].len = (size_t)(nul - name);
		t->nr_funcs++;
		return 0;
	}
	if (type == REC_CTX) {
		uint64_t addr;
		uint32_t id, parent, func;
		struct ctx_arena *a;
		uint64_t slot;

		if (len < 24)
			return -1;
		addr = get_le64(p);
		id = get_le32(p + 8);
		parent = get_le32(p + 12);
		func = get_le32(p + 16);
		if (id != t->nr_ctx + 1 || id == CTX_ID_UNKNOWN ||
		    !func || func > t->nr_funcs ||
		    (parent != CTX_ID_UNKNOWN && parent >= id))
			return -1;
		a = arena_of_loading(t, addr);
		if (!a || (addr - a->start) % a->slot)
			return -1;
		slot = (addr - a->start) / a->slot;
		if (!a->ids)
			a->ids = xcalloc(a->len / a->slot, sizeof(*a->ids));
		ALLOC_GROW(t->ctx, t->nr_ctx + 1, t->ctx_alloc);
		t->ctx[t->nr_ctx].parent = parent;
		t->ctx[t->nr_ctx].func = func;
		t->nr_ctx++;
		a->ids[slot] = id;
		return 0;
	}
	if (type == REC_ARENA) {
		struct ctx_arena *a;
		uint64_t start, alen;
		uint32_t slot;

		if (len < 20 || t->nr_arenas >= CTX_ARENAS_MAX)
			return -1;
		start = get_le64(p);
		alen = get_le64(p + 8);
		slot = get_le32(p + 16);
		if (slot < 8 || slot > 4096 || !alen || alen % slot ||
		    alen / slot > CTX_ARENA_SLOTS_MAX ||
		    start + alen < start || arena_of_loading(t, start) ||
		    arena_of_loading(t, start + alen - 1))
			return -1;
		ALLOC_GROW(t->arenas, t->nr_arenas + 1, t->arenas_alloc);
		a = &t->arenas[t->nr_arenas++];
		a->start = start;
		a->len = alen;
		a->slot = slot;
		a->ids = NULL;
		return 0;
	}
	if (type == REC_START) {
		if (len < 8)
			return -1;
		t->start_ns = get_le64(p);
		return 0;
	}
	return 0;		/* a newer record type: skipped */
}

int ctx_db_add(struct ctx_db **dbp, const unsigned char *buf, size_t len)
{
	struct ctx_db *db = *dbp;
	struct ctx_table t;
	size_t off = 16;
	int ret = 0;

	if (len < 16 || memcmp(buf, CTX_MAGIC, 8))
		return -1;
	memset(&t, 0, sizeof(t));
	t.pid = (pid_t)get_le32(buf + 8);
	while (off + 8 <= len) {
		uint32_t type = get_le32(buf + off);
		uint32_t size = get_le32(buf + off + 4);

		if (type == REC_END || size == 0)
			break;		/* the zero tail of a live table */
		if (size < 8 || size % 8 || size > len - off ||
		    add_record(&t, type, buf + off + 8, size - 8) < 0) {
			ret = -1;
			break;
		}
		off += size;
	}
	if (t.nr_arenas)
		qsort(t.arenas, t.nr_arenas, sizeof(*t.arenas), arena_cmp);
	if (!db) {
		db = xcalloc(1, sizeof(*db));
		*dbp = db;
	}
	ALLOC_GROW(db->t, db->nr + 1, db->alloc);
	db->t[db->nr++] = t;
	return ret;
}

/* The whole (possibly gzip-compressed) file; NULL with errno. */
static unsigned char *read_table(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, alloc = 0;
	int r;

	if (!gz)
		return NULL;
	for (;;) {
		if (alloc - n < 65536) {
			if (alloc >= CTX_FILE_MAX) {
				errno = EFBIG;
				goto fail;
			}
			alloc = alloc ? alloc * 2 : 1 << 20;
			buf = xrealloc(buf, alloc);
		}
		r = gzread(gz, buf + n, 65536);
		if (r < 0) {
			errno = EIO;
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	gzclose(gz);
	*len = n;
	return buf;
fail:
	gzclose(gz);
	free(buf);
	return NULL;
}

int ctx_db_load(struct ctx_db **out, const char *dir, unsigned *damaged,
		char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	*out = NULL;
	*damaged = 0;
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 :
		       set_err(err, errlen, "cannot read '%s': %s", dir,
			       strerror(errno));
	while ((de = readdir(d))) {
		const char *name = de->d_name, *p;
		unsigned long v;
		unsigned char *buf;
		size_t len;
		char *path;

		if (strncmp(name, "ctx-", 4) ||
		    parse_uint_prefix(name + 4, &v, &p) ||
		    (strcmp(p, ".tab") && strcmp(p, ".tab.gz")))
			continue;
		path = xasprintf("%s/%s", dir, name);
		buf = read_table(path, &len);
		free(path);
		if (!buf || ctx_db_add(out, buf, len) < 0)
			(*damaged)++;
		free(buf);
	}
	closedir(d);
	return 0;
}

void ctx_db_free(struct ctx_db *db)
{
	size_t i;

	if (!db)
		return;
	for (i = 0; i < db->nr; i++)
		table_release(&db->t[i]);
	free(db->t);
	free(db->out);
	free(db->tpos);
	free(db->tid);
	free(db);
}

int ctx_db_before_start(struct ctx_db *db, pid_t pid, uint64_t time_ns)
{
	struct ctx_table *t = db ? table_of(db, pid) : NULL;

	return t && t->start_ns && time_ns && time_ns < t->start_ns;
}

void ctx_db_stats(const struct ctx_db *db, struct ctx_db_stats *st)
{
	size_t i;

	memset(st, 0, sizeof(*st));
	if (!db)
		return;
	st->tables = db->nr;
	for (i = 0; i < db->nr; i++) {
		st->contexts += db->t[i].nr_ctx;
		st->functions += db->t[i].nr_funcs;
	}
}

/* ---- the rebuild ----------------------------------------------------- */

static struct ctx_table *table_of(struct ctx_db *db, pid_t pid)
{
	size_t i;

	if (db->last < db->nr && db->t[db->last].pid == pid)
		return &db->t[db->last];
	for (i = 0; i < db->nr; i++)
		if (db->t[i].pid == pid) {
			db->last = i;
			return &db->t[i];
		}
	return NULL;
}

/* The context id whose trampoline slot holds ip, or 0. */
static uint32_t ctx_at(struct ctx_table *t, uint64_t ip)
{
	struct ctx_arena *a = arena_of(t, ip);

	if (!a || !a->ids)
		return 0;
	return a->ids[(ip - a->start) / a->slot];
}

static struct ctx_suffix *suffix_of(struct ctx_table *t, uint32_t root)
{
	size_t i;

	for (i = 0; i < t->nr_suffixes; i++)
		if (t->suffixes[i].root == root)
			return &t->suffixes[i];
	return NULL;
}

static void keep_suffix(struct ctx_table *t, uint32_t root,
			const struct sample_frame *f, size_t nr)
{
	struct ctx_suffix *s;
	size_t i;

	if (!nr || suffix_of(t, root))
		return;
	ALLOC_GROW(t->suffixes, t->nr_suffixes + 1, t->suffixes_alloc);
	s = &t->suffixes[t->nr_suffixes++];
	s->root = root;
	s->nr = nr;
	s->frames = xmalloc(nr * sizeof(*s->frames));
	for (i = 0; i < nr; i++) {
		/* every field: put() copies the whole frame into samples */
		s->frames[i].kind = f[i].kind;
		s->frames[i].line = f[i].line;
		s->frames[i].ip = f[i].ip;
		s->frames[i].sym.s = xstrndup(f[i].sym.s, f[i].sym.len);
		s->frames[i].sym.len = f[i].sym.len;
		s->frames[i].dso.s = xstrndup(f[i].dso.s, f[i].dso.len);
		s->frames[i].dso.len = f[i].dso.len;
	}
}

static void put(struct ctx_db *db, size_t *d, const struct sample_frame *f)
{
	ALLOC_GROW(db->out, *d + 1, db->out_alloc);
	db->out[(*d)++] = *f;
}

static void put_ctx(struct ctx_db *db, size_t *d, struct ctx_table *t,
		    uint32_t id, uint64_t ip)
{
	struct sample_frame f;

	f.kind = SAMPLE_FRAME_ADDR;	/* "py::QUALNAME:FILE", as perf maps */
	f.line = 0;
	f.ip = ip;
	f.sym = t->funcs[t->ctx[id - 1].func - 1];
	f.dso.s = CTX_DSO;
	f.dso.len = sizeof(CTX_DSO) - 1;
	put(db, d, &f);
}

enum ctx_result ctx_db_rebuild(struct ctx_db *db, const struct sample *in,
			       struct sample *out)
{
	struct ctx_table *t = table_of(db, in->pid);
	size_t n = in->nr_frames, nt = 0, i, j, k, pos, d = 0;
	uint32_t cur, last_matched = 0;

	if (!t || !t->nr_ctx)
		return CTX_NONE;
	/* the context trampolines the sample holds, leaf first */
	for (i = 0; i < n; i++) {
		uint32_t id = ctx_at(t, in->frames[i].ip);

		if (!id)
			continue;
		if (nt == db->t_alloc) {
			db->t_alloc = db->t_alloc ? db->t_alloc * 2 : 64;
			db->tpos = xrealloc(db->tpos,
					    db->t_alloc * sizeof(*db->tpos));
			db->tid = xrealloc(db->tid,
					   db->t_alloc * sizeof(*db->tid));
		}
		db->tpos[nt] = i;
		db->tid[nt++] = id;
	}
	if (!nt)
		return CTX_NONE;

	/* below and at the innermost Python frame: as the sample has it */
	for (i = 0; i < db->tpos[0]; i++)
		put(db, &d, &in->frames[i]);
	cur = db->tid[0];
	put_ctx(db, &d, t, cur, in->frames[db->tpos[0]].ip);
	last_matched = cur;
	pos = db->tpos[0] + 1;
	j = 1;
	/* every caller, with the native frames between where it has them */
	for (;;) {
		uint32_t parent = t->ctx[cur - 1].parent;

		if (!parent || parent == CTX_ID_UNKNOWN)
			break;
		/* a trampoline of no ancestor (a stale word) is passed by */
		for (k = j; k < nt && db->tid[k] != parent; k++)
			;
		if (k < nt) {
			for (i = pos; i < db->tpos[k]; i++)
				if (!ctx_at(t, in->frames[i].ip))
					put(db, &d, &in->frames[i]);
			put_ctx(db, &d, t, parent, in->frames[db->tpos[k]].ip);
			last_matched = parent;
			pos = db->tpos[k] + 1;
			j = k + 1;
		} else {
			put_ctx(db, &d, t, parent, 0);
		}
		cur = parent;
	}
	if (t->ctx[cur - 1].parent == CTX_ID_UNKNOWN) {
		/* above the cap: what the sample itself holds */
		for (i = pos; i < n; i++) {
			uint32_t id = ctx_at(t, in->frames[i].ip);

			if (id)
				put_ctx(db, &d, t, id, in->frames[i].ip);
			else
				put(db, &d, &in->frames[i]);
		}
		*out = *in;
		out->frames = db->out;
		out->nr_frames = d;
		return CTX_UNKNOWN;
	}
	/* the root: the frames outside it, from this sample or another */
	if (last_matched == cur && pos < n) {
		keep_suffix(t, cur, in->frames + pos, n - pos);
		for (i = pos; i < n; i++)
			put(db, &d, &in->frames[i]);
	} else {
		struct ctx_suffix *s = suffix_of(t, cur);

		for (i = 0; s && i < s->nr; i++)
			put(db, &d, &s->frames[i]);
	}
	*out = *in;
	out->frames = db->out;
	out->nr_frames = d;
	return CTX_ROOT;
}
