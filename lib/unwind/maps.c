/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processes and their executable mappings, from the MMAP/MMAP2, FORK
 * and COMM records; where each mapped object is read from; memory
 * reads for the unwinder.  Above elffile.c (and lib/hmap.c) only: see
 * unwind_priv.h.
 *
 * Mappings of a process are sorted and do not overlap: a new mapping
 * cuts the ones it covers, as mmap(2) does.  FORK of a new process
 * copies its parent's (the kernel sends no MMAP for what a child
 * inherits, jitted code included); COMM with the exec flag clears
 * them (it comes before the new program's mmaps).
 */
#include "compat.h"
#include "alloc.h"
#include "byteorder.h"
#include "vdso.h"
#include "unwind/unwind_priv.h"

#include <dirent.h>

const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * The build-id of the session's one vDSO, for a session whose perf.data
 * has none for [vdso] (perf record -z skips its build-id pass): record
 * saves this machine's vDSO as buildid/[vdso]/ID/vdso, and every process
 * of the session ran with it.  NULL when there is none, or more than one
 * (a session put together from several).
 */
static const char *session_vdso_id(struct unwind *u)
{
	char path[4096];
	struct dirent *de;
	const char *id = NULL;
	int n = 0;
	DIR *d;

	if (u->vdso_looked)
		return u->vdso_id;
	u->vdso_looked = 1;
	snprintf(path, sizeof(path), "%s/buildid/[vdso]", u->dir);
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n++)
			id = intern(u, de->d_name, strlen(de->d_name));
	}
	closedir(d);
	u->vdso_id = n == 1 ? id : NULL;
	return u->vdso_id;
}

/*
 * Live (no session): [vdso] is in no file, and every 64-bit process on
 * this kernel maps the image this one does (vdso_self()), so its
 * unwinding tables are read from a copy of ours.  Without them a sample
 * in the vDSO was stepped by its frame pointer, which is not set up at
 * a function's entry or after its epilogue's pop: 1 in 70 samples of a
 * program calling time.monotonic() lost every C caller.  A session has
 * the same image saved (record_save_vdso()).
 */
static struct file *self_vdso(struct unwind *u)
{
	static const char name[] = "[vdso]";
	const unsigned char *img;
	unsigned char *copy;
	struct file *f;
	size_t len;

	f = file_at(u, name);
	if (f->tried)
		return f->map ? f : NULL;
	f->tried = 1;
	if (vdso_self(&img, &len) < 0)
		return NULL;
	copy = xmalloc(len);
	memcpy(copy, img, len);
	f->map = copy;
	f->size = len;
	f->heap = 1;
	return f;
}

/*
 * Where to read the object a record names: the session's build-id
 * cache first (by the build-id perf recorded for that name), then
 * jitted-*.so in the session's jit/ (perf inject wrote them to a
 * temporary directory that is gone), then the path itself.
 */
static struct file *file_get(struct unwind *u, const char *name,
			     const char *inline_id)
{
	char buf[4096];
	const char *id = NULL;
	struct smap_ent *e;

	if (u->dir) {
		e = smap_get(&u->buildids, name, strlen(name), NULL);
		id = e->val;
		if (!id && !strcmp(name, "[vdso]"))
			id = session_vdso_id(u);
	}
	if (id && strlen(id) > 2) {
		snprintf(buf, sizeof(buf), "%s/buildid/.build-id/%.2s/%s/elf",
			 u->dir, id, id + 2);
		if (file_exists(buf))
			return file_at(u, buf);
		if (!strcmp(name, "[vdso]"))
			snprintf(buf, sizeof(buf), "%s/buildid/[vdso]/%s/vdso",
				 u->dir, id);
		else
			snprintf(buf, sizeof(buf), "%s/buildid/%s/%s/elf",
				 u->dir, name[0] == '/' ? name + 1 : name, id);
		if (file_exists(buf))
			return file_at(u, buf);
	}
	if (u->dir && !strncmp(base_name(name), "jitted-", 7)) {
		snprintf(buf, sizeof(buf), "%s/jit/%s", u->dir,
			 base_name(name));
		if (file_exists(buf))
			return file_at(u, buf);
	}
	if (name[0] == '/' && file_exists(name)) {
		struct file *f = file_at(u, name);
		const char *fid;

		/*
		 * Not the object that ran (rebuilt, upgraded): perf does
		 * not use it either, and its symbols would be wrong.
		 */
		if (!id && inline_id)
			id = inline_id;
		if (id && (fid = file_build_id(f)) && strcmp(fid, id))
			return NULL;
		return f;
	}
	if (!u->dir && !strcmp(name, "[vdso]"))
		return self_vdso(u);
	return NULL;
}

