/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: the report's sample pipeline (lib/report/pipeline_priv.h)
 * fed samples by hand, as a source does, through the live profile's
 * entry (profile_live_sample(): the same stages as profile_load()).
 * The samples have Python frames already named (SAMPLE_FRAME_PYTHON:
 * function, file, line), as the in-kernel frame walker will give them,
 * mixed with address frames still to be named; and the accepting
 * stage's rule for pyperf-run's own samples, on the loader itself.
 */
#include "compat.h"
#include "alloc.h"
#include "strbuf.h"
#include "report/src_owntasks.h"
#include "report/pipeline_priv.h"
#include "report/profile.h"
#include "report/sample.h"
#include "sample_frames.h"
#include "tap.h"


static void fill(struct sample *s, const struct sample_frame *f, size_t n,
		 uint64_t time_ns, pid_t pid, const char *comm)
{
	sample_init(s);
	s->time_ns = time_ns;
	s->pid = pid;
	s->tid = pid;
	s->comm = str(comm);
	s->period = 1000000;
	s->event = str("cpu-clock");
	s->frames = f;
	s->nr_frames = n;
}

static void feed(struct profile_live *lv, const struct sample_frame *f,
		 size_t n, uint64_t time_ns)
{
	struct sample s;

	sample_init(&s);
	s.time_ns = time_ns;
	s.pid = 100;
	s.tid = 100;
	s.comm = str("python3");
	s.period = 1000000;
	s.event = str("cpu-clock");
	s.frames = f;
	s.nr_frames = n;
	profile_live_sample(lv, &s);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stacks' frame names, root first, "a;b" one stack a line, sorted. */
static void stacks(const struct profile *p, struct strbuf *out)
{
	struct strvec v = STRVEC_INIT;
	size_t i, j;

	for (i = 0; i < p->nr_stacks; i++) {
		struct strbuf sb = STRBUF_INIT;

		for (j = 0; j < p->stacks[i].depth; j++)
			strbuf_addf(&sb, "%s%s", j ? ";" : "",
				    p->frames[p->stacks[i].frames[j]].name);
		strvec_push(&v, sb.buf);
		strbuf_release(&sb);
	}
	qsort(v.v, v.nr, sizeof(*v.v), str_cmp);
	strbuf_reset(out);
	for (i = 0; i < v.nr; i++)
		strbuf_addf(out, "%s\n", v.v[i]);
	strvec_clear(&v);
}

/* The frame named name, or UINT32_MAX. */
static uint32_t frame_named(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nr_frames; i++)
		if (!strcmp(p->frames[i].name, name))
			return (uint32_t)i;
	return UINT32_MAX;
}

static void load(struct profile *p, enum profile_view view,
		 struct strbuf *out)
{
	struct profile_filter f = PROFILE_FILTER_INIT;
	struct profile_live *lv;
	/* the walker's sample: two named Python frames over the loop */
	const struct sample_frame walked[] = {
		py("Model.step", "/app/model.py", 42),
		py("main", "/app/run.py", 7),
		addr(0x5000, "_PyEval_EvalFrameDefault",
		     "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0"),
		addr(0x4000, "Py_RunMain", "/usr/bin/python3.11"),
		addr(0x1000, "_start", "/usr/bin/python3.11"),
	};
	/* the same function as a perf map names it (no line) */
	const struct sample_frame mapped[] = {
		addr(0x7f0000001000ull, "py::Model.step:/app/model.py",
		     "[unknown]"),
		py("main", "/app/run.py", 0),
		addr(0x1000, "_start", "/usr/bin/python3.11"),
	};
	/* a name read from a damaged interpreter: dropped, said */
	const struct sample_frame damaged[] = {
		py("bad\xff", "/app/run.py", 1),
		addr(0x1000, "_start", "/usr/bin/python3.11"),
	};

	f.view = view;
	profile_live_new(&lv, p, &f, NULL, 0);
	profile_live_refresh(lv);
	feed(lv, walked, ARRAY_SIZE(walked), 1000);
	feed(lv, mapped, ARRAY_SIZE(mapped), 2000);
	feed(lv, damaged, ARRAY_SIZE(damaged), 3000);
	profile_live_free(lv);
	stacks(p, out);
}

/* The samples in p (each weighs one): the leaf frames' self counts. */
static uint64_t samples_in(const struct profile *p)
{
	uint64_t *self = xcalloc(p->nr_frames + 1, sizeof(*self));
	uint64_t *total = xcalloc(p->nr_frames + 1, sizeof(*total));
	uint64_t n = 0;
	size_t i;

	profile_frame_totals(p, PROFILE_NO_TASK, self, total);
	for (i = 0; i < p->nr_frames; i++)
		n += self[i];
	free(self);
	free(total);
	return n;
}

/*
 * pyperf-run's own tasks (report/src_owntasks.h): the exec helper, and
 * what it starts until that execs; their samples, marked own by the
 * source, are not the program's: neither kept nor counted as filtered
 * out, nor as threads.
 */
