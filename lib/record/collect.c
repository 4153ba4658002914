/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run's files into the session: map and dump files, the trimmed
 * build-id cache, the vDSO image (see collect.h).
 */
#include "compat.h"
#include "record/collect.h"
#include "alloc.h"
#include "byteorder.h"
#include "fileio.h"
#include "kallsyms.h"
#include "numparse.h"
#include "paths.h"
#include "strbuf.h"
#include "vdso.h"
#include "walker/kself.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

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

/*
 * The length of a context table's records: up to its first end record
 * (type 0), the zero tail of a table whose process ended with _exit().
 */
static size_t ctx_used(const unsigned char *buf, size_t len)
{
	size_t off = 16;

	while (off + 8 <= len) {
		uint32_t type = get_le32(buf + off);
		uint32_t size = get_le32(buf + off + 4);

		if (!type || size < 8 || size % 8 || size > len - off)
			break;
		off += size;
	}
	return off < len ? off : len;
}

/* Compress src (a context table) into dst; 0 or -errno. */
static int pack_one(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), out = -1;
	unsigned char *buf = NULL;
	struct stat st;
	gzFile gz = NULL;
	size_t len, off;
	int ret = 0;

	if (in < 0)
		return -errno;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	len = (size_t)st.st_size;
	buf = xmalloc(len ? len : 1);
	for (off = 0; off < len;) {
		ssize_t n = read(in, buf + off, len - off);

		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			goto out;
		}
		off += (size_t)n;
	}
	len = ctx_used(buf, len);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   0600);
	if (out < 0) {
		ret = -errno;
		goto out;
	}
	gz = gzdopen(out, "wb1");
	if (!gz) {
		ret = -ENOMEM;
		close(out);
		goto out;
	}
	for (off = 0; off < len;) {
		unsigned chunk = len - off > (1u << 30) ? 1u << 30 :
			(unsigned)(len - off);
		int n = gzwrite(gz, buf + off, chunk);

		if (n <= 0) {
			ret = -EIO;
			break;
		}
		off += (size_t)n;
	}
	if (gzclose(gz) != Z_OK && !ret)
		ret = -EIO;
	if (ret)
		unlink(dst);
out:
	free(buf);
	close(in);
	return ret;
}

