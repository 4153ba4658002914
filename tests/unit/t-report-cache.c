/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/report/src_perfscript_cache.c: a replay gives back exactly
 * the samples that were added; keys follow perf.data and perf; damaged,
 * truncated and hostile files are refused without a crash and without
 * a single sample delivered.
 */
#include "compat.h"
#include "alloc.h"
#include "report/src_perfscript_cache.h"
#include "tap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a reference stream ---------------------------------------------- */

#define NR_SAMPLES 400
#define MAX_FRAMES 300

struct ref_sample {
	char comm[32];
	char event[16];
	pid_t pid, tid;
	uint64_t time, period;
	size_t nr;
	struct sample_frame frames[MAX_FRAMES];
};

static struct ref_sample *refs;
static char names[64][40];

static struct sample_str str(const char *s)
{
	struct sample_str r = { s, strlen(s) };

	return r;
}

static uint64_t rng_state = 0x1234567887654321ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void make_refs(void)
{
	size_t i, j;

	refs = xcalloc(NR_SAMPLES, sizeof(*refs));
	for (i = 0; i < 64; i++)
		snprintf(names[i], sizeof(names[i]), "py::f%zu:/src/m%zu.py",
			 i, i % 5);
	snprintf(names[0], sizeof(names[0]), "[unknown]");
	snprintf(names[1], sizeof(names[1]), "%s", "");	/* empty name */
	for (i = 0; i < NR_SAMPLES; i++) {
		struct ref_sample *r = &refs[i];
		/* deep, mostly shared stacks; a few empty and 1-frame ones */
		size_t depth = i % 50 == 7 ? 0 : i % 50 == 8 ? 1 :
			(size_t)(200 + rng() % 100);

		snprintf(r->comm, sizeof(r->comm), "%s",
			 i % 3 ? "python3" : "Thread 1 (w)");
		snprintf(r->event, sizeof(r->event), "%s",
			 i % 97 ? "cpu-clock" : "page-faults");
		r->pid = i % 3 ? 100 : 4000000;
		r->tid = i % 3 ? 100 : 101;
		/* time mostly rising, sometimes back, once huge */
		r->time = i == 200 ? UINT64_MAX - 5 :
			(uint64_t)i * 1001001 + (i % 11 == 3 ? 0 : 77) +
			(i > 300 ? 5 : 0);
		if (i % 13 == 5)
			r->time -= 2000000;
		r->period = i % 17 ? 1001001 : 3;
		r->nr = depth;
		for (j = 0; j < depth; j++) {
			/* root side identical, leaf side varies */
			size_t k = depth - 1 - j;
			size_t n = k < 150 ? k % 60 : (size_t)(rng() % 64);

			r->frames[j].sym = str(names[n]);
			r->frames[j].dso = str(n % 2 ? "/tmp/perf-100.map" :
					       "[kernel.kallsyms]");
			r->frames[j].ip = j == 0 ? rng() :
				0x7f0000000000ULL + n * 16 + (k < 150 ? 0 :
							    rng() % 3);
		}
	}
}

/*
 * perf.data's facts for n dumps: times rising with ties (told apart by
 * tid), tids from INT32_MIN to INT32_MAX, stack pointers up and down
 * and 0 (not recorded), full and not; tops sorted and distinct.
 */
static void make_facts(struct report_cache_facts *f, size_t n)
{
	static const int32_t tids[] = { INT32_MIN, -1, 0, 100, 101,
					INT32_MAX };
	size_t i;

	memset(f, 0, sizeof(*f));
	f->max_stack = 127;
	f->dump_size = 32768;
	f->recorded = 123456;
	f->lost = 7;
	f->nr_dumps = n;
	f->dumps = xcalloc(n ? n : 1, sizeof(*f->dumps));
	for (i = 0; i < n; i++) {
		struct report_cache_dump *d = &f->dumps[i];

		d->time = 1000000000ULL * 5000 + (i / 2) * 1001001 +
			(i > n / 2 ? 1ULL << 40 : 0);
		d->tid = i % 2 ? tids[(i / 2) % 3 + 3] : tids[(i / 2) % 3];
		d->sp = i % 7 == 3 ? 0 : i % 2 ? 0x7ffd00000000ULL - i * 64 :
			0x7f0000001000ULL + (uint64_t)(rng() % 65536);
		d->full = i % 3 != 0;
	}
	f->nr_tops = 4;
	f->tops = xcalloc(4, sizeof(*f->tops));
	f->tops[0].tid = INT32_MIN;
	f->tops[0].top = UINT64_MAX;
	f->tops[1].tid = 100;
	f->tops[1].top = 0x7f0000010000ULL;
	f->tops[2].tid = 100;
	f->tops[2].top = 0x7ffd00001000ULL;
	f->tops[3].tid = INT32_MAX;
	f->tops[3].top = 0;
}

