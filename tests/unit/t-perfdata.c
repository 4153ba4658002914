/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/perfdata: synthetic perf.data files (header, one or
 * two event attributes, sample records with call chains, user registers
 * and stack dumps) decoded field by field; truncated and garbled copies
 * rejected or skipped without reading out of bounds (run under ASan:
 * every copy is its own allocation of exactly its size); and a real
 * perf.data from `perf record`, checked against `perf script`.
 */
#include "compat.h"
#include "perfdata.h"
#include "spawn.h"
#include "strbuf.h"
#include "tap.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* perf_event_attr.sample_type bits (linux/perf_event.h) */
#define ST_IP		(1ULL << 0)
#define ST_TID		(1ULL << 1)
#define ST_TIME		(1ULL << 2)
#define ST_READ		(1ULL << 4)
#define ST_CALLCHAIN	(1ULL << 5)
#define ST_ID		(1ULL << 6)
#define ST_CPU		(1ULL << 7)
#define ST_PERIOD	(1ULL << 8)
#define ST_REGS_USER	(1ULL << 12)
#define ST_STACK_USER	(1ULL << 13)
#define ST_IDENTIFIER	(1ULL << 16)

#define HDR_SIZE 104
#define ATTR_SIZE 112			/* PERF_ATTR_SIZE_VER5 */
#define ENTRY_SIZE (ATTR_SIZE + 16)	/* attr, then ids {offset, size} */

/* bp, sp, ip on x86-64; bit 31 is sp on arm64 */
#define REGS_MASK ((1ULL << 6) | (1ULL << 7) | (1ULL << 8) | (1ULL << 31))
#define NR_REGS 4

struct buf {
	unsigned char *p;
	size_t len, alloc;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->alloc) {
		b->alloc = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->alloc);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void set64(struct buf *b, size_t off, uint64_t v)
{
	memcpy(b->p + off, &v, 8);
}

static void set32(struct buf *b, size_t off, uint32_t v)
{
	memcpy(b->p + off, &v, 4);
}

static void set16(struct buf *b, size_t off, uint16_t v)
{
	memcpy(b->p + off, &v, 2);
}

static void zeros(struct buf *b, size_t n)
{
	static const unsigned char z[256];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(b, z, k);
		n -= k;
	}
}

struct attr_spec {
	uint64_t sample_type;
	uint64_t read_format;
	uint32_t stack_user;
	uint16_t max_stack;
	uint64_t id;
};

/* A header and attributes; the data section starts at the returned end. */
static void begin_file(struct buf *b, const struct attr_spec *a, size_t n)
{
	size_t i, attrs = HDR_SIZE, ids = attrs + n * ENTRY_SIZE;

	b->len = 0;
	put(b, "PERFILE2", 8);
	put64(b, HDR_SIZE);
	put64(b, ENTRY_SIZE);
	put64(b, attrs);
	put64(b, n * ENTRY_SIZE);
	put64(b, 0);		/* data: filled by end_file() */
	put64(b, 0);
	zeros(b, HDR_SIZE - b->len);
	for (i = 0; i < n; i++) {
		size_t at = b->len;

		zeros(b, ATTR_SIZE);
		set32(b, at + 4, ATTR_SIZE);
		set64(b, at + 24, a[i].sample_type);
		set64(b, at + 32, a[i].read_format);
		set64(b, at + 80, REGS_MASK);
		set32(b, at + 88, a[i].stack_user);
		set16(b, at + 108, a[i].max_stack);
		put64(b, ids + 8 * i);
		put64(b, 8);
	}
	for (i = 0; i < n; i++)
		put64(b, a[i].id);
	set64(b, 40, b->len);
}

static void end_file(struct buf *b)
{
	uint64_t off;

	memcpy(&off, b->p + 40, 8);
	set64(b, 48, b->len - off);
}

static void record_header(struct buf *b, uint32_t type, size_t body)
{
	put32(b, type);
	put32(b, (uint32_t)((8 + body) << 16));	/* misc 0, size */
}

struct sample_spec {
	uint64_t id, ip, time, period;
	uint32_t pid, tid;
	uint64_t nr_chain;
	uint64_t stack_size, dyn_size;
	uint64_t sp;
};