int record_pack_contexts(const char *dir, unsigned *packed, char *err,
			 size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	*packed = 0;
	if (!d)
		return errno == ENOENT ? 0 :
		       set_err(err, errlen, "cannot read '%s': %s", dir,
			       strerror(errno));
	while ((de = readdir(d))) {
		const char *p;
		unsigned long v;
		char *src, *dst;
		int r;

		if (strncmp(de->d_name, "ctx-", 4) ||
		    parse_uint_prefix(de->d_name + 4, &v, &p) ||
		    strcmp(p, ".tab"))
			continue;
		src = xasprintf("%s/%s", dir, de->d_name);
		dst = xasprintf("%s.gz", src);
		r = pack_one(src, dst);
		if (!r) {
			unlink(src);
			(*packed)++;
		} else if (!ret) {
			ret = set_err(err, errlen, "cannot compress '%s': %s",
				      src, strerror(-r));
		}
		free(src);
		free(dst);
	}
	closedir(d);
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

double record_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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

int record_save_vdso(const char *buildid_dir, char *id_hex, size_t id_len)
{
	const unsigned char *img;
	size_t len;
	char hex[130], *dir = NULL, *file = NULL, *linkdir = NULL;
	char *link = NULL, *target = NULL;
	int fd, ret;

	if ((ret = vdso_self(&img, &len)) < 0)
		return ret;
	if (image_build_id(img, len, hex, sizeof(hex)))
		return -ENOEXEC;
	if (id_hex)
		snprintf(id_hex, id_len, "%s", hex);
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
	ret = write_in_full(fd, img, len);
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

/*
 * text (/proc/kallsyms, whole) as kallsyms.gz's bytes in out: its
 * function symbols only.  0, or -errno (-EPERM: every address is zero).
 */
static int kallsyms_compress(const struct strbuf *text, struct strbuf *out)
{
	unsigned char chunk[65536];
	const char *line = text->buf, *end = text->buf + text->len;
	z_stream z;
	int ret = 0, named = 0, zr;

	memset(&z, 0, sizeof(z));
	/*
	 * Level 1: every recording pays for this (Debian 12's 5.4 MB of
	 * symbols: 1.07 MB in 60 ms, where level 6 takes 160 ms for
	 * 0.86 MB).  Window bits 15 + 16: a gzip stream, as gzopen()
	 * reads it.
	 */
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	for (;;) {
		const char *t = NULL, *nl;
		int last = line >= end;

		if (!last) {
			nl = memchr(line, '\n', (size_t)(end - line));
			nl = nl ? nl + 1 : end;
			t = memchr(line, ' ', (size_t)(nl - line));
			/* function symbols only: "ADDR T NAME[\t[MOD]]" */
			if (!t || t + 2 >= nl || !strchr("tTwW", t[1]) ||
			    t[1] == '\0' || t[2] != ' ') {
				line = nl;
				continue;
			}
			if (strspn(line, "0") < (size_t)(t - line))
				named = 1;
			z.next_in = (unsigned char *)line;
			z.avail_in = (uInt)(nl - line);
			line = nl;
		}
		do {
			z.next_out = chunk;
			z.avail_out = sizeof(chunk);
			zr = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR) {
				ret = -EIO;
				break;
			}
			strbuf_add(out, chunk, sizeof(chunk) - z.avail_out);
		} while (!ret && (z.avail_in || (last && zr != Z_STREAM_END)));
		if (ret || last)
			break;
	}
	deflateEnd(&z);
	/* kptr_restrict: every address reads as zero, useless */
	if (!ret && !named)
		ret = -EPERM;
	if (ret)
		strbuf_reset(out);
	return ret;
}

/* The walker's kernel ranges (kself.h) from text, line by line. */
static int kallsyms_kself(const struct strbuf *text, struct kself *k)
{
	const char *line = text->buf, *end = text->buf + text->len, *nl;

	kself_begin(k);
	for (; line < end; line = nl) {
		nl = memchr(line, '\n', (size_t)(end - line));
		nl = nl ? nl + 1 : end;
		kself_line(k, line);
	}
	return kself_end(k);
}

static int kallsyms_write(const char *session, const struct strbuf *gz)
{
	char *path = xasprintf("%s/kallsyms.gz", session);
	int ret = write_file(path, gz->buf, gz->len, 0600, 1);

	if (ret)
		unlink(path);
	free(path);
	return ret;
}

/* Read, compress and write at once: 0, or -errno. */
static int save_kallsyms(const char *session)
{
	struct strbuf text = STRBUF_INIT, gz = STRBUF_INIT;
	int ret = strbuf_read_file(&text, "/proc/kallsyms", 0);

	if (!ret)
		ret = kallsyms_compress(&text, &gz);
	if (!ret)
		ret = kallsyms_write(session, &gz);
	strbuf_release(&text);
	strbuf_release(&gz);
	return ret;
}

void record_kallsyms_init(struct record_kallsyms *k)
{
	memset(k, 0, sizeof(*k));
	strbuf_init(&k->text, 0);
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->cond, NULL);
}

