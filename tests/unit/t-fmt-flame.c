/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the flame-graph tree and the
 * html, svg, speedscope, pprof and diff writers on hand-built profiles.
 *
 * With arguments it is also the synthetic-profile generator of the
 * format tests (t6xxx):
 *   t-fmt-flame synth NSTACKS FORMAT [inverted] [warn] [sliver]
 * writes a deterministic profile of NSTACKS distinct stacks (Python,
 * libpython, extension, libc and kernel frames) in FORMAT (html, svg,
 * speedscope, pprof, diff-html, diff-collapsed) to stdout.  warn: with
 * two warnings (SYNTH_WARN1, SYNTH_WARN2); sliver: the stacks stay at
 * most 12 frames deep, except 3 % of the samples in a start-up chain 70
 * frames deep (<module> -> main -> work... beside <module> -> imports).
 */
#include "compat.h"
#include "report/fmt.h"
#include "report/fmt_flame.h"
#include "report/profile_priv.h"
#include "json.h"
#include "xml.h"
#include "alloc.h"
#ifdef PPR_HAVE_PROTOBUF_C
#include "report/pprof.pb-c.h"
#endif
#include "tap.h"
#include <zlib.h>

enum { F_MAIN, F_WORK, F_HELPER, F_LAMBDA, F_APPEND, F_MEMCPY, F_SYSCALL,
       F_COS, F_NR };

static uint32_t fr[F_NR];

/* The warnings of `synth ... warn` (a '<' and quotes to escape). */
#define SYNTH_WARN1 "30% of the samples have incomplete stacks " \
	"(<cut> at \"depth\")"
#define SYNTH_WARN2 "12 damaged map records were dropped & not shown"

/*
 * main -> work            50   (self in work)
 * main -> work -> helper  30
 * main -> <lambda> -> PyList_Append -> memcpy 10
 * main -> work -> cos      5
 * main -> work -> helper -> do_syscall_64 5
 */
static void build(struct profile *p, int variant)
{
	uint32_t s1[] = { 0, 0 }, s2[3], s3[4], s4[3], s5[4];

	profile_init(p);
	fr[F_MAIN] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
					  "<module>", "prog.py", NULL);
	fr[F_WORK] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
					  "Worker.work", "prog.py", NULL);
	fr[F_HELPER] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE,
					    NULL, "helper", "lib/util.py",
					    NULL);
	fr[F_LAMBDA] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE,
					    NULL, "<lambda>", "prog.py",
					    NULL);
	fr[F_APPEND] = profile_frame_intern(p, FRAME_NATIVE, NATIVE_LIBPYTHON,
					    NULL, "PyList_Append", NULL,
					    "/usr/lib/libpython3.13.so.1.0");
	fr[F_MEMCPY] = profile_frame_intern(p, FRAME_NATIVE, NATIVE_SYSTEM,
					    NULL, "__memcpy_avx_unaligned",
					    NULL, "/usr/lib/libc.so.6");
	fr[F_SYSCALL] = profile_frame_intern(p, FRAME_KERNEL, NATIVE_NONE,
					     NULL, "do_syscall_64", NULL,
					     "[kernel.kallsyms]");
	fr[F_COS] = profile_frame_intern(p, FRAME_NATIVE, NATIVE_EXTENSION,
					 NULL, "math_cos", NULL,
					 "/usr/lib/math.cpython-313.so");
	s1[0] = fr[F_MAIN];
	s1[1] = fr[F_WORK];
	s2[0] = fr[F_MAIN];
	s2[1] = fr[F_WORK];
	s2[2] = fr[F_HELPER];
	s3[0] = fr[F_MAIN];
	s3[1] = fr[F_LAMBDA];
	s3[2] = fr[F_APPEND];
	s3[3] = fr[F_MEMCPY];
	s4[0] = fr[F_MAIN];
	s4[1] = fr[F_WORK];
	s4[2] = fr[F_COS];
	s5[0] = fr[F_MAIN];
	s5[1] = fr[F_WORK];
	s5[2] = fr[F_HELPER];
	s5[3] = fr[F_SYSCALL];
	profile_stack_add(p, s1, 2, PROFILE_NO_TASK, variant ? 20 : 50,
			  50000000);
	profile_stack_add(p, s2, 3, PROFILE_NO_TASK, variant ? 60 : 30,
			  30000000);
	profile_stack_add(p, s3, 4, PROFILE_NO_TASK, 10, 10000000);
	if (!variant)
		profile_stack_add(p, s4, 3, PROFILE_NO_TASK, 5, 5000000);
	profile_stack_add(p, s5, 4, PROFILE_NO_TASK, 5, 5000000);
	profile_meta_set(p, "command", "python3.13 prog.py --n 3");
	profile_meta_set(p, "mode", "jit");
	profile_meta_set(p, "python", "/usr/bin/python3.13");
	profile_meta_set(p, "python_version", "3.13.0");
	profile_meta_set(p, "event", "cpu-clock");
	profile_meta_set(p, "frequency", "999");
	profile_meta_set(p, "start_time", "1700000000.5");
	profile_meta_set(p, "end_time", "1700000002.5");
}

static char *write_mem(int (*fn)(const struct profile *,
				 const struct fmt_opts *, FILE *, char *,
				 size_t),
		       const struct profile *p, const struct fmt_opts *o,
		       size_t *len, int *ret)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	char err[PPR_ERR_LEN] = "";

	*ret = fn(p, o, fp, err, sizeof(err));
	fclose(fp);
	if (*ret)
		printf("# writer failed: %s\n", err);
	if (len)
		*len = n;
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *s = hay;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

