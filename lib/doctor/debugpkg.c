/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which package holds an object's debug symbols, by build-id (see
 * debugpkg.h): dpkg names the object's package, apt-cache show lists
 * the candidates' Build-Ids per version, apt-get -s tells what
 * installing one would change.
 */
#include "compat.h"
#include "doctor/debugpkg.h"
#include "alloc.h"
#include "elfinfo.h"
#include "probecache.h"
#include "fileio.h"
#include "paths.h"
#include "spawn.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CACHE_NAME "debugpkg-cache"
#define CACHE_FIELDS 16
#define CACHE_MAX_ENTRIES 32
#define DPKG_STATUS "/var/lib/dpkg/status"
#define APT_LISTS "/var/lib/apt/lists"
#define OUTPUT_MAX (1 << 20)
#define MAX_STANZAS 32

const char *debugpkg_verdict_name(enum debugpkg_verdict v)
{
	switch (v) {
	case DEBUGPKG_INSTALLED:
		return "installed";
	case DEBUGPKG_AVAILABLE:
		return "available";
	case DEBUGPKG_OTHER_VERSION:
		return "other_version";
	case DEBUGPKG_NONE:
		return "none";
	default:
		return "unknown";
	}
}

static enum debugpkg_verdict verdict_parse(const char *s)
{
	enum debugpkg_verdict v;

	for (v = DEBUGPKG_UNKNOWN; v <= DEBUGPKG_NONE; v++)
		if (!strcmp(s, debugpkg_verdict_name(v)))
			return v;
	return DEBUGPKG_UNKNOWN;
}

/* --- the parsers ---------------------------------------------------------- */

/* Copy the n bytes at s into buf (cut to fit, NUL-terminated). */
static void copy_n(char *buf, size_t len, const char *s, size_t n)
{
	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* Is word (n bytes) one of the blank-separated words of s[0..len)? */
static int has_word(const char *s, size_t len, const char *word, size_t n)
{
	size_t i = 0;

	while (i < len) {
		size_t start;

		while (i < len && (s[i] == ' ' || s[i] == '\t' ||
				   s[i] == '\n'))
			i++;
		start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\n')
			i++;
		if (i - start == n && n && !memcmp(s + start, word, n))
			return 1;
	}
	return 0;
}

/* Does the line at p start with the field name (case-insensitive)? */
static const char *field_value(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);

	if (n <= k || strncasecmp(p, name, k) || p[k] != ':')
		return NULL;
	p += k + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

size_t debugpkg_parse_show(const char *text, const char *build_id,
			   struct debugpkg_stanza *out, size_t max)
{
	size_t nr = 0, idlen = build_id ? strlen(build_id) : 0;
	struct debugpkg_stanza cur;
	int in_stanza = 0, in_ids = 0;
	const char *p = text;

	memset(&cur, 0, sizeof(cur));
	for (;;) {
		size_t n = strcspn(p, "\n");
		const char *v;

		if (!n) {
			/* an empty line (or the end) closes a stanza */
			if (in_stanza && cur.package[0]) {
				if (nr < max)
					out[nr] = cur;
				nr++;
			}
			memset(&cur, 0, sizeof(cur));
			in_stanza = in_ids = 0;
			if (!*p)
				break;
			p++;
			continue;
		}
		in_stanza = 1;
		if (*p == ' ' || *p == '\t') {
			/* a continuation line of the field before */
			if (in_ids && has_word(p, n, build_id, idlen))
				cur.lists = 1;
		} else {
			in_ids = 0;
			if ((v = field_value(p, n, "Package")))
				copy_n(cur.package, sizeof(cur.package), v,
				       n - (size_t)(v - p));
			else if ((v = field_value(p, n, "Version")))
				copy_n(cur.version, sizeof(cur.version), v,
				       n - (size_t)(v - p));
			else if ((v = field_value(p, n, "Build-Ids"))) {
				in_ids = cur.has_ids = 1;
				if (has_word(v, n - (size_t)(v - p), build_id,
					     idlen))
					cur.lists = 1;
			}
		}
		p += n;
		if (*p)
			p++;
	}
	return nr;
}

/* The length of a package name without its ":arch" suffix. */
static size_t name_len(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);

	return colon ? (size_t)(colon - s) : n;
}

