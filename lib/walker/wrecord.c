/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walker's recording loop (see wrecord.h): the walker's ring
 * buffer polled into the conversion (wconv.h), whose hooks come back
 * here to inspect processes and name code objects.
 */
#include "compat.h"
#include "walker/wrecord.h"
#include "alloc.h"
#include "fileio.h"
#include "hmap.h"
#include "numparse.h"
#include "walker/pycode.h"
#include "walker/pythreads.h"
#include "walker/pyqual.h"
#include "walker/walker.h"
#include "walker/kself.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#define RETRY_FIRST_NS 5000000ull	/* 5 ms */
#define RETRY_MAX_NS 1000000000ull	/* 1 s */

/* A process as the loop knows it. */
struct lproc {
	struct pytarget t;	/* valid when ok */
	int ok;			/* its interpreter is handed to BPF */
	int final;		/* not to be inspected again */
	uint64_t last_try, retry_ns;
	unsigned tries;		/* since the last exec */
	size_t note;		/* index into w->notes */
	uint64_t threads_walked, threads_ns; /* Python's thread names */
};

/*
 * Python's thread names are read when a thread with Python frames has
 * none yet, at most every THREADS_FIRST_NS doubling to THREADS_MAX_NS
 * while a read finds no new thread (a thread Python's threading module
 * does not know: _thread's, a C extension's), and every THREADS_MAX_NS
 * anyway (a thread renamed).
 */
#define THREADS_FIRST_NS 20000000ull	/* 20 ms */

/*
 * --wall's ring buffer: every context switch is an event with its copy
 * of the stack (up to 8 KiB), so at 50,000 to 100,000 switches a second
 * some 400 to 850 MB a second go through the ring, and the walker's
 * default 16 MiB holds 20 to 40 ms of them.  A burst longer than the
 * reader's wait filled it: 6,000 to 7,500 events lost in each of three
 * runs of two threads passing a byte over pipes (60,000 to 100,000
 * switches a second, this 2-CPU machine), none in three runs with 64 MiB
 * (kernel memory while recording, charged to record's cgroup).
 */
#define WREC_RING_WALL (64u << 20)
#define THREADS_MAX_NS 1000000000ull	/* 1 s */

/*
 * Retries at the first interval while an interpreter usually starts up
 * (a shared libpython is mapped by ld.so after the exec, tens of ms),
 * then doubling: a program that never becomes Python costs little.
 */
#define RETRY_FLAT 40

struct layout_id {
	struct walker_layout l;
	__u32 id;
};

struct wrec {
	struct walker *walker;
	struct wconv *conv;
	struct pycode_cache *codes;
	struct pyqual *qual;		/* 3.8-3.10's qualified names */
	char *session_dir;
	struct umap procs;		/* pid -> struct lproc * */
	struct layout_id *layouts;
	size_t nr_layouts, alloc_layouts;
	struct wrec_proc *notes;
	size_t nr_notes, alloc_notes;
	uint64_t lost_seen;		/* walker_lost() already written */
	uint64_t events, inspections, frames, frames_unnamed;
	/* walker_cost() at the finish; cost_known: it could be read */
	uint64_t cost_ns, cost_runs;
	int cost_known;
	uint64_t ustack_probes;		/* walker_ustack_probes(), likewise */
	int finished;
	/*
	 * record: the session's pycode file as it is written, PYCODE_PART
	 * until wrec_finish(): its header, then the code objects and
	 * thread names of each process as it exits (pycode_spill()), so
	 * that the cache holds only the living processes'; -1 for top,
	 * which names its samples from the cache.  spill_errno: a write
	 * failed (wrec_poll() says so).
	 */
	int spill_fd;
	int spill_errno;
	/*
	 * record -p --wall: the processes attached to (wrec_add_pid()
	 * without WREC_BEFORE_EXEC), whose threads blocked at the attach
	 * have their wait counted from it (preattach_threads()); how many
	 * threads were, and how many of them the walker could not follow
	 */
	int wall;
	pid_t *attach_pids;
	size_t nr_attach, alloc_attach;
	uint64_t preattach_threads, preattach_unfollowed;
	uint64_t preattach_unended, preattach_unended_ns;
	uint64_t preattach_unread;	/* threads whose state was unreadable */
	uint64_t attach_ns;	/* wrec_attach()'s time */
	uint64_t quick_until;	/* mono_ns() until which polls are quick */
	/* code objects read since burst_since, within a hold */
	uint64_t burst_since, burst_reads;
	int settled;		/* a hold lapsed since the attach */
	int (*kself_base)(void *data, struct kself *out);	/* wrec_opts' */
	void *kself_data;
	/* code objects to qualify after the poll (qual_pending()) */
	struct qual_todo {
		pid_t pid;
		uint16_t tag;
		uint64_t code;
	} *qual_todo;
	size_t nr_qual, alloc_qual;
};

