/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A writer of perf.data files (see perfwrite.h).  The layout is the one
 * lib/perfdata.c reads and perf's header code writes
 * (tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   0     header: "PERFILE2", u64 104, u64 attr entry size,
 *         {offset, size} of the attrs, of the data, of the (unused)
 *         event types, 256 feature bits
 *   104   u64 sample ids, one per attr
 *         attrs: struct perf_event_attr, then {offset, size} of its ids
 *   data  records, each {u32 type, u16 misc, u16 size} and its body
 *   then  one {offset, size} per feature bit set, in bit order, then
 *         the features' contents
 *
 * The header goes in last, so a file killed half-way has a zero header
 * (not "PERFILE2") and is never taken for a whole one; it keeps its
 * temporary name anyway.  Numbers are in host order (little-endian
 * here), as perf writes them.
 */
#include "compat.h"
#include "perfwrite.h"
#include "alloc.h"
#include "byteorder.h"
#include "fileio.h"
#include "strbuf.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifdef PPR_HAVE_ZSTD
#include <zstd.h>
#endif

#define HEADER_SIZE 104
#define MAX_ATTRS 64
#define FLUSH_AT (256u << 10)	/* buffered record bytes */

/* perf's feature bits (tools/perf/util/header.h HEADER_*) */
#define FEAT_HOSTNAME	3
#define FEAT_OSRELEASE	4
#define FEAT_VERSION	5
#define FEAT_ARCH	6
#define FEAT_NRCPUS	7
#define FEAT_CMDLINE	11
#define FEAT_EVENT_DESC	12
#define FEAT_SAMPLE_TIME 21
#define FEAT_COMPRESSED	27

/* perf's record of zstd-compressed records, and its type of zstd */
#define PW_RECORD_COMPRESSED 81
#define PW_COMP_ZSTD 1
/*
 * The decompression buffer a reader needs (HEADER_COMPRESSED's
 * mmap_len): what one flush holds, at most a chunk and a record more
 * (perf decompresses each compressed record into a buffer this big).
 */
#define PW_ZSTD_MMAP_LEN (1u << 20)

/* strings in feature sections: u32 length, padded to 64 bytes */
#define NAME_ALIGN 64

/* the sample fields this writer lays out */
#define SUPPORTED_SAMPLE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
	PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
/* the fields of sample_type that make up a record's sample_id */
#define SAMPLE_ID_BITS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	PERF_SAMPLE_IDENTIFIER)

struct pw_attr {
	struct perf_event_attr attr;
	char *name;
	uint64_t id;
	int nr_regs;		/* bits set in sample_regs_user */
};

struct perfwrite {
	char *path, *tmp;
	int fd;
	perfwrite_record_fn fn;	/* stream mode: records go here */
	void *fn_data;
	struct pw_attr attrs[MAX_ATTRS];
	size_t nr_attrs;
	int started;		/* attrs written; records follow */
	uint64_t data_off, data_bytes;
	struct strbuf buf;	/* records not yet written */
	struct strbuf rec;	/* the record being built */
	int error;		/* -errno of the first write failure */
	struct strvec cmdline;
	int have_cmdline;
	uint64_t first_time, last_time;
	int have_time;
#ifdef PPR_HAVE_ZSTD
	ZSTD_CCtx *zc;		/* perfwrite_compress(): the stream */
#endif
	int zlevel;		/* its level; 0: not compressed */
	struct strbuf zin;	/* records not yet compressed */
};

static void add64(struct strbuf *b, uint64_t v)
{
	strbuf_add(b, &v, 8);
}

static void add32(struct strbuf *b, uint32_t v)
{
	strbuf_add(b, &v, 4);
}

static void add_zeros(struct strbuf *b, size_t n)
{
	static const unsigned char z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		strbuf_add(b, z, k);
		n -= k;
	}
}

