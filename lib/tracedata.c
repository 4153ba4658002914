// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint formats from perf.data's tracing-data section, through
 * libtraceevent.  The section's container (counts, sizes, strings) is
 * walked here with every length checked; each event format file is
 * checked against the kernel's grammar and only a canonical rewrite of
 * it goes to libtraceevent (tep_parse_event), whose parser trusts its
 * input.  Payload fields are read here too, from the offsets and sizes
 * libtraceevent parsed, each checked against the payload's length:
 * tep_get_field_raw() and friends trust the payload.
 */
#include "compat.h"

#include <event-parse.h>
#include <limits.h>

#include "alloc.h"
#include "strbuf.h"
#include "tracedata.h"

struct tracedata {
	struct tep_handle *tep;
	int file_bigendian;
	int nr_rejected;	/* format files left out */
	char version[16];
};

/* A bounded reader over the section. */
struct cursor {
	const unsigned char *p, *end;
	int bigendian;
};

static uint64_t load_uint(const unsigned char *p, size_t size, int bigendian)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++) {
		size_t at = bigendian ? i : size - 1 - i;

		v = v << 8 | p[at];
	}
	return v;
}

static int cur_take(struct cursor *c, size_t n, const unsigned char **out)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

static int cur_uint(struct cursor *c, size_t size, uint64_t *v)
{
	const unsigned char *p;

	if (cur_take(c, size, &p))
		return -1;
	*v = load_uint(p, size, c->bigendian);
	return 0;
}

/* A NUL-terminated string at the cursor (the NUL consumed too). */
static int cur_str(struct cursor *c, const char **s, size_t *len)
{
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));

	if (!nul)
		return -1;
	*s = (const char *)c->p;
	*len = (size_t)(nul - c->p);
	c->p = nul + 1;
	return 0;
}

/* A u64 size then that many bytes. */
static int cur_blob(struct cursor *c, const unsigned char **p, size_t *n)
{
	uint64_t size;

	if (cur_uint(c, 8, &size) || size > (uint64_t)(c->end - c->p))
		return -1;
	*n = (size_t)size;
	return cur_take(c, *n, p);
}

/* --- format files, checked and rewritten ------------------------------- */

/*
 * libtraceevent's format parser trusts its input (hostile field lines
 * crash it), so it never sees the file's own text.  Each line is checked
 * against the grammar the kernel writes:
 *
 *	name: <name>
 *	ID: <id>
 *	format:
 *		field:<declaration>;	offset:<n>;	size:<n>;	signed:<0|1>;
 *		... (the common_* fields, a blank line, the event's own)
 *
 *	print fmt: ...
 *
 * and a canonical text is rebuilt from the checked pieces.  The print
 * format is replaced by an empty one: field reads do not need it, and
 * its expression parser is the largest part of libtraceevent.
 */
#define FMT_MAX_FIELDS 512
#define FMT_MAX_DECL 256

/* The next line of [*p, end) without its '\n'; 0 at the end. */
static int next_line(const char **p, const char *end, const char **line,
		     size_t *len)
{
	const char *nl;

	if (*p >= end)
		return 0;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = nl ? (size_t)(nl - *p) : (size_t)(end - *p);
	*p = nl ? nl + 1 : end;
	return 1;
}

static int is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* A name (event or system): 1 to 128 of [A-Za-z0-9_.-]. */
static int valid_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > 128)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_name_char((unsigned char)s[i]))
			return 0;
	return 1;
}

/* A decimal number up to max, all of [s, s + n). */
static int parse_dec(const char *s, size_t n, unsigned long max,
		     unsigned long *v)
{
	size_t i;

	if (n == 0 || n > 10)
		return -1;
	*v = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (unsigned long)(s[i] - '0');
	}
	return *v <= max ? 0 : -1;
}

/* line starts with prefix: skip it. */
static int eat(const char **s, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	if ((size_t)(end - *s) < n || memcmp(*s, prefix, n))
		return 0;
	*s += n;
	return 1;
}

