/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/perfdata.c's repairs of a recording: the exec-fork
 * fix (in plain and compressed data) and the recovery of an unfinished
 * perf.data.
 */
#include "compat.h"
#include "alloc.h"
#include "paths.h"
#include "perfdata.h"
#include "perfwrite.h"
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

/*
 * Per-CPU buffers interleave: a child's exec can come before its fork in
 * the file.  The fork must still be marked.
 */
static void test_exec_before_fork(void)
{
	static const uint32_t comm_sp[] = { 200, 200, 0x6f6f66, 0 };
	static const uint32_t fork_sp[] = { 200, 100, 200, 100, 0, 0 };
	static const uint32_t fork_fk[] = { 300, 100, 300, 100, 0, 0 };
	char dir[] = "/tmp/t-perfdata-fix-XXXXXX";
	struct strbuf sb = STRBUF_INIT, out = STRBUF_INIT;
	unsigned fixed = 99;
	char *path;
	int i;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "exec before fork: cannot make a directory");
		return;
	}
	path = xasprintf("%s/perf.data", dir);
	put64(&sb, 0x32454c4946524550ull);
	put64(&sb, 104);
	put64(&sb, 136);
	put64(&sb, 0);
	put64(&sb, 0);
	put64(&sb, 104);
	put64(&sb, 24 + 32 + 32);
	put64(&sb, 0);
	put64(&sb, 0);
	for (i = 0; i < 4; i++)
		put64(&sb, 0);
	pd_record(&sb, 3, 0x2000, comm_sp, 4);	/* 24: exec of 200 */
	pd_record(&sb, 7, 0, fork_sp, 6);	/* 32: its fork, after it */
	pd_record(&sb, 7, 0, fork_fk, 6);	/* 32: forked, no exec */
	write_file(path, &sb);
	TAP_INT(perfdata_fix_exec_forks(path, NULL, 0, &fixed), 0,
		"exec before fork: ok");
	TAP_INT(fixed, 1, "exec before fork: one fork marked");
	strbuf_read_file(&out, path, 1 << 20);
	TAP_INT(misc_at(&out, 104 + 24), 0x2000,
		"exec before fork: the exec'd child's fork is marked");
	TAP_INT(misc_at(&out, 104 + 56), 0, "exec before fork: plain fork kept");
	unlink(path);
	rmdir(dir);
	free(path);
	strbuf_release(&sb);
	strbuf_release(&out);
}

static void test_perf_data(void)
{
	char dir[] = "/tmp/t-perfdata-fix-XXXXXX";
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
	TAP_INT(perfdata_fix_exec_forks(path, &scan, 0, &fixed), 0,
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
	TAP_INT(perfdata_fix_exec_forks(path, NULL, 0, &fixed), 0,
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
	TAP_INT(perfdata_fix_exec_forks(path, NULL, 0, NULL), 0,
		"fix forks: not perf.data is left alone");

	paths_remove_tree(dir);
	free(path);
	strbuf_release(&sb);
	strbuf_release(&out);
}

#ifdef PPR_HAVE_ZSTD
/* The FORK records of a file as perfdata reads them: misc by child pid. */
static int fork_misc(const char *path, uint32_t pid, unsigned *records)
{
	struct perfdata d;
	struct pd_record r;
	char err[256];
	int misc = -1;

	*records = 0;
	if (perfdata_open(&d, path, err, sizeof(err)) < 0)
		return -2;
	while (perfdata_next_record(&d, &r) > 0) {
		uint32_t p;

		(*records)++;
		if (r.type != 7 || r.len < 4)
			continue;
		memcpy(&p, r.body, 4);
		if (p == pid)
			misc = r.misc;
	}
	perfdata_close(&d);
	return misc;
}

/*
 * Compressed (perf record -z): the fork of the process that execs is
 * marked inside the zstd stream (the file written again), the fork in
 * another compressed record than its exec, some 400 KB of records
 * between them; only when asked (in_compressed).
 */
static void test_compressed(void)
{
	char dir[] = "/tmp/t-perfdata-fix-XXXXXX";
	struct perf_event_attr a;
	struct perfwrite *w;
	struct pw_id from = { 100, 100, 1000, 0 };
	char err[256], *path, name[64];
	uint64_t id;
	unsigned fixed = 99, records, before;
	struct perfdata_scan scan;
	int i, ok = 1, seen[4] = { 0 };
	size_t k;

	if (!mkdtemp(dir)) {
		TAP_OK(0, "compressed: cannot make a directory");
		return;
	}
	path = xasprintf("%s/perf.data", dir);
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	ok &= perfwrite_open(&w, path, err, sizeof(err)) == 0;
	ok &= ok && perfwrite_compress(w, 1) == 0;
	ok &= ok && perfwrite_add_attr(w, &a, "cpu-clock", &id, err,
				       sizeof(err)) == 0;
	ok &= ok && perfwrite_task(w, 7, 200, 100, 200, 100, &from, err,
				   sizeof(err)) == 0;
	ok &= ok && perfwrite_finished_round(w, err, sizeof(err)) == 0;
	/* 400 KB of records: more than one compressed record */
	for (i = 0; ok && i < 5000; i++) {
		snprintf(name, sizeof(name), "thread-%d-%040d", i, i);
		ok &= perfwrite_comm(w, 100, (uint32_t)(1000 + i), name, 0,
				     &from, err, sizeof(err)) == 0;
	}
	ok &= ok && perfwrite_task(w, 7, 300, 100, 300, 100, &from, err,
				   sizeof(err)) == 0;
	ok &= ok && perfwrite_comm(w, 200, 200, "foo", 1, &from, err,
				   sizeof(err)) == 0;
	ok &= ok && perfwrite_close(w, err, sizeof(err)) == 0;
	TAP_OK(ok, "compressed: written (%s)", ok ? "ok" : err);
	before = 0;
	TAP_INT(fork_misc(path, 200, &before), 0,
		"compressed: the fork is not marked yet");
	TAP_INT(perfdata_fix_exec_forks(path, NULL, 0, &fixed), 0,
		"compressed, not asked: ok");
	TAP_INT(fixed, 0, "compressed, not asked: nothing marked");
	perfdata_scan_init(&scan);
	TAP_INT(perfdata_fix_exec_forks(path, &scan, 1, &fixed), 0,
		"compressed: ok");
	TAP_INT(fixed, 1, "compressed: one fork marked");
	for (k = 0; k < scan.nr_pids; k++)
		seen[scan.pids[k] == 100 ? 0 : scan.pids[k] == 200 ? 1 :
		     scan.pids[k] == 300 ? 2 : 3]++;
	TAP_OK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && !seen[3],
	       "compressed: the pids counted as it read, once each");
	perfdata_scan_release(&scan);
	TAP_INT(fork_misc(path, 200, &records), 0x2000,
		"compressed: the exec'd child's fork is marked");
	TAP_INT(records, before, "compressed: every record still read");
	TAP_INT(fork_misc(path, 300, &records), 0,
		"compressed: the plain fork is kept");
	TAP_INT(perfdata_fix_exec_forks(path, NULL, 1, &fixed), 0,
		"compressed: again");
	TAP_INT(fixed, 0, "compressed: ...nothing left to do");
	paths_remove_tree(dir);
	free(path);
}
#endif

int main(void)
{
	test_perf_data();
	test_exec_before_fork();
#ifdef PPR_HAVE_ZSTD
	test_compressed();
#endif
	return tap_done();
}
