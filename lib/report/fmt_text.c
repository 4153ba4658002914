/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The default text report: a header, the top functions by self and by
 * total share, the processes and threads, and the call tree.
 */
#include "compat.h"
#include "alloc.h"
#include "report/fmt.h"
#include "report/calltree.h"
#include "report/wakers.h"
#include "strbuf.h"

#define C_RESET "\033[0m"
#define C_PY "\033[1;32m"
#define C_NAT "\033[36m"
#define C_KER "\033[33m"
#define C_DIM "\033[2m"

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The name as the text report shows it. */
/* A frame's name in text; a function's (no line) with !lines. */
static void text_name_as(struct strbuf *sb, const struct frame *f, int lines)
{
	strbuf_reset(sb);
	switch (f->kind) {
	case FRAME_PYTHON:
		if (f->func && f->file && *f->file && f->line && lines)
			strbuf_addf(sb, "%s (%s:%u)", f->func,
				    basename_of(f->file), (unsigned)f->line);
		else if (f->func && f->file && *f->file)
			strbuf_addf(sb, "%s (%s)", f->func,
				    basename_of(f->file));
		else
			strbuf_addstr(sb, f->name);
		break;
	case FRAME_KERNEL:
		strbuf_addf(sb, "%s [kernel]", f->name);
		break;
	case FRAME_NATIVE:
	case FRAME_PLUMBING:
		if (f->func && f->dso && f->dso[0] == '[')
			strbuf_addf(sb, "%s %s", f->name, f->dso);
		else if (f->func && f->dso)
			strbuf_addf(sb, "%s [%s]", f->name,
				    basename_of(f->dso));
		else
			strbuf_addstr(sb, f->name);
		break;
	default:
		strbuf_addstr(sb, f->name);
	}
}

static void text_name(struct strbuf *sb, const struct frame *f)
{
	text_name_as(sb, f, 1);
}

static const char *color_of(const struct fmt_opts *o, const struct frame *f)
{
	if (!o->color)
		return "";
	switch (f->kind) {
	case FRAME_PYTHON:
		return C_PY;
	case FRAME_KERNEL:
		return C_KER;
	case FRAME_NATIVE:
		return C_NAT;
	default:
		return C_DIM;
	}
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * (double)n / (double)total : 0.0;
}

/*
 * The width of the tables' weight column: 9, or as many digits as the
 * largest weight has (nanoseconds pass 9 digits after a second).
 */
static int weight_width(const struct profile *p)
{
	uint64_t max = p->total_weight;
	int w = 1;
	size_t i;

	/* a time: at most "999 ms", or the seconds of a long session */
	if (p->unit == UNIT_NS)
		return max >= 999500000000000ull ? 12 : 9;
	for (i = 0; i < p->nr_threads; i++)
		if (p->threads[i].weight > max)
			max = p->threads[i].weight;
	for (; max >= 10; max /= 10)
		w++;
	return w > 9 ? w : 9;
}

static const uint64_t *sort_key, *sort_key2;