/* A sample record for attribute a (its sample_type decides the fields). */
static void put_sample(struct buf *b, const struct attr_spec *a,
		       const struct sample_spec *s)
{
	struct buf body = { NULL, 0, 0 };
	uint64_t t = a->sample_type, i;

	if (t & ST_IDENTIFIER)
		put64(&body, s->id);
	if (t & ST_IP)
		put64(&body, s->ip);
	if (t & ST_TID) {
		put32(&body, s->pid);
		put32(&body, s->tid);
	}
	if (t & ST_TIME)
		put64(&body, s->time);
	if (t & ST_ID)
		put64(&body, s->id);
	if (t & ST_CPU)
		put64(&body, 1);
	if (t & ST_PERIOD)
		put64(&body, s->period);
	if (t & ST_READ) {
		/* read_format GROUP|ID: nr, then {value, id} per member */
		put64(&body, 2);
		for (i = 0; i < 2; i++) {
			put64(&body, 100 + i);
			put64(&body, 7 + i);
		}
	}
	if (t & ST_CALLCHAIN) {
		put64(&body, s->nr_chain);
		for (i = 0; i < s->nr_chain; i++)
			put64(&body, 0x400000 + i);
	}
	if (t & ST_REGS_USER) {
		put64(&body, 2);	/* PERF_SAMPLE_REGS_ABI_64 */
		for (i = 0; i < NR_REGS; i++)
			put64(&body, 0x5000 + i);
	}
	if (t & ST_STACK_USER) {
		put64(&body, s->stack_size);
		if (s->stack_size) {
			for (i = 0; i < s->stack_size; i++) {
				unsigned char c = (unsigned char)i;

				put(&body, &c, 1);
			}
			put64(&body, s->dyn_size);
		}
	}
	record_header(b, 9, body.len);
	put(b, body.p, body.len);
	free(body.p);
}

static void put_other(struct buf *b, uint32_t type, size_t body)
{
	record_header(b, type, body);
	zeros(b, body);
}

/* A copy in its own allocation of exactly len bytes (ASan sees overreads). */
static unsigned char *dup_exact(const unsigned char *p, size_t len)
{
	unsigned char *c = malloc(len ? len : 1);

	if (!c)
		abort();
	memcpy(c, p, len);
	return c;
}

/* Open and walk; returns samples, or -1 when open refused it. */
static long walk(const unsigned char *p, size_t len, struct perfdata *out)
{
	struct perfdata d;
	struct pd_sample s;
	char err[256];
	long n = 0;

	if (perfdata_open_mem(&d, p, len, err, sizeof(err)) < 0)
		return -1;
	while (perfdata_next(&d, &s) > 0) {
		/* what a sample points at lies inside the buffer */
		if (s.have_stack &&
		    (s.stack < p || s.stack + s.stack_size > p + len ||
		     s.dyn_size > s.stack_size))
			return -2;
		n++;
	}
	if (out)
		*out = d;
	perfdata_close(&d);
	return n;
}

static const struct attr_spec one_attr = {
	ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN | ST_PERIOD | ST_REGS_USER |
	ST_STACK_USER, 0, 64, 300, 0
};

