/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: report --wakers's tables (lib/report/wakers.h) from
 * waker samples and off-CPU intervals fed by hand through the live
 * profile's entry (the same stages as profile_load()): a lock wait
 * credited to the releasing function's line, two threads' gil waits
 * credited to hog() (its held time, with no interval of its own to say
 * when it took the GIL, from the start of the waits it ended), a
 * gil wait whose timed wait ran out counted as one wait with its next
 * part, a timed-out gil wait whose thread then waits for something
 * else left to the timer, a wait with no waker, a preempted interval
 * with no row; and the text report's lines for them.  Then a holder's
 * held time from its thread's own intervals: from its taking of the GIL
 * to the wakeup's own time, a drop on request followed by a taking back
 * with no wait, and a release for I/O that is no such start.
 */
#include "compat.h"
#include "alloc.h"
#include "report/fmt.h"
#include "report/profile.h"
#include "report/sample.h"
#include "report/wakers.h"
#include "sample_frames.h"
#include "tap.h"

#include <linux/types.h>
#include "walker/walker_abi.h"

#define MS 1000000ull
#define T0 (1000 * MS)
#define KSYMS "[kernel.kallsyms]"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define PY "/usr/bin/python3.11"

/* a Python frame of this test's program, /app/w.py */
static struct sample_frame wpy(const char *func, uint32_t line)
{
	return py(func, "/app/w.py", line);
}

static struct profile_live *lv;

/* An off-CPU interval of tid from start to end (ms after T0). */
static void wait_(pid_t tid, const struct sample_frame *f, size_t n,
		  double start, double end, int preempted)
{
	struct sample s;

	sample_init(&s);
	s.pid = 100;
	s.tid = tid;
	s.comm = str("python3");
	s.event = str("offcpu-time");
	s.offcpu = 1;
	s.have_state = 1;
	s.prev_state = preempted ? 0 : 1;
	s.preempt = preempted;
	s.unit = UNIT_NS;
	s.time_ns = T0 + (uint64_t)(end * MS);
	s.weight = (uint64_t)(end * MS) - (uint64_t)(start * MS);
	s.frames = f;
	s.nr_frames = n;
	profile_live_sample(lv, &s);
}

/*
 * The waker sample of wakee's interval ending at end, its wakeup at wake
 * (0: not known): tid 0 a timer's.
 */
static void woken_at(pid_t wakee, pid_t tid, const struct sample_frame *f,
		     size_t n, double end, double wake)
{
	struct sample s;

	sample_init(&s);
	s.pid = tid ? 100 : 0;
	s.tid = tid;
	s.comm = str(tid ? "python3" : "swapper/0");
	s.event = str("waker");
	s.waker = 1;
	s.wake.context = tid ? WALKER_WAKE_TASK : WALKER_WAKE_HARDIRQ;
	s.wake.wakee_tid = wakee;
	snprintf(s.wake.comm, sizeof(s.wake.comm), "%s",
		 tid ? "python3" : "swapper/0");
	s.wake.time_ns = wake ? T0 + (uint64_t)(wake * MS) : 0;
	s.time_ns = T0 + (uint64_t)(end * MS);
	s.frames = f;
	s.nr_frames = n;
	profile_live_sample(lv, &s);
}

static void woken(pid_t wakee, pid_t tid, const struct sample_frame *f,
		  size_t n, double end)
{
	woken_at(wakee, tid, f, n, end, 0);
}

/*
 * The holds of spin(), run by thread 204, as its own intervals tell;
 * 202 and 203 wait for the GIL.  Returns spin()'s held time.
 */
