/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The merged call tree of the flame-graph
 * writers, and small escaping helpers they share.
 */
#include "compat.h"
#include "report/flame.h"
#include "utf8.h"
#include "alloc.h"
#include "strbuf.h"

/* --- hash tables ------------------------------------------------------- */

struct node_slot {
	uint64_t key;		/* parent << 32 | frame; 0 = empty */
	uint32_t node;
};

struct flame_priv {
	uint32_t *fhash;	/* frame ids + 1, 0 = empty */
	size_t fcap;
	struct node_slot *nhash;
	size_t ncap;
};

static uint64_t hash_str(const char *s, uint64_t h)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t frame_hash(enum flame_kind kind, const char *name)
{
	return hash_str(name, 1469598103934665603ULL ^ (uint64_t)kind);
}

static void frames_rehash(struct flame_tree *t)
{
	struct flame_priv *pv = t->priv;
	size_t i, cap = pv->fcap ? pv->fcap * 2 : 1024;

	free(pv->fhash);
	pv->fhash = xcalloc(cap, sizeof(*pv->fhash));
	pv->fcap = cap;
	for (i = 0; i < t->nr_frames; i++) {
		size_t h = frame_hash(t->frames[i].kind, t->frames[i].name) &
			(cap - 1);

		while (pv->fhash[h])
			h = (h + 1) & (cap - 1);
		pv->fhash[h] = (uint32_t)i + 1;
	}
}

static uint32_t frame_get(struct flame_tree *t, enum flame_kind kind,
			  const char *name, const char *file,
			  const char *dso)
{
	struct flame_priv *pv = t->priv;
	size_t h;
	struct flame_frame *f;

	if ((t->nr_frames + 1) * 2 > pv->fcap)
		frames_rehash(t);
	h = frame_hash(kind, name) & (pv->fcap - 1);
	while (pv->fhash[h]) {
		f = &t->frames[pv->fhash[h] - 1];
		if (f->kind == kind && !strcmp(f->name, name))
			return pv->fhash[h] - 1;
		h = (h + 1) & (pv->fcap - 1);
	}
	ALLOC_GROW(t->frames, t->nr_frames + 1, t->alloc_frames);
	f = &t->frames[t->nr_frames];
	f->name = xstrdup(name);
	f->file = file;
	f->dso = dso;
	f->kind = kind;
	pv->fhash[h] = (uint32_t)++t->nr_frames;
	return (uint32_t)t->nr_frames - 1;
}

