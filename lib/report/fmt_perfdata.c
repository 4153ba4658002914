/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bpf-mode session as a perf.data perf reads with the Python frames
 * in place (fmt_perfdata.h).  Three steps:
 *   1. the session's perf.data is walked once for the records that are
 *      not samples: copied (without their sample_id trailer, which is
 *      written again for the new file's events), sorted by time, and
 *      every process mapping noted, to place the Python frames'
 *      mapping where no process of the session mapped anything;
 *   2. the report's pipeline runs (profile_load_tap()), and each
 *      sample it takes is written, in time order, after the records
 *      not later than it, with its merged stack as a callchain; a
 *      process's synthetic mapping goes right before its first sample
 *      (and again after an exec, or when the pid is a new process);
 *   3. the perf map files are written into a new directory that
 *      replaces maps_dir, the rest of the records, and the file is
 *      closed (perfwrite puts it in place last).
 */
#include "compat.h"
#include "report/fmt_perfdata.h"
#include "alloc.h"
#include "byteorder.h"
#include "fileio.h"
#include "numparse.h"
#include "perfdata.h"
#include "perfwrite.h"
#include "report/pipeline_priv.h"
#include "session.h"
#include "strbuf.h"
#include "hmap.h"

#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The Python frames' mapping: 16 bytes a frame (perf names an address
 * by the slot it falls in), 1 GiB of address space (64 Mi frames per
 * process), at the same address in every process.  Where: the first
 * 1 GiB-aligned range from 16 TiB up that overlaps no mapping any
 * process of the session had (MMAP and MMAP2 records, the kernel's
 * left out).  On x86-64 a process's heap starts near 0x55..., its
 * libraries and stacks near 0x7f..., so 16 TiB is normally free and
 * the first candidate; the search moves past whatever is there.
 */
#define SLOT_SIZE	16u
#define HOLE_SIZE	(1ull << 30)
#define HOLE_LOW	(1ull << 44)
#define HOLE_HIGH	(1ull << 47)	/* x86-64's user half */
#define MAX_SLOTS	(HOLE_SIZE / SLOT_SIZE)

/* Callchain entries a sample may have: perf's records are u16-sized. */
#define MAX_CHAIN	((PW_RECORD_MAX - 128) / 8)

/* Rounds: perf sorts the records between two FINISHED_ROUNDs. */
#define ROUND_EVERY	4096

#define KERNEL_ADDR(ip) ((ip) >> 63)

/* perf record's own types we carry over; the rest are left out */
static int carried(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_LOST:
	case PERF_RECORD_COMM:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_KSYMBOL:
		return 1;
	default:
		return 0;
	}
}

/* A record of the session's, copied, waiting for its time. */
struct held {
	uint64_t time, seq;
	struct pw_id id;
	uint32_t type;
	uint16_t misc;
	size_t off, len;	/* its body in the arena, no trailer */
};

struct range {
	uint64_t start, end;
};

/* A process's Python frames. */
struct eproc {
	pid_t pid;
	uint32_t nr_slots;
	int mapped;		/* its mapping is written (this incarnation) */
	struct strbuf lines;	/* its perf map */
};

struct exporter {
	const struct export_perf_opts *o;
	struct export_perf_stats *st;
	struct perfwrite *w;
	uint64_t cpu_id, off_id;
	int have_off;
	/* step 1 */
	struct held *held;
	size_t nr_held, alloc_held, next_held;
	struct strbuf arena;
	struct range *ranges;
	size_t nr_ranges, alloc_ranges;
	uint64_t hole;
	/* step 2 */
	struct umap procs;	/* pid -> struct eproc */
	struct smap slots;	/* "pid\tname" -> slot + 1 */
	struct strbuf name;
	uint64_t *chain;
	size_t chain_alloc;
	uint64_t since_round;
	int failed;
	char *err;
	size_t errlen;
};

/* ---- step 1: the records that are not samples ------------------------ */

