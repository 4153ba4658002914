/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format svg: a flame graph in the FlameGraph tradition: one <rect>
 * and <text> per frame, the root at the bottom (or an icicle with
 * --inverted), a title, and an embedded script (lib/report/flame/flame-svg.js)
 * for zoom by click, search (Ctrl+F, the "Search" label or ?s=REGEX)
 * and a details line.  Frames narrower than 0.1 pixel are left out (as
 * FlameGraph does) so that big profiles stay small.
 */
#include "compat.h"
#include "report/fmt.h"
#include "report/fmt_flame.h"
#include "report/flame_assets.h"
#include "xml.h"
#include "alloc.h"

#define SVG_WIDTH 1200
#define SVG_PAD 10
#define SVG_ROW 16
#define SVG_FONT 12
#define SVG_TOP (SVG_FONT * 4 + 16)
#define SVG_BOTTOM (SVG_FONT * 2 + 14)
#define SVG_MIN_WIDTH 0.1
#define SVG_WARN_ROW (SVG_FONT + 5)	/* a warning line under the title */

static const unsigned char palette[FLAME_KIND_NR][4] = {
	/* r, g, b, variation */
	{ 46, 139, 87, 25 },	/* python */
	{ 222, 184, 49, 14 },	/* libpython */
	{ 236, 132, 45, 16 },	/* extension */
	{ 196, 150, 110, 12 },	/* system */
	{ 214, 108, 72, 14 },	/* other native */
	{ 199, 70, 96, 14 },	/* kernel */
	{ 170, 170, 150, 8 },	/* plumbing */
	{ 160, 160, 160, 6 },	/* unknown */
	{ 120, 144, 176, 6 },	/* task */
	{ 74, 120, 194, 10 },	/* off-CPU wait */
};

static double name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return (double)(h % 1000) / 1000.0;
}

static int clamp255(double v)
{
	return v < 0 ? 0 : v > 255 ? 255 : (int)(v + 0.5);
}

static void frame_fill(FILE *fp, const struct calltree *t,
		       const struct calltree_node *nd, int diff)
{
	const struct calltree_frame *f = &t->frames[nd->frame];
	const unsigned char *c = palette[f->kind < FLAME_KIND_NR ? f->kind :
					 FLAME_UNKNOWN];
	double r;

	if (diff) {
		uint64_t t0 = t->nodes[0].total[0], t1 = t->nodes[0].total[1];
		double a = (double)nd->total[0] / (double)(t0 ? t0 : 1);
		double b = (double)nd->total[1] / (double)(t1 ? t1 : 1);
		double d = a - b, m = (d < 0 ? -d : d) / 0.05;
		int lo;

		if (m > 1)
			m = 1;
		lo = clamp255(245 - 160 * m);
		if (d < 0.0005 && d > -0.0005)
			fputs("rgb(236,236,236)", fp);
		else if (d > 0)
			fprintf(fp, "rgb(245,%d,%d)", lo, lo);
		else
			fprintf(fp, "rgb(%d,%d,245)", lo,
				clamp255(lo + 30 * m));
		return;
	}
	r = (name_hash(f->name) - 0.5) * 2 * c[3];
	fprintf(fp, "rgb(%d,%d,%d)", clamp255(c[0] + r), clamp255(c[1] + r),
		clamp255(c[2] + r));
}

/* The next node in preorder that is not inside n's subtree. */
static uint32_t skip_subtree(const struct calltree *t, uint32_t n)
{
	while (n != CALLTREE_NONE) {
		if (t->nodes[n].next_sibling != CALLTREE_NONE)
			return t->nodes[n].next_sibling;
		n = t->nodes[n].parent;
	}
	return CALLTREE_NONE;
}

static void share(FILE *fp, uint64_t a, uint64_t b)
{
	fprintf(fp, "%.2f%%", b ? 100.0 * (double)a / (double)b : 0.0);
}