static int by_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_key[x] != sort_key[y])
		return sort_key[x] > sort_key[y] ? -1 : 1;
	if (sort_key2[x] != sort_key2[y])
		return sort_key2[x] > sort_key2[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static const char *view_name(enum profile_view v)
{
	switch (v) {
	case PROFILE_VIEW_PYTHON:
		return "python (only Python frames)";
	case PROFILE_VIEW_ALL:
		return "all (every frame, nothing folded)";
	default:
		return "mixed (interpreter plumbing folded)";
	}
}

/*
 * The wall and off-cpu clocks' line: what the nanoseconds add up, the
 * on-CPU part (samples weighed by their period) and the off-CPU part.
 */
static void clock_line(const struct profile *p, FILE *fp)
{
	const struct profile_quality *q = &p->quality;
	uint64_t on = p->total_weight - q->offcpu_ns;

	if (p->clock == PROFILE_CLOCK_WALL) {
		fprintf(fp, "# wall:     %.3f s of thread time: %.3f s on CPU "
			"(%llu samples", (double)p->total_weight / 1e9,
			(double)on / 1e9,
			(unsigned long long)(p->total_count - q->offcpu));
		if (p->event)
			fprintf(fp, " of %s", p->event);
		if (p->frequency)
			fprintf(fp, " at %lu Hz", p->frequency);
		fprintf(fp, "), %.3f s off CPU (%llu intervals)",
			(double)q->offcpu_ns / 1e9,
			(unsigned long long)q->offcpu);
	} else {
		fprintf(fp, "# off-cpu:  %.3f s off CPU (%llu intervals)",
			(double)q->offcpu_ns / 1e9,
			(unsigned long long)q->offcpu);
	}
}

static void header(const struct profile *p, const struct fmt_opts *o, FILE *fp)
{
	const char *unit = weight_unit_info(p->unit)->name;
	size_t nproc = 0, i, j, nw, len = strlen(unit);
	char **warnings, tb[FMT_TIME_LEN];

	for (i = 0; i < p->nr_threads; i++) {
		for (j = 0; j < i; j++)
			if (p->threads[j].pid == p->threads[i].pid)
				break;
		if (j == i)
			nproc++;
	}
	if (p->command)
		fprintf(fp, "# command:  %s\n", p->command);
	if (p->mode || p->python_version || p->python)
		fprintf(fp, "# mode:     %s%s%s%s%s\n",
			p->mode ? p->mode : "?",
			p->python_version || p->python ? ", python " : "",
			p->python_version ? p->python_version : "",
			p->python_version && p->python ? " " : "",
			p->python ? p->python : "");
	if (p->clock != PROFILE_CLOCK_CPU) {
		clock_line(p, fp);
	} else {
	/* the label and its padding as wide as the others ("samples:  ") */
	if (p->unit == UNIT_NS)
		fprintf(fp, "# time:     %s", fmt_time_ns(p->total_weight, tb,
							  sizeof(tb)));
	else
		fprintf(fp, "# %s:%*s%llu", unit, len < 9 ? (int)(9 - len) : 1,
			"", (unsigned long long)p->total_weight);
	if (p->event)
		fprintf(fp, " of %s", p->event);
	if (p->frequency)
		fprintf(fp, " at %lu Hz", p->frequency);
	}
	if (p->duration >= 0)
		fprintf(fp, ", %.2f s", p->duration);
	fprintf(fp, ", %zu process%s, %zu thread%s\n", nproc,
		nproc == 1 ? "" : "es", p->nr_threads,
		p->nr_threads == 1 ? "" : "s");
	if (p->dropped)
		fprintf(fp, "# filtered: %llu samples left out\n",
			(unsigned long long)p->dropped);
	nw = fmt_warnings(p, &warnings);
	for (i = 0; i < nw; i++)
		fprintf(fp, "# warning:  %s\n", warnings[i]);
	fmt_warnings_free(warnings, nw);
	/* what cannot change the answer: each with -v, else how many */
	nw = fmt_notes(p, &warnings);
	if (o->verbose)
		for (i = 0; i < nw; i++)
			fprintf(fp, "# note:     %s\n", warnings[i]);
	else if (nw)
		fprintf(fp, "# notes:    %zu, each under 1%% of the Python "
			"program's samples or outside it (cut stacks, unnamed "
			"code): -v lists them\n", nw);
	fmt_warnings_free(warnings, nw);
	fprintf(fp, "# view:     %s\n", view_name(p->view));
}

/*
 * One table: rows in order, up to --top.  lines: name Python frames
 * with their line (a table of lines), else by function.
 */
static void table(const struct profile *p, const struct fmt_opts *o,
		  FILE *fp, const char *title, const uint32_t *order,
		  size_t n, const uint64_t *self, const uint64_t *total,
		  int by_total, int lines)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned top = o->top ? o->top : 20;
	int width = weight_width(p);
	char wb[FMT_TIME_LEN];
	size_t i;

	fprintf(fp, "\n%s\n", title);
	fprintf(fp, "%8s %8s %*s  %s\n", by_total ? "Total%" : "Self%",
		by_total ? "Self%" : "Total%", width,
		weight_unit_info(p->unit)->column,
		lines ? "Line" : "Function");
	for (i = 0; i < n && i < top; i++) {
		uint32_t f = order[i];
		uint64_t a = by_total ? total[f] : self[f];
		uint64_t b = by_total ? self[f] : total[f];

		if (!a)
			break;
		text_name_as(&sb, &p->frames[f], lines);
		fprintf(fp, "%7.2f%% %7.2f%% %*s  %s%s%s\n",
			pct(a, p->total_weight), pct(b, p->total_weight),
			width, fmt_weight(p, a, wb, sizeof(wb)),
			color_of(o, &p->frames[f]), sb.buf,
			o->color ? C_RESET : "");
	}
	strbuf_release(&sb);
}

