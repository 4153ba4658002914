/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_CALLTREE_H
#define PPR_CALLTREE_H
/*
 * The call tree (a trie of a profile's stacks) every tree-shaped view
 * draws from: the text call tree, the flame graphs (html, svg), the
 * diff, and profile_prune().
 *
 * A tree holds one or two profiles at once (slot 0 and slot 1: the new
 * and the old session of a diff), so it keeps its own frame table: by
 * default a frame is what a reader sees (its kind and name), and the
 * frames of two profiles with the same kind and name are one node.
 * CALLTREE_BY_ID instead keys frames by one profile's frame ids (tree
 * frame i is profile frame i): two frames with the same name stay
 * apart, as the text tree and pruning need.
 *
 *   struct calltree t;
 *   calltree_init(&t, 1, CALLTREE_TASKS);
 *   calltree_add(&t, p, 0);
 *   calltree_finish(&t);
 *   ... t.nodes[0] is the root, children sorted by name ...
 *   calltree_release(&t);
 */
#include "compat.h"
#include "report/profile.h"

/*
 * What a tree frame is, finer than enum frame_kind (the flame graphs'
 * colours tell these apart).  The numbers are part of the HTML page's
 * data format.
 */
enum flame_kind {
	FLAME_PYTHON = 0,
	FLAME_LIBPYTHON,
	FLAME_EXTENSION,
	FLAME_SYSTEM,
	FLAME_NATIVE_OTHER,
	FLAME_KERNEL,
	FLAME_PLUMBING,
	FLAME_UNKNOWN,
	FLAME_TASK,
	FLAME_OFFCPU,	/* an off-CPU interval's "[off-cpu REASON]" leaf:
			   time waiting, not code */
	FLAME_KIND_NR
};

/* The flame kind of a profile frame. */
enum flame_kind flame_kind_of(const struct frame *f);

struct calltree_frame {
	char *name;		/* display name (owned) */
	const char *file;	/* borrowed from the first profile that had
				   it (python: source file), or NULL */
	const char *dso;	/* borrowed likewise (native/kernel), or NULL */
	enum flame_kind kind;
};

#define CALLTREE_NONE UINT32_MAX
#define CALLTREE_SLOTS 2

struct calltree_node {
	uint32_t frame;		/* CALLTREE_NONE for the root */
	uint32_t parent;	/* CALLTREE_NONE for the root */
	uint32_t first_child;	/* CALLTREE_NONE when none */
	uint32_t next_sibling;	/* CALLTREE_NONE when last */
	uint32_t depth;		/* root 0 */
	/* weights, in the unit of the slot's profile */
	uint64_t self[CALLTREE_SLOTS];	/* of the stacks ending here */
	uint64_t total[CALLTREE_SLOTS];	/* of those in the subtree */
};

enum calltree_flags {
	CALLTREE_INVERTED = 1 << 0,	/* stacks leaf first (bottom-up,
					   icicle) */
	CALLTREE_TASKS = 1 << 1,	/* grouped profiles: a "comm-PID" or
					   "comm-PID/TID" frame (FLAME_TASK)
					   at depth 1, above its stacks */
	CALLTREE_BY_ID = 1 << 2		/* frames are the profile's frame
					   ids (one profile only) */
};

struct calltree {
	struct calltree_frame *frames;
	size_t nr_frames, alloc_frames;
	struct calltree_node *nodes;
	size_t nr_nodes, alloc_nodes;
	uint32_t max_depth;
	int nr_slots;		/* 1, or 2 for a diff */
	unsigned flags;		/* enum calltree_flags */
	/*
	 * When the caller sets it (nr_stacks entries of the profile added
	 * to slot 0), calltree_add() stores the node each stack ends in.
	 */
	uint32_t *stack_leaf;
	void *priv;		/* hash tables */
};

/* An empty tree (just the root) for nr_slots (1 or 2) profiles. */
void calltree_init(struct calltree *t, int nr_slots, unsigned flags);
/*
 * Add every stack of p to slot (0 or 1): their weights, in p->unit (the
 * caller keeps the two slots in one unit).  The tree borrows file and
 * dso strings from p: p must outlive t.
 */
void calltree_add(struct calltree *t, const struct profile *p, int slot);
/*
 * Link siblings sorted by name (then kind, then frame id) and compute
 * totals; call once, after adding.
 */
void calltree_finish(struct calltree *t);
void calltree_release(struct calltree *t);

/*
 * Preorder walk: the node after n (children first, then siblings, then
 * the ancestors' siblings), or CALLTREE_NONE at the end.  Start at 0.
 */
uint32_t calltree_next(const struct calltree *t, uint32_t n);

#endif
