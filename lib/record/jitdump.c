/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Jitdump files: mending CPython 3.13.0's forked dumps, and the private
 * directory the embedded trampoline writes them into (see jitdump.h).
 */
#include "compat.h"
#include "record/jitdump.h"
#include "alloc.h"
#include "byteorder.h"
#include "fileio.h"
#include "strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* --- jitdump repair ------------------------------------------------------ */

#define JD_HEADER_MIN 40
#define JD_MAGIC 0x4A695444u	/* "JiTD" as written on little endian */
#define JD_MAX_ID 5u
#define JD_CODE_LOAD 0u
#define JD_CODE_UNWINDING_INFO 4u
#define JD_MAX_RECORD (1u << 24)
#define JD_MAX_GAP 10800000000000ull	/* 3 hours in ns */

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
	id = get_le32(d + off);
	size = get_le32(d + off + 4);
	ts = get_le64(d + off + 8);
	if (id > JD_MAX_ID || size < 16 || size > JD_MAX_RECORD ||
	    size > len - off)
		return 0;
	if (last && (ts < last || ts - last > JD_MAX_GAP))
		return 0;
	if (id == JD_CODE_LOAD) {
		if (size < 56 || get_le32(d + off + 16) != pid ||
		    get_le64(d + off + 24) != get_le64(d + off + 32) ||
		    get_le64(d + off + 40) > size - 56 ||
		    get_le64(d + off + 48) > max_index + (1u << 20))
			return 0;
	}
	return 1;
}

/*
 * A forked child's fragment (below): at least this long (shorter runs
 * of bytes repeat by chance), found this far into a record at most (a
 * code load of 3.13's is about 150 bytes and its unwinding info 112;
 * each place tried searches the file before it).
 */
#define JD_MIN_FRAGMENT 16u
#define JD_MAX_SPLIT 512u

/*
 * The record that should begin at off, cut in two by a fragment:
 * CPython 3.13.0 writes its dump through a stdio buffer, and a forked
 * child flushes its copy of that buffer into the file it shares with
 * the parent, between two of the parent's own flushes, wherever they
 * cut the parent's records.  The fragment is bytes the parent wrote
 * before (the buffer's content, which the parent flushed itself), so
 * it is found as the longest run of bytes at off + j that the file
 * holds earlier, whose removal leaves a sound record at off followed
 * by a sound header (or the end of the file).  Its start in *at, its
 * length in *flen; 0: found.
 */
static int jd_fragment(const unsigned char *d, size_t len, size_t hsize,
		       size_t off, uint64_t last, uint32_t pid,
		       uint64_t max_index, size_t *at, size_t *flen)
{
	unsigned char *tmp = NULL;
	size_t j, n, lo, hi, end;
	int found = -1;

	for (j = 0; j < JD_MAX_SPLIT && off + j + JD_MIN_FRAGMENT <= len &&
	     found; j++) {
		const unsigned char *f = d + off + j;

		if (!memmem(d + hsize, off - hsize, f, JD_MIN_FRAGMENT))
			continue;
		/* the longest run the file holds before off */
		lo = JD_MIN_FRAGMENT;
		hi = len - off - j;
		while (lo < hi) {
			size_t mid = lo + (hi - lo + 1) / 2;

			if (memmem(d + hsize, off - hsize, f, mid))
				lo = mid;
			else
				hi = mid - 1;
		}
		/* the record at off without it, its end at a header */
		n = len - off - lo;
		tmp = xrealloc(tmp, n);
		memcpy(tmp, d + off, j);
		memcpy(tmp + j, f + lo, n - j);
		if (!jd_plausible(tmp, n, 0, last, pid, max_index))
			continue;
		end = get_le32(tmp + 4);
		if (end < j)
			continue;	/* the fragment is after the record */
		if (end == n || jd_plausible(tmp, n, end, get_le64(tmp + 8),
					     pid, max_index + 1)) {
			*at = off + j;
			*flen = lo;
			found = 0;
		}
	}
	free(tmp);
	return found;
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
	if (get_le32(d) != JD_MAGIC)
		goto out;
	hsize = get_le32(d + 8);
	if (hsize < JD_HEADER_MIN || hsize > len)
		goto out;
	strbuf_add(&out, d, hsize);
	hpid = get_le32(d + 20);
	off = hsize;
	while (off + 16 <= len) {
		size_t next, at = 0, flen = 0;
		int sound = jd_plausible(d, len, off, last, hpid, max_index);

		/*
		 * no record at off, or one whose end is no header: a record
		 * cut in two by a forked child's fragment is mended in place,
		 * and the file read on as if the fragment was never there
		 */
		if ((!sound || (off + get_le32(d + off + 4) != len &&
				!jd_plausible(d, len, off + get_le32(d + off + 4),
					      get_le64(d + off + 8), hpid,
					      max_index + 1))) &&
		    !jd_fragment(d, len, hsize, off, last, hpid, max_index,
				 &at, &flen)) {
			memmove(in.buf + at, in.buf + at + flen,
				len - at - flen);
			len -= flen;
			in.len = len;
			dropped += (long)flen;
			continue;
		}
		if (sound) {
			size_t size = get_le32(d + off + 4);
			uint32_t id = get_le32(d + off);

			last = get_le64(d + off + 8);
			if (id == JD_CODE_LOAD && size >= 56 &&
			    get_le64(d + off + 48) <= max_index) {
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
				max_index = get_le64(d + off + 48);
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
			end = next + get_le32(d + next + 4);
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
	r = write_file_atomic(path, out.buf, out.len, 0600, 0);
	if (r)
		dropped = r;
out:
	strbuf_release(&in);
	strbuf_release(&out);
	return dropped;
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