/* The bytes of the sample_id trailer of attr a's records. */
static size_t trailer_size(const struct pd_attr *a)
{
	uint64_t t = a->sample_type;

	if (!(a->flags & (1ull << 18)))	/* sample_id_all */
		return 0;
	return 8 * (size_t)(!!(t & PERF_SAMPLE_TID) +
			    !!(t & PERF_SAMPLE_TIME) +
			    !!(t & PERF_SAMPLE_ID) +
			    !!(t & PERF_SAMPLE_STREAM_ID) +
			    !!(t & PERF_SAMPLE_CPU) +
			    !!(t & PERF_SAMPLE_IDENTIFIER));
}

/* pid, tid, time, cpu from a trailer (fields absent stay 0). */
static void read_trailer(const struct pd_attr *a, const unsigned char *p,
			 struct pw_id *id)
{
	uint64_t t = a->sample_type;

	if (t & PERF_SAMPLE_TID) {
		id->pid = get_le32(p);
		id->tid = get_le32(p + 4);
		p += 8;
	}
	if (t & PERF_SAMPLE_TIME) {
		id->time = get_le64(p);
		p += 8;
	}
	if (t & PERF_SAMPLE_ID)
		p += 8;
	if (t & PERF_SAMPLE_STREAM_ID)
		p += 8;
	if (t & PERF_SAMPLE_CPU)
		id->cpu = get_le32(p);
}

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void note_mapping(struct exporter *e, const struct pd_record *r)
{
	struct pd_mmap m;

	if (perfdata_decode_mmap(r, &m) < 0 || m.pid == -1 || !m.len ||
	    m.start >= HOLE_HIGH)
		return;
	ALLOC_GROW(e->ranges, e->nr_ranges + 1, e->alloc_ranges);
	e->ranges[e->nr_ranges].start = m.start;
	e->ranges[e->nr_ranges].end = m.start + m.len < m.start ?
				      UINT64_MAX : m.start + m.len;
	e->nr_ranges++;
}

/* The Python frames' mapping: see HOLE_LOW. */
static int place_hole(struct exporter *e)
{
	uint64_t at = HOLE_LOW;
	size_t i;

	if (e->nr_ranges > 1)
		qsort(e->ranges, e->nr_ranges, sizeof(*e->ranges),
		      range_cmp);
	for (i = 0; i < e->nr_ranges; i++) {
		const struct range *r = &e->ranges[i];

		if (r->end <= at)
			continue;
		if (r->start >= at + HOLE_SIZE)
			break;
		/* in the way: past it, aligned */
		at = (r->end + HOLE_SIZE - 1) & ~(HOLE_SIZE - 1);
		if (!at || at + HOLE_SIZE > HOLE_HIGH)
			return set_err(e->err, e->errlen, "no free GiB of "
				       "address space for the Python "
				       "frames' mapping");
	}
	e->hole = at;
	e->st->map_start = at;
	return 0;
}

static int read_records(struct exporter *e, const char *perf_data)
{
	struct perfdata d;
	struct pd_record r;
	uint64_t last = 0, seq = 0;
	size_t tsize, i;

	if (perfdata_open(&d, perf_data, e->err, e->errlen) < 0)
		return -1;
	if (!d.nr_attrs) {
		perfdata_close(&d);
		return set_err(e->err, e->errlen, "'%s' has no events",
			       perf_data);
	}
	tsize = trailer_size(&d.attrs[0]);
	for (i = 0; i < d.nr_attrs; i++)
		if (d.attrs[i].name &&
		    !strcmp(d.attrs[i].name, "offcpu-time"))
			e->have_off = 1;
	while (perfdata_next_record(&d, &r) > 0) {
		struct held *h;
		uint64_t t;

		if (!carried(r.type))
			continue;
		if (r.type == PERF_RECORD_MMAP || r.type == PERF_RECORD_MMAP2)
			note_mapping(e, &r);
		if (perfdata_record_time(&d, &r, &t) < 0)
			t = last;	/* keeps its place */
		last = t;
		ALLOC_GROW(e->held, e->nr_held + 1, e->alloc_held);
		h = &e->held[e->nr_held];
		memset(h, 0, sizeof(*h));
		h->time = t;
		h->seq = seq++;
		h->type = r.type;
		h->misc = r.misc;
		h->len = r.len;
		if (tsize && r.len >= tsize) {
			h->len = r.len - tsize;
			read_trailer(&d.attrs[0], r.body + h->len, &h->id);
		}
		h->id.time = t;
		h->off = e->arena.len;
		strbuf_add(&e->arena, r.body, h->len);
		e->nr_held++;
	}
	perfdata_close(&d);
	if (e->nr_held > 1)
		qsort(e->held, e->nr_held, sizeof(*e->held), held_cmp);
	return 0;
}