static int kline_cmp(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * k->text's function symbols with an address, moved to its start, and
 * k->lines indexing them by address.  0, or -EPERM: every address is
 * zero (kptr_restrict).
 */
static int kallsyms_index(struct record_kallsyms *k)
{
	const char *line = k->text.buf, *end = k->text.buf + k->text.len;
	const char *nl;
	size_t kept = 0, alloc = 0;

	for (; line < end; line = nl) {
		struct kallsyms_line l;
		size_t len;

		/* function symbols with an address only */
		if (kallsyms_parse(line, end, &l, &nl) || !l.addr ||
		    !kallsyms_is_text(l.type))
			continue;
		len = (size_t)(nl - line);
		/* before line: moved bytes never overtake unread ones */
		memmove(k->text.buf + kept, line, len);
		ALLOC_GROW(k->lines, k->nr_lines + 1, alloc);
		k->lines[k->nr_lines].addr = l.addr;
		k->lines[k->nr_lines].off = (uint32_t)kept;
		k->lines[k->nr_lines].len = (uint32_t)len;
		k->nr_lines++;
		kept += len;
	}
	k->text.len = kept;
	if (!k->nr_lines)
		return -EPERM;
	qsort(k->lines, k->nr_lines, sizeof(*k->lines), kline_cmp);
	return 0;
}

/*
 * Read /proc/kallsyms once: the walker's ranges from it first, for the
 * loop that may wait for them (record_kallsyms_kself()), then the
 * session's copy's index.
 */
static void *kallsyms_thread(void *arg)
{
	struct record_kallsyms *k = arg;
	int err = strbuf_read_file(&k->text, "/proc/kallsyms", 0);

	pthread_mutex_lock(&k->lock);
	k->kself_err = err ? err : kallsyms_kself(&k->text, &k->kself);
	k->kself_done = 1;
	pthread_cond_broadcast(&k->cond);
	pthread_mutex_unlock(&k->lock);
	/*
	 * The index is needed only at the end: it gives way to the loop
	 * that reads the walker's events (on two CPUs, this thread and
	 * that loop shared one, and code objects waited 20 ms to be
	 * named, and were freed first).  Linux's nice value is per
	 * thread.
	 */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	k->err = err ? err : kallsyms_index(k);
	return NULL;
}

void record_kallsyms_begin(struct record_kallsyms *k)
{
	sigset_t all, old;

	if (k->state)
		return;
	/* signals stay the main thread's (its handlers, its EINTRs) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_create(&k->thread, NULL, kallsyms_thread, k))
		k->state = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int record_kallsyms_kself(void *data, struct kself *out)
{
	struct record_kallsyms *k = data;
	int ret = -1;

	if (k->state != 1 && k->state != 2)
		return -1;
	pthread_mutex_lock(&k->lock);
	while (!k->kself_done)
		pthread_cond_wait(&k->cond, &k->lock);
	if (!k->kself_err) {
		kself_copy(out, &k->kself);
		ret = 0;
	}
	pthread_mutex_unlock(&k->lock);
	return ret;
}

static void kallsyms_join(struct record_kallsyms *k)
{
	if (k->state != 1)
		return;
	pthread_join(k->thread, NULL);
	k->state = 2;
}

void record_kallsyms_used(struct record_kallsyms *k, uint64_t *pcs,
			  size_t n)
{
	free(k->used);
	k->used = pcs;
	k->nr_used = n;
}

/* the last line at or before pc, or nr_lines when none is */
static size_t kline_at(const struct record_kallsyms *k, uint64_t pc)
{
	size_t lo = 0, hi = k->nr_lines;

	if (!hi || pc < k->lines[0].addr)
		return k->nr_lines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->lines[mid].addr <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* marks every line at address a, from line i (lines[i].addr == a) on */
static size_t mark_addr(const struct record_kallsyms *k, char *mark,
			size_t i)
{
	uint64_t a = k->lines[i].addr;

	while (i > 0 && k->lines[i - 1].addr == a)
		i--;
	for (; i < k->nr_lines && k->lines[i].addr == a; i++)
		mark[i] = 1;
	return i;	/* the first line after them */
}

/*
 * The lines that name k->used, in address order, into out: for each
 * address and the one before it (a return address's call may be the
 * last instruction of the function before), the symbol at or before
 * it (every symbol at that address: a reader picks among them as from
 * the whole file), and the symbols at the next address, where it ends
 * for perf.  The first symbol always: the file is never empty.
 */
static void kallsyms_reduce(const struct record_kallsyms *k,
			    struct strbuf *out)
{
	char *mark = xcalloc(k->nr_lines, 1);
	size_t u, i;
	int j;

	mark_addr(k, mark, 0);
	for (u = 0; u < k->nr_used; u++)
		for (j = 0; j < 2; j++) {
			uint64_t pc = k->used[u] - (uint64_t)j;

			i = kline_at(k, pc);
			if (i == k->nr_lines)
				continue;
			i = mark_addr(k, mark, i);
			if (i < k->nr_lines)
				mark_addr(k, mark, i);
		}
	for (i = 0; i < k->nr_lines; i++)
		if (mark[i])
			strbuf_add(out, k->text.buf + k->lines[i].off,
				   k->lines[i].len);
	free(mark);
}

void record_kallsyms_keep(struct record_kallsyms *k, const char *session)
{
	struct strbuf gz = STRBUF_INIT, part = STRBUF_INIT;

	if (k->state == 3)
		return;
	if (!k->state) {
		save_kallsyms(session);
	} else {
		kallsyms_join(k);
		if (!k->err && k->used)
			kallsyms_reduce(k, &part);
		if (!k->err &&
		    !kallsyms_compress(k->used ? &part : &k->text, &gz))
			kallsyms_write(session, &gz);
	}
	strbuf_release(&part);
	strbuf_release(&gz);
	k->state = 3;
}

void record_kallsyms_release(struct record_kallsyms *k)
{
	kallsyms_join(k);
	strbuf_release(&k->text);
	free(k->lines);
	free(k->used);
	kself_release(&k->kself);
	pthread_mutex_destroy(&k->lock);
	pthread_cond_destroy(&k->cond);
}