static void tasks(const struct profile *p, FILE *fp)
{
	int width = weight_width(p);
	char wb[FMT_TIME_LEN];
	size_t i;

	if (p->nr_threads < 2)
		return;
	fprintf(fp, "\nProcesses and threads\n");
	fprintf(fp, "%8s %*s %8s %8s  %s\n", "Share", width,
		weight_unit_info(p->unit)->column, "PID", "TID", "Command");
	for (i = 0; i < p->nr_threads; i++) {
		const struct task *t = &p->threads[i];

		fprintf(fp, "%7.2f%% %*s %8ld %8ld  %s\n",
			pct(t->weight, p->total_weight), width,
			fmt_weight(p, t->weight, wb, sizeof(wb)), (long)t->pid,
			(long)t->tid, t->comm ? t->comm : "?");
	}
}

/*
 * Wall and off-cpu clocks: each thread's time, running and waiting by
 * reason, in seconds and shares of the thread's time (the columns of
 * the reasons some thread waited for).
 */
static void waits(const struct profile *p, FILE *fp)
{
	int used[WAIT_NR], r;
	size_t i;

	if (p->clock == PROFILE_CLOCK_CPU || !p->nr_threads)
		return;
	for (r = 0; r < WAIT_NR; r++) {
		used[r] = 0;
		for (i = 0; i < p->nr_threads; i++)
			if (p->threads[i].offcpu[r])
				used[r] = 1;
	}
	fprintf(fp, "\nThreads: running and waiting (seconds, %% of the "
		"thread's time)\n");
	fprintf(fp, "%8s %8s %9s", "PID", "TID", "Time (s)");
	if (p->clock == PROFILE_CLOCK_WALL)
		fprintf(fp, " %16s", "running");
	for (r = 0; r < WAIT_NR; r++)
		if (used[r])
			fprintf(fp, " %16s", wait_reason_name(r));
	fprintf(fp, "  Command\n");
	for (i = 0; i < p->nr_threads; i++) {
		const struct task *t = &p->threads[i];
		uint64_t off = 0;

		for (r = 0; r < WAIT_NR; r++)
			off += t->offcpu[r];
		fprintf(fp, "%8ld %8ld %9.3f", (long)t->pid, (long)t->tid,
			(double)t->weight / 1e9);
		if (p->clock == PROFILE_CLOCK_WALL)
			fprintf(fp, " %8.3f %6.2f%%",
				(double)(t->weight - off) / 1e9,
				pct(t->weight - off, t->weight));
		for (r = 0; r < WAIT_NR; r++)
			if (used[r])
				fprintf(fp, " %8.3f %6.2f%%",
					(double)t->offcpu[r] / 1e9,
					pct(t->offcpu[r], t->weight));
		fprintf(fp, "  %s\n", t->comm ? t->comm : "?");
	}
}

/* The GIL holders the summary names; the rest are added up. */
#define GIL_HOLDERS 5

/*
 * report --wakers: who made whom wait (wakers_table()), the largest
 * rows up to --top, and what the others add up to.
 */
