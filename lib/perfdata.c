/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bounds-checked reader of perf.data (see perfdata.h).  The layout
 * follows the kernel's uapi (linux/perf_event.h) and perf's file
 * header (tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   header: "PERFILE2", u64 header size, u64 attr entry size,
 *           {u64 offset, u64 size} attrs, data, event types, ...
 *   attrs:  entries of attr entry size bytes: a perf_event_attr, then
 *           {u64 offset, u64 size} of the u64 sample ids of the event
 *   data:   records: u32 type, u16 misc, u16 size, body
 *
 * All numbers are little-endian on the machines we run on (perf writes
 * the host's order; a byte-swapped file is refused).
 */
#include "compat.h"
#include "perfdata.h"
#include "alloc.h"
#include "byteorder.h"
#include "fileio.h"

#include <fcntl.h>
#ifdef PPR_HAVE_ZSTD
#include <zstd.h>
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* perf_event_attr.sample_type bits */
#define S_IP		(1ULL << 0)
#define S_TID		(1ULL << 1)
#define S_TIME		(1ULL << 2)
#define S_ADDR		(1ULL << 3)
#define S_READ		(1ULL << 4)
#define S_CALLCHAIN	(1ULL << 5)
#define S_ID		(1ULL << 6)
#define S_CPU		(1ULL << 7)
#define S_PERIOD	(1ULL << 8)
#define S_STREAM_ID	(1ULL << 9)
#define S_RAW		(1ULL << 10)
#define S_BRANCH_STACK	(1ULL << 11)
#define S_REGS_USER	(1ULL << 12)
#define S_STACK_USER	(1ULL << 13)
#define S_IDENTIFIER	(1ULL << 16)

/* read_format bits */
#define R_ENABLED	(1ULL << 0)
#define R_RUNNING	(1ULL << 1)
#define R_ID		(1ULL << 2)
#define R_GROUP		(1ULL << 3)
#define R_LOST		(1ULL << 4)

#define BRANCH_HW_INDEX	(1ULL << 17)

/* perf_event_attr's flag word: every record carries sample_id fields */
#define ATTR_SAMPLE_ID_ALL (1ULL << 18)

#define RECORD_LOST 2		/* u64 id, u64 lost */
#define RECORD_SAMPLE 9
#define RECORD_LOST_SAMPLES 13	/* u64 lost */

/* The stack pointer's number in the user register mask. */
#if defined(__x86_64__)
#define SP_REG 7		/* PERF_REG_X86_SP */
#elif defined(__aarch64__)
#define SP_REG 31		/* PERF_REG_ARM64_SP */
#else
#define SP_REG -1
#endif

/* Is [off, off + len) inside a buffer of size bytes? */
static int in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int read_attrs(struct perfdata *d, uint64_t off, uint64_t size,
		      uint64_t entry, char *err, size_t errlen)
{
	uint64_t i, n;

	/* an attr is at least 64 bytes (PERF_ATTR_SIZE_VER0), then ids */
	if (entry < 64 + 16 || entry > 4096)
		return set_err(err, errlen, "bad attribute size %llu",
			       (unsigned long long)entry);
	if (!in_bounds(off, size, d->size) || size % entry)
		return set_err(err, errlen, "attributes out of bounds");
	n = size / entry;
	if (!n)
		return set_err(err, errlen, "no event attributes");
	if (n > PD_MAX_ATTRS)
		return set_err(err, errlen, "too many event attributes (%llu)",
			       (unsigned long long)n);
	for (i = 0; i < n; i++) {
		const unsigned char *a = d->map + off + i * entry;
		uint64_t asize = entry - 16, ids_off, ids_size;
		struct pd_attr *at = &d->attrs[i];
		uint32_t declared = get_le32(a + 4);

		memset(at, 0, sizeof(*at));
		at->type = get_le32(a);
		at->config = get_le64(a + 8);
		at->sample_type = get_le64(a + 24);
		at->read_format = get_le64(a + 32);
		at->flags = get_le64(a + 40);
		if (declared < asize)
			asize = declared;
		if (asize >= 80)
			at->branch_sample_type = get_le64(a + 72);
		if (asize >= 92) {
			at->sample_regs_user = get_le64(a + 80);
			at->sample_stack_user = get_le32(a + 88);
		}
		if (asize >= 110)
			at->sample_max_stack = get_le16(a + 108);
		at->sp_index = -1;
		if (SP_REG >= 0 && (at->sample_regs_user >> SP_REG) & 1)
			at->sp_index = popcount64(at->sample_regs_user &
						  ((1ULL << SP_REG) - 1));
		ids_off = get_le64(a + entry - 16);
		ids_size = get_le64(a + entry - 8);
		if (ids_size && in_bounds(ids_off, ids_size, d->size) &&
		    !(ids_off % 8)) {
			at->ids = (const uint64_t *)(const void *)
				(d->map + ids_off);
			at->nr_ids = (size_t)(ids_size / 8);
		}
	}
	d->nr_attrs = (size_t)n;
	return 0;
}

static void read_event_names(struct perfdata *d);
static void zstream_free(struct pd_zstream *z);

int perfdata_open_mem(struct perfdata *d, const void *buf, size_t len,
		      char *err, size_t errlen)
{
	const unsigned char *h = buf, *feat;
	uint64_t hsize;
	size_t feat_len;

	memset(d, 0, sizeof(*d));
	d->map = buf;
	d->size = len;
	if (len < 8 || memcmp(h, "PERFILE2", 8))
		return set_err(err, errlen, "not a perf.data file");
	if (len < 72)
		return set_err(err, errlen, "truncated header");
	hsize = get_le64(h + 8);
	if (hsize == 16)
		return set_err(err, errlen,
			       "a pipe-mode perf.data (written to a pipe)");
	if (hsize < 72 || hsize > len)
		return set_err(err, errlen, "bad header size %llu",
			       (unsigned long long)hsize);
	if (read_attrs(d, get_le64(h + 24), get_le64(h + 32), get_le64(h + 16), err,
		       errlen) < 0)
		return -1;
	d->data_off = get_le64(h + 40);
	d->data_end = d->data_off + get_le64(h + 48);
	if (!in_bounds(d->data_off, get_le64(h + 48), d->size))
		return set_err(err, errlen, "data section out of bounds");
	d->pos = d->data_off;
	read_event_names(d);
	if (!perfdata_have_zstd() &&
	    perfdata_feature(d, PD_FEAT_COMPRESSED, &feat, &feat_len) > 0)
		return set_err(err, errlen, PERFDATA_NO_ZSTD);
	return 0;
}

int perfdata_open(struct perfdata *d, const char *path, char *err,
		  size_t errlen)
{
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char why[PPR_ERR_LEN];

	memset(d, 0, sizeof(*d));
	if (fd < 0)
		return set_err(err, errlen, "cannot open '%s': %s", path,
			       strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !st.st_size) {
		close(fd);
		return set_err(err, errlen, "'%s' is not a perf.data file",
			       path);
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return set_err(err, errlen, "cannot map '%s': %s", path,
			       strerror(errno));
	if (perfdata_open_mem(d, m, (size_t)st.st_size, why,
			      sizeof(why)) < 0) {
		munmap(m, (size_t)st.st_size);
		memset(d, 0, sizeof(*d));
		return set_err(err, errlen, "'%s': %s", path, why);
	}
	d->mapped = 1;
	return 0;
}

void perfdata_close(struct perfdata *d)
{
	zstream_free(d->z);
	if (d->map && d->mapped)
		munmap((void *)d->map, d->size);
	memset(d, 0, sizeof(*d));
}

static const struct pd_attr *attr_of_id(const struct perfdata *d,
					uint64_t id)
{
	size_t i, j;

	for (i = 0; i < d->nr_attrs; i++)
		for (j = 0; j < d->attrs[i].nr_ids; j++)
			if (get_le64((const unsigned char *)(d->attrs[i].ids +
							 j)) == id)
				return &d->attrs[i];
	return NULL;
}

/* Take n bytes from the cursor; NULL when they are not there. */
#define TAKE(n) ((uint64_t)(n) <= (uint64_t)(e - p) ? \
		 (p += (n), p - (n)) : NULL)

int perfdata_decode_sample(const struct perfdata *d, const unsigned char *p,
			   size_t len, struct pd_sample *s)
{
	const unsigned char *e = p + len, *q;
	const struct pd_attr *a = &d->attrs[0];
	uint64_t t, v;

	memset(s, 0, sizeof(*s));
	s->cpu = -1;
	if (!d->nr_attrs)
		return -1;
	if (d->nr_attrs > 1 && (a->sample_type & S_IDENTIFIER)) {
		if (!(q = TAKE(8)))
			return -1;
		a = attr_of_id(d, get_le64(q));
		if (!a)
			return -1;
		p -= 8;		/* decoded again below */
	} else if (d->nr_attrs > 1 && (a->sample_type & S_ID)) {
		/*
		 * Without PERF_SAMPLE_IDENTIFIER perf keeps the id at the
		 * same place in every event's samples (after ip, tid,
		 * time and addr, as far as they are there).
		 */
		uint64_t at = 8 * (uint64_t)(!!(a->sample_type & S_IP) +
					     !!(a->sample_type & S_TID) +
					     !!(a->sample_type & S_TIME) +
					     !!(a->sample_type & S_ADDR));

		if (at + 8 > len)
			return -1;
		a = attr_of_id(d, get_le64(p + at));
		if (!a)
			return -1;
	}
	t = a->sample_type;
	s->attr = a;
	if ((t & S_IDENTIFIER) && !TAKE(8))
		return -1;
	if (t & S_IP) {
		if (!(q = TAKE(8)))
			return -1;
		s->ip = get_le64(q);
	}
	if (t & S_TID) {
		if (!(q = TAKE(8)))
			return -1;
		s->pid = (pid_t)get_le32(q);
		s->tid = (pid_t)get_le32(q + 4);
		s->have_tid = 1;
	}
	if (t & S_TIME) {
		if (!(q = TAKE(8)))
			return -1;
		s->time = get_le64(q);
		s->have_time = 1;
	}
	if ((t & S_ADDR) && !TAKE(8))
		return -1;
	if ((t & S_ID) && !TAKE(8))
		return -1;
	if ((t & S_STREAM_ID) && !TAKE(8))
		return -1;
	if (t & S_CPU) {
		if (!(q = TAKE(8)))
			return -1;
		s->cpu = (int32_t)get_le32(q);
	}
	if (t & S_PERIOD) {
		if (!(q = TAKE(8)))
			return -1;
		s->period = get_le64(q);
	}
	if (t & S_READ) {
		uint64_t rf = a->read_format, per, nr = 1;

		per = 1 + !!(rf & R_ID) + !!(rf & R_LOST);
		if (rf & R_GROUP) {
			if (!(q = TAKE(8)))
				return -1;
			nr = get_le64(q);
		} else {
			per = 1;
			nr = 1 + !!(rf & R_ID) + !!(rf & R_LOST);
		}
		if (!TAKE(8 * (!!(rf & R_ENABLED) + !!(rf & R_RUNNING))))
			return -1;
		if (nr > len || !TAKE(8 * per * nr))
			return -1;
	}
	if (t & S_CALLCHAIN) {
		if (!(q = TAKE(8)))
			return -1;
		v = get_le64(q);
		if (v > len / 8 || !(q = TAKE(8 * v)))
			return -1;
		s->nr_callchain = v;
		s->callchain = q;
	}
	if (t & S_RAW) {
		if (!(q = TAKE(4)))
			return -1;
		v = get_le32(q);
		if (!(q = TAKE(v)))
			return -1;
		s->raw = v ? q : NULL;
		s->raw_size = (uint32_t)v;
	}
	if (t & S_BRANCH_STACK) {
		if (!(q = TAKE(8)))
			return -1;
		v = get_le64(q);
		if ((a->branch_sample_type & BRANCH_HW_INDEX) && !TAKE(8))
			return -1;
		if (v > len / 24 || !TAKE(24 * v))
			return -1;
	}
	if (t & S_REGS_USER) {
		if (!(q = TAKE(8)))
			return -1;
		s->regs_abi = get_le64(q);
		/* abi: 0 = no registers (kernel thread) */
		if (s->regs_abi) {
			int nr = popcount64(a->sample_regs_user);

			if (!(q = TAKE(8 * (uint64_t)nr)))
				return -1;
			s->regs = q;
			s->nr_regs = nr;
			if (a->sp_index >= 0) {
				s->user_sp = get_le64(q + 8 * a->sp_index);
				s->have_sp = 1;
			}
		}
	}
	if (t & S_STACK_USER) {
		if (!(q = TAKE(8)))
			return -1;
		v = get_le64(q);
		if (v) {
			if (!(q = TAKE(v)))
				return -1;
			s->stack = q;
			s->stack_size = v;
			if (!(q = TAKE(8)))
				return -1;
			s->dyn_size = get_le64(q);
			if (s->dyn_size > s->stack_size)
				return -1;
			s->have_stack = 1;
		}
	}
	return 0;
}

/* Drop the mapping's pages before off (see perfdata_release_before()). */
void perfdata_release_before(struct perfdata *d, uint64_t off)
{
	uint64_t from, to;

	if (!d->mapped || off <= d->released ||
	    off - d->released < (32u << 20))
		return;
	from = d->released & ~(uint64_t)4095;
	to = off & ~(uint64_t)4095;
	if (to > from)
		madvise((void *)(d->map + from), (size_t)(to - from),
			MADV_DONTNEED);
	d->released = to;
}

/* --- PERF_RECORD_COMPRESSED ---------------------------------------------- */

/*
 * The decompressed records of the compressed records walked so far:
 * buf[pos, len) holds what is not returned yet, a record cut by the end
 * of one compressed record included (the next one continues it).  One
 * zstd stream runs through the file, as perf wrote it.
 */
struct pd_zstream {
#ifdef PPR_HAVE_ZSTD
	ZSTD_DStream *ds;
#endif
	unsigned char *buf;
	size_t len, pos, alloc;
	uint64_t offset;	/* the last compressed record's */
};

int perfdata_have_zstd(void)
{
#ifdef PPR_HAVE_ZSTD
	return 1;
#else
	return 0;
#endif
}

static void zstream_free(struct pd_zstream *z)
{
	if (!z)
		return;
#ifdef PPR_HAVE_ZSTD
	if (z->ds)
		ZSTD_freeDStream(z->ds);
#endif
	free(z->buf);
	free(z);
}

/*
 * Decompress the payload of the compressed record at file offset off
 * after what z still holds.  0, or -1 (d->zstd_failed or need_zstd set)
 * when it cannot be read.
 */
static int zstream_feed(struct perfdata *d, const unsigned char *p,
			size_t n, uint64_t off)
{
#ifdef PPR_HAVE_ZSTD
	struct pd_zstream *z = d->z;
	ZSTD_inBuffer in = { p, n, 0 };

	if (!z) {
		z = d->z = xcalloc(1, sizeof(*z));
		z->ds = ZSTD_createDStream();
		if (!z->ds || ZSTD_isError(ZSTD_initDStream(z->ds))) {
			d->zstd_failed = 1;
			return -1;
		}
	}
	/* the rest of a record cut at the end of the last one first */
	if (z->pos) {
		memmove(z->buf, z->buf + z->pos, z->len - z->pos);
		z->len -= z->pos;
		z->pos = 0;
	}
	z->offset = off;
	while (in.pos < in.size) {
		ZSTD_outBuffer out;
		size_t ret;

		/* a 64 KiB payload decompresses to about 10 times that */
		if (z->alloc - z->len < (1 << 16))
			ALLOC_GROW(z->buf, z->len + (1 << 20), z->alloc);
		out.dst = z->buf + z->len;
		out.size = z->alloc - z->len;
		out.pos = 0;
		ret = ZSTD_decompressStream(z->ds, &out, &in);
		if (ZSTD_isError(ret)) {
			d->zstd_failed = 1;
			return -1;
		}
		z->len += out.pos;
	}
	return 0;
#else
	(void)p;
	(void)n;
	(void)off;
	d->need_zstd = 1;
	return -1;
#endif
}

/* The payload of a compressed record (r: its header and body). */
static int compressed_payload(uint32_t type, const unsigned char *body,
			      size_t len, const unsigned char **p, size_t *n)
{
	uint64_t size;

	if (type == PD_RECORD_COMPRESSED) {
		*p = body;
		*n = len;
		return 0;
	}
	/* COMPRESSED2: u64 data_size, the data, padding */
	if (len < 8)
		return -1;
	size = get_le64(body);
	if (size > len - 8)
		return -1;
	*p = body + 8;
	*n = (size_t)size;
	return 0;
}

uint64_t perfdata_lost(const struct perfdata *d, int stopped)
{
	uint64_t lost = d->lost, samples = d->lost_samples;

	if (stopped) {
		lost -= d->lost_tail;
		samples -= d->lost_samples_tail;
	}
	return lost > samples ? lost : samples;
}

static void fill_record(struct perfdata *d, struct pd_record *r,
			const unsigned char *h, uint64_t offset)
{
	uint32_t type = get_le32(h);
	uint16_t size = get_le16(h + 6);

	d->records++;
	if (type == RECORD_LOST && size >= 24) {
		d->lost += get_le64(h + 16);
		d->lost_tail += get_le64(h + 16);
	} else if (type == RECORD_LOST_SAMPLES && size >= 16) {
		d->lost_samples += get_le64(h + 8);
		d->lost_samples_tail += get_le64(h + 8);
	} else if (type == RECORD_SAMPLE) {
		d->lost_tail = d->lost_samples_tail = 0;
	}
	r->offset = offset;
	r->type = type;
	r->misc = get_le16(h + 4);
	r->body = h + 8;
	r->len = size - 8u;
}

/* The next decompressed record: 1, or 0 when z holds no whole one. */
static int zstream_next(struct perfdata *d, struct pd_record *r)
{
	struct pd_zstream *z = d->z;
	const unsigned char *h;
	uint16_t size;

	if (!z || z->len - z->pos < 8)
		return 0;
	h = z->buf + z->pos;
	size = get_le16(h + 6);
	if (size < 8) {			/* framing lost */
		z->pos = z->len;
		d->pos = d->data_end;
		return 0;
	}
	if (size > z->len - z->pos)
		return 0;		/* continued in the next one */
	z->pos += size;
	fill_record(d, r, h, z->offset);
	return 1;
}

int perfdata_record_in_file(const struct perfdata *d,
			    const struct pd_record *r)
{
	return r->body >= d->map && r->body < d->map + d->size;
}

int perfdata_next_record(struct perfdata *d, struct pd_record *r)
{
	for (;;) {
		const unsigned char *h, *p;
		uint32_t type;
		uint16_t size;
		size_t n;

		if (zstream_next(d, r))
			return 1;
		if (d->pos + 8 > d->data_end)
			return 0;
		if (d->release_behind)
			perfdata_release_before(d, d->pos);
		h = d->map + d->pos;
		type = get_le32(h);
		size = get_le16(h + 6);
		if (size < 8 || d->pos + size > d->data_end) {
			d->pos = d->data_end;	/* framing lost */
			return 0;
		}
		if (type != PD_RECORD_COMPRESSED &&
		    type != PD_RECORD_COMPRESSED2) {
			fill_record(d, r, h, d->pos);
			d->pos += size;
			return 1;
		}
		d->records++;
		d->compressed++;
		if (compressed_payload(type, h + 8, size - 8u, &p, &n) < 0 ||
		    zstream_feed(d, p, n, d->pos) < 0) {
			d->pos = d->data_end;	/* the stream is lost */
			return 0;
		}
		d->pos += size;
	}
}

int perfdata_next(struct perfdata *d, struct pd_sample *s)
{
	struct pd_record r;

	while (perfdata_next_record(d, &r) > 0) {
		if (r.type != RECORD_SAMPLE)
			continue;
		if (perfdata_decode_sample(d, r.body, r.len, s) < 0) {
			d->bad_samples++;
			continue;
		}
		d->samples++;
		return 1;
	}
	return 0;
}

int perfdata_record_time(const struct perfdata *d, const struct pd_record *r,
			 uint64_t *time)
{
	uint64_t t = d->attrs[0].sample_type;
	size_t off, after;

	if (!d->nr_attrs || !(t & S_TIME))
		return -1;
	if (r->type == RECORD_SAMPLE) {
		off = 8 * (!!(t & S_IDENTIFIER) + !!(t & S_IP) +
			   !!(t & S_TID));
		if (r->len < off + 8)
			return -1;
		*time = get_le64(r->body + off);
		return 0;
	}
	/* perf's own records (64 and up) carry no sample_id trailer */
	if (r->type >= 64 || !(d->attrs[0].flags & ATTR_SAMPLE_ID_ALL))
		return -1;
	/* trailer: tid, time, id, stream_id, cpu, identifier */
	after = 8 * (1 + !!(t & S_ID) + !!(t & S_STREAM_ID) +
		     !!(t & S_CPU) + !!(t & S_IDENTIFIER));
	if (r->len < after)
		return -1;
	*time = get_le64(r->body + r->len - after);
	return 0;
}

int perfdata_decode_switch(const struct perfdata *d,
			   const struct pd_record *r, struct pd_switch *sw)
{
	const struct pd_attr *a;
	uint64_t t;
	size_t size, body;
	const unsigned char *q;

	memset(sw, 0, sizeof(*sw));
	if ((r->type != PD_RECORD_SWITCH &&
	     r->type != PD_RECORD_SWITCH_CPU_WIDE) || !d->nr_attrs)
		return -1;
	body = r->type == PD_RECORD_SWITCH_CPU_WIDE ? 8 : 0;
	if (r->len < body)
		return -1;
	sw->out = !!(r->misc & PD_MISC_SWITCH_OUT);
	sw->preempt = sw->out && (r->misc & PD_MISC_SWITCH_PREEMPT);
	a = &d->attrs[0];
	if (!(a->flags & ATTR_SAMPLE_ID_ALL))
		return 0;
	/* the trailer's last u64 names its event when IDENTIFIER is on */
	if ((a->sample_type & S_IDENTIFIER) && r->len >= body + 8) {
		const struct pd_attr *b =
			attr_of_id(d, get_le64(r->body + r->len - 8));

		if (b)
			a = b;
	}
	t = a->sample_type;
	/* trailer: tid, time, id, stream_id, cpu, identifier */
	size = 8 * (size_t)(!!(t & S_TID) + !!(t & S_TIME) + !!(t & S_ID) +
			    !!(t & S_STREAM_ID) + !!(t & S_CPU) +
			    !!(t & S_IDENTIFIER));
	if (r->len < body + size)
		return -1;
	q = r->body + r->len - size;
	if (t & S_TID) {
		sw->pid = (pid_t)get_le32(q);
		sw->tid = (pid_t)get_le32(q + 4);
		sw->have_tid = 1;
		q += 8;
	}
	if (t & S_TIME) {
		sw->time = get_le64(q);
		sw->have_time = 1;
	}
	return 0;
}

/*
 * A NUL-terminated string starting at p inside [p, e); NULL when it
 * runs off the end (the record's sample_id trailer follows it, so the
 * NUL is searched, not assumed at the end).
 */
static const char *str_in(const unsigned char *p, const unsigned char *e)
{
	if (p >= e || !memchr(p, '\0', (size_t)(e - p)))
		return NULL;
	return (const char *)p;
}

int perfdata_decode_mmap(const struct pd_record *r, struct pd_mmap *m)
{
	const unsigned char *p = r->body, *e = r->body + r->len;

	memset(m, 0, sizeof(*m));
	if (r->len < 32)
		return -1;
	m->pid = (pid_t)get_le32(p);
	m->tid = (pid_t)get_le32(p + 4);
	m->start = get_le64(p + 8);
	m->len = get_le64(p + 16);
	m->pgoff = get_le64(p + 24);
	m->exec = !(r->misc & PD_MISC_MMAP_DATA);
	if (r->type == PD_RECORD_MMAP) {
		m->filename = str_in(p + 32, e);
	} else if (r->type == PD_RECORD_MMAP2) {
		if (r->len < 64)
			return -1;
		if (r->misc & PD_MISC_MMAP_BUILD_ID) {
			m->build_id_len = p[32] <= 20 ? p[32] : 20;
			m->build_id = p + 36;
		}
		m->prot = get_le32(p + 56);
		m->flags = get_le32(p + 60);
		m->filename = str_in(p + 64, e);
	} else {
		return -1;
	}
	if (m->start + m->len < m->start)
		return -1;	/* wraps */
	return m->filename ? 0 : -1;
}

int perfdata_decode_task(const struct pd_record *r, struct pd_task *t)
{
	const unsigned char *p = r->body;

	if ((r->type != PD_RECORD_FORK && r->type != PD_RECORD_EXIT) ||
	    r->len < 24)
		return -1;
	t->pid = (pid_t)get_le32(p);
	t->ppid = (pid_t)get_le32(p + 4);
	t->tid = (pid_t)get_le32(p + 8);
	t->ptid = (pid_t)get_le32(p + 12);
	t->time = get_le64(p + 16);
	return 0;
}

int perfdata_decode_comm(const struct pd_record *r, struct pd_comm *c)
{
	if (r->type != PD_RECORD_COMM || r->len < 8)
		return -1;
	c->pid = (pid_t)get_le32(r->body);
	c->tid = (pid_t)get_le32(r->body + 4);
	c->comm = str_in(r->body + 8, r->body + r->len);
	c->exec = !!(r->misc & PD_MISC_COMM_EXEC);
	return c->comm ? 0 : -1;
}

/*
 * The feature bitmap is 256 bits at header offset 72; the table of
 * {u64 offset, u64 size} sections, one per set bit in bit order, starts
 * right after the data section.
 */
int perfdata_feature(const struct perfdata *d, unsigned feat,
		     const unsigned char **p, size_t *len)
{
	const unsigned char *bits = d->map + 72;
	uint64_t tab, off, size;
	unsigned i, idx = 0;

	if (feat >= 256 || d->size < 104 || get_le64(d->map + 8) < 104)
		return 0;
	if (!(bits[feat / 8] >> (feat % 8) & 1))
		return 0;
	for (i = 0; i < feat; i++)
		idx += bits[i / 8] >> (i % 8) & 1;
	tab = d->data_end + 16 * (uint64_t)idx;
	if (!in_bounds(tab, 16, d->size))
		return -1;
	off = get_le64(d->map + tab);
	size = get_le64(d->map + tab + 8);
	if (!in_bounds(off, size, d->size))
		return -1;
	*p = d->map + off;
	*len = (size_t)size;
	return 1;
}

/*
 * HEADER_EVENT_DESC: u32 events, u32 attr size, then per event the
 * attr, u32 nr_ids, the name as a perf string (u32 length, then that
 * many bytes, NUL-padded) and nr_ids u64 ids.  An event is matched to
 * an attr of the file by its first id (or by position when neither
 * has ids).  A section that does not fit names nothing more.
 */
static void read_event_names(struct perfdata *d)
{
	const unsigned char *p, *e;
	size_t len;
	uint32_t nr, asz, i, j, k;

	if (perfdata_feature(d, PD_FEAT_EVENT_DESC, &p, &len) != 1 || len < 8)
		return;
	e = p + len;
	nr = get_le32(p);
	asz = get_le32(p + 4);
	p += 8;
	for (i = 0; i < nr && i < PD_MAX_ATTRS; i++) {
		uint32_t nids, slen;
		const char *name;

		if ((size_t)(e - p) < (uint64_t)asz + 8)
			return;
		p += asz;
		nids = get_le32(p);
		slen = get_le32(p + 4);
		p += 8;
		if (!slen || slen > (size_t)(e - p) || p[slen - 1] != 0)
			return;
		name = (const char *)p;
		p += slen;
		if ((uint64_t)nids * 8 > (size_t)(e - p))
			return;
		for (j = 0; j < d->nr_attrs; j++) {
			struct pd_attr *a = &d->attrs[j];
			int match = 0;

			if (nids && a->nr_ids) {
				for (k = 0; k < a->nr_ids && !match; k++)
					match = get_le64((const unsigned char *)
							 (a->ids + k)) ==
						get_le64(p);
			} else {
				match = !nids && !a->nr_ids && j == i;
			}
			if (match && !a->name)
				a->name = name;
		}
		p += 8 * (size_t)nids;
	}
}

/*
 * Build-id entries: a perf_event_header (u32 type, u16 misc, u16 size),
 * s32 pid, 24 bytes of id (20 + u8 size + 3 pad when misc has bit 15),
 * then the file name padded to size.
 */
int perfdata_each_buildid(const struct perfdata *d,
			  int (*fn)(void *arg, const struct pd_buildid *b),
			  void *arg)
{
	const unsigned char *p, *e;
	size_t len;
	int r = perfdata_feature(d, PD_FEAT_BUILD_ID, &p, &len);

	if (r <= 0)
		return r;
	for (e = p + len; p < e;) {
		struct pd_buildid b;
		uint16_t size;

		if (e - p < 36)
			return -1;
		size = get_le16(p + 6);
		if (size < 36 || size > e - p)
			return -1;
		b.misc = get_le16(p + 4);
		b.pid = (pid_t)get_le32(p + 8);
		b.id = p + 12;
		b.id_len = 20;
		if ((b.misc & (1u << 15)) && p[32] <= 20)
			b.id_len = p[32];
		b.filename = str_in(p + 36, p + size);
		if (!b.filename)
			return -1;
		r = fn(arg, &b);
		if (r)
			return r;
		p += size;
	}
	return 0;
}

/* --- the pids of a recording -------------------------------------------- */

void perfdata_scan_init(struct perfdata_scan *s)
{
	memset(s, 0, sizeof(*s));
}

void perfdata_scan_release(struct perfdata_scan *s)
{
	free(s->pids);
	perfdata_scan_init(s);
}

void perfdata_scan_add_pid(struct perfdata_scan *s, pid_t pid)
{
	size_t i;

	if (pid <= 0)
		return;
	/* Recent pids repeat: look from the end. */
	for (i = s->nr_pids; i > 0; i--)
		if (s->pids[i - 1] == pid)
			return;
	ALLOC_GROW(s->pids, s->nr_pids + 1, s->alloc_pids);
	s->pids[s->nr_pids++] = pid;
}

/* --- in-place fixes ------------------------------------------------------- */

#define PD_MAGIC 0x32454c4946524550ull	/* "PERFILE2" */
#define PD_HEADER_SIZE 104
#define PD_DATA_AT 40			/* struct { u64 offset, size } data */
#define PD_FEATURES_AT 72		/* u64 adds_features[4] */
#define PD_MMAP 1u
#define PD_COMM 3u
#define PD_EXIT 4u
#define PD_SAMPLE 9u
#define PD_MMAP2 10u
#define PD_FORK 7u
#define PD_FEAT_BUILD_ID 2
#define PD_MISC_EXEC 0x2000u	/* COMM: exec; FORK: do not copy maps */

struct pd_fork {
	uint32_t pid;
	size_t at;
};

/*
 * The data section of the mapped file d (len bytes): its offset, size
 * and end.  0, or -EINVAL when the header puts it outside the file.
 */
static int pd_data_of(const unsigned char *d, size_t len, uint64_t *doff,
		      uint64_t *dsize, size_t *end)
{
	*doff = get_le64(d + PD_DATA_AT);
	*dsize = get_le64(d + PD_DATA_AT + 8);
	if (*doff > len || *dsize > len - *doff)
		return -EINVAL;
	*end = (size_t)(*doff + *dsize);
	return 0;
}

/* Write all of p; 0 or -errno. */
static int pd_out(int fd, const void *p, size_t n)
{
	return write_in_full(fd, p, n) < 0 ? -errno : 0;
}

/*
 * The rest of a perf.data file d (len bytes) rewritten into fd after its
 * data, which ended at end and grew by grew (modulo 2^64: it may have
 * shrunk): the feature sections' table follows the data and their
 * offsets are absolute, so each one past the data moves by as much;
 * then the header's data size (dsize + grew).  0, or -errno.
 */
static int pd_out_tail(int fd, const unsigned char *d, size_t len,
		       size_t end, uint64_t dsize, uint64_t grew)
{
	size_t nfeat = 0, i;
	unsigned char sz[8];
	int r;

	for (i = 0; i < 4; i++)
		nfeat += (size_t)popcount64(get_le64(d + PD_FEATURES_AT +
						     8 * i));
	if (nfeat && end + nfeat * 16 <= len) {
		unsigned char *feat = xmalloc(nfeat * 16);

		memcpy(feat, d + end, nfeat * 16);
		for (i = 0; i < nfeat; i++) {
			uint64_t o = get_le64(feat + 16 * i);

			if (o >= end)
				put_le64(feat + 16 * i, o + grew);
		}
		r = pd_out(fd, feat, nfeat * 16);
		free(feat);
		if (!r)
			r = pd_out(fd, d + end + nfeat * 16,
				   len - end - nfeat * 16);
	} else {
		r = pd_out(fd, d + end, len - end);
	}
	if (r)
		return r;
	put_le64(sz, dsize + grew);
	return pwrite(fd, sz, 8, PD_DATA_AT + 8) == 8 ? 0 : -errno;
}

static int fork_at_cmp(const void *a, const void *b)
{
	const struct pd_fork *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

/* Map a perf.data file; 0, or -errno (-EINVAL: not perf.data). */
static int pd_map(const char *path, int writable, unsigned char **map,
		  size_t *len)
{
	struct stat st;
	int fd, ret = 0;
	void *m;

	fd = open(path, (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW |
		  O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < PD_HEADER_SIZE) {
		ret = -EINVAL;
		goto out;
	}
	m = mmap(NULL, (size_t)st.st_size,
		 PROT_READ | (writable ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	*map = m;
	*len = (size_t)st.st_size;
	if (get_le64(*map) != PD_MAGIC) {
		munmap(m, *len);
		ret = -EINVAL;
	}
out:
	close(fd);
	return ret;
}

/* One record (at h: header and body, size bytes) into scan. */
static void scan_record(struct perfdata_scan *scan, const unsigned char *h,
			uint32_t type, unsigned size)
{
	if (type == PD_SAMPLE) {
		scan->samples++;
	} else if (size >= 16 && (type == PD_MMAP || type == PD_MMAP2 ||
				  type == PD_COMM || type == PD_EXIT)) {
		/* pid -1: the kernel's maps */
		perfdata_scan_add_pid(scan, (pid_t)get_le32(h + 8));
	} else if (type == PD_FORK && size >= 24) {
		perfdata_scan_add_pid(scan, (pid_t)get_le32(h + 12));
		perfdata_scan_add_pid(scan, (pid_t)get_le32(h + 8));
	}
}

/*
 * The records inside the compressed records of path (perf record -z)
 * into scan: they cannot be fixed in place, but they are counted.
 */
static void scan_compressed(const char *path, struct perfdata_scan *scan)
{
	struct perfdata d;
	struct pd_record r;
	char err[PPR_ERR_LEN];

	if (perfdata_open(&d, path, err, sizeof(err)) < 0)
		return;
	while (perfdata_next_record(&d, &r) > 0)
		if (!perfdata_record_in_file(&d, &r))
			scan_record(scan, r.body - 8, r.type, r.len + 8u);
	perfdata_close(&d);
}

/*
 * Each exec takes the fork of its pid nearest to it (records of
 * different CPUs' buffers interleave, so a child's exec can come before
 * its fork): the forks to mark, their offsets moved to the front of
 * forks.  Returns how many.
 */
static size_t match_exec_forks(struct pd_fork *forks, size_t nr,
			       const struct pd_fork *execs, size_t nx)
{
	size_t i, k, n = 0;

	for (i = 0; i < nx; i++) {
		size_t best = nr, dist = SIZE_MAX;

		for (k = n; k < nr; k++) {
			size_t dd;

			if (forks[k].pid != execs[i].pid)
				continue;
			dd = forks[k].at > execs[i].at ? forks[k].at - execs[i].at
						       : execs[i].at - forks[k].at;
			if (dd < dist) {
				dist = dd;
				best = k;
			}
		}
		if (best == nr)
			continue;
		/* keep it: swap it into the marked front */
		{
			struct pd_fork t = forks[n];

			forks[n] = forks[best];
			forks[best] = t;
		}
		n++;
	}
	return n;
}

/* A FORK to mark, or an exec (COMM with the exec flag), at offset at. */
static void note_fork_exec(const unsigned char *h, uint32_t type,
			   unsigned size, size_t at, struct pd_fork **forks,
			   size_t *nr, size_t *alloc, struct pd_fork **execs,
			   size_t *nx, size_t *xalloc)
{
	unsigned misc = h[4] | (unsigned)h[5] << 8;

	if (type == PD_FORK && size >= 24) {
		uint32_t pid = get_le32(h + 8);
		uint32_t ppid = get_le32(h + 12);
		uint32_t tid = get_le32(h + 16);

		if (pid == tid && pid != ppid && !(misc & PD_MISC_EXEC)) {
			ALLOC_GROW(*forks, *nr + 1, *alloc);
			(*forks)[*nr].pid = pid;
			(*forks)[(*nr)++].at = at;
		}
	} else if (type == PD_COMM && (misc & PD_MISC_EXEC) && size >= 16) {
		ALLOC_GROW(*execs, *nx + 1, *xalloc);
		(*execs)[*nx].pid = get_le32(h + 8);
		(*execs)[(*nx)++].at = at;
	}
}

#ifdef PPR_HAVE_ZSTD
/*
 * The same fix inside compressed records (perf record -z).  perf writes
 * one zstd stream through the file, a record of it may continue in the
 * next compressed record, and a bit cannot be set in place: the first
 * pass decompresses the stream and finds the forks by their offsets in
 * it; when one needs the flag, the second writes the file again beside
 * it (path.fix-XXXXXX, then renamed over it), each compressed record
 * decompressed, marked and compressed again (zstd level 1, perf's
 * default; one flush each, in compressed records of at most 64 KiB),
 * the other records and the feature sections as they were (these move
 * by what the data grew or shrank).  The first pass also counts the
 * decompressed records into scan (may be NULL; scan_compressed()'s work,
 * so the stream is not decompressed once more for it).  *fixed gets
 * the forks marked.  0, or -errno (the file is then as it was).
 */
static int fix_compressed_forks(const char *path, struct perfdata_scan *scan,
				unsigned *fixed)
{
	unsigned char *d, *buf = NULL, *zout = NULL;
	size_t len, off, end, blen = 0, balloc = 0, nr = 0, alloc = 0;
	size_t nx = 0, xalloc = 0, nfix = 0, j = 0;
	struct pd_fork *forks = NULL, *execs = NULL;
	/* grew: what the data grew by, modulo 2^64 (it may shrink) */
	uint64_t doff, dsize, base = 0, sofar = 0, grew = 0;
	ZSTD_DStream *ds = NULL;
	ZSTD_CCtx *zc = NULL;
	char *tmp = NULL;
	int r, fd = -1, pass;

	*fixed = 0;
	r = pd_map(path, 0, &d, &len);
	if (r < 0)
		return r;
	r = pd_data_of(d, len, &doff, &dsize, &end);
	if (r < 0)
		goto out;
	for (pass = 0; pass < 2; pass++) {
		ds = ZSTD_createDStream();
		if (!ds || ZSTD_isError(ZSTD_initDStream(ds))) {
			r = -ENOMEM;
			goto out;
		}
		blen = 0;
		base = sofar = 0;
		for (off = (size_t)doff; off + 8 <= end; ) {
			uint32_t type = get_le32(d + off);
			unsigned size = get_le16(d + off + 6);
			const unsigned char *p;
			size_t n, at = 0, k;
			ZSTD_inBuffer in;

			if (size < 8 || size > end - off)
				break;
			if ((type != PD_RECORD_COMPRESSED &&
			     type != PD_RECORD_COMPRESSED2) ||
			    compressed_payload(type, d + off + 8, size - 8u,
					       &p, &n) < 0) {
				if (pass && (r = pd_out(fd, d + off, size)))
					goto out;
				off += size;
				continue;
			}
			/* this record's part of the stream: buf[blen...] */
			in = (ZSTD_inBuffer){ p, n, 0 };
			k = blen;
			while (in.pos < in.size) {
				ZSTD_outBuffer o;
				size_t ret;

				if (balloc - blen < (1 << 16))
					ALLOC_GROW(buf, blen + (1 << 20),
						   balloc);
				o = (ZSTD_outBuffer){ buf + blen,
						      balloc - blen, 0 };
				ret = ZSTD_decompressStream(ds, &o, &in);
				if (ZSTD_isError(ret)) {
					r = -EIO;
					goto out;
				}
				blen += o.pos;
			}
			if (!pass) {
				/* the whole records in buf, from base on */
				while (at + 8 <= blen) {
					unsigned rs = get_le16(buf + at + 6);

					if (rs < 8)
						break;
					if (at + rs > blen)
						break;
					if (scan)
						scan_record(scan, buf + at,
							    get_le32(buf + at),
							    rs);
					note_fork_exec(buf + at,
						       get_le32(buf + at), rs,
						       (size_t)(base + at),
						       &forks, &nr, &alloc,
						       &execs, &nx, &xalloc);
					at += rs;
				}
				memmove(buf, buf + at, blen - at);
				blen -= at;
				base += at;
			} else {
				size_t from = k, left;

				/* mark the forks in this part */
				while (j < nfix && forks[j].at + 5 < sofar +
				       (blen - k)) {
					if (forks[j].at + 5 >= sofar)
						buf[k + forks[j].at + 5 -
						    sofar] |= PD_MISC_EXEC >> 8;
					j++;
				}
				in = (ZSTD_inBuffer){ buf + from, blen - from,
						      0 };
				do {
					ZSTD_outBuffer o = { zout + 8,
							     65535 - 8, 0 };

					left = ZSTD_compressStream2(
						zc, &o, &in, ZSTD_e_flush);
					if (ZSTD_isError(left)) {
						r = -EIO;
						goto out;
					}
					if (!o.pos)
						continue;
					put_le32(zout, PD_RECORD_COMPRESSED);
					put_le16(zout + 4, 0);
					put_le16(zout + 6,
						 (uint16_t)(8 + o.pos));
					if ((r = pd_out(fd, zout, 8 + o.pos)))
						goto out;
					grew += 8 + o.pos;
				} while (left);
				sofar += blen - k;
				blen = 0;
				grew -= size;
			}
			off += size;
		}
		ZSTD_freeDStream(ds);
		ds = NULL;
		if (pass)
			break;
		/* by stream offset: sort the ones to mark */
		nfix = match_exec_forks(forks, nr, execs, nx);
		if (!nfix)
			goto out;
		qsort(forks, nfix, sizeof(*forks), fork_at_cmp);
		zc = ZSTD_createCCtx();
		zout = xmalloc(65535);
		if (!zc || ZSTD_isError(ZSTD_CCtx_setParameter(
				   zc, ZSTD_c_compressionLevel, 1))) {
			r = -ENOMEM;
			goto out;
		}
		tmp = xasprintf("%s.fix-XXXXXX", path);
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			free(tmp);
			tmp = NULL;
			goto out;
		}
		if ((r = pd_out(fd, d, (size_t)doff)))
			goto out;
	}
	r = pd_out_tail(fd, d, len, end, dsize, grew);
	if (!r && close(fd) < 0)
		r = -errno;
	fd = -1;
	if (!r && rename(tmp, path) < 0)
		r = -errno;
	if (!r)
		*fixed = (unsigned)nfix;
out:
	if (fd >= 0)
		close(fd);
	if (tmp && r)
		unlink(tmp);
	free(tmp);
	if (ds)
		ZSTD_freeDStream(ds);
	ZSTD_freeCCtx(zc);
	free(zout);
	free(buf);
	free(forks);
	free(execs);
	munmap(d, len);
	return r;
}
#endif

int perfdata_fix_exec_forks(const char *path, struct perfdata_scan *scan,
			    int in_compressed, unsigned *fixed)
{
	unsigned char *d;
	size_t len, off, end, nr = 0, alloc = 0, nx = 0, xalloc = 0, i, nfix;
	struct pd_fork *forks = NULL, *execs = NULL;
	uint64_t doff, dsize;
	unsigned n = 0;
	int r, compressed = 0;

	if (fixed)
		*fixed = 0;
	r = pd_map(path, 1, &d, &len);
	if (r < 0)
		return r == -EINVAL ? 0 : r;
	if (pd_data_of(d, len, &doff, &dsize, &end) < 0)
		goto out;
	for (off = (size_t)doff; off + 8 <= end; ) {
		uint32_t type = get_le32(d + off);
		unsigned size = d[off + 6] | (unsigned)d[off + 7] << 8;

		if (size < 8 || size > end - off)
			break;
		if (scan)
			scan_record(scan, d + off, type, size);
		if (type == PD_RECORD_COMPRESSED ||
		    type == PD_RECORD_COMPRESSED2)
			compressed = 1;
		note_fork_exec(d + off, type, size, off, &forks, &nr, &alloc,
			       &execs, &nx, &xalloc);
		off += size;
	}
	nfix = match_exec_forks(forks, nr, execs, nx);
	for (i = 0; i < nfix; i++)
		d[forks[i].at + 5] |= PD_MISC_EXEC >> 8;
	n = (unsigned)nfix;
	if (n && msync(d, len, MS_SYNC) < 0)
		r = -errno;
out:
	munmap(d, len);
#ifdef PPR_HAVE_ZSTD
	if (compressed && in_compressed && !r) {
		unsigned nz = 0;

		/* it counts the compressed records into scan as it reads */
		r = fix_compressed_forks(path, scan, &nz);
		n += nz;
		compressed = 0;
	}
#endif
	if (compressed && scan)
		scan_compressed(path, scan);
	free(forks);
	free(execs);
	if (fixed)
		*fixed = n;
	return r;
}

long long perfdata_recover(const char *path)
{
	unsigned char *d, table[16];
	size_t len, off;
	uint64_t doff;
	int r, fd;

	r = pd_map(path, 1, &d, &len);
	if (r < 0)
		return r;
	doff = get_le64(d + PD_DATA_AT);
	if (get_le64(d + PD_DATA_AT + 8) || doff < PD_HEADER_SIZE ||
	    doff >= len) {
		munmap(d, len);
		return 0;
	}
	for (off = (size_t)doff; off + 8 <= len; ) {
		unsigned size = d[off + 6] | (unsigned)d[off + 7] << 8;
		uint32_t type = get_le32(d + off);

		if (size < 8 || size > len - off || !type)
			break;
		off += size;
	}
	if (off == doff) {
		munmap(d, len);
		return 0;
	}
	/*
	 * The feature sections were never written.  Keep one, an empty
	 * build-id table, because perf inject writes the build-ids of
	 * the objects it makes only when the input has that feature
	 * (HEADER_BUILD_ID, bit 2); its table of sections follows the
	 * data.
	 */
	put_le64(table, off + 16);
	put_le64(table + 8, 0);
	memset(d + PD_FEATURES_AT, 0, 32);
	d[PD_FEATURES_AT] = 1u << PD_FEAT_BUILD_ID;
	put_le64(d + PD_DATA_AT + 8, off - doff);
	r = msync(d, len, MS_SYNC) < 0 ? -errno : 0;
	munmap(d, len);
	if (r)
		return r;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)off) < 0 ||
	    pwrite(fd, table, sizeof(table), (off_t)off) != sizeof(table)) {
		/* no room even for that: no features at all */
		unsigned char none[32];

		r = -errno;
		memset(none, 0, sizeof(none));
		if (ftruncate(fd, (off_t)off) < 0 ||
		    pwrite(fd, none, sizeof(none), PD_FEATURES_AT) !=
		    sizeof(none))
			r = r ? r : -EIO;
		else
			r = 0;
	}
	if (close(fd) < 0 && !r)
		r = -errno;
	return r < 0 ? r : (long long)(off - doff);
}

/* --- a build-id table for a compressed recording ------------------------ */

#define PD_NAME_ALIGN 64	/* perf's NAME_ALIGN for build-id names */
#define PD_BUILD_ID_SIZE_BIT (1u << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define PD_TAIL_MAX (64u << 20)	/* feature sections are kilobytes */

/* The build-id table entry of name (see perfdata_each_buildid()). */
static size_t pd_buildid_entry(unsigned char *out, size_t cap,
			       const char *name, const unsigned char *id,
			       size_t id_len)
{
	size_t nlen = strlen(name) + 1;
	size_t pad = (nlen + PD_NAME_ALIGN - 1) & ~(size_t)(PD_NAME_ALIGN - 1);
	size_t size = 36 + pad;

	if (size > cap || size > 65535 || id_len > 20)
		return 0;
	memset(out, 0, size);
	put_le16(out + 4, PD_MISC_USER | PD_BUILD_ID_SIZE_BIT);
	put_le16(out + 6, (uint16_t)size);
	put_le32(out + 8, (uint32_t)-1);	/* the host machine */
	memcpy(out + 12, id, id_len);
	out[32] = (unsigned char)id_len;
	memcpy(out + 36, name, nlen);
	return size;
}

int perfdata_add_buildid(const char *path, const char *name,
			 const char *id_hex)
{
	unsigned char h[PD_HEADER_SIZE], id[20], entry[36 + 4096];
	unsigned char *tail = NULL;
	uint64_t doff, dsize, end, flen;
	size_t id_len = 0, elen, nfeat = 0, idx = 0, told, rest, i;
	struct stat st;
	int fd, r = 0;

	while (id_hex[2 * id_len] && id_len < sizeof(id)) {
		unsigned v;

		if (sscanf(id_hex + 2 * id_len, "%2x", &v) != 1)
			return -EINVAL;
		id[id_len++] = (unsigned char)v;
	}
	elen = pd_buildid_entry(entry, sizeof(entry), name, id, id_len);
	if (!id_len || !elen)
		return -EINVAL;
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 ||
	    pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		r = -EINVAL;
		goto out;
	}
	flen = (uint64_t)st.st_size;
	doff = get_le64(h + PD_DATA_AT);
	dsize = get_le64(h + PD_DATA_AT + 8);
	end = doff + dsize;
	if (get_le64(h) != PD_MAGIC || doff < PD_HEADER_SIZE ||
	    end < doff || end > flen) {
		r = -EINVAL;
		goto out;
	}
	if (h[PD_FEATURES_AT] >> PD_FEAT_BUILD_ID & 1)
		goto out;	/* perf wrote one */
	for (i = 0; i < 256; i++) {
		if (!(h[PD_FEATURES_AT + i / 8] >> (i % 8) & 1))
			continue;
		nfeat++;
		if (i < PD_FEAT_BUILD_ID)
			idx++;
	}
	told = 16 * nfeat;
	if (end + told > flen || flen - end > PD_TAIL_MAX) {
		r = -EINVAL;
		goto out;
	}
	rest = (size_t)(flen - end - told);
	/* the new tail: the table with one more entry, the old sections
	 * (each 16 bytes later), the new one last */
	tail = xmalloc(told + 16 + rest + elen);
	if (pread(fd, tail, told, (off_t)end) != (ssize_t)told ||
	    pread(fd, tail + told + 16, rest, (off_t)(end + told)) !=
	    (ssize_t)rest) {
		r = -EIO;
		goto out;
	}
	memmove(tail + 16 * (idx + 1), tail + 16 * idx, 16 * (nfeat - idx));
	for (i = 0; i <= nfeat; i++) {
		uint64_t o = get_le64(tail + 16 * i);

		if (i == idx) {
			put_le64(tail + 16 * i, end + told + 16 + rest);
			put_le64(tail + 16 * i + 8, elen);
		} else if (o >= end) {
			put_le64(tail + 16 * i, o + 16);
		}
	}
	memcpy(tail + told + 16 + rest, entry, elen);
	/* a full disk refuses here, with the file as it was */
	r = posix_fallocate(fd, (off_t)end, (off_t)(told + 16 + rest + elen));
	if (r) {
		r = -r;
		goto out;
	}
	if (pwrite(fd, tail, told + 16 + rest + elen, (off_t)end) !=
	    (ssize_t)(told + 16 + rest + elen)) {
		r = -EIO;
		goto out;
	}
	h[PD_FEATURES_AT] |= 1u << PD_FEAT_BUILD_ID;
	if (pwrite(fd, h + PD_FEATURES_AT, 1, PD_FEATURES_AT) != 1) {
		r = -EIO;
		goto out;
	}
	r = 1;
out:
	free(tail);
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	return r;
}

/* --- the header check ---------------------------------------------------- */

int perfdata_check_header(const char *path, uint64_t file_size, char *err,
			  size_t errlen)
{
	unsigned char h[PD_FEATURES_AT];	/* up to the feature bits */
	uint64_t off, size;
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (!fp)
		return set_err(err, errlen, "cannot open '%s': %s", path,
			       strerror(errno));
	n = fread(h, 1, sizeof(h), fp);
	fclose(fp);
	if (n < 8 || get_le64(h) != PD_MAGIC)
		return set_err(err, errlen,
			       "'%s' is not a perf.data file (corrupt or "
			       "foreign)", path);
	if (n < sizeof(h))
		return set_err(err, errlen,
			       "'%s' is truncated (%zu bytes)", path, n);
	off = get_le64(h + PD_DATA_AT);
	size = get_le64(h + PD_DATA_AT + 8);
	if (!size)
		return set_err(err, errlen,
			       "'%s' is incomplete: perf record did not "
			       "finish writing it (was it killed?)", path);
	if (off > file_size || off + size > file_size)
		return set_err(err, errlen,
			       "'%s' is truncated: the header promises "
			       "%llu bytes of samples, the file has %llu",
			       path, (unsigned long long)(off + size),
			       (unsigned long long)file_size);
	return 0;
}

/* --- a chrooted program's paths ------------------------------------------ */

/*
 * A process in the root (perfdata_root_paths()): from at on, its mmaps
 * name the root's files (0: never).  chroot_at: when it exec'd
 * chroot(1), or 0.
 */
struct pd_rooted {
	uint32_t pid;
	uint64_t chroot_at, at;
};

struct pd_rootfork {
	uint32_t pid, ppid;
	uint64_t at;
};

struct pd_rootexec {
	uint32_t pid;
	int chroot;		/* the program it exec'd is chroot(1) */
	uint64_t at;
};

static struct pd_rooted *pd_rooted_get(struct pd_rooted **v, size_t *n,
				       size_t *alloc, uint32_t pid)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i].pid == pid)
			return &(*v)[i];
	ALLOC_GROW(*v, *n + 1, *alloc);
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].pid = pid;
	return &(*v)[(*n)++];
}

