/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The native source: perf.data's samples, unwound and symbolized by
 * lib/unwind/, as struct sample (see src_native.h); native_stream_*
 * for records from elsewhere (top's ring buffers); src_native_run()
 * feeds a session's into the report's pipeline.
 */
#include "compat.h"
#include "alloc.h"
#include "byteorder.h"
#include "numparse.h"
#include <limits.h>
#include "perfdata.h"
#include "report/src_owntasks.h"
#include "report/src_native.h"
#include "walker/pycode.h"
#include <linux/types.h>
#include "walker/walker_abi.h"
#include "report/src_native_switches.h"
#include "report/pipeline_priv.h"
#include "session.h"
#include "hmap.h"
#include "timeq.h"
#include "unwind/unwind.h"

#include <unistd.h>

/* Frames per sample: a 64 KiB dump holds at most 8 Ki return addresses. */
#define MAX_FRAMES 16384

/* Records queued more than this are flushed whatever their round. */
#define MAX_QUEUED (1u << 22)

/*
 * Files without rounds (perf inject writes its output sorted, and
 * drops them): once the records queued span this many bytes of the
 * file, those older than everything in the newest quarter go.
 */
#define WINDOW_BYTES (32u << 20)

/*
 * A stream of the first pass over a wall session (native_load()): it
 * only counts each thread's time on CPU and its on-CPU samples
 * (switches_count()); nothing is unwound or delivered.
 */
#define NATIVE_COUNT_PASS (1u << 30)

/* What turns records into samples (shared with top's live stream). */
struct native_stream {
	const struct perfdata *d;
	struct unwind *u;
	struct umap comms;	/* tid -> interned comm */
	struct smap names;	/* interned comms */
	struct unwind_frame *uf;
	struct sample_frame *pf;
	struct sample_frame *mf;	/* frames merged with the walker's */
	struct pycode_cache *pycode, *own_pycode;
	struct walkmerge_stats wstats;
	sample_fn cb;
	void *data;
	uint64_t samples, frames, bad_samples;
	unsigned flags;		/* NATIVE_* */
	int cb_ret;
	struct own_tasks own;	/* pyperf-run's tasks: samples marked */
	struct switches sw;	/* off-CPU intervals (record --wall) */
};

struct reader {
	const struct native_opts *o;
	struct perfdata d;
	struct native_stream *ns;
	/*
	 * The records queued (timeq.h), in file order among equal times:
	 * off is the record's in the file; samples stay there (their pages
	 * are kept until delivered), the other records are small and
	 * copied into ptr, so that a mapping perf inject wrote early with a
	 * late time pins nothing.
	 */
	struct timeq q;
	uint64_t last_time, round_max, next_flush;
	uint64_t oldest_off;	/* of the samples queued (0: none) */
	uint64_t copied;	/* bytes of the records copied and queued */
	uint64_t next_progress;
	struct native_stats st;
};

static const char *intern_comm(struct native_stream *r, const char *s)
{
	return smap_get(&r->names, s, strlen(s), NULL)->key;
}

static void set_comm(struct native_stream *r, pid_t tid,
		     const char *comm)
{
	umap_get(&r->comms, (uint64_t)(uint32_t)tid, NULL)->val =
		(void *)comm;
}

static const char *comm_of(struct native_stream *r, pid_t tid, char *buf,
			   size_t len)
{
	struct umap_ent *e = umap_find(&r->comms, (uint64_t)(uint32_t)tid);

	if (e && e->val)
		return e->val;
	/* perf's name for a thread it saw no COMM for */
	snprintf(buf, len, ":%d", (int)tid);
	return buf;
}

/* Python's name of the thread, when the walker read it (bpf mode). */
static void thread_name_of(struct native_stream *r, struct sample *ps)
{
	const char *n = r->pycode ? pycode_thread_name(r->pycode, ps->pid,
						       ps->tid) : NULL;

	if (n) {
		ps->thread_name.s = n;
		ps->thread_name.len = strlen(n);
	}
}

/* perf's names of the common events (its evsel names). */
static const char *event_name(const struct pd_attr *a)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults",
	};

	if (a->type == 0 && a->config < ARRAY_SIZE(hw))
		return hw[a->config];
	if (a->type == 1 && a->config < ARRAY_SIZE(sw))
		return sw[a->config];
	return "event";
}

