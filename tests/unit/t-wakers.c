/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of record --wakers's pairing (lib/walker/wconv.c): waking
 * events built with the ABI's structs go through the conversion with
 * switch-outs and switch-ins, and the perf.data it writes is read back.
 * Each interval that was woken gets one "waker" sample just before it,
 * at its time, with struct walker_raw_wake; the same waker thread waking
 * two threads within 1 us marks both shared; an interrupt's waking says
 * its context; a waking just before the switch-out it ends still counts;
 * a preempted interval and one without a waking get none; the last of
 * two wakings wins; a watched thread waking one from do_exit(), without
 * registers, is exiting, not an unwatched process.
 */
#include "compat.h"
#include "byteorder.h"
#include "perfdata.h"
#include "tap.h"
#include "walker_events.h"
#include "walker/wconv.h"

#include <unistd.h>

#define MS 1000000ull
#define T0 (1000 * MS)

static void feed(struct wconv *c, struct ev e)
{
	if (wconv_event(c, e.buf, e.len) < 0)
		printf("# event refused: %s\n", wconv_stats(c)->first_bad);
	ev_free(&e);
}

static void off(struct wconv *c, uint32_t tid, uint64_t t, uint64_t state)
{
	struct sample_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.type = WALKER_EV_OFFCPU;
	sp.pid = 100;
	sp.tid = tid;
	sp.time = t;
	sp.prev_state = state;
	sp.flags = WALKER_F_KERNEL_MODE;
	sp.nk = 1;
	feed(c, ev_sample(&sp));
}

static void on(struct wconv *c, uint32_t tid, uint64_t t)
{
	feed(c, ev_task(WALKER_EV_ONCPU, t, 100, tid, 0, 0, NULL));
}

static void wake(struct wconv *c, uint32_t pid, uint32_t tid, uint64_t t,
		 uint32_t wakee, uint32_t context, int watched)
{
	static const uint64_t regs[WALKER_NR_REGS] = { 1, 2, 3, 4, 5, 6, 7,
						       0x7ffc00000000ull,
						       0x401000 };
	struct sample_spec sp;

	memset(&sp, 0, sizeof(sp));
	sp.pid = pid;
	sp.tid = tid;
	sp.time = t;
	sp.nk = 2;
	sp.npy = watched ? 1 : 0;
	sp.regs = watched ? regs : NULL;
	feed(c, ev_waking(&sp, 100, wakee, context, watched ? "python3" :
			  context ? "swapper/1" : "other"));
}

/*
 * A waking by thread tid of a watched process in do_exit(), after its
 * EXIT: no registers, Python frames or user stack (its memory is gone),
 * WALKER_F_EXITING.
 */
static void wake_exiting(struct wconv *c, uint32_t pid, uint32_t tid,
			 uint64_t t, uint32_t wakee)
{
	struct walker_ev_hdr h;
	struct sample_spec sp;
	struct ev e;

	feed(c, ev_task(WALKER_EV_EXIT, t - 1000, pid, tid, 0, 0, NULL));
	memset(&sp, 0, sizeof(sp));
	sp.pid = pid;
	sp.tid = tid;
	sp.time = t;
	sp.nk = 2;
	e = ev_waking(&sp, 100, wakee, WALKER_WAKE_TASK, "python3");
	memcpy(&h, e.buf, sizeof(h));
	h.flags |= WALKER_F_EXITING;
	memcpy(e.buf, &h, sizeof(h));
	feed(c, e);
}

/* A waker sample of the file, as read back. */
struct got {
	uint32_t wakee, waker_tid, flags, context, nr_py;
	uint64_t time, wake_time;
	int before_its_interval;	/* the next record: wakee's interval */
};

static size_t read_back(const char *path, struct got *g, size_t max)
{
	struct perfdata d;
	struct pd_record r;
	struct pd_sample s;
	char err[PPR_ERR_LEN];
	size_t n = 0;
	int pending = 0;

	if (perfdata_open(&d, path, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return 0;
	}
	while (perfdata_next_record(&d, &r) > 0) {
		const unsigned char *raw;
		uint32_t nr_py;
		size_t at;

		if (r.type != PD_RECORD_SAMPLE ||
		    perfdata_decode_sample(&d, r.body, r.len, &s) < 0)
			continue;
		if (pending && s.attr == &d.attrs[1])
			g[n - 1].before_its_interval =
				(uint32_t)s.tid == g[n - 1].wakee &&
				s.time == g[n - 1].time;
		pending = 0;
		if (s.attr != &d.attrs[2] || n == max || !s.raw)
			continue;
		raw = s.raw;
		nr_py = get_le32(raw + 12);
		at = sizeof(struct walker_raw) +
		     nr_py * sizeof(struct walker_py_frame);
		if (s.raw_size < at + sizeof(struct walker_raw_wake) ||
		    get_le32(raw + at) != WALKER_RAW_WAKE_MAGIC)
			continue;
		memset(&g[n], 0, sizeof(g[n]));
		g[n].flags = get_le32(raw + at + 4);
		g[n].wakee = get_le32(raw + at + 12);
		g[n].waker_tid = get_le32(raw + at + 20);
		g[n].context = get_le32(raw + at + 24);
		g[n].wake_time = get_le64(raw + at + 32);
		g[n].nr_py = nr_py;
		g[n].time = s.time;
		n++;
		pending = 1;
	}
	perfdata_close(&d);
	return n;
}

static const struct got *of(const struct got *g, size_t n, uint32_t wakee)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i].wakee == wakee)
			return &g[i];
	return NULL;
}

