/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The session directory and its meta file (see session.h).
 */
#include "compat.h"
#include "session.h"
#include "alloc.h"
#include "fileio.h"
#include "strbuf.h"
#include "paths.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

void session_meta_init(struct session_meta *m)
{
	strvec_init(&m->keys);
	strvec_init(&m->values);
}

void session_meta_release(struct session_meta *m)
{
	strvec_clear(&m->keys);
	strvec_clear(&m->values);
}

static long meta_find(const struct session_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->keys.nr; i++)
		if (!strcmp(m->keys.v[i], key))
			return (long)i;
	return -1;
}

void session_meta_set(struct session_meta *m, const char *key,
		      const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	long i;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	i = meta_find(m, key);
	if (i >= 0) {
		free((char *)m->values.v[i]);
		m->values.v[i] = strbuf_detach(&sb, NULL);
		return;
	}
	strvec_push(&m->keys, key);
	strvec_push(&m->values, sb.buf);
	strbuf_release(&sb);
}

const char *session_meta_get(const struct session_meta *m, const char *key)
{
	long i = meta_find(m, key);

	return i < 0 ? NULL : m->values.v[i];
}

void session_meta_format(const struct session_meta *m, struct strbuf *out)
{
	size_t i;

	for (i = 0; i < m->keys.nr; i++) {
		const char *v;

		strbuf_addf(out, "%s=", m->keys.v[i]);
		for (v = m->values.v[i]; *v; v++) {
			if (*v == '\\')
				strbuf_addstr(out, "\\\\");
			else if (*v == '\n')
				strbuf_addstr(out, "\\n");
			else
				strbuf_addch(out, *v);
		}
		strbuf_addch(out, '\n');
	}
}

int session_meta_print(const struct session_meta *m, FILE *fp)
{
	struct strbuf sb = STRBUF_INIT;

	session_meta_format(m, &sb);
	fwrite(sb.buf, 1, sb.len, fp);
	strbuf_release(&sb);
	return ferror(fp) ? -1 : 0;
}

