/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The format table and helpers shared by
 * the writers (lib/report/fmt.h).
 */
#include "compat.h"
#include "alloc.h"
#include "report/fmt.h"
#include "strbuf.h"
#include "utf8.h"

static const char *const names[FMT_NR] = {
	"text", "collapsed", "json", "html", "svg", "speedscope", "pprof",
	"perf-data"
};

/* pprof is gzipped protobuf: built only with libprotobuf-c (configure) */
#ifdef PPR_HAVE_PROTOBUF_C
#define PPROF_MISSING NULL
#define PPROF_WRITER fmt_pprof_write
#else
#define PPROF_MISSING "--format pprof needs protobuf-c, and this " \
	"pyperf-run was built without it: install libprotobuf-c-dev " \
	"(Fedora: protobuf-c-devel), then run ./configure and make again"

static int pprof_missing(const struct profile *p, const struct fmt_opts *o,
			 FILE *fp, char *err, size_t errlen)
{
	return set_err(err, errlen, "%s", PPROF_MISSING);
}
#define PPROF_WRITER pprof_missing
#endif

/* perf-data is written from the session (report/fmt_perfdata.h) */
static int perf_data_from_profile(const struct profile *p,
				  const struct fmt_opts *o, FILE *fp,
				  char *err, size_t errlen)
{
	return set_err(err, errlen, "--format perf-data is written from the "
		       "session (export_perf()), not from a loaded profile");
}

static const fmt_write_fn writers[FMT_NR] = {
	fmt_text_write, fmt_collapsed_write, fmt_json_write, fmt_html_write,
	fmt_svg_write, fmt_speedscope_write, PPROF_WRITER,
	perf_data_from_profile
};

const char *fmt_unavailable(enum fmt_format f)
{
	return f == FMT_PPROF ? PPROF_MISSING : NULL;
}

int fmt_parse(const char *name)
{
	int i;

	for (i = 0; i < FMT_NR; i++)
		if (!strcmp(name, names[i]))
			return i;
	if (!strcmp(name, "folded"))
		return FMT_COLLAPSED;
	return -1;
}

const char *fmt_name(enum fmt_format f)
{
	return (unsigned)f < FMT_NR ? names[f] : "?";
}

int fmt_is_binary(enum fmt_format f)
{
	return f == FMT_PPROF || f == FMT_PERF_DATA;
}

fmt_write_fn fmt_writer(enum fmt_format f)
{
	return (unsigned)f < FMT_NR ? writers[f] : NULL;
}

void fmt_collapsed_name(FILE *fp, const struct frame *f)
{
	fputs(f->name, fp);
	if (f->kind == FRAME_KERNEL)
		fputs("_[k]", fp);
}

/*
 * record's own check: the share of samples whose stack did not reach a
 * root, as a meta "truncated" fraction (shown from 1 %).
 */
static char *meta_truncated(const struct profile *p)
{
	const char *v = profile_meta_get(p, "truncated");
	char *end;
	double share;

	if (!v)
		return NULL;
	share = strtod(v, &end);
	if (end == v || !(share >= 0.01 && share <= 1))
		return NULL;
	return xasprintf("%.0f%% of the samples have incomplete stacks "
			 "(their outer callers are missing)", 100.0 * share);
}

/*
 * A copy of s that every format can carry on one line: control bytes
 * become spaces, broken UTF-8 U+FFFD.
 */
static char *one_line(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, l;
	struct strbuf sb = STRBUF_INIT;

	while (i < n) {
		if (u[i] < 0x20 || u[i] == 0x7f) {
			strbuf_addch(&sb, ' ');
			i++;
		} else if (u[i] < 0x80) {
			strbuf_addch(&sb, (char)u[i++]);
		} else if ((l = utf8_seq_len(u + i, n - i))) {
			strbuf_add(&sb, s + i, l);
			i += l;
		} else {
			strbuf_addstr(&sb, "\xef\xbf\xbd");
			i++;
		}
	}
	return strbuf_detach(&sb, NULL);
}

char *fmt_time_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct { double scale; const char *name; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" },
	};
	double v = (double)ns;
	size_t i;

	/*
	 * The first unit the value reaches once rounded to three digits
	 * (999.6 ms is "1.00 s", not "1000 ms").
	 */
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (v >= 0.9995 * units[i].scale)
			break;
	if (i == ARRAY_SIZE(units)) {
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
		return buf;
	}
	v /= units[i].scale;
	snprintf(buf, len, v >= 99.95 ? "%.0f %s" : v >= 9.995 ? "%.1f %s" :
		 "%.2f %s", v, units[i].name);
	return buf;
}

char *fmt_weight(const struct profile *p, uint64_t w, char *buf, size_t len)
{
	if (p->unit == UNIT_NS)
		return fmt_time_ns(w, buf, len);
	snprintf(buf, len, "%llu", (unsigned long long)w);
	return buf;
}

size_t fmt_warnings(const struct profile *p, char ***out)
{
	char **w = NULL, *s;
	size_t n = 0, i;

	for (i = 0; i < p->nr_warnings; i++) {
		w = xrealloc(w, (n + 1) * sizeof(*w));
		w[n++] = one_line(p->warnings[i]);
	}
	/* a load that judged the stacks reports them itself */
	if (!p->quality.judged && (s = meta_truncated(p))) {
		w = xrealloc(w, (n + 1) * sizeof(*w));
		w[n++] = s;
	}
	*out = w;
	return n;
}

size_t fmt_notes(const struct profile *p, char ***out)
{
	char **w = NULL;
	size_t i;

	if (p->nr_notes)
		w = xmalloc(p->nr_notes * sizeof(*w));
	for (i = 0; i < p->nr_notes; i++)
		w[i] = one_line(p->notes[i]);
	*out = w;
	return p->nr_notes;
}

void fmt_warnings_free(char **w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
}