int main(void)
{
	char dir[] = "/tmp/t-wakers-XXXXXX", err[PPR_ERR_LEN], path[64];
	struct wconv_opts o;
	struct wconv *c;
	const struct wconv_stats *st;
	struct got g[16];
	const struct got *x;
	size_t n;
	int ok;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	memset(&o, 0, sizeof(o));
	o.perf_data = path;
	o.proc_root = dir;	/* no process there: nothing read */
	o.freq = 999;
	o.ustack_bytes = 128;
	o.wall = 1;
	o.wakers = 1;
	ok = wconv_new(&c, &o, err, sizeof(err)) == 0;
	TAP_OK(ok, "wconv_new with wakers: %s", ok ? "" : err);
	if (!ok)
		return tap_done();

	/* 101 and 103 woken by one wakeup of thread 102 (500 ns apart) */
	off(c, 101, T0 + 10 * MS, 1);
	off(c, 103, T0 + 5 * MS, 1);
	wake(c, 100, 102, T0 + 20 * MS, 101, WALKER_WAKE_TASK, 1);
	wake(c, 100, 102, T0 + 20 * MS + 500, 103, WALKER_WAKE_TASK, 1);
	on(c, 101, T0 + 30 * MS);
	on(c, 103, T0 + 31 * MS);
	/* 104 by a timer interrupt */
	off(c, 104, T0 + 40 * MS, 1);
	wake(c, 0, 0, T0 + 45 * MS, 104, WALKER_WAKE_HARDIRQ, 0);
	on(c, 104, T0 + 50 * MS);
	/* 105 preempted: no waker, even with a stray waking */
	off(c, 105, T0 + 60 * MS, 0);
	wake(c, 100, 109, T0 + 65 * MS, 105, WALKER_WAKE_TASK, 1);
	on(c, 105, T0 + 70 * MS);
	/* 106: no waking at all */
	off(c, 106, T0 + 80 * MS, 1);
	on(c, 106, T0 + 90 * MS);
	/* 107: woken just before its switch-out ended (on its way off) */
	wake(c, 100, 102, T0 + 100 * MS, 107, WALKER_WAKE_TASK, 1);
	off(c, 107, T0 + 100 * MS + 1000, 1);
	on(c, 107, T0 + 101 * MS);
	/* 108: two wakings, the last by an unwatched process wins */
	off(c, 108, T0 + 110 * MS, 1);
	wake(c, 100, 102, T0 + 111 * MS, 108, WALKER_WAKE_TASK, 1);
	wake(c, 300, 301, T0 + 112 * MS, 108, WALKER_WAKE_TASK, 0);
	on(c, 108, T0 + 113 * MS);
	/* 109: by thread 110 of the watched process, exiting */
	off(c, 109, T0 + 120 * MS, 1);
	wake_exiting(c, 100, 110, T0 + 121 * MS, 109);
	on(c, 109, T0 + 122 * MS);
	ok = wconv_finish(c, T0 + 200 * MS, err, sizeof(err)) == 0;
	TAP_OK(ok, "finish: %s", ok ? "" : err);
	st = wconv_stats(c);
	TAP_INT(st->wakings, 8, "stats: wakings");
	TAP_INT(st->offcpu, 8, "stats: intervals");
	TAP_INT(st->woken, 6, "stats: intervals with their waker");
	TAP_INT(st->woken_ns, 20 * MS + 26 * MS + 10 * MS + 999000 + 3 * MS +
		2 * MS, "stats: their time");
	TAP_OK(st->woken_shared == 2 && st->woken_shared_ns == 46 * MS,
	       "stats: two shared, 46 ms");
	TAP_OK(st->woken_irq == 1 && st->woken_irq_ns == 10 * MS,
	       "stats: one in an interrupt, 10 ms");

	n = read_back(path, g, 16);
	TAP_INT(n, 6, "waker samples in perf.data");
	x = of(g, n, 101);
	TAP_OK(x && x->before_its_interval && x->waker_tid == 102 &&
	       (x->flags & WALKER_WAKE_F_SHARED) && x->nr_py == 1 &&
	       x->wake_time == T0 + 20 * MS && x->context == WALKER_WAKE_TASK,
	       "101: its waker, shared, with its Python frame, just before "
	       "its interval");
	x = of(g, n, 103);
	TAP_OK(x && x->before_its_interval && (x->flags & WALKER_WAKE_F_SHARED),
	       "103: the other of the shared wakeup");
	x = of(g, n, 104);
	TAP_OK(x && x->before_its_interval && x->waker_tid == 0 &&
	       x->context == WALKER_WAKE_HARDIRQ && !x->nr_py && !x->flags,
	       "104: a hard interrupt's, no Python frames");
	TAP_OK(!of(g, n, 105) && !of(g, n, 106),
	       "a preempted interval and one never woken: no waker");
	x = of(g, n, 107);
	TAP_OK(x && x->before_its_interval && !(x->flags & WALKER_WAKE_F_SHARED),
	       "107: a waking just before the switch-out it ends");
	x = of(g, n, 108);
	TAP_OK(x && x->waker_tid == 301 &&
	       x->flags == WALKER_WAKE_F_UNWATCHED,
	       "108: the last waking wins, an unwatched process's");
	x = of(g, n, 109);
	TAP_OK(x && x->before_its_interval && x->waker_tid == 110 &&
	       x->context == WALKER_WAKE_TASK && !x->nr_py &&
	       x->flags == WALKER_WAKE_F_EXITING,
	       "109: a watched thread on its way out, exiting, not unwatched");
	wconv_free(c);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
