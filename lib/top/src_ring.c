/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * top's source (top_priv.h): libperf's evlist on one child, a
 * cpu-clock event enabled when the program execs and inherited by its
 * threads and children; records copied out of the ring buffers, sorted
 * by time per pass, then unwound and named by the native reader's
 * stream (report/src_native.h) into struct samples, kept by
 * top_keep_sample() until the next refresh.
 */
#include "compat.h"
#include "top/top_priv.h"

#ifdef PPR_HAVE_LIBPERF
#include "alloc.h"
#include "byteorder.h"
#include "perfdata.h"
#include "report/src_native.h"

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <stdarg.h>

/* ring buffer pages per CPU: 2 MiB, about 0.3 s of 6 KiB dumps at 999 Hz */
#define RING_PAGES 512
/* jit mode's rings at most: 8 MiB a CPU, 64 MiB in all */
#define RING_PAGES_MAX 2048
#define RING_BYTES_ALL (64u << 20)

/*
 * The pages a CPU's ring gets: in jit mode, each sample carries a stack
 * dump, and a second of samples at the rate asked for (2,048 pages for
 * 6 KiB at 999 Hz): the unwinding reader falls behind for whole tenths
 * of a second on a loaded machine, and 0.3 s of room lost 96 of 1,229
 * samples there (the warning said so; the shares were of the rest).
 * A power of two (libperf's rule), within RING_PAGES_MAX and a total of
 * RING_BYTES_ALL over the CPUs.
 */
static size_t ring_pages(const struct top_opts *o, int ncpus)
{
	size_t want, cap, pages = RING_PAGES;

	if (!o->jit)
		return RING_PAGES;
	want = ((size_t)o->freq * (o->stack_size + 512) + 4095) / 4096;
	cap = RING_BYTES_ALL / 4096 / (size_t)(ncpus > 0 ? ncpus : 1);
	while (pages < want && pages * 2 <= RING_PAGES_MAX &&
	       pages * 2 <= cap)
		pages *= 2;
	return pages;
}

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
 * An in-memory perf.data with nr attributes (each with its nr_ids sample
 * ids) and no records: what the unwinder and the sample decoder read
 * the sample layout from.  Header: magic, size, attr size, attrs
 * {offset, size}, data {offset, size}, event types {0, 0}, 256 feature
 * bits; then the attributes, each followed by its ids' {offset, size};
 * then the ids.  With vdso_id, the
 * build-id feature holds one entry, "[vdso]" with that id (a 48-byte
 * record: header, pid, 20 id bytes and their count, the name), so that
 * the unwinder finds the image saved in session_dir/buildid.
 */
static void build_image(struct top *t, const struct perf_event_attr *a,
			size_t nr, const uint64_t *const *ids,
			const size_t *nr_ids, const char *vdso_id)
{
	size_t hdr = 104, asz = sizeof(*a) + 16, data, rec = 48, at, i;
	unsigned char id[20];
	size_t nid = vdso_id ? unhex(vdso_id, id, sizeof(id)) : 0;

	at = hdr + nr * asz;	/* the ids */
	data = at;
	for (i = 0; i < nr; i++)
		data += 8 * nr_ids[i];
	t->image_len = data + (nid ? 16 + rec : 0);
	t->image = xcalloc(1, t->image_len);
	memcpy(t->image, "PERFILE2", 8);
	put64(t->image + 8, hdr);
	put64(t->image + 16, asz);
	put64(t->image + 24, hdr);
	put64(t->image + 32, nr * asz);
	put64(t->image + 40, data);
	put64(t->image + 48, 0);
	for (i = 0; i < nr; i++) {
		unsigned char *e = t->image + hdr + i * asz;

		memcpy(e, &a[i], sizeof(*a));
		put64(e + sizeof(*a), nr_ids[i] ? at : 0);
		put64(e + sizeof(*a) + 8, 8 * nr_ids[i]);
		if (nr_ids[i])
			memcpy(t->image + at, ids[i], 8 * nr_ids[i]);
		at += 8 * nr_ids[i];
	}
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
	timeq_drop(&t->recs, t->recs.nr);
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
			timeq_push(&t->recs, time, t->batch_len);
			t->batch_len += n;
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
	timeq_sort(&t->recs);
	for (i = 0; i < t->recs.nr; i++) {
		struct pd_record r;

		to_record(t->batch + t->recs.e[i].off, &r);
		if (r.type == PD_RECORD_FORK || r.type == PD_RECORD_COMM) {
			struct pd_task tk;
			struct pd_comm c;

			if (r.type == PD_RECORD_FORK &&
			    !perfdata_decode_task(&r, &tk))
				top_note_pid(t, tk.pid);
			if (r.type == PD_RECORD_COMM &&
			    !perfdata_decode_comm(&r, &c))
				top_note_pid(t, c.pid);
		}
		native_stream_record(t->ns, &r);
	}
}

/*
 * --wall's second event: context-switches at every switch, with the
 * cpu-clock event's sample layout (its call graph), and nothing else
 * (the cpu-clock event tracks maps, tasks and switches).
 */
static void ctxsw_attr(struct perf_event_attr *b,
		       const struct perf_event_attr *a)
{
	*b = *a;
	b->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	b->freq = 0;
	b->sample_period = 1;
	b->mmap = b->mmap2 = b->comm = b->comm_exec = b->task = 0;
	b->context_switch = 0;
}

