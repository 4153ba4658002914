/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit test of the walker's recording loop (lib/walker/wrecord.h)
 * against stand-ins of what it drives: the loader (walker.h: its ring
 * buffer replaced by events built here), pytarget_inspect() (answers
 * set per process) and the code-object cache (pycode.h: calls
 * counted, the save writes a marker file).  The real ones are other
 * files of lib/walker/; this test defines the functions itself, so the
 * linker takes these and leaves the archive's alone.  What it checks is
 * the loop's own logic: the child added before its exec is watched
 * bare, its NO_PROC samples retry the inspection at a bounded rate,
 * the interpreter is handed to BPF once found, an exec starts over,
 * a fork inherits, an exit unwatches, frames are named through the
 * process's target, lost events are counted, pycode is saved into the
 * session, and the stats say what became of each process.
 */
#include "compat.h"
#include "paths.h"
#include "perfdata.h"
#include "tap.h"
#include "walker_events.h"
#include "walker/pycode.h"
#include "walker/pyqual.h"
#include "walker/pythreads.h"
#include "walker/walker.h"
#include "walker/wrecord.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull

/* --- stand-ins ----------------------------------------------------------- */

struct walker {
	int unused;
};

struct pycode_cache {
	int unused;
};

#define MAX_SET 32

static struct {
	struct walker w;
	struct walker_opts opts;
	int opened, closed, attached, layouts;
	struct {
		pid_t pid;
		struct walker_proc p;
	} set[MAX_SET];
	int nr_set;
	pid_t deleted;
	struct ev evs[16];
	int nr_evs;
	uint64_t lost;
	enum pytarget_status status[1024];	/* by pid */
	int inspects[1024];
	int gets;
	int thread_reads;	/* pythreads_read() calls */
	pid_t get_pid;
	int saves;
	char save_path[256];
} F;

int walker_open(struct walker **out, const struct walker_opts *o,
		int *errnum, char *err, size_t errlen)
{
	F.opened++;
	F.opts = *o;
	*out = &F.w;
	return 0;
}

void walker_close(struct walker *w)
{
	F.closed++;
}

int walker_add_layout(struct walker *w, const struct walker_layout *l,
		      __u32 *id, char *err, size_t errlen)
{
	*id = (__u32)F.layouts++;
	return 0;
}

int walker_set_proc(struct walker *w, pid_t tgid,
		    const struct walker_proc *p, char *err, size_t errlen)
{
	if (F.nr_set == MAX_SET)
		return set_err(err, errlen, "too many");
	F.set[F.nr_set].pid = tgid;
	F.set[F.nr_set++].p = *p;
	return 0;
}

int walker_del_proc(struct walker *w, pid_t tgid)
{
	F.deleted = tgid;
	return 0;
}

int walker_preattach(struct walker *w, pid_t tid, uint64_t state, char *err,
		     size_t errlen)
{
	return 0;
}

void walker_preattach_poll(struct walker *w)
{
}

void walker_preattach_rest(const struct walker *w, uint64_t attach_ns,
			   uint64_t end_ns, uint64_t *n, uint64_t *ns)
{
	*n = *ns = 0;
}

int walker_attach(struct walker *w, char *err, size_t errlen)
{
	F.attached++;
	return 0;
}

int walker_poll(struct walker *w, int timeout_ms, walker_event_fn cb,
		void *data)
{
	int i, n = F.nr_evs;

	for (i = 0; i < n; i++) {
		cb(data, F.evs[i].buf, F.evs[i].len);
		ev_free(&F.evs[i]);
	}
	F.nr_evs = 0;
	return n;
}

uint64_t walker_lost(const struct walker *w)
{
	return F.lost;
}

/* the finish's count of copies that probed pages: none here */
uint64_t walker_ustack_probes(const struct walker *w)
{
	return 0;
}

/* not timed here: the finish reads no cost */
int walker_cost(const struct walker *w, uint64_t *ns, uint64_t *runs)
{
	*ns = *runs = 0;
	return -1;
}

/* no kernel stacks here: the own programs' ranges are never asked for */
int walker_prog_ranges(const struct walker *w,
		       void (*cb)(void *data, uint64_t start, uint64_t end),
		       void *data)
{
	return 0;
}