/*
 * A code object is read from the live process when a sample first
 * names it.  One that runs once (a module's body as it is imported, a
 * line of a .pth file) is often freed before the next 20 ms poll, and
 * its frames stay unnamed: 47 to 78 of the 4,200 to 4,800 frames of a
 * 1 s program whose start imports a few modules, each a module body
 * sampled up to 9 times and gone when read.  New code objects come in
 * bursts (a program's start, its imports), so from the attach on, and
 * for WREC_QUICK_HOLD_NS after a poll that reads one (a code object
 * that cannot be read, tried again at each of its samples, does not
 * count), the polls wait at most WREC_QUICK_MS; otherwise the caller's
 * timeout.  A quick poll costs a wakeup a millisecond, only while code
 * is new.  Once a hold has lapsed (the start is over), it takes a burst
 * to make the polls quick again: WREC_QUICK_BURST code objects read
 * within a hold (imports).  A single code object now and then is not
 * one: a server attached to keeps meeting functions sampled for the
 * first time (gunicorn and Flask: 1 to 3 a second after the first
 * seconds), each of which held the polls quick for 250 ms, 25 to 75 %
 * of the time, a thousand wakeups a second.  They live as long as their
 * module: a 20 ms poll names them.  At the start every read holds them
 * (a program's first imports come slowly on a loaded machine: with the
 * burst rule from the attach on, the first of 40 modules imported in
 * turn went unnamed in one run of t3502 22 under make check).
 */
#define WREC_QUICK_MS 1
#define WREC_QUICK_HOLD_NS 250000000ull	/* 250 ms */
#define WREC_QUICK_BURST 4

#define PYCODE_PART "pycode.part"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct lproc *lproc_get(struct wrec *w, pid_t pid)
{
	struct umap_ent *e = umap_get(&w->procs, (uint64_t)(uint32_t)pid,
				      NULL);
	struct lproc *p = e->val;

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->t.pid = pid;
		p->retry_ns = RETRY_FIRST_NS;
		ALLOC_GROW(w->notes, w->nr_notes + 1, w->alloc_notes);
		memset(&w->notes[w->nr_notes], 0, sizeof(*w->notes));
		w->notes[w->nr_notes].pid = pid;
		w->notes[w->nr_notes].status = PYTARGET_NOT_YET;
		p->note = w->nr_notes++;
		e->val = p;
	}
	return p;
}

/* The process's entry, or NULL when it is not one of ours yet. */
static struct lproc *lproc_find(struct wrec *w, pid_t pid)
{
	struct umap_ent *e = umap_find(&w->procs, (uint64_t)(uint32_t)pid);

	return e ? e->val : NULL;
}

/* The BPF index of layout l, added once. */
static int layout_index(struct wrec *w, const struct walker_layout *l,
			__u32 *id, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < w->nr_layouts; i++)
		if (!memcmp(&w->layouts[i].l, l, sizeof(*l))) {
			*id = w->layouts[i].id;
			return 0;
		}
	if (walker_add_layout(w->walker, l, id, err, errlen) < 0)
		return -1;
	ALLOC_GROW(w->layouts, w->nr_layouts + 1, w->alloc_layouts);
	w->layouts[w->nr_layouts].l = *l;
	w->layouts[w->nr_layouts++].id = *id;
	return 0;
}

/* Watch pid with no interpreter known (its samples: WALKER_F_NO_PROC). */
static int watch_bare(struct wrec *w, pid_t pid, char *err, size_t errlen)
{
	struct walker_proc wp;

	memset(&wp, 0, sizeof(wp));
	wp.flags = WALKER_PROC_WATCHED;
	return walker_set_proc(w->walker, pid, &wp, err, errlen);
}

/*
 * Inspect p now; when it runs a supported interpreter, hand its
 * runtime and layout to BPF.  Returns the status.
 */
static enum pytarget_status inspect(struct wrec *w, struct lproc *p)
{
	struct wrec_proc *n = &w->notes[p->note];
	enum pytarget_status st;
	struct walker_proc wp;
	char why[PPR_ERR_LEN];
	pid_t pid = p->t.pid;

	w->inspections++;
	n->inspections++;
	p->last_try = mono_ns();
	st = pytarget_inspect(pid, &p->t);
	p->t.pid = pid;
	/*
	 * An interpreter still starting (no interpreter state linked in
	 * yet) has its _PyRuntime and layout known: hand them to BPF now,
	 * which finds no thread state until there is one (NO_TSTATE), so
	 * that the first Python frames are not missed waiting for a retry.
	 */
	if (st == PYTARGET_NOT_YET && p->t.runtime)
		st = PYTARGET_OK;
	n->status = st;
	snprintf(n->why, sizeof(n->why), "%s", st == PYTARGET_OK ? "" :
		 p->t.why);
	switch (st) {
	case PYTARGET_OK:
		snprintf(n->version, sizeof(n->version), "%s", p->t.version);
		memset(&wp, 0, sizeof(wp));
		wp.runtime = p->t.runtime;
		wp.flags = WALKER_PROC_WATCHED;
		if (layout_index(w, &p->t.layout, &wp.layout, why,
				 sizeof(why)) < 0 ||
		    walker_set_proc(w->walker, pid, &wp, why,
				    sizeof(why)) < 0) {
			n->status = PYTARGET_ERROR;
			snprintf(n->why, sizeof(n->why), "%s", why);
			p->final = 1;
			return PYTARGET_ERROR;
		}
		p->ok = 1;
		wconv_set_version(w->conv, pid, p->t.hexversion);
		break;
	case PYTARGET_NOT_YET:
	case PYTARGET_NOT_PYTHON:
	case PYTARGET_ERROR:
		/* maybe later (an exec, an interpreter starting up) */
		if (++p->tries > RETRY_FLAT && p->retry_ns < RETRY_MAX_NS)
			p->retry_ns *= 2;
		break;
	case PYTARGET_GONE:
	case PYTARGET_UNSUPPORTED:
	case PYTARGET_NO_ACCESS:
		p->final = 1;
		break;
	}
	return st;
}

/* --- the conversion's hooks ---------------------------------------------- */