/* The sample ids the kernel gave evsel's fds, one per CPU. */
static size_t evsel_ids(struct top *t, struct perf_evsel *evsel,
			uint64_t *ids)
{
	struct perf_counts_values c;
	int i, n = perf_cpu_map__nr(t->cpus);
	size_t k = 0;

	if (n > TOP_MAX_CPUS)
		n = TOP_MAX_CPUS;
	for (i = 0; i < n; i++) {
		memset(&c, 0, sizeof(c));
		if (!perf_evsel__read(evsel, i, 0, &c) && c.id)
			ids[k++] = c.id;
	}
	return k;
}

static int open_events(struct top *t, struct perf_event_attr *a, char *err,
		       size_t errlen)
{
	struct perf_evsel *evsel, *cs = NULL;
	size_t pages;
	struct perf_event_attr b;
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
	if (t->o.wall) {
		ctxsw_attr(&b, a);
		cs = perf_evsel__new(&b);
		if (!cs)
			return set_err(err, errlen, "libperf: out of memory");
		perf_evlist__add(t->evlist, cs);
	}
	perf_evlist__set_maps(t->evlist, t->cpus, t->threads);
	rc = perf_evlist__open(t->evlist);
	if (rc < 0 && !a->exclude_kernel) {
		/* not allowed to see the kernel: user space only */
		perf_evlist__close(t->evlist);
		a->exclude_kernel = 1;
		perf_evsel__attr(evsel)->exclude_kernel = 1;
		if (cs)
			perf_evsel__attr(cs)->exclude_kernel = 1;
		rc = perf_evlist__open(t->evlist);
	}
	if (rc < 0)
		return set_err(err, errlen, "cannot open the cpu-clock "
			       "event: %s", strerror(-rc));
	pages = ring_pages(&t->o, perf_cpu_map__nr(t->cpus));
	rc = perf_evlist__mmap(t->evlist, (int)pages);
	/* more than the memory a user may lock: the default size */
	if (rc < 0 && pages > RING_PAGES)
		rc = perf_evlist__mmap(t->evlist, RING_PAGES);
	if (rc < 0)
		return set_err(err, errlen, "cannot map the ring buffers: %s",
			       strerror(-rc));
	if (cs) {
		/* the decoder tells the two events' samples by their ids */
		t->nr_ids[0] = evsel_ids(t, evsel, t->ids[0]);
		t->nr_ids[1] = evsel_ids(t, cs, t->ids[1]);
		t->wall_attr = *perf_evsel__attr(cs);
	}
	return 0;
}

void ring_init(struct perf_event_attr *a, const struct top_opts *o)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->size = sizeof(*a);
	a->freq = 1;
	a->sample_freq = o->freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	if (o->jit) {
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = USER_REGS;
		a->sample_stack_user = o->stack_size;
		a->exclude_callchain_user = 1;
	}
	if (o->wall) {
		/* switch records; samples of two events told apart by id */
		a->context_switch = 1;
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		a->read_format = PERF_FORMAT_ID;
	}
	a->disabled = 1;
	a->enable_on_exec = 1;
	a->inherit = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	/* the clock the context tables' START record is taken with */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;

	libperf_init(quiet);
}

int ring_open(struct top *t, struct perf_event_attr *a, char *err,
	      size_t errlen)
{
	if (open_events(t, a, err, errlen) < 0)
		return -1;
	if (t->o.wall) {
		struct perf_event_attr two[2];
		const uint64_t *ids[2] = { t->ids[0], t->ids[1] };

		two[0] = *a;
		two[1] = t->wall_attr;
		build_image(t, two, 2, ids, t->nr_ids, t->o.vdso_id);
	} else {
		build_image(t, a, 1, NULL, (size_t[]){ 0 }, t->o.vdso_id);
	}
	if (perfdata_open_mem(&t->d, t->image, t->image_len, err, errlen) < 0 ||
	    native_stream_new(&t->ns, &t->d, t->o.session_dir, 0,
			      top_keep_sample, t, err, errlen) < 0)
		return -1;
	return 0;
}

void ring_poll(struct top *t, int timeout_ms)
{
	if (timeout_ms > 0)
		perf_evlist__poll(t->evlist, timeout_ms);
	drain(t);
}

/*
 * libperf's own (internal/evsel.h, not installed): the sample ids
 * perf_evlist__mmap() allocates for an event read with PERF_FORMAT_ID
 * (top --wall), which perf_evsel__delete() does not free either.
 */
void perf_evsel__free_id(struct perf_evsel *evsel);

/*
 * libperf 6.12's perf_evsel__delete() frees the evsel without dropping
 * the references it holds on the CPU and thread maps the evlist gave
 * it (perf's own evsel code drops them), nor its sample ids: drop them
 * here, once the events are closed and unmapped, then delete the
 * evlist and its evsel.
 */
static void evlist_free(struct perf_evlist *evlist)
{
	struct perf_evsel *evsel;

	perf_evlist__munmap(evlist);
	perf_evlist__close(evlist);
	perf_evlist__for_each_evsel(evlist, evsel) {
		perf_cpu_map__put(perf_evsel__cpus(evsel));
		perf_thread_map__put(perf_evsel__threads(evsel));
		perf_evsel__free_id(evsel);
	}
	perf_evlist__delete(evlist);
}

void ring_close(struct top *t)
{
	if (t->evlist)
		evlist_free(t->evlist);
	perf_cpu_map__put(t->cpus);
	perf_thread_map__put(t->threads);
	native_stream_free(t->ns);
	free(t->image);
	free(t->batch);
	timeq_release(&t->recs);
}

#endif