static int facts_eq(const struct report_cache_facts *a,
		    const struct report_cache_facts *b)
{
	size_t i;

	if (a->max_stack != b->max_stack || a->dump_size != b->dump_size ||
	    a->recorded != b->recorded || a->lost != b->lost ||
	    a->nr_dumps != b->nr_dumps || a->nr_tops != b->nr_tops)
		return 0;
	for (i = 0; i < a->nr_dumps; i++)
		if (a->dumps[i].time != b->dumps[i].time ||
		    a->dumps[i].sp != b->dumps[i].sp ||
		    a->dumps[i].tid != b->dumps[i].tid ||
		    a->dumps[i].full != b->dumps[i].full)
			return 0;
	for (i = 0; i < a->nr_tops; i++)
		if (a->tops[i].tid != b->tops[i].tid ||
		    a->tops[i].top != b->tops[i].top)
			return 0;
	return 1;
}

static void fill_sample(struct sample *s, const struct ref_sample *r)
{
	memset(s, 0, sizeof(*s));
	s->comm = str(r->comm);
	s->event = str(r->event);
	s->pid = r->pid;
	s->tid = r->tid;
	s->time_ns = r->time;
	s->period = r->period;
	s->frames = r->frames;
	s->nr_frames = r->nr;
}

static int ps_eq(struct sample_str a, struct sample_str b)
{
	return a.len == b.len && !memcmp(a.s, b.s, a.len);
}

struct check {
	size_t n;
	size_t mismatches;
	int stop_at;		/* stop when n reaches this (0: never) */
	const char *lo, *hi;	/* the buffer: strings must lie inside */
	size_t bad_ptr;
	/* the facts callback */
	const struct report_cache_facts *want;	/* NULL: all zero */
	size_t facts_calls, facts_wrong, facts_late;
};

static void on_facts_check(void *data, const struct report_cache_facts *f)
{
	struct check *c = data;
	struct report_cache_facts zero;

	memset(&zero, 0, sizeof(zero));
	c->facts_calls++;
	if (!facts_eq(f, c->want ? c->want : &zero))
		c->facts_wrong++;
	if (c->n)
		c->facts_late++;	/* after a sample */
}

/* For damaged input: the facts keep the promises of src_perfscript_cache.h. */
static void on_facts_garbage(void *data, const struct report_cache_facts *f)
{
	struct check *c = data;
	size_t i;

	c->facts_calls++;
	for (i = 1; i < f->nr_dumps; i++)
		if (f->dumps[i].time < f->dumps[i - 1].time ||
		    (f->dumps[i].time == f->dumps[i - 1].time &&
		     f->dumps[i].tid < f->dumps[i - 1].tid))
			c->bad_ptr++;
	for (i = 0; i < f->nr_dumps; i++)
		if (f->dumps[i].full > 1)
			c->bad_ptr++;
	for (i = 1; i < f->nr_tops; i++)
		if (f->tops[i].tid < f->tops[i - 1].tid ||
		    (f->tops[i].tid == f->tops[i - 1].tid &&
		     f->tops[i].top <= f->tops[i - 1].top))
			c->bad_ptr++;
}

