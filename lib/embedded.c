/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The embedded trampoline as pyperf-run reaches it: keys, prebuilt and
 * cached builds, first-use builds, the environment that loads it, and
 * the permanent install into site-packages.  See embedded.h.
 */
#include "compat.h"
#include "embedded.h"
#include "alloc.h"
#include "fileio.h"
#include "paths.h"
#include "spawn.h"
#include "strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PPR_VERSION
#define PPR_VERSION "unknown"
#endif

/* --- keys ---------------------------------------------------------------- */

static void fnv_add(uint64_t *h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		*h ^= p[i];
		*h *= 0x100000001b3ULL;
	}
	/* A separator, so that "ab"+"c" differs from "a"+"bc". */
	*h ^= 0xff;
	*h *= 0x100000001b3ULL;
}

static void fnv_str(uint64_t *h, const char *s)
{
	fnv_add(h, s ? s : "", s ? strlen(s) : 0);
}

/* The checksum of the trampoline sources (SOURCE_ID), or our version. */
static char *source_id(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/SOURCE_ID", paths_trampoline_dir());

	if (strbuf_read_file(&sb, path, 4096) < 0)
		strbuf_addstr(&sb, PPR_VERSION);
	strbuf_rtrim(&sb);
	free(path);
	return strbuf_detach(&sb, NULL);
}

static const char *py_exe(const struct pyinfo *py)
{
	return py->executable && *py->executable ? py->executable : py->path;
}

/* The real path (PATH_MAX bytes) and stat of the interpreter; -1/errno. */
static int exe_identity(const struct pyinfo *py, char *real, struct stat *st)
{
	char *exe = spawn_which(py_exe(py));
	int e;

	if (!exe)
		return -1;
	if (!realpath(exe, real) || stat(real, st) < 0) {
		e = errno;
		free(exe);
		errno = e;
		return -1;
	}
	free(exe);
	return 0;
}

int embedded_key(const struct pyinfo *py, char *buf, size_t len,
		 char *err, size_t errlen)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char real[PATH_MAX];
	struct stat st;
	char *sid;
	char num[64];
	const char *soabi = py->soabi && *py->soabi ? py->soabi : NULL;
	char fallback[32];

	if (exe_identity(py, real, &st) < 0)
		return set_err(err, errlen, "cannot find the interpreter "
			       "'%s': %s", py_exe(py), strerror(errno));
	fnv_str(&h, real);
	snprintf(num, sizeof(num), "%lld.%09ld %lld",
		 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
		 (long long)st.st_size);
	fnv_str(&h, num);
	fnv_str(&h, py->version);
	fnv_str(&h, py->implementation);
	fnv_str(&h, py->soabi);
	fnv_str(&h, py->ext_suffix);
	fnv_str(&h, py->cflags_raw);
	fnv_str(&h, py->include_dir);
	fnv_str(&h, py->pydebug ? "debug" : "release");
	fnv_str(&h, py->machine);
	sid = source_id();
	fnv_str(&h, sid);
	free(sid);
	if (!soabi) {
		snprintf(fallback, sizeof(fallback), "cpython-%d%d",
			 py->major, py->minor);
		soabi = fallback;
	}
	if ((size_t)snprintf(buf, len, "%s-%016llx", soabi,
			     (unsigned long long)h) >= len)
		return set_err(err, errlen, "key too long");
	/* A key is a directory name: nothing else may come through. */
	if (strchr(buf, '/') || buf[0] == '.')
		return set_err(err, errlen, "odd SOABI '%s'", soabi);
	return 0;
}

/* --- finding builds ------------------------------------------------------ */

/*
 * A build directory we may load code from: a real directory (not a
 * symlink) owned by us or root, writable by nobody else.
 */
