/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/perfwrite: a perf.data with two events (a
 * cpu-clock event with call chains, raw data, user registers and stack
 * dumps, and an offcpu-time event), told apart by
 * PERF_SAMPLE_IDENTIFIER, and every record kind the writer makes, read
 * back through lib/perfdata.h record by record: fields, sample_id
 * trailers, features.  Then the real perf reads it: `perf script -i`
 * and `perf report --stdio -i` must succeed and say nothing about the
 * file on stderr.  Also: the file appears only at close (a temporary
 * name before, mode 0600), and an abort leaves nothing.
 */
#include "compat.h"
#include "byteorder.h"
#include "perfdata.h"
#include "perfwrite.h"
#include "spawn.h"
#include "strbuf.h"
#include "tap.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define CTX_KERNEL ((uint64_t)-128)
#define NR_REGS 20			/* bits of 0xff0fff */
#define STACK 64

static char dir[64];

/* Files in dir (the temporary one included). */
static int count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void attrs(struct perf_event_attr *cpu, struct perf_event_attr *off)
{
	memset(cpu, 0, sizeof(*cpu));
	cpu->type = PERF_TYPE_SOFTWARE;
	cpu->config = PERF_COUNT_SW_CPU_CLOCK;
	cpu->freq = 1;
	cpu->sample_freq = 999;
	cpu->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
			   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	cpu->sample_regs_user = 0xff0fff;
	cpu->sample_stack_user = STACK;
	cpu->exclude_callchain_user = 1;
	cpu->sample_id_all = 1;
	cpu->mmap = cpu->mmap2 = cpu->comm = cpu->comm_exec = cpu->task = 1;
	*off = *cpu;
	off->config = PERF_COUNT_SW_BPF_OUTPUT;
	off->freq = 0;
	off->sample_period = 1;
	off->mmap = off->mmap2 = off->comm = off->comm_exec = off->task = 0;
}

