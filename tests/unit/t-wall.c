/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: the wall clock's parts that need no recording: switch
 * records decoded (lib/perfdata.c), switch records and switch-out
 * stacks into off-CPU intervals (lib/report/src_native_switches.c), the wait
 * reasons' table (lib/report/stage_aggregate_waitclass.c), record --wall's route
 * (lib/record/run.c) and its perf command line (lib/perfcmd.c).
 */
#include "compat.h"
#include "perfcmd.h"
#include "perfdata.h"
#include "record/run.h"
#include "route.h"
#include "report/profile.h"
#include "report/src_native.h"
#include "report/src_native_switches.h"
#include "report/stage_aggregate_waitclass.h"
#include "tap.h"

#include <stdlib.h>
#include <linux/types.h>
#include "walker/walker_abi.h"

#define ST_IP		(1ULL << 0)
#define ST_TID		(1ULL << 1)
#define ST_TIME		(1ULL << 2)
#define ST_PERIOD	(1ULL << 8)
#define ST_RAW		(1ULL << 10)
#define ST_CPU		(1ULL << 7)
#define SAMPLE_ID_ALL	(1ULL << 18)
#define CONTEXT_SWITCH	(1ULL << 26)	/* --switch-events */
#define HDR_SIZE 104
#define ATTR_SIZE 112

static unsigned char file[4096];
static size_t flen;

static void put(const void *v, size_t n)
{
	memcpy(file + flen, v, n);
	flen += n;
}

static void put64(uint64_t v) { put(&v, 8); }
static void put32(uint32_t v) { put(&v, 4); }

/*
 * A perf.data of one cpu-clock attr (TID|TIME|CPU, sample_id_all) and
 * the records added by add_switch(); end_file() sets the data size.
 */
static void begin_file(void)
{
	uint64_t v;

	memset(file, 0, sizeof(file));
	memcpy(file, "PERFILE2", 8);
	v = HDR_SIZE;
	memcpy(file + 8, &v, 8);
	v = ATTR_SIZE + 16;
	memcpy(file + 16, &v, 8);	/* attr entry size */
	v = HDR_SIZE;
	memcpy(file + 24, &v, 8);	/* attrs at */
	v = ATTR_SIZE + 16;
	memcpy(file + 32, &v, 8);
	flen = HDR_SIZE;
	file[flen + 0] = 1;		/* PERF_TYPE_SOFTWARE, cpu-clock */
	file[flen + 4] = ATTR_SIZE;
	v = ST_TID | ST_TIME | ST_CPU;
	memcpy(file + flen + 24, &v, 8);
	v = SAMPLE_ID_ALL | CONTEXT_SWITCH;
	memcpy(file + flen + 40, &v, 8);
	flen += ATTR_SIZE + 16;		/* no ids */
	v = flen;
	memcpy(file + 40, &v, 8);	/* data at */
}

static void add_switch(uint32_t type, uint16_t misc, pid_t tid,
		       uint64_t time)
{
	uint16_t size = 8 + (type == PD_RECORD_SWITCH_CPU_WIDE ? 8 : 0) + 24;

	put32(type);
	put(&misc, 2);
	put(&size, 2);
	if (type == PD_RECORD_SWITCH_CPU_WIDE) {
		put32(999);		/* next_prev pid, tid */
		put32(999);
	}
	put32((uint32_t)tid);		/* trailer: pid, tid */
	put32((uint32_t)tid);
	put64(time);
	put64(1);			/* cpu, reserved */
}

static void end_file(void)
{
	uint64_t v = flen - (HDR_SIZE + ATTR_SIZE + 16);

	memcpy(file + 48, &v, 8);
}

