/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf-script source (pipeline_priv.h): a session in, its samples
 * out to pipeline_sample().  `perf script` runs on the session (the
 * perf that recorded it, when no other is asked for), its text is
 * parsed (report/src_perfscript_parse.h) and teed into the session's cache
 * (report/src_perfscript_cache.h), which a later report replays instead of
 * running perf again.  perf script does not say whether a stack dump
 * was full, where a thread's stack ends, or how many samples perf
 * lost: read_dumps() walks perf.data for those facts (kept in the
 * cache too) and gives them to the judging stage.
 */
#include "compat.h"
#include "alloc.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "report/src_perfscript_parse.h"
#include "report/src_owntasks.h"
#include "report/pipeline_priv.h"
#include "session.h"
#include "spawn.h"
#include "strbuf.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fact_dump_cmp(const void *a, const void *b)
{
	const struct report_cache_dump *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}


/*
 * Read what perf script does not say about each sample: in jit mode
 * whether the kernel's copy of the user stack was full (the stack goes
 * on beyond it) and where each thread's stack ends; the callchain cap
 * asked for; the samples recorded and lost.  This walks all of
 * perf.data (the session's cache keeps the result: see src_perfscript_run).
 * The native reader needs no such walk: it gives the dump with each
 * sample (struct sample's dump_*), and its own pass the counts.
 * Without a readable perf.data fa stays zero and the judgement is
 * vaguer (CUT_NOROOT), never wrong.
 */
static void read_dumps(const char *path, int stopped,
		       struct report_cache_facts *fa)
{
	char why[PPR_ERR_LEN];
	struct perfdata d;
	struct pd_sample s;
	size_t dumps_alloc = 0, tops_alloc = 0;

	memset(fa, 0, sizeof(*fa));
	if (perfdata_open(&d, path, why, sizeof(why)) < 0)
		return;
	d.release_behind = 1;	/* streamed: resident size stays small */
	fa->max_stack = d.attrs[0].sample_max_stack;
	fa->dump_size = d.attrs[0].sample_stack_user;
	/* every record is walked: lost-sample records are anywhere */
	while (perfdata_next(&d, &s) > 0) {
		struct report_cache_dump *dp;

		if (!fa->dump_size || !s.have_time || !s.have_tid ||
		    !s.have_stack)
			continue;
		ALLOC_GROW(fa->dumps, fa->nr_dumps + 1, dumps_alloc);
		dp = &fa->dumps[fa->nr_dumps++];
		dp->time = s.time;
		dp->tid = s.tid;
		dp->sp = s.have_sp ? s.user_sp : 0;
		dp->full = s.dyn_size == s.stack_size;
		/*
		 * The kernel stops copying where the stack's mapping
		 * ends: a short copy shows the thread's stack top.
		 */
		if (!dp->full && s.have_sp) {
			ALLOC_GROW(fa->tops, fa->nr_tops + 1, tops_alloc);
			fa->tops[fa->nr_tops].tid = s.tid;
			fa->tops[fa->nr_tops++].top = s.user_sp + s.dyn_size;
		}
	}
	fa->recorded = d.samples + d.bad_samples;
	/* stopped at --max-size: perfdata_lost()'s */
	fa->lost = perfdata_lost(&d, stopped);
	perfdata_close(&d);
	if (fa->nr_dumps)
		qsort(fa->dumps, fa->nr_dumps, sizeof(*fa->dumps),
		      fact_dump_cmp);
	fa->nr_tops = judge_tops_sort_unique(fa->tops, fa->nr_tops);
}

/*
 * Samples from perf go to the session's cache (when one is written)
 * and to the pipeline, marked when they are pyperf-run's own tasks'
 * (report/src_owntasks.h), which the task records between them tell.
 */
struct cache_tee {
	struct loader *l;
	struct report_cache_writer *w;
	struct own_tasks own;
};

static int tee_sample(void *data, const struct sample *s)
{
	struct cache_tee *t = data;
	struct sample m = *s;

	m.own = own_tasks_has(&t->own, s->tid);
	if (t->w)
		report_cache_add(t->w, &m);
	return pipeline_sample(t->l, &m);
}

static void tee_task(void *data, const struct ps_task *k)
{
	struct cache_tee *t = data;

	if (k->kind == PS_TASK_FORK)
		own_tasks_fork(&t->own, k->ptid, k->tid);
	else
		own_tasks_exec(&t->own, k->tid);
}

/*
 * Write the cache of a complete perf script run, unless perf.data or
 * perf changed meanwhile.  A session that cannot be written to (read
 * only, full disk) is still read: each report then runs perf script.
 */