/*
 * A waker sample's raw field (walker_abi.h): struct walker_raw, the
 * waker's Python frames (and struct walker_raw_unwound), struct
 * walker_raw_wake.  -1: not one.
 */
static int waker_of(const unsigned char *raw, uint32_t len, struct sample *ps)
{
	uint64_t at = walkmerge_tail(raw, len, NULL);

	if (!at || at + sizeof(struct walker_raw_wake) > len ||
	    get_le32(raw + at) != WALKER_RAW_WAKE_MAGIC)
		return -1;
	ps->waker = 1;
	ps->wake.flags = get_le32(raw + at + 4);
	ps->wake.wakee_tid = (pid_t)get_le32(raw + at + 12);
	ps->wake.context = get_le32(raw + at + 24);
	ps->wake.time_ns = get_le64(raw + at + 32);
	memcpy(ps->wake.comm, raw + at + 40, 16);
	ps->wake.comm[16] = '\0';
	return 0;
}

static void do_sample(struct native_stream *r, const struct pd_record *rec)
{
	struct pd_attr recorded;
	struct pd_sample s;
	struct unwind_result res;
	struct sample ps;
	char buf[32];
	const char *comm, *ev;
	enum switch_event sev;
	int n, i, native_short;

	if (perfdata_decode_sample(r->d, rec->body, rec->len, &s) < 0) {
		r->bad_samples++;
		return;
	}
	sev = switches_event(&r->sw, s.attr);
	if ((r->flags & NATIVE_RECORDED) && s.attr->sample_stack_user &&
	    s.raw_size >= sizeof(struct walker_raw) &&
	    get_le32(s.raw) == WALKER_RAW_MAGIC &&
	    (get_le32(s.raw + 8) & WALKER_F_UNWOUND)) {
		/* its callchain's user frames, not its copy's */
		recorded = *s.attr;
		recorded.sample_stack_user = 0;
		s.attr = &recorded;
		s.have_stack = 0;
	}
	n = unwind_sample(r->u, &s, r->uf, MAX_FRAMES, &res);
	for (i = 0; i < n; i++) {
		r->pf[i].kind = SAMPLE_FRAME_ADDR;
		r->pf[i].ip = r->uf[i].pc;
		r->pf[i].sym.s = r->uf[i].sym;
		r->pf[i].sym.len = strlen(r->uf[i].sym);
		r->pf[i].dso.s = r->uf[i].dso;
		r->pf[i].dso.len = strlen(r->uf[i].dso);
	}
	/* a stack at a switch-out: the interval ends at the switch-in */
	if (sev == SWEV_CTXSW || sev == SWEV_SCHED) {
		switches_stack(&r->sw, &s, sev, r->pf, (size_t)n);
		return;
	}
	sample_init(&ps);
	comm = comm_of(r, s.tid, buf, sizeof(buf));
	ps.comm.s = comm;
	ps.comm.len = strlen(comm);
	ps.pid = s.pid;
	ps.tid = s.tid;
	thread_name_of(r, &ps);
	ps.time_ns = s.have_time ? s.time : 0;
	ps.period = s.period;
	ev = event_name(s.attr);
	if (sev == SWEV_OFFCPU) {
		/* period: nanoseconds off CPU, ending at the sample's time */
		ev = "offcpu-time";
		ps.offcpu = 1;
		ps.unit = UNIT_NS;
		ps.weight = s.period;
		if (ps.time_ns >= OFFCPU_NO_TIMESTAMP)
			ps.time_ns = 0;	/* perf's accumulated ones */
		if (switches_walker_state(s.raw, s.raw_size, &ps.prev_state)) {
			ps.have_state = 1;
			/* a wait under way at the attach, counted from it */
			ps.before_attach = !!(get_le32(s.raw + 8) &
					      WALKER_F_BEFORE_ATTACH);
		}
	} else if (sev == SWEV_WAKER) {
		ev = "waker";
		if (waker_of(s.raw, s.raw_size, &ps) < 0) {
			r->bad_samples++;
			return;
		}
	} else {
		switches_oncpu(&r->sw, s.tid, ps.time_ns, r->pf, (size_t)n);
		/* its thread's time on CPU shared among its samples */
		ps.period = switches_period(&r->sw, s.tid, s.period);
	}
	ps.event.s = ev;
	ps.event.len = strlen(ev);
	ps.frames = r->pf;
	ps.nr_frames = (size_t)n;
	native_short = 0;
	if (s.raw) {
		struct walkmerge_result wr;
		/* a waker's frames are not a sample's: not counted as one */
		struct walkmerge_stats wakers_st;

		memset(&wakers_st, 0, sizeof(wakers_st));
		walkmerge(r->pycode, s.pid, s.raw, s.raw_size, r->pf,
			  (size_t)n, r->mf, MAX_FRAMES, &wr,
			  ps.waker ? &wakers_st : &r->wstats);
		if (wr.walker) {
			ps.frames = r->mf;
			ps.nr_frames = wr.n;
			ps.py_whole = wr.py_whole;
			ps.py_cut = wr.flags & WALKER_F_PY_CUT ? 1 :
				    wr.flags & WALKER_F_PY_READ ? 2 : 0;
			/* a process whose Python the walker read later */
			ps.py_startup = (wr.flags & WALKER_F_NO_PROC) &&
					r->pycode &&
					pycode_has_pid(r->pycode, s.pid);
			n = (int)wr.n;
			native_short = wr.native_short && !ps.waker;
		}
	}
	if (s.attr->sample_stack_user && s.have_stack) {
		ps.dump_known = 1;
		ps.dump_full = s.dyn_size == s.stack_size;
		ps.dump_sp = s.have_sp ? s.user_sp : 0;
		ps.dump_len = s.dyn_size;
		ps.dump_asked = s.stack_size;
	} else if (s.attr->sample_stack_user && s.have_sp) {
		/*
		 * A dump of size 0 (perf script: "ustack: size 0"): the
		 * kernel copied none of the stack (seen on samples in a
		 * page fault).  Judged as cut inside the dump.
		 */
		ps.dump_known = 1;
		ps.dump_sp = s.user_sp;
	} else if (s.raw) {
		/* unwound as recorded: what its copy was */
		struct walkmerge_unwound uw;

		if (walkmerge_tail(s.raw, s.raw_size, &uw) && uw.asked) {
			ps.dump_known = 1;
			ps.dump_full = uw.full;
			ps.dump_sp = uw.sp;
			ps.dump_len = uw.copied;
			ps.dump_asked = uw.asked;
		}
	}
	/*
	 * Python frames past the native unwinding: the copy ran out (a
	 * bigger one would help), or the unwinding stopped inside a whole
	 * copy (it would not).
	 */
	if (native_short && ps.dump_known && !ps.dump_full) {
		r->wstats.native_stopped++;
		if (!ps.dump_len)
			r->wstats.native_nostack++;
	} else if (native_short)
		r->wstats.native_short++;
	ps.own = own_tasks_has(&r->own, s.tid);
	r->samples++;
	r->frames += (uint64_t)n;
	r->cb_ret = r->cb(r->data, &ps);
}