static int trusted_dir(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	if (st.st_uid != getuid() && st.st_uid != 0)
		return 0;
	return !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static char *lookup(const char *parent, const char *key)
{
	char *d = xasprintf("%s/%s", parent, key);

	if (trusted_dir(d))
		return d;
	free(d);
	return NULL;
}

int embedded_find(const struct pyinfo *py, char **dir)
{
	char key[256];
	char *cache, *d;

	*dir = NULL;
	if (embedded_key(py, key, sizeof(key), NULL, 0) < 0)
		return -ENOENT;
	d = lookup(paths_trampoline_dir(), key);
	if (!d) {
		cache = paths_cache_dir(NULL, 0);
		if (cache)
			d = lookup(cache, key);
		free(cache);
	}
	if (!d)
		return -ENOENT;
	*dir = d;
	return 0;
}

/* --- what a build needs -------------------------------------------------- */

void embedded_headers_hint(const struct pyinfo *py, char *buf, size_t len)
{
	const char *exe = py_exe(py);

	if (!strncmp(exe, "/usr/bin/", 9) || !strncmp(exe, "/bin/", 5))
		snprintf(buf, len, "install python%d.%d-dev (Debian/Ubuntu) "
			 "or python3-devel (Fedora)", py->major, py->minor);
	else
		snprintf(buf, len, "install the headers of '%s' (its "
			 "distribution's python%d.%d-dev or python3-devel "
			 "package), or rebuild it with them", exe,
			 py->major, py->minor);
}

static char *find_compiler(void)
{
	static const char *const names[] = { "cc", "gcc", "clang" };
	const char *cc = getenv("CC");
	size_t i;

	if (cc && *cc) {
		char *first = xstrndup(cc, strcspn(cc, " \t"));
		char *p = spawn_which(first);

		free(first);
		return p;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = spawn_which(names[i]);

		if (p)
			return p;
	}
	return NULL;
}

static char *build_script(void)
{
	return xasprintf("%s/src/build.sh", paths_trampoline_dir());
}

int embedded_check(const struct pyinfo *py, char *why, size_t len)
{
	char *dir, *cc, *script;
	char hint[256];
	int ok;

	if (!mode_embedded_supports(py, why, len))
		return 0;
	if (py->pydebug) {
		set_err(why, len, "debug builds of Python are not supported");
		return 0;
	}
	if (!embedded_find(py, &dir)) {
		free(dir);
		return 1;
	}
	script = build_script();
	ok = access(script, R_OK) == 0;
	if (!ok)
		set_err(why, len, "the trampoline sources are missing "
			"('%s')", script);
	free(script);
	if (!ok)
		return 0;
	if (!py->has_headers) {
		embedded_headers_hint(py, hint, sizeof(hint));
		set_err(why, len, "the headers of Python %s are missing "
			"('%s/Python.h'); %s", py->version,
			py->include_dir, hint);
		return 0;
	}
	cc = find_compiler();
	if (!cc) {
		const char *want = getenv("CC");

		set_err(why, len, "no C compiler ('%s') is installed; "
			"install build-essential (Debian/Ubuntu) or gcc "
			"(Fedora)", want && *want ? want : "cc");
		return 0;
	}
	free(cc);
	return 1;
}

int embedded_available(const struct pyinfo *py)
{
	char why[PPR_ERR_LEN];

	return embedded_check(py, why, sizeof(why));
}

/* --- building ------------------------------------------------------------ */

/*
 * One line out of build.sh's output for the error: its last
 * "build.sh: ..." line and "hint: ..." line, else its last line.
 */
static void last_line(const char *text, char *buf, size_t len)
{
	const char *msg = NULL, *hnt = NULL, *p;
	int mn = 0, hn = 0;

	for (p = text; *p; ) {
		const char *nl = strchrnul(p, '\n');
		int n = (int)(nl - p);

		if (!strncmp(p, "build.sh: ", 10)) {
			msg = p + 10;
			mn = n - 10;
		} else if (!strncmp(p, "hint: ", 6)) {
			hnt = p + 6;
			hn = n - 6;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (msg && hnt)
		snprintf(buf, len, "%.*s; %.*s", mn, msg, hn, hnt);
	else if (msg)
		snprintf(buf, len, "%.*s", mn, msg);
	else
		str_last_line(text, strlen(text), buf, len);
}

/* "<real path of the interpreter>\n", for ORIGIN files; NULL if unknown. */
static char *origin_of(const struct pyinfo *py)
{
	char real[PATH_MAX];
	struct stat st;

	if (exe_identity(py, real, &st) < 0)
		return NULL;
	return xasprintf("%s\n", real);
}

/*
 * Remove the older builds for the same interpreter (same ORIGIN, another
 * key: the interpreter or the sources changed since).  Only builds left
 * alone for ten minutes go, so that a process started just before with
 * the old one still finds its files.
 */
static void prune_stale(const char *parent, const char *key,
			const char *origin)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct strbuf sb = STRBUF_INIT;
		char *path, *op;
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, key))
			continue;
		path = xasprintf("%s/%s", parent, de->d_name);
		op = xasprintf("%s/ORIGIN", path);
		if (trusted_dir(path) && !lstat(path, &st) &&
		    now - st.st_mtime > 600 &&
		    strbuf_read_file(&sb, op, 1 << 14) >= 0 &&
		    !strcmp(sb.buf, origin))
			paths_remove_tree(path);
		strbuf_release(&sb);
		free(op);
		free(path);
	}
	closedir(d);
}

