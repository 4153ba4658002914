/*
 * Unit tests for lib/session.c and lib/record.c (owner: record): the
 * meta file, the perf script scan, the stack size suggestion and the
 * jitdump repair.
 */
#include "../../lib/compat.h"
#include "../../lib/alloc.h"
#include "../../lib/paths.h"
#include "../../lib/record.h"
#include "../../lib/session.h"
#include "../../lib/strbuf.h"
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

static const char script_text[] =
	"    0/0     PERF_RECORD_COMM: perf-exec:100/100\n"
	"100/100 PERF_RECORD_COMM exec: python3.13:100/100\n"
	"100/100 \n"
	"\t          16b6a5 _PyObject_Malloc\n"
	"\t              85 py::foo:/x/t.py\n"
	"\t          2bc5f0 py_trampoline_evaluator\n"
	"\t           27249 __libc_start_call_main\n"
	"\n"
	"    0/0     PERF_RECORD_FORK(101:101):(100:100)\n"
	"101/101 \n"
	"\tffffffff8174e708 locks_remove_posix\n"
	"\t              85 py::bar:/x/t.py\n"
	"\t          8e60a _PyEval_EvalFrameDefault\n"
	"\n"
	"101/102 \n"
	"\tffffffff8174e708 locks_remove_posix\n"
	"\n"
	"100/100 \n"
	"\t          144cc __tls_get_addr\n"
	"\n"
	"100/103 \n"
	"\t           891f4 start_thread\n"
	"\t           aaaaa clone3\n"
	"\t              85 py::baz:/x/t.py\n";

static void test_scan(void)
{
	struct record_scan s;
	struct strbuf pending = STRBUF_INIT;
	size_t half = sizeof(script_text) / 2;

	record_scan_init(&s);
	/* fed in two pieces that cut a line in half */
	record_scan_feed(&s, &pending, script_text, half);
	record_scan_feed(&s, &pending, script_text + half,
			 sizeof(script_text) - 1 - half);
	if (pending.len)
		record_scan_line(&s, pending.buf, pending.len);
	record_scan_finish(&s);
	TAP_INT(s.nr_pids, 2, "scan: two pids");
	TAP_INT(s.pids[0], 100, "scan: the first pid");
	TAP_INT(s.pids[1], 101, "scan: the forked child");
	TAP_INT(s.samples, 5, "scan: every sample counted");
	TAP_INT(s.python_samples, 3, "scan: samples with py:: frames");
	/* kernel-only and single-frame samples do not count */
	TAP_INT(s.user_samples, 3, "scan: samples with user stacks");
	TAP_INT(s.truncated, 2, "scan: incomplete stacks");
	TAP_INT(s.truncated_py, 1, "scan: ...one ending at a py:: frame");
	record_scan_release(&s);
	strbuf_release(&pending);

	TAP_OK(record_is_root_symbol("__libc_start_main@@GLIBC_2.34"),
	       "root: versioned symbol");
	TAP_OK(!record_is_root_symbol("_start_x"), "root: not a prefix match");
	TAP_INT(record_suggest_stack_size(16384), 32768, "suggest: doubles");
	TAP_INT(record_suggest_stack_size(40000), 65528, "suggest: capped");
	TAP_INT(record_suggest_stack_size(65528), 0, "suggest: at the max");
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

int main(void)
{
	test_meta();
	test_scan();
	test_repair();
	test_session_dirs();
	return tap_done();
}