static void keep_cache(const struct cache_tee *t, const char *dir,
		       const struct strbuf *key, const char *const *argv,
		       const struct perfscript *ps)
{
	struct strbuf now = STRBUF_INIT;
	struct report_cache_stats st;

	st.bytes = ps->bytes;
	st.bad_lines = ps->bad_lines;
	st.samples = ps->samples;
	if (!report_cache_key(&now, dir, argv) && now.len == key->len &&
	    !memcmp(now.buf, key->buf, key->len))
		report_cache_write(t->w, dir, key, &st);
	strbuf_release(&now);
}

/*
 * The perf to read the session with (perfcmd_perf()): the one that
 * recorded it, when no other is asked for and it is still there (perf
 * 6.1 cannot read what 6.12 wrote).
 */
static const char *perf_program(const struct loader *l)
{
	return perfcmd_perf(l->f->perf, profile_meta_get(l->p, "perf"));
}

static void perf_missing(const struct loader *l, char *err, size_t errlen)
{
	set_err(err, errlen,
		"cannot run '%s': not found (install perf, e.g. the Debian "
		"package linux-perf)", perf_program(l));
}

/*
 * When perf fails on a session another perf recorded, say which: the
 * likely cause ("incompatible file format", "unsupported ABI").
 */
static void perf_mismatch(const struct loader *l, char *err, size_t errlen)
{
	const char *rec = profile_meta_get(l->p, "perf");
	const char *ver = profile_meta_get(l->p, "perf_version");
	const char *used = perf_program(l);
	size_t n = strlen(err);

	if (!rec || !strcmp(rec, used) || n + 1 >= errlen)
		return;
	if (access(rec, X_OK))
		snprintf(err + n, errlen - n,
			 " (the session was recorded with perf %s at '%s', "
			 "which is no longer there)", ver ? ver : "?", rec);
	else
		snprintf(err + n, errlen - n,
			 " (the session was recorded with perf %s: try "
			 "--perf '%s')", ver ? ver : "?", rec);
}

/*
 * Read perf's output into the parser (and its stderr, the first 64 KiB,
 * into errout) until perf closes both.  perf writes its output in
 * small pieces; waking up for each costs more than parsing it.  A
 * large pipe and a short nap after a small read let the pieces gather
 * (perf, the slower side, never waits).
 */
static void read_perf(struct loader *l, const struct spawn *sp,
		      struct perfscript *ps, struct strbuf *errout,
		      int *cb_ret, char *err, size_t errlen)
{
	char *chunk = xmalloc(1 << 18);
	struct pollfd pfd[2];
	int open_fds = 2;

	fcntl(sp->out, F_SETPIPE_SZ, 1 << 20);
	pfd[0].fd = sp->out;
	pfd[0].events = POLLIN;
	pfd[1].fd = sp->err;
	pfd[1].events = POLLIN;
	while (open_fds) {
		int i;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			set_err(err, errlen, "poll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < 2; i++) {
			ssize_t r;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			r = read(pfd[i].fd, chunk, 1 << 18);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 1) {
				if (errout->len < (1 << 16))
					strbuf_add(errout, chunk, (size_t)r);
				continue;
			}
			if (!*cb_ret)
				*cb_ret = perfscript_feed(ps, chunk,
							  (size_t)r);
			if (r < (1 << 16)) {
				struct timespec nap = { 0, 1000000 };

				nanosleep(&nap, NULL);
			}
			if (l->f->progress && ps->bytes >= l->next_progress) {
				l->f->progress(l->f->progress_data,
					       ps->bytes, ps->samples);
				l->next_progress = ps->bytes + (4 << 20);
			}
		}
	}
	free(chunk);
}

/*
 * How perf ended: 0 when it gave its samples, else -1 with err saying
 * why (its last line of stderr, and which perf recorded the session
 * when another one read it).
 */
static int perf_status(const struct loader *l, int status,
		       const struct perfscript *ps, struct strbuf *errout,
		       char *err, size_t errlen)
{
	char line[256];

	if (status < 0)
		return set_err(err, errlen, "waiting for perf: %s",
			       strerror(-status));
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char desc[128];

		spawn_describe_status(status, desc, sizeof(desc));
		str_last_line(errout->buf, errout->len, line, sizeof(line));
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127 &&
		    !ps->bytes) {
			perf_missing(l, err, errlen);
			return -1;
		}
		set_err(err, errlen, "perf script %s%s%s", desc,
			*line ? ": " : "", line);
		perf_mismatch(l, err, errlen);
		return -1;
	}
	if (!ps->samples && !ps->bytes && errout->len) {
		/* perf said why it produced nothing */
		str_last_line(errout->buf, errout->len, line, sizeof(line));
		set_err(err, errlen, "perf script produced no samples: %s",
			line);
		perf_mismatch(l, err, errlen);
		return -1;
	}
	return 0;
}

