/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/perfdata's record decoders (MMAP, MMAP2 with an
 * inline build-id, COMM with the exec flag, FORK, record times from
 * samples and sample_id trailers, the feature table and its build-id
 * section) on synthetic perf.data files, and of the native reader
 * (lib/report/src_native.h) on them: records taken in time order
 * within perf's rounds (a mapping written after a sample that needs
 * it), comm names, frame-pointer callchains named as perf script names
 * them.  Every prefix of the file is read too: refused or read short,
 * never out of bounds (each copy is its own allocation of exactly its
 * size, for ASan).
 */
#include "compat.h"
#include "perfdata.h"
#include "report/src_native.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

#define ST_IP		(1ULL << 0)
#define ST_TID		(1ULL << 1)
#define ST_TIME		(1ULL << 2)
#define ST_CALLCHAIN	(1ULL << 5)
#define ST_CPU		(1ULL << 7)
#define ST_PERIOD	(1ULL << 8)
#define SAMPLE_ID_ALL	(1ULL << 18)

#define HDR_SIZE 104
#define ATTR_SIZE 112
#define ENTRY_SIZE (ATTR_SIZE + 16)

#define CTX_USER ((uint64_t)-512)
#define CTX_KERNEL ((uint64_t)-128)

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
	if (n)
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

static void put16(struct buf *b, uint16_t v)
{
	put(b, &v, 2);
}

static void set64(struct buf *b, size_t off, uint64_t v)
{
	memcpy(b->p + off, &v, 8);
}

static void set16(struct buf *b, size_t off, uint16_t v)
{
	memcpy(b->p + off, &v, 2);
}

static void zeros(struct buf *b, size_t n)
{
	while (n--)
		put(b, "", 1);
}

#define SAMPLE_TYPE (ST_IP | ST_TID | ST_TIME | ST_CALLCHAIN | ST_CPU | \
		     ST_PERIOD)

/* Header and one attribute (no stack dump: frame-pointer mode). */
static void begin_file(struct buf *b)
{
	size_t at;

	b->len = 0;
	put(b, "PERFILE2", 8);
	put64(b, HDR_SIZE);
	put64(b, ENTRY_SIZE);
	put64(b, HDR_SIZE);
	put64(b, ENTRY_SIZE);
	put64(b, 0);
	put64(b, 0);
	zeros(b, HDR_SIZE - b->len);
	at = b->len;
	zeros(b, ATTR_SIZE);
	b->p[at + 4] = ATTR_SIZE;
	b->p[at + 0] = 1;			/* PERF_TYPE_SOFTWARE */
	set64(b, at + 8, 0);			/* cpu-clock */
	set64(b, at + 24, SAMPLE_TYPE);
	set64(b, at + 40, SAMPLE_ID_ALL);
	put64(b, 0);				/* no ids */
	put64(b, 0);
	set64(b, 40, b->len);
}

static size_t begin_record(struct buf *b, uint32_t type, uint16_t misc)
{
	size_t at = b->len;

	put32(b, type);
	put16(b, misc);
	put16(b, 0);
	return at;
}

/* sample_id trailer for SAMPLE_TYPE: tid, time, cpu */
static void trailer(struct buf *b, uint32_t pid, uint64_t time)
{
	put32(b, pid);
	put32(b, pid);
	put64(b, time);
	put32(b, 0);
	put32(b, 0);
}

static void end_record(struct buf *b, size_t at)
{
	while ((b->len - at) % 8)
		put(b, "", 1);
	set16(b, at + 6, (uint16_t)(b->len - at));
}

static void put_str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
	while (b->len % 8)
		put(b, "", 1);
}

static void mmap2(struct buf *b, uint32_t pid, uint64_t start, uint64_t len,
		  const char *file, uint64_t time, const unsigned char *id)
{
	size_t at = begin_record(b, PD_RECORD_MMAP2,
				 PD_MISC_USER |
				 (id ? PD_MISC_MMAP_BUILD_ID : 0));

	put32(b, pid);
	put32(b, pid);
	put64(b, start);
	put64(b, len);
	put64(b, 0);			/* pgoff */
	if (id) {
		unsigned char bid[24] = { 0 };

		bid[0] = 20;
		memcpy(bid + 4, id, 20);
		put(b, bid, 24);
	} else {
		zeros(b, 24);		/* maj, min, ino, ino_generation */
	}
	put32(b, 5);			/* PROT_READ | PROT_EXEC */
	put32(b, 2);			/* MAP_PRIVATE */
	put_str(b, file);
	trailer(b, pid, time);
	end_record(b, at);
}

