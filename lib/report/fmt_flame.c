/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the flame-graph writers share: kind names, header lines and
 * warnings.
 */
#include "compat.h"
#include "report/fmt_flame.h"
#include "alloc.h"
#include "strbuf.h"


const char *flame_kind_name(enum flame_kind k)
{
	static const char *const names[FLAME_KIND_NR] = {
		"Python", "libpython", "C extension", "system library",
		"native", "kernel", "interpreter plumbing", "unknown",
		"process/thread", "off-CPU"
	};

	return (unsigned)k < FLAME_KIND_NR ? names[k] : "unknown";
}

/* --- header ------------------------------------------------------------ */

static void fmt_duration(struct strbuf *sb, double secs)
{
	if (secs < 1.0)
		strbuf_addf(sb, "%.0f ms", secs * 1000.0);
	else if (secs < 120.0)
		strbuf_addf(sb, "%.2f s", secs);
	else
		strbuf_addf(sb, "%lu min %.0f s", (unsigned long)(secs / 60),
			    secs - 60.0 * (unsigned long)(secs / 60));
}

size_t flame_meta_lines(const struct profile *p, const char **labels,
			char **vals, size_t max)
{
	static const char *const views[] = {
		"mixed (Python + native + kernel)", "Python only",
		"all frames"
	};
	size_t n = 0;
	struct strbuf sb = STRBUF_INIT;
	double dur = p->duration;

#define ADD(l, v) do { if (n < max) { labels[n] = (l); \
	vals[n++] = (v); } else { free(v); } } while (0)

	if (p->command)
		ADD("command", xstrdup(p->command));
	if (p->mode)
		ADD("mode", xasprintf("%s", p->mode));
	if ((unsigned)p->view < ARRAY_SIZE(views))
		ADD("view", xstrdup(views[p->view]));
	if (p->python_version || p->python)
		ADD("interpreter", xasprintf("%s%s%s%s%s",
			p->python_version ? "Python " : "",
			p->python_version ? p->python_version : "",
			p->python_version && p->python ? " (" : "",
			p->python ? p->python : "",
			p->python_version && p->python ? ")" : ""));
	if (dur < 0 && p->last_time > p->first_time)
		dur = p->last_time - p->first_time;
	if (dur >= 0) {
		fmt_duration(&sb, dur);
		ADD("duration", strbuf_detach(&sb, NULL));
	}
	/* a time as people read it, a count as the number */
	if (p->unit == UNIT_NS) {
		char tb[FMT_TIME_LEN];

		ADD("time", xstrdup(fmt_time_ns(p->total_weight, tb,
						sizeof(tb))));
	} else {
		ADD(weight_unit_info(p->unit)->name, xasprintf("%llu",
			(unsigned long long)p->total_weight));
	}
	if (p->dropped)
		ADD("filtered out", xasprintf("%llu samples",
			(unsigned long long)p->dropped));
	if (p->event) {
		if (p->frequency)
			ADD("event", xasprintf("%s @ %lu Hz", p->event,
					       p->frequency));
		else
			ADD("event", xstrdup(p->event));
	}
	if (p->nr_tasks) {
		size_t i, j, procs = 0;

		for (i = 0; i < p->nr_tasks; i++) {
			for (j = 0; j < i; j++)
				if (p->tasks[j].pid == p->tasks[i].pid)
					break;
			procs += j == i;
		}
		ADD("processes / threads", xasprintf("%zu / %zu", procs,
						     p->nr_tasks));
	}
	if (p->perf_version)
		ADD("perf", xstrdup(p->perf_version));
#undef ADD
	strbuf_release(&sb);
	return n;
}

/* p's sentences, then a diff's old ones, from get (warnings or notes). */
static size_t both(const struct profile *p, const struct profile *old_p,
		   size_t (*get)(const struct profile *, char ***),
		   char ***out)
{
	char **w, **ow;
	size_t n = get(p, &w), on, i;

	if (!old_p) {
		*out = w;
		return n;
	}
	on = get(old_p, &ow);
	w = xrealloc(w, (n + on + 1) * sizeof(*w));
	for (i = 0; i < on; i++) {
		w[n++] = xasprintf("old session: %s", ow[i]);
		free(ow[i]);
	}
	free(ow);
	*out = w;
	return n;
}

size_t flame_warnings(const struct profile *p, const struct profile *old_p,
		      char ***out)
{
	return both(p, old_p, fmt_warnings, out);
}

size_t flame_notes(const struct profile *p, const struct profile *old_p,
		   char ***out)
{
	return both(p, old_p, fmt_notes, out);
}