static void test_decode(void)
{
	struct buf b = { NULL, 0, 0 };
	struct sample_spec s1 = { 0, 0x401000, 1000, 250000, 42, 43, 5, 64,
				  40, 0 };
	struct sample_spec s2 = { 0, 0x402000, 2000, 250000, 42, 44, 0, 64,
				  64, 0 };
	struct perfdata d;
	struct pd_sample s;
	char err[256];
	int r;

	begin_file(&b, &one_attr, 1);
	put_other(&b, 1, 40);		/* PERF_RECORD_MMAP: skipped */
	put_sample(&b, &one_attr, &s1);
	put_other(&b, 68, 0);		/* FINISHED_ROUND: skipped */
	record_header(&b, 2, 16);	/* LOST: id, lost */
	put64(&b, 1);
	put64(&b, 6);
	put_sample(&b, &one_attr, &s2);
	record_header(&b, 13, 8);	/* LOST_SAMPLES: lost */
	put64(&b, 5);
	record_header(&b, 2, 8);	/* too short to hold a count */
	put64(&b, 1);
	end_file(&b);

	r = perfdata_open_mem(&d, b.p, b.len, err, sizeof(err));
	TAP_INT(r, 0, "a synthetic perf.data opens");
	TAP_INT(d.nr_attrs, 1, "one attribute");
	TAP_INT(d.attrs[0].sample_stack_user, 64, "stack dump size");
	TAP_INT(d.attrs[0].sample_max_stack, 300, "the callchain cap asked");
	TAP_INT(d.attrs[0].sample_regs_user, REGS_MASK, "user register mask");
#if defined(__x86_64__)
	TAP_INT(d.attrs[0].sp_index, 1, "x86-64: sp is the second register");
#elif defined(__aarch64__)
	TAP_INT(d.attrs[0].sp_index, 3, "arm64: sp is the fourth register");
#endif
	r = perfdata_next(&d, &s);
	TAP_INT(r, 1, "first sample");
	TAP_INT(s.ip, 0x401000, "ip");
	TAP_OK(s.have_tid && s.pid == 42 && s.tid == 43, "pid and tid");
	TAP_OK(s.have_time && s.time == 1000, "time");
	TAP_INT(s.period, 250000, "period");
	TAP_INT(s.nr_callchain, 5, "callchain entries");
	TAP_OK(s.have_stack && s.stack_size == 64 && s.dyn_size == 40,
	       "stack dump: 64 bytes asked, 40 copied");
	TAP_OK(s.stack && s.stack[0] == 0 && s.stack[63] == 63,
	       "the dump's bytes");
	if (d.attrs[0].sp_index >= 0)
		TAP_OK(s.have_sp &&
		       s.user_sp == 0x5000 + (uint64_t)d.attrs[0].sp_index,
		       "user sp from the register dump");
	r = perfdata_next(&d, &s);
	TAP_OK(r == 1 && s.tid == 44 && s.dyn_size == 64 &&
	       s.nr_callchain == 0, "second sample, a full dump");
	TAP_INT(perfdata_next(&d, &s), 0, "then the end");
	TAP_INT(perfdata_next(&d, &s), 0, "and the end again");
	TAP_INT(d.records, 7, "seven records walked");
	TAP_OK(d.lost == 6 && d.lost_samples == 5,
	       "lost samples counted from both kinds of record");
	TAP_INT(d.samples, 2, "two samples");
	TAP_INT(d.bad_samples, 0, "none bad");
	perfdata_close(&d);
	TAP_OK(b.p[0] == 'P', "close leaves a caller's buffer alone");
	free(b.p);
}

/* A sample that does not fit its record is skipped, the rest read. */
static void test_bad_sample(void)
{
	struct buf b = { NULL, 0, 0 };
	struct sample_spec good = { 0, 1, 1, 1, 1, 2, 3, 16, 16, 0 };
	struct sample_spec huge_chain = good, bad_dyn = good;
	struct perfdata d;
	long n;

	huge_chain.nr_chain = 3;
	begin_file(&b, &one_attr, 1);
	put_sample(&b, &one_attr, &good);
	{
		/* a chain that claims more entries than the record holds */
		size_t at = b.len;

		put_sample(&b, &one_attr, &huge_chain);
		set64(&b, at + 8 + 8 + 8 + 8 + 8, 1000);
	}
	bad_dyn.dyn_size = 17;		/* more copied than asked */
	put_sample(&b, &one_attr, &bad_dyn);
	put_sample(&b, &one_attr, &good);
	end_file(&b);
	n = walk(b.p, b.len, &d);
	TAP_INT(n, 2, "two good samples of four");
	TAP_INT(d.bad_samples, 2, "the chain too long and dyn_size > size "
		"are counted bad");

	/* a record whose size runs past the data: the walk stops there */
	begin_file(&b, &one_attr, 1);
	put_sample(&b, &one_attr, &good);
	{
		size_t at = b.len;

		put_sample(&b, &one_attr, &good);
		set32(&b, at + 4, (uint32_t)0xfff0u << 16);
	}
	put_sample(&b, &one_attr, &good);
	end_file(&b);
	TAP_INT(walk(b.p, b.len, NULL), 1, "framing lost: the rest is "
		"not trusted");

	/* a record size below its header: the walk stops */
	begin_file(&b, &one_attr, 1);
	put_sample(&b, &one_attr, &good);
	put32(&b, 9);
	put32(&b, 4u << 16);
	put_sample(&b, &one_attr, &good);
	end_file(&b);
	TAP_INT(walk(b.p, b.len, NULL), 1, "a record of 4 bytes stops the walk");
	free(b.p);
}