/* ---- step 2: the samples ---------------------------------------------- */

static struct eproc *proc_get(struct exporter *e, pid_t pid)
{
	struct umap_ent *ent = umap_get(&e->procs, (uint64_t)(uint32_t)pid,
					NULL);

	if (!ent->val) {
		struct eproc *p = xcalloc(1, sizeof(*p));

		p->pid = pid;
		strbuf_init(&p->lines, 0);
		ent->val = p;
	}
	return ent->val;
}

/* A new program or a new process in pid: its mapping is written again. */
static void proc_unmapped(struct exporter *e, pid_t pid)
{
	struct umap_ent *ent = umap_find(&e->procs, (uint64_t)(uint32_t)pid);

	if (ent && ent->val)
		((struct eproc *)ent->val)->mapped = 0;
}

static int fail(struct exporter *e)
{
	e->failed = 1;
	return -1;
}

static int write_held(struct exporter *e, const struct held *h)
{
	const unsigned char *b = (const unsigned char *)e->arena.buf + h->off;
	int r;

	if (h->type == PERF_RECORD_LOST && h->len >= 16) {
		/* the event it names is ours now */
		r = perfwrite_lost(e->w, e->cpu_id, get_le64(b + 8), &h->id,
				   e->err, e->errlen);
	} else {
		if ((h->type == PERF_RECORD_FORK ||
		     h->type == PERF_RECORD_EXIT) && h->len >= 16) {
			uint32_t pid = get_le32(b), ppid = get_le32(b + 4);
			uint32_t tid = get_le32(b + 8);

			/* a new process, or its end: the pid's next one */
			if (pid == tid && (h->type == PERF_RECORD_EXIT ||
					   pid != ppid))
				proc_unmapped(e, (pid_t)pid);
		}
		if (h->type == PERF_RECORD_COMM &&
		    (h->misc & PERF_RECORD_MISC_COMM_EXEC) && h->len >= 4)
			proc_unmapped(e, (pid_t)get_le32(b));
		r = perfwrite_record(e->w, h->type, h->misc, b, h->len,
				     &h->id, e->err, e->errlen);
	}
	if (r < 0)
		return fail(e);
	e->st->records++;
	return 0;
}

/* The held records up to time t (all of them: UINT64_MAX). */
static int write_held_until(struct exporter *e, uint64_t t)
{
	while (e->next_held < e->nr_held && e->held[e->next_held].time <= t)
		if (write_held(e, &e->held[e->next_held++]) < 0)
			return -1;
	return 0;
}

/* The name of a Python frame, as the report's formats show it. */
static void frame_name(struct strbuf *sb, const struct sample_frame *f)
{
	size_t i, start = sb->len;

	strbuf_add(sb, f->sym.s, f->sym.len);
	if (f->dso.len) {
		strbuf_addstr(sb, " (");
		strbuf_add(sb, f->dso.s, f->dso.len);
		if (f->line)
			strbuf_addf(sb, ":%u", (unsigned)f->line);
		strbuf_addch(sb, ')');
	}
	/* one line of the map file each */
	for (i = start; i < sb->len; i++)
		if ((unsigned char)sb->buf[i] < 0x20 || sb->buf[i] == 0x7f)
			sb->buf[i] = ' ';
}

