/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/perfdata's PERF_RECORD_COMPRESSED reading (perf
 * record -z) on a synthetic perf.data: one zstd stream, flushed at the
 * end of each compressed record as perf writes it, cut in the middle
 * of records, between plain records.  Every record comes back whole, in
 * order, and every prefix of the file is read short, never out of
 * bounds.  Built without zstd: a file whose header says it is
 * compressed is refused with the error naming the missing support.
 */
#include "compat.h"
#include "perfdata.h"
#include "tap.h"

#include <stdlib.h>
#ifdef PPR_HAVE_ZSTD
#include <zstd.h>
#endif

#define HDR_SIZE 104
#define ATTR_SIZE 112
#define ENTRY_SIZE (ATTR_SIZE + 16)
#define NR_INNER 200

struct buf {
	unsigned char *p;
	size_t len, alloc;
};

static void put(struct buf *b, const void *v, size_t n)
{
	if (b->len + n > b->alloc) {
		b->alloc = (b->len + n) * 2 + 64;
		b->p = realloc(b->p, b->alloc);
		if (!b->p)
			abort();
	}
	if (n)
		memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void zeros(struct buf *b, size_t n)
{
	while (n--)
		put(b, "", 1);
}

/* Header (with the compressed feature bit when asked) and one attr. */
static void begin_file(struct buf *b, int feature)
{
	size_t at;

	b->len = 0;
	put(b, "PERFILE2", 8);
	put64(b, HDR_SIZE);
	put64(b, ENTRY_SIZE);
	put64(b, HDR_SIZE);
	put64(b, ENTRY_SIZE);
	put64(b, 0);
	put64(b, 0);
	zeros(b, HDR_SIZE - b->len);
	if (feature)
		b->p[72 + PD_FEAT_COMPRESSED / 8] |=
			1u << (PD_FEAT_COMPRESSED % 8);
	at = b->len;
	zeros(b, ATTR_SIZE);
	b->p[at + 4] = ATTR_SIZE;
	b->p[at + 0] = 1;		/* PERF_TYPE_SOFTWARE, cpu-clock */
	put64(b, 0);			/* no ids */
	put64(b, 0);
	memcpy(b->p + 40, &b->len, 8);	/* the data section's offset */
}

/* The data section ends here; with a feature, its table entry (empty). */
static void end_file(struct buf *b, int feature)
{
	uint64_t off, size;

	memcpy(&off, b->p + 40, 8);
	size = b->len - off;
	memcpy(b->p + 48, &size, 8);
	if (feature) {
		put64(b, b->len + 16);
		put64(b, 0);
	}
}

/* COMM record i: pid i, a name of 1 to 40 bytes, padded to 8. */
static void comm(struct buf *b, unsigned i)
{
	char name[48];
	size_t at = b->len, n;
	uint32_t v = 3;			/* PERF_RECORD_COMM */
	uint16_t size;

	snprintf(name, sizeof(name), "p%u-%.*s", i, (int)(i % 37),
		 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq");
	put(b, &v, 4);
	put(b, "\0\0\0\0", 4);
	v = i;
	put(b, &v, 4);
	put(b, &v, 4);
	n = strlen(name) + 1;
	put(b, name, n);
	while ((b->len - at) % 8)
		put(b, "", 1);
	size = (uint16_t)(b->len - at);
	memcpy(b->p + at + 6, &size, 2);
}

/* Every record of d is COMM i, from..to-1, in order: how many were. */
static unsigned read_all(struct perfdata *d, unsigned *bad,
			 unsigned *decompressed)
{
	struct pd_record r;
	unsigned n = 0;

	*bad = *decompressed = 0;
	while (perfdata_next_record(d, &r) > 0) {
		struct pd_comm c;
		char want[48];

		snprintf(want, sizeof(want), "p%u-%.*s", n, (int)(n % 37),
			 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq");
		if (r.type != PD_RECORD_COMM ||
		    perfdata_decode_comm(&r, &c) < 0 || c.pid != (pid_t)n ||
		    strcmp(c.comm, want))
			(*bad)++;
		if (!perfdata_record_in_file(d, &r))
			(*decompressed)++;
		n++;
	}
	return n;
}

#ifdef PPR_HAVE_ZSTD
/*
 * Records 1..NR_INNER-2 compressed into 3 records, cut at odd offsets
 * (in the middle of records), between COMM 0 and COMM NR_INNER-1.
 */
static void compressed_file(struct buf *b)
{
	struct buf in = { 0 };
	ZSTD_CStream *cs = ZSTD_createCStream();
	size_t cuts[4], i;
	unsigned k;

	for (k = 1; k < NR_INNER - 1; k++)
		comm(&in, k);
	cuts[0] = 0;
	cuts[1] = in.len / 3 + 5;
	cuts[2] = 2 * in.len / 3 + 3;
	cuts[3] = in.len;
	ZSTD_initCStream(cs, 1);
	begin_file(b, 1);
	comm(b, 0);
	for (i = 0; i < 3; i++) {
		ZSTD_inBuffer src = { in.p + cuts[i], cuts[i + 1] - cuts[i],
				      0 };
		unsigned char out[60000];
		ZSTD_outBuffer dst = { out, sizeof(out), 0 };
		uint32_t type = PD_RECORD_COMPRESSED;
		uint16_t size;

		while (src.pos < src.size)
			ZSTD_compressStream(cs, &dst, &src);
		ZSTD_flushStream(cs, &dst);
		size = (uint16_t)(8 + dst.pos);
		put(b, &type, 4);
		put(b, "\0\0", 2);
		put(b, &size, 2);
		put(b, out, dst.pos);
	}
	comm(b, NR_INNER - 1);
	end_file(b, 1);
	ZSTD_freeCStream(cs);
	free(in.p);
}
#endif

int main(void)
{
	struct perfdata d;
	struct buf b = { 0 };
	char err[PPR_ERR_LEN];
	unsigned n, bad, dec;

	TAP_OK(1, "zstd support: %s", perfdata_have_zstd() ? "yes" : "no");
#ifdef PPR_HAVE_ZSTD
	{
		size_t len;

		compressed_file(&b);
		TAP_INT(perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)),
			0, "a compressed file opens");
		n = read_all(&d, &bad, &dec);
		TAP_INT(n, NR_INNER, "every record, plain and compressed");
		TAP_INT(bad, 0, "each whole, in order (records cut between "
			"compressed records joined)");
		TAP_INT(dec, NR_INNER - 2, "the compressed ones decompressed");
		TAP_INT(d.compressed, 3, "three compressed records walked");
		TAP_INT(d.zstd_failed || d.need_zstd, 0, "no error");
		perfdata_close(&d);

		/* every prefix (its own allocation, for ASan) */
		for (len = 1; len < b.len; len += 7) {
			unsigned char *p = malloc(len);

			memcpy(p, b.p, len);
			if (!perfdata_open_mem(&d, p, len, err, sizeof(err))) {
				read_all(&d, &bad, &dec);
				perfdata_close(&d);
			}
			free(p);
		}
		TAP_OK(1, "every prefix read without a fault");
	}
#else
	begin_file(&b, 1);
	comm(&b, 0);
	end_file(&b, 1);
	TAP_INT(perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)), -1,
		"without zstd, a compressed file is refused");
	TAP_STR(err, PERFDATA_NO_ZSTD, "saying what support is missing");
	(void)n;
	(void)bad;
	(void)dec;
#endif
	/* the same file without the feature bit: plain records read */
	begin_file(&b, 0);
	comm(&b, 0);
	comm(&b, 1);
	end_file(&b, 0);
	TAP_INT(perfdata_open_mem(&d, b.p, b.len, err, sizeof(err)), 0,
		"a plain file opens");
	TAP_INT(read_all(&d, &bad, &dec), 2, "its records");
	TAP_INT(bad + dec, 0, "read from the file");
	perfdata_close(&d);
	free(b.p);
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
