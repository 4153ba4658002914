/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests for lib/session.c, lib/record/ and perfdata.c: the meta file,
 * the hints from cut stacks, the jitdump repair and the perf.data fixes.
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

static void test_meta(void)
{
	struct session_meta m = SESSION_META_INIT, back = SESSION_META_INIT;
	char err[PPR_ERR_LEN];
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	session_meta_set(&m, "format", "%d", 1);
	session_meta_set(&m, "command", "%s", "python -c 'a\nb' x\\y");
	session_meta_set(&m, "format", "%d", 2);
	TAP_STR(session_meta_get(&m, "format"), "2", "meta: set replaces");
	TAP_OK(session_meta_get(&m, "nope") == NULL, "meta: missing key");
	session_meta_print(&m, fp);
	fclose(fp);
	TAP_STR(buf, "format=2\ncommand=python -c 'a\\nb' x\\\\y\n",
		"meta: newline and backslash escaped, one line each");
	TAP_INT(session_meta_parse(&back, buf, len, err, sizeof(err)), 0,
		"meta: parse");
	TAP_STR(session_meta_get(&back, "command"), "python -c 'a\nb' x\\y",
		"meta: round trip");
	session_meta_release(&back);
	TAP_INT(session_meta_parse(&back, "ok=1\nbad line\n", 14, err,
				   sizeof(err)), -1, "meta: a line without =");
	TAP_STR(err, "line 2 is not a key=value line", "meta: error says where");
	session_meta_release(&back);
	TAP_INT(session_meta_parse(&back, "Bad=1\n", 6, err, sizeof(err)),
		-1, "meta: a key with capitals");
	session_meta_release(&back);
	session_meta_release(&m);
	free(buf);
}

/* The hints as one string, "|"-separated, for comparing. */
static char *hints_of(const struct record_cut_facts *f)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	record_cut_hints(f, &v);
	for (i = 0; i < v.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", v.v[i]);
	strvec_clear(&v);
	return strbuf_detach(&sb, NULL);
}

