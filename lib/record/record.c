/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The silent parts of `pyperf-run record` (see record.h).
 */
#include "compat.h"
#include "record/record.h"
#include "alloc.h"
#include "fileio.h"
#include "numparse.h"
#include "paths.h"
#include "perfdata.h"
#include "pyinfo.h"

#include <dirent.h>
#include <elf.h>
#include <sys/auxv.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void record_scan_init(struct record_scan *s)
{
	memset(s, 0, sizeof(*s));
}

void record_scan_release(struct record_scan *s)
{
	free(s->pids);
	record_scan_init(s);
}

void record_scan_add_pid(struct record_scan *s, pid_t pid)
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

int record_is_root_symbol(const char *sym)
{
	static const char *const roots[] = {
		"_start", "__libc_start_main", "__libc_start_call_main",
		"clone", "clone3", "__clone", "__clone3", "__clone_internal",
		"start_thread", "_dl_start", "_dl_start_user",
		"ret_from_fork", "ret_from_fork_asm",
	};
	size_t i, n = strcspn(sym, "@");

	for (i = 0; i < ARRAY_SIZE(roots); i++)
		if (strlen(roots[i]) == n && !strncmp(sym, roots[i], n))
			return 1;
	return 0;
}

double record_cut_share(const struct record_cut_facts *f)
{
	uint64_t cut = 0;
	int i;

	if (!f->judged)
		return 0.0;
	for (i = RECORD_CUT_DUMP; i < RECORD_CUT_NR; i++)
		cut += f->cut[i];
	return (double)cut / (double)f->judged;
}

static double cut_share(const struct record_cut_facts *f, enum record_cut c)
{
	return f->judged ? (double)f->cut[c] / (double)f->judged : 0.0;
}

static void dump_hint(const struct record_cut_facts *f, struct strvec *out)
{
	double share = cut_share(f, RECORD_CUT_DUMP);
	uint64_t need = f->dump_needed;

	/* without a measure of the stacks' size, no size is advised */
	if (!f->dump_measured)
		return;
	if (f->dump_fixable * 2 >= f->dump_measured) {
		/* most fit in what perf can copy: the size 99 % need */
		if (!need || need > PERF_STACK_DUMP_MAX)
			need = PERF_STACK_DUMP_MAX;
		need = (need + 7u) / 8u * 8u;
		if (need > PERF_STACK_DUMP_MAX)
			need = PERF_STACK_DUMP_MAX;
		if (need <= f->stack_size)
			return;
		strvec_pushf(out, "record again with --stack-size %u: %.0f%% "
			     "of the stacks were deeper than the %u-byte "
			     "dump, and %u bytes hold %s of them (the session "
			     "grows about %.1f times)", (unsigned)need,
			     share * 100, f->stack_size, (unsigned)need,
			     f->dump_needed && f->dump_needed <= PERF_STACK_DUMP_MAX ?
			     "99%" : "most",
			     (double)need / f->stack_size);
		return;
	}
	strvec_pushf(out, "%.0f%% of the stacks are deeper than the %u "
		     "bytes perf can copy per sample: a bigger --stack-size "
		     "would not help", share * 100, PERF_STACK_DUMP_MAX);
}

