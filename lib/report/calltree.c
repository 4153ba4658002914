/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The call tree (calltree.h): frames, nodes and their hash tables.
 */
#include "compat.h"
#include "report/calltree.h"
#include "alloc.h"
#include "hmap.h"

/* --- hash tables ------------------------------------------------------- */

struct node_slot {
	uint64_t key;		/* parent << 32 | frame; 0 = empty */
	uint32_t node;
};

struct calltree_priv {
	uint32_t *fhash;	/* frame ids + 1, 0 = empty */
	size_t fcap;
	struct node_slot *nhash;
	size_t ncap;
};

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

static void frames_rehash(struct calltree *t)
{
	struct calltree_priv *pv = t->priv;
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

static uint32_t frame_append(struct calltree *t, enum flame_kind kind,
			     const char *name, const char *file,
			     const char *dso)
{
	struct calltree_frame *f;

	ALLOC_GROW(t->frames, t->nr_frames + 1, t->alloc_frames);
	f = &t->frames[t->nr_frames];
	f->name = xstrdup(name);
	f->file = file;
	f->dso = dso;
	f->kind = kind;
	return (uint32_t)t->nr_frames++;
}

static uint32_t frame_get(struct calltree *t, enum flame_kind kind,
			  const char *name, const char *file,
			  const char *dso)
{
	struct calltree_priv *pv = t->priv;
	size_t h;
	uint32_t id;

	if ((t->nr_frames + 1) * 2 > pv->fcap)
		frames_rehash(t);
	h = frame_hash(kind, name) & (pv->fcap - 1);
	while (pv->fhash[h]) {
		const struct calltree_frame *f = &t->frames[pv->fhash[h] - 1];

		if (f->kind == kind && !strcmp(f->name, name))
			return pv->fhash[h] - 1;
		h = (h + 1) & (pv->fcap - 1);
	}
	id = frame_append(t, kind, name, file, dso);
	pv->fhash[h] = id + 1;
	return id;
}

static uint32_t node_child(struct calltree *t, uint32_t parent,
			   uint32_t frame)
{
	struct calltree_priv *pv = t->priv;
	/* parent + 1: the key of the root's children must not be 0 */
	uint64_t key = (uint64_t)(parent + 1) << 32 | frame;
	struct calltree_node *n;
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
	n->first_child = CALLTREE_NONE;
	n->next_sibling = CALLTREE_NONE;
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
		/* the wall clock's wait leaves, interned by the aggregate stage */
		if (f->name && !strncmp(f->name, "[off-cpu ", 9))
			return FLAME_OFFCPU;
		return FLAME_UNKNOWN;
	}
}

/* --- the tree ---------------------------------------------------------- */

void calltree_init(struct calltree *t, int nr_slots, unsigned flags)
{
	memset(t, 0, sizeof(*t));
	t->nr_slots = nr_slots;
	t->flags = flags;
	t->priv = xcalloc(1, sizeof(struct calltree_priv));
	ALLOC_GROW(t->nodes, 1, t->alloc_nodes);
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nodes[0].frame = CALLTREE_NONE;
	t->nodes[0].parent = CALLTREE_NONE;
	t->nodes[0].first_child = CALLTREE_NONE;
	t->nodes[0].next_sibling = CALLTREE_NONE;
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

void calltree_add(struct calltree *t, const struct profile *p, int slot)
{
	int inverted = !!(t->flags & CALLTREE_INVERTED);
	int tasks = (t->flags & CALLTREE_TASKS) && p->group != PROFILE_MERGED;
	uint32_t *fmap = xmalloc((p->nr_frames + 1) * sizeof(*fmap));
	uint32_t *tmap = xmalloc((p->nr_tasks + 1) * sizeof(*tmap));
	size_t i, d;

	/*
	 * By id, tree frame i is profile frame i: frames with the same
	 * kind and name stay apart (the first profile added only).
	 */
	if ((t->flags & CALLTREE_BY_ID) && !t->nr_frames) {
		for (i = 0; i < p->nr_frames; i++) {
			const struct frame *f = &p->frames[i];

			fmap[i] = frame_append(t, flame_kind_of(f),
					       f->name ? f->name : "?",
					       f->file, f->dso);
		}
	} else {
		for (i = 0; i < p->nr_frames; i++)
			fmap[i] = CALLTREE_NONE;
	}
	for (i = 0; i < p->nr_tasks; i++)
		tmap[i] = CALLTREE_NONE;
	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *st = &p->stacks[i];
		uint32_t n = 0;

		if (tasks && st->task < p->nr_tasks) {
			if (tmap[st->task] == CALLTREE_NONE) {
				char *nm = task_name(p, &p->tasks[st->task]);

				tmap[st->task] = frame_get(t, FLAME_TASK, nm,
							   NULL, NULL);
				free(nm);
			}
			n = node_child(t, n, tmap[st->task]);
		}
		for (d = 0; d < st->depth; d++) {
			uint32_t id = st->frames[inverted ?
						 st->depth - 1 - d : d];
			const struct frame *f;

			if (id >= p->nr_frames)
				continue;
			if (fmap[id] == CALLTREE_NONE) {
				f = &p->frames[id];
				fmap[id] = frame_get(t, flame_kind_of(f),
						     f->name ? f->name : "?",
						     f->file, f->dso);
			}
			n = node_child(t, n, fmap[id]);
		}
		t->nodes[n].self[slot] += st->weight;
		if (t->stack_leaf && !slot)
			t->stack_leaf[i] = n;
	}
	free(fmap);
	free(tmap);
}

static int cmp_nodes(const void *a, const void *b, void *data)
{
	const struct calltree *t = data;
	const struct calltree_node *x = &t->nodes[*(const uint32_t *)a];
	const struct calltree_node *y = &t->nodes[*(const uint32_t *)b];
	const struct calltree_frame *fx = &t->frames[x->frame];
	const struct calltree_frame *fy = &t->frames[y->frame];
	int c = strcmp(fx->name, fy->name);

	if (c)
		return c;
	if (fx->kind != fy->kind)
		return (int)fx->kind - (int)fy->kind;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

void calltree_finish(struct calltree *t)
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
		t->nodes[kids[b - 1]].next_sibling = CALLTREE_NONE;
	}
	/* children were created after their parents */
	for (i = n; i-- > 0;) {
		struct calltree_node *nd = &t->nodes[i];

		for (s = 0; s < CALLTREE_SLOTS; s++) {
			nd->total[s] += nd->self[s];
			if (i)
				t->nodes[nd->parent].total[s] += nd->total[s];
		}
	}
	free(start);
	free(fill);
	free(kids);
}

void calltree_release(struct calltree *t)
{
	struct calltree_priv *pv = t->priv;
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

uint32_t calltree_next(const struct calltree *t, uint32_t n)
{
	if (t->nodes[n].first_child != CALLTREE_NONE)
		return t->nodes[n].first_child;
	while (n != CALLTREE_NONE) {
		if (t->nodes[n].next_sibling != CALLTREE_NONE)
			return t->nodes[n].next_sibling;
		n = t->nodes[n].parent;
	}
	return CALLTREE_NONE;
}