/*
 * The file offsets of the MMAP and MMAP2 records to rebase, in file
 * order, into *offs: by time, since records of different CPUs'
 * buffers interleave (an exec's COMM can come after the mmaps it
 * made).  A process is in the root from the exec that follows its
 * running chroot(1); its children from their fork.  0 or -errno.
 */
static int pd_root_records(const char *path, uint64_t **offs, size_t *noffs)
{
	struct perfdata d;
	struct pd_record r;
	struct pd_rooted *p = NULL;
	struct pd_rootfork *f = NULL;
	struct pd_rootexec *x = NULL;
	size_t np = 0, pa = 0, nf = 0, fa = 0, nx = 0, xa = 0, oa = 0, i, k;
	char err[PPR_ERR_LEN];
	int changed;
	uint64_t t;

	*offs = NULL;
	*noffs = 0;
	if (perfdata_open(&d, path, err, sizeof(err)) < 0)
		return -EINVAL;
	/* pass 1: the execs and forks */
	while (perfdata_next_record(&d, &r) == 1) {
		struct pd_comm c;
		struct pd_task tk;

		if (perfdata_record_time(&d, &r, &t) < 0)
			continue;
		if (r.type == PD_COMM && (r.misc & PD_MISC_EXEC) &&
		    !perfdata_decode_comm(&r, &c)) {
			ALLOC_GROW(x, nx + 1, xa);
			x[nx].pid = (uint32_t)c.pid;
			x[nx].at = t;
			x[nx++].chroot = !strcmp(c.comm, "chroot");
		} else if (r.type == PD_FORK && !perfdata_decode_task(&r, &tk) &&
			   tk.pid != tk.ppid) {
			ALLOC_GROW(f, nf + 1, fa);
			f[nf].pid = (uint32_t)tk.pid;
			f[nf].ppid = (uint32_t)tk.ppid;
			f[nf++].at = t;
		}
	}
	/*
	 * Each process that ran chroot(1): in the root from its next exec
	 * (by time: the two execs' records can come in either order).
	 */
	for (i = 0; i < nx; i++) {
		struct pd_rooted *e;

		if (!x[i].chroot)
			continue;
		e = pd_rooted_get(&p, &np, &pa, x[i].pid);
		e->chroot_at = x[i].at;
		for (k = 0; k < nx; k++)
			if (x[k].pid == x[i].pid && !x[k].chroot &&
			    x[k].at > x[i].at && (!e->at || x[k].at < e->at))
				e->at = x[k].at;
	}
	free(x);
	/* children of processes in the root, and theirs */
	do {
		changed = 0;
		for (i = 0; i < nf; i++) {
			struct pd_rooted *pp = NULL, *c;

			for (k = 0; k < np; k++)
				if (p[k].pid == f[i].ppid && p[k].at &&
				    p[k].at <= f[i].at)
					pp = &p[k];
			if (!pp)
				continue;
			c = pd_rooted_get(&p, &np, &pa, f[i].pid);
			if (!c->at || c->at > f[i].at) {
				c->at = f[i].at;
				changed = 1;
			}
		}
	} while (changed);
	perfdata_close(&d);
	/* pass 2: their mmaps */
	if (perfdata_open(&d, path, err, sizeof(err)) < 0) {
		free(p);
		free(f);
		return -EINVAL;
	}
	while (np && perfdata_next_record(&d, &r) == 1) {
		struct pd_mmap mm;

		if ((r.type != PD_MMAP && r.type != PD_MMAP2) ||
		    !perfdata_record_in_file(&d, &r) ||
		    perfdata_decode_mmap(&r, &mm) < 0 ||
		    perfdata_record_time(&d, &r, &t) < 0)
			continue;
		for (k = 0; k < np; k++)
			if (p[k].pid == (uint32_t)mm.pid && p[k].at &&
			    t >= p[k].at) {
				ALLOC_GROW(*offs, *noffs + 1, oa);
				(*offs)[(*noffs)++] = r.offset;
				break;
			}
	}
	perfdata_close(&d);
	free(p);
	free(f);
	return 0;
}

