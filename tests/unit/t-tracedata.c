// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/tracedata: tracepoint formats from a tracing-data section, and
 * bounds-checked reads of payload fields.
 *
 * Without arguments: unit tests on a section built here (both byte
 * orders), every truncation of it, and hostile payloads.
 *
 * t-tracedata --sched-switch FILE: decode every sched:sched_switch
 * sample of a perf.data FILE and print it the way the kernel's print fmt
 * (and so `perf script --ns -F time,trace`) does, one line a sample, for
 * t3030-tracedata.sh to compare with perf script.  The perf.data reading
 * is a minimal reader of its own (header, attrs, the tracing-data
 * feature section, sample records up to PERF_SAMPLE_RAW), independent of
 * lib/perfdata.
 */
#include "compat.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "byteorder.h"
#include "strbuf.h"
#include "tap.h"
#include "tracedata.h"

/* --- a synthetic section ---------------------------------------------- */

static const char ev_format[] =
	"name: ev\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:long state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rname;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short small;\toffset:48;\tsize:2;\tsigned:0;\n"
	"\tfield:signed char tiny;\toffset:50;\tsize:1;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n";

/* A second event whose format libtraceevent cannot parse. */
static const char bad_format[] = "name: broken\nID: 9\nformat:\n\tfield:";

static void put_uint(struct strbuf *sb, uint64_t v, int size, int big)
{
	int i;

	for (i = 0; i < size; i++) {
		int shift = big ? 8 * (size - 1 - i) : 8 * i;

		strbuf_addch(sb, (char)(v >> shift & 0xff));
	}
}

static void put_blob(struct strbuf *sb, const char *s, size_t n, int big)
{
	put_uint(sb, n, 8, big);
	strbuf_add(sb, s, n);
}

static void build_section(struct strbuf *sb, int big)
{
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";

	strbuf_add(sb, "\027\010\104tracing", 10);
	strbuf_add(sb, "0.6", 4);
	strbuf_addch(sb, (char)big);
	strbuf_addch(sb, 8);
	put_uint(sb, 4096, 4, big);
	strbuf_add(sb, "header_page", 12);
	put_blob(sb, hp, sizeof(hp) - 1, big);
	strbuf_add(sb, "header_event", 13);
	put_blob(sb, "x", 1, big);
	put_uint(sb, 0, 4, big);		/* ftrace formats */
	put_uint(sb, 1, 4, big);		/* systems */
	strbuf_add(sb, "test", 5);
	put_uint(sb, 2, 4, big);
	put_blob(sb, ev_format, sizeof(ev_format) - 1, big);
	put_blob(sb, bad_format, sizeof(bad_format) - 1, big);
	put_uint(sb, 0, 4, big);		/* kallsyms */
	put_uint(sb, 0, 4, big);		/* printk */
	put_uint(sb, 0, 8, big);		/* saved cmdlines */
}

/* A payload of the ev event, 68 bytes. */
static void build_payload(unsigned char *raw, int big)
{
	struct strbuf sb = STRBUF_INIT;

	put_uint(&sb, 7, 2, big);
	put_uint(&sb, 0, 1, big);
	put_uint(&sb, 0, 1, big);
	put_uint(&sb, 4242, 4, big);
	strbuf_add(&sb, "python3\0\0\0\0\0\0\0\0\0", 16);
	put_uint(&sb, (uint64_t)-5, 4, big);		/* pid = -5 */
	put_uint(&sb, 0, 4, big);			/* padding */
	put_uint(&sb, 0x102, 8, big);			/* state */
	put_uint(&sb, 6u << 16 | 56, 4, big);		/* name: "hello" */
	put_uint(&sb, 4u << 16 | 16, 4, big);		/* rname: at 48 + 16 */
	put_uint(&sb, 0xbeef, 2, big);
	put_uint(&sb, 0xfe, 1, big);			/* tiny = -2 */
	strbuf_add(&sb, "\0\0\0\0\0", 5);		/* to 56 */
	strbuf_add(&sb, "hello\0\0\0", 8);		/* 56..63 */
	strbuf_add(&sb, "rel\0", 4);			/* 64..67 */
	memcpy(raw, sb.buf, sb.len);
	strbuf_release(&sb);
}