enum pytarget_status pytarget_inspect(pid_t pid, struct pytarget *t)
{
	enum pytarget_status st = F.status[pid];

	F.inspects[pid]++;
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (st == PYTARGET_OK) {
		snprintf(t->version, sizeof(t->version), "3.11.2");
		t->hexversion = 0x030b02f0;
		t->runtime = 0x9a0000;
		t->layout.frame_kind = WALKER_IFRAME;
	} else if (st == PYTARGET_UNSUPPORTED) {
		snprintf(t->why, sizeof(t->why),
			 "python 2.7.18 is not supported");
	} else {
		snprintf(t->why, sizeof(t->why), "not yet");
	}
	return st;
}

struct pycode_cache *pycode_cache_new(void)
{
	return calloc(1, sizeof(struct pycode_cache));
}

void pycode_cache_free(struct pycode_cache *c)
{
	free(c);
}

const struct pycode *pycode_get(struct pycode_cache *c,
				const struct pytarget *t, uint64_t addr,
				uint16_t tag)
{
	static const struct pycode code = {
		.qualname = "spin", .filename = "x.py", .firstlineno = 1,
		.named = 1,
	};

	F.gets++;
	F.get_pid = t->pid;
	return &code;
}

/* every code object is cached: no poll is made quick (WREC_QUICK_MS) */
uint64_t pycode_reads(const struct pycode_cache *c)
{
	return 0;
}

int pycode_save(const struct pycode_cache *c, const char *path, char *err,
		size_t errlen)
{
	F.saves++;
	snprintf(F.save_path, sizeof(F.save_path), "%s", path);
	return 0;
}

/* record's pycode file in parts: what each part wrote, as words */
void pycode_header(struct strbuf *out)
{
	strbuf_addstr(out, "header\n");
}

void pycode_spill(struct pycode_cache *c, pid_t pid, struct strbuf *out)
{
	strbuf_addf(out, "spill %d\n", (int)pid);
}

void pycode_lines(const struct pycode_cache *c, struct strbuf *out)
{
	strbuf_addstr(out, "lines\n");
}

/* 3.11 here: nothing is left to qualify after a poll */
const struct pycode *pycode_find(const struct pycode_cache *c, pid_t pid,
				 uint64_t addr, uint16_t tag)
{
	return NULL;
}

/* pycode's names beyond the code objects: 3.11 here, nothing to add */
int pycode_qualify(struct pycode_cache *c, pid_t pid, uint64_t addr,
		   uint16_t tag, const char *qualname)
{
	return -1;
}

size_t pycode_unqualified(const struct pycode_cache *c, const char **example)
{
	*example = NULL;
	return 0;
}

const char *pycode_thread_name(const struct pycode_cache *c, pid_t pid,
			       pid_t tid)
{
	return NULL;
}

size_t pythreads_read(struct pycode_cache *c, const struct pytarget *t)
{
	F.thread_reads++;
	return 0;
}

struct pyqual *pyqual_new(void)
{
	return NULL;
}

void pyqual_free(struct pyqual *q)
{
}

const char *pyqual_lookup(struct pyqual *q, const struct pytarget *t,
			  uint64_t code, const char *file, uint64_t now_ns)
{
	return NULL;
}

void pyqual_forget(struct pyqual *q, pid_t pid)
{
}

/* --- the test ------------------------------------------------------------ */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void push(struct ev e)
{
	F.evs[F.nr_evs++] = e;
}

static struct ev sample(pid_t pid, uint64_t time, uint32_t flags,
			unsigned npy)
{
	struct sample_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.type = WALKER_EV_SAMPLE;
	sp.pid = sp.tid = (uint32_t)pid;
	sp.time = time;
	sp.flags = flags;
	sp.npy = npy;
	return ev_sample(&sp);
}

/* The last walker_set_proc() of pid, or NULL. */
static const struct walker_proc *last_set(pid_t pid)
{
	int i;

	for (i = F.nr_set - 1; i >= 0; i--)
		if (F.set[i].pid == pid)
			return &F.set[i].p;
	return NULL;
}