/* The slot of name (len bytes) in pid's mapping: its address. */
static uint64_t slot(struct exporter *e, pid_t pid, const char *name,
		     size_t len)
{
	struct strbuf key = STRBUF_INIT;
	struct smap_ent *ent;
	struct eproc *p;
	int added;
	uint64_t at;

	strbuf_addf(&key, "%d\t", (int)pid);
	strbuf_add(&key, name, len);
	ent = smap_get(&e->slots, key.buf, key.len, &added);
	strbuf_release(&key);
	if (!added)
		return (uint64_t)(uintptr_t)ent->val;
	p = proc_get(e, pid);
	if (p->nr_slots == MAX_SLOTS) {
		/* 64 Mi distinct frames: the last slot says so */
		at = e->hole + (MAX_SLOTS - 1) * SLOT_SIZE;
		ent->val = (void *)(uintptr_t)at;
		return at;
	}
	if (p->nr_slots == MAX_SLOTS - 1) {
		name = "[too many Python frames]";
		len = strlen(name);
	}
	at = e->hole + (uint64_t)p->nr_slots++ * SLOT_SIZE;
	ent->val = (void *)(uintptr_t)at;
	if (p->nr_slots == 1)
		e->st->processes++;
	e->st->slots++;
	strbuf_addf(&p->lines, "%llx %x ", (unsigned long long)at, SLOT_SIZE);
	strbuf_add(&p->lines, name, len);
	strbuf_addch(&p->lines, '\n');
	return at;
}

static uint64_t python_slot(struct exporter *e, pid_t pid,
			    const struct sample_frame *f)
{
	strbuf_reset(&e->name);
	frame_name(&e->name, f);
	return slot(e, pid, e->name.buf, e->name.len);
}

static uint64_t named_slot(struct exporter *e, pid_t pid, const char *name)
{
	return slot(e, pid, name, strlen(name));
}

static int map_process(struct exporter *e, const struct sample *s)
{
	struct eproc *p = proc_get(e, s->pid);
	struct pw_mmap2 m;
	struct pw_id id;

	if (p->mapped)
		return 0;
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = (uint32_t)s->pid;
	m.start = e->hole;
	m.len = HOLE_SIZE;
	m.prot = PROT_READ | PROT_EXEC;
	m.flags = MAP_PRIVATE | MAP_ANONYMOUS;
	m.filename = "//anon";
	m.misc = PERF_RECORD_MISC_USER;
	memset(&id, 0, sizeof(id));
	id.pid = id.tid = (uint32_t)s->pid;
	id.time = s->time_ns;
	id.cpu = s->cpu >= 0 ? (uint32_t)s->cpu : 0;
	if (perfwrite_mmap2(e->w, &m, &id, e->err, e->errlen) < 0)
		return fail(e);
	p->mapped = 1;
	return 0;
}

static void push(struct exporter *e, size_t *n, uint64_t v)
{
	ALLOC_GROW(e->chain, *n + 1, e->chain_alloc);
	e->chain[(*n)++] = v;
}

/* The pipeline's tap: one sample, judged. */
static void on_sample(void *data, const struct sample *s, enum stack_cut cut)
{
	struct exporter *e = data;
	struct pw_sample ps;
	size_t i, n = 0, nk = 0, limit, markers = 0;
	uint64_t hole_end;
	int kernel_leaf;

	if (e->failed)
		return;
	if (s->time_ns && write_held_until(e, s->time_ns) < 0)
		return;
	if (map_process(e, s) < 0)
		return;
	hole_end = e->hole + HOLE_SIZE;
	while (nk < s->nr_frames && s->frames[nk].kind == SAMPLE_FRAME_ADDR &&
	       KERNEL_ADDR(s->frames[nk].ip))
		nk++;
	/* room for the markers and the cut frame */
	limit = MAX_CHAIN - 3;
	if (nk) {
		push(e, &n, PERF_CONTEXT_KERNEL);
		markers++;
		for (i = 0; i < nk && i < limit; i++)
			push(e, &n, s->frames[i].ip);
	}
	if (nk < s->nr_frames || cut != CUT_NONE) {
		push(e, &n, PERF_CONTEXT_USER);
		markers++;
		for (i = nk; i < s->nr_frames && n < limit; i++) {
			const struct sample_frame *f = &s->frames[i];
			uint64_t ip = f->ip;

			if (f->kind == SAMPLE_FRAME_PYTHON)
				ip = python_slot(e, s->pid, f);
			else if (ip >= e->hole && ip < hole_end)
				/* never named as a Python frame */
				ip = named_slot(e, s->pid, "[unknown]");
			push(e, &n, ip);
		}
		if (i < s->nr_frames) {
			e->st->too_deep++;
			push(e, &n, named_slot(e, s->pid, "[incomplete stack: "
					       "too deep for perf.data]"));
		} else if (cut != CUT_NONE) {
			push(e, &n, named_slot(e, s->pid,
					       judge_cut_names[cut]));
		}
		if (i < s->nr_frames || cut != CUT_NONE)
			e->st->cut++;
	}
	memset(&ps, 0, sizeof(ps));
	kernel_leaf = nk > 0;
	ps.id = s->offcpu ? e->off_id : e->cpu_id;
	ps.misc = kernel_leaf ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	/* the leaf: the first entry after the first marker */
	ps.ip = n > 1 ? e->chain[1] : 0;
	ps.pid = (uint32_t)s->pid;
	ps.tid = (uint32_t)s->tid;
	ps.time = s->time_ns;
	ps.cpu = s->cpu >= 0 ? (uint32_t)s->cpu : 0;
	ps.period = s->offcpu ? s->weight : s->period ? s->period : 1;
	ps.callchain = e->chain;
	ps.nr_callchain = n;
	if (s->offcpu && !e->off_id) {
		/* no offcpu-time event in the file: cannot happen */
		set_err(e->err, e->errlen, "an off-CPU interval in a "
			"session without the offcpu-time event");
		fail(e);
		return;
	}
	if (perfwrite_sample(e->w, &ps, e->err, e->errlen) < 0) {
		fail(e);
		return;
	}
	e->st->samples++;
	if (s->offcpu)
		e->st->offcpu++;
	if (n - markers > e->st->max_chain)
		e->st->max_chain = n - markers;
	if (++e->since_round >= ROUND_EVERY) {
		e->since_round = 0;
		if (perfwrite_finished_round(e->w, e->err, e->errlen) < 0)
			fail(e);
	}
}

