/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * profile_load(): a session in, the profile model out.  It opens the
 * session, picks the source (src_native.c, or src_perfscript.c when
 * asked), which hands every sample to the stages (pipeline.c's
 * pipeline_sample(); the stages are drawn in pipeline_priv.h and
 * lib/README.md), then the judgement of the stack dumps and the
 * quality warnings.  profile_live.c drives the same pipeline for top.
 */
#include "compat.h"
#include "alloc.h"
#include "numparse.h"
#include "perfdata.h"
#include "report/pipeline_priv.h"
#include "report/stage_quality.h"
#include "session.h"

/* A pid from the session's meta (0: none). */
static pid_t meta_pid(const struct profile *p, const char *key)
{
	long v;

	if (parse_long(profile_meta_get(p, key), 10, 1, INT32_MAX, &v))
		return 0;
	return (pid_t)v;
}

int profile_load(struct profile *p, const char *session,
		 const struct profile_filter *f, char *err, size_t errlen)
{
	return profile_load_tap(p, session, f, NULL, NULL, err, errlen);
}

int profile_load_tap(struct profile *p, const char *session,
		     const struct profile_filter *f, pipeline_tap_fn tap,
		     void *tap_data, char *err, size_t errlen)
{
	static const struct profile_filter defaults = PROFILE_FILTER_INIT;
	struct loader l;
	struct session s;
	size_t i;
	int ret;

	if (!f)
		f = &defaults;
	loader_init(&l, p, f);
	l.tap = tap;
	l.tap_data = tap_data;
	p->session = xstrdup(session);
	l.s = &s;

	if (session_open(&s, session, 0, err, errlen) < 0) {
		ret = -1;
		goto out;
	}
	l.map_dirs[l.nr_map_dirs++] = s.maps;
	for (i = 0; i < s.meta.keys.nr; i++)
		profile_meta_set(p, s.meta.keys.v[i], s.meta.values.v[i]);
	/*
	 * Look at perf.data's header before perf does: perf 6.1 dies with
	 * SIGBUS on a file cut short.
	 */
	ret = perfdata_check_header(s.perf_data, (uint64_t)s.perf_data_size,
				    err, errlen);
	if (ret < 0)
		goto out;
	l.helper_pid = meta_pid(p, "helper_pid");
	/* a `record --wall` session reads in the wall clock by default */
	l.wall_session = profile_meta_get(p, "wall") != NULL;
	if (!f->clock && l.wall_session)
		agg_set_clock(&l, PROFILE_CLOCK_WALL);
	if (p->clock != PROFILE_CLOCK_CPU &&
	    f->reader == PROFILE_READER_PERF_SCRIPT) {
		ret = set_err(err, errlen, "the perf-script reader (--reader, "
			      "or chosen by --perf or $PYPERF_PERF) reads "
			      "only the cpu clock: give --reader native for "
			      "--clock %s, or --clock cpu",
			      profile_clock_name(p->clock));
		goto out;
	}
	/*
	 * perf script shows a bpf-mode sample's user stack, not the frame
	 * walker's Python frames (its raw data): every Python function would
	 * be missing from the profile, and the warnings would blame symbols
	 */
	if (f->reader == PROFILE_READER_PERF_SCRIPT &&
	    !strcmp(profile_meta_get(p, "mode") ? profile_meta_get(p, "mode") :
		    "", "bpf")) {
		ret = set_err(err, errlen, "the perf-script reader (--reader, "
			      "or chosen by --perf or $PYPERF_PERF) cannot "
			      "read the frame walker's Python frames of a bpf "
			      "mode session: give --reader native");
		goto out;
	}
	loader_frames(&l);
	{
		unsigned damaged;

		ret = ctx_db_load(&l.ctx, s.maps, &damaged, err, errlen);
		if (ret < 0)
			goto out;
		p->quality.ctx_damaged = damaged;
	}
	/* the perf-script source also walks perf.data (read_dumps()) */
	if (f->reader != PROFILE_READER_PERF_SCRIPT)
		ret = src_native_run(&l, err, errlen);
	else
		ret = src_perfscript_run(&l, err, errlen);
	if (ret < 0)
		goto out;
	if (!p->total_weight && !p->dropped && !f->nr_pids && !f->nr_tids) {
		ret = set_err(err, errlen,
			      "no samples in '%s/perf.data' (empty, "
			      "truncated or not a recording with call "
			      "graphs?)", session);
		goto out;
	}
	if (p->clock != PROFILE_CLOCK_CPU && !l.offcpu_source) {
		ret = set_err(err, errlen,
			      "'%s' has no off-CPU data for --clock %s: record "
			      "with 'pyperf-run record --wall'", session,
			      profile_clock_name(p->clock));
		goto out;
	}
	if (f->wakers && !l.wakers_source) {
		ret = set_err(err, errlen,
			      "'%s' has no wakers for --wakers: record with "
			      "'pyperf-run record --wall --wakers' (bpf mode)",
			      session);
		goto out;
	}
	if (p->duration < 0 && p->last_time > p->first_time)
		p->duration = p->last_time - p->first_time;
	agg_finish(&l);
	judge_dumps(&l);
	quality_warnings(&l);
	quality_lost(p, l.lost, l.recorded);
	quality_max_size(p);
out:
	session_close(&s);
	loader_release(&l);
	return ret;
}