int native_stream_new(struct native_stream **out, const struct perfdata *d,
		      const char *session_dir, unsigned flags, sample_fn cb,
		      void *data, char *err, size_t errlen)
{
	struct native_stream *ns = xcalloc(1, sizeof(*ns));
	struct unwind_opts uo;

	ns->flags = flags;
	ns->d = d;
	switches_init(&ns->sw, d);
	if (flags & NATIVE_COUNT_PASS) {
		*out = ns;
		return 0;
	}
	memset(&uo, 0, sizeof(uo));
	uo.session_dir = session_dir;
	uo.flags = flags & NATIVE_DWFL_ONLY ? UNWIND_DWFL_ONLY : 0;
	if (unwind_new(&ns->u, &uo, d, err, errlen) < 0) {
		switches_release(&ns->sw);
		free(ns);
		return -1;
	}
	ns->cb = cb;
	ns->data = data;
	ns->uf = xcalloc(MAX_FRAMES, sizeof(*ns->uf));
	ns->pf = xcalloc(MAX_FRAMES, sizeof(*ns->pf));
	ns->mf = xcalloc(MAX_FRAMES, sizeof(*ns->mf));
	if (session_dir) {
		/* the walker's code objects, when the session has them */
		char *path = xasprintf("%s/pycode", session_dir);

		if (!access(path, F_OK)) {
			ns->own_pycode = pycode_cache_new();
			if (pycode_load(ns->own_pycode, path, err,
					errlen) < 0) {
				free(path);
				native_stream_free(ns);
				return -1;
			}
			ns->pycode = ns->own_pycode;
		}
		free(path);
	}
	*out = ns;
	return 0;
}

