/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_FLAME_H
#define PPR_FLAME_H
/*
 * What the flame-graph writers (html, svg, the diff) share: the names
 * of the frame kinds, the header lines and the warnings.  They draw
 * from a struct calltree (calltree.h).
 */
#include "compat.h"
#include "report/profile.h"
#include "report/calltree.h"
#include "report/fmt.h"

/* "Python", "libpython", ...: a short English name of k. */
const char *flame_kind_name(enum flame_kind k);

/*
 * The header lines of a flame graph (label, value pairs: command, mode,
 * interpreter, duration, the total weight labelled with the unit's name
 * ("samples"), ...).  Fills at most max pairs of
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
/* The notes likewise (fmt_notes()): shown apart, never as warnings. */
size_t flame_notes(const struct profile *p, const struct profile *old_p,
		   char ***out);

/*
 * The HTML flame graph page of t on fp (fmt_html.c).  p gives the header
 * (command, mode, ...).  old_p: NULL, or the old profile of a diff, whose
 * samples are in slot 1 of t (the new ones in slot 0).  Returns 0 or -1
 * with err filled.
 */
int flame_html_page(const struct calltree *t, const struct profile *p,
		    const struct profile *old_p, const struct fmt_opts *o,
		    FILE *fp, char *err, size_t errlen);

/* The SVG flame graph of t on fp (fmt_svg.c); old_p as above. */
int flame_svg_page(const struct calltree *t, const struct profile *p,
		   const struct profile *old_p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen);

#endif