static void test_decode(struct perfdata *d)
{
	struct pd_record r;
	struct pd_switch sw;
	char err[PPR_ERR_LEN];

	begin_file();
	add_switch(PD_RECORD_SWITCH, PD_MISC_SWITCH_OUT |
		   PD_MISC_SWITCH_PREEMPT, 42, 1000);
	add_switch(PD_RECORD_SWITCH_CPU_WIDE, 0, 42, 5000);
	end_file();
	TAP_OK(!perfdata_open_mem(d, file, flen, err, sizeof(err)),
	       "a file of switch records opens (%s)", err);
	TAP_OK(perfdata_next_record(d, &r) > 0 &&
	       !perfdata_decode_switch(d, &r, &sw),
	       "SWITCH decodes");
	TAP_OK(sw.out && sw.preempt && sw.have_tid && sw.tid == 42 &&
	       sw.have_time && sw.time == 1000,
	       "out, preempted, tid 42 at 1000 from the trailer");
	TAP_OK(perfdata_next_record(d, &r) > 0 &&
	       !perfdata_decode_switch(d, &r, &sw),
	       "SWITCH_CPU_WIDE decodes");
	TAP_OK(!sw.out && !sw.preempt && sw.tid == 42 && sw.time == 5000,
	       "in, its own tid past the next/prev pid");
	r.len = 4;
	TAP_OK(perfdata_decode_switch(d, &r, &sw) < 0,
	       "a record too short for its trailer is refused");
}

static struct sample_frame frame(const char *sym)
{
	struct sample_frame f;

	memset(&f, 0, sizeof(f));
	f.sym.s = sym;
	f.sym.len = strlen(sym);
	f.dso.s = "[kernel.kallsyms]";
	f.dso.len = strlen(f.dso.s);
	return f;
}

static void test_intervals(const struct perfdata *d)
{
	struct switches sw;
	struct pd_switch r;
	struct pd_sample s;
	struct sample out;
	struct sample_frame wait[2], run[1];

	wait[0] = frame("schedule");
	wait[1] = frame("do_nanosleep");
	run[0] = frame("spin");
	switches_init(&sw, d);
	memset(&r, 0, sizeof(r));
	r.have_tid = r.have_time = 1;
	r.pid = r.tid = 7;
	r.time = 100;
	TAP_OK(!switches_record(&sw, &r, &out),
	       "a first switch-in (the thread starts) is no interval");
	switches_oncpu(&sw, 7, 150, run, 1);
	memset(&s, 0, sizeof(s));
	s.attr = &d->attrs[0];
	s.have_tid = s.have_time = 1;
	s.pid = s.tid = 7;
	s.time = 200;
	switches_stack(&sw, &s, SWEV_CTXSW, wait, 2);
	r.out = 1;
	r.time = 210;
	TAP_OK(!switches_record(&sw, &r, &out), "a switch-out opens one");
	r.out = 0;
	r.time = 1210;
	TAP_OK(switches_record(&sw, &r, &out), "the switch-in ends it");
	TAP_OK(out.offcpu && out.weight == 1000 && out.unit == UNIT_NS &&
	       out.time_ns == 1210 && out.tid == 7 && !out.preempt &&
	       !out.stack_inferred,
	       "1000 ns ending at the switch-in, in nanoseconds");
	TAP_OK(out.nr_frames == 2 && out.frames[1].sym.len == 12 &&
	       !memcmp(out.frames[1].sym.s, "do_nanosleep", 12),
	       "on the stack of the switch sample");
	r.out = 1;
	r.preempt = 1;
	r.time = 2000;
	switches_record(&sw, &r, &out);
	r.out = r.preempt = 0;
	r.time = 2500;
	TAP_OK(switches_record(&sw, &r, &out) && out.preempt &&
	       out.stack_inferred && out.nr_frames == 1 &&
	       out.frames[0].sym.len == 4 && out.weight == 500,
	       "without a switch sample: the last on-CPU stack, inferred");
	r.time = 3000;
	TAP_OK(!switches_record(&sw, &r, &out) && sw.broken == 1,
	       "a switch-in without a switch-out (a lost record) is none, "
	       "and counted");
	TAP_INT(sw.switch_records, 6, "records counted");
	r.out = 1;
	r.time = 4000;
	switches_record(&sw, &r, &out);
	switches_oncpu(&sw, 7, 4500, run, 1);
	r.out = 0;
	r.time = 5000;
	TAP_OK(!switches_record(&sw, &r, &out) && sw.broken == 2,
	       "ran between a switch-out and a switch-in: records lost, "
	       "no interval");
	r.out = 1;
	switches_record(&sw, &r, &out);
	r.time = 6000;
	switches_record(&sw, &r, &out);
	TAP_INT(sw.broken, 3, "out twice: the switch-in was lost");
	switches_release(&sw);
}