void native_stream_set_pycode(struct native_stream *ns,
			      struct pycode_cache *c)
{
	ns->pycode = c;
}

const struct walkmerge_stats *native_stream_walker(
	const struct native_stream *ns)
{
	return &ns->wstats;
}

void native_stream_free(struct native_stream *ns)
{
	if (!ns)
		return;
	unwind_free(ns->u);
	pycode_cache_free(ns->own_pycode);
	free(ns->mf);
	umap_release(&ns->comms);
	smap_release(&ns->names, NULL);
	own_tasks_release(&ns->own);
	switches_release(&ns->sw);
	free(ns->uf);
	free(ns->pf);
	free(ns);
}

/* The first pass's part of a record (NATIVE_COUNT_PASS). */
static void count_record(struct native_stream *r, const struct pd_record *rec)
{
	struct pd_sample s;
	struct pd_switch sw;
	struct sample out;

	if (rec->type == PD_RECORD_SAMPLE) {
		if (!perfdata_decode_sample(r->d, rec->body, rec->len, &s) &&
		    s.have_tid && s.have_time &&
		    switches_event(&r->sw, s.attr) == SWEV_ONCPU)
			switches_count(&r->sw, s.tid, s.time, s.period);
	} else if ((rec->type == PD_RECORD_SWITCH ||
		    rec->type == PD_RECORD_SWITCH_CPU_WIDE) &&
		   !perfdata_decode_switch(r->d, rec, &sw)) {
		switches_record(&r->sw, &sw, &out);
	}
}