static void wake_rows(const struct profile *p, const struct fmt_opts *o,
		      const struct wakers_table *t, FILE *fp)
{
	struct strbuf sb = STRBUF_INIT, wb = STRBUF_INIT;
	unsigned top = o->top ? o->top : 20;
	char tb[FMT_TIME_LEN];
	size_t i, shown = t->nr_rows < top ? t->nr_rows : top;
	int width = 16;
	uint64_t rest = 0;

	/* the waiting functions' column as wide as its widest, up to 48 */
	for (i = 0; i < shown; i++) {
		text_name_as(&sb, &p->frames[t->rows[i].waiter], 0);
		if ((int)sb.len > width)
			width = sb.len > 48 ? 48 : (int)sb.len;
	}
	fprintf(fp, "\nWho made whom wait (%s of waits with a waker entry, "
		"by waiting function, reason and waker)\n",
		fmt_time_ns(t->ns, tb, sizeof(tb)));
	fprintf(fp, "%9s %7s %7s %7s  %-8s  %-*s  %s\n", "Time", "Share",
		"Waits", "Threads", "Reason", width, "Waiting function",
		"Woken by");
	for (i = 0; i < shown; i++) {
		const struct wakers_row *r = &t->rows[i];

		text_name_as(&sb, &p->frames[r->waiter], 0);
		text_name_as(&wb, &p->frames[r->waker], 1);
		if (r->timed)
			strbuf_addstr(&wb, ", after timed waits");
		fprintf(fp, "%9s %6.2f%% %7llu %7u  %-8s  %s%-*s%s  %s%s%s\n",
			fmt_time_ns(r->ns, tb, sizeof(tb)), pct(r->ns, t->ns),
			(unsigned long long)r->count, (unsigned)r->threads,
			wait_reason_name(r->reason),
			color_of(o, &p->frames[r->waiter]), width, sb.buf,
			o->color ? C_RESET : "",
			color_of(o, &p->frames[r->waker]), wb.buf,
			o->color ? C_RESET : "");
	}
	for (i = shown; i < t->nr_rows; i++)
		rest += t->rows[i].ns;
	if (shown < t->nr_rows)
		fprintf(fp, "%9s %6.2f%%  in the %zu other row%s (--top "
			"shows more)\n", fmt_time_ns(rest, tb, sizeof(tb)),
			pct(rest, t->ns), t->nr_rows - shown,
			t->nr_rows - shown == 1 ? "" : "s");
	strbuf_release(&sb);
	strbuf_release(&wb);
}

/*
 * report --wakers: the gil waits by the function that held the GIL
 * (the waker dropped it), the largest few, the others added up, and
 * the gil wait time no Python function ended.
 */
static void gil_holders(const struct profile *p, const struct wakers_table *t,
			FILE *fp)
{
	struct strbuf sb = STRBUF_INIT;
	char tb[FMT_TIME_LEN], hb[FMT_TIME_LEN];
	uint64_t rest = 0, none = t->gil_unknown_ns + t->gil_other_ns;
	size_t i;

	if (!t->gil_ns)
		return;
	fprintf(fp, "\nGIL holders (%s of gil waits by %u thread%s, seen and "
		"inferred; held: from taking the GIL to handing it on; ",
		fmt_time_ns(t->gil_ns, tb, sizeof(tb)), (unsigned)t->gil_threads,
		t->gil_threads == 1 ? "" : "s");
	fprintf(fp, "%s (%.2f%%) after timed waits that ran out: one wait, "
		"credited to the holder that ended it)\n",
		fmt_time_ns(t->gil_timed_ns, tb, sizeof(tb)),
		pct(t->gil_timed_ns, t->gil_ns));
	for (i = 0; i < t->nr_holders && i < GIL_HOLDERS; i++) {
		const struct wakers_holder *h = &t->holders[i];

		text_name_as(&sb, &p->frames[h->line], 1);
		if (h->lines > 1)
			strbuf_addf(&sb, " and %u other line%s", h->lines - 1,
				    h->lines == 2 ? "" : "s");
		fprintf(fp, "GIL held by %s while %u thread%s waited %s "
			"(%.2f%%; held %s, %llu wait%s)\n", sb.buf,
			(unsigned)h->threads, h->threads == 1 ? "" : "s",
			fmt_time_ns(h->ns, tb, sizeof(tb)), pct(h->ns, t->gil_ns),
			fmt_time_ns(h->held_ns, hb, sizeof(hb)),
			(unsigned long long)h->count, h->count == 1 ? "" : "s");
	}
	for (; i < t->nr_holders; i++)
		rest += t->holders[i].ns;
	if (t->nr_holders > GIL_HOLDERS)
		fprintf(fp, "%zu other holder%s: %s (%.2f%%)\n",
			t->nr_holders - GIL_HOLDERS,
			t->nr_holders - GIL_HOLDERS == 1 ? "" : "s",
			fmt_time_ns(rest, tb, sizeof(tb)), pct(rest, t->gil_ns));
	if (none) {
		fprintf(fp, "No Python function ended %s (%.2f%%): waker "
			"unknown ", fmt_time_ns(none, tb, sizeof(tb)),
			pct(none, t->gil_ns));
		fprintf(fp, "%s (%.2f%%), an interrupt, a timer, an unwatched "
			"process or a thread with no Python frame %s (%.2f%%)\n",
			fmt_time_ns(t->gil_unknown_ns, tb, sizeof(tb)),
			pct(t->gil_unknown_ns, t->gil_ns),
			fmt_time_ns(t->gil_other_ns, hb, sizeof(hb)),
			pct(t->gil_other_ns, t->gil_ns));
	}
	strbuf_release(&sb);
}