size_t record_cut_hints(const struct record_cut_facts *f, struct strvec *out)
{
	size_t before = out->nr;

	if (!f->judged)
		return 0;
	if (f->jit && cut_share(f, RECORD_CUT_DUMP) >= RECORD_HINT_SHARE)
		dump_hint(f, out);
	/*
	 * Unwinder cuts: the dump held more, so a bigger one cannot help.
	 * Stops at Python frames are an old perf's missing unwinding of
	 * jitted code.
	 */
	if (f->jit && cut_share(f, RECORD_CUT_UNWIND) >= RECORD_HINT_SHARE &&
	    (!f->unwind_known ||
	     f->unwind_at_python * 2 > f->cut[RECORD_CUT_UNWIND]) &&
	    !f->jit_fix_known)
		strvec_push(out, "perf 6.8 or later (or 6.1.91+, 6.6.14+, "
			    "6.7.2+) unwinds jitted code; 'pyperf-run doctor "
			    "--probe' checks this perf");
	if (!f->jit && cut_share(f, RECORD_CUT_NOROOT) >= RECORD_HINT_SHARE)
		strvec_pushf(out, "record again with --mode jit: %.0f%% of "
			     "the stacks broke off in code built without "
			     "frame pointers (C extensions, BLAS), which jit "
			     "mode unwinds through",
			     cut_share(f, RECORD_CUT_NOROOT) * 100);
	if (!f->jit && cut_share(f, RECORD_CUT_DEPTH) >= RECORD_HINT_SHARE) {
		char now[40] = "";

		if (f->max_stack)
			snprintf(now, sizeof(now), ", now %u", f->max_stack);
		if (f->depth_needed > f->max_stack)
			strvec_pushf(out, "record again with --mode jit, which "
				     "has no frame cap, or raise the kernel's "
				     "(as root: sysctl -w kernel.perf_event_"
				     "max_stack=%u%s)", f->depth_needed, now);
		else
			strvec_pushf(out, "record again with --mode jit, which "
				     "has no frame cap (raising kernel.perf_"
				     "event_max_stack%s, as root, helps too)",
				     now);
	}
	return out->nr - before;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

/* Move one file if it is ours and fresh; 1 moved, 0 skipped, -errno. */
static int take_file(const char *from, const char *to, double since)
{
	struct stat st;
	double mtime;
	int r;

	if (lstat(from, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return 0;
	mtime = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
	/* file systems may keep coarse timestamps: allow a little slack */
	if (mtime + 0.05 < since)
		return 0;
	if (rename(from, to) == 0)
		return 1;
	if (errno != EXDEV)
		return -errno;
	r = copy_file(from, to, 0600);
	if (r < 0)
		return r;
	if (unlink(from) < 0)
		return -errno;
	return 1;
}

static int collect_dir(const char *session, const char *src,
		       const pid_t *pids, size_t nr, double since,
		       unsigned *moved, char *err, size_t errlen)
{
	DIR *d = opendir(src);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 :
		       set_err(err, errlen, "cannot read '%s': %s", src,
			       strerror(errno));
	while ((de = readdir(d))) {
		const char *name = de->d_name, *sub, *p;
		unsigned long v;
		pid_t pid;
		char *from, *to;
		int r;

		if (!strncmp(name, "perf-", 5)) {
			sub = "maps";
			p = name + 5;
		} else if (!strncmp(name, "jit-", 4)) {
			sub = "jit";
			p = name + 4;
		} else if (!strncmp(name, "jitted-", 7)) {
			sub = "jit";
			p = name + 7;
		} else {
			continue;
		}
		if (parse_uint_prefix(p, &v, &p) || v > INT32_MAX)
			continue;
		if (sub[0] == 'm' ? strcmp(p, ".map") :
		    name[3] == '-' ? strcmp(p, ".dump") :
		    (p[0] != '-' || !strstr(p, ".so") ||
		     strcmp(p + strlen(p) - 3, ".so")))
			continue;
		pid = (pid_t)v;
		if (!bsearch(&pid, pids, nr, sizeof(*pids), pid_cmp))
			continue;
		from = xasprintf("%s/%s", src, name);
		to = xasprintf("%s/%s/%s", session, sub, name);
		r = take_file(from, to, since);
		if (r > 0)
			(*moved)++;
		else if (r < 0 && !ret)
			ret = set_err(err, errlen, "cannot move '%s' into "
				      "the session: %s", from, strerror(-r));
		free(from);
		free(to);
	}
	closedir(d);
	return ret;
}

int record_collect(const char *session, const char *const *srcdirs,
		   const pid_t *pids, size_t nr_pids, double since,
		   unsigned *moved, char *err, size_t errlen)
{
	pid_t *sorted;
	size_t i;
	int ret = 0;

	*moved = 0;
	if (!nr_pids)
		return 0;
	sorted = xmalloc(nr_pids * sizeof(*sorted));
	memcpy(sorted, pids, nr_pids * sizeof(*sorted));
	qsort(sorted, nr_pids, sizeof(*sorted), pid_cmp);
	for (i = 0; srcdirs[i]; i++) {
		char why[PPR_ERR_LEN];

		if (collect_dir(session, srcdirs[i], sorted, nr_pids, since,
				moved, why, sizeof(why)) && !ret)
			ret = set_err(err, errlen, "%s", why);
	}
	free(sorted);
	return ret;
}

/* Remove everything under path but jitted-* directories. */
static int prune_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int ret = 0, kept = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		char *sub;
		int r = 0;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (lstat(sub, &st) < 0) {
			r = -errno;
		} else if (S_ISDIR(st.st_mode) &&
			   !strncmp(de->d_name, "jitted-", 7)) {
			kept++;
		} else if (S_ISDIR(st.st_mode)) {
			r = prune_tree(sub);
			if (r == 1) {
				kept++;
				r = 0;
			} else if (!r && rmdir(sub) < 0) {
				r = -errno;
			}
		} else if (unlink(sub) < 0) {
			r = -errno;
		}
		if (r < 0 && !ret)
			ret = r;
		free(sub);
	}
	closedir(d);
	if (ret)
		return ret;
	return kept ? 1 : 0;
}

static int prune_links(const char *dir)
{
	DIR *d = opendir(dir), *d2;
	struct dirent *de, *de2;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char *sub;
		int kept = 0;

		if (de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, de->d_name);
		d2 = opendir(sub);
		if (!d2) {
			if (unlink(sub) < 0 && !ret)
				ret = -errno;
			free(sub);
			continue;
		}
		while ((de2 = readdir(d2))) {
			char target[4096];
			char *link;
			ssize_t n;

			if (!strcmp(de2->d_name, ".") ||
			    !strcmp(de2->d_name, ".."))
				continue;
			link = xasprintf("%s/%s", sub, de2->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				if (strstr(target, "/jitted-")) {
					kept++;
					free(link);
					continue;
				}
			}
			if (unlink(link) < 0 && !ret)
				ret = -errno;
			free(link);
		}
		closedir(d2);
		if (!kept && rmdir(sub) < 0 && !ret)
			ret = -errno;
		free(sub);
	}
	closedir(d);
	return ret;
}