static void test_decode(int big)
{
	const char *order = big ? "big-endian" : "little-endian";
	struct strbuf sb = STRBUF_INIT;
	struct tracedata *td;
	const struct tracedata_event *ev;
	unsigned char raw[68];
	char err[PPR_ERR_LEN] = "";
	const char *s;
	size_t len;
	uint64_t v;

	build_section(&sb, big);
	build_payload(raw, big);
	td = tracedata_new(sb.buf, sb.len, err, sizeof(err));
	TAP_OK(td != NULL, "%s: section parses (%s)", order, err);
	if (!td) {
		strbuf_release(&sb);
		return;
	}
	TAP_STR(tracedata_version(td), "0.6", "%s: version", order);
	TAP_INT(tracedata_nr_events(td), 1, "%s: one event parsed", order);
	TAP_INT(tracedata_nr_rejected(td), 1,
		"%s: the truncated format left out", order);
	TAP_OK(tracedata_event(td, 9) == NULL, "%s: ...so no event 9", order);
	ev = tracedata_event(td, 7);
	TAP_OK(ev != NULL, "%s: event 7 found by id", order);
	TAP_STR(tracedata_event_name(ev), "ev", "%s: its name", order);
	TAP_STR(tracedata_event_system(ev), "test", "%s: its system", order);
	TAP_OK(tracedata_event_by_name(td, "test", "ev") == ev,
	       "%s: the same by name", order);
	TAP_OK(tracedata_event(td, 8) == NULL, "%s: no event 8", order);
	TAP_OK(tracedata_event(td, 1ull << 40) == NULL,
	       "%s: an id beyond int finds nothing", order);

	TAP_OK(tracedata_get_num(td, ev, "common_pid", raw, sizeof(raw), &v) == 0 &&
	       v == 4242, "%s: common_pid", order);
	TAP_OK(tracedata_get_num(td, ev, "pid", raw, sizeof(raw), &v) == 0 &&
	       (int64_t)v == -5, "%s: a signed int is sign-extended", order);
	TAP_OK(tracedata_get_num(td, ev, "state", raw, sizeof(raw), &v) == 0 &&
	       v == 0x102, "%s: a long", order);
	TAP_OK(tracedata_get_num(td, ev, "small", raw, sizeof(raw), &v) == 0 &&
	       v == 0xbeef, "%s: an unsigned short", order);
	TAP_OK(tracedata_get_num(td, ev, "tiny", raw, sizeof(raw), &v) == 0 &&
	       (int64_t)v == -2, "%s: a signed char", order);
	TAP_OK(tracedata_get_str(td, ev, "comm", raw, sizeof(raw), &s, &len) == 0 &&
	       len == 7 && !memcmp(s, "python3", 7), "%s: char comm[16]", order);
	TAP_OK(tracedata_get_str(td, ev, "name", raw, sizeof(raw), &s, &len) == 0 &&
	       len == 5 && !memcmp(s, "hello", 5), "%s: __data_loc char[]", order);
	TAP_OK(tracedata_get_str(td, ev, "rname", raw, sizeof(raw), &s, &len) == 0 &&
	       len == 3 && !memcmp(s, "rel", 3), "%s: __rel_loc char[]", order);

	/* reads that must fail */
	TAP_INT(tracedata_get_num(td, ev, "nosuch", raw, sizeof(raw), &v), -1,
		"%s: no such field", order);
	TAP_INT(tracedata_get_num(td, ev, "comm", raw, sizeof(raw), &v), -1,
		"%s: an array is not a number", order);
	TAP_INT(tracedata_get_str(td, ev, "pid", raw, sizeof(raw), &s, &len), -1,
		"%s: a number is not a string", order);
	TAP_INT(tracedata_get_num(td, ev, "state", raw, 39, &v), -1,
		"%s: a number past the payload's end", order);
	TAP_INT(tracedata_get_str(td, ev, "comm", raw, 23, &s, &len), -1,
		"%s: an array past the payload's end", order);
	TAP_INT(tracedata_get_str(td, ev, "name", raw, 60, &s, &len), -1,
		"%s: dynamic data past the payload's end", order);
	TAP_INT(tracedata_get_num(td, NULL, "pid", raw, sizeof(raw), &v), -1,
		"%s: no event", order);
	{
		struct strbuf loc = STRBUF_INIT;

		put_uint(&loc, 0xffffu << 16 | 0xfff0, 4, big);
		memcpy(raw + 40, loc.buf, 4);
		strbuf_release(&loc);
	}
	TAP_INT(tracedata_get_str(td, ev, "name", raw, sizeof(raw), &s, &len), -1,
		"%s: a hostile __data_loc", order);
	tracedata_free(td);
	strbuf_release(&sb);
}