static void label_text(FILE *fp, const char *name, double w)
{
	long max = (long)((w - 6) / (SVG_FONT * 0.6));
	size_t len = strlen(name);

	if (max < 4)
		return;
	if ((long)len <= max) {
		xml_escape(fp, name, len);
		return;
	}
	/* do not cut a UTF-8 sequence */
	len = (size_t)max - 2;
	while (len && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	xml_escape(fp, name, len);
	fputs("..", fp);
}

/*
 * A row of colour swatches for the kinds of frame present; in a diff,
 * for the colours of change, worded with unit (the weights' unit name).
 */
static void legend(FILE *fp, const struct calltree *t, int diff, int y,
		   const char *unit)
{
	/* "%s": the unit */
	static const char *const diff_items[][2] = {
		{ "rgb(230,80,70)", "more %s than in the old profile" },
		{ "rgb(80,120,230)", "fewer %s" },
		{ "rgb(236,236,236)", "about the same" },
	};
	int seen[FLAME_KIND_NR] = { 0 };
	double x = SVG_PAD;
	size_t i;

	fputs("<g id=\"legend\">", fp);
	if (diff) {
		for (i = 0; i < ARRAY_SIZE(diff_items); i++) {
			/* a time is less, samples are fewer */
			char *item = i == 1 && !strcmp(unit, "time") ?
				xstrdup("less time") :
				xasprintf(diff_items[i][1], unit);

			fprintf(fp, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" "
				"height=\"10\" fill=\"%s\"/><text x=\"%.0f\" "
				"y=\"%d\">%s</text>", x, y - 9,
				diff_items[i][0], x + 14, y, item);
			x += 14 + strlen(item) * SVG_FONT * 0.6 + 16;
			free(item);
		}
		fputs("</g>\n", fp);
		return;
	}
	for (i = 0; i < t->nr_frames; i++)
		if (t->frames[i].kind < FLAME_KIND_NR)
			seen[t->frames[i].kind] = 1;
	for (i = 0; i < FLAME_KIND_NR; i++) {
		const unsigned char *c = palette[i];
		const char *name = flame_kind_name((enum flame_kind)i);

		if (!seen[i])
			continue;
		fprintf(fp, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" "
			"height=\"10\" fill=\"rgb(%d,%d,%d)\"/>"
			"<text x=\"%.0f\" y=\"%d\">%s</text>",
			x, y - 9, c[0], c[1], c[2],
			x + 14, y, name);
		x += 14 + strlen(name) * SVG_FONT * 0.6 + 16;
	}
	fprintf(fp, "<rect x=\"%.0f\" y=\"%d\" width=\"10\" height=\"10\" "
		"fill=\"rgb(214,59,208)\"/><text x=\"%.0f\" y=\"%d\">"
		"search match</text></g>\n", x, y - 9, x + 14, y);
}

int flame_svg_page(const struct calltree *t, const struct profile *p,
		   const struct profile *old_p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen)
{
	uint64_t total = t->nodes[0].total[0];
	uint64_t *xs = xcalloc(t->nr_nodes, sizeof(*xs));
	double scale = (double)(SVG_WIDTH - 2 * SVG_PAD) /
		(double)(total ? total : 1);
	uint32_t levels = 0, n;
	int diff = old_p != NULL, inv = o && o->inverted;
	const char *title = o && o->title ? o->title : diff ?
		"Differential flame graph" : inv ? "Icicle graph (inverted)" :
		"Flame graph";
	int height, top;
	char **warn, wb[FMT_TIME_LEN];
	size_t i, nw = flame_warnings(p, old_p, &warn);
	char **notes;
	size_t nn = flame_notes(p, old_p, &notes);
	/* the warnings' lines, and one line for the notes */
	size_t rows = nw + (nn ? 1 : 0);
	/* nanoseconds are shown as a time (fmt_weight()): "time" */
	const char *unit = p->unit == UNIT_NS ? "time" :
			   weight_unit_info(p->unit)->name;
	const char *sep = p->unit == UNIT_NS ? "" : " ";

	/* sample offsets and the depth actually drawn */
	for (n = 0; n != CALLTREE_NONE;) {
		const struct calltree_node *nd = &t->nodes[n];
		uint64_t off = xs[n];
		uint32_t c;

		if (n && (double)nd->total[0] * scale < SVG_MIN_WIDTH) {
			n = skip_subtree(t, n);
			continue;
		}
		if (nd->depth + 1 > levels)
			levels = nd->depth + 1;
		for (c = nd->first_child; c != CALLTREE_NONE;
		     c = t->nodes[c].next_sibling) {
			xs[c] = off;
			off += t->nodes[c].total[0];
		}
		n = calltree_next(t, n);
	}
	top = SVG_TOP + (int)rows * SVG_WARN_ROW;
	height = top + (int)levels * SVG_ROW + SVG_BOTTOM;

	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
		"data-total=\"%llu\" data-width=\"%d\" data-pad=\"%d\" "
		"data-fontsize=\"%d\">\n",
		SVG_WIDTH, height, SVG_WIDTH, height,
		(unsigned long long)total, SVG_WIDTH - 2 * SVG_PAD, SVG_PAD,
		SVG_FONT);
	fputs("<!-- Generated by pyperf-run. -->\n", fp);
	fputs("<defs><linearGradient id=\"bg\" x1=\"0\" y1=\"0\" x2=\"0\" "
	      "y2=\"1\"><stop stop-color=\"#f8f8f4\" offset=\"5%\"/>"
	      "<stop stop-color=\"#ecece4\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n", fp);
	fprintf(fp, "<style type=\"text/css\">\n"
		"text { font-family: Verdana, \"DejaVu Sans\", sans-serif; "
		"font-size: %dpx; fill: #111; }\n"
		"#title { text-anchor: middle; font-size: %dpx; }\n"
		"#subtitle { text-anchor: middle; fill: #555; }\n"
		"#search, #unzoom { cursor: pointer; fill: #2b6cb0; }\n"
		"#matched { text-anchor: end; fill: #b0279f; }\n"
		"text.warning { fill: #9a3412; font-weight: bold; }\n"
		"text.notes { fill: #666; }\n"
		"g.f { cursor: pointer; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.6; }\n"
		"g.f text { pointer-events: none; }\n"
		"</style>\n", SVG_FONT, SVG_FONT + 5);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#bg)\"/>\n", SVG_WIDTH, height);
	fprintf(fp, "<text id=\"title\" x=\"%d\" y=\"%d\">", SVG_WIDTH / 2,
		SVG_FONT + 8);
	xml_escape(fp, title, strlen(title));
	fputs("</text>\n", fp);
	fprintf(fp, "<text id=\"subtitle\" x=\"%d\" y=\"%d\">", SVG_WIDTH / 2,
		2 * SVG_FONT + 12);
	{
		const char *labels[12];
		char *vals[12];
		size_t nm = flame_meta_lines(p, labels, vals,
					     ARRAY_SIZE(labels)), shown = 0;

		for (i = 0; i < nm; i++) {
			const char *v = vals[i];
			size_t len = strlen(v);

			if (!strcmp(labels[i], "interpreter") &&
			    p->python_version) {
				fputs(shown++ ? "  \xc2\xb7  Python " :
				      "Python ", fp);
				xml_escape(fp, p->python_version,
					      strlen(p->python_version));
			} else if (!strcmp(labels[i], "command") ||
				   !strcmp(labels[i], "mode") ||
				   !strcmp(labels[i], "duration") ||
				   !strcmp(labels[i], unit)) {
				fputs(shown++ ? "  \xc2\xb7  " : "", fp);
				xml_escape(fp, labels[i],
					      strlen(labels[i]));
				fputs(": ", fp);
				/* keep long commands on the line */
				if (len > 90) {
					xml_escape(fp, v, 40);
					fputs("\xe2\x80\xa6", fp);
					xml_escape(fp, v + len - 45, 45);
				} else {
					xml_escape(fp, v, len);
				}
			}
			free(vals[i]);
		}
		if (diff)
			fprintf(fp, "   (width: new %s; red: more, "
				"blue: fewer than in the old profile, "
				"%s%s%s)", unit,
				fmt_weight(p, t->nodes[0].total[1], wb,
					   sizeof(wb)), sep,
				p->unit == UNIT_NS ? "" : unit);
	}
	fputs("</text>\n", fp);
	/* what a reader must know to trust the graph, under the title */
	for (i = 0; i < nw; i++) {
		fprintf(fp, "<text class=\"warning\" x=\"%d\" y=\"%d\">"
			"\xe2\x9a\xa0 warning: ", SVG_PAD,
			3 * SVG_FONT + 14 + (int)i * SVG_WARN_ROW);
		xml_escape(fp, warn[i], strlen(warn[i]));
		fputs("</text>\n", fp);
	}
	fmt_warnings_free(warn, nw);
	/*
	 * The notes (what cannot change the answer): how many on a quiet
	 * line, each in its tooltip.
	 */
	if (nn) {
		fprintf(fp, "<text class=\"notes\" x=\"%d\" y=\"%d\">"
			"<title>", SVG_PAD,
			3 * SVG_FONT + 14 + (int)nw * SVG_WARN_ROW);
		for (i = 0; i < nn; i++) {
			fputs(i ? "\n" : "", fp);
			xml_escape(fp, notes[i], strlen(notes[i]));
		}
		fprintf(fp, "</title>%zu note%s (each under 1%% of the Python "
			"program's samples, or outside it; hover to read)"
			"</text>\n", nn, nn == 1 ? "" : "s");
	}
	fmt_warnings_free(notes, nn);
	legend(fp, t, diff, 3 * SVG_FONT + 14 + (int)rows * SVG_WARN_ROW,
	       unit);
	fprintf(fp, "<text id=\"unzoom\" x=\"%d\" y=\"%d\" "
		"style=\"display:none\">Reset Zoom</text>\n", SVG_PAD,
		SVG_FONT + 8);
	fprintf(fp, "<text id=\"search\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">Search</text>\n", SVG_WIDTH - SVG_PAD,
		SVG_FONT + 8);
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		SVG_PAD, height - SVG_FONT + 2);
	fprintf(fp, "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n",
		SVG_WIDTH - SVG_PAD, height - SVG_FONT + 2);

	fputs("<g id=\"frames\">\n", fp);
	for (n = 0; n != CALLTREE_NONE;) {
		const struct calltree_node *nd = &t->nodes[n];
		const char *name = n ? t->frames[nd->frame].name : "all";
		double x = SVG_PAD + (double)xs[n] * scale;
		double w = (double)nd->total[0] * scale;
		int y = inv ? top + (int)nd->depth * SVG_ROW :
			height - SVG_BOTTOM - ((int)nd->depth + 1) * SVG_ROW;

		if (n && w < SVG_MIN_WIDTH) {
			n = skip_subtree(t, n);
			continue;
		}
		fprintf(fp, "<g class=\"f\" data-x=\"%llu\" data-w=\"%llu\" "
			"data-d=\"%u\" data-n=\"",
			(unsigned long long)xs[n],
			(unsigned long long)nd->total[0], nd->depth);
		xml_escape(fp, name, strlen(name));
		fputs("\"><title>", fp);
		xml_escape(fp, name, strlen(name));
		if (n && t->frames[nd->frame].file) {
			const char *fl = t->frames[nd->frame].file;

			if (!strstr(name, fl)) {
				fputs(" in ", fp);
				xml_escape(fp, fl, strlen(fl));
			}
		}
		fprintf(fp, " (%s%s%s, ", fmt_weight(p, nd->total[0], wb,
							sizeof(wb)), sep,
			p->unit == UNIT_NS ? "" : unit);
		share(fp, nd->total[0], total);
		if (diff) {
			fprintf(fp, "; old %s%s%s, ",
				fmt_weight(p, nd->total[1], wb, sizeof(wb)),
				sep, p->unit == UNIT_NS ? "" : unit);
			share(fp, nd->total[1], t->nodes[0].total[1]);
		}
		fputs(")</title><rect x=\"", fp);
		fprintf(fp, "%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"rx=\"2\" fill=\"", x, y, w, SVG_ROW - 1);
		if (n)
			frame_fill(fp, t, nd, diff);
		else
			fputs("rgb(140,150,165)", fp);
		fprintf(fp, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3,
			y + SVG_ROW - 4.5);
		label_text(fp, name, w);
		fputs("</text></g>\n", fp);
		n = calltree_next(t, n);
	}
	fputs("</g>\n<script type=\"text/ecmascript\"><![CDATA[\n", fp);
	fputs(flame_svg_js, fp);
	fputs("]]></script>\n</svg>\n", fp);
	free(xs);
	if (ferror(fp)) {
		set_err(err, errlen, "cannot write the svg report: %s",
			strerror(errno));
		return -1;
	}
	return 0;
}

int fmt_svg_write(const struct profile *p, const struct fmt_opts *o,
		  FILE *fp, char *err, size_t errlen)
{
	struct calltree t;
	int ret;

	calltree_init(&t, 1, CALLTREE_TASKS |
		      (o && o->inverted ? CALLTREE_INVERTED : 0));
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	ret = flame_svg_page(&t, p, NULL, o, fp, err, errlen);
	calltree_release(&t);
	return ret;
}
