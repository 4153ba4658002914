/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The JSON summary (man/pyperf-run-report.1 documents it):
 *
 * {
 *   "format": "pyperf-run-report", "version": 1,
 *   "session": { "command", "mode", "python", "python_version",
 *                "perf_version", "event", "frequency", "duration",
 *                "max_size" (record --max-size's bytes, or null),
 *                "max_size_stop" (seconds after the start when the
 *                recording stopped there, or null: it did not) },
 *   "view": "mixed" | "python" | "all",
 *   "samples": N, "period": N, "filtered_out": N,
 *   "warnings": [ "sentence", ... ],   (what a reader must know to trust
 *                                      the numbers; the text header's
 *                                      "# warning:" lines)
 *   "notes": [ "sentence", ... ],      (the same kind of sentence for what
 *                                      cannot change the Python program's
 *                                      answer: under 1 % of its samples,
 *                                      or outside it; text's -v "# note:")
 *   "quality": { "judged", "complete",  (samples with user frames, and
 *                "cut": { "dump", "unwind", "depth", "noroot" },
 *                "unnamed", "bad_names",  how many of them were cut,
 *                "program": { "processes",  by reason; the Python
 *                "count", "judged",     program's part: the processes
 *                "complete", "unnamed" } }  with Python frames; see
 *                                      struct profile_quality)
 *   "functions": [ FUNCTION... ],      (by total samples, descending)
 *   "processes": [ { "pid", "comm", "samples", "share",
 *                    "functions": [...],        (when grouped)
 *                    "threads": [ { "tid", "comm", "samples", "share",
 *                                   "functions": [...] } ] } ]
 * }
 * FUNCTION: { "name", "kind", "function", "file", "line" (a Python
 *             frame's line, when the source knew it), "dso",
 *             "self_samples", "total_samples", "self_share",
 *             "total_share" }   (shares are fractions of "samples",
 *             0..1; shares of per-task lists are of that task)
 *
 * "samples" and the keys that end in it hold weights in the profile's
 * unit, named after it (struct weight_unit_info): with UNIT_SAMPLES
 * exactly as above.  In any other unit a "unit" key names it before
 * the total, and every "samples" is the unit's name: "unit":
 * "nanoseconds", "nanoseconds": N, "self_nanoseconds", ...
 *
 * The wall and off-cpu clocks (report --clock) add "clock": "wall" |
 * "off-cpu" after "unit", "count" (samples and off-CPU intervals),
 * "offcpu": { "intervals", "nanoseconds", "stack_inferred",
 * "stack_inferred_nanoseconds", "gil_inferred",
 * "gil_inferred_nanoseconds", "before_attach",
 * "before_attach_nanoseconds" (record -p: the waits under way at the
 * attach, counted from it) }, and in each thread "waits": { REASON:
 * nanoseconds, ... } for the reasons it waited for, "running" (wall).
 *
 * report --wakers adds "wakers": { "nanoseconds", "rows": [ { "waiting",
 * "reason", "waker", "after_timed_waits", "threads", "count",
 * "nanoseconds" } ] (every row, largest first), "gil": { "nanoseconds",
 * "threads", "after_timed_waits_nanoseconds", "unknown_nanoseconds",
 * "other_nanoseconds", "holders": [ { "holder", "line", "lines",
 * "threads", "count", "nanoseconds", "held_nanoseconds" } ] } }, each
 * frame { "kind", "function", "file", "line" } or { "kind", "name" }.
 */
#include "compat.h"
#include "alloc.h"
#include "report/fmt.h"
#include "json.h"
#include "report/wakers.h"

static const uint64_t *sort_total, *sort_self;

/* The keys of weights: "samples", "self_samples", "total_samples". */
struct weight_keys {
	const char *total;
	char self_fn[48], total_fn[48];
};

static void weight_keys_init(struct weight_keys *k, enum weight_unit u)
{
	k->total = weight_unit_info(u)->name;
	snprintf(k->self_fn, sizeof(k->self_fn), "self_%s", k->total);
	snprintf(k->total_fn, sizeof(k->total_fn), "total_%s", k->total);
}

static int by_total(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_total[x] != sort_total[y])
		return sort_total[x] > sort_total[y] ? -1 : 1;
	if (sort_self[x] != sort_self[y])
		return sort_self[x] > sort_self[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

static double share(uint64_t n, uint64_t total)
{
	return total ? (double)n / (double)total : 0.0;
}

static void functions(struct json *j, const struct profile *p,
		      const struct weight_keys *keys, const uint64_t *self,
		      const uint64_t *total, uint64_t all, uint32_t *order)
{
	size_t n = 0, i;

	for (i = 0; i < p->nr_frames; i++)
		if (total[i])
			order[n++] = (uint32_t)i;
	sort_total = total;
	sort_self = self;
	qsort(order, n, sizeof(*order), by_total);
	json_key(j, "functions");
	json_begin_array(j);
	for (i = 0; i < n; i++) {
		const struct frame *f = &p->frames[order[i]];

		json_begin_object(j);
		json_key(j, "name");
		json_string(j, f->name);
		json_key(j, "kind");
		json_string(j, frame_kind_name(f->kind));
		json_key(j, "function");
		json_string(j, f->func);
		json_key(j, "file");
		json_string(j, f->file);
		if (f->line) {
			json_key(j, "line");
			json_uint(j, f->line);
		}
		json_key(j, "dso");
		json_string(j, f->dso);
		json_key(j, keys->self_fn);
		json_uint(j, self[order[i]]);
		json_key(j, keys->total_fn);
		json_uint(j, total[order[i]]);
		json_key(j, "self_share");
		json_double(j, share(self[order[i]], all));
		json_key(j, "total_share");
		json_double(j, share(total[order[i]], all));
		json_end_object(j);
	}
	json_end_array(j);
}

static void kv_str(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	json_string(j, v);
}

static const char *view_str(enum profile_view v)
{
	return v == PROFILE_VIEW_PYTHON ? "python" :
		v == PROFILE_VIEW_ALL ? "all" : "mixed";
}

static void warnings(struct json *j, const struct profile *p)
{
	static const char *const cut_names[CUT_NR] = {
		NULL, "dump", "unwind", "depth", "noroot"
	};
	_Static_assert(CUT_NR == 5, "a name for every enum stack_cut");
	const struct profile_quality *q = &p->quality;
	char **w;
	size_t n = fmt_warnings(p, &w), i;

	json_key(j, "warnings");
	json_begin_array(j);
	for (i = 0; i < n; i++)
		json_string(j, w[i]);
	json_end_array(j);
	fmt_warnings_free(w, n);
	n = fmt_notes(p, &w);
	json_key(j, "notes");
	json_begin_array(j);
	for (i = 0; i < n; i++)
		json_string(j, w[i]);
	json_end_array(j);
	fmt_warnings_free(w, n);
	json_key(j, "quality");
	json_begin_object(j);
	json_key(j, "judged");
	json_uint(j, q->judged);
	json_key(j, "complete");
	json_uint(j, q->cut[CUT_NONE]);
	json_key(j, "cut");
	json_begin_object(j);
	for (i = CUT_NONE + 1; i < CUT_NR; i++) {
		json_key(j, cut_names[i]);
		json_uint(j, q->cut[i]);
	}
	json_end_object(j);
	json_key(j, "startup");
	json_uint(j, q->startup_cut);
	json_key(j, "contexts_rebuilt");
	json_uint(j, q->ctx_rebuilt);
	json_key(j, "unnamed");
	json_uint(j, q->unnamed);
	json_key(j, "bad_names");
	json_uint(j, q->bad_names);
	json_key(j, "program");
	json_begin_object(j);
	json_key(j, "processes");
	json_uint(j, q->py_procs);
	json_key(j, "count");
	json_uint(j, q->py_count);
	json_key(j, "judged");
	json_uint(j, q->py_judged);
	json_key(j, "complete");
	json_uint(j, q->py_cut[CUT_NONE]);
	json_key(j, "unnamed");
	json_uint(j, q->py_unnamed);
	json_end_object(j);
	json_end_object(j);
}

/* The clock, its count and the off-CPU facts (wall, off-cpu). */
static void clock_keys(struct json *j, const struct profile *p)
{
	const struct profile_quality *q = &p->quality;

	kv_str(j, "clock", profile_clock_name(p->clock));
	json_key(j, "count");
	json_uint(j, p->total_count);
	json_key(j, "offcpu");
	json_begin_object(j);
	json_key(j, "intervals");
	json_uint(j, q->offcpu);
	json_key(j, "nanoseconds");
	json_uint(j, q->offcpu_ns);
	json_key(j, "stack_inferred");
	json_uint(j, q->offcpu_nostack);
	json_key(j, "stack_inferred_nanoseconds");
	json_uint(j, q->offcpu_nostack_ns);
	json_key(j, "gil_inferred");
	json_uint(j, q->gil_inferred);
	json_key(j, "gil_inferred_nanoseconds");
	json_uint(j, q->gil_inferred_ns);
	json_key(j, "before_attach");
	json_uint(j, q->before_attach);
	json_key(j, "before_attach_nanoseconds");
	json_uint(j, q->before_attach_ns);
	json_end_object(j);
}

/*
 * A frame of the wakers' tables: "kind", "function" and "file" (a
 * Python frame), "line" (with lines, when it has one), else "name".
 */
static void wake_frame(struct json *j, const char *key,
		       const struct frame *f, int lines)
{
	json_key(j, key);
	json_begin_object(j);
	kv_str(j, "kind", frame_kind_name(f->kind));
	if (f->kind == FRAME_PYTHON && f->func) {
		kv_str(j, "function", f->func);
		kv_str(j, "file", f->file);
		if (lines && f->line) {
			json_key(j, "line");
			json_uint(j, f->line);
		}
	} else {
		kv_str(j, "name", f->name);
	}
	json_end_object(j);
}

/* report --wakers: who made whom wait, and the GIL's holders (wakers.h). */
static void wakers_keys(struct json *j, const struct profile *p)
{
	struct wakers_table t;
	size_t i;

	wakers_table(p, &t);
	json_key(j, "wakers");
	json_begin_object(j);
	json_key(j, "nanoseconds");
	json_uint(j, t.ns);
	json_key(j, "rows");
	json_begin_array(j);
	for (i = 0; i < t.nr_rows; i++) {
		const struct wakers_row *r = &t.rows[i];

		json_begin_object(j);
		wake_frame(j, "waiting", &p->frames[r->waiter], 0);
		kv_str(j, "reason", wait_reason_name(r->reason));
		wake_frame(j, "waker", &p->frames[r->waker], 1);
		json_key(j, "after_timed_waits");
		json_bool(j, r->timed);
		json_key(j, "threads");
		json_uint(j, r->threads);
		json_key(j, "count");
		json_uint(j, r->count);
		json_key(j, "nanoseconds");
		json_uint(j, r->ns);
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "gil");
	json_begin_object(j);
	json_key(j, "nanoseconds");
	json_uint(j, t.gil_ns);
	json_key(j, "threads");
	json_uint(j, t.gil_threads);
	json_key(j, "after_timed_waits_nanoseconds");
	json_uint(j, t.gil_timed_ns);
	json_key(j, "unknown_nanoseconds");
	json_uint(j, t.gil_unknown_ns);
	json_key(j, "other_nanoseconds");
	json_uint(j, t.gil_other_ns);
	json_key(j, "holders");
	json_begin_array(j);
	for (i = 0; i < t.nr_holders; i++) {
		const struct wakers_holder *h = &t.holders[i];

		json_begin_object(j);
		wake_frame(j, "holder", &p->frames[h->holder], 0);
		wake_frame(j, "line", &p->frames[h->line], 1);
		json_key(j, "lines");
		json_uint(j, h->lines);
		json_key(j, "threads");
		json_uint(j, h->threads);
		json_key(j, "count");
		json_uint(j, h->count);
		json_key(j, "nanoseconds");
		json_uint(j, h->ns);
		json_key(j, "held_nanoseconds");
		json_uint(j, h->held_ns);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	json_end_object(j);
	wakers_table_release(&t);
}

/* A thread's time running and waiting by reason (nanoseconds). */
static void thread_waits(struct json *j, const struct profile *p,
			 const struct task *t)
{
	uint64_t off = 0;
	int r;

	json_key(j, "waits");
	json_begin_object(j);
	for (r = 0; r < WAIT_NR; r++) {
		off += t->offcpu[r];
		if (!t->offcpu[r])
			continue;
		json_key(j, wait_reason_name(r));
		json_uint(j, t->offcpu[r]);
	}
	json_end_object(j);
	if (p->clock == PROFILE_CLOCK_WALL) {
		json_key(j, "running");
		json_uint(j, t->weight - off);
	}
}

/* Sum of per-task totals into acc for the tasks of pid. */
static void add_task(const struct profile *p, uint32_t task, uint64_t *s,
		     uint64_t *t, uint64_t *acc_s, uint64_t *acc_t)
{
	size_t i;

	profile_frame_totals(p, task, s, t);
	for (i = 0; i < p->nr_frames; i++) {
		acc_s[i] += s[i];
		acc_t[i] += t[i];
	}
}

int fmt_json_write(const struct profile *p, const struct fmt_opts *o,
		   FILE *fp, char *err, size_t errlen)
{
	size_t n = p->nr_frames ? p->nr_frames : 1, i, k;
	uint64_t *self = xcalloc(n, sizeof(*self));
	uint64_t *total = xcalloc(n, sizeof(*total));
	uint64_t *ps = xcalloc(n, sizeof(*ps)), *pt = xcalloc(n, sizeof(*pt));
	uint32_t *order = xmalloc(n * sizeof(*order));
	pid_t *pids = xmalloc((p->nr_threads + 1) * sizeof(*pids));
	size_t npids = 0;
	struct weight_keys keys;
	struct json j;
	int ret = 0;

	weight_keys_init(&keys, p->unit);

	json_init(&j, fp, 1);
	json_begin_object(&j);
	kv_str(&j, "format", "pyperf-run-report");
	json_key(&j, "version");
	json_int(&j, 1);
	json_key(&j, "session");
	json_begin_object(&j);
	kv_str(&j, "command", p->command);
	kv_str(&j, "mode", p->mode);
	kv_str(&j, "python", p->python);
	kv_str(&j, "python_version", p->python_version);
	kv_str(&j, "perf_version", p->perf_version);
	kv_str(&j, "event", p->event);
	json_key(&j, "frequency");
	if (p->frequency)
		json_uint(&j, p->frequency);
	else
		json_null(&j);
	json_key(&j, "duration");
	if (p->duration >= 0)
		json_double(&j, p->duration);
	else
		json_null(&j);
	/* record --max-size, and when recording stopped there */
	json_key(&j, "max_size");
	if (p->max_size)
		json_uint(&j, p->max_size);
	else
		json_null(&j);
	json_key(&j, "max_size_stop");
	if (p->max_size_stop >= 0)
		json_double(&j, p->max_size_stop);
	else
		json_null(&j);
	json_end_object(&j);
	kv_str(&j, "view", view_str(p->view));
	/* a samples profile has no "unit" (it is in its keys' names) */
	if (p->unit != UNIT_SAMPLES)
		kv_str(&j, "unit", keys.total);
	if (p->clock != PROFILE_CLOCK_CPU)
		clock_keys(&j, p);
	if (p->nr_wakes)
		wakers_keys(&j, p);
	json_key(&j, keys.total);
	json_uint(&j, p->total_weight);
	json_key(&j, "period");
	json_uint(&j, p->total_period);
	json_key(&j, "filtered_out");
	json_uint(&j, p->dropped);
	warnings(&j, p);

	profile_frame_totals(p, PROFILE_NO_TASK, self, total);
	functions(&j, p, &keys, self, total, p->total_weight, order);

	/* processes in order of appearance */
	for (i = 0; i < p->nr_threads; i++) {
		for (k = 0; k < npids; k++)
			if (pids[k] == p->threads[i].pid)
				break;
		if (k == npids)
			pids[npids++] = p->threads[i].pid;
	}
	json_key(&j, "processes");
	json_begin_array(&j);
	for (k = 0; k < npids; k++) {
		uint64_t weight = 0;
		const char *comm = NULL;
		int have_tasks = 0;

		for (i = 0; i < p->nr_threads; i++) {
			if (p->threads[i].pid != pids[k])
				continue;
			weight += p->threads[i].weight;
			if (!comm || p->threads[i].tid == pids[k])
				comm = p->threads[i].comm;
		}
		json_begin_object(&j);
		json_key(&j, "pid");
		json_int(&j, pids[k]);
		kv_str(&j, "comm", comm);
		json_key(&j, keys.total);
		json_uint(&j, weight);
		json_key(&j, "share");
		json_double(&j, share(weight, p->total_weight));
		if (p->group != PROFILE_MERGED) {
			memset(ps, 0, n * sizeof(*ps));
			memset(pt, 0, n * sizeof(*pt));
			for (i = 0; i < p->nr_tasks; i++) {
				if (p->tasks[i].pid != pids[k])
					continue;
				add_task(p, (uint32_t)i, self, total, ps, pt);
				have_tasks = 1;
			}
			if (have_tasks)
				functions(&j, p, &keys, ps, pt, weight,
					  order);
		}
		json_key(&j, "threads");
		json_begin_array(&j);
		for (i = 0; i < p->nr_threads; i++) {
			const struct task *t = &p->threads[i];
			size_t ti;

			if (t->pid != pids[k])
				continue;
			json_begin_object(&j);
			json_key(&j, "tid");
			json_int(&j, t->tid);
			kv_str(&j, "comm", t->comm);
			json_key(&j, keys.total);
			json_uint(&j, t->weight);
			json_key(&j, "share");
			json_double(&j, share(t->weight, p->total_weight));
			if (p->clock != PROFILE_CLOCK_CPU)
				thread_waits(&j, p, t);
			if (p->group == PROFILE_BY_THREAD) {
				for (ti = 0; ti < p->nr_tasks; ti++)
					if (p->tasks[ti].pid == t->pid &&
					    p->tasks[ti].tid == t->tid)
						break;
				if (ti < p->nr_tasks) {
					profile_frame_totals(p, (uint32_t)ti,
							     self, total);
					functions(&j, p, &keys, self, total,
						  t->weight, order);
				}
			}
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	if (json_finish(&j) < 0 || ferror(fp))
		ret = set_err(err, errlen, "write error: %s",
			      strerror(errno));
	free(self);
	free(total);
	free(ps);
	free(pt);
	free(order);
	free(pids);
	(void)o;
	return ret;
}
