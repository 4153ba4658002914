/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The session's cache of perf script output (see src_perfscript_cache.h for the
 * file format).
 */
#include "compat.h"
#include "alloc.h"
#include "hmap.h"
#include "byteorder.h"
#include "fileio.h"
#include "report/profile_priv.h"
#include "report/src_perfscript_cache.h"
#include "spawn.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "PPRSCR2\n"
#define MAGIC_LEN 8
#define SUM_LEN 8
#define SUM_SEED 0x7070722d63616368ULL

#define F_TASK 1u	/* pid, tid, comm, event follow */
#define F_PERIOD 2u	/* period follows */
#define F_OWN 4u	/* pyperf-run's own task (sample.h's own) */

/* Larger caches are not kept (a run that big is read from perf). */
#define MAX_CACHE_BYTES ((size_t)1 << 31)

/* ---- the key --------------------------------------------------------- */

static void key_stat(struct strbuf *key, const char *what,
		     const struct stat *st)
{
	strbuf_addf(key, "%s %llu %llu %llu %lld.%09ld", what,
		    (unsigned long long)st->st_dev,
		    (unsigned long long)st->st_ino,
		    (unsigned long long)st->st_size,
		    (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
	strbuf_addch(key, '\0');
}

int report_cache_key(struct strbuf *key, const char *session,
		     const char *const *argv)
{
	char *data = xasprintf("%s/perf.data", session);
	char *perf = NULL, *real = NULL;
	size_t slen = strlen(session);
	struct stat st;
	int ret = -1;

	strbuf_reset(key);
	strbuf_add(key, MAGIC, MAGIC_LEN);
	if (!argv || !argv[0] || stat(data, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	key_stat(key, "perf.data", &st);
	perf = spawn_which(argv[0]);
	if (!perf || !(real = realpath(perf, NULL)) || stat(real, &st) < 0)
		goto out;
	strbuf_addstr(key, real);
	key_stat(key, "", &st);
	for (; *argv; argv++) {
		const char *a = *argv;

		/* "SESSION/x" -> "$SESSION/x", so that a moved session
		 * keeps its cache */
		if (slen && !strncmp(a, session, slen) && a[slen] == '/') {
			strbuf_addstr(key, "$SESSION");
			a += slen;
		}
		strbuf_addstr(key, a);
		strbuf_addch(key, '\0');
	}
	ret = 0;
out:
	if (ret)
		strbuf_reset(key);
	free(real);
	free(perf);
	free(data);
	return ret;
}

/* ---- varints --------------------------------------------------------- */

static void put_u(struct strbuf *sb, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	strbuf_add(sb, b, n);
}

static uint64_t zigzag(uint64_t delta)
{
	/* two's complement delta -> small unsigned for small |delta| */
	return (delta << 1) ^ (0 - (delta >> 63));
}

static uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

/* Append v as 8 little-endian bytes. */
static void add_le64(struct strbuf *sb, uint64_t v)
{
	unsigned char b[8];

	put_le64(b, v);
	strbuf_add(sb, b, 8);
}

/* ---- the writer ------------------------------------------------------ */

struct wstr {
	size_t off;		/* in blob */
	size_t len;
};

struct wframe {
	uint32_t sym, dso;
	uint64_t ip;
};

struct wnode {
	uint32_t parent;	/* HTAB_NONE: a root */
	uint32_t frame;
};

struct report_cache_writer {
	struct strbuf blob;
	struct wstr *strs;
	size_t nr_strs, strs_alloc;
	struct htab str_tab;

	struct wframe *frames;
	size_t nr_frames, frames_alloc;
	struct htab frame_tab;

	struct wnode *nodes;
	size_t nr_nodes, nodes_alloc;
	struct htab node_tab;

	struct strbuf samples;
	uint64_t nr_samples;

	int have_prev;
	pid_t pid, tid;
	uint32_t comm, event;
	uint64_t time, period;

	struct report_cache_facts facts;	/* a copy of perf.data's */

	int too_big;		/* past MAX_CACHE_BYTES: write nothing */
};

void report_cache_facts_release(struct report_cache_facts *f)
{
	free(f->dumps);
	free(f->tops);
	memset(f, 0, sizeof(*f));
}

struct report_cache_writer *report_cache_writer_new(void)
{
	struct report_cache_writer *w = xcalloc(1, sizeof(*w));

	strbuf_init(&w->blob, 0);
	strbuf_init(&w->samples, 0);
	htab_init(&w->str_tab);
	htab_init(&w->frame_tab);
	htab_init(&w->node_tab);
	return w;
}

static void writer_drop(struct report_cache_writer *w)
{
	strbuf_release(&w->blob);
	strbuf_release(&w->samples);
	free(w->strs);
	free(w->frames);
	free(w->nodes);
	htab_release(&w->str_tab);
	htab_release(&w->frame_tab);
	htab_release(&w->node_tab);
	report_cache_facts_release(&w->facts);
	w->strs = NULL;
	w->frames = NULL;
	w->nodes = NULL;
	w->nr_strs = w->strs_alloc = 0;
	w->nr_frames = w->frames_alloc = 0;
	w->nr_nodes = w->nodes_alloc = 0;
}

void report_cache_writer_free(struct report_cache_writer *w)
{
	if (!w)
		return;
	writer_drop(w);
	free(w);
}

/* The bytes the writer holds, as the file will hold them at most. */
static size_t writer_size(const struct report_cache_writer *w)
{
	return w->blob.len + w->samples.len + w->nr_frames * 12 +
	       w->nr_nodes * 8 + w->facts.nr_dumps * 24 +
	       w->facts.nr_tops * 16;
}

void report_cache_set_facts(struct report_cache_writer *w,
			    const struct report_cache_facts *f)
{
	struct report_cache_facts *c = &w->facts;

	if (w->too_big)
		return;
	report_cache_facts_release(c);
	*c = *f;
	c->dumps = NULL;
	c->tops = NULL;
	if (f->nr_dumps) {
		c->dumps = xmalloc(f->nr_dumps * sizeof(*c->dumps));
		memcpy(c->dumps, f->dumps, f->nr_dumps * sizeof(*c->dumps));
	}
	if (f->nr_tops) {
		c->tops = xmalloc(f->nr_tops * sizeof(*c->tops));
		memcpy(c->tops, f->tops, f->nr_tops * sizeof(*c->tops));
	}
	if (writer_size(w) > MAX_CACHE_BYTES) {
		w->too_big = 1;
		writer_drop(w);
	}
}

static int str_eq(const void *ctx, uint32_t id)
{
	const struct sample_str *s = ((const void *const *)ctx)[0];
	const struct report_cache_writer *w = ((const void *const *)ctx)[1];
	const struct wstr *ws = &w->strs[id];

	return ws->len == s->len &&
	       !memcmp(w->blob.buf + ws->off, s->s, s->len);
}

static uint32_t str_intern(struct report_cache_writer *w,
			   const struct sample_str *s)
{
	const void *ctx[2] = { s, w };
	uint64_t h = hash_mem(s->s, s->len, 0x5354);
	uint32_t id = htab_find(&w->str_tab, h, str_eq, ctx);

	if (id != HTAB_NONE)
		return id;
	ALLOC_GROW(w->strs, w->nr_strs + 1, w->strs_alloc);
	id = (uint32_t)w->nr_strs++;
	w->strs[id].off = w->blob.len;
	w->strs[id].len = s->len;
	strbuf_add(&w->blob, s->s, s->len);
	htab_insert(&w->str_tab, h, id);
	return id;
}

static int frame_eq(const void *ctx, uint32_t id)
{
	const struct sample_frame *f = ((const void *const *)ctx)[0];
	const struct report_cache_writer *w = ((const void *const *)ctx)[1];
	const struct wframe *wf = &w->frames[id];
	const struct wstr *sym = &w->strs[wf->sym], *dso = &w->strs[wf->dso];

	return wf->ip == f->ip && sym->len == f->sym.len &&
	       dso->len == f->dso.len &&
	       !memcmp(w->blob.buf + sym->off, f->sym.s, f->sym.len) &&
	       !memcmp(w->blob.buf + dso->off, f->dso.s, f->dso.len);
}

static uint32_t frame_intern(struct report_cache_writer *w,
			     const struct sample_frame *f)
{
	const void *ctx[2] = { f, w };
	uint64_t h = hash_mem(f->sym.s, f->sym.len,
			      hash_mem(f->dso.s, f->dso.len, f->ip));
	uint32_t id = htab_find(&w->frame_tab, h, frame_eq, ctx);
	struct wframe wf;

	if (id != HTAB_NONE)
		return id;
	wf.sym = str_intern(w, &f->sym);
	wf.dso = str_intern(w, &f->dso);
	wf.ip = f->ip;
	ALLOC_GROW(w->frames, w->nr_frames + 1, w->frames_alloc);
	id = (uint32_t)w->nr_frames++;
	w->frames[id] = wf;
	htab_insert(&w->frame_tab, h, id);
	return id;
}

static int node_eq(const void *ctx, uint32_t id)
{
	const struct wnode *n = ((const void *const *)ctx)[0];
	const struct report_cache_writer *w = ((const void *const *)ctx)[1];

	return w->nodes[id].parent == n->parent &&
	       w->nodes[id].frame == n->frame;
}

static uint32_t node_intern(struct report_cache_writer *w, uint32_t parent,
			    uint32_t frame)
{
	struct wnode n = { parent, frame };
	const void *ctx[2] = { &n, w };
	uint64_t h = hash_mem(&n, sizeof(n), 0x4e4f);
	uint32_t id = htab_find(&w->node_tab, h, node_eq, ctx);

	if (id != HTAB_NONE)
		return id;
	ALLOC_GROW(w->nodes, w->nr_nodes + 1, w->nodes_alloc);
	id = (uint32_t)w->nr_nodes++;
	w->nodes[id] = n;
	htab_insert(&w->node_tab, h, id);
	return id;
}

void report_cache_add(struct report_cache_writer *w,
		      const struct sample *s)
{
	uint32_t node = HTAB_NONE, comm, event;
	unsigned flags = 0;
	size_t i;

	if (w->too_big)
		return;
	/* frames leaf first; the tree is built from the root */
	for (i = s->nr_frames; i-- > 0;)
		node = node_intern(w, node, frame_intern(w, &s->frames[i]));
	comm = str_intern(w, &s->comm);
	event = str_intern(w, &s->event);
	if (!w->have_prev || s->pid != w->pid || s->tid != w->tid ||
	    comm != w->comm || event != w->event)
		flags |= F_TASK;
	if (!w->have_prev || s->period != w->period)
		flags |= F_PERIOD;
	if (s->own)
		flags |= F_OWN;
	strbuf_addch(&w->samples, (int)flags);
	if (flags & F_TASK) {
		put_u(&w->samples, (uint32_t)s->pid);
		put_u(&w->samples, (uint32_t)s->tid);
		put_u(&w->samples, comm);
		put_u(&w->samples, event);
	}
	put_u(&w->samples, zigzag(s->time_ns - w->time));
	if (flags & F_PERIOD)
		put_u(&w->samples, s->period);
	put_u(&w->samples, node == HTAB_NONE ? 0 : (uint64_t)node + 1);
	w->have_prev = 1;
	w->pid = s->pid;
	w->tid = s->tid;
	w->comm = comm;
	w->event = event;
	w->time = s->time_ns;
	w->period = s->period;
	w->nr_samples++;
	/* ids are 32-bit; the file must stay readable in one piece */
	if (writer_size(w) > MAX_CACHE_BYTES ||
	    w->nr_nodes >= UINT32_MAX - 1 || w->nr_strs >= UINT32_MAX - 1) {
		w->too_big = 1;
		writer_drop(w);
	}
}

static uint64_t zigzag_tid(int32_t tid)
{
	return zigzag((uint64_t)(int64_t)tid);
}

static void encode_facts(const struct report_cache_facts *f,
			 struct strbuf *out)
{
	uint64_t time = 0, sp = 0;
	size_t i;

	put_u(out, f->max_stack);
	put_u(out, f->dump_size);
	put_u(out, f->recorded);
	put_u(out, f->lost);
	put_u(out, f->nr_dumps);
	for (i = 0; i < f->nr_dumps; i++) {
		const struct report_cache_dump *d = &f->dumps[i];

		put_u(out, d->time - time);
		put_u(out, zigzag_tid(d->tid) << 1 | (d->full ? 1 : 0));
		put_u(out, zigzag(d->sp - sp));
		time = d->time;
		sp = d->sp;
	}
	put_u(out, f->nr_tops);
	for (i = 0; i < f->nr_tops; i++) {
		put_u(out, zigzag_tid(f->tops[i].tid));
		put_u(out, f->tops[i].top);
	}
}

void report_cache_encode(const struct report_cache_writer *w,
			 const struct strbuf *key,
			 const struct report_cache_stats *st,
			 struct strbuf *out)
{
	size_t start = out->len, i;

	strbuf_add(out, MAGIC, MAGIC_LEN);
	put_u(out, key->len);
	strbuf_add(out, key->buf, key->len);
	put_u(out, st ? st->bytes : 0);
	put_u(out, st ? st->bad_lines : 0);
	put_u(out, st ? st->samples : 0);
	encode_facts(&w->facts, out);
	put_u(out, w->nr_strs);
	for (i = 0; i < w->nr_strs; i++) {
		put_u(out, w->strs[i].len);
		strbuf_add(out, w->blob.buf + w->strs[i].off, w->strs[i].len);
	}
	put_u(out, w->nr_frames);
	for (i = 0; i < w->nr_frames; i++) {
		put_u(out, w->frames[i].sym);
		put_u(out, w->frames[i].dso);
		put_u(out, w->frames[i].ip);
	}
	put_u(out, w->nr_nodes);
	for (i = 0; i < w->nr_nodes; i++) {
		put_u(out, w->nodes[i].parent == HTAB_NONE ? 0 :
		      (uint64_t)w->nodes[i].parent + 1);
		put_u(out, w->nodes[i].frame);
	}
	put_u(out, w->nr_samples);
	strbuf_add(out, w->samples.buf, w->samples.len);
	add_le64(out, hash_mem(out->buf + start, out->len - start,
			       SUM_SEED));
}

static int open_cache_dir(const char *session, int create)
{
	char *dir = xasprintf("%s/%s", session, REPORT_CACHE_DIR);
	int fd;

	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		fd = -errno;
		free(dir);
		return fd;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	free(dir);
	return fd;
}

int report_cache_write(const struct report_cache_writer *w,
		       const char *session, const struct strbuf *key,
		       const struct report_cache_stats *st)
{
	struct strbuf out = STRBUF_INIT;
	char *path, *old;
	int dfd, ret;

	if (w->too_big)
		return -EFBIG;
	/* creates the directory, and refuses one that is a link */
	dfd = open_cache_dir(session, 1);
	if (dfd < 0)
		return dfd;
	close(dfd);
	report_cache_encode(w, key, st, &out);
	path = xasprintf("%s/%s/%s", session, REPORT_CACHE_DIR,
			 REPORT_CACHE_FILE);
	ret = write_file_atomic(path, out.buf, out.len, 0600, 0);
	if (!ret) {	/* the format before: unusable now */
		old = xasprintf("%s/%s/%s", session, REPORT_CACHE_DIR,
				REPORT_CACHE_OLD_FILE);
		unlink(old);
		free(old);
	}
	free(path);
	strbuf_release(&out);
	return ret;
}

/* ---- the reader ------------------------------------------------------ */

struct rd {
	const unsigned char *p, *e;
	int bad;
};

static uint64_t get_u(struct rd *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (!r->bad) {
		unsigned b;

		if (r->p >= r->e || shift > 63) {
			r->bad = 1;
			break;
		}
		b = *r->p++;
		if (shift == 63 && (b & 0x7e)) {
			r->bad = 1;	/* more than 64 bits */
			break;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		shift += 7;
	}
	return 0;
}

/* A count of records of at least min_size bytes each that must fit. */
static size_t get_count(struct rd *r, size_t min_size)
{
	uint64_t n = get_u(r);

	if (r->bad || n > (uint64_t)(r->e - r->p) / min_size ||
	    n >= UINT32_MAX) {
		r->bad = 1;
		return 0;
	}
	return (size_t)n;
}

struct rnode {
	uint32_t parent;	/* UINT32_MAX: a root */
	uint32_t frame;
};

struct tables {
	struct report_cache_facts facts;
	struct sample_str *strs;
	size_t nr_strs;
	struct sample_frame *frames;
	size_t nr_frames;
	struct rnode *nodes;
	size_t nr_nodes;
	size_t max_depth;
};

/* The state carried from one sample to the next. */
struct sstate {
	struct sample s;
	uint32_t node;		/* UINT32_MAX: no frames */
	int have_prev;
};

static int read_sample(struct rd *r, const struct tables *t,
		       struct sstate *ss)
{
	unsigned flags;
	uint64_t v, pid, tid, comm, event;

	if (r->p >= r->e)
		return -1;
	flags = *r->p++;
	if (flags & ~(F_TASK | F_PERIOD | F_OWN) ||
	    (!ss->have_prev &&
	     (flags & (F_TASK | F_PERIOD)) != (F_TASK | F_PERIOD)))
		return -1;
	ss->s.own = !!(flags & F_OWN);
	if (flags & F_TASK) {
		pid = get_u(r);
		tid = get_u(r);
		comm = get_u(r);
		event = get_u(r);
		if (r->bad || pid > INT32_MAX || tid > INT32_MAX ||
		    comm >= t->nr_strs || event >= t->nr_strs)
			return -1;
		ss->s.pid = (pid_t)pid;
		ss->s.tid = (pid_t)tid;
		ss->s.comm = t->strs[comm];
		ss->s.event = t->strs[event];
	}
	ss->s.time_ns += unzigzag(get_u(r));
	if (flags & F_PERIOD)
		ss->s.period = get_u(r);
	v = get_u(r);
	if (r->bad || v > t->nr_nodes)
		return -1;
	ss->node = v ? (uint32_t)(v - 1) : UINT32_MAX;
	ss->have_prev = 1;
	return 0;
}

static int get_tid(struct rd *r, uint64_t v, int32_t *tid)
{
	uint64_t t = unzigzag(v);

	if (r->bad || (int64_t)t < INT32_MIN || (int64_t)t > INT32_MAX)
		return -1;
	*tid = (int32_t)(int64_t)t;
	return 0;
}

/* The perf.data section, checked: its arrays sorted as promised. */
static int read_facts(struct rd *r, struct report_cache_facts *f)
{
	uint64_t time = 0, sp = 0;
	size_t i;

	f->max_stack = get_u(r);
	f->dump_size = get_u(r);
	f->recorded = get_u(r);
	f->lost = get_u(r);
	f->nr_dumps = get_count(r, 3);
	if (r->bad)
		return -1;
	f->dumps = xcalloc(f->nr_dumps ? f->nr_dumps : 1, sizeof(*f->dumps));
	for (i = 0; i < f->nr_dumps; i++) {
		struct report_cache_dump *d = &f->dumps[i];
		uint64_t dt = get_u(r), tf = get_u(r), ds = get_u(r);

		if (get_tid(r, tf >> 1, &d->tid) < 0 || time + dt < time ||
		    (i && !dt && d->tid < d[-1].tid))
			return -1;
		d->full = (uint8_t)(tf & 1);
		time += dt;
		sp += unzigzag(ds);
		d->time = time;
		d->sp = sp;
	}
	f->nr_tops = get_count(r, 2);
	if (r->bad)
		return -1;
	f->tops = xcalloc(f->nr_tops ? f->nr_tops : 1, sizeof(*f->tops));
	for (i = 0; i < f->nr_tops; i++) {
		struct report_cache_top *t = &f->tops[i];
		uint64_t tid = get_u(r);

		t->top = get_u(r);
		if (get_tid(r, tid, &t->tid) < 0 ||
		    (i && (t->tid < t[-1].tid ||
			   (t->tid == t[-1].tid && t->top <= t[-1].top))))
			return -1;
	}
	return 0;
}

/* Parse and check everything up to the samples; r is left on them. */
static int read_tables(struct rd *r, const struct strbuf *key,
		       struct report_cache_stats *st, struct tables *t,
		       size_t *nr_samples)
{
	uint32_t *depth = NULL;
	uint64_t klen;
	size_t i;

	if ((size_t)(r->e - r->p) < MAGIC_LEN ||
	    memcmp(r->p, MAGIC, MAGIC_LEN))
		return -1;
	r->p += MAGIC_LEN;
	klen = get_u(r);
	if (r->bad || klen > (uint64_t)(r->e - r->p))
		return -1;
	if (key && (klen != key->len || memcmp(r->p, key->buf, key->len)))
		return -1;
	r->p += klen;
	st->bytes = get_u(r);
	st->bad_lines = get_u(r);
	st->samples = get_u(r);
	if (r->bad || read_facts(r, &t->facts) < 0)
		return -1;

	t->nr_strs = get_count(r, 1);
	t->strs = xcalloc(t->nr_strs ? t->nr_strs : 1, sizeof(*t->strs));
	for (i = 0; i < t->nr_strs && !r->bad; i++) {
		uint64_t len = get_u(r);

		if (r->bad || len > (uint64_t)(r->e - r->p))
			return -1;
		t->strs[i].s = (const char *)r->p;
		t->strs[i].len = (size_t)len;
		r->p += len;
	}

	t->nr_frames = get_count(r, 3);
	t->frames = xcalloc(t->nr_frames ? t->nr_frames : 1,
			    sizeof(*t->frames));
	for (i = 0; i < t->nr_frames && !r->bad; i++) {
		uint64_t sym = get_u(r), dso = get_u(r);

		t->frames[i].ip = get_u(r);
		if (r->bad || sym >= t->nr_strs || dso >= t->nr_strs)
			return -1;
		t->frames[i].sym = t->strs[sym];
		t->frames[i].dso = t->strs[dso];
	}

	t->nr_nodes = get_count(r, 2);
	t->nodes = xcalloc(t->nr_nodes ? t->nr_nodes : 1, sizeof(*t->nodes));
	depth = xcalloc(t->nr_nodes ? t->nr_nodes : 1, sizeof(*depth));
	t->max_depth = 0;
	for (i = 0; i < t->nr_nodes && !r->bad; i++) {
		uint64_t parent = get_u(r), frame = get_u(r);

		/* a parent comes first: no cycles, depth is bounded */
		if (r->bad || parent > i || frame >= t->nr_frames) {
			free(depth);
			return -1;
		}
		t->nodes[i].parent = parent ? (uint32_t)(parent - 1) :
			UINT32_MAX;
		t->nodes[i].frame = (uint32_t)frame;
		depth[i] = parent ? depth[parent - 1] + 1 : 1;
		if (depth[i] > t->max_depth)
			t->max_depth = depth[i];
	}
	free(depth);
	*nr_samples = get_count(r, 3);
	return r->bad ? -1 : 0;
}

int report_cache_replay_buf(const void *buf, size_t len,
			    const struct strbuf *key, unsigned flags,
			    report_cache_facts_fn facts_cb, sample_fn cb,
			    void *data, struct report_cache_stats *stp,
			    int *cb_ret)
{
	struct report_cache_stats st;
	struct tables t;
	struct rd r;
	struct sstate ss;
	struct sample_frame *frames = NULL;
	const unsigned char *samples;
	size_t nr_samples = 0, i;
	int ret = 0, stop = 0;

	memset(&t, 0, sizeof(t));
	memset(&st, 0, sizeof(st));
	if (cb_ret)
		*cb_ret = 0;
	if (!buf || len < MAGIC_LEN + SUM_LEN)
		return 0;
	r.p = buf;
	r.e = r.p + len - SUM_LEN;
	r.bad = 0;
	if (!(flags & REPORT_CACHE_NO_CHECKSUM) &&
	    hash_mem(buf, len - SUM_LEN, SUM_SEED) != get_le64(r.e))
		return 0;
	if (read_tables(&r, key, &st, &t, &nr_samples) < 0)
		goto out;

	/* check every sample before delivering any */
	samples = r.p;
	memset(&ss, 0, sizeof(ss));
	for (i = 0; i < nr_samples; i++)
		if (read_sample(&r, &t, &ss) < 0)
			goto out;
	if (r.bad || r.p != r.e)
		goto out;

	if (facts_cb)
		facts_cb(data, &t.facts);
	frames = xmalloc((t.max_depth ? t.max_depth : 1) * sizeof(*frames));
	r.p = samples;
	memset(&ss, 0, sizeof(ss));
	sample_init(&ss.s);	/* each one sample, as perf script gave it */
	for (i = 0; i < nr_samples && !stop; i++) {
		uint32_t n;
		size_t d = 0;

		if (read_sample(&r, &t, &ss) < 0)
			break;	/* cannot happen: checked above */
		for (n = ss.node; n != UINT32_MAX && d < t.max_depth;
		     n = t.nodes[n].parent)
			frames[d++] = t.frames[t.nodes[n].frame];
		ss.s.frames = frames;
		ss.s.nr_frames = d;
		stop = cb ? cb(data, &ss.s) : 0;
	}
	if (cb_ret)
		*cb_ret = stop;
	if (stp)
		*stp = st;
	ret = 1;
out:
	free(frames);
	report_cache_facts_release(&t.facts);
	free(t.strs);
	free(t.frames);
	free(t.nodes);
	return ret;
}

int report_cache_replay(const char *session, const struct strbuf *key,
			report_cache_facts_fn facts_cb, sample_fn cb,
			void *data, struct report_cache_stats *st,
			int *cb_ret)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat sst;
	int dfd, fd, ret = 0;

	if (cb_ret)
		*cb_ret = 0;
	if (!key || !key->len)
		return 0;
	dfd = open_cache_dir(session, 0);
	if (dfd < 0)
		return 0;
	fd = openat(dfd, REPORT_CACHE_FILE,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	close(dfd);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &sst) && S_ISREG(sst.st_mode) &&
	    (uint64_t)sst.st_size <= MAX_CACHE_BYTES + (1 << 20) &&
	    strbuf_read_fd(&sb, fd, MAX_CACHE_BYTES + (1 << 20)) >= 0)
		ret = report_cache_replay_buf(sb.buf, sb.len, key, 0,
					      facts_cb, cb, data, st,
					      cb_ret);
	close(fd);
	strbuf_release(&sb);
	return ret;
}