int record_prune_buildid(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *links;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	links = xasprintf("%s/.build-id", dir);
	ret = prune_links(links);
	free(links);
	while ((de = readdir(d))) {
		struct stat st;
		char *sub;
		int r = 0;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, ".build-id"))
			continue;
		sub = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(sub, &st) < 0) {
			r = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			r = prune_tree(sub);
			if (r == 0 && rmdir(sub) < 0)
				r = -errno;
			else if (r == 1)
				r = 0;
		} else if (unlink(sub) < 0) {
			r = -errno;
		}
		if (r < 0 && !ret)
			ret = r;
		free(sub);
	}
	closedir(d);
	return ret;
}

int record_status_write(int fd, enum record_status_kind kind, int value)
{
	char buf[64];
	int n;

	n = snprintf(buf, sizeof(buf), "%s=%d\n",
		     kind == RECORD_STATUS_ERRNO ? "error" :
		     kind == RECORD_STATUS_WAIT ? "status" : "exec", value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	return write_in_full(fd, buf, (size_t)n);
}

enum record_status_kind record_status_read(const char *path, int *value,
					   pid_t *exec_pid)
{
	struct strbuf sb = STRBUF_INIT;
	enum record_status_kind kind = RECORD_STATUS_NONE;
	const char *p;

	if (exec_pid)
		*exec_pid = 0;
	if (strbuf_read_file(&sb, path, 4096) < 0)
		goto out;
	for (p = sb.buf; *p; ) {
		size_t n = strcspn(p, "\n");
		char line[64];
		long v;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n;
		if (*p)
			p++;
		if (!strncmp(line, "exec=", 5)) {
			if (exec_pid && !parse_long(line + 5, 10, 1, INT32_MAX,
						    &v))
				*exec_pid = (pid_t)v;
		} else if (!strncmp(line, "status=", 7)) {
			if (!parse_long(line + 7, 10, 0, INT32_MAX, &v)) {
				kind = RECORD_STATUS_WAIT;
				*value = (int)v;
			}
		} else if (!strncmp(line, "error=", 6)) {
			if (!parse_long(line + 6, 10, 0, INT32_MAX, &v)) {
				kind = RECORD_STATUS_ERRNO;
				*value = (int)v;
			}
		}
	}
out:
	strbuf_release(&sb);
	return kind;
}

double record_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- jitdump repair ------------------------------------------------------ */

#define JD_HEADER_MIN 40
#define JD_MAGIC 0x4A695444u	/* "JiTD" as written on little endian */
#define JD_MAX_ID 5u
#define JD_CODE_LOAD 0u
#define JD_CODE_UNWINDING_INFO 4u
#define JD_MAX_RECORD (1u << 24)
#define JD_MAX_GAP 10800000000000ull	/* 3 hours in ns */

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Does a record header fit at off (and does its timestamp follow last)?
 * A code load must also be one of this process's (pid), for the address
 * it names (vma == code_addr), with code that fits in the record and an
 * index not far beyond the last one: a fragment of garbage that looks
 * like a header must not swallow the records after it.
 */
static int jd_plausible(const unsigned char *d, size_t len, size_t off,
			uint64_t last, uint32_t pid, uint64_t max_index)
{
	uint32_t id, size;
	uint64_t ts;

	if (off + 16 > len)
		return 0;
	id = get32(d + off);
	size = get32(d + off + 4);
	ts = get64(d + off + 8);
	if (id > JD_MAX_ID || size < 16 || size > JD_MAX_RECORD ||
	    size > len - off)
		return 0;
	if (last && (ts < last || ts - last > JD_MAX_GAP))
		return 0;
	if (id == JD_CODE_LOAD) {
		if (size < 56 || get32(d + off + 16) != pid ||
		    get64(d + off + 24) != get64(d + off + 32) ||
		    get64(d + off + 40) > size - 56 ||
		    get64(d + off + 48) > max_index + (1u << 20))
			return 0;
	}
	return 1;
}

/* A jitdump file header (version 1) with no records. */
static void jd_header(struct strbuf *out, pid_t pid)
{
	unsigned char h[JD_HEADER_MIN];
	uint32_t v;
	uint64_t z = 0;

	memset(h, 0, sizeof(h));
	v = JD_MAGIC;
	memcpy(h, &v, 4);
	v = 1;
	memcpy(h + 4, &v, 4);
	v = JD_HEADER_MIN;
	memcpy(h + 8, &v, 4);
#if defined(__aarch64__)
	v = 183;	/* EM_AARCH64 */
#else
	v = 62;		/* EM_X86_64 */
#endif
	memcpy(h + 12, &v, 4);
	v = (uint32_t)pid;
	memcpy(h + 20, &v, 4);
	memcpy(h + 24, &z, 8);
	memcpy(h + 32, &z, 8);
	strbuf_add(out, h, sizeof(h));
}

long record_repair_jitdump(const char *path, pid_t pid)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	const unsigned char *d;
	size_t len, off, hsize;
	uint32_t hpid;
	uint64_t last = 0, max_index = 0;
	size_t unwind_at = (size_t)-1;
	long dropped = 0;
	int r;

	r = strbuf_read_file(&in, path, 1u << 30);
	if (r < 0)
		return r;
	d = (const unsigned char *)in.buf;
	len = in.len;
	if (len < JD_HEADER_MIN) {
		/*
		 * Nothing written (3.13.0 buffers the dump, and a process
		 * that ends with _exit() never flushes it): perf inject
		 * gives up on the whole recording when a dump has no
		 * header, so give it an empty one.
		 */
		jd_header(&out, pid);
		dropped = (long)len + 1;
		goto rewrite;
	}
	if (get32(d) != JD_MAGIC)
		goto out;
	hsize = get32(d + 8);
	if (hsize < JD_HEADER_MIN || hsize > len)
		goto out;
	strbuf_add(&out, d, hsize);
	hpid = get32(d + 20);
	off = hsize;
	while (off + 16 <= len) {
		size_t next;

		if (jd_plausible(d, len, off, last, hpid, max_index)) {
			size_t size = get32(d + off + 4);
			uint32_t id = get32(d + off);

			last = get64(d + off + 8);
			if (id == JD_CODE_LOAD && size >= 56 &&
			    get64(d + off + 48) <= max_index) {
				/*
				 * The same code load twice (the fork
				 * case): perf would rewrite its object
				 * without the unwinding information.
				 */
				if (unwind_at != (size_t)-1) {
					dropped += (long)(out.len - unwind_at);
					strbuf_setlen(&out, unwind_at);
				}
				unwind_at = (size_t)-1;
				dropped += (long)size;
				off += size;
				continue;
			}
			if (id == JD_CODE_LOAD && size >= 56) {
				max_index = get64(d + off + 48);
				unwind_at = (size_t)-1;
			} else if (id == JD_CODE_UNWINDING_INFO) {
				unwind_at = out.len;
			}
			strbuf_add(&out, d + off, size);
			off += size;
			continue;
		}
		/* find the next header that is followed by one, or EOF */
		for (next = off + 1; next + 16 <= len; next++) {
			size_t end;

			if (!jd_plausible(d, len, next, last, hpid, max_index))
				continue;
			end = next + get32(d + next + 4);
			if (end == len ||
			    jd_plausible(d, len, end, last, hpid, max_index))
				break;
		}
		if (next + 16 > len) {
			/* a truncated last record: perf copes with it */
			break;
		}
		dropped += (long)(next - off);
		off = next;
	}
	if (!dropped)
		goto out;
	if (off < len)
		strbuf_add(&out, d + off, len - off);
rewrite:
	r = write_file_atomic(path, out.buf, out.len, 0600);
	if (r)
		dropped = r;
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return dropped;
}