/* After a report pass or an exec: pcs may now mean something else. */
void proc_clear_syms(struct proc *p)
{
	umap_release(&p->syms);
}

struct proc *proc_get(struct unwind *u, pid_t pid)
{
	struct umap_ent *e = umap_get(&u->procs, (uint64_t)(uint32_t)pid,
				      NULL);
	struct proc *p = e->val;

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		p->u = u;
		p->pid = pid;
		e->val = p;
	}
	return p;
}

/* The mapping holding addr, or NULL. */
struct mapping *map_find(struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/*
 * Insert [start, end): mappings it covers are dropped, partly covered
 * ones trimmed, as a new mmap() over old ones does.
 */
static void map_insert(struct proc *p, const struct mapping *nm)
{
	struct mapping *out;
	size_t i, n = 0, cap = p->nr + 2, lo = 0, hi = p->nr;

	/* the common case, a hole (new code): one memmove */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start < nm->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if ((!lo || p->maps[lo - 1].end <= nm->start) &&
	    (lo == p->nr || p->maps[lo].start >= nm->end)) {
		ALLOC_GROW(p->maps, p->nr + 1, p->alloc);
		memmove(p->maps + lo + 1, p->maps + lo,
			(p->nr - lo) * sizeof(*p->maps));
		p->maps[lo] = *nm;
		p->nr++;
		p->dirty = 1;
		return;
	}
	out = xcalloc(cap, sizeof(*out));
	for (i = 0; i < p->nr; i++) {
		struct mapping m = p->maps[i];

		if (m.end <= nm->start || m.start >= nm->end) {
			out[n++] = m;
			continue;
		}
		if (m.reported && m.mod)
			p->need_full = 1;
		if (m.start < nm->start) {
			struct mapping l = m;

			l.end = nm->start;
			out[n++] = l;
		}
		if (m.end > nm->end) {
			struct mapping r = m;

			r.pgoff += nm->end - m.start;
			r.start = nm->end;
			r.bias_state = 0;
			if (n + 2 > cap) {
				cap *= 2;
				out = xrealloc(out, cap * sizeof(*out));
			}
			out[n++] = r;
		}
	}
	if (n + 1 > cap) {
		cap = n + 1;
		out = xrealloc(out, cap * sizeof(*out));
	}
	for (i = n; i > 0 && out[i - 1].start > nm->start; i--)
		out[i] = out[i - 1];
	out[i] = *nm;
	n++;
	free(p->maps);
	p->maps = out;
	p->nr = n;
	p->alloc = cap;
	p->dirty = 1;
	proc_clear_syms(p);
}

/* perf's anonymous memory: it names such code after /tmp/perf-PID.map */
static int is_anon(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) ||
	       !strncmp(name, "[anon:", 6) || !strncmp(name, "/memfd:", 7);
}

/*
 * pid's executable mapping [start, start + len) of the object name at
 * pgoff (id: its build-id in hex, or NULL); its file is opened at root
 * followed by name when root is given (a process in another root or
 * mount namespace, seen from here), at name otherwise.
 */
static void map_add(struct unwind *u, pid_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, const char *name,
		    const char *id, const char *root)
{
	struct mapping m;
	char buf[4096];

	memset(&m, 0, sizeof(m));
	m.start = start;
	m.end = start + len;
	m.pgoff = pgoff;
	if (is_anon(name)) {
		snprintf(buf, sizeof(buf), "/tmp/perf-%d.map", (int)pid);
		m.name = intern(u, buf, strlen(buf));
	} else {
		m.name = intern(u, name, strlen(name));
		if (root && root[0] && name[0] == '/' &&
		    (size_t)snprintf(buf, sizeof(buf), "%s%s", root, name) <
		    sizeof(buf))
			m.f = file_get(u, buf, id);
		else
			m.f = file_get(u, name, id);
		m.jit = !strncmp(base_name(name), "jitted-", 7);
	}
	map_insert(proc_get(u, pid), &m);
}

static void on_mmap(struct unwind *u, const struct pd_record *r)
{
	struct pd_mmap mm;
	char hex[41] = "";
	size_t k;

	if (perfdata_decode_mmap(r, &mm) < 0 || !mm.exec || !mm.len)
		return;
	if ((r->misc & PD_MISC_CPUMODE_MASK) != PD_MISC_USER)
		return;		/* the kernel's and modules' maps */
	if (r->type == PD_RECORD_MMAP2 && !(mm.prot & 4 /* PROT_EXEC */))
		return;
	for (k = 0; k < mm.build_id_len; k++)
		snprintf(hex + 2 * k, 3, "%02x", mm.build_id[k]);
	map_add(u, mm.pid, mm.start, mm.len, mm.pgoff, mm.filename,
		k ? hex : NULL, NULL);
}