static void on_no_proc(void *data, pid_t pid)
{
	struct wrec *w = data;
	struct lproc *p = lproc_get(w, pid);

	if (p->ok || p->final || mono_ns() < p->last_try + p->retry_ns)
		return;
	inspect(w, p);
}

static void on_proc_exec(void *data, pid_t pid)
{
	struct wrec *w = data;
	struct lproc *p = lproc_get(w, pid);
	char why[PPR_ERR_LEN];

	/* the old interpreter's addresses mean nothing in the new program */
	pyqual_forget(w->qual, pid);
	p->threads_walked = 0;
	p->ok = 0;
	p->final = 0;
	p->tries = 0;
	p->retry_ns = RETRY_FIRST_NS;
	if (watch_bare(w, pid, why, sizeof(why)) < 0) {
		p->final = 1;
		snprintf(w->notes[p->note].why, sizeof(w->notes[p->note].why),
			 "%s", why);
		return;
	}
	inspect(w, p);
}

/* BPF copied the parent's entry: so does the loop (same address space). */
static void on_proc_fork(void *data, pid_t parent, pid_t child)
{
	struct wrec *w = data;
	struct lproc *pp = lproc_get(w, parent);
	struct pytarget t = pp->t;
	int ok = pp->ok;
	struct lproc *c = lproc_get(w, child);

	/* a reused pid starts afresh */
	c->final = 0;
	c->retry_ns = RETRY_FIRST_NS;
	if (!ok)
		return;
	c->t = t;
	c->t.pid = child;
	c->ok = 1;
	w->notes[c->note].status = PYTARGET_OK;
	snprintf(w->notes[c->note].version, sizeof(w->notes[c->note].version),
		 "%s", t.version);
}

/*
 * The process is gone: its state goes (the inspection's 4 KiB and more
 * a process), so that hours of processes that come and go keep only
 * the living ones'; its note (w->notes) stays for wrec_describe().  A
 * sample of it still to come finds no entry: its Python frames are
 * unnamed, as they were when it was marked gone, and a sample without
 * its interpreter is inspected once more and noted gone.
 */
/* A process's code objects and thread names out of the cache, to disk. */
static void spill(struct wrec *w, pid_t pid)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	if (w->spill_fd < 0 || w->spill_errno)
		return;
	pycode_spill(w->codes, pid, &sb);
	if (sb.len && (r = write_in_full(w->spill_fd, sb.buf, sb.len)) < 0)
		w->spill_errno = -r;
	strbuf_release(&sb);
}

static void add_own(void *data, uint64_t start, uint64_t end)
{
	kself_add_own(data, start, end);
}

/*
 * The walker's own frames' ranges without reading kallsyms in this
 * loop (50 ms of a core, during which no event was read and code
 * objects were freed before they were named): the caller's reading,
 * begun before the programs were loaded, and the programs' own places
 * from the kernel.  -1 (the conversion reads kallsyms) when either is
 * missing.
 */
static int on_kself(void *data, struct kself *out)
{
	struct wrec *w = data;

	if (!w->kself_base || w->kself_base(w->kself_data, out) < 0)
		return -1;
	if (walker_prog_ranges(w->walker, add_own, out) <= 0) {
		kself_release(out);
		return -1;
	}
	kself_end(out);
	return 0;
}

static void on_proc_exit(void *data, pid_t pid)
{
	struct wrec *w = data;
	struct lproc *p = lproc_find(w, pid);

	free(p);
	umap_del(&w->procs, (uint64_t)(uint32_t)pid);
	spill(w, pid);
	pyqual_forget(w->qual, pid);
	walker_del_proc(w->walker, pid);
}

static void qual_later(struct wrec *w, pid_t pid,
		       const struct walker_py_frame *f);

static void on_frame(void *data, pid_t pid, const struct walker_py_frame *f)
{
	struct wrec *w = data;
	struct umap_ent *e = umap_find(&w->procs, (uint64_t)(uint32_t)pid);
	struct lproc *p = e ? e->val : NULL;
	const struct pycode *code;

	w->frames++;
	code = p && p->ok ? pycode_get(w->codes, &p->t, f->code, f->tag) :
		NULL;
	if (!code) {
		w->frames_unnamed++;
		return;
	}
	/* 3.8-3.10: co_name alone; the qualified name from the modules */
	if (code->qualified || p->t.code.co_qualname != WALKER_NO_FIELD)
		return;
	qual_later(w, pid, f);
}

/*
 * The qualified names (3.8-3.10) of the code objects named in this
 * poll: after every event of it is read, not as each frame is named.
 * The walks of the modules took 23-26 ms of a program's first poll,
 * while the code objects of its imports were freed before they were
 * named.  At most QUAL_BUDGET_NS of them a poll, the rest at the next
 * (a quick one): a name may wait; a code object that is freed may not.
 */
#define QUAL_BUDGET_NS 2000000ull	/* 2 ms */

static void qual_later(struct wrec *w, pid_t pid,
		       const struct walker_py_frame *f)
{
	size_t i;

	for (i = 0; i < w->nr_qual; i++)
		if (w->qual_todo[i].code == f->code &&
		    w->qual_todo[i].tag == f->tag &&
		    w->qual_todo[i].pid == pid)
			return;
	ALLOC_GROW(w->qual_todo, w->nr_qual + 1, w->alloc_qual);
	w->qual_todo[w->nr_qual].pid = pid;
	w->qual_todo[w->nr_qual].code = f->code;
	w->qual_todo[w->nr_qual++].tag = f->tag;
}

