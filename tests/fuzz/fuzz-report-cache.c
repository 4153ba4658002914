/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: report_cache_replay_buf() on arbitrary bytes, with
 * the checksum off so that every input reaches the parser.  Every name
 * a replayed sample carries must lie inside the input, perf.data's facts
 * must keep the order src_perfscript_cache.h promises, and a replay that refuses
 * the input must not have delivered a sample or facts.  A valid cache
 * written from what was replayed must replay the same.
 */
#include "compat.h"
#include "report/src_perfscript_cache.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const char *lo, *hi;
	struct report_cache_writer *w;	/* re-encodes what is delivered */
	uint64_t samples, sum, facts_calls;
};

static void inside(const struct seen *s, struct sample_str p)
{
	if (p.len > (size_t)(s->hi - s->lo) || p.s < s->lo ||
	    p.s + p.len > s->hi)
		__builtin_trap();
}

static void on_facts(void *data, const struct report_cache_facts *f)
{
	struct seen *s = data;
	size_t i;

	s->facts_calls++;
	for (i = 1; i < f->nr_dumps; i++)
		if (f->dumps[i].time < f->dumps[i - 1].time ||
		    (f->dumps[i].time == f->dumps[i - 1].time &&
		     f->dumps[i].tid < f->dumps[i - 1].tid))
			__builtin_trap();
	for (i = 0; i < f->nr_dumps; i++)
		if (f->dumps[i].full > 1)
			__builtin_trap();
	for (i = 1; i < f->nr_tops; i++)
		if (f->tops[i].tid < f->tops[i - 1].tid ||
		    (f->tops[i].tid == f->tops[i - 1].tid &&
		     f->tops[i].top <= f->tops[i - 1].top))
			__builtin_trap();
	if (s->w)
		report_cache_set_facts(s->w, f);
}

static int on_sample(void *data, const struct sample *smp)
{
	struct seen *s = data;
	size_t i;

	inside(s, smp->comm);
	inside(s, smp->event);
	for (i = 0; i < smp->nr_frames; i++) {
		inside(s, smp->frames[i].sym);
		inside(s, smp->frames[i].dso);
		s->sum += smp->frames[i].ip;
	}
	s->sum += smp->time_ns + smp->period + (uint64_t)smp->pid;
	s->samples++;
	if (s->w)
		report_cache_add(s->w, smp);
	return 0;
}

/* Only the replay's own values, for the second replay. */
static int on_sample_count(void *data, const struct sample *smp)
{
	struct seen *s = data;
	size_t i;

	for (i = 0; i < smp->nr_frames; i++)
		s->sum += smp->frames[i].ip;
	s->sum += smp->time_ns + smp->period + (uint64_t)smp->pid;
	s->samples++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s, again;
	struct strbuf out = STRBUF_INIT;
	struct report_cache_stats st;
	int r;

	memset(&s, 0, sizeof(s));
	s.lo = (const char *)data;
	s.hi = s.lo + size;
	s.w = report_cache_writer_new();
	r = report_cache_replay_buf(data, size, NULL,
				    REPORT_CACHE_NO_CHECKSUM, on_facts,
				    on_sample, &s, &st, NULL);
	if (!r && (s.samples || s.facts_calls))
		__builtin_trap();	/* refused, yet delivered */
	if (r) {
		/* what was delivered, written again, replays the same */
		struct strbuf key = STRBUF_INIT;

		report_cache_encode(s.w, &key, &st, &out);
		memset(&again, 0, sizeof(again));
		if (report_cache_replay_buf(out.buf, out.len, &key, 0, NULL,
					    on_sample_count, &again, NULL,
					    NULL) != 1 ||
		    again.samples != s.samples || again.sum != s.sum)
			__builtin_trap();	/* a round trip must hold */
		strbuf_release(&key);
	}
	report_cache_writer_free(s.w);
	strbuf_release(&out);
	return 0;
}
