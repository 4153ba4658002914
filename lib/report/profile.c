/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The profile model: interning of frames, tasks and stacks, totals and
 * pruning.  Loading a session into it is profile_load.c's (the
 * sources, and the stages pipeline.c runs each sample through).
 */
#include "compat.h"
#include "alloc.h"
#include "hmap.h"
#include "report/profile.h"
#include "report/profile_priv.h"
#include "report/calltree.h"
#include "numparse.h"
#include "strbuf.h"

#include <limits.h>

/* ---- hashing ------------------------------------------------------- */

void htab_init(struct htab *h)
{
	memset(h, 0, sizeof(*h));
}

void htab_release(struct htab *h)
{
	free(h->slots);
	htab_init(h);
}

static void htab_grow(struct htab *h)
{
	size_t n = h->size ? h->size * 2 : 1024, i, j;
	struct htab_slot *s = xcalloc(n, sizeof(*s));

	for (i = 0; i < h->size; i++) {
		if (!h->slots[i].id)
			continue;
		j = (size_t)h->slots[i].hash & (n - 1);
		while (s[j].id)
			j = (j + 1) & (n - 1);
		s[j] = h->slots[i];
	}
	free(h->slots);
	h->slots = s;
	h->size = n;
}

uint32_t htab_find(const struct htab *h, uint64_t hash,
		   int (*eq)(const void *ctx, uint32_t id), const void *ctx)
{
	size_t i;

	if (!h->size)
		return HTAB_NONE;
	i = (size_t)hash & (h->size - 1);
	while (h->slots[i].id) {
		if (h->slots[i].hash == hash && eq(ctx, h->slots[i].id - 1))
			return h->slots[i].id - 1;
		i = (i + 1) & (h->size - 1);
	}
	return HTAB_NONE;
}

void htab_insert(struct htab *h, uint64_t hash, uint32_t id)
{
	size_t i;

	if ((h->nr + 1) * 4 > h->size * 3)
		htab_grow(h);
	i = (size_t)hash & (h->size - 1);
	while (h->slots[i].id)
		i = (i + 1) & (h->size - 1);
	h->slots[i].hash = hash;
	h->slots[i].id = id + 1;
	h->nr++;
}

/* ---- profile ------------------------------------------------------- */

static const char *const kind_names[FRAME_KIND_NR] = {
	"python", "native", "kernel", "plumbing", "unknown"
};

const char *frame_kind_name(enum frame_kind kind)
{
	if ((unsigned)kind >= FRAME_KIND_NR)
		return "unknown";
	return kind_names[kind];
}

/*
 * The one table of the units' names.  Samples keep the names every
 * format had before weights had units.  speedscope's units are those of
 * its schema ("none" for a count); pprof names a time "time" or "cpu"
 * with the unit "nanoseconds", and a count "count".
 */
static const struct weight_unit_info unit_info[UNIT_NR] = {
	[UNIT_SAMPLES] = { "samples", "Samples", "samples", "count",
			   "none" },
	[UNIT_NS] = { "nanoseconds", "Time", "time", "nanoseconds",
		      "nanoseconds" },
	[UNIT_EVENTS] = { "events", "Events", "events", "count", "none" },
};

const struct weight_unit_info *weight_unit_info(enum weight_unit u)
{
	return &unit_info[(unsigned)u < UNIT_NR ? u : UNIT_SAMPLES];
}

static const char *const clock_names[PROFILE_CLOCK_NR] = {
	[PROFILE_CLOCK_CPU] = "cpu",
	[PROFILE_CLOCK_WALL] = "wall",
	[PROFILE_CLOCK_OFFCPU] = "off-cpu",
};

const char *profile_clock_name(enum profile_clock c)
{
	return clock_names[(unsigned)c < PROFILE_CLOCK_NR ? c :
			   PROFILE_CLOCK_CPU];
}

int profile_clock_parse(const char *s, enum profile_clock *c)
{
	unsigned i;

	for (i = 0; s && i < PROFILE_CLOCK_NR; i++)
		if (!strcmp(s, clock_names[i])) {
			*c = (enum profile_clock)i;
			return 0;
		}
	return -1;
}