int native_stream_record(struct native_stream *r, const struct pd_record *rec)
{
	if (r->flags & NATIVE_COUNT_PASS) {
		count_record(r, rec);
		return 0;
	}
	switch (rec->type) {
	case PD_RECORD_SAMPLE:
		do_sample(r, rec);
		break;
	case PD_RECORD_COMM: {
		struct pd_comm c;

		if (!perfdata_decode_comm(rec, &c)) {
			set_comm(r, c.tid, intern_comm(r, c.comm));
			if (c.exec)
				own_tasks_exec(&r->own, c.tid);
		}
		unwind_record(r->u, rec);
		break;
	}
	case PD_RECORD_FORK: {
		struct pd_task t;
		struct umap_ent *e;

		/* a new thread or process starts with its parent's name */
		if (!perfdata_decode_task(rec, &t)) {
			if (!umap_find(&r->comms, (uint64_t)(uint32_t)t.tid) &&
			    (e = umap_find(&r->comms,
					   (uint64_t)(uint32_t)t.ptid)))
				set_comm(r, t.tid, e->val);
			own_tasks_fork(&r->own, t.ptid, t.tid);
		}
		unwind_record(r->u, rec);
		break;
	}
	case PD_RECORD_EXIT: {
		struct pd_task t;

		/* its tid may be reused: whoever gets it is not ours */
		if (!perfdata_decode_task(rec, &t))
			own_tasks_exec(&r->own, t.tid);
		unwind_record(r->u, rec);
		break;
	}
	case PD_RECORD_SWITCH:
	case PD_RECORD_SWITCH_CPU_WIDE: {
		struct pd_switch sw;
		struct sample ps;
		char buf[32];
		const char *comm;

		if (perfdata_decode_switch(r->d, rec, &sw) ||
		    !switches_record(&r->sw, &sw, &ps))
			break;
		comm = comm_of(r, ps.tid, buf, sizeof(buf));
		ps.comm.s = comm;
		ps.comm.len = strlen(comm);
		thread_name_of(r, &ps);
		ps.own = own_tasks_has(&r->own, ps.tid);
		r->cb_ret = r->cb(r->data, &ps);
		break;
	}
	default:
		unwind_record(r->u, rec);
		break;
	}
	return r->cb_ret;
}

static void do_record(struct reader *r, const struct tq_ent *q)
{
	const unsigned char *h = q->ptr ? (const unsigned char *)q->ptr :
					   r->d.map + q->off;
	struct pd_record rec;

	rec.type = get_le32(h);
	rec.misc = get_le16(h + 4);
	rec.len = get_le16(h + 6) - 8u;
	rec.body = h + 8;
	rec.offset = q->off;
	native_stream_record(r->ns, &rec);
}

/*
 * Deliver the queued records up to time limit, in time order; keep the
 * rest.  Then the file's pages before the oldest record kept can go.
 */
static void flush(struct reader *r, uint64_t limit)
{
	struct timeq *q = &r->q;
	size_t i, n;
	uint64_t keep_from = r->d.pos;

	timeq_sort(q);
	n = timeq_due(q, limit);
	for (i = 0; i < n && !r->ns->cb_ret; i++) {
		unsigned char *copy = q->e[i].ptr;

		do_record(r, &q->e[i]);
		if (copy)
			r->copied -= get_le16(copy + 6);
		free(copy);
	}
	timeq_drop(q, i);
	for (i = 0; i < q->nr; i++)
		if (!q->e[i].ptr && q->e[i].off < keep_from)
			keep_from = q->e[i].off;
	r->oldest_off = keep_from == r->d.pos ? 0 : keep_from;
	perfdata_release_before(&r->d, keep_from);
}

/* The oldest time among the newest quarter of the records queued. */
static uint64_t window_limit(const struct reader *r)
{
	const struct timeq *q = &r->q;
	uint64_t from = q->seq - q->nr / 4, lim = UINT64_MAX;
	size_t i;

	for (i = 0; i < q->nr; i++)
		if (q->e[i].seq >= from && q->e[i].time < lim)
			lim = q->e[i].time;
	/* nothing delivered yet would never move: take at least one */
	return lim ? lim - 1 : 0;
}

static void progress(struct reader *r, int last)
{
	const struct native_opts *o = r->o;

	r->st.bytes = r->d.pos - r->d.data_off;
	/* the first pass of a wall session is not shown */
	if (!o->progress || (r->ns->flags & NATIVE_COUNT_PASS) ||
	    (!last && r->st.bytes < r->next_progress))
		return;
	o->progress(o->progress_data, r->st.bytes, r->ns->samples);
	r->next_progress = r->st.bytes + (4 << 20);
}