/* Every prefix of the section: an error or a parse, never a crash (the
 * sanitizer and valgrind runs check the reads). */
static void test_truncations(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n, ok = 0, failed = 0, no_msg = 0;

	build_section(&sb, 0);
	for (n = 0; n <= sb.len; n++) {
		char err[PPR_ERR_LEN] = "";
		unsigned char *copy = xmalloc(n ? n : 1);
		struct tracedata *td;

		memcpy(copy, sb.buf, n);
		td = tracedata_new(copy, n, err, sizeof(err));
		if (td)
			ok++;
		else if (err[0])
			failed++;
		else
			no_msg++;
		tracedata_free(td);
		free(copy);
	}
	/* the formats end 16 bytes before the section does: what follows
	 * (kallsyms, printk, cmdlines) is not read */
	TAP_INT(ok, 17, "truncations: only those inside the skipped tail parse");
	TAP_INT(failed, sb.len + 1 - 17, "truncations: the rest fail with a reason");
	TAP_INT(no_msg, 0, "truncations: no failure without a reason");
	strbuf_release(&sb);
}

/* Format texts outside the kernel's grammar never reach libtraceevent. */
static void test_hostile_formats(void)
{
	static const char *const bad[] = {
		"name: x\nID: 3\nformat:\n\tfield:int (*f)(void);\toffset:0;\tsize:8;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:char c[\x97];\toffset:0;\tsize:1;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:int a;\toffset:70000;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:2;\n",
		"name: x\nID: 3\nformat:\n\tfield:int a;\toffsetigned:0;\n",
		"name: x y\nID: 3\nformat:\n",
		"name: x\nID: -3\nformat:\n",
		"name: x\nID: 99999999999\nformat:\n",
		"name: x\nID: 3\nformats:\n",
		"name: x\nID: 3\nformat:\n\tfield:inLOCAd;\toffset:0;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:int [4];\toffset:0;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield: a;\toffset:0;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:_x[] a;\toffset:0;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:__data_loc [] a;\toffset:0;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:__data_loc char[] a[2];\toffset:0;\tsize:4;\tsigned:0;\n",
		"name: x\nID: 3\nformat:\n\tfield:char a[1a];\toffset:0;\tsize:4;\tsigned:0;\n",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct strbuf sb = STRBUF_INIT;
		char err[PPR_ERR_LEN] = "";
		struct tracedata *td;

		strbuf_add(&sb, "\027\010\104tracing", 10);
		strbuf_add(&sb, "0.6", 4);
		strbuf_addch(&sb, 0);
		strbuf_addch(&sb, 8);
		put_uint(&sb, 4096, 4, 0);
		strbuf_add(&sb, "header_page", 12);
		put_blob(&sb, "", 0, 0);
		strbuf_add(&sb, "header_event", 13);
		put_blob(&sb, "", 0, 0);
		put_uint(&sb, 0, 4, 0);
		put_uint(&sb, 1, 4, 0);
		strbuf_add(&sb, "test", 5);
		put_uint(&sb, 1, 4, 0);
		put_blob(&sb, bad[i], strlen(bad[i]), 0);
		td = tracedata_new(sb.buf, sb.len, err, sizeof(err));
		TAP_OK(td && tracedata_nr_events(td) == 0 &&
		       tracedata_nr_rejected(td) == 1,
		       "hostile format %zu: left out, the section still reads",
		       i);
		tracedata_free(td);
		strbuf_release(&sb);
	}
}

static void test_hostile_container(void)
{
	struct strbuf sb = STRBUF_INIT;
	char err[PPR_ERR_LEN] = "";
	struct tracedata *td;
	size_t at;

	build_section(&sb, 0);
	/* a header_page size far beyond the section */
	at = 10 + 4 + 1 + 1 + 4 + 12;
	memset(sb.buf + at, 0xff, 8);
	td = tracedata_new(sb.buf, sb.len, err, sizeof(err));
	TAP_OK(!td && strstr(err, "header page"), "a huge header page size: %s", err);
	tracedata_free(td);
	strbuf_release(&sb);

	td = tracedata_new("\027\010\104tracing", 10, err, sizeof(err));
	TAP_OK(!td && strstr(err, "version"), "no version: %s", err);
	td = tracedata_new("PERFILE2", 8, err, sizeof(err));
	TAP_OK(!td && strstr(err, "tag"), "not tracing data: %s", err);
	td = tracedata_new(NULL, 0, err, sizeof(err));
	TAP_OK(!td, "nothing at all");
	tracedata_free(NULL);
}

