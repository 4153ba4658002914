/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: perfdata_open_mem(), perfdata_next() and
 * perfdata_decode_sample() on hostile perf.data bytes.  Checks what a
 * decoded sample points at: the stack dump lies inside the input, the
 * bytes copied are at most the bytes asked, the attribute is one of
 * the file's, and the walk makes progress (at most one sample per 8
 * bytes of data).
 */
#include "compat.h"
#include "perfdata.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sample(const struct perfdata *d, const struct pd_sample *s,
			 const uint8_t *data, size_t size)
{
	if (s->attr < d->attrs || s->attr >= d->attrs + d->nr_attrs)
		__builtin_trap();
	if (s->have_stack) {
		if (!s->stack || s->stack < data ||
		    s->stack_size > size ||
		    (size_t)(s->stack - data) > size - s->stack_size)
			__builtin_trap();
		if (s->dyn_size > s->stack_size)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perfdata d;
	struct pd_sample s;
	char err[256];
	uint64_t n = 0;

	if (perfdata_open_mem(&d, data, size, err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)))
			__builtin_trap();
		return 0;
	}
	if (!d.nr_attrs || d.nr_attrs > PD_MAX_ATTRS ||
	    d.data_off > size || d.data_end > size)
		__builtin_trap();
	while (perfdata_next(&d, &s) > 0) {
		check_sample(&d, &s, data, size);
		if (++n > size / 8)
			__builtin_trap();	/* no progress */
	}
	if (d.samples != n || d.records < n + d.bad_samples)
		__builtin_trap();
	/* a record body decoded on its own, from the data's first record */
	if (d.data_end - d.data_off >= 8) {
		const uint8_t *h = data + d.data_off;
		uint16_t rsize;

		memcpy(&rsize, h + 6, 2);
		if (rsize >= 8 && rsize <= d.data_end - d.data_off &&
		    !perfdata_decode_sample(&d, h + 8, rsize - 8u, &s))
			check_sample(&d, &s, data, size);
	}
	perfdata_close(&d);
	return 0;
}