static int write_file_ok(const char *path, uint64_t *cpu_id,
			 uint64_t *off_id)
{
	struct perf_event_attr ca, oa;
	struct perfwrite *w;
	char err[PPR_ERR_LEN];
	struct pw_id id = { 100, 100, 1000, 1 };
	struct pw_id kid = { (uint32_t)-1, 0, 0, 0 };
	uint64_t text = 0;
	struct pw_mmap2 m;
	struct pw_sample s;
	uint64_t regs[NR_REGS], chain[3];
	unsigned char stack[STACK], raw[13];
	const char *argv[] = { "pyperf-run", "record", "x.py", NULL };
	struct stat st;
	int i, ok = 1;

	attrs(&ca, &oa);
	if (perfwrite_open(&w, path, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return 0;
	}
	ok &= perfwrite_add_attr(w, &ca, "cpu-clock", cpu_id, err,
				 sizeof(err)) == 0;
	ok &= perfwrite_add_attr(w, &oa, "offcpu-time", off_id, err,
				 sizeof(err)) == 0;
	perfwrite_set_cmdline(w, argv);
	/* not in place until closed */
	TAP_OK(access(path, F_OK) < 0 && count_files() == 1,
	       "only a temporary file while writing");
	/* the kernel's map first, as perf record writes it */
	TAP_OK(perfwrite_kernel_text("/proc/kallsyms", &text) == 0 &&
	       text >= 0xffff000000000000ull, "_text in /proc/kallsyms");
	ok &= perfwrite_kernel_mmap(w, text, &kid, err, sizeof(err)) == 0;
	ok &= perfwrite_comm(w, 100, 100, "python3-with-a-long-name", 1, &id,
			     err, sizeof(err)) == 0;
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 100;
	m.start = 0x400000;
	m.len = 0x2000;
	m.pgoff = 0x1000;
	m.maj = 8;
	m.min = 1;
	m.ino = 1234;
	m.prot = 5;
	m.flags = 2;
	m.filename = "/usr/bin/python3.11";
	m.misc = PERF_RECORD_MISC_USER;
	id.time = 1001;
	ok &= perfwrite_mmap2(w, &m, &id, err, sizeof(err)) == 0;
	id.time = 1002;
	ok &= perfwrite_task(w, PERF_RECORD_FORK, 101, 100, 101, 100, &id,
			     err, sizeof(err)) == 0;
	for (i = 0; i < NR_REGS; i++)
		regs[i] = 0x1000 + i;
	regs[7] = 0x7ffc0000;		/* sp */
	regs[8] = 0x401000;		/* ip */
	for (i = 0; i < STACK; i++)
		stack[i] = (unsigned char)i;
	for (i = 0; i < (int)sizeof(raw); i++)
		raw[i] = (unsigned char)(0xa0 + i);
	chain[0] = CTX_KERNEL;
	chain[1] = 0xffffffff81000010ull;
	chain[2] = 0xffffffff81000020ull;
	memset(&s, 0, sizeof(s));
	s.id = *cpu_id;
	s.misc = PERF_RECORD_MISC_USER;
	s.ip = regs[8];
	s.pid = 100;
	s.tid = 100;
	s.time = 2000;
	s.cpu = 1;
	s.period = 1;
	s.raw = raw;
	s.raw_len = sizeof(raw);
	s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.regs = regs;
	s.stack = stack;
	s.stack_size = STACK;
	s.dyn_size = 40;
	ok &= perfwrite_sample(w, &s, err, sizeof(err)) == 0;
	ok &= perfwrite_finished_round(w, err, sizeof(err)) == 0;
	/* off-CPU: in the kernel, a kernel chain, the whole dump copied */
	s.id = *off_id;
	s.misc = PERF_RECORD_MISC_KERNEL;
	s.ip = chain[1];
	s.time = 3000;
	s.period = 5000000;
	s.callchain = chain;
	s.nr_callchain = 3;
	s.raw_len = 0;
	s.dyn_size = STACK;
	ok &= perfwrite_sample(w, &s, err, sizeof(err)) == 0;
	/* no user registers: no dump either */
	s.id = *cpu_id;
	s.time = 3500;
	s.regs_abi = 0;
	s.period = 1;
	ok &= perfwrite_sample(w, &s, err, sizeof(err)) == 0;
	id.time = 3600;
	ok &= perfwrite_lost(w, *cpu_id, 7, &id, err, sizeof(err)) == 0;
	id.time = 4000;
	ok &= perfwrite_task(w, PERF_RECORD_EXIT, 100, 100, 100, 100, &id,
			     err, sizeof(err)) == 0;
	ok &= perfwrite_finished_round(w, err, sizeof(err)) == 0;
	/* refused: unknown id, misaligned dump, a record too big */
	s.id = 99;
	TAP_OK(perfwrite_sample(w, &s, err, sizeof(err)) < 0 &&
	       strstr(err, "unknown event id"), "unknown event refused: %s",
	       err);
	s.id = *cpu_id;
	s.regs_abi = PERF_SAMPLE_REGS_ABI_64;
	s.stack_size = 12;
	TAP_OK(perfwrite_sample(w, &s, err, sizeof(err)) < 0,
	       "misaligned stack dump refused: %s", err);
	s.stack_size = PW_RECORD_MAX;
	s.dyn_size = 0;
	TAP_OK(perfwrite_sample(w, &s, err, sizeof(err)) < 0 &&
	       strstr(err, "at most"), "oversized record refused: %s", err);
	TAP_OK(perfwrite_add_attr(w, &ca, "late", cpu_id, err,
				  sizeof(err)) < 0, "no event after records");
	TAP_OK(ok, "records written");
	ok = perfwrite_close(w, err, sizeof(err)) == 0;
	TAP_OK(ok, "closed: %s", ok ? "" : err);
	TAP_OK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
	       "perf.data in place, mode 0600");
	TAP_INT(count_files(), 1, "no temporary file left");
	return ok;
}