static uint32_t node_child(struct flame_tree *t, uint32_t parent,
			   uint32_t frame)
{
	struct flame_priv *pv = t->priv;
	/* parent + 1: the key of the root's children must not be 0 */
	uint64_t key = (uint64_t)(parent + 1) << 32 | frame;
	struct flame_node *n;
	size_t h;

	if ((t->nr_nodes + 1) * 2 > pv->ncap) {
		/* rehash stores parent + 1 too */
		size_t i, cap = pv->ncap ? pv->ncap * 2 : 4096;

		free(pv->nhash);
		pv->nhash = xcalloc(cap, sizeof(*pv->nhash));
		pv->ncap = cap;
		for (i = 1; i < t->nr_nodes; i++) {
			uint64_t k = (uint64_t)(t->nodes[i].parent + 1) << 32 |
				t->nodes[i].frame;

			h = mix64(k) & (cap - 1);
			while (pv->nhash[h].key)
				h = (h + 1) & (cap - 1);
			pv->nhash[h].key = k;
			pv->nhash[h].node = (uint32_t)i;
		}
	}
	h = mix64(key) & (pv->ncap - 1);
	while (pv->nhash[h].key) {
		if (pv->nhash[h].key == key)
			return pv->nhash[h].node;
		h = (h + 1) & (pv->ncap - 1);
	}
	ALLOC_GROW(t->nodes, t->nr_nodes + 1, t->alloc_nodes);
	n = &t->nodes[t->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->frame = frame;
	n->parent = parent;
	n->first_child = FLAME_NONE;
	n->next_sibling = FLAME_NONE;
	n->depth = t->nodes[parent].depth + 1;
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	pv->nhash[h].key = key;
	pv->nhash[h].node = (uint32_t)t->nr_nodes;
	return (uint32_t)t->nr_nodes++;
}

/* --- kinds ------------------------------------------------------------- */

enum flame_kind flame_kind_of(const struct frame *f)
{
	switch (f->kind) {
	case FRAME_PYTHON:
		return FLAME_PYTHON;
	case FRAME_KERNEL:
		return FLAME_KERNEL;
	case FRAME_PLUMBING:
		return FLAME_PLUMBING;
	case FRAME_NATIVE:
		switch (f->native) {
		case NATIVE_LIBPYTHON:
			return FLAME_LIBPYTHON;
		case NATIVE_EXTENSION:
			return FLAME_EXTENSION;
		case NATIVE_SYSTEM:
			return FLAME_SYSTEM;
		default:
			return FLAME_NATIVE_OTHER;
		}
	default:
		return FLAME_UNKNOWN;
	}
}

const char *flame_kind_name(enum flame_kind k)
{
	static const char *const names[FLAME_KIND_NR] = {
		"Python", "libpython", "C extension", "system library",
		"native", "kernel", "interpreter plumbing", "unknown",
		"process/thread"
	};

	return (unsigned)k < FLAME_KIND_NR ? names[k] : "unknown";
}

/* --- the tree ---------------------------------------------------------- */

void flame_tree_init(struct flame_tree *t, int nr_slots)
{
	memset(t, 0, sizeof(*t));
	t->nr_slots = nr_slots;
	t->priv = xcalloc(1, sizeof(struct flame_priv));
	ALLOC_GROW(t->nodes, 1, t->alloc_nodes);
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nodes[0].frame = FLAME_NONE;
	t->nodes[0].parent = FLAME_NONE;
	t->nodes[0].first_child = FLAME_NONE;
	t->nodes[0].next_sibling = FLAME_NONE;
	t->nr_nodes = 1;
}

/*
 * The frame of a process or thread: "comm-PID" or "comm-PID/TID", the
 * root frame --format collapsed writes for grouped profiles.
 */
static char *task_name(const struct profile *p, const struct task *tk)
{
	char *s, *c;

	if (p->group == PROFILE_BY_THREAD)
		s = xasprintf("%s-%ld/%ld", tk->comm ? tk->comm : "?",
			      (long)tk->pid, (long)tk->tid);
	else
		s = xasprintf("%s-%ld", tk->comm ? tk->comm : "?",
			      (long)tk->pid);
	for (c = s; *c; c++)
		if (*c == ';' || *c == ' ' || *c == '\n' || *c == '\r')
			*c = '_';
	return s;
}

void flame_tree_add(struct flame_tree *t, const struct profile *p,
		    int slot)
{
	uint32_t *fmap = xmalloc((p->nr_frames + 1) * sizeof(*fmap));
	uint32_t *tmap = xmalloc((p->nr_tasks + 1) * sizeof(*tmap));
	size_t i, d;

	for (i = 0; i < p->nr_frames; i++)
		fmap[i] = FLAME_NONE;
	for (i = 0; i < p->nr_tasks; i++)
		tmap[i] = FLAME_NONE;
	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *st = &p->stacks[i];
		uint32_t n = 0;

		if (p->group != PROFILE_MERGED && st->task < p->nr_tasks) {
			if (tmap[st->task] == FLAME_NONE) {
				char *nm = task_name(p, &p->tasks[st->task]);

				tmap[st->task] = frame_get(t, FLAME_TASK, nm,
							   NULL, NULL);
				free(nm);
			}
			n = node_child(t, n, tmap[st->task]);
		}
		for (d = 0; d < st->depth; d++) {
			uint32_t id = st->frames[t->inverted ?
						 st->depth - 1 - d : d];
			const struct frame *f;

			if (id >= p->nr_frames)
				continue;
			if (fmap[id] == FLAME_NONE) {
				f = &p->frames[id];
				fmap[id] = frame_get(t, flame_kind_of(f),
						     f->name ? f->name : "?",
						     f->file, f->dso);
			}
			n = node_child(t, n, fmap[id]);
		}
		t->nodes[n].self[slot] += st->samples;
	}
	free(fmap);
	free(tmap);
}