int embedded_build(const struct pyinfo *py, const char *parent,
		   char **dir, char *err, size_t errlen)
{
	char key[256], why[PPR_ERR_LEN], line[256];
	char *cache = NULL, *final = NULL, *tmp = NULL, *script = NULL;
	char *logpath = NULL, *origin = NULL;
	struct strbuf out = STRBUF_INIT;
	struct strvec env = STRVEC_INIT;
	static const char *const unset[] = {
		"PYTHONPATH", "PYTHONPERFSUPPORT", "PYTHON_PERF_JIT_SUPPORT",
		"PYTHONSTARTUP", "PYPERF_TRAMPOLINE", NULL,
	};
	int st, ret = -1;

	*dir = NULL;
	if (embedded_key(py, key, sizeof(key), err, errlen) < 0)
		goto out;
	if (!parent) {
		cache = paths_cache_dir(err, errlen);
		if (!cache)
			goto out;
		parent = cache;
	}
	final = xasprintf("%s/%s", parent, key);
	if (trusted_dir(final)) {
		*dir = final;
		final = NULL;
		ret = 0;
		goto out;
	}
	if (!mode_embedded_supports(py, why, sizeof(why))) {
		set_err(err, errlen, "cannot build the embedded trampoline "
			"for '%s': %s", py_exe(py), why);
		goto out;
	}
	if (!embedded_check(py, why, sizeof(why))) {
		set_err(err, errlen, "cannot build the embedded trampoline "
			"for Python %s: %s", py->version, why);
		goto out;
	}
	st = paths_mkdirs(parent, 0700);
	if (st < 0) {
		set_err(err, errlen, "cannot create '%s': %s", parent,
			strerror(-st));
		goto out;
	}
	if (!trusted_dir(parent)) {
		set_err(err, errlen, "'%s' is writable by other users or "
			"not ours; refusing to build there", parent);
		goto out;
	}
	tmp = xasprintf("%s/.tmp-%s-XXXXXX", parent, key);
	if (!mkdtemp(tmp)) {
		set_err(err, errlen, "cannot create a directory in '%s': %s",
			parent, strerror(errno));
		goto out;
	}
	script = build_script();
	{
		const char *argv[] = { "/bin/sh", script, py_exe(py), tmp,
				       NULL };

		spawn_env_build(&env, unset);
		st = spawn_capture(argv, env.v, &out, &out, 1 << 20,
				   why, sizeof(why));
	}
	if (st < 0) {
		set_err(err, errlen, "%s", why);
		goto out;
	}
	logpath = xasprintf("%s/%s.log", parent, key);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		spawn_describe_status(st, why, sizeof(why));
		last_line(out.buf, line, sizeof(line));
		write_file(logpath, out.buf, out.len, 0600, 0);
		set_err(err, errlen, "building the embedded trampoline for "
			"Python %s failed (%s%s%s); the log is in '%s'",
			py->version, why, line[0] ? ": " : "", line,
			logpath);
		goto out;
	}
	unlink(logpath);
	origin = origin_of(py);
	if (origin) {
		char *op = xasprintf("%s/ORIGIN", tmp);

		write_file(op, origin, strlen(origin), 0644, 0);
		free(op);
	}
	if (rename(tmp, final) < 0) {
		/* Someone else finished the same build first: use theirs. */
		if ((errno == EEXIST || errno == ENOTEMPTY) &&
		    trusted_dir(final)) {
			paths_remove_tree(tmp);
		} else {
			set_err(err, errlen, "cannot rename '%s' to '%s': %s",
				tmp, final, strerror(errno));
			goto out;
		}
	}
	free(tmp);
	tmp = NULL;
	if (origin)
		prune_stale(parent, key, origin);
	*dir = final;
	final = NULL;
	ret = 0;