static void qual_pending(struct wrec *w, uint64_t budget_ns)
{
	uint64_t end = mono_ns() + budget_ns;
	size_t i;

	if (!w->nr_qual)
		return;
	for (i = 0; i < w->nr_qual && mono_ns() < end; i++) {
		const struct qual_todo *t = &w->qual_todo[i];
		struct lproc *p = lproc_find(w, t->pid);
		const struct pycode *code = pycode_find(w->codes, t->pid,
							t->code, t->tag);
		const char *q;

		if (!p || !p->ok || !code || code->qualified)
			continue;
		q = pyqual_lookup(w->qual, &p->t, t->code, code->filename,
				  mono_ns());
		if (q)
			pycode_qualify(w->codes, t->pid, t->code, t->tag, q);
	}
	memmove(w->qual_todo, w->qual_todo + i,
		(w->nr_qual - i) * sizeof(*w->qual_todo));
	w->nr_qual -= i;
}

/*
 * Python's names of p's threads (pythreads.h), and when to read them
 * again: soon while new threads turn up, seldom otherwise.
 */
static void walk_threads(struct wrec *w, struct lproc *p, uint64_t now)
{
	p->threads_walked = now;
	if (!p->threads_ns)
		p->threads_ns = THREADS_FIRST_NS;
	if (pythreads_read(w->codes, &p->t))
		p->threads_ns = THREADS_FIRST_NS;
	else if (p->threads_ns < THREADS_MAX_NS)
		p->threads_ns *= 2;
}

/* A sample of a Python thread: its name read when due (see above). */
static void thread_name_due(struct wrec *w, const struct walker_ev_hdr *h)
{
	struct lproc *p = lproc_find(w, (pid_t)h->pid);
	uint64_t now;

	if (!p || !p->ok || h->flags & (WALKER_F_NO_PROC | WALKER_F_NO_TSTATE))
		return;
	now = mono_ns();
	if (p->threads_walked &&
	    now < p->threads_walked + (pycode_thread_name(w->codes, p->t.pid,
							  (pid_t)h->tid) ?
				       THREADS_MAX_NS : p->threads_ns))
		return;
	walk_threads(w, p, now);
}

/* --- the loop ------------------------------------------------------------ */

void wrec_free(struct wrec *w)
{
	size_t i;

	if (!w)
		return;
	if (w->walker)
		walker_close(w->walker);
	if (w->spill_fd >= 0)
		close(w->spill_fd);
	wconv_free(w->conv);
	if (w->codes)
		pycode_cache_free(w->codes);
	pyqual_free(w->qual);
	for (i = 0; i < w->procs.cap; i++)
		if (w->procs.ents[i].used)
			free(w->procs.ents[i].val);
	umap_release(&w->procs);
	free(w->attach_pids);
	free(w->layouts);
	free(w->notes);
	free(w->qual_todo);
	free(w->session_dir);
	free(w);
}

int wrec_start(struct wrec **out, const struct wrec_opts *o, int *errnum,
	       char *err, size_t errlen)
{
	struct wrec *w = xcalloc(1, sizeof(*w));
	struct strbuf sb = STRBUF_INIT;
	struct walker_opts wo;
	struct wconv_opts co;
	char *path;
	int r;

	*out = NULL;
	*errnum = 0;
	w->spill_fd = -1;
	w->wall = o->wall;
	w->kself_base = o->kself_base;
	w->kself_data = o->kself_data;
	w->session_dir = o->session_dir ? xstrdup(o->session_dir) : NULL;
	if (!w->session_dir && !o->record_fn) {
		free(w);
		return set_err(err, errlen, "no session directory");
	}
	memset(&wo, 0, sizeof(wo));
	wo.freq = o->freq;
	wo.ustack_bytes = o->ustack_bytes;
	wo.max_py_frames = o->max_py_frames;
	wo.follow_children = o->follow_children;
	wo.wall = o->wall;
	wo.wakers = o->wall && o->wakers;
	wo.ring_bytes = o->ring_bytes ? o->ring_bytes :
			o->wall ? WREC_RING_WALL : 0;
	wo.kself_base = o->kself_base;
	wo.kself_data = o->kself_data;
	if (walker_open(&w->walker, &wo, errnum, err, errlen) < 0) {
		w->walker = NULL;
		wrec_free(w);
		return -1;
	}
	w->codes = pycode_cache_new();
	w->qual = pyqual_new();
	if (!o->record_fn) {
		path = xasprintf("%s/" PYCODE_PART, o->session_dir);
		w->spill_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
				   O_NOFOLLOW | O_CLOEXEC, 0600);
		r = w->spill_fd < 0 ? -errno : 0;
		if (!r) {
			pycode_header(&sb);
			r = write_in_full(w->spill_fd, sb.buf, sb.len);
			strbuf_release(&sb);
		}
		if (r < 0) {
			set_err(err, errlen, "cannot write '%s': %s", path,
				strerror(-r));
			free(path);
			wrec_free(w);
			return -1;
		}
		free(path);
	}
	memset(&co, 0, sizeof(co));
	path = o->record_fn ? NULL :
	       xasprintf("%s/perf.data", o->session_dir);
	co.perf_data = path;
	co.record_fn = o->record_fn;
	co.record_data = o->record_data;
	co.kallsyms = "/proc/kallsyms";
	co.freq = o->freq;
	co.ustack_bytes = o->ustack_bytes;
	co.wall = o->wall;
	co.wakers = o->wall && o->wakers;
	co.keep_stack_copy = o->keep_stack_copy;
	co.cmdline = o->cmdline;
	co.start_ns = mono_ns();
	co.max_bytes = o->max_bytes;
	co.hooks.data = w;
	co.hooks.kself = on_kself;
	co.hooks.no_proc = on_no_proc;
	co.hooks.exec = on_proc_exec;
	co.hooks.fork = on_proc_fork;
	co.hooks.exit = on_proc_exit;
	co.hooks.py_frame = on_frame;
	r = wconv_new(&w->conv, &co, err, errlen);
	free(path);
	if (r < 0) {
		wrec_free(w);
		return -1;
	}
	*out = w;
	return 0;
}

