/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_FLAME_H
#define PPR_FLAME_H
/*
 *
 * The merged call tree the flame-graph writers (html, svg, the diff)
 * draw from.  Unlike profile_tree_build() it can hold one or two
 * profiles at once (slot 0 and slot 1, for the differential graph), so
 * frames are identified by what a reader sees (kind and name), not by a
 * profile's frame ids, and per-task stacks get a "process / thread"
 * frame at depth 1 when the profile is grouped.
 *
 *   struct flame_tree t;
 *   flame_tree_init(&t, 1);
 *   flame_tree_add(&t, p, 0);
 *   flame_tree_finish(&t);
 *   ... t.nodes[0] is the root, children sorted by name ...
 *   flame_tree_release(&t);
 */
#include "compat.h"
#include "report/profile.h"
#include "report/fmt.h"

/*
 * What a flame frame is, finer than enum frame_kind (the colours tell
 * these apart).  The numbers are part of the HTML page's data format.
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
	FLAME_KIND_NR
};

/* The flame kind of a profile frame. */
enum flame_kind flame_kind_of(const struct frame *f);
/* "Python", "libpython", ...: a short English name of k. */
const char *flame_kind_name(enum flame_kind k);

struct flame_frame {
	char *name;		/* display name (owned) */
	const char *file;	/* borrowed from the first profile that had
				   it (python: source file), or NULL */
	const char *dso;	/* borrowed likewise (native/kernel), or NULL */
	enum flame_kind kind;
};

#define FLAME_NONE UINT32_MAX
#define FLAME_SLOTS 2

struct flame_node {
	uint32_t frame;		/* FLAME_NONE for the root */
	uint32_t parent;	/* FLAME_NONE for the root */
	uint32_t first_child;	/* FLAME_NONE when none */
	uint32_t next_sibling;	/* FLAME_NONE when last */
	uint32_t depth;		/* root 0 */
	uint64_t self[FLAME_SLOTS];	/* samples ending here */
	uint64_t total[FLAME_SLOTS];	/* samples in the subtree */
};

struct flame_tree {
	struct flame_frame *frames;
	size_t nr_frames, alloc_frames;
	struct flame_node *nodes;
	size_t nr_nodes, alloc_nodes;
	uint32_t max_depth;
	int nr_slots;		/* 1, or 2 for a diff */
	int inverted;		/* set before adding: stacks leaf first
				   (bottom-up / icicle) */
	void *priv;		/* hash tables */
};

/* An empty tree (just the root) for nr_slots (1 or 2) profiles. */
void flame_tree_init(struct flame_tree *t, int nr_slots);
/*
 * Add every stack of p to slot (0 or 1).  The tree borrows file and dso
 * strings from p: p must outlive t.
 */
void flame_tree_add(struct flame_tree *t, const struct profile *p,
		    int slot);
/* Sort siblings by name and compute totals; call once, after adding. */
void flame_tree_finish(struct flame_tree *t);
void flame_tree_release(struct flame_tree *t);

/*
 * Preorder walk: the node after n (children first, then siblings, then
 * the ancestors' siblings), or FLAME_NONE at the end.  Start at 0.
 */
uint32_t flame_tree_next(const struct flame_tree *t, uint32_t n);

/*
 * Write s as the body of a JSON string that is also safe inside an HTML
 * <script> element and an XML text/attribute ('<', '>', '&' and quotes
 * escaped as \uXXXX); invalid UTF-8 becomes U+FFFD.
 */
void flame_json_str(FILE *fp, const char *s);
/* Write s escaped for XML text and attribute values. */
void flame_xml_str(FILE *fp, const char *s, size_t len);

/*
 * The header lines of a flame graph (label, value pairs: command, mode,
 * interpreter, duration, samples, ...).  Fills at most max pairs of
 * caller-provided storage; values are xasprintf'd into vals (caller
 * frees each).  Returns the number of pairs.
 */
size_t flame_meta_lines(const struct profile *p, const char **labels,
			char **vals, size_t max);

/*
 * The warnings a flame graph shows (fmt_warnings()): p's, then, for a
 * diff, old_p's as "old session: ...".  Free with fmt_warnings_free().
 */
size_t flame_warnings(const struct profile *p, const struct profile *old_p,
		      char ***out);

/*
 * The HTML flame graph page of t on fp (fmt_html.c).  p gives the header
 * (command, mode, ...).  old_p: NULL, or the old profile of a diff, whose
 * samples are in slot 1 of t (the new ones in slot 0).  Returns 0 or -1
 * with err filled.
 */
int flame_html_page(const struct flame_tree *t, const struct profile *p,
		    const struct profile *old_p, const struct fmt_opts *o,
		    FILE *fp, char *err, size_t errlen);

/* The SVG flame graph of t on fp (fmt_svg.c); old_p as above. */
int flame_svg_page(const struct flame_tree *t, const struct profile *p,
		   const struct profile *old_p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen);

#endif