out:
	free(origin);
	if (tmp)
		paths_remove_tree(tmp);
	free(tmp);
	free(cache);
	free(final);
	free(script);
	free(logpath);
	strbuf_release(&out);
	strvec_clear(&env);
	return ret;
}

/* --- the environment that loads it --------------------------------------- */

int embedded_env(const struct pyinfo *py, const char *dir,
		 enum mode_name mode, const char *dump_dir,
		 struct strvec *env_set, char *err, size_t errlen)
{
	const char *old = getenv("PYTHONPATH");
	char *boot = xasprintf("%s/boot", dir);
	char *ext = xasprintf("%s/_pyperf_trampoline%s", boot,
			      py->ext_suffix);
	int ret = -1;

	if (mode != MODE_PERF && mode != MODE_JIT) {
		set_err(err, errlen, "the embedded trampoline has no '%s' "
			"mode", mode_name_str(mode));
		goto out;
	}
	if (strchr(boot, ':')) {
		set_err(err, errlen, "'%s' contains a colon and cannot be "
			"put on PYTHONPATH", boot);
		goto out;
	}
	if (access(ext, R_OK) < 0) {
		set_err(err, errlen, "the embedded trampoline build '%s' is "
			"incomplete: %s", ext, strerror(errno));
		goto out;
	}
	if (dump_dir && strchr(dump_dir, '\n')) {
		set_err(err, errlen, "odd dump directory '%s'", dump_dir);
		goto out;
	}
	if (old && *old)
		strvec_pushf(env_set, "PYTHONPATH=%s:%s", boot, old);
	else
		strvec_pushf(env_set, "PYTHONPATH=%s", boot);
	strvec_pushf(env_set, "PYPERF_TRAMPOLINE=%s",
		     mode == MODE_PERF ? "perf" : "jit");
	if (dump_dir && strcmp(dump_dir, "/tmp"))
		strvec_pushf(env_set, "PYPERF_TRAMPOLINE_DIR=%s", dump_dir);
	ret = 0;
out:
	free(boot);
	free(ext);
	return ret;
}

int embedded_prepare(const struct pyinfo *py, enum mode_name mode,
		     const char *dump_dir, struct strvec *env_set,
		     char *err, size_t errlen)
{
	char *dir = NULL;
	int ret;

	if (embedded_find(py, &dir) < 0 &&
	    embedded_build(py, NULL, &dir, err, errlen) < 0)
		return -1;
	ret = embedded_env(py, dir, mode, dump_dir, env_set, err, errlen);
	free(dir);
	return ret;
}

void embedded_scan_args(int argc, const char *const *argv,
			struct embedded_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < argc && argv[i]; i++) {
		const char *s = argv[i];

		if (s[0] != '-' || !s[1] || !strcmp(s, "--"))
			return;
		if (s[1] == '-') {
			if (!strcmp(s, "--check-hash-based-pycs"))
				i++;
			continue;
		}
		for (s++; *s; s++) {
			if (*s == 'E' || *s == 'I')
				a->isolated = 1;
			if (*s == 'c' || *s == 'm')
				return;
			if (*s == 'X' || *s == 'W') {
				const char *v = s[1] ? s + 1 : NULL;

				if (!v && ++i < argc)
					v = argv[i];
				if (*s == 'X' && v && !strcmp(v, "perf"))
					a->xmode = MODE_PERF;
				else if (*s == 'X' && v &&
					 !strcmp(v, "perf_jit"))
					a->xmode = MODE_JIT;
				break;
			}
		}
	}
}

/* --- permanent install --------------------------------------------------- */

#define MANIFEST "pyperf_trampoline.pyperf-run-manifest"
#define BOOT_MODULE "_pyperf_trampoline_boot"