static void own_samples(void)
{
	struct profile_filter f = PROFILE_FILTER_INIT;
	const struct sample_frame fr[] = {
		py("main", "/app/run.py", 7),
		addr(0x1000, "_start", "/usr/bin/python3.11"),
	};
	struct own_tasks o;
	struct profile p;
	struct loader l;
	struct sample s;

	own_tasks_init(&o, 10);
	own_tasks_exec(&o, 10);		/* perf exec'ing the helper */
	TAP_OK(own_tasks_has(&o, 10), "the helper is ours after its own exec");
	own_tasks_fork(&o, 10, 11);
	own_tasks_fork(&o, 11, 12);	/* a thread of the program's process */
	TAP_OK(own_tasks_has(&o, 11) && own_tasks_has(&o, 12),
	       "  what it starts is ours, and what that starts");
	own_tasks_exec(&o, 11);
	TAP_OK(!own_tasks_has(&o, 11), "  until it execs the program");
	own_tasks_fork(&o, 11, 13);
	TAP_OK(!own_tasks_has(&o, 13), "  the program's children are not ours");
	own_tasks_exec(&o, 12);		/* its exit */
	TAP_OK(!own_tasks_has(&o, 12), "  nor a reused tid after an exit");
	own_tasks_release(&o);
	own_tasks_init(&o, 0);
	own_tasks_fork(&o, 1, 2);
	TAP_OK(!own_tasks_has(&o, 1) && !own_tasks_has(&o, 2) &&
	       !own_tasks_has(&o, 0), "  none without a helper");
	own_tasks_release(&o);

	loader_init(&l, &p, &f);
	loader_frames(&l);
	fill(&s, fr, ARRAY_SIZE(fr), 1000, 10, "pyperf-run");
	s.own = 1;
	pipeline_sample(&l, &s);	/* the helper */
	fill(&s, fr, ARRAY_SIZE(fr), 2000, 11, "pyperf-run");
	s.own = 1;
	pipeline_sample(&l, &s);	/* the program before its exec */
	fill(&s, fr, ARRAY_SIZE(fr), 3000, 11, "python3");
	pipeline_sample(&l, &s);	/* the program */
	fill(&s, fr, ARRAY_SIZE(fr), 4000, 12, "pyperf-run");
	pipeline_sample(&l, &s);	/* a program named so: the program's */
	TAP_INT(samples_in(&p), 2, "pyperf-run's own samples left out");
	TAP_INT(p.dropped, 0, "  and not counted as filtered out");
	TAP_INT(p.nr_threads, 2, "  nor as threads");
	loader_release(&l);
	profile_release(&p);
}

int main(void)
{
	struct profile p;
	struct strbuf sb = STRBUF_INIT;
	uint64_t *self, *total;
	uint32_t id;

	load(&p, PROFILE_VIEW_PYTHON, &sb);
	id = frame_named(&p, "Model.step (/app/model.py:42)");
	TAP_OK(id != UINT32_MAX, "a named Python frame is a Python frame");
	if (id != UINT32_MAX) {
		TAP_INT(p.frames[id].kind, FRAME_PYTHON, "  of kind python");
		TAP_STR(p.frames[id].func, "Model.step", "  its qualname");
		TAP_STR(p.frames[id].file, "/app/model.py", "  its file");
		TAP_INT(p.frames[id].line, 42, "  its line");
	}
	self = xcalloc(p.nr_frames, sizeof(*self));
	total = xcalloc(p.nr_frames, sizeof(*total));
	profile_frame_totals(&p, PROFILE_NO_TASK, self, total);
	TAP_INT(id != UINT32_MAX ? self[id] : 0, 1,
		"a line is a frame of its own");
	id = frame_named(&p, "Model.step (/app/model.py)");
	TAP_INT(id != UINT32_MAX ? self[id] : 0, 1,
		"a walker's frame without a line and a perf map's: the same");
	free(self);
	free(total);
	/* the damaged frame is no Python frame: the sample ran in user code */
	TAP_STR(sb.buf, "[native]\n"
		"main (/app/run.py);Model.step (/app/model.py)\n"
		"main (/app/run.py:7);Model.step (/app/model.py:42)\n",
		"python view: the Python frames, lines where known");
	TAP_INT(p.quality.bad_names, 1, "the damaged name is counted");
	TAP_INT(p.quality.cut[CUT_NONE], 3,
		"every stack reaches _start: complete");
	profile_release(&p);

	load(&p, PROFILE_VIEW_MIXED, &sb);
	TAP_STR(sb.buf, "_start;[unknown]\n"
		"main (/app/run.py);Model.step (/app/model.py)\n"
		"main (/app/run.py:7);Model.step (/app/model.py:42)\n",
		"mixed view: the eval loop and start-up folded away");
	profile_release(&p);

	load(&p, PROFILE_VIEW_ALL, &sb);
	TAP_STR(sb.buf, "_start;Py_RunMain;_PyEval_EvalFrameDefault;"
		"main (/app/run.py:7);Model.step (/app/model.py:42)\n"
		"_start;[unknown]\n"
		"_start;main (/app/run.py);Model.step (/app/model.py)\n",
		"all view: every frame, named ones in place");
	profile_release(&p);
	strbuf_release(&sb);
	own_samples();
	return tap_done();
}