/* perf's header string: u32 padded length, the string, NUL padding */
static void add_string(struct strbuf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	add32(b, (uint32_t)padded);
	strbuf_add(b, s, n);
	add_zeros(b, padded - n);
}

static int write_err(struct perfwrite *w, char *err, size_t errlen)
{
	if (w->fn)
		return set_err(err, errlen, "the records' reader stopped");
	return set_err(err, errlen, "cannot write '%s': %s", w->tmp,
		       strerror(-w->error));
}

static int flush_buf(struct perfwrite *w)
{
	int r;

	if (w->error)
		return -1;
	if (!w->buf.len)
		return 0;
	r = write_in_full(w->fd, w->buf.buf, w->buf.len);
	strbuf_reset(&w->buf);
	if (r < 0) {
		w->error = r;
		return -1;
	}
	return 0;
}

/*
 * The records staged in w->zin, compressed (one zstd flush: a reader
 * gets whole records once it has read every compressed record of it)
 * into PERF_RECORD_COMPRESSED records of at most PW_RECORD_MAX bytes.
 */
static int zflush(struct perfwrite *w)
{
#ifdef PPR_HAVE_ZSTD
	unsigned char out[PW_RECORD_MAX - 8];
	ZSTD_inBuffer in = { w->zin.buf, w->zin.len, 0 };
	size_t left;

	if (!w->zin.len)
		return 0;
	do {
		ZSTD_outBuffer o = { out, sizeof(out), 0 };
		uint16_t size;

		left = ZSTD_compressStream2(w->zc, &o, &in, ZSTD_e_flush);
		if (ZSTD_isError(left)) {
			w->error = -EIO;
			return -1;
		}
		if (!o.pos)
			continue;
		size = (uint16_t)(8 + o.pos);
		add32(&w->buf, PW_RECORD_COMPRESSED);
		add32(&w->buf, (uint32_t)size << 16);	/* misc 0, size */
		strbuf_add(&w->buf, out, o.pos);
		w->data_bytes += size;
	} while (left);
	strbuf_reset(&w->zin);
	if (w->buf.len >= FLUSH_AT)
		return flush_buf(w);
	return 0;
#else
	(void)w;
	return 0;
#endif
}

int perfwrite_compress(struct perfwrite *w, int level)
{
#ifdef PPR_HAVE_ZSTD
	if (w->fn || w->started || w->zlevel)
		return -1;
	w->zc = ZSTD_createCCtx();
	if (!w->zc ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w->zc,
						ZSTD_c_compressionLevel,
						level))) {
		ZSTD_freeCCtx(w->zc);
		w->zc = NULL;
		return -1;
	}
	w->zlevel = level;
	return 0;
#else
	(void)w;
	(void)level;
	return -1;
#endif
}

int perfwrite_open(struct perfwrite **out, const char *path, char *err,
		   size_t errlen)
{
	struct perfwrite *w = xcalloc(1, sizeof(*w));
	unsigned char zero[HEADER_SIZE];

	*out = NULL;
	w->path = xstrdup(path);
	w->tmp = xasprintf("%s.tmp-XXXXXX", path);
	strbuf_init(&w->buf, 0);
	strbuf_init(&w->rec, 0);
	strbuf_init(&w->zin, 0);
	strvec_init(&w->cmdline);
	/* mkostemp creates it O_EXCL, mode 0600: never through a link */
	w->fd = mkostemp(w->tmp, O_CLOEXEC | O_NOFOLLOW);
	if (w->fd < 0) {
		set_err(err, errlen, "cannot create '%s': %s", w->tmp,
			strerror(errno));
		w->tmp[0] = '\0';
		perfwrite_abort(w);
		return -1;
	}
	memset(zero, 0, sizeof(zero));
	strbuf_add(&w->buf, zero, sizeof(zero));
	*out = w;
	return 0;
}