/* ---- step 3: the perf maps -------------------------------------------- */

static int is_ours(const char *n)
{
	size_t len = strlen(n);

	return !strcmp(n, "export.stats") ||
	       (len > 9 && !strncmp(n, "perf-", 5) &&
		!strcmp(n + len - 4, ".map"));
}

/* Remove dir, which may hold only files export_perf() writes. */
static int remove_maps_dir(const char *dir, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	struct stat sb;

	if (lstat(dir, &sb) < 0)
		return errno == ENOENT ? 0 :
		       set_err(err, errlen, "cannot read '%s': %s", dir,
			       strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return set_err(err, errlen, "'%s' is in the way (not a "
			       "directory)", dir);
	d = opendir(dir);
	if (!d)
		return set_err(err, errlen, "cannot read '%s': %s", dir,
			       strerror(errno));
	while ((de = readdir(d))) {
		char *path;

		if (!is_ours(de->d_name))
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		unlink(path);
		free(path);
	}
	closedir(d);
	if (rmdir(dir) < 0)
		return set_err(err, errlen, "cannot replace '%s': %s%s", dir,
			       strerror(errno), errno == ENOTEMPTY ?
			       " (it holds files of its own)" : "");
	return 0;
}

static int write_new_file(const char *path, const struct strbuf *sb,
			  char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);
	int r;

	if (fd < 0)
		return set_err(err, errlen, "cannot create '%s': %s", path,
			       strerror(errno));
	r = write_in_full(fd, sb->buf, sb->len);
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	if (r < 0)
		return set_err(err, errlen, "cannot write '%s': %s", path,
			       strerror(-r));
	return 0;
}

static void stats_text(const struct export_perf_stats *st, struct strbuf *sb)
{
	strbuf_addf(sb, "samples=%llu\noffcpu=%llu\ncut=%llu\n"
		    "too_deep=%llu\nleft_out=%llu\nrecords=%llu\n"
		    "processes=%llu\nslots=%llu\nmax_chain=%llu\n"
		    "map_start=%llu\n",
		    (unsigned long long)st->samples,
		    (unsigned long long)st->offcpu,
		    (unsigned long long)st->cut,
		    (unsigned long long)st->too_deep,
		    (unsigned long long)st->left_out,
		    (unsigned long long)st->records,
		    (unsigned long long)st->processes,
		    (unsigned long long)st->slots,
		    (unsigned long long)st->max_chain,
		    (unsigned long long)st->map_start);
}