/* --- --sched-switch FILE: a minimal perf.data reader ------------------ */

#define S_IP		(1u << 0)
#define S_TID		(1u << 1)
#define S_TIME		(1u << 2)
#define S_ADDR		(1u << 3)
#define S_READ		(1u << 4)
#define S_CALLCHAIN	(1u << 5)
#define S_ID		(1u << 6)
#define S_CPU		(1u << 7)
#define S_PERIOD	(1u << 8)
#define S_STREAM_ID	(1u << 9)
#define S_RAW		(1u << 10)
#define S_IDENTIFIER	(1u << 16)

struct attr {
	uint32_t type;
	uint64_t config, sample_type;
	const unsigned char *ids;
	uint64_t nr_ids;
};

static int die_dump(const char *msg)
{
	fprintf(stderr, "t-tracedata: %s\n", msg);
	return 2;
}

/* "S|D", "R", "R+": the kernel's sched_switch print fmt for prev_state. */
static void state_str(uint64_t state, char *out, size_t outlen)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;
	int i;

	out[0] = '\0';
	if ((state & 0xff) == 0) {
		n = (size_t)snprintf(out, outlen, "R");
	} else {
		for (i = 0; i < 8; i++) {
			if (!(state & (1u << i)))
				continue;
			n += (size_t)snprintf(out + n, outlen - n, "%s%c",
					      n ? "|" : "", letters[i]);
		}
	}
	if (state & 0x100)
		snprintf(out + n, outlen - n, "+");
}

static int dump_sample(const struct tracedata *td, const struct attr *attrs,
		       size_t nattr, const unsigned char *p,
		       const unsigned char *end)
{
	const struct attr *a = &attrs[0];
	const struct tracedata_event *ev;
	uint64_t st, time = 0, prev_pid, prev_prio, state, next_pid, next_prio;
	uint32_t raw_size;
	const char *pc, *nc;
	size_t pcl, ncl, i, j;
	char sbuf[64];

#define NEED(n) do { if ((size_t)(end - p) < (n)) return -1; } while (0)
	if (attrs[0].sample_type & S_IDENTIFIER) {
		uint64_t id;

		NEED(8);
		id = get_le64(p);
		a = NULL;
		for (i = 0; i < nattr && !a; i++)
			for (j = 0; j < attrs[i].nr_ids; j++)
				if (get_le64(attrs[i].ids + 8 * j) == id)
					a = &attrs[i];
		if (!a)
			return -1;
	}
	st = a->sample_type;
	if (a->type != 2 /* PERF_TYPE_TRACEPOINT */ || !(st & S_RAW))
		return 0;
	if (st & (S_READ | S_CALLCHAIN))
		return -1;
	p += (st & S_IDENTIFIER) ? 8 : 0;
	p += (st & S_IP) ? 8 : 0;
	p += (st & S_TID) ? 8 : 0;
	if (st & S_TIME) {
		NEED(8);
		time = get_le64(p);
		p += 8;
	}
	p += (st & S_ADDR) ? 8 : 0;
	p += (st & S_ID) ? 8 : 0;
	p += (st & S_STREAM_ID) ? 8 : 0;
	p += (st & S_CPU) ? 8 : 0;
	p += (st & S_PERIOD) ? 8 : 0;
	NEED(4);
	raw_size = get_le32(p);
	p += 4;
	NEED(raw_size);
#undef NEED
	ev = tracedata_event(td, a->config);
	if (!ev || strcmp(tracedata_event_name(ev), "sched_switch"))
		return 0;
	if (tracedata_get_str(td, ev, "prev_comm", p, raw_size, &pc, &pcl) ||
	    tracedata_get_num(td, ev, "prev_pid", p, raw_size, &prev_pid) ||
	    tracedata_get_num(td, ev, "prev_prio", p, raw_size, &prev_prio) ||
	    tracedata_get_num(td, ev, "prev_state", p, raw_size, &state) ||
	    tracedata_get_str(td, ev, "next_comm", p, raw_size, &nc, &ncl) ||
	    tracedata_get_num(td, ev, "next_pid", p, raw_size, &next_pid) ||
	    tracedata_get_num(td, ev, "next_prio", p, raw_size, &next_prio))
		return -1;
	state_str(state, sbuf, sizeof(sbuf));
	printf("%llu.%09llu: prev_comm=%.*s prev_pid=%lld prev_prio=%lld "
	       "prev_state=%s ==> next_comm=%.*s next_pid=%lld next_prio=%lld\n",
	       (unsigned long long)(time / 1000000000),
	       (unsigned long long)(time % 1000000000), (int)pcl, pc,
	       (long long)prev_pid, (long long)prev_prio, sbuf, (int)ncl, nc,
	       (long long)next_pid, (long long)next_prio);
	return 1;
}

