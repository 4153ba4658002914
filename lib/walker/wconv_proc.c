/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The conversion's processes and threads (see wconv.h): their state, and
 * the reads of /proc when an event arrives: a process's comm and
 * mappings when it is first seen, after an exec, again at a low rate and
 * when a sample is in code loaded since (only
 * the mappings not written before are queued), a thread's comm.
 */
#include "compat.h"
#include "alloc.h"
#include "walker/wconv_priv.h"

#include <sys/stat.h>
#include <unistd.h>

/* --- the processes' and threads' state --------------------------------- */

struct wproc *wconv_proc_find(struct wconv *c, pid_t pid)
{
	struct umap_ent *e = umap_find(&c->procs, (uint64_t)(uint32_t)pid);

	return e ? e->val : NULL;
}

struct wproc *wconv_proc_new(struct wconv *c, pid_t pid)
{
	struct umap_ent *e = umap_get(&c->procs, (uint64_t)(uint32_t)pid,
				      NULL);

	if (!e->val) {
		struct wproc *p = xcalloc(1, sizeof(*p));

		p->pid = pid;
		e->val = p;
	}
	return e->val;
}

void wconv_proc_free(struct wproc *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_maps; i++)
		free(p->maps[i].name);
	free(p->maps);
	free(p->root);
	free(p);
}

struct wthread *wconv_thread_get(struct wconv *c, pid_t pid, pid_t tid)
{
	struct umap_ent *e = umap_get(&c->threads, (uint64_t)(uint32_t)tid,
				      NULL);
	struct wthread *t;

	if (!e->val)
		e->val = xcalloc(1, sizeof(struct wthread));
	t = e->val;
	if (pid)
		t->pid = pid;
	return t;
}

void wconv_procs_release(struct wconv *c)
{
	size_t i;

	for (i = 0; i < c->procs.cap; i++)
		if (c->procs.ents[i].used)
			wconv_proc_free(c->procs.ents[i].val);
	for (i = 0; i < c->threads.cap; i++)
		if (c->threads.ents[i].used && c->threads.ents[i].val) {
			struct wthread *t = c->threads.ents[i].val;

			free(t->off);
			free(t->wake);
			free(t);
		}
	umap_release(&c->procs);
	umap_release(&c->threads);
}

/* --- reads of /proc ------------------------------------------------------ */

/* The first line of proc_root/rel, without its newline; 0 or -1. */
static int read_line(struct wconv *c, const char *rel, struct strbuf *out)
{
	char *path = xasprintf("%s/%s", c->proc_root, rel);
	int r = strbuf_read_file(out, path, 4096);

	free(path);
	if (r < 0)
		return -1;
	out->len = strcspn(out->buf, "\n");
	out->buf[out->len] = '\0';
	return out->len ? 0 : -1;
}

static int map_cmp(const void *a, const void *b)
{
	const struct wmap *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Was m written before (the same mapping in the last read)? */
static int known_map(const struct wproc *p, const struct wmap *m)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct wmap *o = &p->maps[mid];

		if (o->start < m->start) {
			lo = mid + 1;
		} else if (o->start > m->start) {
			hi = mid;
		} else {
			return o->end == m->end && o->pgoff == m->pgoff &&
			       o->ino == m->ino && o->maj == m->maj &&
			       o->min == m->min && o->prot == m->prot &&
			       o->flags == m->flags &&
			       !strcmp(o->name, m->name);
		}
	}
	return 0;
}