/*
 * The on-CPU samples' weight in a wall session: the first pass counts
 * each thread's time on CPU (switch-in to switch-out) and the periods
 * of the samples inside it; the second scales each sample's period by
 * their ratio.
 */
/* A switch record of thread tid into sw: out (1) or in (0), at time. */
static void switch_at(struct switches *sw, pid_t tid, int out, uint64_t time)
{
	struct pd_switch r;
	struct sample s;

	memset(&r, 0, sizeof(r));
	r.have_tid = r.have_time = 1;
	r.pid = r.tid = tid;
	r.out = out;
	r.time = time;
	switches_record(sw, &r, &s);
}

static void test_scale(const struct perfdata *d)
{
	struct switches c, sw;

	switches_init(&c, d);
	switches_init(&sw, d);
	/* thread 7: on CPU 1000-4000 and 10000-13000, two samples of 1000 */
	switch_at(&c, 7, 0, 1000);
	switches_count(&c, 7, 2500, 1000);
	switch_at(&c, 7, 1, 4000);
	switch_at(&c, 7, 0, 10000);
	switches_count(&c, 7, 12000, 1000);
	switch_at(&c, 7, 1, 13000);
	/* a sample its records put off CPU (a lost switch-in): not counted */
	switches_count(&c, 7, 20000, 1000);
	/* thread 8: a stretch with no sample, and one never ended */
	switch_at(&c, 8, 0, 1000);
	switch_at(&c, 8, 1, 2000);
	switch_at(&c, 8, 0, 3000);
	switches_count(&c, 8, 3500, 1000);
	TAP_OK(switches_scale_from(&sw, &c), "a thread has a ratio");
	TAP_INT(switches_period(&sw, 7, 1000), 3000,
		"6000 ns on CPU, 2000 ns of samples: each weighs 3 periods");
	TAP_INT(switches_period(&sw, 8, 1000), 1000,
		"no sample in a stretch that ended: the period stands");
	TAP_INT(switches_period(&sw, 9, 1000), 1000,
		"a thread the first pass did not see: the period stands");
	switches_release(&c);
	switches_release(&sw);
}

/* A frame of p: kernel, native or Python. */
static uint32_t fr(struct profile *p, enum frame_kind k, const char *func)
{
	return profile_frame_intern(p, k, k == FRAME_NATIVE ? NATIVE_SYSTEM :
				    NATIVE_NONE, NULL, func,
				    k == FRAME_PYTHON ? "x.py" : NULL,
				    k == FRAME_KERNEL ? "[kernel.kallsyms]" :
				    k == FRAME_NATIVE ? "libc.so.6" : NULL);
}

#define K FRAME_KERNEL
#define N FRAME_NATIVE
#define P FRAME_PYTHON

struct wcase {
	const char *what;
	enum wait_reason want;
	int inferred;
	struct { enum frame_kind k; const char *f; } st[6];
};