static void read_back(const char *path, uint64_t cpu_id, uint64_t off_id)
{
	static const uint32_t want[] = {
		PD_RECORD_MMAP, PD_RECORD_COMM, PD_RECORD_MMAP2,
		PD_RECORD_FORK,
		PD_RECORD_SAMPLE, PD_RECORD_FINISHED_ROUND, PD_RECORD_SAMPLE,
		PD_RECORD_SAMPLE, PD_RECORD_LOST, PD_RECORD_EXIT,
		PD_RECORD_FINISHED_ROUND,
	};
	struct perfdata d;
	struct pd_record r;
	struct pd_sample s;
	struct pd_mmap m;
	struct pd_comm c;
	struct pd_task t;
	const unsigned char *p;
	size_t len, n = 0, i;
	char err[PPR_ERR_LEN];
	uint64_t time;
	int types_ok = 1;

	if (perfdata_open(&d, path, err, sizeof(err)) < 0) {
		TAP_OK(0, "perfdata_open: %s", err);
		return;
	}
	TAP_INT(d.nr_attrs, 2, "two events");
	TAP_OK(d.attrs[0].nr_ids == 1 && d.attrs[1].nr_ids == 1 &&
	       get_le64((const unsigned char *)d.attrs[0].ids) == cpu_id &&
	       get_le64((const unsigned char *)d.attrs[1].ids) == off_id,
	       "each event has its id");
	TAP_INT(d.attrs[0].sample_stack_user, STACK, "dump size in the attr");
	TAP_INT(d.attrs[0].sp_index, 7, "stack pointer among the registers");
	while (perfdata_next_record(&d, &r) > 0) {
		if (n >= ARRAY_SIZE(want) || r.type != want[n])
			types_ok = 0;
		switch (n++) {
		case 0:
			TAP_OK(!perfdata_decode_mmap(&r, &m) && m.pid == -1 &&
			       (r.misc & 7) == PERF_RECORD_MISC_KERNEL &&
			       m.pgoff == m.start && m.start + m.len ==
			       ~(uint64_t)0 &&
			       !strcmp(m.filename, "[kernel.kallsyms]_text"),
			       "kernel map");
			break;
		case 1:
			TAP_OK(!perfdata_decode_comm(&r, &c) && c.exec &&
			       c.pid == 100 && !strcmp(c.comm,
						       "python3-with-a-"),
			       "comm, exec, cut to 15 bytes like the kernel's");
			TAP_OK(!perfdata_record_time(&d, &r, &time) &&
			       time == 1000, "comm's sample_id time");
			break;
		case 2:
			TAP_OK(!perfdata_decode_mmap(&r, &m) &&
			       m.start == 0x400000 && m.len == 0x2000 &&
			       m.pgoff == 0x1000 && m.prot == 5 &&
			       m.flags == 2 && m.exec &&
			       !strcmp(m.filename, "/usr/bin/python3.11") &&
			       get_le32(r.body + 32) == 8 &&
			       get_le64(r.body + 40) == 1234,
			       "mmap2 fields");
			TAP_OK(!perfdata_record_time(&d, &r, &time) &&
			       time == 1001, "mmap2's sample_id time");
			break;
		case 3:
			TAP_OK(!perfdata_decode_task(&r, &t) && t.pid == 101 &&
			       t.ppid == 100 && t.time == 1002, "fork");
			break;
		case 4:
			TAP_OK(!perfdata_decode_sample(&d, r.body, r.len, &s),
			       "sample decodes");
			TAP_OK(s.attr == &d.attrs[0] && s.ip == 0x401000 &&
			       s.pid == 100 && s.time == 2000 &&
			       s.period == 1 && s.nr_callchain == 0 &&
			       (r.misc & 7) == PERF_RECORD_MISC_USER,
			       "cpu-clock sample fields");
			TAP_OK(s.nr_regs == NR_REGS && s.regs_abi == 2 &&
			       get_le64(s.regs + 8 * 19) == 0x1000 + 19 &&
			       s.have_sp && s.user_sp == 0x7ffc0000,
			       "user registers");
			TAP_OK(s.have_stack && s.stack_size == STACK &&
			       s.dyn_size == 40 && s.stack[39] == 39 &&
			       s.stack[40] == 0, "stack dump: 40 of 64 bytes");
			/* raw: after identifier .. period and the chain */
			p = r.body + 8 * 6 + 8;
			TAP_OK(get_le32(p) == 20 && p[4] == 0xa0 &&
			       p[4 + 12] == 0xac && p[4 + 13] == 0,
			       "raw: 13 bytes padded to 20");
			break;
		case 6:
			TAP_OK(!perfdata_decode_sample(&d, r.body, r.len, &s) &&
			       s.attr == &d.attrs[1] && s.period == 5000000 &&
			       s.nr_callchain == 3 &&
			       get_le64(s.callchain) == CTX_KERNEL &&
			       get_le64(s.callchain + 16) ==
			       0xffffffff81000020ull &&
			       s.dyn_size == STACK &&
			       (r.misc & 7) == PERF_RECORD_MISC_KERNEL,
			       "offcpu-time sample told apart by its id");
			break;
		case 7:
			TAP_OK(!perfdata_decode_sample(&d, r.body, r.len, &s) &&
			       s.regs_abi == 0 && !s.have_stack &&
			       s.time == 3500, "no registers, no dump");
			break;
		}
	}
	TAP_OK(types_ok && n == ARRAY_SIZE(want),
	       "every record, in order (%zu)", n);
	TAP_INT(d.lost, 7, "lost count");
	TAP_OK(perfdata_feature(&d, PD_FEAT_CMDLINE, &p, &len) == 1 &&
	       len >= 4 + 3 * 68 && get_le32(p) == 3 &&
	       !strcmp((const char *)p + 8, "pyperf-run"),
	       "cmdline feature");
	/* the feature bits written: hostname .. event desc, sample time */
	for (i = 3; i <= 7; i++)
		TAP_OK(perfdata_feature(&d, (unsigned)i, &p, &len) == 1 &&
		       len >= 4, "feature %zu", i);
	TAP_OK(perfdata_feature(&d, 12, &p, &len) == 1 &&
	       get_le32(p) == 2 && get_le32(p + 4) ==
	       sizeof(struct perf_event_attr), "event desc: two events");
	TAP_OK(perfdata_feature(&d, 21, &p, &len) == 1 && len == 16 &&
	       get_le64(p) == 2000 && get_le64(p + 8) == 3500,
	       "sample time: first and last");
	perfdata_close(&d);
}