int perfwrite_open_stream(struct perfwrite **out, perfwrite_record_fn fn,
			  void *data)
{
	struct perfwrite *w = xcalloc(1, sizeof(*w));

	w->fd = -1;
	w->fn = fn;
	w->fn_data = data;
	strbuf_init(&w->buf, 0);
	strbuf_init(&w->rec, 0);
	strbuf_init(&w->zin, 0);
	strvec_init(&w->cmdline);
	*out = w;
	return 0;
}

int perfwrite_add_attr(struct perfwrite *w, const struct perf_event_attr *a,
		       const char *name, uint64_t *id, char *err,
		       size_t errlen)
{
	struct pw_attr *pa;
	uint64_t extra = a->sample_type & ~(uint64_t)SUPPORTED_SAMPLE;

	if (w->started)
		return set_err(err, errlen, "event '%s' added after the first "
			       "record", name);
	if (w->nr_attrs == MAX_ATTRS)
		return set_err(err, errlen, "more than %d events", MAX_ATTRS);
	if (extra)
		return set_err(err, errlen, "event '%s': sample_type 0x%llx "
			       "has fields the writer does not lay out "
			       "(0x%llx)", name,
			       (unsigned long long)a->sample_type,
			       (unsigned long long)extra);
	if ((a->sample_type & PERF_SAMPLE_STACK_USER) &&
	    a->sample_stack_user % 8)
		return set_err(err, errlen, "event '%s': stack dump size %u "
			       "is not a multiple of 8", name,
			       a->sample_stack_user);
	if (w->nr_attrs) {
		const struct perf_event_attr *a0 = &w->attrs[0].attr;

		/* how perf finds a record's event: the same place in all */
		if (!(a->sample_type & a0->sample_type &
		      PERF_SAMPLE_IDENTIFIER))
			return set_err(err, errlen, "event '%s': several "
				       "events need PERF_SAMPLE_IDENTIFIER",
				       name);
		if ((a->sample_type & SAMPLE_ID_BITS) !=
		    (a0->sample_type & SAMPLE_ID_BITS) ||
		    a->sample_id_all != a0->sample_id_all)
			return set_err(err, errlen, "event '%s': its "
				       "sample_id fields differ from the "
				       "first event's", name);
	}
	pa = &w->attrs[w->nr_attrs];
	pa->attr = *a;
	pa->attr.size = sizeof(pa->attr);
	pa->name = xstrdup(name);
	/* ids unique in the file; perf takes any u64 */
	pa->id = 1 + w->nr_attrs;
	pa->nr_regs = (a->sample_type & PERF_SAMPLE_REGS_USER) ?
		      popcount64(a->sample_regs_user) : 0;
	w->nr_attrs++;
	*id = pa->id;
	return 0;
}

void perfwrite_set_cmdline(struct perfwrite *w, const char *const *argv)
{
	strvec_clear(&w->cmdline);
	strvec_pushv(&w->cmdline, argv);
	w->have_cmdline = 1;
}

/*
 * Each attr's id, then the attrs, at file offset base (the ids first):
 * the bytes between the header and the data section.
 */
static void attrs_section(const struct perfwrite *w, struct strbuf *out,
			  uint64_t base)
{
	size_t i;

	for (i = 0; i < w->nr_attrs; i++)
		add64(out, w->attrs[i].id);
	for (i = 0; i < w->nr_attrs; i++) {
		strbuf_add(out, &w->attrs[i].attr, sizeof(w->attrs[i].attr));
		add64(out, base + 8 * i);
		add64(out, 8);
	}
}

/* Before the first record: the attrs are fixed and (file) written. */
static int start(struct perfwrite *w, char *err, size_t errlen)
{
	if (w->started)
		return 0;
	if (!w->nr_attrs)
		return set_err(err, errlen, "a record before any event");
	if (!w->fn) {
		attrs_section(w, &w->buf, HEADER_SIZE);
		w->data_off = w->buf.len;
	}
	w->started = 1;
	return 0;
}