static void test_waitclass(void)
{
	static const struct wcase cases[] = {
		{ "time.sleep", WAIT_SLEEP, 0, { { K, "schedule" },
		  { K, "do_nanosleep" }, { N, "clock_nanosleep" },
		  { P, "main" } } },
		{ "a pipe read", WAIT_IO, 0, { { K, "schedule" },
		  { K, "pipe_read" }, { K, "vfs_read" }, { N, "read" } } },
		{ "take_gil", WAIT_GIL, 0, { { K, "futex_wait" },
		  { N, "pthread_cond_timedwait" }, { N, "take_gil" },
		  { N, "PyEval_RestoreThread" } } },
		{ "a stripped python's GIL", WAIT_GIL, 1, { { K, "futex_wait" },
		  { N, "pthread_cond_timedwait@@GLIBC_2.3.2" },
		  { N, "PyEval_RestoreThread" }, { P, "f" } } },
		{ "the eval loop's GIL", WAIT_GIL, 1, { { K, "futex_wait" },
		  { N, "___pthread_cond_timedwait64" },
		  { N, "_PyEval_EvalFrameDefault" }, { P, "f" } } },
		{ "a threading.Lock", WAIT_LOCK, 0, { { K, "futex_wait" },
		  { N, "__new_sem_wait_slow64.constprop.0" },
		  { N, "PyThread_acquire_lock_timed" },
		  { N, "PyEval_RestoreThread" }, { P, "f" } } },
		{ "a condition wait in a C function, not the GIL's",
		  WAIT_LOCK, 0, {
		  { K, "futex_wait" }, { N, "pthread_cond_wait" },
		  { N, "ext_wait" }, { P, "f" },
		  { N, "PyEval_RestoreThread" } } },
		{ "the GIL's mutex under take_gil", WAIT_GIL, 0, {
		  { K, "futex_wait" }, { N, "__GI___lll_lock_wait" },
		  { N, "pthread_mutex_lock@@GLIBC_2.2.5" },
		  { N, "take_gil" }, { N, "PyEval_RestoreThread" } } },
		{ "a stripped python's GIL mutex", WAIT_GIL, 1, {
		  { K, "futex_wait" }, { N, "__GI___lll_lock_wait" },
		  { N, "pthread_mutex_lock@@GLIBC_2.2.5" },
		  { N, "[python3.11]" }, { N, "PyEval_RestoreThread" },
		  { P, "f" } } },
		{ "a C function's mutex, not the GIL's", WAIT_LOCK, 0, {
		  { K, "futex_wait" }, { N, "__GI___lll_lock_wait" },
		  { N, "pthread_mutex_lock" }, { N, "ext_lock" },
		  { N, "_PyEval_EvalFrameDefault" }, { P, "f" } } },
		/* the frame walker's stacks: the eval loop is its frames */
		{ "retaking a condition's mutex right under a Python frame",
		  WAIT_GIL, 1, {
		  { K, "futex_wait" }, { N, "__GI___lll_lock_wait" },
		  { N, "__pthread_mutex_cond_lock" },
		  { N, "pthread_cond_timedwait@@GLIBC_2.3.2" },
		  { P, "f" } } },
		{ "a condition wait right under a Python frame: the GIL",
		  WAIT_GIL, 1, {
		  { K, "futex_wait" }, { N, "pthread_cond_wait" },
		  { P, "f" }, { N, "PyEval_RestoreThread" } } },
		{ "asyncio's idle loop", WAIT_IDLE, 0, { { K, "ep_poll" },
		  { N, "epoll_wait" }, { P, "EpollSelector.select" },
		  { P, "BaseEventLoop._run_once" } } },
		{ "an epoll of fds", WAIT_IO, 0, { { K, "ep_poll" },
		  { N, "epoll_wait" }, { P, "wait_for_data" } } },
		{ "time.sleep of 3.10 (select)", WAIT_SLEEP, 0, {
		  { K, "do_select" }, { N, "select" }, { N, "pysleep" } } },
		{ "preempted in the kernel", WAIT_RUNQUEUE, 0, {
		  { K, "__cond_resched" }, { K, "vfs_read" } } },
		{ "a shell waiting for its child", WAIT_CHILD, 0, {
		  { K, "do_wait" }, { K, "kernel_wait4" },
		  { K, "__do_sys_wait4" }, { N, "__GI___wait4" } } },
		{ "libc's waitpid without a kernel stack", WAIT_CHILD, 0, {
		  { N, "__GI___waitpid" }, { N, "os_waitpid_impl" } } },
		{ "an unknown wait", WAIT_OTHER, 0, { { K, "schedule" },
		  { N, "mystery" } } },
	};
	struct profile p;
	struct wait_facts wf;
	uint32_t ids[8];
	size_t i, n;
	int inf;

	profile_init(&p);
	memset(&wf, 0, sizeof(wf));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (n = 0; n < 6 && cases[i].st[n].f; n++)
			ids[n] = fr(&p, cases[i].st[n].k, cases[i].st[n].f);
		TAP_STR(wait_reason_name(waitclass(&p, ids, n, &wf, &inf)),
			wait_reason_name(cases[i].want), "%s", cases[i].what);
		TAP_INT(inf, cases[i].inferred, "%s: %s", cases[i].what,
			cases[i].inferred ? "inferred" : "seen");
	}
	ids[0] = fr(&p, K, "do_nanosleep");
	wf.preempt = 1;
	TAP_STR(wait_reason_name(waitclass(&p, ids, 1, &wf, &inf)),
		"runqueue", "preempted: runqueue, whatever the stack");
	wf.preempt = 0;
	wf.have_state = 1;
	wf.prev_state = 2;
	ids[0] = fr(&p, K, "schedule");
	TAP_STR(wait_reason_name(waitclass(&p, ids, 1, &wf, &inf)), "io",
		"D state with no known frame: io");
	profile_release(&p);
}

