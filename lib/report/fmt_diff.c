/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `report --diff OLD NEW`: what got slower or faster.
 *   collapsed  FlameGraph's difffolded.pl lines, "stack old new" (root
 *              first, ';'-separated, the names of --format collapsed),
 *              for every stack seen in either session; flamegraph.pl
 *              and inferno-flamegraph draw them as a differential graph
 *   html       the interactive flame graph of NEW, each frame coloured
 *              by how its share of all samples changed from OLD: red
 *              grew, blue shrank (5 points or more: full colour); the
 *              tooltip gives both counts and the change
 *   svg        the same as a FlameGraph-style SVG
 * Both profiles must weigh their stacks in one unit (samples with
 * samples): weights of two units do not subtract.
 */
#include "compat.h"
#include "report/fmt.h"
#include "report/fmt_flame.h"
#include "alloc.h"
#include "strbuf.h"

static int diff_collapsed(const struct calltree *t, FILE *fp, char *err,
			  size_t errlen)
{
	struct strbuf path = STRBUF_INIT;
	size_t *len_at = xcalloc(t->max_depth + 2, sizeof(*len_at));
	uint32_t n;

	for (n = calltree_next(t, 0); n != CALLTREE_NONE;
	     n = calltree_next(t, n)) {
		const struct calltree_node *nd = &t->nodes[n];
		const struct calltree_frame *f = &t->frames[nd->frame];

		strbuf_setlen(&path, len_at[nd->depth - 1]);
		if (nd->depth > 1)
			strbuf_addch(&path, ';');
		strbuf_addstr(&path, f->name);
		if (f->kind == FLAME_KERNEL)
			strbuf_addstr(&path, "_[k]");
		len_at[nd->depth] = path.len;
		if (nd->self[0] || nd->self[1])
			fprintf(fp, "%s %llu %llu\n", path.buf,
				(unsigned long long)nd->self[1],
				(unsigned long long)nd->self[0]);
	}
	strbuf_release(&path);
	free(len_at);
	if (ferror(fp)) {
		set_err(err, errlen, "cannot write the diff: %s",
			strerror(errno));
		return -1;
	}
	return 0;
}

int fmt_diff_write(const struct profile *old_p, const struct profile *new_p,
		   const struct fmt_opts *o, FILE *fp, char *err,
		   size_t errlen)
{
	struct calltree t;
	int ret;

	if (o->format != FMT_COLLAPSED && o->format != FMT_HTML &&
	    o->format != FMT_SVG)
		return set_err(err, errlen, "--diff writes only the "
			       "collapsed, html and svg formats");
	if (old_p->unit != new_p->unit)
		return set_err(err, errlen, "cannot compare weights in %s "
			       "(the old profile) with weights in %s (the "
			       "new one)", weight_unit_info(old_p->unit)->name,
			       weight_unit_info(new_p->unit)->name);
	calltree_init(&t, 2, CALLTREE_TASKS |
		      (o->format != FMT_COLLAPSED && o->inverted ?
		       CALLTREE_INVERTED : 0));
	/* slot 0: what is drawn (NEW); slot 1: the baseline (OLD) */
	calltree_add(&t, new_p, 0);
	calltree_add(&t, old_p, 1);
	calltree_finish(&t);
	if (o->format == FMT_COLLAPSED)
		ret = diff_collapsed(&t, fp, err, errlen);
	else if (o->format == FMT_HTML)
		ret = flame_html_page(&t, new_p, old_p, o, fp, err, errlen);
	else
		ret = flame_svg_page(&t, new_p, old_p, o, fp, err, errlen);
	calltree_release(&t);
	return ret;
}