/* The fixed part of the header: sizes, attrs and data sections. */
static void header(const struct perfwrite *w, unsigned char *h,
		   uint64_t data_off, uint64_t data_size)
{
	uint64_t v;

	memcpy(h, "PERFILE2", 8);
	v = HEADER_SIZE;
	memcpy(h + 8, &v, 8);
	v = sizeof(struct perf_event_attr) + 16;
	memcpy(h + 16, &v, 8);
	v = HEADER_SIZE + 8 * w->nr_attrs;
	memcpy(h + 24, &v, 8);
	v = w->nr_attrs * (sizeof(struct perf_event_attr) + 16);
	memcpy(h + 32, &v, 8);
	memcpy(h + 40, &data_off, 8);
	memcpy(h + 48, &data_size, 8);
	/* event types (h + 56): none */
}

static void features(const struct perfwrite *w, uint64_t at,
		     unsigned char *bits, struct strbuf *file);

int perfwrite_image(const struct perfwrite *w, unsigned char **buf,
		    size_t *len, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char h[HEADER_SIZE];

	if (!w->nr_attrs)
		return set_err(err, errlen, "no events");
	uint64_t at;

	memset(h, 0, sizeof(h));
	strbuf_add(&sb, h, sizeof(h));
	attrs_section(w, &sb, HEADER_SIZE);
	at = sb.len;
	/*
	 * the features after an empty data section: the events' names
	 * (HEADER_EVENT_DESC) tell a reader what each one is (two of the
	 * walker's are BPF output events, told apart by name only)
	 */
	features(w, at, (unsigned char *)sb.buf + 72, &sb);
	header(w, (unsigned char *)sb.buf, at, 0);
	*buf = (unsigned char *)strbuf_detach(&sb, len);
	return 0;
}

static const struct pw_attr *attr_of(const struct perfwrite *w, uint64_t id)
{
	size_t i;

	for (i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].id == id)
			return &w->attrs[i];
	return NULL;
}

/* Begin a record in w->rec: its header, size filled by end_record(). */
static int begin_record(struct perfwrite *w, uint32_t type, uint16_t misc,
			char *err, size_t errlen)
{
	uint16_t zero = 0;

	if (w->error)
		return write_err(w, err, errlen);
	if (start(w, err, errlen) < 0)
		return -1;
	strbuf_reset(&w->rec);
	add32(&w->rec, type);
	strbuf_add(&w->rec, &misc, 2);
	strbuf_add(&w->rec, &zero, 2);
	return 0;
}