static void test_route_and_argv(void)
{
	struct sysprobe_kernel k;
	struct perfcmd_record o;
	struct strvec sv = STRVEC_INIT;
	const char *why;
	size_t i;
	int switch_events = 0, sched = 0, freq_term = 0, dash_f = 0;

	memset(&k, 0, sizeof(k));
	k.paranoid.have = 1;
	k.paranoid.value = 2;
	TAP_INT(route_wall(&k, &why), PERFCMD_WALL_NOSTACK,
		"unprivileged at paranoid 2: switch records alone");
	TAP_OK(why && strstr(why, "stack inferred"), "...and says why");
	k.paranoid.value = 1;
	TAP_INT(route_wall(&k, &why), PERFCMD_WALL_CTXSW,
		"unprivileged at paranoid 1: context-switches samples");
	TAP_OK(!why, "...with nothing to say");
	k.privileged = 1;
	TAP_OK(route_wall(&k, &why) != PERFCMD_WALL_NOSTACK && !why,
	       "root: stacks at every switch-out");

	perfcmd_record_init(&o);
	o.wall = PERFCMD_WALL_SCHED;
	perfcmd_record_argv(&o, &sv);
	for (i = 0; i < sv.nr; i++) {
		switch_events |= !strcmp(sv.v[i], "--switch-events");
		sched |= !strcmp(sv.v[i], "sched:sched_switch");
		freq_term |= !strcmp(sv.v[i], "cpu-clock/freq=999/");
		dash_f |= !strcmp(sv.v[i], "-F");
	}
	TAP_OK(switch_events && sched && freq_term && !dash_f,
	       "--wall's perf record: the tracepoint at every hit, the "
	       "frequency as a term, switch records");
	strvec_clear(&sv);
	o.wall = PERFCMD_WALL_CTXSW;
	perfcmd_record_argv(&o, &sv);
	for (i = 0, sched = 0; i < sv.nr; i++)
		sched |= !strcmp(sv.v[i], "context-switches/period=1/");
	TAP_OK(sched, "...or context-switches at period 1");
	strvec_clear(&sv);
}

/*
 * A perf.data whose one event perf's HEADER_EVENT_DESC names
 * "offcpu-time" (as perf --off-cpu and the frame walker write it; its
 * type and config here say nothing: software "dummy"), with two of its
 * samples: one of the walker's, its state in the raw field, ending at a
 * time; one of perf's accumulated ones, at perf's no-time mark.
 */