int wrec_add_pid(struct wrec *w, pid_t pid, unsigned flags, char *err,
		 size_t errlen)
{
	struct lproc *p = lproc_get(w, pid);
	enum pytarget_status st;

	if (flags & WREC_BEFORE_EXEC) {
		/* it runs our code until its exec: nothing to inspect yet */
		p->last_try = mono_ns();
		return watch_bare(w, pid, err, errlen);
	}
	st = inspect(w, p);
	if (st != PYTARGET_OK && st != PYTARGET_NOT_YET)
		return set_err(err, errlen, "process %d: %s", (int)pid,
			       w->notes[p->note].why);
	/* a running process attached to: its blocked threads, at the attach */
	ALLOC_GROW(w->attach_pids, w->nr_attach + 1, w->alloc_attach);
	w->attach_pids[w->nr_attach++] = pid;
	if (st == PYTARGET_OK)
		return 0;
	/* starting up: watched, inspected again on its samples */
	return watch_bare(w, pid, err, errlen);
}

/*
 * The task state thread tid of pid waits in, for walker_preattach(): 1
 * asleep (S), 2 uninterruptible (D), when /proc/PID/task/TID/syscall
 * says it is in a system call (its number, not "running", nor -1 for
 * a thread blocked outside one, in a page fault, whose end no sys_exit
 * would mark).  -1: not waiting in a system call, or gone; -2: the
 * file cannot be read (it needs ptrace access to the thread, which
 * CAP_BPF and CAP_PERFMON do not give).  A runnable thread reads
 * "running" there, preempted or not: its wait for a CPU is short and
 * not followed.
 */
static int blocked_state(pid_t pid, pid_t tid)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64];
	const char *p;
	int state = -1, r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
		 (int)tid);
	r = strbuf_read_file(&sb, path, 256);
	if (r == -EACCES || r == -EPERM)
		state = -2;
	if (r < 0 || !sb.len || !isdigit((unsigned char)sb.buf[0]))
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
		 (int)tid);
	strbuf_reset(&sb);
	/* "tid (comm) S ...": the comm may hold ") " itself */
	if (strbuf_read_file(&sb, path, 4096) < 0 ||
	    !(p = strrchr(sb.buf, ')')) || p[1] != ' ')
		goto out;
	if (p[2] == 'S')
		state = 1;
	else if (p[2] == 'D')
		state = 2;
out:
	strbuf_release(&sb);
	return state;
}

/*
 * The threads of the processes attached to that are blocked in a system
 * call now, handed to the walker (walker_preattach()): the wait each is
 * in began before the attach, and is counted from it.  A thread the
 * walker cannot take (its map is full) is counted, not followed.
 */
static void preattach_threads(struct wrec *w)
{
	char path[64], why[PPR_ERR_LEN];
	struct dirent *de;
	unsigned long tid;
	const char *end;
	size_t i;
	DIR *d;
	int st;

	for (i = 0; i < w->nr_attach; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task",
			 (int)w->attach_pids[i]);
		d = opendir(path);
		if (!d)
			continue;	/* gone: nothing to follow */
		while ((de = readdir(d))) {
			if (parse_uint_prefix(de->d_name, &tid, &end) || *end ||
			    !tid || tid > INT_MAX)
				continue;
			st = blocked_state(w->attach_pids[i], (pid_t)tid);
			if (st == -2)
				w->preattach_unread++;
			if (st < 0)
				continue;
			w->preattach_threads++;
			if (walker_preattach(w->walker, (pid_t)tid,
					     (uint64_t)st, why, sizeof(why)) < 0)
				w->preattach_unfollowed++;
		}
		closedir(d);
	}
}

int wrec_attach(struct wrec *w, char *err, size_t errlen)
{
	uint64_t attach_ns;

	if (w->wall)
		preattach_threads(w);
	/*
	 * The time the waits begun before it are counted from: before the
	 * programs are attached, so that no switch of a thread blocked at
	 * the attach (nor its switch-in) falls before it
	 */
	attach_ns = mono_ns();
	if (walker_attach(w->walker, err, errlen) < 0)
		return -1;
	wconv_set_attach(w->conv, attach_ns);
	w->attach_ns = attach_ns;
	/* a program's start, or the first look at a process: all new */
	w->quick_until = mono_ns() + WREC_QUICK_HOLD_NS;
	return 0;
}

/*
 * A process that needs its interpreter found is inspected as soon as an
 * event says so, not when the conversion reaches the event (it holds
 * events back 20 ms to sort them): every sample until then has no
 * Python frames.  The conversion's hooks still see the events in order
 * (an exec after the process was inspected here inspects it again).
 */