static void test_tree(const struct profile *p)
{
	struct calltree t;
	uint32_t n, c;
	const char *names[16];
	size_t k = 0;

	calltree_init(&t, 1, CALLTREE_TASKS);
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	TAP_INT(t.nodes[0].total[0], 100, "tree: root holds all samples");
	TAP_INT(t.max_depth, 4, "tree: depth 4");
	TAP_INT(t.nr_nodes, 9, "tree: 8 distinct call paths + root");
	n = t.nodes[0].first_child;
	TAP_STR(t.frames[t.nodes[n].frame].name, "<module> (prog.py)",
		"tree: root child is the module");
	for (c = t.nodes[n].first_child; c != CALLTREE_NONE;
	     c = t.nodes[c].next_sibling)
		names[k++] = t.frames[t.nodes[c].frame].name;
	TAP_INT(k, 2, "tree: two callees of <module>");
	TAP_OK(k == 2 && strcmp(names[0], names[1]) < 0,
	       "tree: siblings sorted by name");
	for (c = t.nodes[n].first_child; c != CALLTREE_NONE;
	     c = t.nodes[c].next_sibling)
		if (!strcmp(t.frames[t.nodes[c].frame].name,
			    "Worker.work (prog.py)"))
			break;
	TAP_OK(c != CALLTREE_NONE && t.nodes[c].total[0] == 90 &&
	       t.nodes[c].self[0] == 50, "tree: work total 90, self 50");
	TAP_INT(t.frames[t.nodes[c].frame].kind, FLAME_PYTHON,
		"tree: python kind");
	calltree_release(&t);

	calltree_init(&t, 1, CALLTREE_TASKS | CALLTREE_INVERTED);
	calltree_add(&t, p, 0);
	calltree_finish(&t);
	k = 0;
	for (c = t.nodes[0].first_child; c != CALLTREE_NONE;
	     c = t.nodes[c].next_sibling)
		k++;
	TAP_INT(k, 5, "inverted: five distinct leaf functions at the top");
	calltree_release(&t);
}

static void test_html(const struct profile *p)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	int ret;
	size_t len;
	char *s;

	o.format = FMT_HTML;
	s = write_mem(fmt_html_write, p, &o, &len, &ret);
	TAP_INT(ret, 0, "html: written");
	TAP_OK(!strncmp(s, "<!DOCTYPE html>", 15), "html: a document");
	TAP_OK(strstr(s, "Worker.work (prog.py)") != NULL,
	       "html: names the Python function");
	TAP_OK(strstr(s, "\\u003clambda\\u003e (prog.py)") != NULL,
	       "html: '<' escaped inside the data script");
	TAP_INT(count(s, "</script>"), 2, "html: data and page scripts only");
	TAP_OK(!strstr(s, " src=") && !strstr(s, "<link") &&
	       !strstr(s, "@import") && !strstr(s, "url(http"),
	       "html: loads nothing from elsewhere");
	TAP_OK(strstr(s, "python3.13 prog.py --n 3") != NULL,
	       "html: header names the command");
	TAP_OK(strstr(s, "\"total\":100,") != NULL, "html: total samples");
	free(s);
}

static void test_svg(const struct profile *p)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	int ret;
	char *s;

	o.format = FMT_SVG;
	s = write_mem(fmt_svg_write, p, &o, NULL, &ret);
	TAP_INT(ret, 0, "svg: written");
	TAP_OK(strstr(s, "<svg ") && strstr(s, "</svg>\n"),
	       "svg: one svg element");
	TAP_OK(strstr(s, "data-n=\"&lt;lambda&gt; (prog.py)\"") != NULL,
	       "svg: names escaped for XML");
	TAP_OK(strstr(s, "Worker.work (prog.py) (90 samples, 90.00%)") !=
	       NULL, "svg: title gives samples and share");
	TAP_INT(count(s, "<g class=\"f\""), 9, "svg: one group per node");
	TAP_OK(!strstr(s, "]]>") || count(s, "]]>") == 1,
	       "svg: script CDATA closed once");
	free(s);
	o.inverted = 1;
	s = write_mem(fmt_svg_write, p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "Icicle graph"), "svg: inverted icicle");
	free(s);
}

static void test_speedscope(const struct profile *p)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	int ret;
	char *s;

	o.format = FMT_SPEEDSCOPE;
	s = write_mem(fmt_speedscope_write, p, &o, NULL, &ret);
	TAP_INT(ret, 0, "speedscope: written");
	TAP_OK(strstr(s, "\"$schema\":\"https://www.speedscope.app/"
		      "file-format-schema.json\"") != NULL,
	       "speedscope: schema named");
	TAP_OK(strstr(s, "{\"name\":\"Worker.work\",\"file\":\"prog.py\"}")
	       != NULL, "speedscope: python frame with its file");
	TAP_OK(strstr(s, "\"weights\":[50,30,10,5,5]") != NULL,
	       "speedscope: weights are the sample counts");
	TAP_OK(strstr(s, "\"endValue\":100") != NULL,
	       "speedscope: endValue is the total");
	free(s);
}