/* Two events: PERF_SAMPLE_IDENTIFIER picks each sample's attribute. */
static void test_two_attrs(void)
{
	struct attr_spec a[2] = {
		{ ST_IDENTIFIER | ST_IP | ST_TID | ST_TIME | ST_PERIOD, 0, 0,
		  0, 11 },
		{ ST_IDENTIFIER | ST_IP | ST_TID | ST_TIME | ST_READ |
		  ST_CALLCHAIN, (1 << 3) | (1 << 2), 0, 0, 22 },
	};
	struct sample_spec s = { 11, 0x10, 5, 99, 7, 8, 2, 0, 0, 0 };
	struct buf b = { NULL, 0, 0 };
	struct perfdata d;
	struct pd_sample ps;
	char err[256];

	begin_file(&b, a, 2);
	put_sample(&b, &a[0], &s);
	s.id = 22;
	s.time = 6;
	put_sample(&b, &a[1], &s);
	s.id = 33;			/* no such event */
	put_sample(&b, &a[1], &s);
	end_file(&b);
	TAP_INT(perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)), 0,
		"two attributes open");
	TAP_INT(d.nr_attrs, 2, "two attributes");
	TAP_OK(perfdata_next(&d, &ps) == 1 && ps.attr == &d.attrs[0] &&
	       ps.period == 99 && ps.time == 5, "sample of the first event");
	TAP_OK(perfdata_next(&d, &ps) == 1 && ps.attr == &d.attrs[1] &&
	       ps.nr_callchain == 2 && ps.time == 6,
	       "sample of the second event, past its group read values");
	TAP_INT(perfdata_next(&d, &ps), 0, "an unknown id is skipped");
	TAP_INT(d.bad_samples, 1, "and counted bad");
	perfdata_close(&d);

	/* PERF_SAMPLE_ID without IDENTIFIER (perf 6.1, same sample types) */
	a[0].sample_type = a[1].sample_type = ST_IP | ST_TID | ST_TIME |
					      ST_ID | ST_PERIOD;
	begin_file(&b, a, 2);
	s.id = 22;
	put_sample(&b, &a[1], &s);
	s.id = 11;
	put_sample(&b, &a[0], &s);
	s.id = 44;
	put_sample(&b, &a[0], &s);
	end_file(&b);
	TAP_INT(perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)), 0,
		"two attributes with PERF_SAMPLE_ID open");
	TAP_OK(perfdata_next(&d, &ps) == 1 && ps.attr == &d.attrs[1] &&
	       ps.period == 99, "the id picks the second event");
	TAP_OK(perfdata_next(&d, &ps) == 1 && ps.attr == &d.attrs[0],
	       "then the first");
	TAP_INT(perfdata_next(&d, &ps), 0, "an unknown id is skipped");
	TAP_INT(d.bad_samples, 1, "and counted bad");
	perfdata_close(&d);
	free(b.p);
}

static void expect_refused(const unsigned char *p, size_t len,
			   const char *want, const char *what)
{
	struct perfdata d;
	char err[256] = "";
	unsigned char *c = dup_exact(p, len);
	int r = perfdata_open_mem(&d, c, len, err, sizeof(err));

	TAP_OK(r < 0 && strstr(err, want), "refused: %s (%s)", what, err);
	free(c);
}

static void test_refused(void)
{
	struct buf b = { NULL, 0, 0 };
	unsigned char *c;
	struct perfdata d;
	char err[256];

	begin_file(&b, &one_attr, 1);
	end_file(&b);
	c = dup_exact(b.p, b.len);
	c[0] = 'X';
	expect_refused(c, b.len, "not a perf.data", "bad magic");
	expect_refused(b.p, 40, "truncated header", "40 bytes");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 8, 16);
	expect_refused(c, b.len, "pipe-mode", "pipe-mode header");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 16, 8);
	expect_refused(c, b.len, "bad attribute size", "attr entry of 8");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 32, 0);
	expect_refused(c, b.len, "no event attributes", "zero attributes");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 32, 65 * ENTRY_SIZE);
	expect_refused(c, b.len, "out of bounds", "attributes past the end");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 32, ENTRY_SIZE + 1);
	expect_refused(c, b.len, "out of bounds", "attributes of odd size");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 48, UINT64_MAX - 8);
	expect_refused(c, b.len, "data section out of bounds",
		       "a data size that wraps");
	memcpy(c, b.p, b.len);
	set64(&(struct buf){ c, b.len, b.len }, 24 + 8 * 0,
	      b.len - ENTRY_SIZE / 2);
	expect_refused(c, b.len, "out of bounds", "attributes straddling "
		       "the end");
	free(c);
	TAP_INT(perfdata_open(&d, "/nonexistent/perf.data", err, sizeof(err)),
		-1, "a missing file");
	TAP_OK(strstr(err, "cannot open '/nonexistent/perf.data'") != NULL,
	       "says so: %s", err);
	TAP_INT(perfdata_open(&d, "/dev/null", err, sizeof(err)), -1,
		"a device is not a perf.data");
	free(b.p);
}