static int on_check(void *data, const struct sample *s)
{
	struct check *c = data;
	const struct ref_sample *r = c->n < NR_SAMPLES ? &refs[c->n] : NULL;
	size_t j;
	int ok = r != NULL;

	if (ok) {
		struct sample want;

		fill_sample(&want, r);
		ok = ps_eq(s->comm, want.comm) &&
		     ps_eq(s->event, want.event) && s->pid == want.pid &&
		     s->tid == want.tid && s->time_ns == want.time_ns &&
		     s->period == want.period &&
		     s->nr_frames == want.nr_frames;
		for (j = 0; ok && j < s->nr_frames; j++)
			ok = s->frames[j].ip == want.frames[j].ip &&
			     ps_eq(s->frames[j].sym, want.frames[j].sym) &&
			     ps_eq(s->frames[j].dso, want.frames[j].dso);
	}
	if (!ok)
		c->mismatches++;
	c->n++;
	return c->stop_at && (int)c->n == c->stop_at ? 42 : 0;
}

/* For damaged input: every string must lie inside the buffer. */
static int on_garbage(void *data, const struct sample *s)
{
	struct check *c = data;
	size_t j;

#define INSIDE(p) ((p).len <= (size_t)(c->hi - c->lo) && \
		   (p).s >= c->lo && (p).s + (p).len <= c->hi)
	if (!INSIDE(s->comm) || !INSIDE(s->event))
		c->bad_ptr++;
	for (j = 0; j < s->nr_frames; j++)
		if (!INSIDE(s->frames[j].sym) || !INSIDE(s->frames[j].dso))
			c->bad_ptr++;
#undef INSIDE
	c->n++;
	return 0;
}

/* The first n reference samples and, unless NULL, facts. */
static struct report_cache_writer *
writer_with_refs(size_t n, const struct report_cache_facts *facts)
{
	struct report_cache_writer *w = report_cache_writer_new();
	struct sample s;
	size_t i;

	if (facts)
		report_cache_set_facts(w, facts);
	for (i = 0; i < n; i++) {
		fill_sample(&s, &refs[i]);
		report_cache_add(w, &s);
	}
	return w;
}

static void key_of(struct strbuf *key, const char *text)
{
	strbuf_reset(key);
	strbuf_add(key, text, strlen(text) + 1);
}

/* ---- tests ----------------------------------------------------------- */

static void test_round_trip(const struct strbuf *file,
			    const struct strbuf *key,
			    const struct report_cache_facts *facts)
{
	struct report_cache_stats st;
	struct check c = { 0 };
	struct strbuf other = STRBUF_INIT;
	size_t raw = 0, i;
	int cb_ret = -1;

	for (i = 0; i < NR_SAMPLES; i++)
		raw += refs[i].nr * 60 + 60;
	TAP_OK(file->len < raw / 10,
	       "the cache is compact: %zu bytes for ~%zu of perf script",
	       file->len, raw);

	c.want = facts;
	TAP_INT(report_cache_replay_buf(file->buf, file->len, key, 0,
					on_facts_check, on_check, &c, &st,
					&cb_ret), 1,
		"a cache replays");
	TAP_INT(c.facts_calls, 1, "perf.data's facts come back once");
	TAP_INT(c.facts_wrong, 0, "as they were set");
	TAP_INT(c.facts_late, 0, "before the first sample");
	TAP_INT(c.n, NR_SAMPLES, "every sample comes back");
	TAP_INT(c.mismatches, 0, "each exactly as it was added");
	TAP_INT(cb_ret, 0, "no callback stopped it");
	TAP_INT(st.bytes, 123456789, "stats: bytes");
	TAP_INT(st.bad_lines, 3, "stats: bad lines");
	TAP_INT(st.samples, NR_SAMPLES, "stats: samples");

	memset(&c, 0, sizeof(c));
	c.stop_at = 10;
	TAP_INT(report_cache_replay_buf(file->buf, file->len, key, 0,
					NULL, on_check, &c, NULL, &cb_ret), 1,
		"a stopped replay still counts as replayed");
	TAP_INT(c.n, 10, "the callback's stop is obeyed");
	TAP_INT(cb_ret, 42, "and its value returned");

	memset(&c, 0, sizeof(c));
	key_of(&other, "another key");
	TAP_INT(report_cache_replay_buf(file->buf, file->len, &other, 0,
					on_facts_check, on_check, &c, NULL,
					NULL), 0,
		"another key is refused");
	strbuf_reset(&other);
	strbuf_add(&other, key->buf, key->len - 1);
	TAP_INT(report_cache_replay_buf(file->buf, file->len, &other, 0,
					on_facts_check, on_check, &c, NULL,
					NULL), 0,
		"a prefix of the key is refused");
	TAP_INT(c.n, 0, "no sample delivered from a refused cache");
	TAP_INT(c.facts_calls, 0, "nor its facts");
	strbuf_release(&other);
}