#ifdef PPR_HAVE_PROTOBUF_C
static uint8_t *gunzip(const uint8_t *in, size_t n, size_t *outlen)
{
	z_stream zs;
	size_t cap = 1 << 16;
	uint8_t *out = xmalloc(cap);
	int r;

	memset(&zs, 0, sizeof(zs));
	inflateInit2(&zs, 15 + 16);
	zs.next_in = (unsigned char *)in;
	zs.avail_in = (uInt)n;
	do {
		if (zs.total_out == cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		zs.next_out = out + zs.total_out;
		zs.avail_out = (uInt)(cap - zs.total_out);
		r = inflate(&zs, Z_NO_FLUSH);
	} while (r == Z_OK);
	*outlen = zs.total_out;
	inflateEnd(&zs);
	if (r != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

static void test_pprof(const struct profile *p)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	Perftools__Profiles__Profile *pb;
	int ret, found = 0;
	size_t len, raw_len, i;
	char *s;
	uint8_t *raw;
	int64_t sum = 0;

	o.format = FMT_PPROF;
	s = write_mem(fmt_pprof_write, p, &o, &len, &ret);
	TAP_INT(ret, 0, "pprof: written");
	TAP_OK(len > 2 && (uint8_t)s[0] == 0x1f && (uint8_t)s[1] == 0x8b,
	       "pprof: gzip");
	raw = gunzip((uint8_t *)s, len, &raw_len);
	TAP_OK(raw != NULL, "pprof: gunzips");
	pb = raw ? perftools__profiles__profile__unpack(NULL, raw_len, raw) :
		NULL;
	TAP_OK(pb != NULL, "pprof: a profile.proto message");
	if (!pb)
		goto out;
	TAP_INT(pb->n_sample, 5, "pprof: one sample per stack");
	for (i = 0; i < pb->n_sample; i++)
		sum += pb->sample[i]->value[0];
	TAP_INT(sum, 100, "pprof: sample counts add up");
	TAP_INT(pb->n_sample_type, 2, "pprof: two sample types");
	TAP_STR(pb->string_table[pb->sample_type[1]->unit], "nanoseconds",
		"pprof: cpu-clock in nanoseconds");
	TAP_INT(pb->period, 1000000000 / 999, "pprof: period from -F");
	TAP_INT(pb->time_nanos, 1700000000500000000LL,
		"pprof: time from start_time");
	for (i = 0; i < pb->n_function; i++) {
		Perftools__Profiles__Function *f = pb->function[i];

		if (!strcmp(pb->string_table[f->name], "helper") &&
		    !strcmp(pb->string_table[f->filename], "lib/util.py"))
			found = 1;
	}
	TAP_OK(found, "pprof: python function with its file name");
	/* leaf first: the work->helper->syscall sample starts in kernel */
	found = 0;
	for (i = 0; i < pb->n_sample; i++)
		if (pb->sample[i]->n_location_id == 4 &&
		    pb->sample[i]->location_id[0] == fr[F_SYSCALL] + 1)
			found = 1;
	TAP_OK(found, "pprof: locations leaf first");
	TAP_INT(pb->n_mapping, 4, "pprof: a mapping per object file");
	perftools__profiles__profile__free_unpacked(pb, NULL);
out:
	free(raw);
	free(s);
}
#else
/* A build without libprotobuf-c says so, and how to get pprof. */
static void test_pprof(const struct profile *p)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	char err[PPR_ERR_LEN] = "";
	FILE *fp = fopen("/dev/null", "w");
	int ret;

	o.format = FMT_PPROF;
	ret = fmt_writer(FMT_PPROF)(p, &o, fp, err, sizeof(err));
	fclose(fp);
	TAP_OK(ret < 0, "pprof without protobuf-c: refused");
	TAP_OK(strstr(err, "built without protobuf-c") &&
	       strstr(err, "install libprotobuf-c-dev") &&
	       fmt_unavailable(FMT_PPROF) &&
	       !strcmp(err, fmt_unavailable(FMT_PPROF)),
	       "pprof without protobuf-c: says why and how to fix: %s", err);
}
#endif

static void test_diff(const struct profile *old_p, const struct profile *new_p)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	char *buf = NULL, err[PPR_ERR_LEN];
	size_t n = 0;
	FILE *fp;
	int ret;
	const char *want =
		"<module> (prog.py);<lambda> (prog.py);PyList_Append;"
		"__memcpy_avx_unaligned 10 10\n"
		"<module> (prog.py);Worker.work (prog.py) 50 20\n"
		"<module> (prog.py);Worker.work (prog.py);helper (lib/util.py)"
		" 30 60\n"
		"<module> (prog.py);Worker.work (prog.py);helper (lib/util.py)"
		";do_syscall_64_[k] 5 5\n"
		"<module> (prog.py);Worker.work (prog.py);math_cos 5 0\n";

	o.format = FMT_COLLAPSED;
	fp = open_memstream(&buf, &n);
	ret = fmt_diff_write(old_p, new_p, &o, fp, err, sizeof(err));
	fclose(fp);
	TAP_INT(ret, 0, "diff: collapsed written");
	TAP_STR(buf, want, "diff: difffolded lines 'stack old new'");
	free(buf);

	o.format = FMT_HTML;
	buf = NULL;
	fp = open_memstream(&buf, &n);
	ret = fmt_diff_write(old_p, new_p, &o, fp, err, sizeof(err));
	fclose(fp);
	TAP_OK(!ret && strstr(buf, "\"diff\":1,") &&
	       strstr(buf, "\"total0\":100,"), "diff: html page");
	free(buf);

	o.format = FMT_PPROF;
	fp = fopen("/dev/null", "w");
	ret = fmt_diff_write(old_p, new_p, &o, fp, err, sizeof(err));
	fclose(fp);
	TAP_OK(ret < 0 && strstr(err, "collapsed"),
	       "diff: other formats refused with a message");
}