static void inspect_early(struct wrec *w, const void *ev, size_t len)
{
	const struct walker_ev_hdr *h = ev;
	struct lproc *p;

	if (len < sizeof(*h) || ((uintptr_t)ev & 7))
		return;
	if (h->type == WALKER_EV_SAMPLE && (h->flags & WALKER_F_NO_PROC)) {
		p = lproc_find(w, (pid_t)h->pid);
		if (p && !p->ok && !p->final &&
		    mono_ns() >= p->last_try + p->retry_ns)
			inspect(w, p);
	}
	if ((h->type == WALKER_EV_SAMPLE || h->type == WALKER_EV_OFFCPU) &&
	    len >= sizeof(struct walker_sample) &&
	    ((const struct walker_sample *)ev)->nr_py)
		thread_name_due(w, h);
}

static int on_event(void *data, const void *ev, size_t len)
{
	struct wrec *w = data;

	w->events++;
	inspect_early(w, ev, len);
	wconv_event(w->conv, ev, len);	/* a bad one is counted there */
	return 0;
}

/* Events the ring buffer could not take since the last look. */
static void note_lost(struct wrec *w)
{
	uint64_t lost = walker_lost(w->walker);

	if (lost > w->lost_seen) {
		wconv_lost(w->conv, lost - w->lost_seen);
		w->lost_seen = lost;
	}
}

int wrec_poll(struct wrec *w, int timeout_ms, char *err, size_t errlen)
{
	uint64_t reads;
	int r;

	if (w->finished)
		return set_err(err, errlen, "the recording is finished");
	/* the first hold that lapses ends the start (see WREC_QUICK_BURST) */
	if (w->quick_until && mono_ns() >= w->quick_until)
		w->settled = 1;
	/* quick too while names wait to be qualified (qual_pending()) */
	if (((w->quick_until && mono_ns() < w->quick_until) || w->nr_qual) &&
	    timeout_ms > WREC_QUICK_MS)
		timeout_ms = WREC_QUICK_MS;
	reads = pycode_reads(w->codes);
	r = walker_poll(w->walker, timeout_ms, on_event, w);
	reads = pycode_reads(w->codes) - reads;
	if (reads) {
		uint64_t now = mono_ns();

		if (now - w->burst_since > WREC_QUICK_HOLD_NS) {
			w->burst_since = now;
			w->burst_reads = 0;
		}
		w->burst_reads += reads;
		if (!w->settled || w->burst_reads >= WREC_QUICK_BURST)
			w->quick_until = now + WREC_QUICK_HOLD_NS;
	}
	qual_pending(w, QUAL_BUDGET_NS);
	walker_preattach_poll(w->walker);
	if (r < 0 && r != -EINTR)
		return set_err(err, errlen, "cannot read the walker's events: "
			       "%s", strerror(-r));
	if (w->spill_errno)
		return set_err(err, errlen, "cannot write '%s/" PYCODE_PART
			       "': %s", w->session_dir,
			       strerror(w->spill_errno));
	note_lost(w);
	return wconv_flush(w->conv, err, errlen);
}

/*
 * The session's pycode: the lines still held after those spilled at
 * each exit, and the file put in place.
 */
static int save_codes(struct wrec *w, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char *part, *path = xasprintf("%s/pycode", w->session_dir);
	char why[PPR_ERR_LEN];
	int r = -w->spill_errno;

	if (w->spill_fd < 0) {
		/* top's session: the cache was kept whole */
		r = pycode_save(w->codes, path, why, sizeof(why));
		free(path);
		if (r < 0)
			return set_err(err, errlen, "cannot save the code "
				       "objects' names: %s", why);
		return 0;
	}
	part = xasprintf("%s/" PYCODE_PART, w->session_dir);
	if (!r) {
		pycode_lines(w->codes, &sb);
		r = write_in_full(w->spill_fd, sb.buf, sb.len);
	}
	if (!r && close(w->spill_fd) < 0)
		r = -errno;
	else if (r)
		close(w->spill_fd);
	w->spill_fd = -1;
	if (!r && rename(part, path) < 0)
		r = -errno;
	if (r < 0)
		set_err(err, errlen, "cannot save the code objects' names: "
			"cannot write '%s': %s", part, strerror(-r));
	strbuf_release(&sb);
	free(part);
	free(path);
	return r < 0 ? -1 : 0;
}

int wrec_finish(struct wrec *w, char *err, size_t errlen)
{
	uint64_t end;
	int i;

	if (w->finished)
		return set_err(err, errlen, "the recording is finished");
	/*
	 * What the ring buffer still holds; bounded, in case the program
	 * (or a child it left behind) still runs and fills it.
	 */
	for (i = 0; i < 64; i++)
		if (walker_poll(w->walker, 0, on_event, w) <= 0)
			break;
	note_lost(w);
	qual_pending(w, UINT64_MAX / 2);	/* all: the processes that live */
	w->cost_known = !walker_cost(w->walker, &w->cost_ns, &w->cost_runs);
	w->ustack_probes = walker_ustack_probes(w->walker);
	w->finished = 1;
	end = mono_ns();
	/* the waits under way at the attach that had not ended by now */
	walker_preattach_rest(w->walker, w->attach_ns, end,
			      &w->preattach_unended, &w->preattach_unended_ns);
	if (wconv_finish(w->conv, end, err, errlen) < 0)
		return -1;
	if (!w->session_dir)
		return 0;
	return save_codes(w, err, errlen);
}

int wrec_stopped(const struct wrec *w)
{
	return wconv_stats(w->conv)->stopped;
}