/* A buffer of the new file: written out in pieces. */
/*
 * Is name a file's path, not one of the kernel's names for anonymous
 * memory (perf's list: //anon, /dev/zero, /anon_hugepage; memfd's and
 * System V shared memory's)?
 */
static int pd_root_file(const char *name)
{
	static const char *const anon[] = {
		"//anon", "/dev/zero", "/anon_hugepage", "/memfd:", "/SYSV",
	};
	size_t i;

	if (name[0] != '/')
		return 0;
	for (i = 0; i < ARRAY_SIZE(anon); i++)
		if (!strncmp(name, anon[i], strlen(anon[i])))
			return 0;
	return 1;
}

/*
 * The MMAP or MMAP2 record at h (size bytes; the file name at name_at)
 * with root put before its file name, into fd; *grew gets the bytes it
 * grew by.  The record's sample_id trailer (sample_id_all) stays after
 * the name, which the kernel pads with zeros to 8 bytes.
 */
static int pd_rebase_mmap(int fd, const unsigned char *h, unsigned size,
			  size_t name_at, const char *root, size_t *grew)
{
	unsigned char buf[65536];
	size_t nlen, old_pad, new_pad, rlen = strlen(root), tail, nsize;

	nlen = strnlen((const char *)h + name_at, size - name_at);
	old_pad = (nlen + 1 + 7) & ~(size_t)7;
	if (name_at + old_pad > size || !pd_root_file((const char *)h +
						       name_at))
		return pd_out(fd, h, size);
	tail = size - name_at - old_pad;
	new_pad = (rlen + nlen + 1 + 7) & ~(size_t)7;
	nsize = name_at + new_pad + tail;
	if (nsize > 65535)
		return pd_out(fd, h, size);
	memset(buf, 0, nsize);
	memcpy(buf, h, name_at);
	memcpy(buf + name_at, root, rlen);
	memcpy(buf + name_at + rlen, h + name_at, nlen);
	memcpy(buf + name_at + new_pad, h + name_at + old_pad, tail);
	buf[6] = (unsigned char)(nsize & 0xff);
	buf[7] = (unsigned char)(nsize >> 8);
	*grew += nsize - size;
	return pd_out(fd, buf, nsize);
}