static void test_escape(void)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);

	json_escape(fp, "a\"b</script>\xff\xc3\xa9\n", 16, JSON_ESC_HTML);
	fclose(fp);
	TAP_STR(buf, "a\\\"b\\u003c/script\\u003e\\ufffd\xc3\xa9\\u000a",
		"json escape for html: quotes, tags, bad UTF-8, controls");
	free(buf);
	buf = NULL;
	fp = open_memstream(&buf, &n);
	json_escape(fp, "a\"b</script>\xff\xc3\xa9\n\x01\\", 18, 0);
	fclose(fp);
	TAP_STR(buf, "a\\\"b</script>\\ufffd\xc3\xa9\\n\\u0001\\\\",
		"json escape: short escapes, tags kept");
	free(buf);
	buf = NULL;
	fp = open_memstream(&buf, &n);
	xml_escape(fp, "<a & 'b'>\x01", 10);
	fclose(fp);
	TAP_STR(buf, "&lt;a &amp; &#39;b&#39;&gt;?", "xml escape");
	free(buf);
}

static char *write_diff(const struct profile *old_p,
			const struct profile *new_p, enum fmt_format f)
{
	struct fmt_opts o = FMT_OPTS_INIT;
	char *buf = NULL, err[PPR_ERR_LEN];
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);

	o.format = f;
	if (fmt_diff_write(old_p, new_p, &o, fp, err, sizeof(err)))
		printf("# diff failed: %s\n", err);
	fclose(fp);
	return buf;
}

/*
 * A profile in nanoseconds, per thread (off-CPU time, say), with
 * weights beyond 32 bits:
 *   main   10/10  <module> -> Worker.work            3 s (self in work)
 *   main   10/10  <module> -> Worker.work -> helper  1.5 s
 *   worker 10/11  <module> -> helper                 0.5 s (old: 2 s)
 */
static void build_ns(struct profile *p, int old)
{
	uint32_t s[3], t1, t2;

	profile_init(p);
	p->unit = UNIT_NS;
	p->group = PROFILE_BY_THREAD;
	s[0] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
				    "<module>", "prog.py", NULL);
	s[1] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
				    "Worker.work", "prog.py", NULL);
	s[2] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
				    "helper", "lib/util.py", NULL);
	t1 = profile_task_intern(p, 10, 10, "main");
	t2 = profile_task_intern(p, 10, 11, "worker");
	profile_stack_add(p, s, 2, t1, 3000000000ULL, 3);
	profile_stack_add(p, s, 3, t1, 1500000000ULL, 2);
	s[1] = s[2];
	profile_stack_add(p, s, 2, t2, old ? 2000000000ULL : 500000000ULL, 1);
	/* what a loader keeps beside the stacks: every thread's weight */
	prof_thread_intern(p, 10, 10, "main", 4);
	prof_thread_intern(p, 10, 11, "worker", 6);
	p->threads[0].weight = p->tasks[t1].weight;
	p->threads[1].weight = p->tasks[t2].weight;
	profile_meta_set(p, "command", "python3 prog.py");
}

/* pprof's first sample type is the unit's, and the default. */
static void pprof_unit_ns(const struct profile *p)
{
#ifdef PPR_HAVE_PROTOBUF_C
	struct fmt_opts o = FMT_OPTS_INIT;
	Perftools__Profiles__Profile *pb;
	uint8_t *raw;
	size_t len, raw_len, i;
	int64_t sum = 0;
	int ret;
	char *s = write_mem(fmt_pprof_write, p, &o, &len, &ret);

	raw = s ? gunzip((uint8_t *)s, len, &raw_len) : NULL;
	pb = raw ? perftools__profiles__profile__unpack(NULL, raw_len, raw) :
		NULL;
	TAP_OK(pb && pb->n_sample_type == 2 &&
	       !strcmp(pb->string_table[pb->sample_type[0]->type], "time") &&
	       !strcmp(pb->string_table[pb->sample_type[0]->unit],
		       "nanoseconds") &&
	       !strcmp(pb->string_table[pb->default_sample_type], "time"),
	       "pprof ns: the first sample type is time/nanoseconds, the "
	       "default");
	for (i = 0; pb && i < pb->n_sample; i++)
		sum += pb->sample[i]->value[0];
	TAP_INT(sum, 5000000000LL, "pprof ns: the values are the weights");
	if (pb)
		perftools__profiles__profile__free_unpacked(pb, NULL);
	free(raw);
	free(s);
#endif
}