int debugpkg_parse_sim(const char *text, const char *pkg, char *from,
		       size_t fromlen, char *to, size_t tolen)
{
	size_t plen = name_len(pkg, strlen(pkg));
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *q = p + 5, *end = p + n, *w;

		if (n > 5 && !strncmp(p, "Inst ", 5)) {
			w = q;
			while (q < end && *q != ' ')
				q++;
			if (name_len(w, (size_t)(q - w)) == plen &&
			    !memcmp(w, pkg, plen)) {
				from[0] = to[0] = '\0';
				while (q < end && *q == ' ')
					q++;
				if (q < end && *q == '[') {
					w = ++q;
					while (q < end && *q != ']')
						q++;
					copy_n(from, fromlen, w,
					       (size_t)(q - w));
					while (q < end && *q != '(')
						q++;
				}
				if (q < end && *q == '(') {
					w = ++q;
					while (q < end && *q != ' ' &&
					       *q != ')')
						q++;
					copy_n(to, tolen, w, (size_t)(q - w));
					return to[0] ? 0 : -1;
				}
				return -1;
			}
		}
		p = *end ? end + 1 : end;
	}
	return -1;
}

int debugpkg_parse_owner(const char *text, const char *const *paths,
			 char *pkg, size_t len)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n"), i;
		const char *end = p + n;

		/* "diversion by pkg from: /path" is not ownership */
		for (i = 0; strncmp(p, "diversion by ", 13) && paths[i]; i++) {
			size_t pl = strlen(paths[i]), first;
			const char *sep;

			if (n < pl + 3)
				continue;
			sep = end - pl - 2;
			if (memcmp(sep, ": ", 2) ||
			    memcmp(sep + 2, paths[i], pl))
				continue;
			/* "pkg1, pkg2:arch: /path": the first one */
			first = strcspn(p, ",");
			if (first > (size_t)(sep - p))
				first = (size_t)(sep - p);
			copy_n(pkg, len, p, first);
			return pkg[0] ? 0 : -1;
		}
		p = *end ? end + 1 : end;
	}
	return -1;
}

/* --- asking dpkg and apt -------------------------------------------------- */

/*
 * Run argv in the C locale (apt's and dpkg's messages are parsed);
 * stdout into out, stderr into errout (may be NULL).  Returns the exit
 * status (0..255), or -1 when it could not run or was killed.
 */
static int run(const char *const *argv, struct strbuf *out,
	       struct strbuf *errout)
{
	static const char *const set[] = { "LC_ALL=C", "LANGUAGE", NULL };
	struct strvec env = STRVEC_INIT;
	char err[PPR_ERR_LEN];
	int st;