static int is_ident_char(int c)
{
	return is_name_char(c) && c != '-' && c != '.';
}

/*
 * A declaration as the kernel writes them: "<type> <name>", "<type>
 * <name>[<digits>]", "<type> <name>[]", or "__data_loc <type>[] <name>"
 * ("[]" optional; __rel_loc too),
 * where a type is words of [A-Za-z0-9_], spaces and '*' ("unsigned
 * long", "const char *").  libtraceevent mishandles other shapes (a lone
 * word, brackets elsewhere).
 */
static int valid_type(const char *s, size_t n)
{
	size_t i, words = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (is_ident_char(c)) {
			if (i == 0 || !is_ident_char((unsigned char)s[i - 1]))
				words++;
		} else if (c != ' ' && c != '*') {
			return 0;
		}
	}
	return words > 0;
}

static int valid_decl(const char *s, size_t n)
{
	size_t end = n, name;

	if (n == 0 || n > FMT_MAX_DECL)
		return 0;
	/* an array suffix "[digits]" or "[]" after the name */
	if (s[end - 1] == ']') {
		for (end--; end && s[end - 1] >= '0' && s[end - 1] <= '9'; end--)
			;
		if (!end || s[end - 1] != '[')
			return 0;
		end--;
	}
	for (name = end; name && is_ident_char((unsigned char)s[name - 1]);
	     name--)
		;
	if (name == end || !name || (s[name - 1] != ' ' && s[name - 1] != '*'))
		return 0;
	/* the type: before the name; a dynamic one may end in "[]" */
	if ((n >= 11 && !memcmp(s, "__data_loc ", 11)) ||
	    (n >= 10 && !memcmp(s, "__rel_loc ", 10))) {
		size_t t = s[2] == 'd' ? 11 : 10, te = name;

		if (end != n)
			return 0;	/* no array of dynamic arrays */
		while (te > t && s[te - 1] == ' ')
			te--;
		if (te >= t + 2 && !memcmp(s + te - 2, "[]", 2))
			te -= 2;
		return te > t && valid_type(s + t, te - t);
	}
	return valid_type(s, name);
}

/* One field line into out (canonical); -1 when it is not one. */
static int field_line(const char *s, size_t n, struct strbuf *out)
{
	const char *end = s + n, *decl, *semi;
	unsigned long off, size, sign;
	const char *q;

	while (s < end && (*s == '\t' || *s == ' '))
		s++;
	if (!eat(&s, end, "field:"))
		return -1;
	decl = s;
	semi = memchr(s, ';', (size_t)(end - s));
	if (!semi || !valid_decl(decl, (size_t)(semi - decl)))
		return -1;
	s = semi + 1;
	while (s < end && (*s == '\t' || *s == ' '))
		s++;
	if (!eat(&s, end, "offset:") || !(q = memchr(s, ';', (size_t)(end - s))) ||
	    parse_dec(s, (size_t)(q - s), 65535, &off))
		return -1;
	s = q + 1;
	while (s < end && (*s == '\t' || *s == ' '))
		s++;
	if (!eat(&s, end, "size:") || !(q = memchr(s, ';', (size_t)(end - s))) ||
	    parse_dec(s, (size_t)(q - s), 65535, &size))
		return -1;
	s = q + 1;
	while (s < end && (*s == '\t' || *s == ' '))
		s++;
	if (!eat(&s, end, "signed:") || !(q = memchr(s, ';', (size_t)(end - s))) ||
	    parse_dec(s, (size_t)(q - s), 1, &sign))
		return -1;
	strbuf_addf(out, "\tfield:%.*s;\toffset:%lu;\tsize:%lu;\tsigned:%lu;\n",
		    (int)(semi - decl), decl, off, size, sign);
	return 0;
}

/*
 * The canonical text of one format file, or -1 when it does not follow
 * the grammar.
 */
