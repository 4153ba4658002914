/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the streaming `perf script` parser
 * (lib/report/src_perfscript_parse.h) fed in uneven chunks, plus the
 * single-line parsers. Checks that every delivered sample points inside
 * sane memory (ASan does the rest).
 */
#include "compat.h"
#include "report/src_perfscript_parse.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void touch(struct sample_str s)
{
	size_t i, sum = 0;

	for (i = 0; i < s.len; i++)
		sum += (unsigned char)s.s[i];
	sink += sum;
}

static int on_sample(void *data, const struct sample *s)
{
	size_t i;

	(void)data;
	touch(s->comm);
	touch(s->event);
	for (i = 0; i < s->nr_frames; i++) {
		touch(s->frames[i].sym);
		touch(s->frames[i].dso);
		sink += s->frames[i].ip;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfscript ps;
	struct sample s;
	struct sample_frame f;
	size_t off = 0, step = 1;
	const char *text = (const char *)data;
	const char *nl;

	perfscript_init(&ps, on_sample, NULL);
	/* chunk sizes 1, 2, 3, 5, 8, ... from the first byte on */
	while (off < size) {
		size_t n = step < size - off ? step : size - off;

		if (perfscript_feed(&ps, text + off, n))
			break;
		off += n;
		step = step * 2 + (size ? data[0] % 7 : 0);
	}
	perfscript_finish(&ps);
	perfscript_release(&ps);

	/* and the first line alone, both ways */
	nl = memchr(text, '\n', size);
	memset(&s, 0, sizeof(s));
	if (!perfscript_parse_header(text, nl ? (size_t)(nl - text) : size,
				     &s)) {
		touch(s.comm);
		touch(s.event);
	}
	if (!perfscript_parse_frame(text, nl ? (size_t)(nl - text) : size,
				    &f)) {
		touch(f.sym);
		touch(f.dso);
	}
	return 0;
}