/* The sample_id trailer of a record that is not a sample. */
static void add_sample_id(struct perfwrite *w, const struct pw_id *id)
{
	const struct pw_attr *a = &w->attrs[0];
	uint64_t t = a->attr.sample_type;

	if (!a->attr.sample_id_all)
		return;
	if (t & PERF_SAMPLE_TID) {
		add32(&w->rec, id ? id->pid : 0);
		add32(&w->rec, id ? id->tid : 0);
	}
	if (t & PERF_SAMPLE_TIME)
		add64(&w->rec, id ? id->time : 0);
	if (t & PERF_SAMPLE_ID)
		add64(&w->rec, a->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		add64(&w->rec, a->id);
	if (t & PERF_SAMPLE_CPU) {
		add32(&w->rec, id ? id->cpu : 0);
		add32(&w->rec, 0);
	}
	if (t & PERF_SAMPLE_IDENTIFIER)
		add64(&w->rec, a->id);
}

static int end_record(struct perfwrite *w, char *err, size_t errlen)
{
	uint16_t size;

	add_zeros(&w->rec, (8 - w->rec.len % 8) % 8);
	if (w->rec.len > PW_RECORD_MAX)
		return set_err(err, errlen, "a record of %zu bytes (perf's "
			       "records hold at most %u)", w->rec.len,
			       PW_RECORD_MAX);
	size = (uint16_t)w->rec.len;
	memcpy(w->rec.buf + 6, &size, 2);
	if (w->zlevel) {
		strbuf_add(&w->zin, w->rec.buf, w->rec.len);
		if (w->zin.len >= PERFWRITE_ZSTD_CHUNK && zflush(w) < 0)
			return write_err(w, err, errlen);
		return 0;
	}
	w->data_bytes += w->rec.len;
	if (w->fn) {
		/* a reader that stopped gets nothing more */
		if (w->fn(w->fn_data, w->rec.buf, w->rec.len) < 0) {
			w->error = -EPIPE;
			return write_err(w, err, errlen);
		}
		return 0;
	}
	strbuf_add(&w->buf, w->rec.buf, w->rec.len);
	if (w->buf.len >= FLUSH_AT && flush_buf(w) < 0)
		return write_err(w, err, errlen);
	return 0;
}

int perfwrite_sample(struct perfwrite *w, const struct pw_sample *s,
		     char *err, size_t errlen)
{
	const struct pw_attr *a = attr_of(w, s->id);
	uint64_t t;

	if (!a)
		return set_err(err, errlen, "a sample of unknown event id %llu",
			       (unsigned long long)s->id);
	t = a->attr.sample_type;
	if ((t & PERF_SAMPLE_STACK_USER) &&
	    (s->stack_size % 8 || s->dyn_size > s->stack_size ||
	     s->stack_size > PW_RECORD_MAX))
		return set_err(err, errlen, "a stack dump of %llu bytes with "
			       "%llu copied", (unsigned long long)s->stack_size,
			       (unsigned long long)s->dyn_size);
	if ((t & PERF_SAMPLE_CALLCHAIN) && s->nr_callchain > PW_RECORD_MAX / 8)
		return set_err(err, errlen, "a callchain of %llu entries",
			       (unsigned long long)s->nr_callchain);
	if (begin_record(w, PERF_RECORD_SAMPLE, s->misc, err, errlen) < 0)
		return -1;
	if (t & PERF_SAMPLE_IDENTIFIER)
		add64(&w->rec, a->id);
	if (t & PERF_SAMPLE_IP)
		add64(&w->rec, s->ip);
	if (t & PERF_SAMPLE_TID) {
		add32(&w->rec, s->pid);
		add32(&w->rec, s->tid);
	}
	if (t & PERF_SAMPLE_TIME)
		add64(&w->rec, s->time);
	if (t & PERF_SAMPLE_ID)
		add64(&w->rec, a->id);
	if (t & PERF_SAMPLE_CPU) {
		add32(&w->rec, s->cpu);
		add32(&w->rec, 0);
	}
	if (t & PERF_SAMPLE_PERIOD)
		add64(&w->rec, s->period);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		add64(&w->rec, s->nr_callchain);
		if (s->nr_callchain)
			strbuf_add(&w->rec, s->callchain,
				   8 * (size_t)s->nr_callchain);
	}
	if (t & PERF_SAMPLE_RAW) {
		/* u32 size and the data end 8-byte aligned, as the kernel's */
		size_t padded = (4 + (size_t)s->raw_len + 7) / 8 * 8 - 4;

		add32(&w->rec, (uint32_t)padded);
		if (s->raw_len)
			strbuf_add(&w->rec, s->raw, s->raw_len);
		add_zeros(&w->rec, padded - s->raw_len);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		add64(&w->rec, s->regs_abi);
		if (s->regs_abi)
			strbuf_add(&w->rec, s->regs, 8 * (size_t)a->nr_regs);
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		/* no registers, no dump: the kernel writes only size 0 */
		uint64_t size = s->regs_abi ? s->stack_size : 0;

		add64(&w->rec, size);
		if (size) {
			if (s->dyn_size)
				strbuf_add(&w->rec, s->stack,
					   (size_t)s->dyn_size);
			add_zeros(&w->rec, (size_t)(size - s->dyn_size));
			add64(&w->rec, s->dyn_size);
		}
	}
	if (w->rec.len > PW_RECORD_MAX)
		return set_err(err, errlen, "a sample of %zu bytes (perf's "
			       "records hold at most %u)", w->rec.len,
			       PW_RECORD_MAX);
	if (t & PERF_SAMPLE_TIME) {
		if (!w->have_time || s->time < w->first_time)
			w->first_time = s->time;
		if (!w->have_time || s->time > w->last_time)
			w->last_time = s->time;
		w->have_time = 1;
	}
	return end_record(w, err, errlen);
}