static const char *const wait_names[WAIT_NR] = {
	[WAIT_SLEEP] = "sleep",
	[WAIT_IO] = "io",
	[WAIT_LOCK] = "lock",
	[WAIT_GIL] = "gil",
	[WAIT_IDLE] = "idle",
	[WAIT_RUNQUEUE] = "runqueue",
	[WAIT_CHILD] = "child",
	[WAIT_OTHER] = "other",
};

const char *wait_reason_name(enum wait_reason r)
{
	return wait_names[(unsigned)r < WAIT_NR ? r : WAIT_OTHER];
}

void profile_warn(struct profile *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	p->warnings = xrealloc(p->warnings,
			       (p->nr_warnings + 1) * sizeof(*p->warnings));
	p->warnings[p->nr_warnings++] = strbuf_detach(&sb, NULL);
}

void profile_note(struct profile *p, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	p->notes = xrealloc(p->notes, (p->nr_notes + 1) * sizeof(*p->notes));
	p->notes[p->nr_notes++] = strbuf_detach(&sb, NULL);
}

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	p->duration = -1.0;
	p->priv = xcalloc(1, sizeof(struct profile_priv));
}

static void free_tasks(struct task *t, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free((char *)t[i].comm);
	free(t);
}

void profile_release(struct profile *p)
{
	struct profile_priv *pp = p->priv;
	size_t i;

	for (i = 0; i < p->nr_frames; i++) {
		free((char *)p->frames[i].name);
		free((char *)p->frames[i].func);
		free((char *)p->frames[i].file);
		free((char *)p->frames[i].dso);
	}
	free(p->frames);
	free(p->stacks);
	free_tasks(p->tasks, p->nr_tasks);
	free_tasks(p->threads, p->nr_threads);
	for (i = 0; i < p->nr_meta; i++) {
		free((char *)p->meta[i].key);
		free((char *)p->meta[i].value);
	}
	free(p->meta);
	free((char *)p->session);
	for (i = 0; i < p->nr_warnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	for (i = 0; i < p->nr_notes; i++)
		free(p->notes[i]);
	free(p->notes);
	free(p->spans);
	free(p->wakes);
	for (i = 0; i < p->nr_gil_holds; i++)
		free(p->gil_holds[i].spans);
	free(p->gil_holds);
	if (pp) {
		htab_release(&pp->frame_tab);
		htab_release(&pp->stack_tab);
		htab_release(&pp->task_tab);
		htab_release(&pp->thread_tab);
		free(pp->pool);
		free(pp->stack_off);
		free(pp);
	}
	memset(p, 0, sizeof(*p));
	p->duration = -1.0;
	p->max_size_stop = -1.0;
}

const char *profile_meta_get(const struct profile *p, const char *key)
{
	size_t i;

	for (i = p->nr_meta; i-- > 0;)
		if (!strcmp(p->meta[i].key, key))
			return p->meta[i].value;
	return NULL;
}

/* A meta key's value as a decimal count; 0 when absent or not one. */
static unsigned long meta_ulong(const struct profile *p, const char *key)
{
	const char *v = profile_meta_get(p, key);
	unsigned long n;

	if (!v || parse_ulong(v, 10, ULONG_MAX, &n))
		return 0;
	return n;
}

static void meta_fields(struct profile *p)
{
	const char *v;
	double a, b;
	char *end;

	p->command = profile_meta_get(p, "command");
	p->mode = profile_meta_get(p, "mode");
	p->python = profile_meta_get(p, "python");
	p->python_version = profile_meta_get(p, "python_version");
	p->perf_version = profile_meta_get(p, "perf_version");
	p->event = profile_meta_get(p, "event");
	p->frequency = meta_ulong(p, "frequency");
	p->max_size = meta_ulong(p, "max_size");
	p->max_size_stop = -1.0;
	v = profile_meta_get(p, "max_size_stop");
	if (v) {
		a = strtod(v, &end);
		if (end != v && !*end && a >= 0)
			p->max_size_stop = a;
	}
	p->duration = -1.0;
	v = profile_meta_get(p, "start_time");
	if (v) {
		a = strtod(v, &end);
		if (end != v && !*end) {
			v = profile_meta_get(p, "end_time");
			if (v) {
				b = strtod(v, &end);
				if (end != v && !*end && b >= a)
					p->duration = b - a;
			}
		}
	}
}

void profile_meta_set(struct profile *p, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < p->nr_meta; i++) {
		if (!strcmp(p->meta[i].key, key)) {
			free((char *)p->meta[i].value);
			p->meta[i].value = xstrdup(value);
			meta_fields(p);
			return;
		}
	}
	p->meta = xrealloc(p->meta, (p->nr_meta + 1) * sizeof(*p->meta));
	p->meta[p->nr_meta].key = xstrdup(key);
	p->meta[p->nr_meta].value = xstrdup(value);
	p->nr_meta++;
	meta_fields(p);
}