/* Every format names a profile's weights after its unit. */
/* Times as the text and the flame graphs show them: 3 significant digits. */
static void test_time_ns(void)
{
	static const struct { uint64_t ns; const char *want; } cases[] = {
		{ 0, "0 ns" }, { 40, "40 ns" }, { 999, "999 ns" },
		{ 1000, "1.00 us" }, { 731400, "731 us" },
		{ 58249999, "58.2 ms" }, { 999499999, "999 ms" },
		{ 999500000, "1.00 s" }, { 2902208961ull, "2.90 s" },
		{ 5815453094ull, "5.82 s" }, { 99950000000ull, "100 s" },
		{ 3600000000000ull, "3600 s" },
	};
	char buf[FMT_TIME_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		TAP_STR(fmt_time_ns(cases[i].ns, buf, sizeof(buf)),
			cases[i].want, "time %llu ns",
			(unsigned long long)cases[i].ns);
}

static void test_unit_ns(void)
{
	struct profile p, old, smp;
	struct fmt_opts o = FMT_OPTS_INIT;
	char *s, *buf = NULL, err[PPR_ERR_LEN] = "";
	size_t n = 0;
	FILE *fp;
	int ret;

	build_ns(&p, 0);
	s = write_mem(fmt_text_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\n# time:     5.00 s, 1 process, "
			      "2 threads\n"),
	       "text ns: the header's total, a time in seconds");
	TAP_OK(s && strstr(s, "\n   Self%   Total%      Time  Function\n"
			   "  60.00%   90.00%    3.00 s  Worker.work "
			   "(prog.py)\n"),
	       "text ns: the column title, the time in 3 digits");
	TAP_OK(s && strstr(s, "\n   Share      Time      PID      TID  "
			   "Command\n  90.00%    4.50 s       10       10  "
			   "main\n  10.00%    500 ms       10       11  "
			   "worker\n"),
	       "text ns: the threads' times");
	TAP_INT(count(s, "0000000"), 0, "text ns: no nanoseconds to count "
		"digits in");
	TAP_INT(count(s, "amples"), 0, "text ns: no word of samples");
	free(s);
	s = NULL;
	fp = open_memstream(&s, &n);
	fmt_text_top(&p, &o, fp, 1);
	fclose(fp);
	TAP_OK(strstr(s, "  Total%    Self%      Time  Function\n"
		      " 100.00%    0.00%    5.00 s  <module> (prog.py)\n"),
	       "top's table ns: the column title and weights");
	free(s);

	s = write_mem(fmt_collapsed_write, &p, &o, NULL, &ret);
	TAP_STR(s, "main-10/10;<module> (prog.py);Worker.work (prog.py) "
		"3000000000\n"
		"main-10/10;<module> (prog.py);Worker.work (prog.py);helper "
		"(lib/util.py) 1500000000\n"
		"worker-10/11;<module> (prog.py);helper (lib/util.py) "
		"500000000\n", "collapsed ns: lines end in the weights");
	free(s);

	s = write_mem(fmt_json_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\n  \"view\": \"mixed\",\n  \"unit\": "
			      "\"nanoseconds\",\n  \"nanoseconds\": "
			      "5000000000,\n  \"period\": 6,\n"),
	       "json ns: a unit field, the total named after it");
	TAP_OK(s && strstr(s, "\"self_nanoseconds\": 3000000000,\n"
			   "      \"total_nanoseconds\": 4500000000,\n"),
	       "json ns: functions' weights named after the unit");
	TAP_OK(s && strstr(s, "\"tid\": 11,\n          \"comm\": \"worker\","
			   "\n          \"nanoseconds\": 500000000,\n"),
	       "json ns: threads' weights named after the unit");
	TAP_INT(count(s, "samples"), 0, "json ns: no samples key");
	free(s);

	s = write_mem(fmt_html_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\n\"unit\":\"nanoseconds\",\n\"total\":"
			      "5000000000,\n") &&
	       strstr(s, "\n[\"time\",\"5.00 s\"],\n") &&
	       strstr(s, ",3,4,1500000000,"),
	       "html ns: the page's unit, header and weights");
	free(s);

	s = write_mem(fmt_svg_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, " data-total=\"5000000000\" ") &&
	       strstr(s, "<text id=\"subtitle\" x=\"600\" y=\"36\">command: "
		      "python3 prog.py  \xc2\xb7  time: 5.00 s"
		      "</text>") &&
	       strstr(s, "<title>all (5.00 s, 100.00%)"
		      "</title>"),
	       "svg ns: the header and tooltips show a time");
	free(s);

	s = write_mem(fmt_speedscope_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\"name\":\"main (pid 10, tid 10)\",\"unit\":"
			      "\"nanoseconds\",\"startValue\":0,\"endValue\":"
			      "4500000000,\"samples\":[[0,1],[0,1,2]],"
			      "\"weights\":[3000000000,1500000000]}"),
	       "speedscope ns: the unit nanoseconds, weights and end");
	TAP_INT(count(s, "\"unit\":\"nanoseconds\""), 2,
		"speedscope ns: every profile in nanoseconds");
	free(s);

	pprof_unit_ns(&p);

	/* a diff of two profiles in nanoseconds */
	build_ns(&old, 1);
	s = write_diff(&old, &p, FMT_COLLAPSED);
	TAP_STR(s, "main-10/10;<module> (prog.py);Worker.work (prog.py) "
		"3000000000 3000000000\n"
		"main-10/10;<module> (prog.py);Worker.work (prog.py);helper "
		"(lib/util.py) 1500000000 1500000000\n"
		"worker-10/11;<module> (prog.py);helper (lib/util.py) "
		"2000000000 500000000\n", "diff ns: 'stack old new' weights");
	free(s);
	s = write_diff(&old, &p, FMT_HTML);
	TAP_OK(s && strstr(s, "\n[\"old time\",\"6.50 s\"]"),
	       "diff html ns: the old total as a time");
	free(s);
	s = write_diff(&old, &p, FMT_SVG);
	TAP_OK(s && strstr(s, "(width: new time; red: more, blue: "
			   "fewer than in the old profile, 6.50 s)") &&
	       strstr(s, ">more time than in the old profile<") &&
	       strstr(s, ">less time<") &&
	       strstr(s, "<title>all (5.00 s, 100.00%; old "
		      "6.50 s, 100.00%)</title>"),
	       "diff svg ns: subtitle, legend and tooltips show times");
	free(s);

	/* samples keep their names, without a unit field */
	build(&smp, 0);
	s = write_mem(fmt_json_write, &smp, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\n  \"view\": \"mixed\",\n  \"samples\": 100,"
			      "\n") && !strstr(s, "\"unit\"") &&
	       strstr(s, "\"self_samples\": 50,\n"),
	       "json samples: the keys as they were, no unit field");
	free(s);

	/* weights of two units do not compare */
	o.format = FMT_COLLAPSED;
	fp = open_memstream(&buf, &n);
	ret = fmt_diff_write(&smp, &p, &o, fp, err, sizeof(err));
	fclose(fp);
	TAP_OK(ret < 0 && n == 0, "diff of samples with nanoseconds: refused, "
	       "nothing written");
	TAP_STR(err, "cannot compare weights in samples (the old profile) "
		"with weights in nanoseconds (the new one)",
		"diff of two units: says which");
	free(buf);
	o.format = FMT_HTML;
	buf = NULL;
	fp = open_memstream(&buf, &n);
	ret = fmt_diff_write(&p, &smp, &o, fp, err, sizeof(err));
	fclose(fp);
	TAP_OK(ret < 0 && n == 0 && strstr(err, "in nanoseconds (the old"),
	       "diff of two units: html refused too");
	free(buf);
	profile_release(&smp);
	profile_release(&old);
	profile_release(&p);
}