static int cmp_nodes(const void *a, const void *b, void *data)
{
	const struct flame_tree *t = data;
	const struct flame_node *x = &t->nodes[*(const uint32_t *)a];
	const struct flame_node *y = &t->nodes[*(const uint32_t *)b];
	const struct flame_frame *fx = &t->frames[x->frame];
	const struct flame_frame *fy = &t->frames[y->frame];
	int c = strcmp(fx->name, fy->name);

	if (c)
		return c;
	return (int)fx->kind - (int)fy->kind;
}

void flame_tree_finish(struct flame_tree *t)
{
	size_t n = t->nr_nodes, i;
	uint32_t *start = xcalloc(n + 1, sizeof(*start));
	uint32_t *fill = xmalloc((n + 1) * sizeof(*fill));
	uint32_t *kids = xmalloc((n ? n : 1) * sizeof(*kids));
	int s;

	for (i = 1; i < n; i++)
		start[t->nodes[i].parent + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	memcpy(fill, start, (n + 1) * sizeof(*fill));
	for (i = 1; i < n; i++)
		kids[fill[t->nodes[i].parent]++] = (uint32_t)i;
	for (i = 0; i < n; i++) {
		uint32_t a = start[i], b = start[i + 1], k;

		if (a == b)
			continue;
		qsort_r(kids + a, b - a, sizeof(*kids), cmp_nodes, t);
		t->nodes[i].first_child = kids[a];
		for (k = a; k + 1 < b; k++)
			t->nodes[kids[k]].next_sibling = kids[k + 1];
		t->nodes[kids[b - 1]].next_sibling = FLAME_NONE;
	}
	/* children were created after their parents */
	for (i = n; i-- > 0;) {
		struct flame_node *nd = &t->nodes[i];

		for (s = 0; s < FLAME_SLOTS; s++) {
			nd->total[s] += nd->self[s];
			if (i)
				t->nodes[nd->parent].total[s] += nd->total[s];
		}
	}
	free(start);
	free(fill);
	free(kids);
}

void flame_tree_release(struct flame_tree *t)
{
	struct flame_priv *pv = t->priv;
	size_t i;

	for (i = 0; i < t->nr_frames; i++)
		free(t->frames[i].name);
	free(t->frames);
	free(t->nodes);
	if (pv) {
		free(pv->fhash);
		free(pv->nhash);
		free(pv);
	}
	memset(t, 0, sizeof(*t));
}

uint32_t flame_tree_next(const struct flame_tree *t, uint32_t n)
{
	if (t->nodes[n].first_child != FLAME_NONE)
		return t->nodes[n].first_child;
	while (n != FLAME_NONE) {
		if (t->nodes[n].next_sibling != FLAME_NONE)
			return t->nodes[n].next_sibling;
		n = t->nodes[n].parent;
	}
	return FLAME_NONE;
}

/* --- escaping ---------------------------------------------------------- */

void flame_json_str(FILE *fp, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, l;

	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', fp);
			fputc(c, fp);
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&' ||
			   c == '\'') {
			fprintf(fp, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, fp);
		} else {
			l = utf8_seq_len(s + i, n - i);
			if (!l) {
				fputs("\\ufffd", fp);
			} else {
				fwrite(s + i, 1, l, fp);
				i += l;
				continue;
			}
		}
		i++;
	}
}