/* -- frames -- */

struct frame_key {
	enum frame_kind kind;
	const char *name, *func, *file, *dso;
	uint32_t line;
};

static int streq_null(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static int frame_eq(const void *ctx, uint32_t id)
{
	const struct frame_key *k = ((const void *const *)ctx)[0];
	const struct profile *p = ((const void *const *)ctx)[1];
	const struct frame *f = &p->frames[id];

	return f->kind == k->kind && f->line == k->line &&
	       streq_null(f->func, k->func) &&
	       streq_null(f->file, k->file) && streq_null(f->dso, k->dso) &&
	       (!k->name || !strcmp(f->name, k->name));
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static char *sanitize(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == ';' || *p == '\n' || *p == '\r')
			*p = '_';
	return s;
}

char *profile_display_name(enum frame_kind kind, const char *func,
			   const char *file, const char *dso)
{
	switch (kind) {
	case FRAME_PYTHON:
		if (file && *file)
			return sanitize(xasprintf("%s (%s)",
						  func ? func : "", file));
		return sanitize(xstrdup(func ? func : ""));
	case FRAME_NATIVE:
	case FRAME_KERNEL:
	case FRAME_PLUMBING:
		if (func && *func && strcmp(func, "[unknown]"))
			return sanitize(xstrdup(func));
		if (dso && *dso && strcmp(dso, "[unknown]"))
			return sanitize(dso[0] == '[' ? xstrdup(dso) :
					xasprintf("[%s]", basename_of(dso)));
		return xstrdup("[unknown]");
	default:
		if (func && *func)
			return sanitize(xstrdup(func));
		return xstrdup("[unknown]");
	}
}

uint32_t profile_frame_intern(struct profile *p, enum frame_kind kind,
			      enum native_class native, const char *name,
			      const char *func, const char *file,
			      const char *dso)
{
	return profile_frame_intern_line(p, kind, native, name, func, file,
					 dso, 0);
}

uint32_t profile_frame_intern_line(struct profile *p, enum frame_kind kind,
				   enum native_class native, const char *name,
				   const char *func, const char *file,
				   const char *dso, uint32_t line)
{
	struct profile_priv *pp = p->priv;
	struct frame_key k = { kind, name, func, file, dso, line };
	const void *ctx[2] = { &k, p };
	uint64_t h = hash_str(func, (uint64_t)kind + 1 + 131 * (uint64_t)line);
	uint32_t id;
	struct frame *f;

	h = hash_str(file, h);
	h = hash_str(dso, h);
	if (name)
		h = hash_str(name, h);
	id = htab_find(&pp->frame_tab, h, frame_eq, ctx);
	if (id != HTAB_NONE)
		return id;
	ALLOC_GROW(p->frames, p->nr_frames + 1, pp->frames_alloc);
	id = (uint32_t)p->nr_frames++;
	f = &p->frames[id];
	f->kind = kind;
	f->native = native;
	f->func = func ? xstrdup(func) : NULL;
	f->file = file ? xstrdup(file) : NULL;
	f->dso = dso ? xstrdup(dso) : NULL;
	f->line = line;
	if (name)
		f->name = sanitize(xstrdup(name));
	else if (kind == FRAME_PYTHON && line && file && *file)
		f->name = sanitize(xasprintf("%s (%s:%u)",
					     func ? func : "", file, (unsigned)line));
	else
		f->name = profile_display_name(kind, func, file, dso);
	htab_insert(&pp->frame_tab, h, id);
	return id;
}

/* -- tasks -- */

struct task_key {
	const struct task *v;
	pid_t pid, tid;
};

static int task_eq(const void *ctx, uint32_t id)
{
	const struct task_key *k = ctx;

	return k->v[id].pid == k->pid && k->v[id].tid == k->tid;
}

static uint32_t task_intern(struct task **v, size_t *nr, size_t *alloc,
			    struct htab *tab, pid_t pid, pid_t tid,
			    const char *comm, size_t comm_len)
{
	struct task_key k = { *v, pid, tid };
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) *
		0x9e3779b97f4a7c15ULL;
	uint32_t id;
	struct task *t;

	h ^= h >> 29;
	id = htab_find(tab, h, task_eq, &k);
	if (id == HTAB_NONE) {
		ALLOC_GROW(*v, *nr + 1, *alloc);
		id = (uint32_t)(*nr)++;
		t = &(*v)[id];
		memset(t, 0, sizeof(*t));
		t->pid = pid;
		t->tid = tid;
		htab_insert(tab, h, id);
	}
	t = &(*v)[id];
	if (comm && comm_len &&
	    (!t->comm || strlen(t->comm) != comm_len ||
	     memcmp(t->comm, comm, comm_len))) {
		free((char *)t->comm);
		t->comm = xstrndup(comm, comm_len);
	}
	return id;
}