static uint64_t spin_held(const struct sample_frame *gil, size_t ngil)
{
	const struct sample_frame spin_waits[] = {
		addr(0xffffffff81000100ull, "futex_wait", KSYMS),
		addr(0x7f0000002000ull, "pthread_cond_timedwait", LIBC),
		addr(0x500200, "take_gil", PY),
		wpy("spin", 70),
		addr(0x401000, "_start", PY),
	};
	/* spin() drops the GIL at another thread's request */
	const struct sample_frame by_spin[] = {
		addr(0xffffffff81000200ull, "try_to_wake_up", KSYMS),
		addr(0x7f0000004000ull, "pthread_cond_signal", LIBC),
		addr(0x500400, "drop_gil", PY),
		wpy("spin", 71),
		addr(0x401000, "_start", PY),
	};
	/* ...and releases it around a blocking call */
	const struct sample_frame by_spin_io[] = {
		addr(0xffffffff81000200ull, "try_to_wake_up", KSYMS),
		addr(0x7f0000004000ull, "pthread_cond_signal", LIBC),
		addr(0x500400, "drop_gil", PY),
		addr(0x500500, "PyEval_SaveThread", PY),
		wpy("spin", 72),
		addr(0x401000, "_start", PY),
	};
	struct profile_filter f = PROFILE_FILTER_INIT;
	struct wakers_table t;
	struct profile p;
	uint64_t held = 0;
	size_t i;

	f.clock = PROFILE_CLOCK_OFFCPU + 1;
	f.wakers = 1;
	profile_live_new(&lv, &p, &f, NULL, 0);
	profile_live_refresh(lv);
	/*
	 * 204 takes the GIL at 10 (its wait ends), holds it while 202
	 * waits from 12; it drops it at 15 (the wakeup), 202 runs at 16:
	 * held 10 to 15
	 */
	wait_(204, spin_waits, ARRAY_SIZE(spin_waits), 5, 10, 0);
	woken_at(202, 204, by_spin, ARRAY_SIZE(by_spin), 16, 15);
	wait_(202, gil, ngil, 12, 16, 0);
	/*
	 * it took the GIL back with no wait (202 released it first), and
	 * drops it on 203's request only when it begins to wait itself at
	 * 30: held 15 to 30
	 */
	wait_(204, spin_waits, ARRAY_SIZE(spin_waits), 30, 32, 0);
	/* preempted from 40 to 42 while it held the GIL: still held */
	wait_(204, spin_waits, ARRAY_SIZE(spin_waits), 40, 42, 1);
	/* 203 waits from 44, 204 releases it for I/O at 50: held 32 to 50 */
	woken_at(203, 204, by_spin_io, ARRAY_SIZE(by_spin_io), 51, 50);
	wait_(203, gil, ngil, 44, 51, 0);
	/*
	 * after a release, a taking back no interval shows: the hold
	 * ending at 65 counts from 202's wait's start, 60, not from 50
	 */
	woken_at(202, 204, by_spin, ARRAY_SIZE(by_spin), 66, 65);
	wait_(202, gil, ngil, 60, 66, 0);
	profile_live_free(lv);
	wakers_table(&p, &t);
	for (i = 0; i < t.nr_holders; i++)
		if (!strcmp(p.frames[t.holders[i].holder].func, "spin"))
			held = t.holders[i].held_ns;
	wakers_table_release(&t);
	profile_release(&p);
	return held;
}

static const struct wakers_row *row(const struct profile *p,
				    const struct wakers_table *t,
				    const char *waiter, int reason,
				    const char *waker, uint32_t line)
{
	size_t i;

	for (i = 0; i < t->nr_rows; i++) {
		const struct frame *a = &p->frames[t->rows[i].waiter];
		const struct frame *b = &p->frames[t->rows[i].waker];

		if (t->rows[i].reason == reason &&
		    !strcmp(a->func ? a->func : a->name, waiter) &&
		    !strcmp(b->func ? b->func : b->name, waker) &&
		    b->line == line)
			return &t->rows[i];
	}
	return NULL;
}