int export_perf_stats_read(const char *maps_dir,
			   struct export_perf_stats *st)
{
	static const char *const keys[] = {
		"samples", "offcpu", "cut", "too_deep", "left_out",
		"records", "processes", "slots", "max_chain", "map_start",
	};
	uint64_t *vals[] = {
		&st->samples, &st->offcpu, &st->cut, &st->too_deep,
		&st->left_out, &st->records, &st->processes, &st->slots,
		&st->max_chain, &st->map_start,
	};
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/export.stats", maps_dir), *line, *next;
	size_t k, found = 0;

	memset(st, 0, sizeof(*st));
	if (strbuf_read_file(&sb, path, 1 << 16) < 0) {
		free(path);
		strbuf_release(&sb);
		return -1;
	}
	free(path);
	for (line = sb.buf; *line; line = next) {
		char *eq = strchr(line, '=');

		next = strchr(line, '\n');
		if (!next)
			next = line + strlen(line);
		else
			*next++ = '\0';
		if (!eq)
			continue;
		*eq = '\0';
		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			unsigned long v;

			if (!strcmp(line, keys[k]) &&
			    !parse_ulong(eq + 1, 10, ULONG_MAX, &v)) {
				*vals[k] = v;
				found++;
			}
		}
	}
	strbuf_release(&sb);
	return found == ARRAY_SIZE(keys) ? 0 : -1;
}

/*
 * The maps (and the stats) into a new directory next to maps_dir,
 * which then replaces it.
 */
static int write_maps(struct exporter *e)
{
	const char *dir = e->o->maps_dir;
	char *tmp = xasprintf("%s.tmp-XXXXXX", dir), *path;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!mkdtemp(tmp)) {
		set_err(e->err, e->errlen, "cannot create '%s': %s", tmp,
			strerror(errno));
		free(tmp);
		return -1;
	}
	for (i = 0; i < e->procs.cap; i++) {
		struct eproc *p = e->procs.ents[i].used ?
				  e->procs.ents[i].val : NULL;

		if (!p || !p->nr_slots)
			continue;
		path = xasprintf("%s/perf-%d.map", tmp, (int)p->pid);
		if (write_new_file(path, &p->lines, e->err, e->errlen) < 0) {
			free(path);
			goto fail;
		}
		free(path);
	}
	stats_text(e->st, &sb);
	path = xasprintf("%s/export.stats", tmp);
	if (write_new_file(path, &sb, e->err, e->errlen) < 0) {
		free(path);
		goto fail;
	}
	free(path);
	if (remove_maps_dir(dir, e->err, e->errlen) < 0)
		goto fail;
	if (rename(tmp, dir) < 0) {
		set_err(e->err, e->errlen, "cannot rename '%s' to '%s': %s",
			tmp, dir, strerror(errno));
		goto fail;
	}
	strbuf_release(&sb);
	free(tmp);
	return 0;
fail:
	remove_maps_dir(tmp, NULL, 0);
	strbuf_release(&sb);
	free(tmp);
	return -1;
}

/* ---- the whole ---------------------------------------------------------- */

/* The events, from the session's meta (the sampling frequency). */
static int add_events(struct exporter *e, const struct session *s)
{
	struct perf_event_attr a;
	unsigned long freq;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	if (!parse_ulong(session_meta_get(&s->meta, "frequency"), 10,
			 1000000, &freq) && freq) {
		a.freq = 1;
		a.sample_freq = freq;
	} else {
		a.sample_period = 1;
	}
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a.sample_id_all = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 1;
	/* the walker's clock: bpf_ktime_get_ns() */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	if (perfwrite_add_attr(e->w, &a, "cpu-clock", &e->cpu_id, e->err,
			       e->errlen) < 0)
		return -1;
	if (!e->have_off)
		return 0;
	/* as wconv.c writes it: perf record --off-cpu's event */
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.freq = 0;
	a.sample_period = 1;
	a.mmap = a.mmap2 = a.comm = a.comm_exec = a.task = 0;
	return perfwrite_add_attr(e->w, &a, "offcpu-time", &e->off_id,
				  e->err, e->errlen);
}