static void comm(struct buf *b, uint32_t pid, const char *name, int exec,
		 uint64_t time)
{
	size_t at = begin_record(b, PD_RECORD_COMM,
				 exec ? PD_MISC_COMM_EXEC : 0);

	put32(b, pid);
	put32(b, pid);
	put_str(b, name);
	trailer(b, pid, time);
	end_record(b, at);
}

static void fork_rec(struct buf *b, uint32_t pid, uint32_t ppid,
		     uint64_t time)
{
	size_t at = begin_record(b, PD_RECORD_FORK, 0);

	put32(b, pid);
	put32(b, ppid);
	put32(b, pid);
	put32(b, ppid);
	put64(b, time);
	trailer(b, pid, time);
	end_record(b, at);
}

static void sample(struct buf *b, uint32_t pid, uint64_t time,
		   const uint64_t *chain, size_t n)
{
	size_t at = begin_record(b, PD_RECORD_SAMPLE, PD_MISC_USER), i;

	put64(b, chain[n - 1]);		/* ip */
	put32(b, pid);
	put32(b, pid);
	put64(b, time);
	put32(b, 1);			/* cpu */
	put32(b, 0);
	put64(b, 10101);		/* period */
	put64(b, n);
	for (i = 0; i < n; i++)
		put64(b, chain[i]);
	end_record(b, at);
}

static void round_end(struct buf *b)
{
	size_t at = begin_record(b, PD_RECORD_FINISHED_ROUND, 0);

	end_record(b, at);
}

static const unsigned char the_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
	14, 15, 16,
};

/* The data section, then a feature table with a build-id section. */
static void end_file(struct buf *b)
{
	uint64_t off, sec;
	size_t at;

	memcpy(&off, b->p + 40, 8);
	set64(b, 48, b->len - off);
	b->p[72] = 1u << PD_FEAT_BUILD_ID;
	at = b->len;
	put64(b, 0);			/* the table: one {offset, size} */
	put64(b, 0);
	sec = b->len;
	put32(b, 0);			/* the entry's perf_event_header */
	put16(b, 1u << 15);		/* misc: the size byte is valid */
	put16(b, 0);
	put32(b, 42);			/* pid */
	put(b, the_id, 20);
	put(b, "\x14\0\0", 4);		/* id size 20, padding */
	put_str(b, "/bin/prog");
	set16(b, sec + 6, (uint16_t)(b->len - sec));
	set64(b, at, sec);
	set64(b, at + 8, b->len - sec);
}

static void build(struct buf *b)
{
	/* the sample comes before the mapping in the file, not in time */
	static const uint64_t chain[] = {
		CTX_KERNEL, 0xffffffff81000000ULL, CTX_USER, 0x7000000010ULL,
		0x7000000400ULL, 0x10,
	};
	static const uint64_t bad_walk[] = {
		CTX_USER, 0x7000000010ULL, CTX_KERNEL, 0x55e4734b0af8ULL,
		0x55e4734b0b10ULL,
	};
	uint64_t leaf_first[ARRAY_SIZE(chain)];
	size_t i;

	begin_file(b);
	comm(b, 42, "prog", 1, 5);
	/* callchain: leaf first as the kernel writes it */
	for (i = 0; i < ARRAY_SIZE(chain); i++)
		leaf_first[i] = chain[i];
	sample(b, 42, 300, leaf_first, ARRAY_SIZE(chain));
	mmap2(b, 42, 0x7000000000ULL, 0x1000, "//anon", 100, NULL);
	round_end(b);
	fork_rec(b, 43, 42, 400);
	sample(b, 43, 500, leaf_first, ARRAY_SIZE(chain));
	mmap2(b, 42, 0x7100000000ULL, 0x1000, "/nonexistent/lib.so", 450,
	      the_id);
	/*
	 * A user frame-pointer walk through code without frame pointers:
	 * a stack word of -128 reads as the kernel's context marker.
	 */
	sample(b, 42, 600, bad_walk, ARRAY_SIZE(bad_walk));
	round_end(b);
	end_file(b);
}