static size_t offcpu_file(void)
{
	uint64_t v, data_at, ids_at;
	uint32_t u;
	struct walker_raw raw;
	size_t attr_at;
	int i;

	memset(file, 0, sizeof(file));
	memcpy(file, "PERFILE2", 8);
	v = HDR_SIZE;
	memcpy(file + 8, &v, 8);
	v = ATTR_SIZE + 16;
	memcpy(file + 16, &v, 8);
	memcpy(file + 24, &(uint64_t){ HDR_SIZE }, 8);
	memcpy(file + 32, &v, 8);
	file[72 + PD_FEAT_EVENT_DESC / 8] |= 1u << (PD_FEAT_EVENT_DESC % 8);
	flen = HDR_SIZE;
	attr_at = flen;
	file[flen + 0] = 1;			/* software */
	file[flen + 8] = 9;			/* dummy */
	file[flen + 4] = ATTR_SIZE;
	v = ST_IP | ST_TID | ST_TIME | ST_PERIOD | ST_RAW;
	memcpy(file + flen + 24, &v, 8);
	v = SAMPLE_ID_ALL;
	memcpy(file + flen + 40, &v, 8);
	flen += ATTR_SIZE;
	ids_at = HDR_SIZE + ATTR_SIZE + 16;
	put64(ids_at);				/* ids: one */
	put64(8);
	put64(77);
	data_at = flen;
	for (i = 0; i < 2; i++) {
		uint16_t misc = 2, size = 8 + 32 + 4 + 36;

		put32(PD_RECORD_SAMPLE);
		put(&misc, 2);
		put(&size, 2);
		put64(0x1234);			/* ip */
		put32(50);			/* pid, tid */
		put32(51);
		put64(i ? OFFCPU_NO_TIMESTAMP : 9000000);
		put64(i ? 700 : 2500000);	/* period: ns off CPU */
		put32(36);			/* raw: walker_raw + pad */
		memset(&raw, 0, sizeof(raw));
		if (!i) {
			raw.magic = WALKER_RAW_MAGIC;
			raw.prev_state = 2;
		}
		put(&raw, sizeof(raw));
		put32(0);
	}
	v = data_at;
	memcpy(file + 40, &v, 8);
	v = flen - data_at;
	memcpy(file + 48, &v, 8);
	/* the feature table, then EVENT_DESC */
	put64(flen + 16);
	put64(4 + 4 + ATTR_SIZE + 4 + 4 + 16 + 8);
	put32(1);
	put32(ATTR_SIZE);
	put(file + attr_at, ATTR_SIZE);
	put32(1);
	u = 16;
	put32(u);
	put("offcpu-time\0\0\0\0", 16);
	put64(77);
	return flen;
}

struct got {
	int n;
	struct sample s[2];
	char ev[2][32];
};

static int on_sample(void *data, const struct sample *s)
{
	struct got *g = data;

	if (g->n < 2) {
		g->s[g->n] = *s;
		snprintf(g->ev[g->n], sizeof(g->ev[0]), "%.*s",
			 (int)s->event.len, s->event.s);
	}
	g->n++;
	return 0;
}

static void test_offcpu_samples(void)
{
	struct native_opts o;
	struct got g;
	struct perfdata d;
	char err[PPR_ERR_LEN];
	int cb_ret;
	size_t len = offcpu_file();

	TAP_OK(!perfdata_open_mem(&d, file, len, err, sizeof(err)) &&
	       d.attrs[0].name && !strcmp(d.attrs[0].name, "offcpu-time"),
	       "HEADER_EVENT_DESC names the event (%s)", err);
	perfdata_close(&d);
	memset(&o, 0, sizeof(o));
	memset(&g, 0, sizeof(g));
	o.buf = file;
	o.buf_len = len;
	o.cb = on_sample;
	o.data = &g;
	TAP_INT(native_load(&o, NULL, &cb_ret, err, sizeof(err)), 0,
		"the native reader reads it (%s)", err);
	TAP_INT(g.n, 2, "both samples");
	TAP_OK(g.s[0].offcpu && g.s[0].unit == UNIT_NS &&
	       g.s[0].weight == 2500000 && g.s[0].time_ns == 9000000 &&
	       !strcmp(g.ev[0], "offcpu-time"),
	       "an offcpu-time sample is an interval: its period in ns, "
	       "ending at its time");
	TAP_OK(g.s[0].have_state && g.s[0].prev_state == 2,
	       "the walker's raw field gives the state at switch-out");
	TAP_OK(g.s[1].offcpu && g.s[1].weight == 700 && !g.s[1].time_ns &&
	       !g.s[1].have_state,
	       "perf's accumulated sample: no time, no state");
}

int main(void)
{
	struct perfdata d;

	test_decode(&d);
	test_intervals(&d);
	test_scale(&d);
	perfdata_close(&d);
	test_waitclass();
	test_route_and_argv();
	test_offcpu_samples();
	return tap_done();
}