static int canonical_format(const char *text, size_t n, struct strbuf *out)
{
	const char *p = text, *end = text + n, *line, *le;
	size_t len, nfields = 0;
	unsigned long id;
	int blank = 0;

	if (!next_line(&p, end, &line, &len))
		return -1;
	le = line + len;
	if (!eat(&line, le, "name: ") || !valid_name(line, (size_t)(le - line)))
		return -1;
	strbuf_addf(out, "name: %.*s\n", (int)(le - line), line);
	if (!next_line(&p, end, &line, &len))
		return -1;
	le = line + len;
	if (!eat(&line, le, "ID: ") ||
	    parse_dec(line, (size_t)(le - line), INT_MAX, &id))
		return -1;
	strbuf_addf(out, "ID: %lu\n", id);
	if (!next_line(&p, end, &line, &len) || len != 7 ||
	    memcmp(line, "format:", 7))
		return -1;
	strbuf_addstr(out, "format:\n");
	while (next_line(&p, end, &line, &len)) {
		le = line + len;
		if (len == 0) {
			/* the blank line after the common fields */
			if (blank++ == 0)
				strbuf_addch(out, '\n');
			continue;
		}
		if (eat(&line, le, "print fmt:"))
			break;
		if (++nfields > FMT_MAX_FIELDS || field_line(line, len, out))
			return -1;
	}
	if (!blank)
		strbuf_addch(out, '\n');
	strbuf_addstr(out, "print fmt: \"\"\n");
	return 0;
}

/*
 * Hand one format file to libtraceevent, rewritten.  A format that does
 * not follow the grammar, or that libtraceevent rejects, only leaves
 * that event out: the other events stay decodable.
 */
static void parse_format(struct tracedata *td, const unsigned char *text,
			 size_t n, const char *sys)
{
	struct strbuf sb = STRBUF_INIT;

	if (!valid_name(sys, strlen(sys)) ||
	    canonical_format((const char *)text, n, &sb) ||
	    tep_parse_event(td->tep, sb.buf, sb.len, sys))
		td->nr_rejected++;
	strbuf_release(&sb);
}

