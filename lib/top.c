/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's sampler (see top.h): libperf's evlist on one child, records
 * copied out of the ring buffers, sorted by time per pass, then
 * unwound and named by the native reader's stream.  Samples wait in a
 * queue until top_update() has read the program's perf maps and
 * context tables again: what a sample names was written before the
 * sample was taken, so a read after it always finds it.
 */
#include "compat.h"
#include "top.h"

#ifdef PPR_HAVE_LIBPERF
#include "alloc.h"
#include "byteorder.h"
#include "perfdata.h"
#include "report/native_load.h"

#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ring buffer pages per CPU: 2 MiB, about 0.3 s of 6 KiB dumps at 999 Hz */
#define RING_PAGES 512

/*
 * The user registers perf asks for when it unwinds from stack dumps
 * (its PERF_REGS_MASK): the general registers, ip and sp.
 */
#if defined(__x86_64__)
#define USER_REGS 0xff0fffULL	/* x86-64 without the segment registers */
#elif defined(__aarch64__)
#define USER_REGS ((1ULL << 33) - 1)	/* x0-x30, sp, pc */
#else
#define USER_REGS 0
#endif

/* A record copied out of a ring buffer. */
struct rec {
	uint64_t time, seq;
	size_t off;		/* in the batch buffer */
};

/* A sample waiting for top_update(): frames index into t->frames. */
struct pending {
	struct ps_sample s;	/* frames pointer set when fed */
	size_t first;
};

struct top {
	struct top_opts o;
	struct profile *p;
	struct profile_live *lv;
	struct perf_evlist *evlist;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	unsigned char *image;	/* a perf.data header with our attr */
	size_t image_len;
	struct perfdata d;
	struct native_stream *ns;

	unsigned char *batch;
	size_t batch_len, batch_alloc;
	struct rec *recs;
	size_t nr_recs, recs_alloc;
	uint64_t seq;

	struct pending *pend;
	size_t nr_pend, pend_alloc;
	struct ps_frame *frames;
	size_t nr_frames, frames_alloc;

	pid_t *pids;
	size_t nr_pids, pids_alloc;

	pid_t pid;
	int exited, wait_status;
	double next_refresh;	/* no refresh before (see top_update) */
	struct timespec start;
	struct top_stats st;
};

int top_available(void)
{
	return 1;
}

static int quiet(enum libperf_print_level level, const char *fmt,
		 va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);	/* perf.data is in host order here */
}

/* Two hex digits a byte; the number of bytes, at most max. */
static size_t unhex(const char *hex, unsigned char *out, size_t max)
{
	size_t n = 0;
	unsigned v;

	while (n < max && hex[0] && hex[1] && sscanf(hex, "%2x", &v) == 1) {
		out[n++] = (unsigned char)v;
		hex += 2;
	}
	return n;
}

/*
 * An in-memory perf.data with one attribute and no records: what the
 * unwinder and the sample decoder read the sample layout from.
 * Header: magic, size, attr size, attrs {offset, size}, data {offset,
 * size}, event types {0, 0}, 256 feature bits.  With vdso_id, the
 * build-id feature holds one entry, "[vdso]" with that id (a 48-byte
 * record: header, pid, 20 id bytes and their count, the name), so that
 * the unwinder finds the image saved in session_dir/buildid.
 */
static void build_image(struct top *t, const struct perf_event_attr *a,
			const char *vdso_id)
{
	size_t hdr = 104, asz = sizeof(*a) + 16, data, rec = 48;
	unsigned char id[20];
	size_t nid = vdso_id ? unhex(vdso_id, id, sizeof(id)) : 0;

	data = hdr + asz;
	t->image_len = data + (nid ? 16 + rec : 0);
	t->image = xcalloc(1, t->image_len);
	memcpy(t->image, "PERFILE2", 8);
	put64(t->image + 8, hdr);
	put64(t->image + 16, asz);
	put64(t->image + 24, hdr);
	put64(t->image + 32, asz);
	put64(t->image + 40, data);
	put64(t->image + 48, 0);
	memcpy(t->image + hdr, a, sizeof(*a));
	if (nid) {
		unsigned char *r = t->image + data + 16;
		uint16_t misc = 2 | 1u << 15;	/* user; id size given */
		uint16_t size = (uint16_t)rec;
		uint32_t type = 0;
		int32_t pid = -1;

		t->image[72 + PD_FEAT_BUILD_ID / 8] |=
			1u << (PD_FEAT_BUILD_ID % 8);
		put64(t->image + data, data + 16);
		put64(t->image + data + 8, rec);
		memcpy(r, &type, 4);
		memcpy(r + 4, &misc, 2);
		memcpy(r + 6, &size, 2);
		memcpy(r + 8, &pid, 4);
		memcpy(r + 12, id, nid);
		r[32] = (unsigned char)nid;
		memcpy(r + 36, "[vdso]", 7);
	}
}