/* Every prefix and many garbled copies: no crash, no overread, bounded. */
static void test_hostile(void)
{
	struct buf b = { NULL, 0, 0 };
	struct sample_spec s = { 0, 1, 1, 1, 1, 2, 4, 48, 32, 0 };
	size_t len, i;
	long worst = 0, n;
	int bad = 0;
	unsigned seed = 12345;

	begin_file(&b, &one_attr, 1);
	for (i = 0; i < 3; i++)
		put_sample(&b, &one_attr, &s);
	put_other(&b, 1, 24);
	end_file(&b);

	for (len = 0; len <= b.len; len++) {
		unsigned char *c = dup_exact(b.p, len);

		n = walk(c, len, NULL);
		if (n == -2 || n > 3)
			bad++;
		if (n > worst)
			worst = n;
		free(c);
	}
	TAP_OK(!bad, "every prefix: refused or walked inside the buffer");
	TAP_INT(walk(b.p, b.len, NULL), 3, "the whole file has 3 samples");

	bad = 0;
	for (i = 0; i < 4000; i++) {
		unsigned char *c = dup_exact(b.p, b.len);
		int k, flips = 1 + (int)(i % 4);

		for (k = 0; k < flips; k++) {
			seed = seed * 1103515245u + 12345u;
			c[(seed >> 8) % b.len] ^= (unsigned char)(1u << (seed % 8));
		}
		n = walk(c, b.len, NULL);
		/* a sample is at least 8 bytes: never more than fit */
		if (n == -2 || n > (long)(b.len / 8))
			bad++;
		free(c);
	}
	TAP_OK(!bad, "4000 garbled copies: refused or walked inside");
	free(b.p);
}