uint32_t profile_task_intern(struct profile *p, pid_t pid, pid_t tid,
			     const char *comm)
{
	struct profile_priv *pp = p->priv;

	return task_intern(&p->tasks, &p->nr_tasks, &pp->tasks_alloc,
			   &pp->task_tab, pid, tid, comm,
			   comm ? strlen(comm) : 0);
}

uint32_t prof_thread_intern(struct profile *p, pid_t pid, pid_t tid,
			    const char *comm, size_t comm_len)
{
	struct profile_priv *pp = p->priv;

	return task_intern(&p->threads, &p->nr_threads, &pp->threads_alloc,
			   &pp->thread_tab, pid, tid, comm, comm_len);
}

uint32_t prof_task_intern_len(struct profile *p, pid_t pid, pid_t tid,
			      const char *comm, size_t comm_len)
{
	struct profile_priv *pp = p->priv;

	return task_intern(&p->tasks, &p->nr_tasks, &pp->tasks_alloc,
			   &pp->task_tab, pid, tid, comm, comm_len);
}

/* -- stacks -- */

struct stack_key {
	const struct profile *p;
	const uint32_t *frames;
	uint32_t depth;
	uint32_t task;
};

static int stack_eq(const void *ctx, uint32_t id)
{
	const struct stack_key *k = ctx;
	const struct profile_priv *pp = k->p->priv;
	const struct stack *s = &k->p->stacks[id];

	return s->depth == k->depth && s->task == k->task &&
	       !memcmp(pp->pool + pp->stack_off[id], k->frames,
		       k->depth * sizeof(uint32_t));
}

static void fix_frame_pointers(struct profile *p)
{
	struct profile_priv *pp = p->priv;
	size_t i;

	for (i = 0; i < p->nr_stacks; i++)
		p->stacks[i].frames = pp->pool + pp->stack_off[i];
	pp->pool_moved = 0;
}

void profile_stack_add(struct profile *p, const uint32_t *frames,
		       uint32_t depth, uint32_t task, uint64_t weight,
		       uint64_t period)
{
	profile_stack_add_n(p, frames, depth, task, weight,
			    p->unit == UNIT_SAMPLES ? weight : 1, period);
}