/* --- perf.data fixes ----------------------------------------------------- */

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

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
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
	if (get64(*map) != PD_MAGIC) {
		munmap(m, *len);
		ret = -EINVAL;
	}
out:
	close(fd);
	return ret;
}

int record_fix_exec_forks(const char *path, struct record_scan *scan,
			  unsigned *fixed)
{
	unsigned char *d;
	size_t len, off, end, nr = 0, alloc = 0, i;
	struct pd_fork *forks = NULL;
	uint64_t doff, dsize;
	unsigned n = 0;
	int r;

	if (fixed)
		*fixed = 0;
	r = pd_map(path, 1, &d, &len);
	if (r < 0)
		return r == -EINVAL ? 0 : r;
	doff = get64(d + PD_DATA_AT);
	dsize = get64(d + PD_DATA_AT + 8);
	if (doff > len || dsize > len - doff)
		goto out;
	end = (size_t)(doff + dsize);
	for (off = (size_t)doff; off + 8 <= end; ) {
		uint32_t type = get32(d + off);
		unsigned misc, size;

		size = d[off + 6] | (unsigned)d[off + 7] << 8;
		misc = d[off + 4] | (unsigned)d[off + 5] << 8;
		if (size < 8 || size > end - off)
			break;
		if (scan && type == PD_SAMPLE) {
			scan->samples++;
		} else if (scan && size >= 16 &&
			   (type == PD_MMAP || type == PD_MMAP2 ||
			    type == PD_COMM || type == PD_EXIT)) {
			/* pid -1: the kernel's maps */
			record_scan_add_pid(scan, (pid_t)get32(d + off + 8));
		}
		if (type == PD_FORK && size >= 24) {
			uint32_t pid = get32(d + off + 8);
			uint32_t ppid = get32(d + off + 12);
			uint32_t tid = get32(d + off + 16);

			if (scan) {
				record_scan_add_pid(scan, (pid_t)ppid);
				record_scan_add_pid(scan, (pid_t)pid);
			}
			if (pid == tid && pid != ppid &&
			    !(misc & PD_MISC_EXEC)) {
				ALLOC_GROW(forks, nr + 1, alloc);
				forks[nr].pid = pid;
				forks[nr++].at = off;
			}
		} else if (type == PD_COMM && (misc & PD_MISC_EXEC) &&
			   size >= 16) {
			uint32_t pid = get32(d + off + 8);

			/* the latest fork of that pid, not yet taken */
			for (i = nr; i > 0; i--) {
				if (forks[i - 1].pid != pid)
					continue;
				d[forks[i - 1].at + 5] |= PD_MISC_EXEC >> 8;
				forks[i - 1] = forks[--nr];
				n++;
				break;
			}
		}
		off += size;
	}
	if (n && msync(d, len, MS_SYNC) < 0)
		r = -errno;
out:
	munmap(d, len);
	free(forks);
	if (fixed)
		*fixed = n;
	return r;
}