int perfwrite_mmap2(struct perfwrite *w, const struct pw_mmap2 *m,
		    const struct pw_id *id, char *err, size_t errlen)
{
	if (begin_record(w, PERF_RECORD_MMAP2, m->misc, err, errlen) < 0)
		return -1;
	add32(&w->rec, m->pid);
	add32(&w->rec, m->tid);
	add64(&w->rec, m->start);
	add64(&w->rec, m->len);
	add64(&w->rec, m->pgoff);
	add32(&w->rec, m->maj);
	add32(&w->rec, m->min);
	add64(&w->rec, m->ino);
	add64(&w->rec, m->ino_generation);
	add32(&w->rec, m->prot);
	add32(&w->rec, m->flags);
	strbuf_add(&w->rec, m->filename, strlen(m->filename) + 1);
	add_zeros(&w->rec, (8 - w->rec.len % 8) % 8);
	add_sample_id(w, id);
	return end_record(w, err, errlen);
}

int perfwrite_kernel_mmap(struct perfwrite *w, uint64_t text,
			  const struct pw_id *id, char *err, size_t errlen)
{
	static const char name[] = "[kernel.kallsyms]_text";

	if (begin_record(w, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, err,
			 errlen) < 0)
		return -1;
	add32(&w->rec, (uint32_t)-1);	/* pid -1: the kernel */
	add32(&w->rec, 0);
	add64(&w->rec, text);
	add64(&w->rec, ~(uint64_t)0 - text);
	add64(&w->rec, text);		/* the relocation symbol's address */
	strbuf_add(&w->rec, name, sizeof(name));
	add_zeros(&w->rec, (8 - w->rec.len % 8) % 8);
	add_sample_id(w, id);
	return end_record(w, err, errlen);
}