static int in_maps(const struct wproc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * One line of /proc/PID/maps: "start-end perms offset maj:min inode
 * path"; 1 for a mapping perf needs (m filled, name not owned), 0
 * otherwise.  Executable mappings are the code; the other mappings of
 * files are there too because unwinding reads them: a binary linked
 * with separate code segments keeps .eh_frame_hdr and .eh_frame in a
 * read-only segment, and perf's unwinder reads the table through the
 * map that covers its address (perf record writes those maps too, as
 * data maps, for --call-graph dwarf).  Anonymous data, the heap and
 * the stack are left out.
 */
static int parse_map(char *line, struct wmap *m)
{
	unsigned long long s, e, off, ino;
	unsigned maj, min;
	char perms[8];
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, perms,
		   &off, &maj, &min, &ino, &n) < 7 || !n || e <= s ||
	    strlen(perms) < 4)
		return 0;
	m->name = line + n;
	if (perms[2] != 'x' && m->name[0] != '/')
		return 0;
	m->start = s;
	m->end = e;
	m->pgoff = off;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	/* PROT_READ, PROT_WRITE, PROT_EXEC */
	m->prot = (perms[0] == 'r' ? 1u : 0) | (perms[1] == 'w' ? 2u : 0) |
		  (perms[2] == 'x' ? 4u : 0);
	m->flags = perms[3] == 's' ? 1u : 2u;	/* MAP_SHARED, MAP_PRIVATE */
	if (!*m->name)
		m->name = "//anon";
	return 1;
}

static void forget_maps(struct wproc *p)
{
	size_t i;

	for (i = 0; i < p->nr_maps; i++)
		free(p->maps[i].name);
	p->nr_maps = 0;
}

/*
 * Where pid's files are seen from here, for the record-time unwinder
 * (unwind_map()'s root): "" when it shares our mount namespace (its
 * maps name its files by their path from our root, a chroot's
 * included); else PROC/PID/root (a container: its paths are its own).
 */
static char *files_root(const struct wconv *c, pid_t pid)
{
	char *ns = xasprintf("%s/%d/ns/mnt", c->proc_root, (int)pid);
	char *self = xasprintf("%s/self/ns/mnt", c->proc_root);
	struct stat a, b;
	int same_ns = stat(ns, &a) < 0 || stat(self, &b) < 0 ||
		      (a.st_dev == b.st_dev && a.st_ino == b.st_ino);

	free(ns);
	free(self);
	return same_ns ? xstrdup("") :
	       xasprintf("%s/%d/root", c->proc_root, (int)pid);
}

/*
 * Read pid's executable mappings now and queue, stamped stamp, those
 * not written before (all of them after forget_maps()).
 */
static void read_maps(struct wconv *c, struct wproc *p, uint64_t time,
		      uint64_t stamp, uint32_t cpu)
{
	struct strbuf sb = STRBUF_INIT;
	struct wmap *nm = NULL, m;
	size_t nr = 0, alloc = 0;
	char *path, *line, *next;

	p->maps_time = time;
	p->maps_read = 1;
	c->st.maps_reads++;
	/* (a chroot() before an exec changes it) */
	free(p->root);
	p->root = files_root(c, p->pid);
	path = xasprintf("%s/%d/maps", c->proc_root, (int)p->pid);
	if (strbuf_read_file(&sb, path, MAPS_MAX_BYTES) < 0) {
		c->st.maps_unread++;
		goto out;
	}
	for (line = sb.buf; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!parse_map(line, &m))
			continue;
		if (!known_map(p, &m))
			wconv_enqueue_int(c, INT_MMAP2, p->pid, p->pid, stamp, cpu,
				    &m, m.name, 0);
		ALLOC_GROW(nm, nr + 1, alloc);
		nm[nr] = m;
		nm[nr++].name = xstrdup(m.name);
	}
	/* (an exiting process's maps file is empty: nothing to sort) */
	if (nr)
		qsort(nm, nr, sizeof(*nm), map_cmp);
	forget_maps(p);
	free(p->maps);
	p->maps = nm;
	p->nr_maps = nr;
	p->alloc_maps = alloc;
out:
	free(path);
	strbuf_release(&sb);
}

/*
 * The time of what is read for a process first seen at time: early
 * enough to come before the events of it that may still arrive (they
 * are at most hold_ns out of order), not before what is written.
 */
static uint64_t first_stamp(const struct wconv *c, uint64_t time)
{
	uint64_t t = time > c->hold_ns ? time - c->hold_ns : 0;

	return t > c->written_limit ? t : c->written_limit;
}

/*
 * A sample of pid/tid arrived: a process first seen gets its COMM and
 * mappings read, a thread first seen its COMM; the mappings are read
 * again every maps_every_ns, and when a user-mode address is in none of
 * them (at most every MAPS_MISS_NS).
 */
