/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: the native perf.data reader (native_load(): record
 * ordering, the MMAP/FORK/COMM decoders, the unwinder's mappings and
 * frame-pointer chains, symbolization) on hostile perf.data bytes.
 * Checks what each delivered sample holds: frames with names, at most
 * the reader's frame cap, and at most one sample per 8 bytes of input.
 */
#include "compat.h"
#include "report/src_native.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t samples, size;
};

static int on_sample(void *arg, const struct sample *s)
{
	struct seen *sn = arg;
	size_t i;

	if (s->nr_frames > 16384 || (s->nr_frames && !s->frames))
		__builtin_trap();
	for (i = 0; i < s->nr_frames; i++) {
		const struct sample_frame *f = &s->frames[i];

		if (!f->sym.s || !f->dso.s || !f->sym.len || !f->dso.len ||
		    strlen(f->sym.s) != f->sym.len ||
		    strlen(f->dso.s) != f->dso.len)
			__builtin_trap();
	}
	if (!s->comm.s || strlen(s->comm.s) < s->comm.len)
		__builtin_trap();
	if (++sn->samples > sn->size / 8)
		__builtin_trap();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct native_opts o;
	struct native_stats st;
	struct seen sn = { 0, size };
	char err[256];
	int cb_ret;

	memset(&o, 0, sizeof(o));
	o.buf = data;
	o.buf_len = size;
	o.cb = on_sample;
	o.data = &sn;
	if (native_load(&o, &st, &cb_ret, err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)) || !*err)
			__builtin_trap();
		return 0;
	}
	if (st.samples != sn.samples)
		__builtin_trap();
	return 0;
}