int perfwrite_kernel_text(const char *kallsyms, uint64_t *text)
{
	FILE *f = fopen(kallsyms, "re");
	char line[512], type, name[256];
	unsigned long long addr;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	/* sorted by address: _text comes within the first lines */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    strcmp(name, "_text"))
			continue;
		if (addr) {
			*text = addr;
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

int perfwrite_comm(struct perfwrite *w, uint32_t pid, uint32_t tid,
		   const char *comm, int exec, const struct pw_id *id,
		   char *err, size_t errlen)
{
	uint16_t misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;

	if (begin_record(w, PERF_RECORD_COMM, misc, err, errlen) < 0)
		return -1;
	add32(&w->rec, pid);
	add32(&w->rec, tid);
	strbuf_add(&w->rec, comm, strnlen(comm, 15));
	strbuf_addch(&w->rec, '\0');
	add_zeros(&w->rec, (8 - w->rec.len % 8) % 8);
	add_sample_id(w, id);
	return end_record(w, err, errlen);
}

int perfwrite_task(struct perfwrite *w, uint32_t type, uint32_t pid,
		   uint32_t ppid, uint32_t tid, uint32_t ptid,
		   const struct pw_id *id, char *err, size_t errlen)
{
	if (type != PERF_RECORD_FORK && type != PERF_RECORD_EXIT)
		return set_err(err, errlen, "record type %u is not a task "
			       "record", type);
	if (begin_record(w, type, 0, err, errlen) < 0)
		return -1;
	add32(&w->rec, pid);
	add32(&w->rec, ppid);
	add32(&w->rec, tid);
	add32(&w->rec, ptid);
	add64(&w->rec, id ? id->time : 0);
	add_sample_id(w, id);
	return end_record(w, err, errlen);
}

int perfwrite_lost(struct perfwrite *w, uint64_t ev_id, uint64_t lost,
		   const struct pw_id *id, char *err, size_t errlen)
{
	if (begin_record(w, PERF_RECORD_LOST, 0, err, errlen) < 0)
		return -1;
	add64(&w->rec, ev_id);
	add64(&w->rec, lost);
	add_sample_id(w, id);
	return end_record(w, err, errlen);
}

int perfwrite_record(struct perfwrite *w, uint32_t type, uint16_t misc,
		     const void *body, size_t len, const struct pw_id *id,
		     char *err, size_t errlen)
{
	if (type == PERF_RECORD_SAMPLE || type >= 64)
		return set_err(err, errlen, "record type %u is not one to "
			       "copy with a sample_id", type);
	if (len > PW_RECORD_MAX)
		return set_err(err, errlen, "a record of %zu bytes", len);
	if (begin_record(w, type, misc, err, errlen) < 0)
		return -1;
	if (len)
		strbuf_add(&w->rec, body, len);
	add_zeros(&w->rec, (8 - w->rec.len % 8) % 8);
	add_sample_id(w, id);
	return end_record(w, err, errlen);
}

int perfwrite_finished_round(struct perfwrite *w, char *err, size_t errlen)
{
	int z = w->zlevel;

	if (begin_record(w, PW_RECORD_FINISHED_ROUND, 0, err, errlen) < 0)
		return -1;
	/* compressed: the round's records, then the round, as perf does */
	if (z && zflush(w) < 0)
		return write_err(w, err, errlen);
	w->zlevel = 0;
	if (end_record(w, err, errlen) < 0) {
		w->zlevel = z;
		return -1;
	}
	w->zlevel = z;
	return 0;
}

uint64_t perfwrite_data_bytes(const struct perfwrite *w)
{
	return w->data_bytes;
}

/* One feature's contents into out; its bit and place into the table. */
static void feature(struct strbuf *table, struct strbuf *out,
		    uint64_t base, unsigned char *bits, unsigned feat,
		    const struct strbuf *body)
{
	bits[feat / 8] |= (unsigned char)(1u << (feat % 8));
	add64(table, base + out->len);
	add64(table, body->len);
	strbuf_add(out, body->buf, body->len);
}

/*
 * The feature sections, in bit order (perf's table follows the bits):
 * facts of this machine, the command, the events, the sample times.
 */
static void features(const struct perfwrite *w, uint64_t at,
		     unsigned char *bits, struct strbuf *file)
{
	struct strbuf table = STRBUF_INIT, out = STRBUF_INIT;
	struct strbuf f = STRBUF_INIT;
	struct utsname u;
	unsigned nr = 0, i;
	uint64_t base;
	long conf, onln;
	size_t k;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	nr = 6 + !!w->have_cmdline + !!w->have_time + !!w->zlevel;
	base = at + 16ull * nr;

	add_string(&f, u.nodename);
	feature(&table, &out, base, bits, FEAT_HOSTNAME, &f);
	strbuf_reset(&f);
	add_string(&f, u.release);
	feature(&table, &out, base, bits, FEAT_OSRELEASE, &f);
	strbuf_reset(&f);
#ifdef PPR_VERSION
	add_string(&f, "pyperf-run " PPR_VERSION);
#else
	add_string(&f, "pyperf-run");
#endif
	feature(&table, &out, base, bits, FEAT_VERSION, &f);
	strbuf_reset(&f);
	add_string(&f, u.machine);
	feature(&table, &out, base, bits, FEAT_ARCH, &f);
	strbuf_reset(&f);
	conf = sysconf(_SC_NPROCESSORS_CONF);
	onln = sysconf(_SC_NPROCESSORS_ONLN);
	add32(&f, conf > 0 ? (uint32_t)conf : 1);
	add32(&f, onln > 0 ? (uint32_t)onln : 1);
	feature(&table, &out, base, bits, FEAT_NRCPUS, &f);
	strbuf_reset(&f);
	if (w->have_cmdline) {
		add32(&f, (uint32_t)w->cmdline.nr);
		for (k = 0; k < w->cmdline.nr; k++)
			add_string(&f, w->cmdline.v[k]);
		feature(&table, &out, base, bits, FEAT_CMDLINE, &f);
		strbuf_reset(&f);
	}
	/* each event: attr, number of ids, name, ids */
	add32(&f, (uint32_t)w->nr_attrs);
	add32(&f, (uint32_t)sizeof(struct perf_event_attr));
	for (i = 0; i < w->nr_attrs; i++) {
		strbuf_add(&f, &w->attrs[i].attr,
			   sizeof(w->attrs[i].attr));
		add32(&f, 1);
		add_string(&f, w->attrs[i].name);
		add64(&f, w->attrs[i].id);
	}
	feature(&table, &out, base, bits, FEAT_EVENT_DESC, &f);
	strbuf_reset(&f);
	if (w->have_time) {
		add64(&f, w->first_time);
		add64(&f, w->last_time);
		feature(&table, &out, base, bits, FEAT_SAMPLE_TIME, &f);
		strbuf_reset(&f);
	}
	if (w->zlevel) {
		/* version, type, level, ratio (not kept), mmap_len */
		add32(&f, 1);
		add32(&f, PW_COMP_ZSTD);
		add32(&f, (uint32_t)w->zlevel);
		add32(&f, 0);
		add32(&f, PW_ZSTD_MMAP_LEN);
		feature(&table, &out, base, bits, FEAT_COMPRESSED, &f);
	}
	strbuf_add(file, table.buf, table.len);
	strbuf_add(file, out.buf, out.len);
	strbuf_release(&table);
	strbuf_release(&out);
	strbuf_release(&f);
}

int perfwrite_close(struct perfwrite *w, char *err, size_t errlen)
{
	unsigned char h[HEADER_SIZE];
	uint64_t at;
	int r;

	if (w->fn) {
		perfwrite_abort(w);	/* nothing of its own to write */
		return 0;
	}
	if (start(w, err, errlen) < 0) {
		perfwrite_abort(w);
		return -1;
	}
	if (zflush(w) < 0)
		goto fail_write;
	at = w->data_off + w->data_bytes;
	memset(h, 0, sizeof(h));
	features(w, at, h + 72, &w->buf);
	if (flush_buf(w) < 0)
		goto fail_write;
	header(w, h, w->data_off, w->data_bytes);
	if (pwrite(w->fd, h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		w->error = errno ? -errno : -EIO;
		goto fail_write;
	}
	r = close(w->fd);
	w->fd = -1;
	if (r < 0) {
		w->error = -errno;
		goto fail_write;
	}
	if (rename(w->tmp, w->path) < 0) {
		set_err(err, errlen, "cannot rename '%s' to '%s': %s", w->tmp,
			w->path, strerror(errno));
		perfwrite_abort(w);
		return -1;
	}
	w->tmp[0] = '\0';	/* nothing left to remove */
	perfwrite_abort(w);
	return 0;
fail_write:
	write_err(w, err, errlen);
	perfwrite_abort(w);
	return -1;
}

void perfwrite_abort(struct perfwrite *w)
{
	size_t i;

	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp && w->tmp[0])
		unlink(w->tmp);
	for (i = 0; i < w->nr_attrs; i++)
		free(w->attrs[i].name);
	strbuf_release(&w->buf);
	strbuf_release(&w->rec);
	strbuf_release(&w->zin);
#ifdef PPR_HAVE_ZSTD
	ZSTD_freeCCtx(w->zc);
#endif
	strvec_clear(&w->cmdline);
	free(w->path);
	free(w->tmp);
	free(w);
}