uint32_t profile_stack_add_n(struct profile *p, const uint32_t *frames,
			     uint32_t depth, uint32_t task, uint64_t weight,
			     uint64_t count, uint64_t period)
{
	struct profile_priv *pp = p->priv;
	struct stack_key k = { p, frames, depth, task };
	uint64_t h = hash_mem(frames, depth * sizeof(uint32_t), task);
	uint32_t id = htab_find(&pp->stack_tab, h, stack_eq, &k);
	struct stack *s;

	if (id == HTAB_NONE) {
		uint32_t *old = pp->pool;

		ALLOC_GROW(pp->pool, pp->pool_nr + depth + 1, pp->pool_alloc);
		if (old != pp->pool)
			pp->pool_moved = 1;
		memcpy(pp->pool + pp->pool_nr, frames,
		       depth * sizeof(uint32_t));
		ALLOC_GROW(p->stacks, p->nr_stacks + 1, pp->stacks_alloc);
		ALLOC_GROW(pp->stack_off, p->nr_stacks + 1,
			   pp->stack_off_alloc);
		id = (uint32_t)p->nr_stacks++;
		pp->stack_off[id] = pp->pool_nr;
		pp->pool_nr += depth;
		s = &p->stacks[id];
		s->depth = depth;
		s->task = task;
		s->weight = 0;
		s->count = 0;
		s->period = 0;
		s->frames = pp->pool + pp->stack_off[id];
		htab_insert(&pp->stack_tab, h, id);
		if (pp->pool_moved)
			fix_frame_pointers(p);
	}
	s = &p->stacks[id];
	s->weight += weight;
	s->count += count;
	s->period += period;
	p->total_weight += weight;
	p->total_count += count;
	p->total_period += period;
	if (task != PROFILE_NO_TASK && task < p->nr_tasks) {
		p->tasks[task].weight += weight;
		p->tasks[task].count += count;
	}
	return id;
}

/* ---- totals, pruning ------------------------------------------ */

void profile_frame_totals(const struct profile *p, uint32_t task,
			  uint64_t *self, uint64_t *total)
{
	profile_frame_totals_by(p, task, NULL, self, total);
}

void profile_frame_totals_by(const struct profile *p, uint32_t task,
			     const uint32_t *map, uint64_t *self,
			     uint64_t *total)
{
	uint32_t *seen = xcalloc(p->nr_frames ? p->nr_frames : 1,
				 sizeof(*seen));
	uint32_t mark = 0;
	size_t i, j;

	memset(self, 0, p->nr_frames * sizeof(*self));
	memset(total, 0, p->nr_frames * sizeof(*total));
	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *s = &p->stacks[i];

		if (task != PROFILE_NO_TASK && s->task != task)
			continue;
		if (!s->depth)
			continue;
		if (++mark == 0) {
			memset(seen, 0, p->nr_frames * sizeof(*seen));
			mark = 1;
		}
		self[map ? map[s->frames[s->depth - 1]]
			 : s->frames[s->depth - 1]] += s->weight;
		for (j = 0; j < s->depth; j++) {
			uint32_t f = map ? map[s->frames[j]] : s->frames[j];

			if (seen[f] != mark) {
				seen[f] = mark;
				total[f] += s->weight;
			}
		}
	}
	free(seen);
}

/* qsort's order for profile_function_map(): function, then id */
static const struct profile *fmap_p;

static int str_cmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int by_function(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct frame *f = &fmap_p->frames[x], *g = &fmap_p->frames[y];
	int c = str_cmp0(f->func, g->func);

	if (!c)
		c = str_cmp0(f->file, g->file);
	if (!c)
		c = (x > y) - (x < y);
	return c;
}

uint32_t *profile_function_map(const struct profile *p)
{
	size_t n = p->nr_frames, nr_py = 0, i;
	uint32_t *map = xmalloc((n ? n : 1) * sizeof(*map));
	uint32_t *py = xmalloc((n ? n : 1) * sizeof(*py));

	for (i = 0; i < n; i++) {
		map[i] = (uint32_t)i;
		/* named Python frames only: pseudo frames stay apart */
		if (p->frames[i].kind == FRAME_PYTHON && p->frames[i].func &&
		    p->frames[i].file && p->frames[i].file[0])
			py[nr_py++] = (uint32_t)i;
	}
	fmap_p = p;
	qsort(py, nr_py, sizeof(*py), by_function);
	for (i = 1; i < nr_py; i++) {
		const struct frame *f = &p->frames[py[i]];
		const struct frame *g = &p->frames[py[i - 1]];

		if (!str_cmp0(f->func, g->func) && !str_cmp0(f->file, g->file))
			map[py[i]] = map[py[i - 1]];
	}
	free(py);
	return map;
}