	spawn_env_build(&env, set);
	strbuf_reset(out);
	if (errout)
		strbuf_reset(errout);
	st = spawn_capture(argv, (const char *const *)env.v, out, errout,
			   OUTPUT_MAX, err, sizeof(err));
	strvec_clear(&env);
	if (st < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The package owning path (dpkg -S), or -1.  Tries the /usr-less alias
 * too: with merged /usr, dpkg may know /lib/x/libc.so.6 only. */
static int dpkg_owner(const char *path, char *pkg, size_t len)
{
	struct strbuf out = STRBUF_INIT;
	const char *paths[3] = { path, NULL, NULL };
	const char *argv[5] = { "dpkg", "-S", path, NULL, NULL };
	int ret = -1;

	if (!strncmp(path, "/usr/", 5) &&
	    (!strncmp(path + 4, "/lib", 4) || !strncmp(path + 4, "/bin/", 5) ||
	     !strncmp(path + 4, "/sbin/", 6)))
		paths[1] = argv[3] = path + 4;
	/* dpkg -S exits 1 when one of the paths is unknown */
	if (run(argv, &out, NULL) >= 0)
		ret = debugpkg_parse_owner(out.buf, paths, pkg, len);
	strbuf_release(&out);
	return ret;
}

/* dpkg-query -W -f FORMAT pkg into buf (its first line); 0 or -1. */
static int dpkg_query(const char *pkg, const char *format, char *buf,
		      size_t len)
{
	struct strbuf out = STRBUF_INIT;
	const char *argv[] = { "dpkg-query", "-W", "-f", format, pkg, NULL };
	int ret = -1;

	buf[0] = '\0';
	if (run(argv, &out, NULL) == 0 && out.len) {
		copy_n(buf, len, out.buf, strcspn(out.buf, "\n"));
		ret = 0;
	}
	strbuf_release(&out);
	return ret;
}

void debugpkg_parse_refusal(const char *out, const char *errout, char *buf,
			    size_t len)
{
	const char *p = strstr(out, "unmet dependencies:\n");

	if (p) {
		p += strlen("unmet dependencies:\n");
		while (*p == ' ')
			p++;
		copy_n(buf, len, p, strcspn(p, "\n"));
		return;
	}
	p = strstr(errout, "E: ");
	if (p) {
		copy_n(buf, len, p + 3, strcspn(p + 3, "\n"));
		return;
	}
	copy_n(buf, len, "apt-get failed", strlen("apt-get failed"));
}

/* Append word to the sep-separated list in buf (when it fits). */
static void list_add(char *buf, size_t len, const char *sep,
		     const char *word)
{
	size_t have = strlen(buf);

	snprintf(buf + have, len - have, "%s%s", have ? sep : "", word);
}

/* Is word (a whole ' '-separated word) in buf? */
static int list_has(const char *buf, const char *word)
{
	return has_word(buf, strlen(buf), word, strlen(word));
}

/*
 * What dpkg and apt know about out->build_id (see debugpkg.h).  Returns
 * 1 when the answer may be cached: apt answered every question (a
 * failure, such as a lock held, may pass).
 */
static int ask_apt(struct debugpkg *out)
{
	struct debugpkg_stanza st[MAX_STANZAS];
	struct strbuf sout = STRBUF_INIT, serr = STRBUF_INIT;
	struct strvec argv = STRVEC_INIT;
	char line[300], name[128], source[128], from[128], to[128];
	const char *w;
	size_t nr, i, n;
	int rc, cacheable = 0;

	if (access(DPKG_STATUS, R_OK)) {
		set_err(out->why, sizeof(out->why), "no dpkg database here "
			"(%s)", DPKG_STATUS);
		return 0;
	}
	if (dpkg_owner(out->path, out->owner, sizeof(out->owner))) {
		set_err(out->why, sizeof(out->why), "'%s' belongs to no "
			"installed package ('dpkg -S %s')", out->path,
			out->path);
		out->unpackaged = 1;
		return 0;
	}
	if (dpkg_query(out->owner, "${source:Package}\t${Version}\n", line,
		       sizeof(line)) || !strchr(line, '\t')) {
		set_err(out->why, sizeof(out->why), "dpkg-query does not "
			"know package '%s'", out->owner);
		return 0;
	}
	copy_n(source, sizeof(source), line, strcspn(line, "\t"));
	copy_n(out->owner_version, sizeof(out->owner_version),
	       strchr(line, '\t') + 1, strlen(strchr(line, '\t') + 1));
	copy_n(name, sizeof(name), out->owner,
	       name_len(out->owner, strlen(out->owner)));

	/* OWNER-dbgsym, SOURCE-dbg, OWNER-dbg: each once */
	snprintf(line, sizeof(line), "%s-dbgsym", name);
	list_add(out->candidates, sizeof(out->candidates), " ", line);
	snprintf(line, sizeof(line), "%s-dbg", source[0] ? source : name);
	if (!list_has(out->candidates, line))
		list_add(out->candidates, sizeof(out->candidates), " ", line);
	snprintf(line, sizeof(line), "%s-dbg", name);
	if (!list_has(out->candidates, line))
		list_add(out->candidates, sizeof(out->candidates), " ", line);

	strvec_push(&argv, "apt-cache");
	strvec_push(&argv, "show");
	for (w = out->candidates; *w; w += n + (w[n] == ' ')) {
		n = strcspn(w, " ");
		copy_n(line, sizeof(line), w, n);
		strvec_push(&argv, line);
	}
	rc = run((const char *const *)argv.v, &sout, &serr);
	strvec_clear(&argv);
	/* 100 with "No packages found": none of them exists */
	if (rc < 0 || (rc && !strstr(serr.buf, "No packages found"))) {
		set_err(out->why, sizeof(out->why), "'apt-cache show' %s",
			rc < 0 ? "cannot run" : "failed");
		goto out;
	}
	nr = debugpkg_parse_show(sout.buf, out->build_id, st, MAX_STANZAS);
	if (nr > MAX_STANZAS)
		nr = MAX_STANZAS;
	for (i = 0; i < nr && !st[i].lists; i++)
		;
	if (i < nr) {
		out->verdict = DEBUGPKG_AVAILABLE;
		snprintf(out->package, sizeof(out->package), "%s",
			 st[i].package);
		snprintf(out->version, sizeof(out->version), "%s",
			 st[i].version);
		/* installed at that version, yet its file is missing */
		if (!dpkg_query(out->package, "${db:Status-Abbrev}${Version}",
				line, sizeof(line)) &&
		    !strncmp(line, "ii ", 3) &&
		    !strcmp(line + strspn(line + 3, " ") + 3, out->version)) {
			snprintf(out->install, sizeof(out->install),
				 "apt-get install --reinstall %s",
				 out->package);
			cacheable = 1;
			goto out;
		}
		snprintf(line, sizeof(line), "%s=%s", out->package,
			 out->version);
		strvec_pushv(&argv, (const char *const[]){ "apt-get", "-s",
				     "install", line, NULL });
		rc = run((const char *const *)argv.v, &sout, &serr);
		strvec_clear(&argv);
		cacheable = rc == 0;
		if (rc == 0)
			snprintf(out->install, sizeof(out->install),
				 "apt-get install %s", line);
		else
			debugpkg_parse_refusal(sout.buf, serr.buf,
					       out->apt_error,
					       sizeof(out->apt_error));
		goto out;
	}

	/* No version lists it: the first candidate apt has, and its
	   versions. */
	out->verdict = DEBUGPKG_NONE;
	for (w = out->candidates; *w && !out->package[0];
	     w += n + (w[n] == ' ')) {
		n = strcspn(w, " ");
		for (i = 0; i < nr; i++)
			if (strlen(st[i].package) == n &&
			    !memcmp(st[i].package, w, n))
				break;
		if (i < nr)
			copy_n(out->package, sizeof(out->package), w, n);
	}
	if (!out->package[0]) {
		cacheable = 1;
		goto out;
	}
	out->unlisted = 1;
	for (i = 0; i < nr; i++)
		if (!strcmp(st[i].package, out->package)) {
			list_add(out->versions, sizeof(out->versions), ", ",
				 st[i].version);
			if (st[i].has_ids)
				out->unlisted = 0;
		}
	strvec_pushv(&argv, (const char *const[]){ "apt-get", "-s", "install",
			     out->package, NULL });
	rc = run((const char *const *)argv.v, &sout, &serr);
	strvec_clear(&argv);
	cacheable = rc == 0;
	if (rc == 0 &&
	    !debugpkg_parse_sim(sout.buf, out->owner, from, sizeof(from), to,
				sizeof(to)) &&
	    strcmp(to, out->owner_version) &&
	    !debugpkg_parse_sim(sout.buf, out->package, from, sizeof(from),
				out->version, sizeof(out->version))) {
		out->verdict = DEBUGPKG_OTHER_VERSION;
		snprintf(out->upgrade_version, sizeof(out->upgrade_version),
			 "%s", to);
		snprintf(out->install, sizeof(out->install),
			 "apt-get install %s", out->package);
	}
out:
	strbuf_release(&sout);
	strbuf_release(&serr);
	return cacheable;
}

/* --- the cache ------------------------------------------------------------ */

/* What an answer is valid for: dpkg's and apt's state. */
struct stamp {
	unsigned long long status_ns, lists_ns;
};

static unsigned long long mtime_ns(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return 0;
	return (unsigned long long)st.st_mtim.tv_sec * 1000000000ULL +
	       (unsigned long long)st.st_mtim.tv_nsec;
}

static void stamp_now(struct stamp *s)
{
	s->status_ns = mtime_ns(DPKG_STATUS);
	s->lists_ns = mtime_ns(APT_LISTS);
}

/* Split a cache line into its fields (in place); 0 for a v2 entry. */
static int split_line(char *line, char *f[CACHE_FIELDS])
{
	int i;

	for (i = 0; i < CACHE_FIELDS; i++) {
		f[i] = line;
		if (i == CACHE_FIELDS - 1)
			break;
		line = strchr(line, '\t');
		if (!line)
			return -1;
		*line++ = '\0';
	}
	return strcmp(f[0], "v2") ? -1 : 0;
}

/*
 * Fields: v2 BUILD_ID STATUS_NS LISTS_NS VERDICT OWNER OWNER_VERSION
 * CANDIDATES PACKAGE VERSION VERSIONS UPGRADE INSTALL APT_ERROR UNLISTED
 * PATH.
 */
static int cache_get(struct debugpkg *out, const struct stamp *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *file = doctor_cache_file(CACHE_NAME), *line, *next;
	char want[2][32];
	int ret = -1;

	if (!file || doctor_cache_read(file, &sb))
		goto out;
	snprintf(want[0], sizeof(want[0]), "%llu", s->status_ns);
	snprintf(want[1], sizeof(want[1]), "%llu", s->lists_ns);
	for (line = sb.buf; line && *line; line = next) {
		char *f[CACHE_FIELDS];

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (split_line(line, f) || strcmp(f[1], out->build_id) ||
		    strcmp(f[2], want[0]) || strcmp(f[3], want[1]) ||
		    strcmp(f[15], out->path))
			continue;
		out->verdict = verdict_parse(f[4]);
		if (out->verdict == DEBUGPKG_UNKNOWN ||
		    out->verdict == DEBUGPKG_INSTALLED)
			continue;
#define FIELD(dst, i) snprintf(out->dst, sizeof(out->dst), "%s", f[i])
		FIELD(owner, 5);
		FIELD(owner_version, 6);
		FIELD(candidates, 7);
		FIELD(package, 8);
		FIELD(version, 9);
		FIELD(versions, 10);
		FIELD(upgrade_version, 11);
		FIELD(install, 12);
		FIELD(apt_error, 13);
#undef FIELD
		out->unlisted = !strcmp(f[14], "1");
		out->cached = 1;
		ret = 0;
		break;
	}
out:
	free(file);
	strbuf_release(&sb);
	return ret;
}

/* One field: no tabs or line ends (apt's words have none anyway). */
static void add_field(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\t');
	for (; *s; s++)
		strbuf_addch(sb, *s == '\t' || *s == '\n' || *s == '\r' ? ' '
									: *s);
}

/* Store the answer; a cache that cannot be written only costs time. */
static void cache_put(const struct debugpkg *d, const struct stamp *s)
{
	struct strbuf old = STRBUF_INIT, out = STRBUF_INIT;
	char *file = doctor_cache_file(CACHE_NAME), *dir, *line, *next;
	size_t kept = 0;

	if (!file)
		return;
	dir = xstrdup(file);
	*strrchr(dir, '/') = '\0';
	if (paths_mkdirs(dir, 0700))
		goto out;
	strbuf_addf(&out, "v2\t%s\t%llu\t%llu", d->build_id, s->status_ns,
		    s->lists_ns);
	add_field(&out, debugpkg_verdict_name(d->verdict));
	add_field(&out, d->owner);
	add_field(&out, d->owner_version);
	add_field(&out, d->candidates);
	add_field(&out, d->package);
	add_field(&out, d->version);
	add_field(&out, d->versions);
	add_field(&out, d->upgrade_version);
	add_field(&out, d->install);
	add_field(&out, d->apt_error);
	add_field(&out, d->unlisted ? "1" : "0");
	add_field(&out, d->path);
	strbuf_addch(&out, '\n');
	/* The other objects' entries, newest first, a bounded number. */
	if (!doctor_cache_read(file, &old)) {
		for (line = old.buf; line && *line; line = next) {
			char *f[CACHE_FIELDS], *copy;

			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			copy = xstrdup(line);
			if (!split_line(line, f) &&
			    (strcmp(f[1], d->build_id) ||
			     strcmp(f[15], d->path)) &&
			    kept < CACHE_MAX_ENTRIES - 1) {
				strbuf_addf(&out, "%s\n", copy);
				kept++;
			}
			free(copy);
		}
	}
	write_file_atomic(file, out.buf, out.len, 0600, 0);
out:
	free(dir);
	free(file);
	strbuf_release(&old);
	strbuf_release(&out);
}

/* --- the lookup ----------------------------------------------------------- */

/* INSTALLED: the package that put the debug file there, if dpkg knows. */
static void installed_owner(struct debugpkg *out)
{
	if (access(DPKG_STATUS, R_OK) ||
	    dpkg_owner(out->debug_file, out->package, sizeof(out->package)))
		return;
	dpkg_query(out->package, "${Version}", out->version,
		   sizeof(out->version));
}

void debugpkg_lookup(const char *path, struct debugpkg *out)
{
	char real[PATH_MAX], err[PPR_ERR_LEN];
	struct elf_info e;
	struct stamp s;
	char *dbg;

	memset(out, 0, sizeof(*out));
	if (!realpath(path, real)) {
		set_err(out->why, sizeof(out->why), "cannot resolve '%s': %s",
			path, strerror(errno));
		return;
	}
	snprintf(out->path, sizeof(out->path), "%s", real);
	if (elf_info_read(real, &e, err, sizeof(err))) {
		set_err(out->why, sizeof(out->why), "%s", err);
		return;
	}
	snprintf(out->build_id, sizeof(out->build_id), "%s", e.build_id);
	elf_info_release(&e);
	if (!out->build_id[0]) {
		set_err(out->why, sizeof(out->why), "'%s' has no build-id",
			real);
		return;
	}
	dbg = elf_debug_file(out->build_id);
	snprintf(out->debug_file, sizeof(out->debug_file), "%s", dbg);
	free(dbg);
	if (!access(out->debug_file, R_OK)) {
		out->verdict = DEBUGPKG_INSTALLED;
		installed_owner(out);
		return;
	}
	stamp_now(&s);
	if (!cache_get(out, &s))
		return;
	if (ask_apt(out))
		cache_put(out, &s);
}

/* --- the advice ----------------------------------------------------------- */

/* "a, b, c" from the ' '-separated candidates. */
static void add_candidates(struct strbuf *sb, const char *c)
{
	size_t n;

	for (; *c; c += n + (c[n] == ' ')) {
		n = strcspn(c, " ");
		strbuf_add(sb, c, n);
		if (c[n] == ' ')
			strbuf_addstr(sb, ", ");
	}
}

void debugpkg_advice(const struct debugpkg *d, struct strbuf *sb)
{
	switch (d->verdict) {
	case DEBUGPKG_INSTALLED:
		return;
	case DEBUGPKG_AVAILABLE:
		if (d->install[0])
			strbuf_addf(sb, "install its debug symbols: %s (%s %s "
				    "lists build-id %s%s)", d->install,
				    d->package, d->version, d->build_id,
				    strstr(d->install, "--reinstall")
					    ? ", but its file is missing"
					    : "");
		else
			strbuf_addf(sb, "%s %s lists build-id %s, but apt "
				    "refuses to install it now ('apt-get -s "
				    "install %s=%s': %s)", d->package,
				    d->version, d->build_id, d->package,
				    d->version, d->apt_error);
		return;
	case DEBUGPKG_OTHER_VERSION:
		strbuf_addf(sb, "no debug package apt has (of ");
		add_candidates(sb, d->candidates);
		strbuf_addf(sb, ") lists build-id %s of %s %s; apt has %s "
			    "only at %s: '%s' would also upgrade %s to %s",
			    d->build_id, d->owner, d->owner_version,
			    d->package, d->versions, d->install, d->owner,
			    d->upgrade_version);
		if (!strcmp(d->version, d->upgrade_version))
			strbuf_addf(sb, ", the version of the %s it installs",
				    d->package);
		else
			strbuf_addf(sb, " (and install %s %s)", d->package,
				    d->version);
		strbuf_addstr(sb, "; record again after the upgrade");
		return;
	case DEBUGPKG_NONE:
		if (d->package[0]) {
			strbuf_addf(sb, "no debug package apt has (of ");
			add_candidates(sb, d->candidates);
			strbuf_addf(sb, ") lists build-id %s of %s %s",
				    d->build_id, d->owner, d->owner_version);
			if (d->unlisted)
				strbuf_addf(sb, "; %s (%s) lists no build-ids "
					    "at all, so apt cannot tell what "
					    "it holds", d->package,
					    d->versions);
			else
				strbuf_addf(sb, " (%s has only %s)",
					    d->package, d->versions);
		} else {
			strbuf_addstr(sb, "apt has none of ");
			add_candidates(sb, d->candidates);
			strbuf_addf(sb, " for build-id %s of %s %s",
				    d->build_id, d->owner, d->owner_version);
		}
		strbuf_addstr(sb, ": fetch it with debuginfod "
			      "(DEBUGINFOD_URLS) or from the distribution's "
			      "debug-symbol archive");
		return;
	case DEBUGPKG_UNKNOWN:
		break;
	}
	if (d->unpackaged)
		strbuf_addf(sb, "%s: its debug symbols come from whoever "
			    "built it (a build with -g, not stripped)%s%s%s",
			    d->why, d->build_id[0] ? "; debuginfod may know "
			    "build-id " : "", d->build_id,
			    d->build_id[0] ? " (DEBUGINFOD_URLS)" : "");
	else if (d->build_id[0])
		strbuf_addf(sb, "%s: fetch build-id %s with debuginfod "
			    "(DEBUGINFOD_URLS) or from the distribution's "
			    "debug-symbol repository", d->why, d->build_id);
	else
		strbuf_addf(sb, "%s: install the distribution's debug "
			    "symbols for it", d->why);
}