static int has(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

static void test_hints(void)
{
	struct record_cut_facts f;
	char *h;

	TAP_OK(record_is_root_symbol("__libc_start_main@@GLIBC_2.34"),
	       "root: versioned symbol");
	TAP_OK(!record_is_root_symbol("_start_x"), "root: not a prefix match");

	/* jit, the dump full in 60 %, and 48 KiB would complete them */
	memset(&f, 0, sizeof(f));
	f.jit = 1;
	f.stack_size = 32768;
	f.judged = 1000;
	f.cut[RECORD_CUT_NONE] = 400;
	f.cut[RECORD_CUT_DUMP] = 600;
	f.dump_measured = 600;
	f.dump_fixable = 590;
	f.dump_needed = 49150;
	TAP_OK(record_cut_share(&f) > 0.599 && record_cut_share(&f) < 0.601,
	       "share: cut / judged");
	h = hints_of(&f);
	TAP_OK(has(h, "--stack-size 49152:") && has(h, "60%"),
	       "dump: the measured size, rounded to 8 (%s)", h);
	free(h);

	/* most fit in 65528 bytes, 99 % would need more: the maximum */
	f.dump_needed = 70000;
	h = hints_of(&f);
	TAP_OK(has(h, "--stack-size 65528:") && has(h, "hold most"),
	       "dump: most complete at the maximum (%s)", h);
	free(h);

	/* ...but 65528 would complete only a few: no size advice */
	f.dump_fixable = 100;
	h = hints_of(&f);
	TAP_OK(!has(h, "with --stack-size") && has(h, "would not help"),
	       "dump: deeper than perf can copy (%s)", h);
	free(h);

	/* ...and without a measure, nothing is advised */
	f.dump_measured = 0;
	h = hints_of(&f);
	TAP_STR(h, "", "dump: no facts, no hint");
	free(h);

	/* unwinder cuts: never a size */
	memset(&f, 0, sizeof(f));
	f.jit = 1;
	f.stack_size = 16384;
	f.judged = 1000;
	f.cut[RECORD_CUT_UNWIND] = 500;
	f.unwind_known = 1;
	f.unwind_at_python = 450;
	h = hints_of(&f);
	TAP_OK(!has(h, "--stack-size") && has(h, "unwinds jitted code"),
	       "unwind at Python frames: the perf version (%s)", h);
	free(h);
	f.jit_fix_known = 1;
	h = hints_of(&f);
	TAP_STR(h, "", "unwind: perf known to unwind jitted code: no hint");
	free(h);

	/* a few cut stacks: nothing to say */
	memset(&f, 0, sizeof(f));
	f.judged = 1000;
	f.cut[RECORD_CUT_NOROOT] = 30;
	f.cut[RECORD_CUT_DEPTH] = 10;
	h = hints_of(&f);
	TAP_STR(h, "", "perf: 4 %% cut gets no hint");
	free(h);

	/* perf mode: broken chains and the frame cap */
	f.cut[RECORD_CUT_NOROOT] = 350;
	f.cut[RECORD_CUT_DEPTH] = 600;
	f.max_stack = 127;
	h = hints_of(&f);
	TAP_OK(has(h, "--mode jit: 35% of the stacks broke off") &&
	       !has(h, "--stack-size"), "noroot: jit mode (%s)", h);
	TAP_OK(has(h, "no frame cap (raising kernel.perf_event_max_stack, "
		   "now 127"), "depth: no made-up size (%s)", h);
	free(h);
	f.depth_needed = 400;
	h = hints_of(&f);
	TAP_OK(has(h, "kernel.perf_event_max_stack=400, now 127"),
	       "depth: the needed cap when measured (%s)", h);
	free(h);
	/* perf-mode reasons never give jit-mode advice and vice versa */
	f.jit = 1;
	h = hints_of(&f);
	TAP_STR(h, "", "jit: perf-mode reasons give no hint");
	free(h);
}

/* --- jitdumps ------------------------------------------------------------ */

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
	char dir[] = "/tmp/t-record-XXXXXX";
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

static void test_session_dirs(void)
{
	char dir[] = "/tmp/t-session-XXXXXX";
	char err[PPR_ERR_LEN];
	char *target, *tmp = NULL, *old, *f;
	int exists = -1, fd;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "session: cannot make a directory");
		return;
	}
	target = xasprintf("%s/pyperf.data", dir);
	old = xasprintf("%s/pyperf.data.old", dir);
	TAP_INT(session_check_target(target, &exists, err, sizeof(err)), 0,
		"session: a new target is fine");
	TAP_INT(exists, 0, "session: ...and does not exist");
	TAP_INT(session_create_tmp(target, &tmp, err, sizeof(err)), 0,
		"session: tmp created");
	TAP_OK(tmp && !strncmp(tmp, target, strlen(target)),
	       "session: tmp is next to the target");
	TAP_INT(session_commit(tmp, target, err, sizeof(err)), 0,
		"session: commit");
	free(tmp);
	tmp = NULL;
	f = xasprintf("%s/meta", target);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	close(fd);
	free(f);
	TAP_INT(session_check_target(target, &exists, err, sizeof(err)), 0,
		"session: an existing session is fine");
	TAP_INT(exists, 1, "session: ...and will be rotated");
	session_create_tmp(target, &tmp, err, sizeof(err));
	TAP_INT(session_commit(tmp, target, err, sizeof(err)), 0,
		"session: second commit");
	f = xasprintf("%s/meta", old);
	TAP_OK(access(f, F_OK) == 0, "session: the first one is now .old");
	free(f);
	free(tmp);
	f = xasprintf("%s/other", dir);
	mkdir(f, 0700);
	free(f);
	f = xasprintf("%s/other/file", dir);
	fd = open(f, O_WRONLY | O_CREAT, 0600);
	close(fd);
	free(f);
	f = xasprintf("%s/other", dir);
	TAP_INT(session_check_target(f, &exists, err, sizeof(err)), -1,
		"session: a directory with other files is refused");
	free(f);
	paths_remove_tree(dir);
	free(target);
	free(old);
}

/* --- perf.data fixes ------------------------------------------------------ */

static void put16(struct strbuf *sb, uint16_t v)
{
	strbuf_add(sb, &v, 2);
}

static void pd_record(struct strbuf *sb, uint32_t type, uint16_t misc,
		      const uint32_t *w, size_t nw)
{
	size_t i;

	put32(sb, type);
	put16(sb, misc);
	put16(sb, (uint16_t)(8 + 4 * nw));
	for (i = 0; i < nw; i++)
		put32(sb, w[i]);
}

/* A header (data at 104, size data_size) and the records of the run. */
static void pd_file(struct strbuf *sb, uint64_t data_size)
{
	static const uint32_t fork_sp[] = { 200, 100, 200, 100, 0, 0 };
	static const uint32_t fork_fk[] = { 300, 100, 300, 100, 0, 0 };
	static const uint32_t fork_th[] = { 100, 100, 101, 100, 0, 0 };
	static const uint32_t comm_sp[] = { 200, 200, 0x6f6f66, 0 };
	static const uint32_t comm_th[] = { 100, 101, 0x6f6f66, 0 };
	static const uint32_t mmap_k[] = { 0xffffffffu, 0, 0, 0 };
	static const uint32_t sample[] = { 1, 2, 3, 4 };
	int i;

	put64(sb, 0x32454c4946524550ull);
	put64(sb, 104);
	put64(sb, 136);
	put64(sb, 0);
	put64(sb, 0);
	put64(sb, 104);
	put64(sb, data_size);
	put64(sb, 0);
	put64(sb, 0);
	for (i = 0; i < 4; i++)
		put64(sb, i ? 0 : 0x40004ull);	/* some feature bits */
	pd_record(sb, 1, 0, mmap_k, 4);		/* 24 bytes */
	pd_record(sb, 7, 0, fork_sp, 6);	/* 32: spawned, execs */
	pd_record(sb, 7, 0, fork_fk, 6);	/* 32: forked, no exec */
	pd_record(sb, 7, 0, fork_th, 6);	/* 32: a thread */
	pd_record(sb, 9, 0, sample, 4);		/* 24 */
	pd_record(sb, 3, 0x2000, comm_sp, 4);	/* 24: exec of 200 */
	pd_record(sb, 3, 0x2000, comm_th, 4);	/* 24: thread "exec" */
	pd_record(sb, 9, 0, sample, 4);		/* 24 */
}

