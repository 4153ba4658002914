/* SPDX-License-Identifier: GPL-2.0-only */
/* The per-user cache of interpreter probes (see pycache.h). */
#include "compat.h"
#include "record/pycache.h"
#include "alloc.h"
#include "fileio.h"
#include "paths.h"
#include "pyinfo.h"
#include "strbuf.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
	write_file_atomic(path, sb.buf, sb.len, 0600, 0);
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