/* The warnings of test_warnings() as pprof comments. */
static void warnings_pprof(const struct profile *p, const struct fmt_opts *o)
{
#ifdef PPR_HAVE_PROTOBUF_C
	Perftools__Profiles__Profile *pb;
	uint8_t *raw;
	size_t len, raw_len, i;
	int ret, seen1 = 0, seen2 = 0;
	char *s = write_mem(fmt_pprof_write, p, o, &len, &ret);

	raw = s ? gunzip((uint8_t *)s, len, &raw_len) : NULL;
	pb = raw ? perftools__profiles__profile__unpack(NULL, raw_len, raw) :
		NULL;
	for (i = 0; pb && i < pb->n_comment; i++) {
		const char *c = pb->string_table[pb->comment[i]];

		seen1 |= !strcmp(c, "warning: " SYNTH_WARN1);
		seen2 |= !strcmp(c, "warning: " SYNTH_WARN2);
	}
	TAP_OK(seen1 && seen2, "pprof: a comment each");
	if (pb)
		perftools__profiles__profile__free_unpacked(pb, NULL);
	free(raw);
	free(s);
#endif
}

/* Every format shows every warning: a profile with two of them. */
static void test_warnings(void)
{
	struct profile p, q;
	struct fmt_opts o = FMT_OPTS_INIT;
	char **w, *s;
	size_t n;
	int ret;

	build(&p, 0);
	profile_warn(&p, "%s", SYNTH_WARN1);
	profile_warn(&p, "%s", SYNTH_WARN2);
	p.quality.judged = 100;
	p.quality.cut[CUT_NONE] = 70;
	p.quality.cut[CUT_DEPTH] = 30;
	p.quality.unnamed = 4;
	p.quality.bad_names = 12;

	n = fmt_warnings(&p, &w);
	TAP_INT(n, 2, "warnings: both");
	TAP_OK(n == 2 && !strcmp(w[0], SYNTH_WARN1) &&
	       !strcmp(w[1], SYNTH_WARN2), "warnings: in order, verbatim");
	fmt_warnings_free(w, n);

	s = write_mem(fmt_text_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\n# warning:  " SYNTH_WARN1 "\n") &&
	       strstr(s, "\n# warning:  " SYNTH_WARN2 "\n"),
	       "text: a '# warning:' header line each");
	free(s);

	s = write_mem(fmt_json_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\"warnings\": [\n    \"30% of the "
			      "samples have incomplete stacks (<cut> at "
			      "\\\"depth\\\")\",\n    \"" SYNTH_WARN2
			      "\"\n  ],"),
	       "json: a top-level warnings array of both");
	TAP_OK(s && strstr(s, "\"judged\": 100,") &&
	       strstr(s, "\"complete\": 70,") && strstr(s, "\"depth\": 30,") &&
	       strstr(s, "\"unnamed\": 4,") && strstr(s, "\"bad_names\": 12"),
	       "json: the quality counts");
	free(s);

	s = write_mem(fmt_html_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "\"warnings\":[\n\"30% of the samples have "
			      "incomplete stacks (\\u003ccut\\u003e at "
			      "\\\"depth\\\")\",\n\"12 damaged map records "
			      "were dropped \\u0026 not shown\"],"),
	       "html: both in the page data, escaped");
	free(s);

	s = write_mem(fmt_svg_write, &p, &o, NULL, &ret);
	TAP_INT(count(s, "<text class=\"warning\""), 2,
		"svg: a warning line each");
	TAP_OK(s && strstr(s, "warning: 30% of the samples have incomplete "
			   "stacks (&lt;cut&gt; at &quot;depth&quot;)</text>")
	       && strstr(s, "warning: 12 damaged map records were dropped "
			 "&amp; not shown</text>"), "svg: escaped for XML");
	free(s);

	s = write_mem(fmt_speedscope_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && strstr(s, "{\"$schema\":\"https://www.speedscope.app/"
			      "file-format-schema.json\",\"name\":\"[warning: "
			      "30% of the samples have incomplete stacks "
			      "(<cut> at \\\"depth\\\")] [warning: "
			      SYNTH_WARN2 "] python3.13 prog.py --n 3\","),
	       "speedscope: both in the file's name (the tab title)");
	TAP_OK(s && strstr(s, "\"type\":\"sampled\",\"name\":\"[2 warnings: "
			   "30% of the samples have incomplete stack"
			   "\xe2\x80\xa6] python3.13 prog.py --n 3\""),
	       "speedscope: the profile's name (the toolbar) says so");
	free(s);

	warnings_pprof(&p, &o);

	s = write_mem(fmt_collapsed_write, &p, &o, NULL, &ret);
	TAP_OK(!ret && !strstr(s, "warning"),
	       "collapsed: only stack lines (the caller prints warnings)");
	free(s);

	/* a diff shows the warnings of both sessions */
	build(&q, 1);
	profile_warn(&q, "only the new one");
	s = write_diff(&p, &q, FMT_HTML);
	TAP_OK(s && strstr(s, "\"warnings\":[\n\"only the new one\",\n"
			   "\"old session: 30% of the samples"),
	       "diff html: new warnings, then the old ones");
	free(s);
	s = write_diff(&p, &q, FMT_SVG);
	TAP_INT(count(s, "<text class=\"warning\""), 3,
		"diff svg: all three warnings");
	free(s);
	profile_release(&q);
	profile_release(&p);

	/* record's truncation share, from the meta, when load did not judge */
	build(&p, 0);
	profile_meta_set(&p, "truncated", "0.4000");
	profile_warn(&p, "line\none\tand \xff");
	n = fmt_warnings(&p, &w);
	TAP_INT(n, 2, "meta truncated: one more warning");
	TAP_OK(n == 2 && !strcmp(w[0], "line one and \xef\xbf\xbd") &&
	       !strcmp(w[1], "40% of the samples have incomplete stacks "
		       "(their outer callers are missing)"),
	       "warnings: one line of valid UTF-8; the meta's share");
	fmt_warnings_free(w, n);
	s = write_mem(fmt_text_write, &p, &o, NULL, &ret);
	TAP_INT(count(s, "# warning:  "), 2, "text: the meta warning too");
	free(s);
	s = write_mem(fmt_speedscope_write, &p, &o, NULL, &ret);
	TAP_OK(s && strstr(s, "\"type\":\"sampled\",\"name\":\"[2 warnings: "
			   "line one and \xef\xbf\xbd] python3.13 prog.py"),
	       "speedscope: the warning's count and the first one");
	free(s);
	p.quality.judged = 10;
	n = fmt_warnings(&p, &w);
	TAP_INT(n, 1, "meta truncated: not when the load judged the stacks");
	fmt_warnings_free(w, n);
	profile_release(&p);

	build(&p, 0);
	profile_warn(&p, "%s", "a warning as long as a real one, which "
		     "does not fit on speedscope's toolbar");
	s = write_mem(fmt_speedscope_write, &p, &o, NULL, &ret);
	TAP_OK(s && strstr(s, "\"type\":\"sampled\",\"name\":\"[warning: "
			   "a warning as long as a real one, which d"
			   "\xe2\x80\xa6] python3.13 prog.py"),
	       "speedscope: a long warning cut in the profile's name");
	TAP_OK(s && strstr(s, "toolbar] python3.13"),
	       "speedscope: in full in the file's name");
	free(s);
	profile_release(&p);
}

