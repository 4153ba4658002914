/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target: tracedata_new() on a tracing-data section, then every
 * field of every event read from a payload.  The input is a 2-byte
 * little-endian payload length n, the section, then n payload bytes
 * (n is cut to what there is).  A successful read must point inside the
 * payload.  libtraceevent (not instrumented) leaks or crashes on some
 * format texts outside the kernel's grammar (tests/fuzz/corpus/
 * tracedata/bad-field-decl, hostile-field-line): lib/tracedata.c must
 * never hand it one, so leaks count here too.
 */
#include "compat.h"
#include "tracedata.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_fields(const struct tracedata *td,
			const struct tracedata_event *ev,
			const unsigned char *raw, size_t raw_len)
{
	const struct tracedata_field *f;
	const char *s;
	size_t len;
	uint64_t v;
	int i;

	for (i = 0; i < 256 && (f = tracedata_field_at(ev, i)); i++) {
		const char *name = tracedata_field_name(f);

		if (tracedata_field(ev, name) == NULL)
			__builtin_trap();	/* listed, not found by name */
		tracedata_read_num(td, f, raw, raw_len, &v);
		if (tracedata_read_str(td, f, raw, raw_len, &s, &len) == 0 &&
		    (s < (const char *)raw || len > raw_len ||
		     s + len > (const char *)raw + raw_len))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[PPR_ERR_LEN];
	struct tracedata *td;
	unsigned char *sec, *raw;
	size_t n, sec_len;
	int i;

	if (size < 2)
		return 0;
	n = (size_t)(data[0] | data[1] << 8);
	data += 2;
	size -= 2;
	if (n > size)
		n = size;
	sec_len = size - n;
	/* exact-size copies, so that any over-read is caught */
	sec = malloc(sec_len ? sec_len : 1);
	raw = malloc(n ? n : 1);
	if (!sec || !raw)
		abort();
	memcpy(sec, data, sec_len);
	memcpy(raw, data + sec_len, n);
	td = tracedata_new(sec, sec_len, err, sizeof(err));
	if (!td && !err[0])
		__builtin_trap();	/* an error without a reason */
	for (i = 0; td && i < 64 && i < tracedata_nr_events(td); i++) {
		const struct tracedata_event *ev = tracedata_event_at(td, i);

		if (!ev || tracedata_event(td, (uint64_t)tracedata_event_id(ev)) == NULL)
			__builtin_trap();
		read_fields(td, ev, raw, n);
	}
	tracedata_free(td);
	free(sec);
	free(raw);
	return 0;
}
