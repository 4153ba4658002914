/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/record/jitdump.c: repairing a jitdump file whose
 * records are followed by garbage, or cut in two by a forked child's
 * fragment.
 */
#include "compat.h"
#include "alloc.h"
#include "paths.h"
#include "perfdata.h"
#include "record/record.h"
#include "session.h"
#include "strbuf.h"
#include "tap.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static void put32(struct strbuf *sb, uint32_t v)
{
	strbuf_add(sb, &v, 4);
}

static void put64(struct strbuf *sb, uint64_t v)
{
	strbuf_add(sb, &v, 8);
}

static void header(struct strbuf *sb)
{
	put32(sb, 0x4A695444);
	put32(sb, 1);
	put32(sb, 40);
	put32(sb, 62);
	put32(sb, 0);
	put32(sb, 42);
	put64(sb, 0);
	put64(sb, 0);
}

static void unwind(struct strbuf *sb, uint64_t ts)
{
	put32(sb, 4);
	put32(sb, 40);
	put64(sb, ts);
	put64(sb, 16);
	put64(sb, 0);
	put64(sb, 16);
}

static void load(struct strbuf *sb, uint64_t ts, uint64_t index)
{
	static const char name[] = "py::f:x.py";

	put32(sb, 0);
	put32(sb, 56 + sizeof(name) + 4);
	put64(sb, ts);
	put32(sb, 42);
	put32(sb, 42);
	put64(sb, 0x1000 * index);
	put64(sb, 0x1000 * index);
	put64(sb, 4);
	put64(sb, index);
	strbuf_add(sb, name, sizeof(name));
	put32(sb, 0xc3c3c3c3);
}

static long repair(const char *path, const struct strbuf *in,
		   struct strbuf *out)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	long r;

	if (write(fd, in->buf, in->len) != (ssize_t)in->len)
		return -999;
	close(fd);
	r = record_repair_jitdump(path, 42);
	strbuf_reset(out);
	strbuf_read_file(out, path, 1 << 20);
	return r;
}

static void test_repair(void)
{
	char dir[] = "/tmp/t-jitdump-XXXXXX";
	struct strbuf good = STRBUF_INIT, bad = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT;
	char *path;
	long r;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "repair: cannot make a directory");
		return;
	}
	path = xasprintf("%s/jit-42.dump", dir);
	header(&good);
	unwind(&good, 100);
	load(&good, 101, 1);
	unwind(&good, 102);
	load(&good, 103, 2);

	r = repair(path, &good, &out);
	TAP_INT(r, 0, "repair: a good dump is left alone");
	TAP_OK(out.len == good.len && !memcmp(out.buf, good.buf, out.len),
	       "repair: ...byte for byte");

	/* a stray fragment after the first load (the fork case) */
	header(&bad);
	unwind(&bad, 100);
	load(&bad, 101, 1);
	strbuf_add(&bad, "x.py\0\x48\x83\xec\x08garbage", 17);
	unwind(&bad, 102);
	load(&bad, 103, 2);
	r = repair(path, &bad, &out);
	TAP_INT(r, 17, "repair: the fragment is dropped");
	TAP_OK(out.len == good.len && !memcmp(out.buf, good.buf, out.len),
	       "repair: ...and the records kept");

	/*
	 * A fragment shaped like a code load header (seen with 3.13.0 after
	 * a fork): taken for a record, its huge index made every later load
	 * look like a duplicate and all of them were dropped.
	 */
	strbuf_reset(&bad);
	header(&bad);
	unwind(&bad, 100);
	load(&bad, 101, 1);
	put32(&bad, 0);
	put32(&bad, 56 + 8);
	put64(&bad, 101);
	put32(&bad, 42);
	put32(&bad, 43);
	put64(&bad, 0xff0500f870ull);
	put64(&bad, 0x91000000000000ull);
	put64(&bad, 0xb);
	put64(&bad, 3852688744624128ull);
	put64(&bad, 0);
	unwind(&bad, 102);
	load(&bad, 103, 2);
	r = repair(path, &bad, &out);
	TAP_INT(r, 64, "repair: a fragment shaped like a code load is dropped");
	TAP_OK(out.len == good.len && !memcmp(out.buf, good.buf, out.len),
	       "repair: ...and the loads after it are kept");

	/* the same code load twice, the second without its unwind info */
	strbuf_reset(&bad);
	header(&bad);
	unwind(&bad, 100);
	load(&bad, 101, 1);
	load(&bad, 101, 1);
	unwind(&bad, 102);
	load(&bad, 103, 2);
	r = repair(path, &bad, &out);
	TAP_OK(r > 0, "repair: a duplicate load is dropped");
	TAP_OK(out.len == good.len && !memcmp(out.buf, good.buf, out.len),
	       "repair: ...the first one kept with its unwind info");

	/*
	 * A forked child's copy of the parent's stdio buffer (3.13.0),
	 * flushed into the shared file between two of the parent's own
	 * flushes, which cut a code load in two: inside its header (9
	 * bytes in, as seen), then inside its name.  The fragment is bytes
	 * the parent wrote before; without it the load is whole again.
	 */
	{
		static const size_t cut[] = { 9, 60 };
		size_t k, l2 = 40 + 40 + 71 + 40, frag = 52, flen = 60;

		for (k = 0; k < 2; k++) {
			strbuf_reset(&bad);
			header(&bad);
			unwind(&bad, 100);
			load(&bad, 101, 1);
			unwind(&bad, 102);
			/* the second load's first cut[k] bytes, the fragment
			   (60 of the bytes before it, from the first unwind
			   info into the first load), then its rest */
			strbuf_add(&bad, good.buf + l2, cut[k]);
			strbuf_add(&bad, good.buf + frag, flen);
			strbuf_add(&bad, good.buf + l2 + cut[k],
				   good.len - l2 - cut[k]);
			r = repair(path, &bad, &out);
			TAP_INT(r, (long)flen, k ? "repair: a fragment inside "
				"a load's name is taken out" : "repair: a "
				"fragment inside a load's header is taken out");
			TAP_OK(out.len == good.len &&
			       !memcmp(out.buf, good.buf, out.len),
			       "repair: ...and the load is whole again");
		}
	}

	/* nothing written at all (_exit before the flush) */
	strbuf_reset(&bad);
	r = repair(path, &bad, &out);
	TAP_OK(r > 0, "repair: an empty dump gets a header");
	TAP_INT(out.len, 40, "repair: ...of 40 bytes");
	TAP_OK(out.len >= 24 && !memcmp(out.buf, good.buf, 4),
	       "repair: ...with the jitdump magic");

	paths_remove_tree(dir);
	free(path);
	strbuf_release(&good);
	strbuf_release(&bad);
	strbuf_release(&out);
}

int main(void)
{
	test_repair();
	return tap_done();
}
