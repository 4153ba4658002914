/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: walker_decode() and walker_py_frame_at() on hostile
 * ring-buffer bytes.  The input is read as a run of events, each
 * starting 8-byte aligned after the previous one (as the ring buffer
 * lays them out), copied to its own allocation of exactly the bytes
 * left so that ASan sees any read past them.  Checks that a decoded
 * event's parts lie inside its declared size, that the counts are
 * within their caps, and that a refusal says why.  Every event then
 * goes through the conversion (walker/wconv.h, stream mode, a /proc
 * that does not exist), flushed every few events and finished: the
 * queue, the sort, the off-CPU pairing and the records it makes, on
 * whatever times, types, flags and sizes decode.
 */
#include "compat.h"
#include "walker/walker.h"
#include "walker/wconv.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void inside(const unsigned char *base, size_t len,
		   const unsigned char *p, uint64_t n)
{
	if (!p || p < base || (uint64_t)(p - base) > len ||
	    n > len - (uint64_t)(p - base))
		__builtin_trap();
}

static void check(const unsigned char *buf, size_t len,
		  const struct walker_decoded *d)
{
	const struct walker_sample *s = d->sample;
	struct walker_py_frame f;
	size_t size;
	unsigned i;

	if (!d->hdr || (const void *)d->hdr != (const void *)buf)
		__builtin_trap();
	size = d->hdr->size;
	if (size > len)
		__builtin_trap();
	if (!s && !d->waking) {
		if (d->regs || d->kstack || d->py || d->ustack)
			__builtin_trap();
		walker_py_frame_at(d, 0, &f);
		if (f.code || f.instr)
			__builtin_trap();
		return;
	}
	/* a sample's or a waking's parts, their counts the header's */
	if ((s && (s->nr_kstack != d->nr_kstack || s->nr_py != d->nr_py ||
		   s->ustack_len != d->ustack_len)) ||
	    (d->waking && (d->waking->nr_kstack != d->nr_kstack ||
			   d->waking->nr_py != d->nr_py ||
			   d->waking->ustack_len != d->ustack_len)))
		__builtin_trap();
	if (d->nr_kstack > WALKER_MAX_KSTACK ||
	    d->nr_py > WALKER_MAX_PY_FRAMES ||
	    d->ustack_len > WALKER_USTACK_MAX)
		__builtin_trap();
	inside(buf, size, d->regs, 8 * WALKER_NR_REGS);
	inside(buf, size, d->kstack, 8ull * d->nr_kstack);
	inside(buf, size, d->py, sizeof(f) * (uint64_t)d->nr_py);
	inside(buf, size, d->ustack, d->ustack_len);
	for (i = 0; i < d->nr_py; i++) {
		walker_py_frame_at(d, i, &f);
		if (memcmp(&f, d->py + i * sizeof(f), sizeof(f)))
			__builtin_trap();
	}
	walker_py_frame_at(d, d->nr_py, &f);	/* out of range: zeroed */
	if (f.code || f.instr || f.flags || f.tag)
		__builtin_trap();
}

/* The conversion's records: each whole, in order of time per round. */
static int take(void *data, const void *rec, size_t len)
{
	uint16_t rsize;

	memcpy(&rsize, (const unsigned char *)rec + 6, 2);
	if (len < 8 || len % 8 || rsize != len)
		__builtin_trap();
	(*(size_t *)data)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0, records = 0;
	unsigned n = 0;
	struct wconv_opts o;
	struct wconv *c;
	char cerr[256];

	memset(&o, 0, sizeof(o));
	o.record_fn = take;
	o.record_data = &records;
	o.proc_root = "/nonexistent-proc";
	o.freq = 99;
	o.ustack_bytes = WALKER_USTACK_MAX;
	if (wconv_new(&c, &o, cerr, sizeof(cerr)) < 0)
		__builtin_trap();

	while (off < size && n++ < 64) {
		size_t len = size - off;
		unsigned char *buf = malloc(len ? len : 1);
		struct walker_decoded d;
		char err[256];
		uint32_t esize;

		if (!buf)
			return 0;
		memcpy(buf, data + off, len);
		if (walker_decode(buf, len, &d, err, sizeof(err)) < 0) {
			if (!memchr(err, '\0', sizeof(err)) || !err[0] ||
			    d.hdr || d.sample)
				__builtin_trap();
			if (wconv_event(c, buf, len) != -1)
				__builtin_trap();
			free(buf);
			break;
		}
		check(buf, len, &d);
		esize = d.hdr->size;
		if (wconv_event(c, buf, esize) < 0)
			__builtin_trap();	/* it decoded here */
		free(buf);
		if (n % 4 == 0 && wconv_flush(c, cerr, sizeof(cerr)) < 0)
			__builtin_trap();
		off += ((size_t)esize + 7) & ~(size_t)7;
	}
	if (wconv_finish(c, 0, cerr, sizeof(cerr)) < 0)
		__builtin_trap();
	if (wconv_stats(c)->bytes && !records)
		__builtin_trap();
	wconv_free(c);
	return 0;
}