/* A process forked: the child starts with its parent's mappings. */
static void proc_fork(struct unwind *u, pid_t ppid, pid_t pid)
{
	struct proc *parent, *child;
	size_t i;

	if (pid == ppid)
		return;		/* a thread: same address space */
	parent = proc_get(u, ppid);
	child = proc_get(u, pid);
	if (child->nr || child == parent)
		return;
	child->maps = xcalloc(parent->nr + 1, sizeof(*child->maps));
	for (i = 0; i < parent->nr; i++) {
		child->maps[i] = parent->maps[i];
		child->maps[i].mod = NULL;
		child->maps[i].reported = 0;
	}
	child->nr = parent->nr;
	child->alloc = parent->nr + 1;
	child->dirty = 1;
}

static void on_fork(struct unwind *u, const struct pd_record *r)
{
	struct pd_task t;

	if (perfdata_decode_task(r, &t) < 0)
		return;
	proc_fork(u, t.ppid, t.pid);
}

/* A process exec'ed: its mappings are gone. */
static void proc_exec(struct unwind *u, pid_t pid)
{
	struct umap_ent *e = umap_find(&u->procs, (uint64_t)(uint32_t)pid);
	struct proc *p;

	if (!e || !e->val)
		return;
	p = e->val;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = 0;
	p->need_full = 0;
	p->gen++;
	p->nr = 0;
	p->dirty = 1;
	proc_clear_syms(p);
}

static void on_exec(struct unwind *u, const struct pd_record *r)
{
	struct pd_comm cm;

	if (perfdata_decode_comm(r, &cm) < 0 || !cm.exec)
		return;
	proc_exec(u, cm.pid);
}

void unwind_map(struct unwind *u, pid_t pid, uint64_t start, uint64_t len,
		uint64_t pgoff, const char *name, const char *root)
{
	if (len && name)
		map_add(u, pid, start, len, pgoff, name, NULL, root);
}

void unwind_fork(struct unwind *u, pid_t ppid, pid_t pid)
{
	proc_fork(u, ppid, pid);
}

void unwind_exec(struct unwind *u, pid_t pid)
{
	proc_exec(u, pid);
}

void proc_free(struct proc *p)
{
	if (!p)
		return;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	proc_clear_syms(p);
	free(p->maps);
	free(p);
}

void unwind_forget(struct unwind *u, pid_t pid)
{
	struct umap_ent *e = umap_find(&u->procs, (uint64_t)(uint32_t)pid);

	if (!e)
		return;
	proc_free(e->val);
	umap_del(&u->procs, (uint64_t)(uint32_t)pid);
}

void unwind_record(struct unwind *u, const struct pd_record *r)
{
	switch (r->type) {
	case PD_RECORD_MMAP:
	case PD_RECORD_MMAP2:
		on_mmap(u, r);
		break;
	case PD_RECORD_FORK:
		on_fork(u, r);
		break;
	case PD_RECORD_COMM:
		on_exec(u, r);
		break;
	default:
		break;
	}
}

/*
 * One word of the process's memory at addr: from the stack dump when
 * [addr, addr + 8) lies in [sp, sp + dyn_size), else from the file
 * mapped there (text and read-only data are what they were on disk),
 * else nothing.
 */
int mem_read(struct proc *p, uint64_t addr, uint64_t *v)
{
	const struct pd_sample *s = p->cur;
	struct mapping *m;
	uint64_t off;

	if (s->have_sp && addr >= s->user_sp &&
	    addr - s->user_sp <= s->dyn_size &&
	    s->dyn_size - (addr - s->user_sp) >= 8) {
		*v = get_le64(s->stack + (addr - s->user_sp));
		p->u->st.stack_reads++;
		return 0;
	}
	m = map_find(p, addr);
	if (m && m->f && addr <= m->end - 8 && !file_map(m->f)) {
		off = addr - m->start + m->pgoff;
		if (off <= m->f->size && m->f->size - off >= 8) {
			*v = get_le64(m->f->map + off);
			p->u->st.file_reads++;
			return 0;
		}
	}
	p->u->st.failed_reads++;
	p->mem_fail = 1;
	return -1;
}