static void test_empty(void)
{
	struct profile p;
	struct fmt_opts o = FMT_OPTS_INIT;
	int ret, all = 1;
	char *s;

	profile_init(&p);
	s = write_mem(fmt_html_write, &p, &o, NULL, &ret);
	all &= !ret && strstr(s, "\"nodes\":[]") != NULL;
	free(s);
	s = write_mem(fmt_svg_write, &p, &o, NULL, &ret);
	all &= !ret && strstr(s, "</svg>") != NULL;
	free(s);
	s = write_mem(fmt_speedscope_write, &p, &o, NULL, &ret);
	all &= !ret && strstr(s, "\"samples\":[]") != NULL;
	free(s);
#ifdef PPR_HAVE_PROTOBUF_C
	s = write_mem(fmt_pprof_write, &p, &o, NULL, &ret);
	all &= !ret;
	free(s);
#endif
	TAP_OK(all, "an empty profile: every writer writes a valid file");
	profile_release(&p);
}

/* --- the synthetic profile of the t6xxx tests -------------------------- */

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void build_synth(struct profile *p, unsigned long nstacks, int var)
{
	uint32_t py[400], nat[60], kern[20], st[64];
	char name[64], file[64];
	unsigned long i;
	size_t k;

	profile_init(p);
	for (k = 0; k < ARRAY_SIZE(py); k++) {
		snprintf(name, sizeof(name), "mod%zu.func_%zu", k % 23, k);
		snprintf(file, sizeof(file), "/src/pkg/mod%zu.py", k % 23);
		py[k] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE,
					     NULL, name, file, NULL);
	}
	for (k = 0; k < ARRAY_SIZE(nat); k++) {
		enum native_class nc = k < 20 ? NATIVE_LIBPYTHON :
			k < 40 ? NATIVE_EXTENSION : NATIVE_SYSTEM;
		const char *dso = k < 20 ? "libpython3.13.so" :
			k < 40 ? "_ext.cpython-313.so" : "libc.so.6";

		snprintf(name, sizeof(name), "%s_%zu", k < 20 ? "PyObject_Op" :
			 k < 40 ? "ext_kernel" : "libc_call", k);
		nat[k] = profile_frame_intern(p, FRAME_NATIVE, nc, NULL, name,
					      NULL, dso);
	}
	for (k = 0; k < ARRAY_SIZE(kern); k++) {
		snprintf(name, sizeof(name), "kernel_fn_%zu", k);
		kern[k] = profile_frame_intern(p, FRAME_KERNEL, NATIVE_NONE,
					       NULL, name, NULL,
					       "[kernel.kallsyms]");
	}
	for (i = 0; i < nstacks; i++) {
		size_t depth = 4 + next_rand() % 30, d;
		uint64_t w = 1 + next_rand() % 20;

		/* a shared prefix so the tree looks like a program */
		st[0] = py[0];
		st[1] = py[1 + next_rand() % 3];
		for (d = 2; d < depth; d++)
			st[d] = py[next_rand() % ARRAY_SIZE(py)];
		/* unique tail: the stack number in base 400 */
		st[depth++] = py[i % 400];
		st[depth++] = py[(i / 400) % 400];
		st[depth++] = py[(i / 160000) % 400];
		if (next_rand() % 3 == 0)
			st[depth++] = nat[next_rand() % ARRAY_SIZE(nat)];
		if (next_rand() % 5 == 0)
			st[depth++] = kern[next_rand() % ARRAY_SIZE(kern)];
		if (var && st[1] == py[2])
			w *= 2;
		profile_stack_add(p, st, (uint32_t)depth, PROFILE_NO_TASK, w,
				  w * 1001001);
	}
	profile_meta_set(p, "command", "python3.13 synthetic.py");
	profile_meta_set(p, "mode", "jit");
	profile_meta_set(p, "python_version", "3.13.0");
	profile_meta_set(p, "event", "cpu-clock");
	profile_meta_set(p, "frequency", "999");
}