static void test_decoders(void)
{
	struct buf b = { 0 };
	struct perfdata d;
	struct pd_record r;
	struct pd_mmap m;
	struct pd_comm c;
	struct pd_task t;
	char err[256];
	uint64_t time;
	int n = 0, rounds = 0, mmaps = 0;

	build(&b);
	TAP_OK(!perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)),
	       "synthetic file opens");
	while (perfdata_next_record(&d, &r) > 0) {
		n++;
		if (r.type == PD_RECORD_FINISHED_ROUND) {
			rounds++;
			TAP_INT(perfdata_record_time(&d, &r, &time), -1,
				"a round has no time");
		} else if (r.type == PD_RECORD_COMM) {
			TAP_INT(perfdata_decode_comm(&r, &c), 0, "comm");
			TAP_STR(c.comm, "prog", "comm name");
			TAP_INT(c.exec, 1, "comm exec flag");
			TAP_INT(perfdata_record_time(&d, &r, &time), 0,
				"comm time");
			TAP_INT(time, 5, "comm time from its trailer");
		} else if (r.type == PD_RECORD_FORK) {
			TAP_INT(perfdata_decode_task(&r, &t), 0, "fork");
			TAP_INT(t.pid, 43, "fork pid");
			TAP_INT(t.ppid, 42, "fork ppid");
			TAP_INT(t.time, 400, "fork time");
		} else if (r.type == PD_RECORD_MMAP2) {
			TAP_INT(perfdata_decode_mmap(&r, &m), 0, "mmap2");
			TAP_INT(m.prot, 5, "mmap2 prot");
			TAP_INT(m.exec, 1, "mmap2 is code");
			TAP_INT(perfdata_record_time(&d, &r, &time), 0,
				"mmap2 time");
			if (!mmaps++) {
				TAP_STR(m.filename, "//anon", "mmap2 name");
				TAP_OK(!m.build_id, "no inline build-id");
				TAP_INT(time, 100, "mmap2 time value");
			} else {
				TAP_INT(m.build_id_len, 20, "inline build-id");
				TAP_OK(m.build_id &&
				       !memcmp(m.build_id, the_id, 20),
				       "inline build-id bytes");
			}
		} else if (r.type == PD_RECORD_SAMPLE) {
			TAP_INT(perfdata_record_time(&d, &r, &time), 0,
				"sample time");
			TAP_OK(time == 300 || time == 500 || time == 600,
			       "sample time value");
		}
	}
	TAP_INT(n, 9, "every record walked");
	TAP_INT(rounds, 2, "both rounds");
	{
		struct pd_record bad = r;
		unsigned char body[40];

		/* a file name without its NUL is refused */
		memset(body, 'x', sizeof(body));
		bad.type = PD_RECORD_MMAP;
		bad.misc = PD_MISC_USER;
		bad.body = body;
		bad.len = sizeof(body);
		TAP_INT(perfdata_decode_mmap(&bad, &m), -1,
			"unterminated file name refused");
		bad.len = 16;
		TAP_INT(perfdata_decode_mmap(&bad, &m), -1,
			"short mmap refused");
		bad.type = PD_RECORD_COMM;
		bad.len = sizeof(body);
		TAP_INT(perfdata_decode_comm(&bad, &c), -1,
			"unterminated comm refused");
		bad.type = PD_RECORD_FORK;
		bad.len = 20;
		TAP_INT(perfdata_decode_task(&bad, &t), -1,
			"short fork refused");
	}
	free(b.p);
}

static int take_id(void *arg, const struct pd_buildid *bid)
{
	int *seen = arg;

	TAP_STR(bid->filename, "/bin/prog", "build-id entry name");
	TAP_INT(bid->id_len, 20, "build-id size");
	TAP_OK(!memcmp(bid->id, the_id, 20), "build-id bytes");
	TAP_INT(bid->pid, 42, "build-id pid");
	(*seen)++;
	return 0;
}

static void test_features(void)
{
	struct buf b = { 0 };
	struct perfdata d;
	const unsigned char *p;
	size_t len;
	char err[256];
	int seen = 0;

	build(&b);
	TAP_OK(!perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)),
	       "opens with features");
	TAP_INT(perfdata_feature(&d, PD_FEAT_BUILD_ID, &p, &len), 1,
		"build-id section found");
	TAP_INT(perfdata_feature(&d, PD_FEAT_CMDLINE, &p, &len), 0,
		"absent feature");
	TAP_INT(perfdata_each_buildid(&d, take_id, &seen), 0,
		"build-id walk");
	TAP_INT(seen, 1, "one build-id entry");
	/* the table points past the end: an error, not a read */
	{
		uint64_t doff, dsize;

		memcpy(&doff, b.p + 40, 8);
		memcpy(&dsize, b.p + 48, 8);
		set64(&b, (size_t)(doff + dsize), b.len);
	}
	TAP_INT(perfdata_feature(&d, PD_FEAT_BUILD_ID, &p, &len), -1,
		"section out of bounds refused");
	free(b.p);
}