static int parse_section(struct tracedata *td, const void *buf, size_t len,
			 char *err, size_t errlen)
{
	static const unsigned char tag[10] = { 23, 8, 68, 't', 'r', 'a', 'c',
					       'i', 'n', 'g' };
	struct cursor c = { buf, (const unsigned char *)buf + len, 0 };
	const unsigned char *p;
	const char *s;
	size_t n;
	uint64_t v, count, i, nsys, sys;

	if (cur_take(&c, sizeof(tag), &p) || memcmp(p, tag, sizeof(tag)))
		return set_err(err, errlen, "no tracing-data tag");
	if (cur_str(&c, &s, &n) || n == 0 || n >= sizeof(td->version))
		return set_err(err, errlen, "bad tracing-data version");
	memcpy(td->version, s, n);
	td->version[n] = '\0';
	if (cur_take(&c, 1, &p) || *p > 1)
		return set_err(err, errlen, "bad tracing-data byte order");
	c.bigendian = td->file_bigendian = *p;
	if (cur_take(&c, 1, &p) || (*p != 4 && *p != 8))
		return set_err(err, errlen, "bad tracing-data long size");
	tep_set_file_bigendian(td->tep, c.bigendian ? TEP_BIG_ENDIAN
						    : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(td->tep, tep_is_bigendian() ? TEP_BIG_ENDIAN
							    : TEP_LITTLE_ENDIAN);
	tep_set_long_size(td->tep, *p);
	if (cur_uint(&c, 4, &v) || v == 0 || v > INT_MAX)
		return set_err(err, errlen, "bad tracing-data page size");
	tep_set_page_size(td->tep, (int)v);

	/* The ring buffer's page and event headers: not needed to read a
	 * perf sample's payload, so skipped (not parsed). */
	if (cur_take(&c, 12, &p) || memcmp(p, "header_page", 12) ||
	    cur_blob(&c, &p, &n))
		return set_err(err, errlen, "bad tracing-data header page");
	if (cur_take(&c, 13, &p) || memcmp(p, "header_event", 13) ||
	    cur_blob(&c, &p, &n))
		return set_err(err, errlen, "bad tracing-data header event");

	/* ftrace's own events, then the event systems.  Each entry takes
	 * at least 8 bytes, so a hostile count ends at the section's end. */
	if (cur_uint(&c, 4, &count))
		return set_err(err, errlen, "truncated tracing data (ftrace formats)");
	for (i = 0; i < count; i++) {
		if (cur_blob(&c, &p, &n))
			return set_err(err, errlen,
				       "truncated tracing data (ftrace format %llu)",
				       (unsigned long long)i);
		parse_format(td, p, n, "ftrace");
	}
	if (cur_uint(&c, 4, &nsys))
		return set_err(err, errlen, "truncated tracing data (event systems)");
	for (sys = 0; sys < nsys; sys++) {
		const char *name;
		size_t name_len;

		if (cur_str(&c, &name, &name_len) || cur_uint(&c, 4, &count))
			return set_err(err, errlen,
				       "truncated tracing data (event system %llu)",
				       (unsigned long long)sys);
		for (i = 0; i < count; i++) {
			if (cur_blob(&c, &p, &n))
				return set_err(err, errlen,
					       "truncated tracing data (format %llu of system '%.64s')",
					       (unsigned long long)i, name);
			parse_format(td, p, n, name);
		}
	}
	/* kallsyms, printk formats and saved cmdlines follow: not needed
	 * for payload fields. */
	return 0;
}

struct tracedata *tracedata_new(const void *buf, size_t len, char *err,
				size_t errlen)
{
	struct tracedata *td;

	if (!buf)
		return set_err(err, errlen, "no tracing data"), NULL;
	td = xcalloc(1, sizeof(*td));
	/* libtraceevent would print its parse warnings to stderr */
	tep_set_loglevel(TEP_LOG_NONE);
	td->tep = tep_alloc();
	if (!td->tep) {
		free(td);
		set_err(err, errlen, "cannot allocate a libtraceevent handle");
		return NULL;
	}
	if (parse_section(td, buf, len, err, errlen) < 0) {
		tracedata_free(td);
		return NULL;
	}
	return td;
}

void tracedata_free(struct tracedata *td)
{
	if (!td)
		return;
	tep_free(td->tep);
	free(td);
}

int tracedata_nr_events(const struct tracedata *td)
{
	return td ? tep_get_events_count(td->tep) : 0;
}

int tracedata_nr_rejected(const struct tracedata *td)
{
	return td ? td->nr_rejected : 0;
}

const char *tracedata_version(const struct tracedata *td)
{
	return td ? td->version : NULL;
}

/*
 * The public event and field types are libtraceevent's, behind opaque
 * names so that callers need not include its headers.
 */
static struct tep_event *tev(const struct tracedata_event *ev)
{
	return (struct tep_event *)ev;
}

static const struct tep_format_field *tfield(const struct tracedata_field *f)
{
	return (const struct tep_format_field *)f;
}

const struct tracedata_event *tracedata_event(const struct tracedata *td,
					      uint64_t id)
{
	if (!td || id > INT_MAX)
		return NULL;
	return (const struct tracedata_event *)tep_find_event(td->tep, (int)id);
}

const struct tracedata_event *tracedata_event_by_name(const struct tracedata *td,
						      const char *system,
						      const char *name)
{
	if (!td || !name)
		return NULL;
	return (const struct tracedata_event *)tep_find_event_by_name(
		td->tep, system, name);
}

const char *tracedata_event_name(const struct tracedata_event *ev)
{
	return ev ? tev(ev)->name : NULL;
}

const char *tracedata_event_system(const struct tracedata_event *ev)
{
	return ev ? tev(ev)->system : NULL;
}

int tracedata_event_id(const struct tracedata_event *ev)
{
	return ev ? tev(ev)->id : -1;
}

const struct tracedata_field *tracedata_field(const struct tracedata_event *ev,
					      const char *name)
{
	if (!ev || !name)
		return NULL;
	return (const struct tracedata_field *)tep_find_any_field(tev(ev), name);
}

const struct tracedata_event *tracedata_event_at(const struct tracedata *td,
						 int index)
{
	if (!td || index < 0 || index >= tep_get_events_count(td->tep))
		return NULL;
	return (const struct tracedata_event *)tep_get_event(td->tep, index);
}

const struct tracedata_field *tracedata_field_at(const struct tracedata_event *ev,
						 int index)
{
	struct tep_format_field *f;

	if (!ev || index < 0)
		return NULL;
	for (f = tev(ev)->format.common_fields; f && index; f = f->next)
		index--;
	if (!f)
		for (f = tev(ev)->format.fields; f && index; f = f->next)
			index--;
	return (const struct tracedata_field *)f;
}

const char *tracedata_field_name(const struct tracedata_field *f)
{
	return f ? tfield(f)->name : NULL;
}

/* [off, off + size) lies inside a payload of raw_len bytes. */
static int in_payload(long long off, long long size, size_t raw_len)
{
	return off >= 0 && size >= 0 && (unsigned long long)off <= raw_len &&
	       (unsigned long long)size <= raw_len - (unsigned long long)off;
}

int tracedata_read_num(const struct tracedata *td,
		       const struct tracedata_field *f, const void *raw,
		       size_t raw_len, uint64_t *val)
{
	const struct tep_format_field *fld = tfield(f);
	const unsigned char *p = raw;
	uint64_t v;
	int size;

	if (!td || !fld || !raw)
		return -1;
	size = fld->size;
	if (fld->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) ||
	    (size != 1 && size != 2 && size != 4 && size != 8) ||
	    !in_payload(fld->offset, size, raw_len))
		return -1;
	v = load_uint(p + fld->offset, (size_t)size, td->file_bigendian);
	if ((fld->flags & TEP_FIELD_IS_SIGNED) && size < 8 &&
	    (v >> (size * 8 - 1)) & 1)
		v |= ~(uint64_t)0 << (size * 8);
	*val = v;
	return 0;
}