void profile_prune(struct profile *p, double min_share)
{
	struct calltree t;
	struct profile q;
	uint32_t *buf = NULL, *remap = NULL, id;
	size_t alloc = 0, i, j;
	uint64_t limit;
	uint32_t small;

	if (min_share <= 0 || !p->total_weight)
		return;
	limit = (uint64_t)(min_share * (double)p->total_weight);
	if (!limit)
		return;
	/*
	 * Per task trees would be exact for grouped profiles; the merged
	 * tree is what a flame graph of the whole shows, so use it.
	 */
	calltree_init(&t, 1, CALLTREE_BY_ID);
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	profile_init(&q);
	q.view = p->view;
	q.group = p->group;
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];

		profile_frame_intern_line(&q, f->kind, f->native, f->name,
					  f->func, f->file, f->dso, f->line);
	}
	small = profile_frame_intern(&q, FRAME_UNKNOWN, NATIVE_NONE,
				     "[small frames]", NULL, NULL, NULL);
	if (p->nr_spans)
		remap = xmalloc(p->nr_stacks * sizeof(*remap));
	for (i = 0; i < p->nr_tasks; i++) {
		const struct task *tk = &p->tasks[i];

		profile_task_intern(&q, tk->pid, tk->tid, tk->comm);
	}
	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *s = &p->stacks[i];
		uint32_t node = 0, d = 0;

		ALLOC_GROW(buf, s->depth + 1, alloc);
		for (j = 0; j < s->depth; j++) {
			uint32_t c;

			/* find the child of node with this frame */
			for (c = t.nodes[node].first_child;
			     c != CALLTREE_NONE; c = t.nodes[c].next_sibling)
				if (t.nodes[c].frame == s->frames[j])
					break;
			if (c == CALLTREE_NONE || t.nodes[c].total[0] < limit) {
				buf[d++] = small;
				break;
			}
			buf[d++] = s->frames[j];
			node = c;
		}
		id = profile_stack_add_n(&q, buf, d, s->task, s->weight,
					 s->count, s->period);
		/* the spans follow their stacks into the pruned ones */
		if (remap)
			remap[i] = id;
	}
	free(buf);
	for (i = 0; remap && i < p->nr_spans; i++)
		p->spans[i].stack = remap[p->spans[i].stack];
	free(remap);
	calltree_release(&t);
	/* move q's frames/stacks/tasks into p, keep p's metadata */
	{
		struct profile keep = *p;

		keep.frames = q.frames;
		keep.nr_frames = q.nr_frames;
		keep.stacks = q.stacks;
		keep.nr_stacks = q.nr_stacks;
		keep.tasks = q.tasks;
		keep.nr_tasks = q.nr_tasks;
		keep.priv = q.priv;
		q.frames = p->frames;
		q.nr_frames = p->nr_frames;
		q.stacks = p->stacks;
		q.nr_stacks = p->nr_stacks;
		q.tasks = p->tasks;
		q.nr_tasks = p->nr_tasks;
		q.priv = p->priv;
		q.threads = NULL;
		q.nr_threads = 0;
		q.meta = NULL;
		q.nr_meta = 0;
		q.session = NULL;
		*p = keep;
		/* task weights were recomputed by stack_add */
		profile_release(&q);
	}
}

int profile_reader_parse(const char *s, enum profile_reader *r)
{
	if (!s)
		return -1;
	if (!strcmp(s, "native"))
		*r = PROFILE_READER_NATIVE;
	else if (!strcmp(s, "perf-script"))
		*r = PROFILE_READER_PERF_SCRIPT;
	else if (!strcmp(s, "recorded"))
		*r = PROFILE_READER_RECORDED;
	else
		return -1;
	return 0;
}