/*
 * perf's words for a file it does not like, apart from its warning
 * about the one lost-records record the file has on purpose ("lost 1
 * chunks!", "Check IO/CPU overload!"), which must be there.
 */
static int complains_about(const char *s);

static int complains(const char *s)
{
	const char *lost = strstr(s, "Warning:\nProcessed 11 events and "
				  "lost 1 chunks!");
	const char *io = lost ? strstr(lost, "Check IO/CPU overload!") : NULL;
	struct strbuf rest = STRBUF_INIT;
	int r;

	if (!io)
		return 1;
	strbuf_add(&rest, s, (size_t)(lost - s));
	strbuf_addstr(&rest, io + strlen("Check IO/CPU overload!"));
	r = complains_about(rest.buf);
	strbuf_release(&rest);
	return r;
}

static int complains_about(const char *s)
{
	static const char *const bad[] = {
		"arning", "rror", "nvalid", "ailed", "orrupt", "nknown",
		"can't", "cannot", "Can't", "Cannot", "ncompatible",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (strstr(s, bad[i]))
			return 1;
	return 0;
}

static void run_perf(const char *path)
{
	const char *script[] = { "perf", "script", "-i", path,
				 "--show-task-events", NULL };
	const char *report[] = { "perf", "report", "--stdio", "-i", path,
				 "--sort", "comm,pid", NULL };
	const char *header[] = { "perf", "report", "--header-only", "-i",
				 path, NULL };
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	int st;

	st = spawn_capture(script, NULL, &out, &errout, 1 << 20, err,
			   sizeof(err));
	TAP_OK(st == 0 && !complains(errout.buf), "perf script reads it");
	if (st || complains(errout.buf))
		printf("# status %d\n# stderr: %s\n", st, errout.buf);
	TAP_OK(strstr(out.buf, "cpu-clock") && strstr(out.buf, "offcpu-time") &&
	       strstr(out.buf, "PERF_RECORD_FORK") &&
	       strstr(out.buf, "PERF_RECORD_COMM exec"),
	       "perf script: both events by name, task events");
	if (!strstr(out.buf, "offcpu-time"))
		printf("# stdout: %s\n", out.buf);
	strbuf_reset(&out);
	strbuf_reset(&errout);
	st = spawn_capture(report, NULL, &out, &errout, 1 << 20, err,
			   sizeof(err));
	TAP_OK(st == 0 && !complains(errout.buf) &&
	       strstr(out.buf, "of event 'cpu-clock'") &&
	       strstr(out.buf, "of event 'offcpu-time'"),
	       "perf report --stdio reads it");
	if (st || complains(errout.buf) || !strstr(out.buf, "offcpu-time"))
		printf("# status %d\n# stderr: %s\n# stdout: %s\n", st,
		       errout.buf, out.buf);
	strbuf_reset(&out);
	strbuf_reset(&errout);
	st = spawn_capture(header, NULL, &out, &errout, 1 << 20, err,
			   sizeof(err));
	TAP_OK(st == 0 &&
	       strstr(out.buf, "# cmdline : pyperf-run record x.py") &&
	       strstr(out.buf, "# arch : ") &&
	       strstr(out.buf, "# nrcpus online : ") &&
	       strstr(out.buf, "# os release : "),
	       "perf report --header-only: cmdline, arch, cpus, release");
	if (st || !strstr(out.buf, "# cmdline"))
		printf("# status %d\n# stderr: %s\n# stdout: %s\n", st,
		       errout.buf, out.buf);
	strbuf_release(&out);
	strbuf_release(&errout);
}

static void abort_leaves_nothing(void)
{
	struct perfwrite *w;
	struct perf_event_attr ca, oa;
	char err[PPR_ERR_LEN], *path = NULL;
	uint64_t id;

	attrs(&ca, &oa);
	if (asprintf(&path, "%s/aborted.data", dir) < 0)
		abort();
	TAP_OK(perfwrite_open(&w, path, err, sizeof(err)) == 0 &&
	       perfwrite_add_attr(w, &ca, "cpu-clock", &id, err,
				  sizeof(err)) == 0, "second file");
	ca.sample_type |= PERF_SAMPLE_ADDR;
	TAP_OK(perfwrite_add_attr(w, &ca, "x", &id, err, sizeof(err)) < 0 &&
	       strstr(err, "does not lay out"), "unsupported field refused");
	ca.sample_type &= ~(uint64_t)(PERF_SAMPLE_ADDR |
				      PERF_SAMPLE_IDENTIFIER);
	TAP_OK(perfwrite_add_attr(w, &ca, "x", &id, err, sizeof(err)) < 0 &&
	       strstr(err, "IDENTIFIER"), "second event without identifier");
	perfwrite_abort(w);
	TAP_OK(access(path, F_OK) < 0 && count_files() == 1,
	       "abort leaves nothing");
	free(path);
}

static int take_one(void *data, const void *rec, size_t len)
{
	int *n = data;

	/* the first record, whole; then the reader stops */
	if (!(*n)++ && len == 24 + 32 &&
	    get_le32(rec) == PERF_RECORD_COMM)
		return 0;
	return -1;
}

/* Stream mode: records handed over, the image, a reader that stops. */
static void stream(void)
{
	struct perf_event_attr ca, oa;
	struct perfwrite *w;
	struct perfdata d;
	unsigned char *image = NULL;
	size_t len = 0;
	uint64_t id;
	char err[PPR_ERR_LEN];
	int n = 0;

	attrs(&ca, &oa);
	perfwrite_open_stream(&w, take_one, &n);
	TAP_OK(perfwrite_add_attr(w, &ca, "cpu-clock", &id, err,
				  sizeof(err)) == 0 &&
	       perfwrite_image(w, &image, &len, err, sizeof(err)) == 0 &&
	       perfdata_open_mem(&d, image, len, err, sizeof(err)) == 0 &&
	       d.nr_attrs == 1 && d.attrs[0].sample_stack_user == STACK &&
	       d.data_end == d.data_off && d.data_off < len &&
	       d.attrs[0].name && !strcmp(d.attrs[0].name, "cpu-clock"),
	       "stream: the image decodes, no records, the events named");
	perfdata_close(&d);
	TAP_OK(perfwrite_comm(w, 1, 1, "x", 0, NULL, err, sizeof(err)) == 0,
	       "stream: a record handed over");
	TAP_OK(perfwrite_comm(w, 1, 1, "x", 0, NULL, err, sizeof(err)) < 0 &&
	       strstr(err, "stopped") &&
	       perfwrite_comm(w, 1, 1, "x", 0, NULL, err, sizeof(err)) < 0 &&
	       n == 2, "stream: the reader stopped, nothing more is made");
	TAP_OK(perfwrite_close(w, err, sizeof(err)) == 0 && count_files() == 0,
	       "stream: closed, no file");
	free(image);
}

/* _text from kallsyms files: shown, hidden (kptr_restrict), missing. */
static void kernel_text(void)
{
	char *path = NULL;
	uint64_t text = 0;
	FILE *f;

	if (asprintf(&path, "%s/kallsyms", dir) < 0)
		abort();
	f = fopen(path, "w");
	fputs("0000000000000000 A fixed_percpu_data\n"
	      "ffffffffa1000000 T startup_64\n"
	      "ffffffffa1000000 T _text\n", f);
	fclose(f);
	TAP_OK(perfwrite_kernel_text(path, &text) == 0 &&
	       text == 0xffffffffa1000000ull, "_text found");
	f = fopen(path, "w");
	fputs("0000000000000000 T startup_64\n"
	      "0000000000000000 T _text\n", f);
	fclose(f);
	TAP_INT(perfwrite_kernel_text(path, &text), -ENOENT,
		"hidden addresses: not found");
	unlink(path);
	TAP_INT(perfwrite_kernel_text(path, &text), -ENOENT, "no file");
	free(path);
}

int main(void)
{
	char *path = NULL;
	uint64_t cpu_id = 0, off_id = 0;

	snprintf(dir, sizeof(dir), "/tmp/t-perfwrite-XXXXXX");
	if (!mkdtemp(dir) || asprintf(&path, "%s/perf.data", dir) < 0)
		return 1;
	if (write_file_ok(path, &cpu_id, &off_id)) {
		read_back(path, cpu_id, off_id);
		run_perf(path);
	}
	abort_leaves_nothing();
	kernel_text();
	unlink(path);
	stream();
	rmdir(dir);
	free(path);
	return tap_done();
}