static void test_damage(const struct strbuf *file, const struct strbuf *key)
{
	struct check c = { 0 };
	char *copy = xmalloc(file->len);
	size_t len, pos, accepted = 0, flips = 0, iter;
	int r, bit;

	/* every truncation: refused, nothing delivered */
	for (len = 0; len < file->len; len++) {
		char *cut = xmalloc(len ? len : 1);

		memcpy(cut, file->buf, len);
		r = report_cache_replay_buf(cut, len, key, 0, on_facts_check,
					    on_check, &c, NULL, NULL);
		accepted += r;
		free(cut);
	}
	TAP_INT(accepted, 0, "every truncation is refused");
	TAP_INT(c.n + c.facts_calls, 0, "and delivers nothing");

	/* truncations past the checksum: the parser alone must hold */
	memset(&c, 0, sizeof(c));
	for (len = 0; len < file->len; len++) {
		char *cut = xmalloc(len ? len : 1);

		memcpy(cut, file->buf, len);
		c.lo = cut;
		c.hi = cut + len;
		report_cache_replay_buf(cut, len, NULL,
					REPORT_CACHE_NO_CHECKSUM,
					on_facts_garbage, on_garbage, &c,
					NULL, NULL);
		free(cut);
	}
	TAP_INT(c.bad_ptr, 0, "unchecked truncations: no name outside the "
		"buffer (%zu samples seen)", c.n);

	/* single bit flips: the checksum refuses them */
	memset(&c, 0, sizeof(c));
	accepted = 0;
	for (pos = 0; pos < file->len; pos += 1 + pos / 64) {
		for (bit = 0; bit < 8; bit += 3) {
			memcpy(copy, file->buf, file->len);
			copy[pos] ^= (char)(1 << bit);
			accepted += report_cache_replay_buf(
				copy, file->len, key, 0, on_facts_check,
				on_check, &c, NULL, NULL);
			flips++;
		}
	}
	TAP_INT(accepted, 0, "%zu bit flips all refused", flips);
	TAP_INT(c.n + c.facts_calls, 0, "and deliver nothing");

	/* random garbling with the checksum off: no crash, no stray name */
	memset(&c, 0, sizeof(c));
	accepted = 0;
	for (iter = 0; iter < 3000; iter++) {
		size_t n = 1 + rng() % 8, k;

		memcpy(copy, file->buf, file->len);
		for (k = 0; k < n; k++) {
			pos = (size_t)(rng() % file->len);
			copy[pos] = (char)(iter % 4 == 0 ? 0xff :
					   iter % 4 == 1 ? 0x80 :
					   (int)(rng() & 0xff));
		}
		c.lo = copy;
		c.hi = copy + file->len;
		accepted += report_cache_replay_buf(copy, file->len, NULL,
						    REPORT_CACHE_NO_CHECKSUM,
						    on_facts_garbage,
						    on_garbage, &c, NULL,
						    NULL);
	}
	TAP_INT(c.bad_ptr, 0, "garbled files: no name outside the buffer, "
		"facts in order (%zu of 3000 still parsed)", accepted);
	free(copy);
}

/* Hand-made hostile files (checksum off: only the parser stands). */
static void hostile(const char *what, const unsigned char *body, size_t n)
{
	struct strbuf f = STRBUF_INIT;
	struct check c = { 0 };
	size_t i;

	strbuf_add(&f, "PPRSCR2\n", 8);
	strbuf_add(&f, body, n);
	for (i = 0; i < 8; i++)
		strbuf_addch(&f, 0);
	c.lo = f.buf;
	c.hi = f.buf + f.len;
	TAP_INT(report_cache_replay_buf(f.buf, f.len, NULL,
					REPORT_CACHE_NO_CHECKSUM,
					on_facts_garbage, on_garbage, &c,
					NULL, NULL), 0,
		"hostile: %s", what);
	TAP_INT(c.n + c.facts_calls, 0, "hostile: %s: nothing delivered",
		what);
	strbuf_release(&f);
}