static int valid_key(const char *k, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') ||
		      (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
			return 0;
	return 1;
}

int session_meta_parse(struct session_meta *m, const char *text,
		       size_t len, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	unsigned line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(eol - p));
		struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
		const char *v;

		line++;
		if (eol == p || *p == '#') {
			p = nl ? nl + 1 : end;
			continue;
		}
		if (!eq || !valid_key(p, (size_t)(eq - p)))
			return set_err(err, errlen,
				       "line %u is not a key=value line",
				       line);
		strbuf_add(&key, p, (size_t)(eq - p));
		for (v = eq + 1; v < eol; v++) {
			if (*v == '\\' && v + 1 < eol) {
				v++;
				strbuf_addch(&val, *v == 'n' ? '\n' : *v);
			} else {
				strbuf_addch(&val, *v);
			}
		}
		session_meta_set(m, key.buf, "%s", val.buf);
		strbuf_release(&key);
		strbuf_release(&val);
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int session_meta_write(const char *dir, const struct session_meta *m,
		       char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/meta", dir);
	int r;

	session_meta_format(m, &sb);
	r = write_file_atomic(path, sb.buf, sb.len, 0600, WRITE_DURABLE);
	if (r)
		set_err(err, errlen, "cannot write '%s': %s", path,
			strerror(-r));
	strbuf_release(&sb);
	free(path);
	return r ? -1 : 0;
}

/* DIR/perf.data: there, a regular file, not empty. */
static int open_perf_data(struct session *s, int have_meta, char *err,
			  size_t errlen)
{
	struct stat st;

	if (stat(s->perf_data, &st) < 0) {
		int e = errno;

		if (e == ENOENT && !have_meta)
			return set_err(err, errlen,
				       "'%s' is not a pyperf-run session "
				       "(no meta file, no perf.data)", s->dir);
		if (e == ENOENT)
			return set_err(err, errlen,
				       "session '%s' has no perf.data "
				       "(recording failed or incomplete?)",
				       s->dir);
		return set_err(err, errlen, "cannot open '%s': %s",
			       s->perf_data, strerror(e));
	}
	if (!S_ISREG(st.st_mode))
		return set_err(err, errlen, "'%s' is not a regular file",
			       s->perf_data);
	if (!st.st_size)
		return set_err(err, errlen,
			       "'%s' is empty (the recording was "
			       "interrupted?)", s->perf_data);
	s->perf_data_size = st.st_size;
	return 0;
}

/* DIR/meta into s->meta, its format checked. */
static int open_meta(struct session *s, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf("%s/meta", s->dir);
	int r = strbuf_read_file(&sb, path, 1 << 20);
	char why[PPR_ERR_LEN], want[24];
	const char *format;
	int ret = -1;

	if (r < 0) {
		if (r == -ENOENT)
			set_err(err, errlen, "'%s' is not a pyperf-run "
				"session (no meta file)", s->dir);
		else
			set_err(err, errlen, "cannot read '%s': %s", path,
				strerror(-r));
		goto out;
	}
	if (memchr(sb.buf, '\0', sb.len)) {
		set_err(err, errlen,
			"'%s' is not a pyperf-run session meta file", path);
		goto out;
	}
	if (session_meta_parse(&s->meta, sb.buf, sb.len, why, sizeof(why))) {
		set_err(err, errlen, "'%s' is not a pyperf-run session meta "
			"file (%s)", path, why);
		goto out;
	}
	format = session_meta_get(&s->meta, "format");
	if (!format) {
		set_err(err, errlen, "'%s' is not a pyperf-run session meta "
			"file (no format line)", path);
		goto out;
	}
	snprintf(want, sizeof(want), "%d", SESSION_META_FORMAT);
	if (strcmp(format, want)) {
		set_err(err, errlen, "session '%s' has format %s; this "
			"pyperf-run reads format %d", s->dir, format,
			SESSION_META_FORMAT);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	free(path);
	return ret;
}

int session_open(struct session *s, const char *dir, unsigned flags,
		 char *err, size_t errlen)
{
	struct stat st;
	char *path;
	int have_meta;

	memset(s, 0, sizeof(*s));
	session_meta_init(&s->meta);
	if (stat(dir, &st) < 0) {
		int e = errno;

		set_err(err, errlen, "cannot open session '%s': %s", dir,
			strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		set_err(err, errlen, "'%s' is not a pyperf-run session (not a "
			"directory)", dir);
		return -ENOTDIR;
	}
	s->dir = xstrdup(dir);
	s->perf_data = xasprintf("%s/perf.data", dir);
	s->maps = xasprintf("%s/maps", dir);
	path = xasprintf("%s/buildid", dir);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		s->buildid = path;
	else
		free(path);
	path = xasprintf("%s/meta", dir);
	have_meta = !access(path, F_OK);
	free(path);
	if (open_perf_data(s, have_meta, err, errlen) < 0)
		goto fail;
	if (open_meta(s, err, errlen) < 0) {
		if (!(flags & SESSION_ANY_META))
			goto fail;
		/* perf report reads any perf.data: meta only helps */
		session_meta_release(&s->meta);
	}
	return 0;
fail:
	session_close(s);
	return -EINVAL;
}

void session_close(struct session *s)
{
	free(s->dir);
	free(s->perf_data);
	free(s->maps);
	free(s->buildid);
	session_meta_release(&s->meta);
	memset(s, 0, sizeof(*s));
}

/* 1 when dir holds nothing, or looks like a session. */
static int dir_is_session_or_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int entries = 0, session = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		entries++;
		if (!strcmp(de->d_name, "meta") ||
		    !strcmp(de->d_name, "perf.data"))
			session = 1;
	}
	closedir(d);
	return session || !entries;
}

int session_check_target(const char *dir, int *exists,
			 char *err, size_t errlen)
{
	struct stat st;

	*exists = 0;
	if (!*dir)
		return set_err(err, errlen, "the session directory name "
			       "is empty");
	if (lstat(dir, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return set_err(err, errlen, "cannot use '%s': %s", dir,
			       strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return set_err(err, errlen, "'%s' exists and is not a "
			       "directory", dir);
	if (!dir_is_session_or_empty(dir))
		return set_err(err, errlen, "'%s' exists and is not a "
			       "pyperf-run session", dir);
	*exists = 1;
	return 0;
}

int session_create_tmp(const char *dir, char **tmp, char *err,
		       size_t errlen)
{
	static const char *const subdirs[] = { "maps", "jit", "buildid" };
	char *t;
	size_t n = strlen(dir), i;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	t = xasprintf("%.*s.tmp-XXXXXX", (int)n, dir);
	if (!mkdtemp(t)) {
		set_err(err, errlen, "cannot create a directory next to "
			"'%s': %s", dir, strerror(errno));
		free(t);
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(subdirs); i++) {
		char *s = xasprintf("%s/%s", t, subdirs[i]);
		int r = mkdir(s, 0700);

		if (r < 0) {
			set_err(err, errlen, "cannot create '%s': %s", s,
				strerror(errno));
			free(s);
			paths_remove_tree(t);
			free(t);
			return -1;
		}
		free(s);
	}
	*tmp = t;
	return 0;
}

int session_commit(const char *tmp, const char *dir, char *err,
		   size_t errlen)
{
	char *old = NULL;
	size_t n = strlen(dir);
	struct stat st;
	int ret = -1;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	old = xasprintf("%.*s.old", (int)n, dir);
	if (lstat(dir, &st) == 0) {
		int r = paths_remove_tree(old);

		if (r < 0 && r != -ENOENT) {
			set_err(err, errlen, "cannot remove '%s': %s", old,
				strerror(-r));
			goto out;
		}
		if (rename(dir, old) < 0) {
			set_err(err, errlen, "cannot rename '%s' to '%s': %s",
				dir, old, strerror(errno));
			goto out;
		}
	}
	if (rename(tmp, dir) < 0) {
		set_err(err, errlen, "cannot rename '%s' to '%s': %s", tmp,
			dir, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(old);
	return ret;
}
