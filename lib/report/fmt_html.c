/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format html: one self-contained page (lib/report/flame/flame.html, inlined
 * into lib/report/flame_assets.h) with the profile embedded as JSON: a string
 * table, a frame table and the merged call tree in preorder
 * ([frame, depth, self] per node).  The page builds its trees from that
 * and draws them on a canvas; it loads nothing from the network.
 *
 * In the wall and off-cpu clocks the page also gets each thread's
 * timeline ("timeline": its threads, the wait reasons' names, and per
 * span [thread, start, duration (microseconds from the first span),
 * reason (-1: running), the tree node its stack ends in (the page's
 * node index: 1 + its preorder position)]): drawn above the flame
 * graph, a span or a dragged range of it shows the flame graph of that
 * time alone.  A session recorded with --wakers adds "wakes": [span,
 * thread...], the waits a watched thread ended and that thread (indexes
 * in spans and threads), which the page links.
 */
#include "compat.h"
#include "report/fmt.h"
#include "strtab.h"
#include "report/fmt_flame.h"
#include "report/flame_assets.h"
#include "json.h"
#include "alloc.h"
#include "hmap.h"

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

/*
 * "wakes": each span whose waker is a thread of the profile, and that
 * thread's index (its first entry of that tid); none: nothing written.
 */
static void wakes(FILE *fp, const struct profile *p)
{
	struct umap ix = { 0 };
	struct umap_ent *e;
	size_t i, n = 0;
	int added;

	for (i = 0; i < p->nr_threads; i++) {
		e = umap_get(&ix, (uint32_t)p->threads[i].tid, &added);
		if (added)
			e->val = (void *)(uintptr_t)(i + 1);
	}
	for (i = 0; i < p->nr_spans; i++) {
		if (!p->spans[i].waker)
			continue;
		e = umap_find(&ix, (uint32_t)p->spans[i].waker);
		if (!e)
			continue;
		fprintf(fp, "%s%zu,%zu", n ? "," : ",\n\"wakes\":[", i,
			(size_t)(uintptr_t)e->val - 1);
		if (++n % 8 == 0)
			fputc('\n', fp);
	}
	if (n)
		fputc(']', fp);
	umap_release(&ix);
}

/* The threads' spans (see above), after the nodes. */
static void timeline(FILE *fp, const struct profile *p,
		     const struct calltree *t, const uint32_t *pos)
{
	uint64_t t0 = UINT64_MAX;
	size_t i;
	int r;

	for (i = 0; i < p->nr_spans; i++)
		if (p->spans[i].start < t0)
			t0 = p->spans[i].start;
	fputs(",\n\"timeline\":{\"threads\":[", fp);
	for (i = 0; i < p->nr_threads; i++) {
		fprintf(fp, "%s[%ld,%ld,\"", i ? "," : "",
			(long)p->threads[i].pid, (long)p->threads[i].tid);
		html_str(fp, p->threads[i].comm ? p->threads[i].comm : "?");
		fputs("\"]", fp);
	}
	fputs("],\n\"reasons\":[", fp);
	for (r = 0; r < WAIT_NR; r++)
		fprintf(fp, "%s\"%s\"", r ? "," : "", wait_reason_name(r));
	fprintf(fp, "],\n\"t0\":%.6f,\n\"spans\":[",
		(double)t0 / 1e9);
	for (i = 0; i < p->nr_spans; i++) {
		const struct profile_span *s = &p->spans[i];

		fprintf(fp, "%s%u,%llu,%llu,%d,%u", i ? "," : "", s->thread,
			(unsigned long long)((s->start - t0) / 1000),
			(unsigned long long)((s->dur + 500) / 1000),
			(int)s->reason, pos[t->stack_leaf[s->stack]]);
		if (i % 8 == 7)
			fputc('\n', fp);
	}
	fputc(']', fp);
	wakes(fp, p);
	fputc('}', fp);
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
	uint32_t n, *fids, *pos;
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
		char wb[FMT_TIME_LEN];

		fprintf(fp, "[\"old %s\",\"%s", old_p->unit == UNIT_NS ?
			"time" : unit, fmt_weight(old_p, old_p->total_weight,
						 wb, sizeof(wb)));
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
	fputs("],\n\"notes\":[", fp);
	nwarn = flame_notes(p, old_p, &warn);
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
	pos = xcalloc(t->nr_nodes + 1, sizeof(*pos));
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
		pos[n] = (uint32_t)i + 1;
		if (++i % 16 == 0)
			fputc('\n', fp);
	}
	fputs("]", fp);
	if (!diff && p->nr_spans && t->stack_leaf)
		timeline(fp, p, t, pos);
	free(pos);
	fputs("\n}</script>\n", fp);
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
	if (p->nr_spans)
		t.stack_leaf = xcalloc(p->nr_stacks + 1,
				       sizeof(*t.stack_leaf));
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	ret = flame_html_page(&t, p, NULL, o, fp, err, errlen);
	free(t.stack_leaf);
	t.stack_leaf = NULL;
	calltree_release(&t);
	return ret;
}