/*
 * A file of one perf.data section (after key_len 0 and stats 0 0 0;
 * no strings, frames, nodes or samples), checksum off: replayed or not.
 */
static int facts_file(const unsigned char *facts, size_t n,
		      struct check *c)
{
	static const unsigned char head[] = { 0, 0, 0, 0 };
	static const unsigned char tail[] = { 0, 0, 0, 0,
					      0, 0, 0, 0, 0, 0, 0, 0 };
	struct strbuf f = STRBUF_INIT;
	int r;

	strbuf_add(&f, "PPRSCR2\n", 8);
	strbuf_add(&f, head, sizeof(head));
	strbuf_add(&f, facts, n);
	strbuf_add(&f, tail, sizeof(tail));
	r = report_cache_replay_buf(f.buf, f.len, NULL,
				    REPORT_CACHE_NO_CHECKSUM, on_facts_check,
				    on_garbage, c, NULL, NULL);
	strbuf_release(&f);
	return r;
}

/* Hostile perf.data sections: the order promised is checked. */
static void test_hostile_facts(void)
{
	/*
	 * max_stack 127, dump_size 8, recorded 2, lost 1, then dumps
	 * { time delta, zigzag(tid) << 1 | full, sp delta } and tops
	 * { zigzag(tid), top }: tid 2 is 8 or 9, tid 3 is 12 or 13
	 */
	static const unsigned char good[] = {
		127, 8, 2, 1,
		2, 5, 9, 0x80, 0x02, 0, 12, 0x7f,
		2, 4, 100, 4, 101 };
	static const unsigned char dumps_unsorted[] = {
		127, 8, 2, 1,
		2, 5, 12, 0, 0, 9, 0,
		0 };
	static const unsigned char time_wraps[] = {
		0, 0, 0, 0,
		2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
		8, 0, 1, 8, 0,
		0 };
	/* zigzag(2^31) << 1 = 2^33 */
	static const unsigned char tid_too_big[] = {
		0, 0, 0, 0,
		1, 1, 0x80, 0x80, 0x80, 0x80, 0x20, 0,
		0 };
	static const unsigned char tops_twice[] = {
		0, 0, 0, 0, 0,
		2, 4, 100, 4, 100 };
	static const unsigned char tops_unsorted[] = {
		0, 0, 0, 0, 0,
		2, 6, 1, 4, 1 };
	static const unsigned char top_tid_too_big[] = {
		0, 0, 0, 0, 0,
		1, 0x80, 0x80, 0x80, 0x80, 0x10, 1 };
	static const unsigned char dumps_count_lies[] = {
		0, 0, 0, 0,
		200, 1, 8, 0,
		0 };
	struct report_cache_dump dumps[2] = {
		{ 5, 128, 2, 1 }, { 5, 128 - 64, 3, 0 } };
	struct report_cache_top tops[2] = { { 2, 100 }, { 2, 101 } };
	struct report_cache_facts want = {
		127, 8, 2, 1, dumps, 2, tops, 2 };
	struct check c = { 0 };

	c.want = &want;
	TAP_INT(facts_file(good, sizeof(good), &c), 1,
		"a well-formed perf.data section is accepted");
	TAP_INT(c.facts_calls, 1, "its facts delivered once");
	TAP_INT(c.facts_wrong, 0, "as written");
#define BAD(what, a) do { \
		memset(&c, 0, sizeof(c)); \
		TAP_INT(facts_file(a, sizeof(a), &c), 0, "hostile: %s", what); \
		TAP_INT(c.facts_calls, 0, "hostile: %s: no facts", what); \
	} while (0)
	BAD("dumps out of order", dumps_unsorted);
	BAD("dump times past 2^64", time_wraps);
	BAD("a dump's tid beyond 32 bits", tid_too_big);
	BAD("a stack top twice", tops_twice);
	BAD("stack tops out of order", tops_unsorted);
	BAD("a stack top's tid beyond 32 bits", top_tid_too_big);
	BAD("more dumps announced than present", dumps_count_lies);
#undef BAD
}