static void exporter_release(struct exporter *e)
{
	size_t i;

	for (i = 0; i < e->procs.cap; i++)
		if (e->procs.ents[i].used && e->procs.ents[i].val) {
			struct eproc *p = e->procs.ents[i].val;

			strbuf_release(&p->lines);
			free(p);
		}
	umap_release(&e->procs);
	smap_release(&e->slots, NULL);
	strbuf_release(&e->name);
	strbuf_release(&e->arena);
	free(e->held);
	free(e->ranges);
	free(e->chain);
	perfwrite_abort(e->w);
}

int export_perf(const struct export_perf_opts *o,
		struct export_perf_stats *st, char *err, size_t errlen)
{
	static const struct profile_filter fdef = PROFILE_FILTER_INIT;
	struct profile_filter f = o->filter ? *o->filter : fdef;
	struct exporter e;
	struct session s;
	struct profile p;
	const char *mode;
	int ret = -1;

	memset(st, 0, sizeof(*st));
	memset(&e, 0, sizeof(e));
	e.o = o;
	e.st = st;
	e.err = err;
	e.errlen = errlen;
	strbuf_init(&e.arena, 0);
	strbuf_init(&e.name, 0);
	if (session_open(&s, o->session, 0, err, errlen) < 0) {
		session_close(&s);
		return -1;
	}
	mode = session_meta_get(&s.meta, "mode");
	if (!mode || strcmp(mode, "bpf")) {
		set_err(err, errlen, "'%s' is a %s-mode session: perf reads "
			"its perf.data as it is (only a session of record "
			"--mode bpf or record -p needs this)", o->session,
			mode ? mode : "perf");
		session_close(&s);
		return -1;
	}
	if (perfdata_check_header(s.perf_data, (uint64_t)s.perf_data_size,
				  err, errlen) < 0 ||
	    read_records(&e, s.perf_data) < 0 || place_hole(&e) < 0 ||
	    perfwrite_open(&e.w, o->out, err, errlen) < 0 ||
	    add_events(&e, &s) < 0)
		goto out;
	if (o->cmdline)
		perfwrite_set_cmdline(e.w, o->cmdline);
	/* the stacks as the report has them: every frame, merged */
	f.reader = PROFILE_READER_NATIVE;
	f.view = PROFILE_VIEW_ALL;
	f.group = PROFILE_MERGED;
	f.spans = 0;
	if (profile_load_tap(&p, o->session, &f, on_sample, &e, err,
			     errlen) < 0) {
		profile_release(&p);
		goto out;
	}
	st->left_out = p.dropped;
	profile_release(&p);
	if (e.failed || write_held_until(&e, UINT64_MAX) < 0 ||
	    perfwrite_finished_round(e.w, err, errlen) < 0 ||
	    write_maps(&e) < 0)
		goto out;
	ret = perfwrite_close(e.w, err, errlen);
	e.w = NULL;
out:
	exporter_release(&e);
	session_close(&s);
	return ret;
}

int export_perf_remove(const char *out, const char *maps_dir, char *err,
		       size_t errlen)
{
	if (unlink(out) < 0 && errno != ENOENT)
		return set_err(err, errlen, "cannot remove '%s': %s", out,
			       strerror(errno));
	return remove_maps_dir(maps_dir, err, errlen);
}

/* Is a not older than b (modification times)? */
static int not_older(const struct stat *a, const struct stat *b)
{
	if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
		return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
	return a->st_mtim.tv_nsec >= b->st_mtim.tv_nsec;
}

int export_perf_fresh(const char *session, const char *out,
		      const char *maps_dir)
{
	static const char *const inputs[] = { "perf.data", "pycode" };
	struct stat so, si, sm;
	size_t i;

	if (stat(out, &so) < 0 || !S_ISREG(so.st_mode) ||
	    lstat(maps_dir, &sm) < 0 || !S_ISDIR(sm.st_mode))
		return 0;
	for (i = 0; i < ARRAY_SIZE(inputs); i++) {
		char *path = xasprintf("%s/%s", session, inputs[i]);
		int r = stat(path, &si);

		free(path);
		if (r < 0) {
			if (errno == ENOENT && i > 0)
				continue;
			return 0;
		}
		if (!not_older(&so, &si))
			return 0;
	}
	return 1;
}