void wconv_arrive_sample(struct wconv *c, const struct walker_ev_hdr *h,
			  uint64_t ip)
{
	struct wproc *p = wconv_proc_new(c, (pid_t)h->pid);
	struct wthread *t;
	struct strbuf sb = STRBUF_INIT;
	uint64_t stamp = first_stamp(c, h->time_ns);
	char rel[64];

	if (!p->maps_read) {
		wconv_thread_get(c, (pid_t)h->pid, (pid_t)h->pid)->seen = 1;
		snprintf(rel, sizeof(rel), "%d/comm", (int)h->pid);
		if (!read_line(c, rel, &sb))
			wconv_enqueue_int(c, INT_COMM, (pid_t)h->pid, (pid_t)h->pid,
				    stamp, h->cpu, NULL, sb.buf, 0);
		read_maps(c, p, h->time_ns, stamp, h->cpu);
	} else if (p->exec_time && h->time_ns < p->exec_time + MAPS_EXEC_NS &&
		   h->time_ns >= p->maps_time + MAPS_EXEC_EVERY_NS) {
		/* the loader's mappings, as of the exec (see wconv_priv.h) */
		read_maps(c, p, h->time_ns, p->exec_time > c->written_limit ?
			  p->exec_time : c->written_limit, h->cpu);
	} else if (h->time_ns >= p->maps_time + c->maps_every_ns ||
		   (ip && !(h->flags & WALKER_F_KERNEL_MODE) &&
		    !in_maps(p, ip) &&
		    h->time_ns >= p->maps_time + MAPS_MISS_NS)) {
		/* code loaded since: before this sample, not earlier */
		read_maps(c, p, h->time_ns, h->time_ns, h->cpu);
	}
	t = wconv_thread_get(c, (pid_t)h->pid, (pid_t)h->tid);
	if (!t->seen) {
		t->seen = 1;
		strbuf_reset(&sb);
		snprintf(rel, sizeof(rel), "%d/task/%d/comm", (int)h->pid,
			 (int)h->tid);
		if (!read_line(c, rel, &sb))
			wconv_enqueue_int(c, INT_COMM, (pid_t)h->pid, (pid_t)h->tid,
				    stamp, h->cpu, NULL, sb.buf, 0);
	}
	strbuf_release(&sb);
}

/* A new process inherits what was written of its parent (as perf does). */
void wconv_arrive_fork(struct wconv *c, const struct walker_ev_hdr *h,
			const struct walker_task *tk)
{
	struct wproc *parent, *p;
	struct umap_ent *e;
	size_t i;

	wconv_thread_get(c, (pid_t)h->pid, (pid_t)h->tid)->seen = 1;
	if (h->pid == tk->ppid)
		return;		/* a thread */
	parent = wconv_proc_find(c, (pid_t)tk->ppid);
	e = umap_get(&c->procs, h->pid, NULL);
	wconv_proc_free(e->val);
	e->val = p = xcalloc(1, sizeof(*p));
	p->pid = (pid_t)h->pid;
	if (!parent || !parent->maps_read)
		return;		/* read at its first sample */
	p->hexversion = parent->hexversion;
	p->maps_read = 1;
	p->maps_time = parent->maps_time;
	p->maps = xcalloc(parent->nr_maps + 1, sizeof(*p->maps));
	p->nr_maps = p->alloc_maps = parent->nr_maps;
	for (i = 0; i < parent->nr_maps; i++) {
		p->maps[i] = parent->maps[i];
		p->maps[i].name = xstrdup(parent->maps[i].name);
	}
}

/* A new program: its mappings all read and written again, after its COMM. */
void wconv_arrive_exec(struct wconv *c, const struct walker_ev_hdr *h)
{
	struct wproc *p = wconv_proc_new(c, (pid_t)h->pid);

	wconv_thread_get(c, (pid_t)h->pid, (pid_t)h->tid)->seen = 1;
	p->hexversion = 0;
	p->exec_time = h->time_ns;
	forget_maps(p);
	read_maps(c, p, h->time_ns, h->time_ns, h->cpu);
}