/*
 * The shape of a real program's flame graph that once opened with the
 * root below the fold: NSTACKS stacks at most 12 frames deep under
 * main(), and 3 % of the samples in start-up imports 70 frames deep.
 */
static void build_sliver(struct profile *p, unsigned long nstacks)
{
	uint32_t st[80], mod, mainf, imp[70], work[40];
	char name[64];
	unsigned long i;
	size_t k, d;

	profile_init(p);
	mod = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
				   "<module>", "/src/app.py", NULL);
	mainf = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL,
				     "main", "/src/app.py", NULL);
	for (k = 0; k < ARRAY_SIZE(imp); k++) {
		snprintf(name, sizeof(name), "%s_%zu", k % 2 ?
			 "_call_with_frames_removed" : "_find_and_load", k);
		imp[k] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE,
					      NULL, name,
					      "<frozen importlib._bootstrap>",
					      NULL);
	}
	for (k = 0; k < ARRAY_SIZE(work); k++) {
		snprintf(name, sizeof(name), "step_%zu", k);
		work[k] = profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE,
					       NULL, name, "/src/app.py",
					       NULL);
	}
	if (nstacks < 1)
		nstacks = 1;
	/* 97 % under main, at most 12 frames deep */
	for (i = 0; i < nstacks; i++) {
		size_t depth = 3 + next_rand() % 10;

		st[0] = mod;
		st[1] = mainf;
		for (d = 2; d < depth; d++)
			st[d] = work[(d * 7 + i) % ARRAY_SIZE(work)];
		profile_stack_add(p, st, (uint32_t)depth, PROFILE_NO_TASK,
				  970000 / nstacks,
				  970000ULL / nstacks * 1001001);
	}
	/* 3 % in imports, 70 deep */
	st[0] = mod;
	for (d = 0; d < ARRAY_SIZE(imp); d++)
		st[d + 1] = imp[d];
	for (k = 0; k < 3; k++)
		profile_stack_add(p, st, (uint32_t)(ARRAY_SIZE(imp) + 1 - k),
				  PROFILE_NO_TASK, 10000, 10000ULL * 1001001);
	profile_meta_set(p, "command", "python3.13 app.py");
	profile_meta_set(p, "mode", "jit");
	profile_meta_set(p, "python_version", "3.13.0");
	profile_meta_set(p, "event", "cpu-clock");
	profile_meta_set(p, "frequency", "999");
}

static int synth(int argc, char **argv)
{
	struct profile p, old;
	struct fmt_opts o = FMT_OPTS_INIT;
	char err[PPR_ERR_LEN] = "";
	unsigned long n = strtoul(argv[2], NULL, 10);
	const char *f = argv[3];
	int ret, i, warn = 0, sliver = 0;

	for (i = 4; i < argc; i++) {
		o.inverted |= !strcmp(argv[i], "inverted");
		warn |= !strcmp(argv[i], "warn");
		sliver |= !strcmp(argv[i], "sliver");
	}
	if (sliver)
		build_sliver(&p, n);
	else
		build_synth(&p, n, 1);
	if (warn) {
		profile_warn(&p, "%s", SYNTH_WARN1);
		profile_warn(&p, "%s", SYNTH_WARN2);
	}
	if (!strcmp(f, "html")) {
		ret = fmt_html_write(&p, &o, stdout, err, sizeof(err));
	} else if (!strcmp(f, "svg")) {
		ret = fmt_svg_write(&p, &o, stdout, err, sizeof(err));
	} else if (!strcmp(f, "speedscope")) {
		ret = fmt_speedscope_write(&p, &o, stdout, err, sizeof(err));
	} else if (!strcmp(f, "pprof")) {
		ret = fmt_writer(FMT_PPROF)(&p, &o, stdout, err,
					    sizeof(err));
	} else if (!strncmp(f, "diff-", 5)) {
		rng = 88172645463325252ULL;
		build_synth(&old, n, 0);
		o.format = !strcmp(f + 5, "html") ? FMT_HTML : FMT_COLLAPSED;
		ret = fmt_diff_write(&old, &p, &o, stdout, err, sizeof(err));
		profile_release(&old);
	} else {
		fprintf(stderr, "unknown format '%s'\n", f);
		ret = -1;
	}
	if (ret)
		fprintf(stderr, "error: %s\n", err);
	profile_release(&p);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct profile p, p2;

	if (argc >= 4 && !strcmp(argv[1], "synth"))
		return synth(argc, argv);
	build(&p, 0);
	test_tree(&p);
	test_html(&p);
	test_svg(&p);
	test_speedscope(&p);
	test_pprof(&p);
	build(&p2, 1);
	test_diff(&p, &p2);
	test_escape();
	test_warnings();
	test_time_ns();
	test_unit_ns();
	test_empty();
	profile_release(&p);
	profile_release(&p2);
	return tap_done();
}