int perfdata_root_paths(const char *path, const char *root,
			unsigned *rebased)
{
	unsigned char *d;
	size_t len, off, end, from, grew = 0, j = 0, noffs;
	uint64_t doff, dsize, *offs;
	char *tmp = NULL;
	unsigned n = 0;
	int fd, r;

	*rebased = 0;
	r = pd_root_records(path, &offs, &noffs);
	if (r < 0 || !noffs) {
		free(offs);
		return r;
	}
	r = pd_map(path, 0, &d, &len);
	if (r < 0) {
		free(offs);
		return r;
	}
	r = pd_data_of(d, len, &doff, &dsize, &end);
	if (r < 0)
		goto out;
	tmp = xasprintf("%s.root", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = pd_out(fd, d, (size_t)doff);
	for (off = from = (size_t)doff; !r && off + 8 <= end; ) {
		uint32_t type = get_le32(d + off);
		unsigned size = d[off + 6] | (unsigned)d[off + 7] << 8;

		if (size < 8 || size > end - off)
			break;
		if (type == PD_RECORD_COMPRESSED ||
		    type == PD_RECORD_COMPRESSED2) {
			r = -ENOTSUP;
			break;
		}
		while (j < noffs && offs[j] < off)
			j++;
		if (j < noffs && offs[j] == off) {
			size_t name_at = type == PD_MMAP ? 40 : 72;

			if (size > name_at) {
				r = pd_out(fd, d + from, off - from);
				if (!r)
					r = pd_rebase_mmap(fd, d + off, size,
							   name_at, root,
							   &grew);
				from = off + size;
				n++;
			}
		}
		off += size;
	}
	if (!r)
		r = pd_out(fd, d + from, end - from);
	if (!r)
		r = pd_out_tail(fd, d, len, end, dsize, grew);
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && n && rename(tmp, path) < 0)
		r = -errno;
	if (r || !n)
		unlink(tmp);
	if (!r)
		*rebased = n;
out:
	munmap(d, len);
	free(tmp);
	free(offs);
	return r;
}