int wrec_image(const struct wrec *w, unsigned char **buf, size_t *len,
	       char *err, size_t errlen)
{
	return wconv_image(w->conv, buf, len, err, errlen);
}

const struct pycode_cache *wrec_codes(const struct wrec *w)
{
	return w->codes;
}

size_t wrec_kernel_pcs(const struct wrec *w, uint64_t **out)
{
	return wconv_kernel_pcs(w->conv, out);
}

void wrec_stats(const struct wrec *w, struct wrec_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->conv = *wconv_stats(w->conv);
	st->events = w->events;
	st->inspections = w->inspections;
	st->frames = w->frames;
	st->frames_unnamed = w->frames_unnamed;
	st->unqualified = pycode_unqualified(w->codes,
					     &st->unqualified_example);
	st->procs = w->notes;
	st->nr_procs = w->nr_notes;
	st->preattach_threads = w->preattach_threads;
	st->preattach_unfollowed = w->preattach_unfollowed;
	st->preattach_unended = w->preattach_unended;
	st->preattach_unread = w->preattach_unread;
	st->preattach_unended_ns = w->preattach_unended_ns;
	st->cost_known = w->cost_known;
	st->cost_ns = w->cost_ns;
	st->cost_runs = w->cost_runs;
	st->ustack_probes = w->ustack_probes;
}

/* part of whole as a percentage, "<1" below one in a hundred */
static void pct(struct strbuf *sb, uint64_t part, uint64_t whole)
{
	if (!whole)
		strbuf_addstr(sb, "0");
	else if (part && part * 100 < whole)
		strbuf_addstr(sb, "<1");
	else
		strbuf_addf(sb, "%llu",
			    (unsigned long long)(part * 100 / whole));
}

/*
 * The processes not walked, one line per reason: "process 12 was not
 * walked: why", or "3 processes were not walked (12, 13, 14): why"
 * (the first five pids named).
 */
static void describe_procs(const struct wrec_stats *st,
			   struct strvec *lines)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, n;

	for (i = 0; i < st->nr_procs; i++) {
		const struct wrec_proc *p = &st->procs[i];
		int seen = 0;

		if (p->status == PYTARGET_OK || !p->why[0])
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = st->procs[j].status != PYTARGET_OK &&
			       !strcmp(st->procs[j].why, p->why);
		if (seen)
			continue;	/* said with the first of its kind */
		strbuf_reset(&sb);
		for (j = i, n = 0; j < st->nr_procs; j++) {
			if (st->procs[j].status == PYTARGET_OK ||
			    strcmp(st->procs[j].why, p->why))
				continue;
			if (n < 5)
				strbuf_addf(&sb, "%s%d", n ? ", " : "",
					    (int)st->procs[j].pid);
			else if (n == 5)
				strbuf_addstr(&sb, ", ...");
			n++;
		}
		if (n == 1)
			strvec_pushf(lines, "process %d was not walked: %s",
				     (int)p->pid, p->why);
		else
			strvec_pushf(lines, "%zu processes were not walked "
				     "(%s): %s", n, sb.buf, p->why);
	}
	strbuf_release(&sb);
}