int tracedata_read_str(const struct tracedata *td,
		       const struct tracedata_field *f, const void *raw,
		       size_t raw_len, const char **s, size_t *len)
{
	const struct tep_format_field *fld = tfield(f);
	const unsigned char *p = raw;
	long long off, size;
	const unsigned char *nul;

	if (!td || !fld || !raw)
		return -1;
	if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
		/* a u32 slot: the data's offset in its low 16 bits, its
		 * length in the high ones; __rel_loc offsets count from
		 * the end of the slot */
		uint64_t loc;

		if (fld->size != 4 || !in_payload(fld->offset, 4, raw_len))
			return -1;
		loc = load_uint(p + fld->offset, 4, td->file_bigendian);
		off = (long long)(loc & 0xffff);
		size = (long long)(loc >> 16);
		if (fld->flags & TEP_FIELD_IS_RELATIVE)
			off += (long long)fld->offset + fld->size;
	} else if (fld->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)) {
		off = fld->offset;
		size = fld->size;
	} else {
		return -1;
	}
	if (!in_payload(off, size, raw_len))
		return -1;
	*s = (const char *)p + off;
	nul = memchr(p + off, 0, (size_t)size);
	*len = nul ? (size_t)(nul - (p + off)) : (size_t)size;
	return 0;
}

int tracedata_get_num(const struct tracedata *td,
		      const struct tracedata_event *ev, const char *name,
		      const void *raw, size_t raw_len, uint64_t *val)
{
	return tracedata_read_num(td, tracedata_field(ev, name), raw, raw_len,
				  val);
}

int tracedata_get_str(const struct tracedata *td,
		      const struct tracedata_event *ev, const char *name,
		      const void *raw, size_t raw_len, const char **s,
		      size_t *len)
{
	return tracedata_read_str(td, tracedata_field(ev, name), raw, raw_len,
				  s, len);
}
