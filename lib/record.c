/*
 * The silent parts of `pyperf-run record` (see record.h).
 * Owner: record.
 */
#include "compat.h"
#include "record.h"
#include "alloc.h"
#include "numparse.h"
#include "paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void record_scan_init(struct record_scan *s)
{
	memset(s, 0, sizeof(*s));
	strbuf_init(&s->last_user, 0);
}

void record_scan_release(struct record_scan *s)
{
	free(s->pids);
	strbuf_release(&s->last_user);
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

static void end_sample(struct record_scan *s)
{
	if (!s->in_sample)
		return;
	s->samples++;
	/*
	 * One user frame and no Python: the unwinder gave up at the leaf
	 * (e.g. in ld.so's __tls_get_addr), not a stack dump too small.
	 */
	if (s->have_user && (s->has_py || s->have_user > 1) &&
	    !(s->ignore_pid && s->cur_pid == s->ignore_pid)) {
		s->user_samples++;
		if (!record_is_root_symbol(s->last_user.buf)) {
			s->truncated++;
			if (!strncmp(s->last_user.buf, "py::", 4))
				s->truncated_py++;
		}
	}
	if (s->has_py)
		s->python_samples++;
	s->in_sample = s->have_user = s->has_py = 0;
	strbuf_reset(&s->last_user);
}

/* "  123/456 ..." -> 123; -1 when the line does not start so. */
static long leading_pid(const char *line, size_t len)
{
	size_t i = 0;
	long v = 0;
	int digits = 0;

	while (i < len && line[i] == ' ')
		i++;
	while (i < len && line[i] >= '0' && line[i] <= '9' && digits < 10) {
		v = v * 10 + (line[i] - '0');
		i++;
		digits++;
	}
	if (!digits || i >= len || line[i] != '/')
		return -1;
	return v;
}

static void task_event_pids(struct record_scan *s, const char *line,
			    size_t len)
{
	static const char fork_tag[] = "PERF_RECORD_FORK(";
	const char *p = memmem(line, len, fork_tag, sizeof(fork_tag) - 1);
	const char *end = line + len;

	while (p) {
		unsigned long v;
		const char *q;

		p += sizeof(fork_tag) - 1;
		if (!parse_uint_prefix(p, &v, &q) && q < end &&
		    v < (unsigned long)INT32_MAX)
			record_scan_add_pid(s, (pid_t)v);
		/* the parent: "):(ppid:ptid)" */
		p = memmem(q, (size_t)(end - q), "):(", 3);
		if (!p)
			break;
		p += 3;
		if (!parse_uint_prefix(p, &v, &q) &&
		    v < (unsigned long)INT32_MAX)
			record_scan_add_pid(s, (pid_t)v);
		break;
	}
}

void record_scan_line(struct record_scan *s, const char *line, size_t len)
{
	long pid;

	if (!len) {
		end_sample(s);
		return;
	}
	if (line[0] == '\t') {
		const char *p = line, *end = line + len, *sym;
		int kernel;

		if (!s->in_sample)
			return;
		while (p < end && (*p == '\t' || *p == ' '))
			p++;
		sym = memchr(p, ' ', (size_t)(end - p));
		/* kernel addresses are printed in full: ffff... */
		kernel = (end - p) >= 16 && !strncmp(p, "ffff", 4) &&
			 sym && sym - p == 16;
		if (!sym)
			return;
		sym++;
		if (end - sym >= 4 && !strncmp(sym, "py::", 4))
			s->has_py = 1;
		if (!kernel) {
			s->have_user++;
			strbuf_reset(&s->last_user);
			strbuf_add(&s->last_user, sym, (size_t)(end - sym));
			/* drop a " (dso)" suffix if fields asked for it */
			if (s->last_user.len && strchr(s->last_user.buf, ' '))
				strbuf_setlen(&s->last_user,
					      strcspn(s->last_user.buf, " "));
		}
		return;
	}
	end_sample(s);
	pid = leading_pid(line, len);
	if (memmem(line, len, "PERF_RECORD_", 12)) {
		if (pid > 0)
			record_scan_add_pid(s, (pid_t)pid);
		task_event_pids(s, line, len);
		return;
	}
	if (pid < 0)
		return;
	record_scan_add_pid(s, (pid_t)pid);
	s->cur_pid = (pid_t)pid;
	s->in_sample = 1;
}

void record_scan_finish(struct record_scan *s)
{
	end_sample(s);
}

void record_scan_feed(struct record_scan *s, struct strbuf *pending,
		      const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			strbuf_add(pending, p, (size_t)(end - p));
			return;
		}
		if (pending->len) {
			strbuf_add(pending, p, (size_t)(nl - p));
			record_scan_line(s, pending->buf, pending->len);
			strbuf_reset(pending);
		} else {
			record_scan_line(s, p, (size_t)(nl - p));
		}
		p = nl + 1;
	}
}

unsigned record_suggest_stack_size(unsigned current)
{
	unsigned next;

	if (current >= 65528u)
		return 0;
	next = current * 2;
	if (next > 65528u || next < current)
		next = 65528u;
	return next;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, ret = 0;

	in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0600);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (!n)
			break;
		while (w < n) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				ret = -errno;
				break;
			}
			w += k;
		}
		if (ret)
			break;
	}
	close(in);
	if (close(out) < 0 && !ret)
		ret = -errno;
	if (ret)
		unlink(to);
	return ret;
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
	r = copy_file(from, to);
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
	ssize_t w;

	n = snprintf(buf, sizeof(buf), "%s=%d\n",
		     kind == RECORD_STATUS_ERRNO ? "error" :
		     kind == RECORD_STATUS_WAIT ? "status" : "exec", value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	do {
		w = write(fd, buf, (size_t)n);
	} while (w < 0 && errno == EINTR);
	return w == n ? 0 : -EIO;
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

/* Does a record header fit at off (and does its timestamp follow last)? */
static int jd_plausible(const unsigned char *d, size_t len, size_t off,
			uint64_t last)
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
	uint64_t last = 0, max_index = 0;
	size_t unwind_at = (size_t)-1;
	long dropped = 0;
	char *tmp = NULL;
	int fd, r;

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
	off = hsize;
	while (off + 16 <= len) {
		size_t next;

		if (jd_plausible(d, len, off, last)) {
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

			if (!jd_plausible(d, len, next, last))
				continue;
			end = next + get32(d + next + 4);
			if (end == len || jd_plausible(d, len, end, last))
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
	tmp = xasprintf("%s.repair", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		dropped = -errno;
		goto out;
	}
	if (write(fd, out.buf, out.len) != (ssize_t)out.len) {
		dropped = -EIO;
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) < 0) {
		dropped = -errno;
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) < 0) {
		dropped = -errno;
		unlink(tmp);
	}
out:
	strbuf_release(&in);
	strbuf_release(&out);
	free(tmp);
	return dropped;
}