/* Every record of r->d into r->ns, in time order. */
static void read_all(struct reader *r)
{
	struct pd_record rec;

	while (!r->ns->cb_ret && perfdata_next_record(&r->d, &rec) > 0) {
		struct tq_ent *e;
		uint64_t t;

		if (rec.type == PD_RECORD_FINISHED_ROUND) {
			/* perf's rule: what is older than the last round */
			flush(r, r->next_flush);
			r->next_flush = r->round_max;
			progress(r, 0);
			continue;
		}
		if (perfdata_record_time(&r->d, &rec, &t) < 0)
			t = r->last_time;	/* keeps its place */
		r->last_time = t;
		if (t > r->round_max)
			r->round_max = t;
		e = timeq_push(&r->q, t, rec.offset);
		/*
		 * Samples are read from the file when their turn comes;
		 * the rest, and what was decompressed (perf record -z),
		 * only lives until the next record: copied.
		 */
		if (rec.type != PD_RECORD_SAMPLE ||
		    !perfdata_record_in_file(&r->d, &rec)) {
			e->ptr = xmalloc(rec.len + 8);
			memcpy(e->ptr, rec.body - 8, rec.len + 8);
			r->copied += rec.len + 8;
		} else if (r->oldest_off > rec.offset || !r->oldest_off) {
			r->oldest_off = rec.offset;
		}
		if (r->q.nr >= MAX_QUEUED)
			flush(r, UINT64_MAX);
		else if ((r->oldest_off &&
			  rec.offset - r->oldest_off > WINDOW_BYTES) ||
			 r->copied > WINDOW_BYTES) {
			size_t before = r->q.nr;

			flush(r, window_limit(r));
			if (r->q.nr == before)	/* all of one time */
				flush(r, UINT64_MAX);
		}
	}
	flush(r, UINT64_MAX);
}

static void reader_release(struct reader *r)
{
	native_stream_free(r->ns);
	while (r->q.nr)
		free(r->q.e[--r->q.nr].ptr);
	timeq_release(&r->q);
	perfdata_close(&r->d);
}

static int reader_open(struct reader *r, const struct native_opts *o,
		       char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	return o->buf ? perfdata_open_mem(&r->d, o->buf, o->buf_len, err,
					  errlen) :
		perfdata_open(&r->d, o->perf_data, err, errlen);
}

/*
 * A wall session of perf record's (switch records): the first pass,
 * each thread's time on CPU against its samples' periods, into ns's
 * ratios (see switches_count()).  A file that does not read again
 * leaves them unscaled: the second pass says why.
 */
static void count_pass(const struct native_opts *o, struct native_stream *ns)
{
	struct reader c;
	char err[PPR_ERR_LEN];

	if (reader_open(&c, o, err, sizeof(err)))
		return;
	if (!native_stream_new(&c.ns, &c.d, NULL, NATIVE_COUNT_PASS, NULL,
			       NULL, err, sizeof(err))) {
		read_all(&c);
		switches_scale_from(&ns->sw, &c.ns->sw);
	}
	reader_release(&c);
}

int native_load(const struct native_opts *o, struct native_stats *st,
		int *cb_ret, char *err, size_t errlen)
{
	struct reader r;
	int ret = -1;

	*cb_ret = 0;
	if (reader_open(&r, o, err, errlen))
		return -1;
	if (native_stream_new(&r.ns, &r.d, o->session_dir, o->flags, o->cb,
			      o->data, err, errlen) < 0)
		goto out;
	own_tasks_init(&r.ns->own, o->helper_pid);
	if (r.ns->sw.records)
		count_pass(o, r.ns);
	if (o->header)
		o->header(o->data, &r.d);
	read_all(&r);
	progress(&r, 1);
	if (r.d.need_zstd || r.d.zstd_failed) {
		if (r.d.need_zstd)
			set_err(err, errlen, "'%s': %s", o->perf_data ?
				o->perf_data : "perf.data", PERFDATA_NO_ZSTD);
		else
			set_err(err, errlen, "'%s': a compressed record "
				"(perf record -z) does not decompress: the "
				"records from there on cannot be read",
				o->perf_data ? o->perf_data : "perf.data");
		goto out;
	}
	*cb_ret = r.ns->cb_ret;
	if (st) {
		const struct unwind_stats *us = unwind_stats(r.ns->u);

		*st = r.st;
		st->samples = r.ns->samples;
		st->frames = r.ns->frames;
		st->bad_samples = r.ns->bad_samples;
		st->walker = r.ns->wstats;
		st->unwind_fallbacks = us->fallbacks;
		st->lost = perfdata_lost(&r.d, o->stopped);
		st->switch_samples = r.ns->sw.switch_samples;
		st->switch_broken = r.ns->sw.broken;
	}
	ret = 0;
out:
	reader_release(&r);
	return ret;
}

