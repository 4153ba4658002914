/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format html: one self-contained page (lib/report/flame/flame.html, inlined
 * into lib/report/flame_assets.h) with the profile embedded as JSON: a string
 * table, a frame table and the merged call tree in preorder
 * ([frame, depth, self] per node).  The page builds its trees from that
 * and draws them on a canvas; it loads nothing from the network.
 */
#include "compat.h"
#include "report/fmt.h"
#include "strtab.h"
#include "report/flame.h"
#include "report/flame_assets.h"
#include "json.h"
#include "alloc.h"

/* s as a JSON string body that is safe inside the page's <script>. */
static void html_str(FILE *fp, const char *s)
{
	json_escape(fp, s, strlen(s), JSON_ESC_HTML);
}

static void json_kv_str(FILE *fp, const char *key, const char *val)
{
	fprintf(fp, "\"%s\":\"", key);
	html_str(fp, val ? val : "");
	fputs("\",\n", fp);
}

int flame_html_page(const struct calltree *t, const struct profile *p,
		    const struct profile *old_p, const struct fmt_opts *o,
		    FILE *fp, char *err, size_t errlen)
{
	struct strtab st;
	const char *labels[16];
	char *vals[16];
	size_t nmeta, nwarn, i;
	char **warn;
	uint32_t n, *fids;
	int diff = old_p != NULL;
	/* the page's tooltips and search say this after every weight */
	const char *unit = weight_unit_info(p->unit)->name;

	strtab_init(&st);
	fids = xmalloc((t->nr_frames * 3 + 1) * sizeof(*fids));
	for (i = 0; i < t->nr_frames; i++) {
		fids[3 * i] = strtab_id(&st, t->frames[i].name);
		fids[3 * i + 1] = strtab_id(&st, t->frames[i].file);
		fids[3 * i + 2] = strtab_id(&st, t->frames[i].dso);
	}

	fputs(flame_html_head, fp);
	fputs("<script id=\"ppr-data\" type=\"application/json\">{\n", fp);
	fputs("\"v\":1,\n", fp);
	if (o && o->title) {
		json_kv_str(fp, "title", o->title);
	} else {
		json_kv_str(fp, "title", diff ?
			    "pyperf-run differential flame graph" :
			    "pyperf-run flame graph");
		if (p->command)
			json_kv_str(fp, "titleCode", p->command);
	}
	json_kv_str(fp, "unit", unit);
	fprintf(fp, "\"total\":%llu,\n\"diff\":%d,\n\"inverted\":%d,\n",
		(unsigned long long)t->nodes[0].total[0], diff,
		o && o->inverted ? 1 : 0);
	if (diff)
		fprintf(fp, "\"total0\":%llu,\n",
			(unsigned long long)t->nodes[0].total[1]);
	fputs("\"meta\":[", fp);
	nmeta = flame_meta_lines(p, labels, vals, ARRAY_SIZE(labels));
	for (i = 0; i < nmeta; i++) {
		fputs(i ? ",\n[\"" : "\n[\"", fp);
		html_str(fp, labels[i]);
		fputs("\",\"", fp);
		html_str(fp, vals[i]);
		fputs("\"]", fp);
		free(vals[i]);
	}
	if (diff) {
		fputs(nmeta ? ",\n" : "\n", fp);
		fprintf(fp, "[\"old %s\",\"%llu", unit,
			(unsigned long long)old_p->total_weight);
		fputs("\"]", fp);
		if (old_p->command) {
			fputs(",\n[\"old command\",\"", fp);
			html_str(fp, old_p->command);
			fputs("\"]", fp);
		}
	}
	fputs("],\n\"warnings\":[", fp);
	nwarn = flame_warnings(p, old_p, &warn);
	for (i = 0; i < nwarn; i++) {
		fputs(i ? ",\n\"" : "\n\"", fp);
		html_str(fp, warn[i]);
		fputc('"', fp);
	}
	fmt_warnings_free(warn, nwarn);
	fputs("],\n\"strings\":[", fp);
	for (i = 0; i < st.nr; i++) {
		fputs(i ? ",\"" : "\"", fp);
		html_str(fp, st.v[i]);
		fputc('"', fp);
		if (i % 8 == 7)
			fputc('\n', fp);
	}
	fputs("],\n\"frames\":[", fp);
	for (i = 0; i < t->nr_frames; i++) {
		fprintf(fp, "%s%u,%u,%u,%d", i ? "," : "", fids[3 * i],
			fids[3 * i + 1], fids[3 * i + 2],
			(int)t->frames[i].kind);
		if (i % 16 == 15)
			fputc('\n', fp);
	}
	fputs("],\n\"nodes\":[", fp);
	i = 0;
	/*
	 * The diff page draws the new profile (slot 0) and colours by the
	 * old one (slot 1); nodes only in the old profile stay (with zero
	 * width) so the tooltip totals add up.
	 */
	for (n = calltree_next(t, 0); n != CALLTREE_NONE;
	     n = calltree_next(t, n)) {
		const struct calltree_node *nd = &t->nodes[n];

		if (diff)
			fprintf(fp, "%s%u,%u,%llu,%llu", i ? "," : "",
				nd->frame, nd->depth,
				(unsigned long long)nd->self[0],
				(unsigned long long)nd->self[1]);
		else
			fprintf(fp, "%s%u,%u,%llu", i ? "," : "", nd->frame,
				nd->depth, (unsigned long long)nd->self[0]);
		if (++i % 16 == 0)
			fputc('\n', fp);
	}
	fputs("]\n}</script>\n", fp);
	fputs(flame_html_tail, fp);
	free(fids);
	strtab_release(&st);
	if (ferror(fp)) {
		set_err(err, errlen, "cannot write the html report: %s",
			strerror(errno));
		return -1;
	}
	return 0;
}

int fmt_html_write(const struct profile *p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen)
{
	struct calltree t;
	int ret;

	calltree_init(&t, 1, CALLTREE_TASKS);
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	ret = flame_html_page(&t, p, NULL, o, fp, err, errlen);
	calltree_release(&t);
	return ret;
}