static void test_hostile(void)
{
	/*
	 * key_len 0, stats 0 0 0, an empty perf.data section (max_stack
	 * dump_size recorded lost nr_dumps nr_tops), then the tables
	 */
	static const unsigned char huge_strings[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	static const unsigned char long_varint[] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
	static const unsigned char overflow_varint[] = {
		0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		0x02, 0, 0, 0, 0, 0, 0, 0 };
	static const unsigned char string_past_end[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 50, 'a', 'b' };
	/* one string "a", one frame (0, 0, ip 1), node 0 -> parent 2 */
	static const unsigned char node_forward[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 'a', 1, 0, 0, 1, 1, 2, 0, 0 };
	/* node 0 its own parent */
	static const unsigned char node_self[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 'a', 1, 0, 0, 1, 1, 1, 0, 0 };
	static const unsigned char frame_bad_sym[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 5, 0, 1, 0, 0 };
	/* a sample naming node 3 of 1 */
	static const unsigned char sample_bad_node[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 0, 0, 1, 1, 0, 0,
		1, 3, 1, 1, 0, 0, 0, 1, 4 };
	/* first sample without its task */
	static const unsigned char sample_no_task[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 0, 0, 1, 1, 0, 0,
		1, 2, 0, 1, 1 };
	/* pid beyond INT32_MAX */
	static const unsigned char sample_bad_pid[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 0, 0, 1, 1, 0, 0,
		1, 3, 0x80, 0x80, 0x80, 0x80, 0x08, 1, 0, 0, 0, 1, 1 };
	/* one sample more than announced... then trailing bytes */
	static const unsigned char trailing[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 0, 0, 1, 1, 0, 0,
		1, 3, 1, 1, 0, 0, 0, 1, 1, 7 };
	static const unsigned char sample_count_lies[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 0, 0, 1, 1, 0, 0,
		200, 3, 1, 1, 0, 0, 0, 1, 1 };
	static const unsigned char good[] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'a', 1, 0, 0, 1, 1, 0, 0,
		1, 3, 1, 1, 0, 0, 0, 1, 1 };
	struct strbuf f = STRBUF_INIT;
	struct check c = { 0 };

	hostile("2^48 strings announced", huge_strings,
		sizeof(huge_strings));
	hostile("a key length of 2^63", long_varint, sizeof(long_varint));
	hostile("a varint of more than 64 bits", overflow_varint,
		sizeof(overflow_varint));
	hostile("a string past the end", string_past_end,
		sizeof(string_past_end));
	hostile("a node whose parent comes later", node_forward,
		sizeof(node_forward));
	hostile("a node its own parent", node_self, sizeof(node_self));
	hostile("a frame naming a missing string", frame_bad_sym,
		sizeof(frame_bad_sym));
	hostile("a sample naming a missing node", sample_bad_node,
		sizeof(sample_bad_node));
	hostile("a first sample without pid/tid", sample_no_task,
		sizeof(sample_no_task));
	hostile("a pid beyond INT32_MAX", sample_bad_pid,
		sizeof(sample_bad_pid));
	hostile("bytes after the last sample", trailing, sizeof(trailing));
	hostile("more samples announced than present", sample_count_lies,
		sizeof(sample_count_lies));

	/* the same shape, well-formed, is accepted: the cases above fail
	 * for the reason they name */
	strbuf_add(&f, "PPRSCR2\n", 8);
	strbuf_add(&f, good, sizeof(good));
	strbuf_add(&f, "\0\0\0\0\0\0\0\0", 8);
	c.lo = f.buf;
	c.hi = f.buf + f.len;
	TAP_INT(report_cache_replay_buf(f.buf, f.len, NULL,
					REPORT_CACHE_NO_CHECKSUM,
					on_facts_garbage, on_garbage, &c,
					NULL, NULL), 1,
		"the well-formed variant is accepted");
	TAP_INT(c.n, 1, "with its one sample");
	strbuf_release(&f);
	TAP_INT(report_cache_replay_buf(NULL, 0, NULL, 0, NULL, on_garbage,
					&c, NULL, NULL), 0, "no buffer");
}

