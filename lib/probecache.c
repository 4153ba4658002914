/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The probe's verdicts per perf binary (see probecache.h).
 */
#include "compat.h"
#include "probecache.h"
#include "alloc.h"
#include "fileio.h"
#include "numparse.h"
#include "paths.h"
#include "spawn.h"
#include "strbuf.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_NAME "probe-cache"
#define CACHE_MAX_ENTRIES 32
#define CACHE_MAX_BYTES (1 << 16)

char *doctor_cache_file(const char *name)
{
	char *tramp = paths_cache_dir(NULL, 0);
	char *slash, *f;

	/* paths_cache_dir() names <cache>/pyperf-run/trampoline. */
	if (!tramp)
		return NULL;
	slash = strrchr(tramp, '/');
	if (!slash) {
		free(tramp);
		return NULL;
	}
	*slash = '\0';
	f = xasprintf("%s/%s", tramp, name);
	free(tramp);
	return f;
}

char *probe_cache_file(void)
{
	return doctor_cache_file(CACHE_NAME);
}

struct key {
	char *path;		/* resolved */
	unsigned long long size, mtime_ns;
	char version[128];
};

static int make_key(const char *perf_path, const char *version_line,
		    struct key *k)
{
	char *found = spawn_which(perf_path);
	char real[PATH_MAX];
	struct stat st;
	size_t n;

	memset(k, 0, sizeof(*k));
	if (!found)
		return -ENOENT;
	if (!realpath(found, real)) {
		int e = errno;

		free(found);
		return -e;
	}
	free(found);
	if (stat(real, &st))
		return -errno;
	k->path = xstrdup(real);
	k->size = (unsigned long long)st.st_size;
	k->mtime_ns = (unsigned long long)st.st_mtim.tv_sec * 1000000000ULL +
		      (unsigned long long)st.st_mtim.tv_nsec;
	/* One field: no tabs or line ends. */
	n = version_line ? strcspn(version_line, "\r\n") : 0;
	if (n >= sizeof(k->version))
		n = sizeof(k->version) - 1;
	memcpy(k->version, version_line ? version_line : "", n);
	k->version[n] = '\0';
	for (n = 0; k->version[n]; n++)
		if (k->version[n] == '\t')
			k->version[n] = ' ';
	return 0;
}

static enum tristate tri_parse(const char *s)
{
	if (!strcmp(s, "yes"))
		return TRI_YES;
	if (!strcmp(s, "no"))
		return TRI_NO;
	return TRI_UNKNOWN;
}

/*
 * Split one line into its 8 fields (in place).  Returns 0 or -1 when
 * the line is not a v1 entry.
 */
static int split_line(char *line, char *f[8])
{
	int i;

	for (i = 0; i < 8; i++) {
		f[i] = line;
		if (i == 7)
			break;
		line = strchr(line, '\t');
		if (!line)
			return -1;
		*line++ = '\0';
	}
	return strcmp(f[0], "v1") ? -1 : 0;
}

static int same_key(char *f[8], const struct key *k)
{
	unsigned long size, mtime;

	return !strcmp(f[7], k->path) &&
	       !parse_ulong(f[1], 10, ULONG_MAX, &size) && size == k->size &&
	       !parse_ulong(f[2], 10, ULONG_MAX, &mtime) &&
	       mtime == k->mtime_ns &&
	       !strcmp(f[3], k->version);
}

int doctor_cache_read(const char *file, struct strbuf *sb)
{
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int ret;

	if (fd < 0)
		return -errno;
	/* Only a file of ours, that nobody else could have written. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	close(fd);
	ret = strbuf_read_file(sb, file, CACHE_MAX_BYTES);
	return ret < 0 ? ret : 0;
}

int probe_cache_get(const char *perf_path, const char *version_line,
		    struct probe_verdict *out)
{
	struct strbuf sb = STRBUF_INIT;
	struct key k;
	char *file = probe_cache_file(), *line, *next;
	int ret;

	memset(out, 0, sizeof(*out));
	out->jit_fix = TRI_UNKNOWN;
	if (!file)
		return -ENOENT;
	ret = make_key(perf_path ? perf_path : "perf", version_line, &k);
	if (ret)
		goto out;
	ret = doctor_cache_read(file, &sb);
	if (ret)
		goto out;
	ret = -ENOENT;
	for (line = sb.buf; line && *line; line = next) {
		char *f[8];
		long when;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (split_line(line, f) || !same_key(f, &k))
			continue;
		out->jit_fix = tri_parse(f[4]);
		snprintf(out->unwinder, sizeof(out->unwinder), "%s",
			 !strcmp(f[5], "libunwind") || !strcmp(f[5], "libdw")
				 ? f[5] : "");
		out->when = parse_long(f[6], 10, 0, LONG_MAX, &when) ? 0
								      : when;
		ret = 0;
	}
out:
	free(k.path);
	free(file);
	strbuf_release(&sb);
	return ret;
}

int probe_cache_put(const char *perf_path, const char *version_line,
		    const struct probe_verdict *v, char *err, size_t errlen)
{
	struct strbuf old = STRBUF_INIT, out = STRBUF_INIT;
	char *file = probe_cache_file(), *dir = NULL;
	char *line, *next;
	struct key k;
	size_t kept = 0;
	int ret = -1, r;

	memset(&k, 0, sizeof(k));
	if (!file)
		return set_err(err, errlen, "no cache directory: neither "
			       "XDG_CACHE_HOME nor HOME is set");
	r = make_key(perf_path ? perf_path : "perf", version_line, &k);
	if (r) {
		set_err(err, errlen, "cannot identify perf '%s': %s",
			perf_path ? perf_path : "perf", strerror(-r));
		goto out;
	}
	dir = xstrdup(file);
	*strrchr(dir, '/') = '\0';
	r = paths_mkdirs(dir, 0700);
	if (r) {
		set_err(err, errlen, "cannot create '%s': %s", dir,
			strerror(-r));
		goto out;
	}
	strbuf_addf(&out, "v1\t%llu\t%llu\t%s\t%s\t%s\t%lld\t%s\n", k.size,
		    k.mtime_ns, k.version, tristate_name(v->jit_fix),
		    v->unwinder[0] ? v->unwinder : "unknown", v->when,
		    k.path);
	/* Keep the other perfs' entries, newest first, a bounded number. */
	if (!doctor_cache_read(file, &old)) {
		for (line = old.buf; line && *line; line = next) {
			char *f[8];
			char *copy;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			copy = xstrdup(line);
			if (!split_line(line, f) && strcmp(f[7], k.path) &&
			    kept < CACHE_MAX_ENTRIES - 1) {
				strbuf_addf(&out, "%s\n", copy);
				kept++;
			}
			free(copy);
		}
	}
	r = write_file_atomic(file, out.buf, out.len, 0600,
			      WRITE_DURABLE);
	if (r) {
		set_err(err, errlen, "cannot write '%s': %s", file,
			strerror(-r));
		goto out;
	}
	ret = 0;
out:
	free(k.path);
	free(dir);
	free(file);
	strbuf_release(&old);
	strbuf_release(&out);
	return ret;
}