long long record_recover_perf_data(const char *path)
{
	unsigned char *d, table[16];
	size_t len, off;
	uint64_t doff;
	int r, fd;

	r = pd_map(path, 1, &d, &len);
	if (r < 0)
		return r;
	doff = get64(d + PD_DATA_AT);
	if (get64(d + PD_DATA_AT + 8) || doff < PD_HEADER_SIZE ||
	    doff >= len) {
		munmap(d, len);
		return 0;
	}
	for (off = (size_t)doff; off + 8 <= len; ) {
		unsigned size = d[off + 6] | (unsigned)d[off + 7] << 8;
		uint32_t type = get32(d + off);

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
	put64(table, off + 16);
	put64(table + 8, 0);
	memset(d + PD_FEATURES_AT, 0, 32);
	d[PD_FEATURES_AT] = 1u << PD_FEAT_BUILD_ID;
	put64(d + PD_DATA_AT + 8, off - doff);
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

/* --- the interpreter probe cache ----------------------------------------- */

static void key_stat(struct strbuf *key, const char *what, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		strbuf_addf(key, "%s=none\n", what);
		return;
	}
	strbuf_addf(key, "%s=%llu:%llu:%lld:%lld.%09ld\n", what,
		    (unsigned long long)st.st_dev,
		    (unsigned long long)st.st_ino, (long long)st.st_size,
		    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* The cache key of an interpreter; 0, or -1 when it cannot have one. */
static int probe_key(const char *python, struct strbuf *key)
{
	const char *env[] = { "PYTHONHOME", "PYTHONPATH", NULL };
	char *real, *dir, *cfg, *slash;
	size_t i;

	if (python[0] != '/')
		return -1;
	real = realpath(python, NULL);
	if (!real)
		return -1;
	strbuf_addf(key, "format=1\npath=%s\nreal=%s\n", python, real);
	key_stat(key, "exe", real);
	for (i = 0; env[i]; i++) {
		const char *v = getenv(env[i]);

		strbuf_addf(key, "%s%s%s\n", env[i], v ? "=" : "",
			    v ? v : "");
	}
	/* a venv: pyvenv.cfg next to the link or one directory up */
	dir = xstrdup(python);
	slash = strrchr(dir, '/');
	*slash = '\0';
	cfg = xasprintf("%s/pyvenv.cfg", dir);
	key_stat(key, "venv1", cfg);
	free(cfg);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	cfg = xasprintf("%s/pyvenv.cfg", dir);
	key_stat(key, "venv2", cfg);
	free(cfg);
	free(dir);
	free(real);
	return strchr(python, '\n') ? -1 : 0;
}

static char *probe_cache_path(const struct strbuf *key)
{
	char err[PPR_ERR_LEN];
	char *base = paths_cache_dir(err, sizeof(err)), *slash, *r;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	if (!base)
		return NULL;
	/* a sibling of the trampoline builds */
	slash = strrchr(base, '/');
	if (slash)
		*slash = '\0';
	for (i = 0; i < key->len; i++) {
		h ^= (unsigned char)key->buf[i];
		h *= 0x100000001b3ull;
	}
	r = xasprintf("%s/probe/%016llx", base, (unsigned long long)h);
	free(base);
	return r;
}

static int has_python_h(const char *include)
{
	char *h;
	int r;

	if (!include || !*include)
		return 0;
	h = xasprintf("%s/Python.h", include);
	r = access(h, F_OK) == 0;
	free(h);
	return r;
}

/* The probe's answer again, as pyinfo_parse() reads it; -1 if it cannot be. */
static int probe_text(const struct pyinfo *py, struct strbuf *out)
{
	const struct {
		const char *key;
		const char *val;
	} s[] = {
		{ "version", py->version },
		{ "releaselevel", py->releaselevel },
		{ "implementation", py->implementation },
		{ "executable", py->executable },
		{ "prefix", py->prefix },
		{ "base_prefix", py->base_prefix },
		{ "machine", py->machine },
		{ "cflags", py->cflags_raw },
		{ "include", py->include_dir },
		{ "cv.SOABI", py->soabi },
		{ "cv.EXT_SUFFIX", py->ext_suffix },
		{ "purelib", py->purelib },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s); i++) {
		if (s[i].val && strchr(s[i].val, '\n'))
			return -1;
		strbuf_addf(out, "%s=%s\n", s[i].key, s[i].val ? s[i].val : "");
	}
	strbuf_addf(out, "pydebug=%d\ncv.PY_HAVE_PERF_TRAMPOLINE=%d\n"
		    "cv.Py_GIL_DISABLED=%d\nhas_headers=%d\nend=1\n",
		    py->pydebug, py->native_perf, py->free_threaded,
		    py->has_headers);
	return 0;
}

static int probe_from_cache(const char *python, const char *path,
			    const struct strbuf *key, struct pyinfo *info)
{
	struct strbuf sb = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	int ret = -1;

	if (strbuf_read_file(&sb, path, 1 << 16) < 0)
		goto out;
	if (sb.len < key->len || memcmp(sb.buf, key->buf, key->len) ||
	    strncmp(sb.buf + key->len, "--\n", 3))
		goto out;
	memset(info, 0, sizeof(*info));
	info->path = xstrdup(python);
	if (pyinfo_parse(sb.buf + key->len + 3, info, err, sizeof(err)) < 0 ||
	    info->has_headers != has_python_h(info->include_dir)) {
		pyinfo_release(info);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

static void probe_to_cache(const char *path, const struct strbuf *key,
			   const struct pyinfo *py)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = xstrdup(path);

	*strrchr(dir, '/') = '\0';
	if (paths_mkdirs(dir, 0700) < 0)
		goto out;
	strbuf_add(&sb, key->buf, key->len);
	strbuf_addstr(&sb, "--\n");
	if (probe_text(py, &sb) < 0)
		goto out;
	write_file_atomic(path, sb.buf, sb.len, 0600);
out:
	free(dir);
	strbuf_release(&sb);
}

int record_probe_python(const char *python, struct pyinfo *info,
			int *fresh, char *err, size_t errlen)
{
	struct strbuf key = STRBUF_INIT;
	char *path = NULL;
	int r;

	*fresh = 1;
	if (probe_key(python, &key) == 0)
		path = probe_cache_path(&key);
	if (path && probe_from_cache(python, path, &key, info) == 0) {
		*fresh = 0;
		r = 0;
	} else {
		r = pyinfo_probe(python, info, err, errlen);
	}
	free(path);
	strbuf_release(&key);
	return r;
}

void record_probe_remember(const char *python, const struct pyinfo *info)
{
	struct strbuf key = STRBUF_INIT;
	char *path = NULL, *a = NULL, *b = NULL;

	/*
	 * Only an interpreter that is itself, not a launcher (a pyenv shim
	 * picks its interpreter by the directory and the environment).
	 */
	if (!info->executable || !*info->executable ||
	    probe_key(python, &key) < 0)
		goto out;
	a = realpath(python, NULL);
	b = realpath(info->executable, NULL);
	if (!a || !b || strcmp(a, b))
		goto out;
	path = probe_cache_path(&key);
	if (path)
		probe_to_cache(path, &key, info);
out:
	free(a);
	free(b);
	free(path);
	strbuf_release(&key);
}

char *record_jit_dir(char *err, size_t errlen)
{
	char tmpl[] = "/tmp/jitted-pyperf-run.XXXXXX";
	struct statvfs sv;

	if (statvfs("/tmp", &sv) == 0 && (sv.f_flag & ST_NOEXEC)) {
		set_err(err, errlen, "'/tmp' is mounted noexec");
		return NULL;
	}
	if (!mkdtemp(tmpl)) {
		set_err(err, errlen, "cannot create '%s': %s", tmpl,
			strerror(errno));
		return NULL;
	}
	return xstrdup(tmpl);
}

int record_jit_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0 && !ret)
			ret = -errno;
	}
	closedir(d);
	if (rmdir(dir) < 0 && !ret)
		ret = -errno;
	return ret;
}