#define PD_RECORDS 216

static int write_file(const char *path, const struct strbuf *sb)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, sb->buf, sb->len) == (ssize_t)sb->len;
	return close(fd) == 0 && ok ? 0 : -1;
}

static uint16_t misc_at(const struct strbuf *sb, size_t off)
{
	uint16_t v;

	memcpy(&v, sb->buf + off + 4, 2);
	return v;
}

static uint64_t u64_at(const struct strbuf *sb, size_t off)
{
	uint64_t v;

	memcpy(&v, sb->buf + off, 8);
	return v;
}

static void test_perf_data(void)
{
	char dir[] = "/tmp/t-record-XXXXXX";
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	struct perfdata_scan scan;
	unsigned fixed = 99;
	char *path;
	size_t i;
	int pid_seen[4] = { 0 };

	if (!mkdtemp(dir)) {
		TAP_OK(0, "perf.data: cannot make a directory");
		return;
	}
	path = xasprintf("%s/perf.data", dir);

	pd_file(&sb, PD_RECORDS);
	write_file(path, &sb);
	perfdata_scan_init(&scan);
	TAP_INT(perfdata_fix_exec_forks(path, &scan, &fixed), 0,
		"fix forks: ok");
	TAP_INT(fixed, 1, "fix forks: only the fork followed by an exec");
	strbuf_read_file(&out, path, 1 << 20);
	TAP_INT(out.len, sb.len, "fix forks: the size is unchanged");
	TAP_INT(misc_at(&out, 104 + 24), 0x2000, "fix forks: marked");
	TAP_INT(misc_at(&out, 104 + 56), 0, "fix forks: plain fork kept");
	TAP_INT(misc_at(&out, 104 + 88), 0, "fix forks: thread kept");
	TAP_INT(scan.samples, 2, "fix forks: the samples counted");
	for (i = 0; i < scan.nr_pids; i++) {
		if (scan.pids[i] == 100)
			pid_seen[0]++;
		else if (scan.pids[i] == 200)
			pid_seen[1]++;
		else if (scan.pids[i] == 300)
			pid_seen[2]++;
		else
			pid_seen[3]++;
	}
	TAP_OK(pid_seen[0] == 1 && pid_seen[1] == 1 && pid_seen[2] == 1 &&
	       !pid_seen[3], "fix forks: the pids, once each, no -1");
	perfdata_scan_release(&scan);
	TAP_INT(perfdata_fix_exec_forks(path, NULL, &fixed), 0,
		"fix forks: again");
	TAP_INT(fixed, 0, "fix forks: ...nothing left to do");

	/* perf record killed: size 0, a partial record at the end */
	strbuf_reset(&sb);
	pd_file(&sb, 0);
	strbuf_add(&sb, "\x09\0\0\0\0\0\x40\0abc", 11);
	write_file(path, &sb);
	TAP_INT(perfdata_recover(path), PD_RECORDS,
		"recover: the whole records kept");
	strbuf_reset(&out);
	strbuf_read_file(&out, path, 1 << 20);
	TAP_INT(u64_at(&out, 48), PD_RECORDS, "recover: data size set");
	TAP_INT(out.len, 104 + PD_RECORDS + 16,
		"recover: partial record cut, a section table added");
	TAP_INT(u64_at(&out, 72), 4, "recover: only the build-id feature");
	TAP_INT(u64_at(&out, 104 + PD_RECORDS), 104 + PD_RECORDS + 16,
		"recover: ...its (empty) section after the table");
	TAP_INT(u64_at(&out, 104 + PD_RECORDS + 8), 0,
		"recover: ...of size 0");
	TAP_INT(perfdata_recover(path), 0,
		"recover: a finished file is left alone");

	strbuf_reset(&sb);
	strbuf_addstr(&sb, "not perf data at all, but long enough to be "
		      "read as a header of one hundred and four bytes.....");
	write_file(path, &sb);
	TAP_INT(perfdata_recover(path), -EINVAL,
		"recover: not perf.data");
	TAP_INT(perfdata_fix_exec_forks(path, NULL, NULL), 0,
		"fix forks: not perf.data is left alone");

	paths_remove_tree(dir);
	free(path);
	strbuf_release(&sb);
	strbuf_release(&out);
}

int main(void)
{
	test_meta();
	test_hints();
	test_repair();
	test_perf_data();
	test_session_dirs();
	return tap_done();
}