static int dump_sched_switch(const char *path)
{
	struct attr attrs[16];
	const unsigned char *m, *sec = NULL, *p, *end;
	uint64_t hsize, attr_size, attrs_off, attrs_sz, data_off, data_sz;
	uint64_t feat_off, sec_len = 0, nattr, i;
	unsigned long nsamples = 0;
	struct tracedata *td;
	char err[PPR_ERR_LEN];
	struct stat stbuf;
	int fd, bit, k = 0;
	size_t len;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &stbuf) || stbuf.st_size < 104)
		return die_dump("cannot open the perf.data file");
	len = (size_t)stbuf.st_size;
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED || memcmp(m, "PERFILE2", 8))
		return die_dump("not a little-endian PERFILE2 file");
	hsize = get_le64(m + 8);
	attr_size = get_le64(m + 16);
	attrs_off = get_le64(m + 24);
	attrs_sz = get_le64(m + 32);
	data_off = get_le64(m + 40);
	data_sz = get_le64(m + 48);
	if (hsize < 104 || attr_size < 64 + 16 || attrs_off > len ||
	    attrs_sz > len - attrs_off || data_off > len ||
	    data_sz > len - data_off)
		return die_dump("bad header");

	nattr = attrs_sz / attr_size;
	if (nattr == 0 || nattr > ARRAY_SIZE(attrs))
		return die_dump("unexpected number of attrs");
	for (i = 0; i < nattr; i++) {
		const unsigned char *a = m + attrs_off + i * attr_size;
		const unsigned char *ids = a + attr_size - 16;
		uint64_t ids_off = get_le64(ids), ids_sz = get_le64(ids + 8);

		if (ids_off > len || ids_sz > len - ids_off)
			return die_dump("bad attr ids");
		attrs[i].type = get_le32(a);
		attrs[i].config = get_le64(a + 8);
		attrs[i].sample_type = get_le64(a + 24);
		attrs[i].ids = m + ids_off;
		attrs[i].nr_ids = ids_sz / 8;
	}

	/* one perf_file_section per feature bit set, from bit 1 on, right
	 * after the data; HEADER_TRACING_DATA is bit 1, the first */
	feat_off = data_off + data_sz;
	for (bit = 1; bit < 256; bit++) {
		if (!(get_le64(m + 72 + 8 * (bit / 64)) >> (bit % 64) & 1))
			continue;
		if (feat_off + 16 * (uint64_t)(k + 1) > len)
			return die_dump("truncated feature table");
		if (bit == 1) {
			uint64_t o = get_le64(m + feat_off + 16 * k);

			sec_len = get_le64(m + feat_off + 16 * k + 8);
			if (o > len || sec_len > len - o)
				return die_dump("bad tracing-data section");
			sec = m + o;
		}
		k++;
	}
	if (!sec)
		return die_dump("no tracing-data section");
	td = tracedata_new(sec, (size_t)sec_len, err, sizeof(err));
	if (!td) {
		fprintf(stderr, "t-tracedata: %s\n", err);
		return 2;
	}

	p = m + data_off;
	end = p + data_sz;
	while ((size_t)(end - p) >= 8) {
		uint32_t type = get_le32(p);
		uint16_t size = get_le16(p + 6);
		int r;

		if (size < 8 || size > (size_t)(end - p))
			return die_dump("bad record size");
		if (type == 9 /* PERF_RECORD_SAMPLE */) {
			r = dump_sample(td, attrs, (size_t)nattr, p + 8, p + size);
			if (r < 0)
				return die_dump("cannot decode a sample");
			nsamples += (unsigned long)r;
		}
		p += size;
	}
	fprintf(stderr, "t-tracedata: %lu sched_switch samples\n", nsamples);
	tracedata_free(td);
	munmap((void *)m, len);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--sched-switch"))
		return dump_sched_switch(argv[2]);
	test_decode(0);
	test_decode(1);
	test_truncations();
	test_hostile_formats();
	test_hostile_container();
	return tap_done();
}