/* The NT_GNU_BUILD_ID of an ELF image in memory, as hex; 0 or -1. */
static int image_build_id(const unsigned char *img, size_t size, char *hex,
			  size_t hexlen)
{
	const Elf64_Ehdr *eh = (const void *)img;
	size_t i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
		return -1;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(img + eh->e_phoff +
						      i * sizeof(Elf64_Phdr));
		size_t off = ph->p_offset, end = ph->p_offset + ph->p_filesz;

		if (ph->p_type != PT_NOTE || end > size)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)(img + off);
			size_t name = off + sizeof(*nh);
			size_t desc = name + ((nh->n_namesz + 3) & ~3u);
			size_t next = desc + ((nh->n_descsz + 3) & ~3u);
			size_t k;

			if (next > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID &&
			    nh->n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4) &&
			    nh->n_descsz >= 2 && nh->n_descsz * 2 < hexlen) {
				for (k = 0; k < nh->n_descsz; k++)
					snprintf(hex + 2 * k, 3, "%02x",
						 img[desc + k]);
				return 0;
			}
			off = next;
		}
	}
	return -1;
}

int record_save_vdso(const char *buildid_dir)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long lo = 0, hi = 0;
	char line[512], hex[130], *dir = NULL, *file = NULL, *linkdir = NULL;
	char *link = NULL, *target = NULL;
	FILE *f;
	int fd, ret = 0;

	if (!base)
		return -ENOENT;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(f);
	if (base != lo || hi <= lo)
		return -ENOENT;
	if (image_build_id((const void *)lo, hi - lo, hex, sizeof(hex)))
		return -ENOEXEC;
	dir = xasprintf("%s/[vdso]/%s", buildid_dir, hex);
	file = xasprintf("%s/vdso", dir);
	linkdir = xasprintf("%s/.build-id/%.2s", buildid_dir, hex);
	link = xasprintf("%s/%s", linkdir, hex + 2);
	target = xasprintf("../../[vdso]/%s", hex);
	ret = paths_mkdirs(dir, 0755);
	if (!ret)
		ret = paths_mkdirs(linkdir, 0755);
	if (ret)
		goto out;
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0) {
		ret = errno == EEXIST ? 0 : -errno;
		goto out;
	}
	ret = write_in_full(fd, (const void *)lo, hi - lo);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && symlink(target, link) < 0 && errno != EEXIST)
		ret = -errno;
out:
	free(dir);
	free(file);
	free(linkdir);
	free(link);
	free(target);
	return ret;
}