struct got {
	int n;
	char comm[3][32];
	char dso[3][64];
	char sym[3][64];
	char kdso[3][64];
	size_t frames[3];
	uint64_t time[3];
};

static int on_sample(void *data, const struct sample *s)
{
	struct got *g = data;

	if (g->n < 3) {
		snprintf(g->comm[g->n], sizeof(g->comm[0]), "%.*s",
			 (int)s->comm.len, s->comm.s);
		g->frames[g->n] = s->nr_frames;
		g->time[g->n] = s->time_ns;
		if (s->nr_frames >= 2) {
			snprintf(g->kdso[g->n], sizeof(g->kdso[0]), "%.*s",
				 (int)s->frames[0].dso.len,
				 s->frames[0].dso.s);
			snprintf(g->dso[g->n], sizeof(g->dso[0]), "%.*s",
				 (int)s->frames[1].dso.len,
				 s->frames[1].dso.s);
			snprintf(g->sym[g->n], sizeof(g->sym[0]), "%.*s",
				 (int)s->frames[1].sym.len,
				 s->frames[1].sym.s);
		}
	}
	g->n++;
	return 0;
}

static int write_file(const char *path, const struct buf *b)
{
	FILE *fp = fopen(path, "wb");

	if (!fp)
		return -1;
	if (b->len && fwrite(b->p, 1, b->len, fp) != b->len) {
		fclose(fp);
		return -1;
	}
	return fclose(fp);
}

static void test_native(void)
{
	struct buf b = { 0 };
	struct native_opts o;
	struct native_stats st;
	struct got g;
	char path[] = "/tmp/t-perfdata-records.XXXXXX", err[512];
	int fd, cb_ret;

	build(&b);
	fd = mkstemp(path);
	TAP_OK(fd >= 0 && !close(fd) && !write_file(path, &b),
	       "synthetic perf.data written");
	memset(&o, 0, sizeof(o));
	memset(&g, 0, sizeof(g));
	o.perf_data = path;
	o.cb = on_sample;
	o.data = &g;
	TAP_INT(native_load(&o, &st, &cb_ret, err, sizeof(err)), 0,
		"native reader reads it");
	TAP_INT(g.n, 3, "all three samples");
	TAP_INT(st.samples, 3, "stats: samples");
	TAP_STR(g.comm[0], "prog", "comm of the first sample");
	TAP_STR(g.comm[1], "prog", "a forked child keeps its parent's comm");
	TAP_INT(g.frames[0], 4, "kernel frame and three user frames");
	TAP_STR(g.kdso[0], "[kernel.kallsyms]", "kernel frame's object");
	/* the mapping came after the sample in the file, before in time */
	TAP_STR(g.dso[0], "/tmp/perf-42.map",
		"anonymous code named as perf does, mapping known in time");
	TAP_STR(g.sym[0], "[unknown]", "no symbol for anonymous code");
	TAP_STR(g.dso[1], "/tmp/perf-42.map",
		"a forked child inherits its parent's mappings");
	TAP_INT(g.time[0], 300, "sample time");
	TAP_INT(g.frames[2], 1, "a context marker after user frames ends "
		"the chain");

	/* every prefix: refused or read short, never a crash */
	{
		size_t cut;
		int bad = 0;

		for (cut = 0; cut < b.len; cut += 1 + cut / 16) {
			struct buf c = { 0 };

			put(&c, b.p, cut);
			if (write_file(path, &c)) {
				bad++;
				free(c.p);
				continue;
			}
			memset(&g, 0, sizeof(g));
			if (native_load(&o, NULL, &cb_ret, err, sizeof(err)) &&
			    !*err)
				bad++;	/* an error without a message */
			free(c.p);
		}
		TAP_INT(bad, 0, "truncated copies refused with a message or "
			"read short");
	}
	/* a garbled record size in the middle: the rest is skipped */
	{
		struct buf c = { 0 };
		uint64_t off;

		put(&c, b.p, b.len);
		memcpy(&off, c.p + 40, 8);
		set16(&c, (size_t)off + 6, 0xfff8);
		memset(&g, 0, sizeof(g));
		TAP_OK(!write_file(path, &c) &&
		       !native_load(&o, NULL, &cb_ret, err, sizeof(err)),
		       "garbled framing read without a crash");
		TAP_INT(g.n, 0, "nothing after a broken frame");
		free(c.p);
	}
	unlink(path);
	free(b.p);
}

int main(void)
{
	test_decoders();
	test_features();
	test_native();
	return tap_done();
}