/* ---- into the report's pipeline ---------------------------------------- */

/*
 * Can this perf.data give off-CPU intervals: switch records
 * (attr.context_switch, bit 26 of its flags) or offcpu-time samples?
 * A file of perf's --off-cpu reads in the wall clock by default.
 */
static void native_clock(struct loader *l, const struct perfdata *d)
{
	size_t i;

	for (i = 0; i < d->nr_attrs; i++) {
		if (d->attrs[i].flags & (1ULL << 26))
			l->offcpu_source = 1;
		if (d->attrs[i].name &&
		    !strcmp(d->attrs[i].name, "offcpu-time")) {
			l->offcpu_source = 1;
			if (l->clock_defaulted)
				agg_set_clock(l, PROFILE_CLOCK_WALL);
		}
		if (d->attrs[i].name && !strcmp(d->attrs[i].name, "waker"))
			l->wakers_source = 1;
	}
}

/*
 * The session's samples read from perf.data itself (native_load()),
 * unwound and named as perf script would, into the pipeline.
 */
static void native_header(void *data, const struct perfdata *d)
{
	struct report_cache_facts fa;

	/* read_dumps()'s facts from the header; the rest come per sample */
	memset(&fa, 0, sizeof(fa));
	fa.max_stack = d->attrs[0].sample_max_stack;
	fa.dump_size = d->attrs[0].sample_stack_user;
	judge_use_facts(data, &fa);
	native_clock(data, d);
}

int src_native_run(struct loader *l, char *err, size_t errlen)
{
	struct native_opts o;
	struct native_stats st;
	int cb_ret, ret;
	long broken;

	memset(&o, 0, sizeof(o));
	o.session_dir = l->s->dir;
	o.perf_data = l->s->perf_data;
	o.cb = pipeline_sample;
	o.data = l;
	o.header = native_header;
	o.helper_pid = l->helper_pid;
	o.stopped = l->p->max_size_stop >= 0;
	o.progress = l->f->progress;
	o.progress_data = l->f->progress_data;
	if (l->f->reader == PROFILE_READER_RECORDED)
		o.flags |= NATIVE_RECORDED;
	ret = native_load(&o, &st, &cb_ret, err, errlen);
	if (!ret) {
		struct profile_quality *q = &l->p->quality;

		l->recorded = st.samples + st.bad_samples + st.switch_samples;
		l->lost = st.lost;
		q->offcpu_broken = st.switch_broken;
		/*
		 * the frame walker pairs its switches as it records: the
		 * intervals whose switch-out or switch-in it lost are not
		 * in perf.data, only counted in the session's meta
		 */
		if (!parse_long(profile_meta_get(l->p, "walker_offcpu_broken"),
				10, 1, LONG_MAX, &broken)) {
			q->walker_broken = (uint64_t)broken;
			if (!parse_long(profile_meta_get(l->p,
						"walker_offcpu_broken_ns"),
					10, 0, LONG_MAX, &broken))
				q->walker_broken_ns = (uint64_t)broken;
		}
		q->walker_samples = st.walker.samples;
		q->walker_py_frames = st.walker.py_frames;
		q->walker_unnamed = st.walker.unnamed;
		q->walker_no_python = st.walker.no_python;
		q->walker_native_short = st.walker.native_short;
		q->walker_native_stopped = st.walker.native_stopped;
		q->walker_native_nostack = st.walker.native_nostack;
	}
	return ret;
}