static const struct wrec_proc *note(const struct wrec_stats *st, pid_t pid)
{
	size_t i;

	for (i = 0; i < st->nr_procs; i++)
		if (st->procs[i].pid == pid)
			return &st->procs[i];
	return NULL;
}

static int count_record(void *data, const void *rec, size_t len)
{
	(*(unsigned *)data)++;
	return 0;
}

/* top's way: no session file, records handed over, the attrs' image. */
static void stream_mode(void)
{
	struct wrec_opts o;
	struct wrec *w;
	struct perfdata d;
	unsigned char *image = NULL;
	size_t len = 0;
	unsigned records = 0;
	char err[PPR_ERR_LEN];
	int errnum, saves = F.saves, ok, reads;

	memset(&o, 0, sizeof(o));
	o.freq = 99;
	o.wall = 1;	/* the off-CPU events too */
	o.ustack_bytes = 64;
	o.record_fn = count_record;
	o.record_data = &records;
	ok = wrec_start(&w, &o, &errnum, err, sizeof(err)) == 0;
	TAP_OK(ok, "stream: started without a session: %s", ok ? "" : err);
	if (!ok)
		return;
	ok = wrec_image(w, &image, &len, err, sizeof(err)) == 0 &&
	     perfdata_open_mem(&d, image, len, err, sizeof(err)) == 0;
	TAP_OK(ok && d.nr_attrs == 2, "stream: the attrs' image decodes");
	if (ok)
		perfdata_close(&d);
	F.status[100] = PYTARGET_OK;
	TAP_OK(wrec_add_pid(w, 100, 0, err, sizeof(err)) == 0 &&
	       wrec_attach(w, err, sizeof(err)) == 0, "stream: attached");
	reads = F.thread_reads;
	push(sample(100, mono_ns(), 0, 1));
	push(sample(100, mono_ns(), 0, 1));
	push(sample(100, mono_ns(), 0, 1));
	TAP_OK(wrec_poll(w, 10, err, sizeof(err)) == 0 &&
	       F.thread_reads == reads + 1, "stream: thread names read once "
	       "for three samples in a row (%d)", F.thread_reads - reads);
	TAP_OK(wrec_finish(w, err, sizeof(err)) == 0 && records >= 2 &&
	       F.saves == saves, "stream: records handed over (%u), no "
	       "pycode file", records);
	free(image);
	wrec_free(w);
}

/* A line of lines that starts with head and ends with tail. */
static int has_line(const struct strvec *lines, const char *head,
		    const char *tail)
{
	size_t i, h = strlen(head), t = strlen(tail);

	for (i = 0; i < lines->nr; i++) {
		size_t n = strlen(lines->v[i]);

		if (n >= h + t && !strncmp(lines->v[i], head, h) &&
		    !strcmp(lines->v[i] + n - t, tail))
			return 1;
	}
	return 0;
}

/* The counted sentences agree with their count: one, or more. */
static void describe_counts(void)
{
	struct wrec_stats st;
	struct strvec lines = STRVEC_INIT;

	memset(&st, 0, sizeof(st));
	st.conv.samples = st.conv.samples_py = 200;
	st.conv.py_cut = 1;
	st.conv.walker_own = 1;
	wrec_describe(&st, &lines);
	TAP_OK(has_line(&lines, "1 sample (", "%) has its Python stack cut, "
			"at a frame that could not be read"),
	       "one cut stack: its sentence in the singular");
	TAP_OK(has_line(&lines, "1 sample (", "%) was taken while the walker's "
			"own BPF programs ran in the program's threads: "
			"pyperf-run's cost, under bpf_trace_run* in its kernel "
			"stack"),
	       "one sample in the walker's own programs: likewise");
	strvec_clear(&lines);
	st.conv.py_cut = 3;
	st.conv.flags[2] = 1;
	st.conv.walker_own = 2;
	wrec_describe(&st, &lines);
	TAP_OK(has_line(&lines, "3 samples (", "%) have their Python stacks "
			"cut: 1 at the frame limit, the others at a frame that "
			"could not be read") &&
	       has_line(&lines, "2 samples (", "%) were taken while the "
			"walker's own BPF programs ran in the program's "
			"threads: pyperf-run's cost, under bpf_trace_run* in "
			"their kernel stacks"),
	       "several: in the plural");
	strvec_clear(&lines);
}