/* perf record --call-graph dwarf of a short command, two events. */
static int record_real(const char *out, char *why, size_t len)
{
	const char *argv[] = {
		"perf", "record", "-q", "-e", "cpu-clock,task-clock",
		"-c", "250000", "--call-graph", "dwarf,4096", "-o", out,
		"--", "sh", "-c",
		"i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done", NULL
	};
	struct strbuf errout = STRBUF_INIT;
	int st = spawn_capture(argv, NULL, NULL, &errout, 4096, why, len);

	if (st >= 0 && (!WIFEXITED(st) || WEXITSTATUS(st)))
		snprintf(why, len, "perf record failed: %s", errout.buf);
	strbuf_release(&errout);
	return st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/*
 * Samples "TID SEC.NSEC:" from perf script, to compare: count and the
 * sum of tid and time over all samples.
 */
static int script_real(const char *in, long *n, uint64_t *tids,
		       uint64_t *times)
{
	const char *argv[] = { "perf", "script", "-i", in, "-F", "tid,time",
			       "--ns", NULL };
	struct strbuf out = STRBUF_INIT;
	char err[256];
	const char *p;
	int st = spawn_capture(argv, NULL, &out, NULL, 0, err, sizeof(err));

	*n = 0;
	*tids = *times = 0;
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		strbuf_release(&out);
		return -1;
	}
	for (p = out.buf; *p;) {
		const char *nl = strchr(p, '\n');
		long tid;
		unsigned long long sec, nsec;

		if (sscanf(p, " %ld %llu.%llu:", &tid, &sec, &nsec) == 3) {
			(*n)++;
			*tids += (uint64_t)tid;
			*times += sec * 1000000000ULL + nsec;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	strbuf_release(&out);
	return 0;
}

static void test_real(void)
{
	const char *path = "t-perfdata.data";
	char why[512] = "";
	struct perfdata d;
	struct pd_sample s;
	long n = 0, sn;
	uint64_t tids = 0, times = 0, stids, stimes;
	int dumps_ok = 1, by_attr[2] = { 0, 0 };

	if (record_real(path, why, sizeof(why)) < 0) {
		tap_n++;
		printf("ok %d # skip a real perf.data: %s\n", tap_n, why);
		return;
	}
	TAP_INT(perfdata_open(&d, path, why, sizeof(why)), 0,
		"perf record's file opens");
	if (!d.map) {
		unlink(path);
		return;
	}
	TAP_INT(d.nr_attrs, 2, "two events");
	TAP_INT(d.attrs[0].sample_stack_user, 4096, "--call-graph dwarf,4096");
#if defined(__x86_64__) || defined(__aarch64__)
	TAP_OK(d.attrs[0].sp_index >= 0,
	       "the stack pointer is among the dumped registers");
#endif
	while (perfdata_next(&d, &s) > 0) {
		n++;
		tids += (uint64_t)s.tid;
		times += s.time;
		if (s.attr == &d.attrs[0] || s.attr == &d.attrs[1])
			by_attr[s.attr - d.attrs]++;
		if (!s.have_tid || !s.have_time || !s.have_stack ||
		    s.stack_size != 4096 || s.dyn_size > 4096) {
			if (dumps_ok)
				printf("# sample at %llu: tid %d time %d "
				       "dump %llu/%llu\n",
				       (unsigned long long)s.time,
				       s.have_tid, s.have_time,
				       (unsigned long long)s.dyn_size,
				       (unsigned long long)s.stack_size);
			dumps_ok = 0;
		}
	}
	TAP_OK(n > 0, "%ld samples", n);
	TAP_OK(by_attr[0] > 0 && by_attr[1] > 0 &&
	       by_attr[0] + by_attr[1] == n,
	       "each sample of one of the events (%d, %d)", by_attr[0],
	       by_attr[1]);
	TAP_OK(dumps_ok, "every sample: tid, time, a 4096-byte dump");
	TAP_INT(d.bad_samples, 0, "no sample failed to decode");
	perfdata_close(&d);
	if (script_real(path, &sn, &stids, &stimes) < 0) {
		tap_n++;
		printf("ok %d # skip perf script failed\n", tap_n);
	} else {
		TAP_INT(n, sn, "as many samples as perf script shows");
		TAP_OK(tids == stids && times == stimes,
		       "the same threads and times as perf script");
	}
	unlink(path);
}

/* perfdata_check_header(): the check before perf reads a file. */
static void test_check_header(void)
{
	static const struct attr_spec a = { ST_IP, 0, 0, 0, 1 };
	char path[] = "/tmp/t-perfdata-hdr.XXXXXX";
	char err[PPR_ERR_LEN];
	struct buf b = { NULL, 0, 0 };
	int fd = mkstemp(path);

	if (fd < 0)
		abort();
	begin_file(&b, &a, 1);
	zeros(&b, 64);
	end_file(&b);
	TAP_OK(write(fd, b.p, b.len) == (ssize_t)b.len, "header: written");
	TAP_INT(perfdata_check_header(path, b.len, err, sizeof(err)), 0,
		"header: a finished file passes");
	TAP_INT(perfdata_check_header(path, b.len - 8, err, sizeof(err)), -1,
		"header: a file shorter than its data section fails");
	TAP_OK(strstr(err, "is truncated") != NULL, "header: says truncated");
	set64(&b, 48, 0);
	TAP_OK(pwrite(fd, b.p, HDR_SIZE, 0) == HDR_SIZE, "header: rewritten");
	TAP_INT(perfdata_check_header(path, b.len, err, sizeof(err)), -1,
		"header: no data size fails");
	TAP_OK(strstr(err, "is incomplete") != NULL, "header: says incomplete");
	TAP_OK(pwrite(fd, "NOTPERF!", 8, 0) == 8, "header: magic broken");
	TAP_INT(perfdata_check_header(path, b.len, err, sizeof(err)), -1,
		"header: another file fails");
	TAP_OK(strstr(err, "is not a perf.data file") != NULL,
	       "header: says not perf.data");
	close(fd);
	unlink(path);
	free(b.p);
}

int main(void)
{
	test_decode();
	test_bad_sample();
	test_two_attrs();
	test_refused();
	test_hostile();
	test_real();
	test_check_header();
	return tap_done();
}