static void note_pid(struct top *t, pid_t pid)
{
	size_t i;

	for (i = 0; i < t->nr_pids; i++)
		if (t->pids[i] == pid)
			return;
	ALLOC_GROW(t->pids, t->nr_pids + 1, t->pids_alloc);
	t->pids[t->nr_pids++] = pid;
}

/* The stream's samples: kept until top_update(). */
static int keep_sample(void *data, const struct ps_sample *s)
{
	struct top *t = data;
	struct pending *pe;

	ALLOC_GROW(t->pend, t->nr_pend + 1, t->pend_alloc);
	pe = &t->pend[t->nr_pend++];
	pe->s = *s;
	pe->s.frames = NULL;
	pe->first = t->nr_frames;
	ALLOC_GROW(t->frames, t->nr_frames + s->nr_frames, t->frames_alloc);
	if (s->nr_frames)
		memcpy(t->frames + t->nr_frames, s->frames,
		       s->nr_frames * sizeof(*s->frames));
	t->nr_frames += s->nr_frames;
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void to_record(const unsigned char *h, struct pd_record *r)
{
	uint16_t size;

	memcpy(&r->type, h, 4);
	memcpy(&r->misc, h + 4, 2);
	memcpy(&size, h + 6, 2);
	r->len = size - 8u;
	r->body = h + 8;
	r->offset = 0;
}

/* Copy what every ring buffer holds, then hand it on in time order. */
static void drain(struct top *t)
{
	struct perf_mmap *map;
	size_t i;

	t->batch_len = 0;
	t->nr_recs = 0;
	perf_evlist__for_each_mmap(t->evlist, map, false) {
		union perf_event *ev;

		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			size_t n = ev->header.size;
			struct pd_record r;
			uint64_t time = 0;

			if (n < 8) {
				perf_mmap__consume(map);
				continue;
			}
			if (ev->header.type == PERF_RECORD_LOST)
				t->st.lost += ev->lost.lost;
			ALLOC_GROW(t->batch, t->batch_len + n, t->batch_alloc);
			memcpy(t->batch + t->batch_len, ev, n);
			to_record(t->batch + t->batch_len, &r);
			perfdata_record_time(&t->d, &r, &time);
			ALLOC_GROW(t->recs, t->nr_recs + 1, t->recs_alloc);
			t->recs[t->nr_recs].time = time;
			t->recs[t->nr_recs].seq = t->seq++;
			t->recs[t->nr_recs].off = t->batch_len;
			t->nr_recs++;
			t->batch_len += n;
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	if (t->nr_recs > 1)
		qsort(t->recs, t->nr_recs, sizeof(*t->recs), rec_cmp);
	for (i = 0; i < t->nr_recs; i++) {
		struct pd_record r;

		to_record(t->batch + t->recs[i].off, &r);
		if (r.type == PD_RECORD_FORK || r.type == PD_RECORD_COMM) {
			struct pd_task tk;
			struct pd_comm c;

			if (r.type == PD_RECORD_FORK &&
			    !perfdata_decode_task(&r, &tk))
				note_pid(t, tk.pid);
			if (r.type == PD_RECORD_COMM &&
			    !perfdata_decode_comm(&r, &c))
				note_pid(t, c.pid);
		}
		native_stream_record(t->ns, &r);
	}
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void top_update(struct top *t, int final)
{
	double t0 = now_seconds(), cost;
	size_t i;

	/*
	 * Reading the maps and context tables again costs in proportion
	 * to their size: keep it under 5% of a core by waiting 20 times
	 * as long as the last read took (the samples wait with it).
	 */
	if (!final && t0 < t->next_refresh)
		return;
	t->st.damaged = profile_live_refresh(t->lv);
	cost = now_seconds() - t0;
	t->next_refresh = t0 + 20 * cost;
	t->st.refresh_seconds = cost;
	for (i = 0; i < t->nr_pend; i++) {
		t->pend[i].s.frames = t->frames + t->pend[i].first;
		profile_live_sample(t->lv, &t->pend[i].s);
	}
	t->st.samples += t->nr_pend;
	t->nr_pend = 0;
	t->nr_frames = 0;
}

int top_poll(struct top *t, int timeout_ms)
{
	if (!t->exited) {
		int st;
		pid_t w = waitpid(t->pid, &st, WNOHANG);

		if (w == t->pid) {
			t->exited = 1;
			t->wait_status = st;
		}
	}
	if (!t->exited && timeout_ms > 0)
		perf_evlist__poll(t->evlist, timeout_ms);
	drain(t);
	return t->exited;
}

void top_stop_program(struct top *t)
{
	if (!t->exited)
		kill(t->pid, SIGTERM);
}

pid_t top_pid(const struct top *t)
{
	return t->pid;
}

int top_wait_status(const struct top *t)
{
	return t->wait_status;
}

const pid_t *top_pids(const struct top *t, size_t *nr)
{
	*nr = t->nr_pids;
	return t->pids;
}

void top_stats(const struct top *t, struct top_stats *st)
{
	struct rusage ru;
	struct timespec now;

	*st = t->st;
	if (!getrusage(RUSAGE_SELF, &ru))
		st->cpu_seconds = (double)ru.ru_utime.tv_sec +
			(double)ru.ru_utime.tv_usec / 1e6 +
			(double)ru.ru_stime.tv_sec +
			(double)ru.ru_stime.tv_usec / 1e6;
	clock_gettime(CLOCK_MONOTONIC, &now);
	st->elapsed = (double)(now.tv_sec - t->start.tv_sec) +
		(double)(now.tv_nsec - t->start.tv_nsec) / 1e9;
}

/*
 * The child: wait for the go byte (the event is open on it by then),
 * exec.  An exec failure goes back as errno through the CLOEXEC pipe.
 */
static PPR_NORETURN void child(const struct top_opts *o, int go, int back)
{
	char c;
	int e;

	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	close(go);
	/* execve() takes char *const []: it changes neither */
	execve(o->path, (char *const *)o->argv, (char *const *)o->envp);
	e = errno;
	if (write(back, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int open_events(struct top *t, struct perf_event_attr *a, char *err,
		       size_t errlen)
{
	struct perf_evsel *evsel;
	int rc;

	t->cpus = perf_cpu_map__new_online_cpus();
	t->threads = perf_thread_map__new_array(1, &t->pid);
	t->evlist = perf_evlist__new();
	if (!t->cpus || !t->threads || !t->evlist)
		return set_err(err, errlen, "libperf: out of memory");
	evsel = perf_evsel__new(a);
	if (!evsel)
		return set_err(err, errlen, "libperf: out of memory");
	perf_evlist__add(t->evlist, evsel);
	perf_evlist__set_maps(t->evlist, t->cpus, t->threads);
	rc = perf_evlist__open(t->evlist);
	if (rc < 0 && !a->exclude_kernel) {
		/* not allowed to see the kernel: user space only */
		perf_evlist__close(t->evlist);
		a->exclude_kernel = 1;
		perf_evsel__attr(evsel)->exclude_kernel = 1;
		rc = perf_evlist__open(t->evlist);
	}
	if (rc < 0)
		return set_err(err, errlen, "cannot open the cpu-clock "
			       "event: %s", strerror(-rc));
	rc = perf_evlist__mmap(t->evlist, RING_PAGES);
	if (rc < 0)
		return set_err(err, errlen, "cannot map the ring buffers: %s",
			       strerror(-rc));
	return 0;
}

/* Sampling could not start: the waiting child never runs the program. */
static int abandon(struct top *t, int go, int back)
{
	kill(t->pid, SIGKILL);	/* before it can read EOF and exec */
	close(go);
	waitpid(t->pid, NULL, 0);
	close(back);
	t->exited = 1;
	top_free(t);
	return -1;
}

int top_start(struct top **out, const struct top_opts *o, struct profile *p,
	      int *exec_errno, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct top *t;
	int go[2], back[2], e = 0;
	ssize_t n;

	*out = NULL;
	*exec_errno = 0;
	t = xcalloc(1, sizeof(*t));
	t->o = *o;
	t->p = p;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.size = sizeof(a);
	a.freq = 1;
	a.sample_freq = o->freq;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	if (o->jit) {
		a.sample_type |= PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = USER_REGS;
		a.sample_stack_user = o->stack_size;
		a.exclude_callchain_user = 1;
	}
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.sample_id_all = 1;
	/* the clock the context tables' START record is taken with */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;

	libperf_init(quiet);
	if (pipe2(go, O_CLOEXEC) || pipe2(back, O_CLOEXEC)) {
		free(t);
		return set_err(err, errlen, "cannot make a pipe: %s",
			       strerror(errno));
	}
	clock_gettime(CLOCK_MONOTONIC, &t->start);
	t->pid = fork();
	if (t->pid < 0) {
		e = errno;
		close(go[0]), close(go[1]), close(back[0]), close(back[1]);
		free(t);
		return set_err(err, errlen, "cannot fork: %s", strerror(e));
	}
	if (!t->pid) {
		close(go[1]);
		close(back[0]);
		child(o, go[0], back[1]);
	}
	close(go[0]);
	close(back[1]);
	note_pid(t, t->pid);
	if (open_events(t, &a, err, errlen) < 0)
		return abandon(t, go[1], back[0]);
	build_image(t, &a, o->vdso_id);
	if (perfdata_open_mem(&t->d, t->image, t->image_len, err, errlen) <
	    0 ||
	    native_stream_new(&t->ns, &t->d, o->session_dir, 0, keep_sample,
			      t, err, errlen) < 0 ||
	    profile_live_new(&t->lv, p, o->filter, o->dirs, o->jit) < 0)
		return abandon(t, go[1], back[0]);
	/* go: the event is enabled by the exec */
	if (write(go[1], "g", 1) != 1)
		e = errno;
	close(go[1]);
	while ((n = read(back[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(back[0]);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(t->pid, &t->wait_status, 0);
		t->exited = 1;
		*exec_errno = e;
		top_free(t);
		return set_err(err, errlen, "cannot run '%s': %s",
			       o->argv[0], strerror(e));
	}
	*out = t;
	return 0;
}

/*
 * libperf 6.12's perf_evsel__delete() frees the evsel without dropping
 * the references it holds on the CPU and thread maps the evlist gave
 * it (perf's own evsel code drops them): drop them here, once the
 * events are closed and unmapped, then delete the evlist and its evsel.
 */
static void evlist_free(struct perf_evlist *evlist)
{
	struct perf_evsel *evsel;

	perf_evlist__munmap(evlist);
	perf_evlist__close(evlist);
	perf_evlist__for_each_evsel(evlist, evsel) {
		perf_cpu_map__put(perf_evsel__cpus(evsel));
		perf_thread_map__put(perf_evsel__threads(evsel));
	}
	perf_evlist__delete(evlist);
}

void top_free(struct top *t)
{
	if (!t)
		return;
	if (t->evlist)
		evlist_free(t->evlist);
	perf_cpu_map__put(t->cpus);
	perf_thread_map__put(t->threads);
	native_stream_free(t->ns);
	profile_live_free(t->lv);
	free(t->image);
	free(t->batch);
	free(t->recs);
	free(t->pend);
	free(t->frames);
	free(t->pids);
	free(t);
}

#else	/* !PPR_HAVE_LIBPERF */

int top_available(void)
{
	return 0;
}

int top_start(struct top **out, const struct top_opts *o, struct profile *p,
	      int *exec_errno, char *err, size_t errlen)
{
	(void)o;
	(void)p;
	*out = NULL;
	*exec_errno = 0;
	return set_err(err, errlen, "this pyperf-run was built without "
		       "libperf");
}

int top_poll(struct top *t, int timeout_ms)
{
	(void)t;
	(void)timeout_ms;
	return 1;
}

void top_update(struct top *t, int final)
{
	(void)t;
	(void)final;
}

void top_stop_program(struct top *t)
{
	(void)t;
}

pid_t top_pid(const struct top *t)
{
	(void)t;
	return 0;
}

int top_wait_status(const struct top *t)
{
	(void)t;
	return 0;
}

const pid_t *top_pids(const struct top *t, size_t *nr)
{
	(void)t;
	*nr = 0;
	return NULL;
}

void top_stats(const struct top *t, struct top_stats *st)
{
	(void)t;
	memset(st, 0, sizeof(*st));
}

void top_free(struct top *t)
{
	(void)t;
}

#endif