int main(void)
{
	char dir[] = "/tmp/t-wrecord-loop-XXXXXX";
	char err[PPR_ERR_LEN], *path = NULL;
	const char *argv[] = { "python3", "x.py", NULL };
	struct wrec_opts o;
	struct wrec_stats st;
	const struct walker_proc *wp;
	const struct wrec_proc *n;
	struct wrec *w;
	struct perfdata d;
	struct stat sb;
	uint64_t t;
	int errnum, sets, ok;

	if (!mkdtemp(dir))
		return 1;
	memset(&o, 0, sizeof(o));
	o.session_dir = dir;
	o.freq = 99;
	o.wall = 1;	/* the off-CPU events too */
	o.ustack_bytes = 256;
	o.max_py_frames = 128;
	o.follow_children = 1;
	o.wall = 1;
	o.cmdline = argv;
	ok = wrec_start(&w, &o, &errnum, err, sizeof(err)) == 0;
	TAP_OK(ok, "started: %s", ok ? "" : err);
	if (!ok)
		return tap_done();
	TAP_OK(F.opened == 1 && F.opts.freq == 99 &&
	       F.opts.ustack_bytes == 256 && F.opts.max_py_frames == 128 &&
	       F.opts.follow_children == 1 && F.opts.wall == 1,
	       "the walker opened with the options");

	/* our child before its exec: watched bare, not inspected */
	TAP_OK(wrec_add_pid(w, 100, WREC_BEFORE_EXEC, err, sizeof(err)) == 0,
	       "child added before its exec");
	wp = last_set(100);
	TAP_OK(wp && wp->runtime == 0 && wp->flags == WALKER_PROC_WATCHED &&
	       F.inspects[100] == 0, "watched with no interpreter");
	F.status[300] = PYTARGET_UNSUPPORTED;
	TAP_OK(wrec_add_pid(w, 300, 0, err, sizeof(err)) < 0 &&
	       strstr(err, "process 300: python 2.7.18 is not supported"),
	       "an unsupported process refused: %s", err);
	F.status[301] = F.status[302] = PYTARGET_UNSUPPORTED;
	TAP_OK(wrec_add_pid(w, 301, 0, err, sizeof(err)) < 0 &&
	       wrec_add_pid(w, 302, 0, err, sizeof(err)) < 0,
	       "two more refused");
	TAP_OK(wrec_attach(w, err, sizeof(err)) == 0 && F.attached == 1,
	       "attached");

	/* it execs; the interpreter is not set up yet */
	F.status[100] = PYTARGET_NOT_YET;
	t = mono_ns();
	push(ev_task(WALKER_EV_EXEC, t, 100, 100, 0, 0, "python3"));
	push(sample(100, t + 1 * MS, WALKER_F_NO_PROC, 0));
	push(sample(100, t + 2 * MS, WALKER_F_NO_PROC, 0));
	TAP_OK(wrec_poll(w, 10, err, sizeof(err)) == 0, "poll 1");
	TAP_INT(F.inspects[100], 1, "exec: inspected once; its samples "
		"within the retry interval are not");
	wp = last_set(100);
	TAP_OK(wp && wp->runtime == 0, "exec: watched bare again");

	/* later, it is ready: the next NO_PROC sample finds it */
	usleep(45000);		/* past the doubled retry interval (40 ms) */
	F.status[100] = PYTARGET_OK;
	push(sample(100, t + 50 * MS, WALKER_F_NO_PROC, 0));
	TAP_OK(wrec_poll(w, 10, err, sizeof(err)) == 0, "poll 2");
	TAP_INT(F.inspects[100], 2, "a later sample retried");
	wp = last_set(100);
	TAP_OK(wp && wp->runtime == 0x9a0000 && wp->layout == 0 &&
	       wp->flags == WALKER_PROC_WATCHED && F.layouts == 1,
	       "its runtime and layout handed to BPF");

	/* walked: frames named; a fork inherits; the child exits */
	push(sample(100, t + 60 * MS, 0, 2));
	push(ev_task(WALKER_EV_FORK, t + 61 * MS, 101, 101, 100, 100,
		     "python3"));
	push(sample(101, t + 62 * MS, 0, 1));
	push(ev_exit_last(t + 63 * MS, 101, 101, 100, 100));
	sets = F.nr_set;
	F.lost = 5;
	TAP_OK(wrec_poll(w, 10, err, sizeof(err)) == 0, "poll 3");
	TAP_OK(F.gets == 3 && F.get_pid == 101, "frames named through each "
	       "process's own target (%d)", F.gets);
	TAP_OK(F.inspects[101] == 0 && F.nr_set == sets,
	       "the forked child inherits, not inspected");
	TAP_INT(F.deleted, 101, "the exited child unwatched");
	TAP_INT(F.thread_reads, 2, "Python's thread names read at each "
		"process's first sample with Python frames");

	ok = wrec_finish(w, err, sizeof(err)) == 0;
	TAP_OK(ok, "finished: %s", ok ? "" : err);
	if (asprintf(&path, "%s/pycode", dir) < 0)
		abort();
	{
		struct strbuf file = STRBUF_INIT;

		TAP_OK(F.saves == 0 &&
		       strbuf_read_file(&file, path, 4096) >= 0 &&
		       !strcmp(file.buf, "header\nspill 101\nlines\n"),
		       "code objects saved into the session's pycode: the "
		       "exited child's when it exited, the rest at the end");
		strbuf_release(&file);
	}
	free(path);
	wrec_stats(w, &st);
	TAP_INT(st.conv.samples, 5, "stats: samples");
	TAP_INT(st.conv.no_py[WCONV_NOPY_NO_PROC], 3,
		"stats: before the interpreter was found");
	TAP_INT(st.conv.lost, 5, "stats: lost events from walker_lost()");
	TAP_OK(st.events == 8 && st.frames == 3 && st.frames_unnamed == 0 &&
	       st.inspections == 5, "stats: events, frames, inspections");
	n = note(&st, 100);
	TAP_OK(n && n->status == PYTARGET_OK && !strcmp(n->version, "3.11.2") &&
	       n->inspections == 2, "stats: the program's interpreter");
	n = note(&st, 300);
	TAP_OK(n && n->status == PYTARGET_UNSUPPORTED &&
	       strstr(n->why, "2.7.18"), "stats: the refused process, why");
	{
		struct strvec lines = STRVEC_INIT;
		size_t i;

		wrec_describe(&st, &lines);
		for (i = 0; i < lines.nr; i++)
			printf("# %s\n", lines.v[i]);
		TAP_OK(lines.nr >= 4 &&
		       !strcmp(lines.v[0], "5 samples, 2 with Python frames "
			       "(40%); 3 without: 3 before the interpreter "
			       "was found"), "described: the samples");
		TAP_OK(lines.nr >= 4 &&
		       !strcmp(lines.v[1], "5 events were lost: the walker's "
			       "ring buffer was full") &&
		       !strcmp(lines.v[2], "3 processes were not walked "
			       "(300, 301, 302): python 2.7.18 is not "
			       "supported") &&
		       !strncmp(lines.v[lines.nr - 1], "perf.data: ", 11) &&
		       strstr(lines.v[lines.nr - 1], " per sample; the first "
			      "sample "),
		       "described: lost, the processes not walked (once for "
		       "their reason), the size");
		strvec_clear(&lines);
	}
	if (asprintf(&path, "%s/perf.data", dir) < 0)
		abort();
	ok = perfdata_open(&d, path, err, sizeof(err)) == 0;
	TAP_OK(ok && d.nr_attrs == 2 && stat(path, &sb) == 0 &&
	       (sb.st_mode & 0777) == 0600, "perf.data in the session");
	if (ok)
		perfdata_close(&d);
	unlink(path);
	free(path);
	wrec_free(w);
	TAP_INT(F.closed, 1, "the walker closed");
	paths_remove_tree(dir);	/* with the pycode file the loop saved */
	stream_mode();
	describe_counts();
	return tap_done();
}