static int site_dir(const struct pyinfo *py, char *err, size_t errlen)
{
	struct stat st;

	if (!py->purelib || !*py->purelib)
		return set_err(err, errlen, "'%s' has no site-packages "
			       "directory", py_exe(py));
	if (stat(py->purelib, &st) < 0)
		return set_err(err, errlen, "cannot use site-packages "
			       "'%s': %s", py->purelib, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return set_err(err, errlen, "cannot use site-packages "
			       "'%s': %s", py->purelib, strerror(ENOTDIR));
	return 0;
}

/* Only plain names in our manifest: never a path out of site-packages. */
static int plain_name(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

void embedded_status_release(struct embedded_status *st)
{
	free(st->site);
	free(st->manifest);
	free(st->key);
	free(st->version);
	strvec_clear(&st->files);
	strvec_clear(&st->missing);
	memset(st, 0, sizeof(*st));
}

int embedded_status_read(const struct pyinfo *py, struct embedded_status *st,
			 char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	const char *line;
	int r, ret = -1;

	memset(st, 0, sizeof(*st));
	st->key = xstrdup("");
	st->version = xstrdup("");
	if (site_dir(py, err, errlen) < 0)
		goto out;
	st->site = xstrdup(py->purelib);
	st->manifest = xasprintf("%s/%s", st->site, MANIFEST);
	r = strbuf_read_file(&sb, st->manifest, 1 << 16);
	if (r == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (r < 0) {
		set_err(err, errlen, "cannot read '%s': %s", st->manifest,
			strerror(-r));
		goto out;
	}
	st->installed = 1;
	for (line = sb.buf; *line; ) {
		const char *nl = strchrnul(line, '\n');
		char *l = xstrndup(line, (size_t)(nl - line));

		if (!strncmp(l, "file=", 5) && plain_name(l + 5)) {
			char *p = xasprintf("%s/%s", st->site, l + 5);
			struct stat sst;

			strvec_push(&st->files, p);
			if (lstat(p, &sst) < 0)
				strvec_push(&st->missing, p);
			free(p);
		} else if (!strncmp(l, "key=", 4)) {
			free(st->key);
			st->key = xstrdup(l + 4);
		} else if (!strncmp(l, "version=", 8)) {
			free(st->version);
			st->version = xstrdup(l + 8);
		}
		free(l);
		line = *nl ? nl + 1 : nl;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

/* Put a copy of src at dst, replacing it atomically, mode 0644. */
static int install_copy(const char *src, const char *dst, char *err,
			size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	int r;

	r = strbuf_read_file(&sb, src, 64 << 20);
	if (r < 0) {
		strbuf_release(&sb);
		return set_err(err, errlen, "cannot read '%s': %s", src,
			       strerror(-r));
	}
	r = write_file_atomic(dst, sb.buf, sb.len, 0644, 0);
	strbuf_release(&sb);
	if (r)
		return set_err(err, errlen, "cannot create '%s': %s", dst,
			       strerror(-r));
	return 0;
}

static int refuse_unsupported(const struct pyinfo *py, char *err,
			      size_t errlen)
{
	char why[256];

	/*
	 * 3.12 and 3.13 have CPython's own trampoline too; installed, ours
	 * serves PYPERF_TRAMPOLINE=perf|jit|embedded there, and on 3.12
	 * -X perf_jit (which CPython lacks), while -X perf (and on 3.13
	 * -X perf_jit) stay CPython's own.
	 */
	if (!mode_embedded_supports(py, why, sizeof(why)))
		return set_err(err, errlen, "cannot install the embedded "
			       "trampoline into '%s': %s", py_exe(py), why);
	if (py->pydebug)
		return set_err(err, errlen, "cannot install the embedded "
			       "trampoline into '%s': debug builds of Python "
			       "are not supported", py_exe(py));
	return 0;
}

int embedded_install(const struct pyinfo *py, int *code,
		     char *err, size_t errlen)
{
	struct embedded_status st;
	struct strbuf man = STRBUF_INIT;
	char key[256];
	char *dir = NULL, *ext = NULL;
	const char *names[3];
	const char *from[3];
	char *srcs[3] = { NULL, NULL, NULL };
	size_t i;
	int r, ret = -1;

	if (code)
		*code = 0;
	memset(&st, 0, sizeof(st));
	if (refuse_unsupported(py, err, errlen) < 0)
		goto out;
	if (embedded_status_read(py, &st, err, errlen) < 0)
		goto out;
	if (st.installed) {
		if (code)
			*code = -EEXIST;
		set_err(err, errlen, "the embedded trampoline is installed "
			"already in '%s'", st.site);
		goto out;
	}
	if (access(st.site, W_OK) < 0) {
		set_err(err, errlen, "cannot write to '%s': %s", st.site,
			strerror(errno));
		goto out;
	}
	if (embedded_key(py, key, sizeof(key), err, errlen) < 0)
		goto out;
	if (embedded_find(py, &dir) < 0 &&
	    embedded_build(py, NULL, &dir, err, errlen) < 0)
		goto out;
	ext = xasprintf("_pyperf_trampoline%s", py->ext_suffix);
	names[0] = BOOT_MODULE ".py";
	from[0] = "boot";
	names[1] = ext;
	from[1] = "boot";
	names[2] = "pyperf_trampoline.pth";
	from[2] = "site";
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *dst = xasprintf("%s/%s", st.site, names[i]);
		struct stat sst;
		int exists = lstat(dst, &sst) == 0;

		srcs[i] = xasprintf("%s/%s/%s", dir, from[i], names[i]);
		free(dst);
		if (exists) {
			set_err(err, errlen, "'%s/%s' exists already and was "
				"not installed by pyperf-run; not touching it",
				st.site, names[i]);
			goto out;
		}
		if (access(srcs[i], R_OK) < 0) {
			set_err(err, errlen, "the build '%s' is incomplete: "
				"'%s': %s", dir, srcs[i], strerror(errno));
			goto out;
		}
	}
	/* The manifest first: an interrupted install can be uninstalled. */
	strbuf_addf(&man, "# Installed by 'pyperf-run trampoline install'; "
		    "'pyperf-run trampoline uninstall' removes\n"
		    "# exactly these files.\nversion=%s\nkey=%s\n",
		    PPR_VERSION, key);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		strbuf_addf(&man, "file=%s\n", names[i]);
	r = write_file(st.manifest, man.buf, man.len, 0644, 0);
	if (r < 0) {
		set_err(err, errlen, "cannot write '%s': %s", st.manifest,
			strerror(-r));
		goto out;
	}
	/* The .pth last: it only takes effect once the rest is there. */
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char *dst = xasprintf("%s/%s", st.site, names[i]);

		r = install_copy(srcs[i], dst, err, errlen);
		free(dst);
		if (r < 0)
			goto out;
	}
	ret = 0;
out:
	for (i = 0; i < ARRAY_SIZE(srcs); i++)
		free(srcs[i]);
	free(dir);
	free(ext);
	strbuf_release(&man);
	embedded_status_release(&st);
	return ret;
}

/* Remove __pycache__/<module>.*.pyc left by imports of our module. */
static void remove_pycache(const char *site, const char *module)
{
	char *cache = xasprintf("%s/__pycache__", site);
	size_t n = strlen(module);
	DIR *d = opendir(cache);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d))) {
			const char *nm = de->d_name;
			size_t len = strlen(nm);

			if (!strncmp(nm, module, n) && nm[n] == '.' &&
			    len > 4 && !strcmp(nm + len - 4, ".pyc"))
				unlinkat(dirfd(d), nm, 0);
		}
		closedir(d);
		/* Only when it is empty now (it may hold other modules). */
		rmdir(cache);
	}
	free(cache);
}

int embedded_uninstall(const struct pyinfo *py, int *code,
		       char *err, size_t errlen)
{
	struct embedded_status st;
	size_t i;
	int ret = -1;

	if (code)
		*code = 0;
	if (embedded_status_read(py, &st, err, errlen) < 0)
		goto out;
	if (!st.installed) {
		if (code)
			*code = -ENOENT;
		set_err(err, errlen, "the embedded trampoline is not "
			"installed in '%s'", st.site);
		goto out;
	}
	/* The .pth goes first, so that nothing half-removed gets loaded. */
	for (i = st.files.nr; i-- > 0; ) {
		if (unlink(st.files.v[i]) < 0 && errno != ENOENT) {
			set_err(err, errlen, "cannot remove '%s': %s",
				st.files.v[i], strerror(errno));
			goto out;
		}
	}
	remove_pycache(st.site, BOOT_MODULE);
	if (unlink(st.manifest) < 0 && errno != ENOENT) {
		set_err(err, errlen, "cannot remove '%s': %s", st.manifest,
			strerror(errno));
		goto out;
	}
	ret = 0;
out:
	embedded_status_release(&st);
	return ret;
}