static void touch_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void test_files(void)
{
	char tmpl[] = "/tmp/t-report-cache.XXXXXX";
	char *dir = mkdtemp(tmpl), *moved, *data, *cache, *path, *old;
	struct report_cache_facts facts;
	struct strbuf k1 = STRBUF_INIT, k2 = STRBUF_INIT, k3 = STRBUF_INIT;
	struct report_cache_writer *w;
	struct report_cache_stats st = { 1, 3, NR_SAMPLES };
	struct check c = { 0 };
	struct timespec ts[2];
	struct stat sst;
	const char *argv[6];
	int fd;

	if (!dir) {
		TAP_OK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	data = xasprintf("%s/perf.data", dir);
	argv[0] = "/bin/sh";	/* stands for perf: any executable */
	argv[1] = "script";
	argv[2] = "-i";
	argv[3] = data;
	argv[4] = "--ns";
	argv[5] = NULL;
	TAP_INT(report_cache_key(&k1, dir, argv), -1,
		"no key without perf.data");
	TAP_INT(k1.len, 0, "and the key is empty");
	touch_file(data, "PERFILE2 pretend");
	TAP_INT(report_cache_key(&k1, dir, argv), 0, "a key");
	TAP_INT(report_cache_replay(dir, &k1, NULL, on_check, &c, NULL,
				    NULL), 0,
		"no cache yet");

	make_facts(&facts, 50);
	w = writer_with_refs(NR_SAMPLES, &facts);
	TAP_INT(report_cache_write(w, dir, &k1, &st), 0, "cache written");
	cache = xasprintf("%s/cache", dir);
	path = xasprintf("%s/cache/script.v2", dir);
	old = xasprintf("%s/cache/script.v1", dir);
	TAP_OK(!stat(cache, &sst) && S_ISDIR(sst.st_mode) &&
	       (sst.st_mode & 0777) == 0700, "cache/ is 0700");
	TAP_OK(!stat(path, &sst) && S_ISREG(sst.st_mode) &&
	       (sst.st_mode & 0777) == 0600, "script.v2 is 0600");
	c.want = &facts;
	TAP_INT(report_cache_replay(dir, &k1, on_facts_check, on_check, &c,
				    NULL, NULL), 1,
		"replayed from the file");
	TAP_INT(c.n, NR_SAMPLES, "all samples");
	TAP_INT(c.mismatches, 0, "as they were");
	TAP_OK(c.facts_calls == 1 && !c.facts_wrong && !c.facts_late,
	       "and perf.data's facts, first");

	/* the session moves: same key */
	moved = xasprintf("%s.moved", dir);
	if (rename(dir, moved) == 0) {
		free(data);
		data = xasprintf("%s/perf.data", moved);
		argv[3] = data;
		TAP_INT(report_cache_key(&k2, moved, argv), 0, "key (moved)");
		TAP_OK(k1.len == k2.len && !memcmp(k1.buf, k2.buf, k1.len),
		       "a moved session keeps its key");
		if (rename(moved, dir) == 0) {
			free(data);
			data = xasprintf("%s/perf.data", dir);
			argv[3] = data;
		}
	}

	/* perf.data touched: another key */
	ts[0].tv_sec = ts[1].tv_sec = 1000000000;
	ts[0].tv_nsec = ts[1].tv_nsec = 5;
	utimensat(AT_FDCWD, data, ts, 0);
	TAP_INT(report_cache_key(&k2, dir, argv), 0, "key after touch");
	TAP_OK(k1.len != k2.len || memcmp(k1.buf, k2.buf, k1.len),
	       "touching perf.data changes the key");
	ts[1].tv_nsec = 6;
	utimensat(AT_FDCWD, data, ts, 0);
	report_cache_key(&k3, dir, argv);
	TAP_OK(k3.len != k2.len || memcmp(k3.buf, k2.buf, k2.len),
	       "a nanosecond changes the key");
	memset(&c, 0, sizeof(c));
	TAP_INT(report_cache_replay(dir, &k3, NULL, on_check, &c, NULL,
				    NULL), 0,
		"the old cache is not used");

	/* another perf, other arguments */
	argv[0] = "/bin/cat";
	report_cache_key(&k2, dir, argv);
	TAP_OK(k3.len != k2.len || memcmp(k3.buf, k2.buf, k2.len),
	       "another perf program changes the key");
	argv[0] = "/bin/sh";
	argv[4] = "--max-stack=5";
	report_cache_key(&k2, dir, argv);
	TAP_OK(k3.len != k2.len || memcmp(k3.buf, k2.buf, k2.len),
	       "another argument changes the key");
	argv[0] = "no-such-perf-program-here";
	TAP_INT(report_cache_key(&k2, dir, argv), -1,
		"no key when perf is not found");

	/* garbage in the file: refused, then replaced */
	touch_file(path, "PPRSCR2\ngarbage");
	TAP_INT(report_cache_replay(dir, &k3, NULL, on_check, &c, NULL,
				    NULL), 0,
		"a garbage file is refused");
	TAP_INT(report_cache_write(w, dir, &k3, &st), 0, "rewritten");
	TAP_INT(report_cache_replay(dir, &k3, NULL, on_check, &c, NULL,
				    NULL), 1,
		"and used");

	/* a cache of the format before (script.v1) goes when v2 is written */
	touch_file(old, "PPRSCR1\nold");
	TAP_INT(report_cache_write(w, dir, &k3, &st), 0, "written again");
	TAP_OK(access(old, F_OK) < 0 && errno == ENOENT,
	       "the old format's file is removed");

	/* a symlink or a fifo in its place is not followed or waited on */
	unlink(path);
	if (symlink(data, path) == 0)
		TAP_INT(report_cache_replay(dir, &k3, NULL, on_check, &c, NULL,
					    NULL), 0,
			"a symlink is not followed");
	unlink(path);
	if (mkfifo(path, 0600) == 0)
		TAP_INT(report_cache_replay(dir, &k3, NULL, on_check, &c, NULL,
					    NULL), 0,
			"a fifo is refused without blocking");
	unlink(path);

	/* a file where cache/ should be: writing fails, leaves nothing */
	rmdir(cache);
	touch_file(cache, "x");
	TAP_OK(report_cache_write(w, dir, &k3, &st) < 0,
	       "no cache/ directory: write fails");
	fd = open(cache, O_RDONLY);
	TAP_OK(fd >= 0 && !fstat(fd, &sst) && S_ISREG(sst.st_mode) &&
	       sst.st_size == 1, "and leaves what was there");
	if (fd >= 0)
		close(fd);
	unlink(cache);

	report_cache_writer_free(w);
	report_cache_facts_release(&facts);
	unlink(data);
	rmdir(dir);
	free(old);
	free(moved);
	free(path);
	free(cache);
	free(data);
	strbuf_release(&k1);
	strbuf_release(&k2);
	strbuf_release(&k3);
}

int main(void)
{
	struct report_cache_writer *w;
	struct report_cache_stats st = { 123456789, 3, NR_SAMPLES };
	struct strbuf key = STRBUF_INIT, file = STRBUF_INIT;
	struct strbuf empty = STRBUF_INIT, small = STRBUF_INIT;
	struct report_cache_facts facts;
	struct check c = { 0 };

	make_refs();
	key_of(&key, "PPRSCR2\nperf.data 1 2 3\0/usr/bin/perf");
	make_facts(&facts, 3 * NR_SAMPLES);
	w = writer_with_refs(NR_SAMPLES, &facts);
	report_cache_encode(w, &key, &st, &file);
	report_cache_writer_free(w);

	test_round_trip(&file, &key, &facts);
	report_cache_facts_release(&facts);
	/* damage tests try every length: a short stream keeps them fast */
	make_facts(&facts, 6);
	w = writer_with_refs(12, &facts);
	report_cache_encode(w, &key, &st, &small);
	report_cache_writer_free(w);
	report_cache_facts_release(&facts);
	test_damage(&small, &key);
	strbuf_release(&small);
	test_hostile();
	test_hostile_facts();
	test_files();

	/* an empty stream is a valid cache of nothing */
	w = report_cache_writer_new();
	report_cache_encode(w, &key, NULL, &empty);
	report_cache_writer_free(w);
	TAP_INT(report_cache_replay_buf(empty.buf, empty.len, &key, 0,
					on_facts_check, on_check, &c, NULL,
					NULL), 1,
		"an empty cache replays");
	TAP_INT(c.n, 0, "with no sample");
	TAP_OK(c.facts_calls == 1 && !c.facts_wrong,
	       "and all-zero facts when none were set");

	strbuf_release(&empty);
	strbuf_release(&file);
	strbuf_release(&key);
	free(refs);
	return tap_done();
}