void wrec_describe(const struct wrec_stats *st, struct strvec *lines)
{
	static const char *const why[WCONV_NOPY_NR] = {
		[WCONV_NOPY_NO_PROC] = "before the interpreter was found",
		[WCONV_NOPY_NO_TSTATE] = "in threads with no Python thread "
					 "state",
		[WCONV_NOPY_READ] = "whose first frame could not be read",
		[WCONV_NOPY_IDLE] = "in Python threads outside any frame",
	};
	const struct wconv_stats *c = &st->conv;
	uint64_t without = c->samples - c->samples_py, written;
	struct strbuf sb = STRBUF_INIT;
	const char *sep = ": ";
	size_t i;

	strbuf_addf(&sb, "%llu samples, %llu with Python frames (",
		    (unsigned long long)c->samples,
		    (unsigned long long)c->samples_py);
	pct(&sb, c->samples_py, c->samples);
	strbuf_addstr(&sb, "%)");
	if (without) {
		strbuf_addf(&sb, "; %llu without", (unsigned long long)without);
		for (i = 0; i < WCONV_NOPY_NR; i++) {
			if (!c->no_py[i])
				continue;
			strbuf_addf(&sb, "%s%llu %s", sep,
				    (unsigned long long)c->no_py[i], why[i]);
			sep = ", ";
		}
	}
	strvec_push(lines, sb.buf);
	if (c->py_cut) {
		int one = c->py_cut == 1;

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%llu sample%s (", (unsigned long long)c->py_cut,
			    one ? "" : "s");
		pct(&sb, c->py_cut, c->samples);
		if (one)
			strbuf_addf(&sb, "%%) has its Python stack cut, %s",
				    c->flags[2] ? "at the frame limit" :
				    "at a frame that could not be read");
		else
			strbuf_addf(&sb, "%%) have their Python stacks cut: "
				    "%llu at the frame limit, the others at a "
				    "frame that could not be read",
				    (unsigned long long)c->flags[2]);
		strvec_push(lines, sb.buf);
	}
	if (st->frames_unnamed)
		strvec_pushf(lines, "%llu of %llu Python frames are unnamed: "
			     "their code objects could not be read (freed, "
			     "or the process was gone)",
			     (unsigned long long)st->frames_unnamed,
			     (unsigned long long)st->frames);
	if (st->unqualified)
		strvec_pushf(lines, "%zu Python functions are named without "
			     "their class or enclosing function (e.g. '%s'): "
			     "CPython 3.8-3.10's code objects hold only the "
			     "function's name, and no module's functions or "
			     "classes led to these", st->unqualified,
			     st->unqualified_example);
	if (c->walker_own) {
		int one = c->walker_own == 1;

		strbuf_reset(&sb);
		strbuf_addf(&sb, "%llu sample%s (", (unsigned long long)
			    c->walker_own, one ? "" : "s");
		pct(&sb, c->walker_own, c->samples);
		strbuf_addf(&sb, "%%) %s taken while the walker's own BPF "
			    "programs ran in the program's threads: "
			    "pyperf-run's cost, under bpf_trace_run* in "
			    "%s kernel stack%s", one ? "was" : "were",
			    one ? "its" : "their", one ? "" : "s");
		strvec_push(lines, sb.buf);
	}
	if (c->lost)
		strvec_pushf(lines, "%llu events were lost: the walker's "
			     "ring buffer was full", (unsigned long long)c->lost);
	if (c->bad)
		strvec_pushf(lines, "%llu events did not decode and were "
			     "dropped (the first: %s)",
			     (unsigned long long)c->bad, c->first_bad);
	if (c->late)
		strvec_pushf(lines, "%llu events came more than the hold-back "
			     "late and were written out of time order",
			     (unsigned long long)c->late);
	if (c->offcpu || c->offcpu_unopened) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%llu off-CPU intervals, %.3f s",
			    (unsigned long long)c->offcpu, c->offcpu_ns / 1e9);
		if (c->offcpu_open)
			strbuf_addf(&sb, "; %llu still off CPU at the end, "
				    "counted until then",
				    (unsigned long long)c->offcpu_open);
		if (c->offcpu_late)
			strbuf_addf(&sb, "; %llu ended where the thread was "
				    "next seen running (their switch-in was "
				    "lost)", (unsigned long long)c->offcpu_late);
		if (c->offcpu_unopened)
			strbuf_addf(&sb, "; %llu left out (their switch-out "
				    "was lost), %.3f s at most",
				    (unsigned long long)c->offcpu_unopened,
				    c->offcpu_unopened_ns / 1e9);
		strvec_push(lines, sb.buf);
	}
	if (st->preattach_threads) {
		/*
		 * record -p --wall: the waits under way at the attach, and
		 * those that never ended while attached (no switch-in: not
		 * in the profile, as before)
		 */
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%llu threads were blocked at the attach: "
			    "%llu of their waits (%.3f s) began before it and "
			    "are counted from it",
			    (unsigned long long)st->preattach_threads,
			    (unsigned long long)c->preattach,
			    c->preattach_ns / 1e9);
		if (st->preattach_unended)
			strbuf_addf(&sb, "; %llu did not end while attached "
				    "(%.3f s from the attach) and are not in "
				    "the profile",
				    (unsigned long long)st->preattach_unended,
				    st->preattach_unended_ns / 1e9);
		if (st->preattach_unfollowed)
			strbuf_addf(&sb, "; %llu were not followed (the "
				    "walker follows 2048 at most): their waits "
				    "are not in the profile",
				    (unsigned long long)
				    st->preattach_unfollowed);
		strvec_push(lines, sb.buf);
	}
	if (st->preattach_unread)
		strvec_pushf(lines, "%llu threads' system call could not be "
			     "read at the attach (/proc/PID/task/TID/syscall "
			     "needs ptrace access to the process): "
			     "a wait of theirs under way then is not in the "
			     "profile", (unsigned long long)st->preattach_unread);
	if (c->wakings) {
		/* what report --wakers will say of the intervals' wakers */
		strvec_pushf(lines, "%llu wakeups; %llu of the off-CPU "
			     "intervals have their waker (%.3f s), %llu of "
			     "them woken in an interrupt (%.3f s), %llu by a "
			     "wakeup of several waiters (%.3f s)",
			     (unsigned long long)c->wakings,
			     (unsigned long long)c->woken, c->woken_ns / 1e9,
			     (unsigned long long)c->woken_irq,
			     c->woken_irq_ns / 1e9,
			     (unsigned long long)c->woken_shared,
			     c->woken_shared_ns / 1e9);
	}
	describe_procs(st, lines);
	if (!c->kernel_map)
		strvec_push(lines, "kernel addresses are hidden "
			    "(/proc/kallsyms): kernel frames are unnamed");
	if (c->maps_unread)
		strvec_pushf(lines, "%llu reads of a process's mappings "
			     "failed (it was gone): native frames of such "
			     "processes may be unnamed",
			     (unsigned long long)c->maps_unread);
	if (c->kept_copies_cut)
		strvec_pushf(lines, "%llu kept stack copies were cut to fit "
			     "perf's 64 KiB records (deep Python stacks): "
			     "their frames were unwound from the whole copy; "
			     "a report that unwinds the kept copy stops "
			     "where it was cut",
			     (unsigned long long)c->kept_copies_cut);
	written = c->samples + c->offcpu;
	strbuf_reset(&sb);
	strbuf_addf(&sb, "perf.data: %llu bytes", (unsigned long long)c->bytes);
	if (written)
		strbuf_addf(&sb, ", %llu per sample",
			    (unsigned long long)(c->bytes / written));
	if (c->first_sample_ns)
		strbuf_addf(&sb, "; the first sample %.1f ms after the start",
			    c->first_sample_ns / 1e6);
	strvec_push(lines, sb.buf);
	strbuf_release(&sb);
}