/* Run perf script (argv) into the parser; 0, or -1 with err. */
static int run_perf(struct loader *l, const struct strvec *argv,
		    struct perfscript *ps, int *cb_ret, char *err,
		    size_t errlen)
{
	struct spawn sp = SPAWN_INIT;
	struct strbuf errout = STRBUF_INIT;
	int ret, status;

	sp.argv = argv->v;
	sp.in = SPAWN_DEVNULL;
	sp.out = SPAWN_PIPE;
	sp.err = SPAWN_PIPE;
	sp.flags = SPAWN_DEFAULT_SIGS;
	ret = spawn_start(&sp, err, errlen);
	if (ret < 0) {
		if (ret == -ENOENT)
			perf_missing(l, err, errlen);
		return -1;
	}
	read_perf(l, &sp, ps, &errout, cb_ret, err, errlen);
	if (!*cb_ret)
		*cb_ret = perfscript_finish(ps);
	status = spawn_finish(&sp);
	if (l->f->progress)
		l->f->progress(l->f->progress_data, ps->bytes, ps->samples);
	ret = perf_status(l, status, ps, &errout, err, errlen);
	strbuf_release(&errout);
	return ret;
}

int src_perfscript_run(struct loader *l, char *err, size_t errlen)
{
	const char *dir = l->s->dir;
	struct strvec argv = STRVEC_INIT;
	struct perfscript ps;
	struct strbuf key = STRBUF_INIT;
	struct cache_tee tee;
	struct report_cache_facts facts;
	int ret = -1, cb_ret = 0;
	/*
	 * jit mode matches samples to perf.data's by time, and the
	 * session's cache (written from this run) must serve a later
	 * --time report too: always ask for times.
	 */
	int need_time = 1;

	memset(&facts, 0, sizeof(facts));
	memset(&tee, 0, sizeof(tee));
	tee.l = l;
	own_tasks_init(&tee.own, l->helper_pid);
	perfscript_init(&ps, tee_sample, &tee);
	ps.task_cb = tee_task;
	/* the task records tell pyperf-run's own tasks (src_owntasks.h) */
	perfcmd_script_argv(perf_program(l), l->s->buildid, l->s->perf_data,
			    need_time ? PERFSCRIPT_FIELDS_TIME :
			    PERFSCRIPT_FIELDS, PERFCMD_SCRIPT_TASK_EVENTS |
			    (need_time ? PERFCMD_SCRIPT_NS : 0), &argv);
	/*
	 * No --pid/--tid: the session's cache must hold every sample, so
	 * the pipeline filters (and counts what it leaves out).  The
	 * cache also holds what read_dumps() found: a cached report reads
	 * only perf.data's header.
	 */
	if (!report_cache_key(&key, dir, argv.v)) {
		struct report_cache_stats cst;

		if (report_cache_replay(dir, &key, judge_use_facts,
					pipeline_sample, l, &cst, &cb_ret)) {
			if (l->f->progress)
				l->f->progress(l->f->progress_data,
					       cst.bytes, cst.samples);
			ret = 0;
			goto out;
		}
		/* no usable cache: keep what perf script gives */
		tee.w = report_cache_writer_new();
	}
	read_dumps(l->s->perf_data, l->p->max_size_stop >= 0, &facts);
	judge_use_facts(l, &facts);
	if (tee.w)
		report_cache_set_facts(tee.w, &facts);
	report_cache_facts_release(&facts);

	if (run_perf(l, &argv, &ps, &cb_ret, err, errlen) < 0)
		goto out;
	/*
	 * perf script stops early and still exits 0 on SIGINT (a Ctrl-C
	 * while record reads the session back): a run that delivered
	 * fewer samples than perf.data holds is not kept, or every later
	 * report would show the part.
	 */
	if (tee.w && !cb_ret && (!l->recorded || ps.samples >= l->recorded))
		keep_cache(&tee, dir, &key, argv.v, &ps);
	ret = 0;
out:
	report_cache_writer_free(tee.w);
	own_tasks_release(&tee.own);
	strbuf_release(&key);
	perfscript_release(&ps);
	strvec_clear(&argv);
	return ret;
}