void flame_xml_str(FILE *fp, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, l;

	while (i < n) {
		unsigned char c = s[i];

		switch (c) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&#39;", fp);
			break;
		default:
			if (c < 0x20) {
				/* not allowed in XML 1.0, except TAB/LF/CR */
				fputc(c == '\t' || c == '\n' ? ' ' : '?', fp);
			} else if (c < 0x80) {
				fputc(c, fp);
			} else {
				l = utf8_seq_len(s + i, n - i);
				if (!l) {
					fputs("\xef\xbf\xbd", fp);
				} else {
					fwrite(s + i, 1, l, fp);
					i += l;
					continue;
				}
			}
		}
		i++;
	}
}

/* --- header ------------------------------------------------------------ */

static void fmt_duration(struct strbuf *sb, double secs)
{
	if (secs < 1.0)
		strbuf_addf(sb, "%.0f ms", secs * 1000.0);
	else if (secs < 120.0)
		strbuf_addf(sb, "%.2f s", secs);
	else
		strbuf_addf(sb, "%lu min %.0f s", (unsigned long)(secs / 60),
			    secs - 60.0 * (unsigned long)(secs / 60));
}

size_t flame_meta_lines(const struct profile *p, const char **labels,
			char **vals, size_t max)
{
	static const char *const views[] = {
		"mixed (Python + native + kernel)", "Python only",
		"all frames"
	};
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;
	double dur = p->duration;

#define ADD(l, v) do { if (n < max) { labels[n] = (l); \
	vals[n++] = (v); } else { free(v); } } while (0)

	if (p->command)
		ADD("command", xstrdup(p->command));
	if (p->mode)
		ADD("mode", xasprintf("%s", p->mode));
	if ((unsigned)p->view < ARRAY_SIZE(views))
		ADD("view", xstrdup(views[p->view]));
	if (p->python_version || p->python)
		ADD("interpreter", xasprintf("%s%s%s%s%s",
			p->python_version ? "Python " : "",
			p->python_version ? p->python_version : "",
			p->python_version && p->python ? " (" : "",
			p->python ? p->python : "",
			p->python_version && p->python ? ")" : ""));
	if (dur < 0 && p->last_time > p->first_time)
		dur = p->last_time - p->first_time;
	if (dur >= 0) {
		fmt_duration(&sb, dur);
		ADD("duration", strbuf_detach(&sb, NULL));
	}
	ADD("samples", xasprintf("%llu",
		(unsigned long long)p->total_samples));
	if (p->dropped)
		ADD("filtered out", xasprintf("%llu samples",
			(unsigned long long)p->dropped));
	if (p->event) {
		if (p->frequency)
			ADD("event", xasprintf("%s @ %lu Hz", p->event,
					       p->frequency));
		else
			ADD("event", xstrdup(p->event));
	}
	if (p->nr_tasks) {
		size_t i, j, procs = 0;

		for (i = 0; i < p->nr_tasks; i++) {
			for (j = 0; j < i; j++)
				if (p->tasks[j].pid == p->tasks[i].pid)
					break;
			procs += j == i;
		}
		ADD("processes / threads", xasprintf("%zu / %zu", procs,
						     p->nr_tasks));
	}
	if (p->perf_version)
		ADD("perf", xstrdup(p->perf_version));
#undef ADD
	strbuf_release(&sb);
	return n;
}

size_t flame_warnings(const struct profile *p, const struct profile *old_p,
		      char ***out)
{
	char **w, **ow;
	size_t n = fmt_warnings(p, &w), on, i;

	if (!old_p) {
		*out = w;
		return n;
	}
	on = fmt_warnings(old_p, &ow);
	w = xrealloc(w, (n + on + 1) * sizeof(*w));
	for (i = 0; i < on; i++) {
		w[n++] = xasprintf("old session: %s", ow[i]);
		free(ow[i]);
	}
	free(ow);
	*out = w;
	return n;
}