void fmt_text_wakers(const struct profile *p, const struct fmt_opts *o,
		     FILE *fp)
{
	struct wakers_table t;

	if (!p->nr_wakes)
		return;
	wakers_table(p, &t);
	wake_rows(p, o, &t, fp);
	gil_holders(p, &t, fp);
	wakers_table_release(&t);
}

struct tree_ctx {
	const struct profile *p;
	const struct fmt_opts *o;
	const struct calltree *t;
	FILE *fp;
	uint64_t limit;
	uint64_t total;
	struct strbuf name;
	struct strbuf prefix;
	uint32_t *kids;
	size_t kids_alloc;
	size_t lines;
};

/* Children of a node with total >= limit, by total descending. */
static const struct calltree *cmp_tree;

static int by_node_total(const void *a, const void *b)
{
	const struct calltree_node *x = &cmp_tree->nodes[*(const uint32_t *)a];
	const struct calltree_node *y = &cmp_tree->nodes[*(const uint32_t *)b];

	if (x->total[0] != y->total[0])
		return x->total[0] > y->total[0] ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void tree_walk(struct tree_ctx *c, uint32_t node)
{
	const struct calltree_node *nd = &c->t->nodes[node];
	uint32_t child, *kids;
	size_t n = 0, i, plen;
	uint64_t hidden = 0;

	for (child = nd->first_child; child != CALLTREE_NONE;
	     child = c->t->nodes[child].next_sibling) {
		if (c->t->nodes[child].total[0] < c->limit) {
			hidden += c->t->nodes[child].total[0];
			continue;
		}
		n++;
	}
	/* mention hidden callees only when they add up to something */
	if (hidden < c->limit)
		hidden = 0;
	if (!n && !hidden)
		return;
	kids = xmalloc((n ? n : 1) * sizeof(*kids));
	n = 0;
	for (child = nd->first_child; child != CALLTREE_NONE;
	     child = c->t->nodes[child].next_sibling)
		if (c->t->nodes[child].total[0] >= c->limit)
			kids[n++] = child;
	cmp_tree = c->t;
	qsort(kids, n, sizeof(*kids), by_node_total);
	plen = c->prefix.len;
	for (i = 0; i < n; i++) {
		const struct calltree_node *k = &c->t->nodes[kids[i]];
		const struct frame *f = &c->p->frames[k->frame];
		int last = i + 1 == n && !hidden;

		text_name(&c->name, f);
		/* inverted, "self" would be the outermost caller's: omit */
		if (c->o->inverted)
			fprintf(c->fp, "%7.2f%%  ", pct(k->total[0], c->total));
		else
			fprintf(c->fp, "%7.2f%% %7.2f%%  ",
				pct(k->total[0], c->total),
				pct(k->self[0], c->total));
		fprintf(c->fp, "%s%s%s%s%s\n",
			c->prefix.buf, node ? (last ? "`- " : "|- ") : "",
			color_of(c->o, f), c->name.buf,
			c->o->color ? C_RESET : "");
		c->lines++;
		if (node)
			strbuf_addstr(&c->prefix, last ? "   " : "|  ");
		tree_walk(c, kids[i]);
		strbuf_setlen(&c->prefix, plen);
	}
	if (hidden)
		fprintf(c->fp, "%7.2f%% %s %s%s%s(%s)%s\n",
			pct(hidden, c->total), c->o->inverted ? "" : "        ",
			c->prefix.buf, node ? "`- " : "",
			c->o->color ? C_DIM : "",
			c->o->inverted ? "smaller callers" : "smaller callees",
			c->o->color ? C_RESET : "");
	free(kids);
}

static void call_tree(const struct profile *p, const struct fmt_opts *o,
		      FILE *fp)
{
	struct calltree t;
	struct tree_ctx c;
	double share = o->tree_min_share > 0 ? o->tree_min_share : 0.01;

	calltree_init(&t, 1, CALLTREE_BY_ID |
		      (o->inverted ? CALLTREE_INVERTED : 0));
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	memset(&c, 0, sizeof(c));
	c.p = p;
	c.o = o;
	c.t = &t;
	c.fp = fp;
	c.total = p->total_weight;
	c.limit = (uint64_t)(share * (double)p->total_weight);
	if (!c.limit)
		c.limit = 1;
	strbuf_init(&c.name, 64);
	strbuf_init(&c.prefix, 64);
	fprintf(fp, "\nCall tree (%s below %.1f%% hidden)\n",
		o->inverted ? "inverted: leaf functions first, their callers "
		"below them; callers" : "callers first; callees",
		100.0 * share);
	if (o->inverted)
		fprintf(fp, "%8s  %s\n", "Total%", "Function");
	else
		fprintf(fp, "%8s %8s  %s\n", "Total%", "Self%", "Function");
	tree_walk(&c, 0);
	strbuf_release(&c.name);
	strbuf_release(&c.prefix);
	calltree_release(&t);
}

/* Per-function totals (profile_function_map()) and their order. */
struct fn_totals {
	uint64_t *self, *total;
	uint32_t *order, *map;
	size_t n;
};

static void fn_totals(const struct profile *p, struct fn_totals *t)
{
	size_t i;

	t->n = p->nr_frames;
	t->self = xcalloc(t->n ? t->n : 1, sizeof(*t->self));
	t->total = xcalloc(t->n ? t->n : 1, sizeof(*t->total));
	t->order = xmalloc((t->n ? t->n : 1) * sizeof(*t->order));
	t->map = profile_function_map(p);
	profile_frame_totals_by(p, PROFILE_NO_TASK, t->map, t->self,
				t->total);
	for (i = 0; i < t->n; i++)
		t->order[i] = (uint32_t)i;
}

static void fn_sort(struct fn_totals *t, int by_total)
{
	sort_key = by_total ? t->total : t->self;
	sort_key2 = by_total ? t->self : t->total;
	qsort(t->order, t->n, sizeof(*t->order), by_key);
}

static void fn_release(struct fn_totals *t)
{
	free(t->self);
	free(t->total);
	free(t->order);
	free(t->map);
}

void fmt_text_top(const struct profile *p, const struct fmt_opts *o,
		  FILE *fp, int by_total)
{
	struct fn_totals t;

	fn_totals(p, &t);
	fn_sort(&t, by_total);
	table(p, o, fp, by_total ?
	      "Top functions by total time (self + callees)" :
	      "Top functions by self time", t.order, t.n, t.self, t.total,
	      by_total, 0);
	fn_release(&t);
}

/*
 * The Python lines by self time, when the frames have lines (the frame
 * walker's): the function tables add a function's lines up, this one
 * says which of them.
 */
static void line_table(const struct profile *p, const struct fmt_opts *o,
		       FILE *fp)
{
	size_t n = p->nr_frames, nr = 0, i;
	uint64_t *self = xcalloc(n ? n : 1, sizeof(*self));
	uint64_t *total = xcalloc(n ? n : 1, sizeof(*total));
	uint32_t *order = xmalloc((n ? n : 1) * sizeof(*order));

	for (i = 0; i < n; i++)
		if (p->frames[i].kind == FRAME_PYTHON && p->frames[i].line)
			order[nr++] = (uint32_t)i;
	if (nr) {
		profile_frame_totals(p, PROFILE_NO_TASK, self, total);
		sort_key = self;
		sort_key2 = total;
		qsort(order, nr, sizeof(*order), by_key);
		table(p, o, fp, "Top Python lines by self time", order, nr,
		      self, total, 0, 1);
	}
	free(self);
	free(total);
	free(order);
}

int fmt_text_write(const struct profile *p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen)
{
	struct fn_totals t;

	header(p, o, fp);
	fn_totals(p, &t);
	fn_sort(&t, 0);
	table(p, o, fp, "Top functions by self time", t.order, t.n, t.self,
	      t.total, 0, 0);
	line_table(p, o, fp);
	fn_sort(&t, 1);
	table(p, o, fp, "Top functions by total time (self + callees)",
	      t.order, t.n, t.self, t.total, 1, 0);
	tasks(p, fp);
	waits(p, fp);
	fmt_text_wakers(p, o, fp);
	if (o->tree)
		call_tree(p, o, fp);
	fn_release(&t);
	if (ferror(fp))
		return set_err(err, errlen, "write error: %s",
			       strerror(errno));
	return 0;
}
