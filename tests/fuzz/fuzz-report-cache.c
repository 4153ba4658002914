/*
 * libFuzzer target: report_cache_replay_buf() on arbitrary bytes, with
 * the checksum off so that every input reaches the parser.  Every name
 * a replayed sample carries must lie inside the input, and a replay that
 * refuses the input must not have delivered a sample.  A valid cache
 * written from the replayed samples must replay to the same count.
 */
#include "../../lib/compat.h"
#include "../../lib/report_cache.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const char *lo, *hi;
	size_t n;
	struct report_cache_writer *w;
};

static void inside(const struct seen *s, struct ps_str p)
{
	if (p.len > (size_t)(s->hi - s->lo) || p.s < s->lo ||
	    p.s + p.len > s->hi)
		__builtin_trap();
}

static int on_sample(void *data, const struct ps_sample *ps)
{
	struct seen *s = data;
	size_t i;

	inside(s, ps->comm);
	inside(s, ps->event);
	for (i = 0; i < ps->nr_frames; i++) {
		inside(s, ps->frames[i].sym);
		inside(s, ps->frames[i].dso);
	}
	if (s->w)
		report_cache_add(s->w, ps);
	s->n++;
	return 0;
}

static int count(void *data, const struct ps_sample *ps)
{
	(void)ps;
	(*(size_t *)data)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s;
	struct strbuf again = STRBUF_INIT, key = STRBUF_INIT;
	size_t n = 0;
	int r;

	s.lo = (const char *)data;
	s.hi = (const char *)data + size;
	s.n = 0;
	s.w = report_cache_writer_new();
	r = report_cache_replay_buf(data, size, NULL,
				    REPORT_CACHE_NO_CHECKSUM, on_sample, &s,
				    NULL, NULL);
	if (!r && s.n)
		__builtin_trap();	/* refused, yet delivered */
	if (r) {
		report_cache_encode(s.w, &key, NULL, &again);
		if (!report_cache_replay_buf(again.buf, again.len, NULL, 0,
					     count, &n, NULL, NULL) ||
		    n != s.n)
			__builtin_trap();	/* a round trip must hold */
	}
	report_cache_writer_free(s.w);
	strbuf_release(&again);
	return 0;
}