int main(void)
{
	const struct sample_frame lock[] = {
		addr(0xffffffff81000100ull, "futex_wait", KSYMS),
		addr(0x7f0000001000ull, "__new_sem_wait_slow64.constprop.0",
		     LIBC),
		addr(0x500100, "PyThread_acquire_lock_timed", PY),
		wpy("waiter", 30),
		addr(0x401000, "_start", PY),
	};
	const struct sample_frame gil[] = {
		addr(0xffffffff81000100ull, "futex_wait", KSYMS),
		addr(0x7f0000002000ull, "pthread_cond_timedwait", LIBC),
		addr(0x500200, "take_gil", PY),
		addr(0x500300, "PyEval_RestoreThread", PY),
		wpy("io", 40),
		addr(0x401000, "_start", PY),
	};
	const struct sample_frame by_critical[] = {
		addr(0xffffffff81000200ull, "try_to_wake_up", KSYMS),
		addr(0x7f0000003000ull, "sem_post", LIBC),
		wpy("critical", 12),
		wpy("holder", 20),
		addr(0x401000, "_start", PY),
	};
	const struct sample_frame by_hog50[] = {
		addr(0xffffffff81000200ull, "try_to_wake_up", KSYMS),
		addr(0x7f0000004000ull, "pthread_cond_signal", LIBC),
		addr(0x500400, "drop_gil", PY),
		wpy("hog", 50),
		addr(0x401000, "_start", PY),
	};
	const struct sample_frame by_hog51[] = {
		addr(0xffffffff81000200ull, "try_to_wake_up", KSYMS),
		addr(0x7f0000004000ull, "pthread_cond_signal", LIBC),
		addr(0x500400, "drop_gil", PY),
		wpy("hog", 51),
		addr(0x401000, "_start", PY),
	};
	const struct sample_frame by_timer[] = {
		addr(0xffffffff81000200ull, "try_to_wake_up", KSYMS),
		addr(0xffffffff81000300ull, "hrtimer_wakeup", KSYMS),
		addr(0xffffffff81000400ull, "__hrtimer_run_queues", KSYMS),
	};
	struct profile_filter f = PROFILE_FILTER_INIT;
	struct fmt_opts o = FMT_OPTS_INIT;
	struct profile p;
	struct wakers_table t;
	const struct wakers_row *r;
	const struct wakers_holder *h;
	char *text = NULL, *line, *next, err[PPR_ERR_LEN];
	size_t len = 0;
	FILE *fp;

	f.clock = PROFILE_CLOCK_OFFCPU + 1;
	f.wakers = 1;
	profile_live_new(&lv, &p, &f, NULL, 0);
	profile_live_refresh(lv);
	/* 102 waits 20 ms for the lock critical() releases at line 12 */
	woken(102, 101, by_critical, ARRAY_SIZE(by_critical), 30);
	wait_(102, lock, ARRAY_SIZE(lock), 10, 30, 0);
	/* 103's gil wait: its timed wait runs out at 45, hog() drops at 47 */
	woken(103, 0, by_timer, ARRAY_SIZE(by_timer), 45);
	wait_(103, gil, ARRAY_SIZE(gil), 40, 45, 0);
	woken(103, 104, by_hog50, ARRAY_SIZE(by_hog50), 47);
	wait_(103, gil, ARRAY_SIZE(gil), 45.01, 47, 0);
	/* 102 waits for it from 44 to 48, hog() drops at line 51 */
	woken(102, 104, by_hog51, ARRAY_SIZE(by_hog51), 48);
	wait_(102, gil, ARRAY_SIZE(gil), 44, 48, 0);
	/* no waker recorded */
	wait_(103, gil, ARRAY_SIZE(gil), 60, 62, 0);
	/* preempted: no waker, no row */
	wait_(102, gil, ARRAY_SIZE(gil), 70, 71, 1);
	/* a timed-out gil wait, then a lock wait: the timer's */
	woken(103, 0, by_timer, ARRAY_SIZE(by_timer), 85);
	wait_(103, gil, ARRAY_SIZE(gil), 80, 85, 0);
	woken(103, 101, by_critical, ARRAY_SIZE(by_critical), 90);
	wait_(103, lock, ARRAY_SIZE(lock), 85.5, 90, 0);
	profile_live_free(lv);

	wakers_table(&p, &t);
	TAP_INT(t.nr_rows, 5, "five rows");
	TAP_INT(t.ns, (20 + 7 + 4 + 2 + 5) * MS + (uint64_t)(4.5 * MS) - 10000,
		"their time: every interval but the preempted one");
	r = row(&p, &t, "waiter", WAIT_LOCK, "critical", 12);
	TAP_OK(r && r == &t.rows[0] && r->threads == 2 && r->count == 2 &&
	       r->ns == (uint64_t)(24.5 * MS),
	       "the lock waits of two threads: critical() at line 12, first");
	r = row(&p, &t, "io", WAIT_GIL, "hog", 50);
	TAP_OK(r && r->timed && r->count == 2 && r->threads == 1 &&
	       r->ns == 7 * MS - 10000,
	       "a timed-out gil wait and its next part: one wait of hog()'s");
	r = row(&p, &t, "io", WAIT_GIL, "hog", 51);
	TAP_OK(r && !r->timed && r->ns == 4 * MS, "102's gil wait: hog():51");
	r = row(&p, &t, "io", WAIT_GIL, "[woken by timer]", 0);
	TAP_OK(r && r->ns == 5 * MS && !r->timed,
	       "a timed-out gil wait followed by a lock wait: the timer's");
	r = row(&p, &t, "io", WAIT_GIL, "[waker unknown]", 0);
	TAP_OK(r && r->ns == 2 * MS, "no waker recorded: [waker unknown]");

	TAP_INT(t.gil_ns, 18 * MS - 10000, "gil wait time");
	TAP_INT(t.gil_threads, 2, "gil: two threads waited");
	TAP_INT(t.gil_timed_ns, 7 * MS - 10000, "gil: after timed waits");
	TAP_INT(t.gil_unknown_ns, 2 * MS, "gil: waker unknown");
	TAP_INT(t.gil_other_ns, 5 * MS, "gil: a timer's");
	TAP_INT(t.nr_holders, 1, "one holder");
	h = t.nr_holders ? &t.holders[0] : NULL;
	TAP_OK(h && !strcmp(p.frames[h->holder].func, "hog") &&
	       p.frames[h->line].line == 50 && h->lines == 2 &&
	       h->threads == 2 && h->count == 3 &&
	       h->ns == 11 * MS - 10000,
	       "hog() held it while 2 threads waited 10.99 ms, mostly at "
	       "line 50");
	TAP_INT(h ? h->held_ns : 0, 8 * MS,
		"held, with no interval of hog()'s own: from the start of the "
		"waits it ended, 40 to 48 ms");
	wakers_table_release(&t);

	o.top = 2;
	fp = open_memstream(&text, &len);
	TAP_OK(fp && fmt_text_write(&p, &o, fp, err, sizeof(err)) == 0 &&
	       fclose(fp) == 0, "the text report");
	TAP_OK(text && strstr(text, "\nWho made whom wait (42.5 ms of waits"),
	       "text: the table's title with the time of its waits");
	TAP_OK(text && strstr(text, "  lock      waiter (w.py)") &&
	       strstr(text, "  critical (w.py:12)\n"),
	       "text: the lock row, the waker with its line");
	TAP_OK(text && strstr(text, "in the 3 other rows (--top shows more)"),
	       "text: the rows --top leaves out, said");
	TAP_OK(text && strstr(text, "GIL held by hog (w.py:50) and 1 other "
			      "line while 2 threads waited 11.0 ms (61.09%"),
	       "text: the GIL's holder");
	TAP_OK(text && strstr(text, "held 8.00 ms, 3 waits)"),
	       "text: its held time");
	TAP_OK(text && strstr(text, "No Python function ended 7.00 ms (38.9"),
	       "text: the gil wait time no function ended");
	/* the tables, as TAP comments */
	for (line = text ? strstr(text, "\nWho made") : NULL; line && *line;
	     line = next) {
		next = strchr(line + 1, '\n');
		if (!next)
			break;
		printf("# %.*s\n", (int)(next - line - 1), line + 1);
	}
	free(text);
	profile_release(&p);

	TAP_INT(spin_held(gil, ARRAY_SIZE(gil)), (5 + 15 + 18 + 5) * MS,
		"held from spin()'s own intervals: 10-15 (to the wakeup), "
		"15-30 (taken back after a drop on request), 32-50 (across a "
		"preemption), 60-65 (after a release: from the wait's start)");
	return tap_done();
}
