/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of the walker's recording (lib/walker/wconv.h): events
 * built with the ABI's structs go through the conversion and the
 * perf.data it writes is read back through lib/perfdata.h.
 *
 * 1. Synthetic events against a fake /proc tree: events fed out of
 *    order come out sorted, the newest held back until the next flush,
 *    one late event counted; the first sample of a process brings its
 *    COMM and executable mappings, a new thread its COMM, a sample in
 *    code loaded later a re-read that writes only the new mapping;
 *    samples with their registers, stack dumps (full or not), kernel
 *    call chains and raw Python frames; off-CPU intervals paired by
 *    thread (and one still open at the end); fork, exec, exit, lost;
 *    the hooks; the statistics; a bad event.
 * 2. A real interpreter: Debian's python3 stopped with ptrace in a
 *    Python loop, its registers and stack made into one walker sample;
 *    perf script must unwind it from the dump through
 *    _PyEval_EvalFrameDefault up to Py_RunMain, and so must our own
 *    reader (native_load()), and perf report read the file without a
 *    complaint.
 */
#include "compat.h"
#include "byteorder.h"
#include "fileio.h"
#include "perfdata.h"
#include "report/src_native.h"
#include "spawn.h"
#include "strbuf.h"
#include "tap.h"
#include "walker_events.h"
#include "walker/wconv.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull
#define T0 (1000 * MS)
#define CTX_KERNEL ((uint64_t)-128)
#define CTX_USER ((uint64_t)-512)

static char dir[64];

static void feed(struct wconv *c, struct ev e)
{
	if (wconv_event(c, e.buf, e.len) < 0)
		printf("# event refused: %s\n", wconv_stats(c)->first_bad);
	ev_free(&e);
}

/* --- a fake /proc -------------------------------------------------------- */

static void put_file(const char *rel, const char *text)
{
	char *path = NULL, *slash;

	if (asprintf(&path, "%s/proc/%s", dir, rel) < 0)
		abort();
	for (slash = path + strlen(dir) + 1; (slash = strchr(slash, '/'));
	     slash++) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	if (write_file(path, text, strlen(text), 0600, 0))
		abort();
	free(path);
}

/* --- hooks --------------------------------------------------------------- */

struct seen {
	int no_proc, exec, fork, exit, frames;
	pid_t no_proc_pid, exec_pid, fork_parent, fork_child, exit_pid;
	uint64_t first_code;
	uint16_t first_tag;
};

static void h_no_proc(void *data, pid_t pid)
{
	struct seen *s = data;

	s->no_proc++;
	s->no_proc_pid = pid;
}

static void h_exec(void *data, pid_t pid)
{
	struct seen *s = data;

	s->exec++;
	s->exec_pid = pid;
}

static void h_fork(void *data, pid_t parent, pid_t child)
{
	struct seen *s = data;

	s->fork++;
	s->fork_parent = parent;
	s->fork_child = child;
}

static void h_exit(void *data, pid_t pid)
{
	struct seen *s = data;

	s->exit++;
	s->exit_pid = pid;
}

static void h_frame(void *data, pid_t pid, const struct walker_py_frame *f)
{
	struct seen *s = data;

	if (!s->frames++) {
		s->first_code = f->code;
		s->first_tag = f->tag;
	}
}

/* --- 1. synthetic events ------------------------------------------------ */

static const char maps100[] =
	"00400000-00401000 r--p 00000000 08:01 1234 /usr/bin/fakeprog\n"
	"00401000-00403000 r-xp 00001000 08:01 1234 /usr/bin/fakeprog\n"
	"7f0000000000-7f0000010000 r-xp 00000000 08:01 99 /lib/libc.so.6\n"
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n";
static const char libnew[] =
	"7f0000100000-7f0000101000 r-xp 00002000 08:02 77 /lib/libnew.so\n";

/* The raw part of a sample record (after its call chain). */
static const unsigned char *raw_of(const struct pd_record *r,
				   const struct pd_sample *s, uint32_t *len)
{
	const unsigned char *p = r->body + 48 + 8 + 8 * s->nr_callchain;

	*len = get_le32(p);
	return p + 4;
}

struct walk {
	unsigned n[80];			/* records by type */
	unsigned decreases, cpu_samples, off_samples;
	int comm100_before_sample, sample_seen, comm101, exec200;
	int libnew_ok, libnew_count, mmaps200, data_maps;
	int e1_ok, e1_raw_ok, e2_ok, off1_ok, off2_ok, e9_after_e4;
	uint64_t last_time;
};

static void check_sample(struct walk *w, const struct perfdata *d,
			 const struct pd_record *r, const struct pd_sample *s)
{
	const unsigned char *raw;
	struct walker_raw wr;
	struct walker_py_frame f;
	uint32_t rlen;

	raw = raw_of(r, s, &rlen);
	memcpy(&wr, raw, sizeof(wr));
	if (s->attr == &d->attrs[1]) {
		w->off_samples++;
		if (s->time == T0 + 50 * MS)
			w->off1_ok = s->tid == 101 && s->period == 47 * MS &&
				     s->nr_callchain >= 5 &&
				     get_le64(s->callchain) == CTX_KERNEL &&
				     get_le64(s->callchain + 24) ==
				     kframes[2] &&
				     get_le64(s->callchain + 32) == CTX_USER &&
				     wr.prev_state == 1 &&
				     wr.nr_py == 1 &&
				     (r->misc & 7) == PD_MISC_KERNEL;
		if (s->time == T0 + 400 * MS)
			w->off2_ok = s->tid == 100 && s->period == 100 * MS &&
				     wr.nr_py == 0 && wr.prev_state == 2;
		return;
	}
	w->cpu_samples++;
	w->sample_seen = 1;
	if (s->time == T0 + 2 * MS) {
		/* its copy kept, and its user frames unwound as written */
		w->e1_ok = s->tid == 100 && s->ip == 0x401100 &&
			   s->period == 1001001 && s->nr_callchain >= 2 &&
			   get_le64(s->callchain) == CTX_USER &&
			   get_le64(s->callchain + 8) == 0x401100 &&
			   (r->misc & 7) == PD_MISC_USER &&
			   s->regs_abi == 2 && s->nr_regs == WALKER_NR_REGS &&
			   s->user_sp == 0x7ffc00020000ull &&
			   get_le64(s->regs + 8 * 19) == 0x1000 + 19 &&
			   s->have_stack && s->dyn_size == 64 &&
			   s->stack_size == 72 && s->stack[63] == 63;
		memcpy(&f, raw + sizeof(wr) + sizeof(f), sizeof(f));
		w->e1_raw_ok = wr.magic == WALKER_RAW_MAGIC &&
			       wr.version == WALKER_ABI_VERSION &&
			       wr.flags == WALKER_F_UNWOUND && wr.nr_py == 2 &&
			       wr.layout_version == 0x030b02f0 &&
			       rlen == sizeof(wr) + 2 * sizeof(f) +
				       sizeof(struct walker_raw_unwound) + 4 &&
			       get_le32(raw + sizeof(wr) + 2 * sizeof(f)) ==
			       WALKER_RAW_UNWOUND_MAGIC &&
			       f.code == 0x7f0000500100ull && f.instr == 10 &&
			       f.tag == 41 && f.flags == WALKER_PYF_ENTRY;
	} else if (s->time == T0 + 1 * MS) {
		w->e2_ok = s->tid == 101 && s->ip == kframes[0] &&
			   (r->misc & 7) == PD_MISC_KERNEL &&
			   s->nr_callchain >= 4 &&
			   get_le64(s->callchain + 8) == kframes[0] &&
			   get_le64(s->callchain + 24) == CTX_USER &&
			   s->dyn_size == 128 && s->stack_size == 128 &&
			   wr.flags == (WALKER_F_NO_TSTATE |
					WALKER_F_KERNEL_MODE |
					WALKER_F_USTACK_FULL |
					WALKER_F_UNWOUND);
	} else if (s->time == T0 + 60 * MS) {
		w->e9_after_e4 = w->last_time == T0 + 100 * MS;
	}
}

static void walk_file(const char *path, struct walk *w)
{
	struct perfdata d;
	struct pd_record r;
	struct pd_sample s;
	struct pd_mmap m;
	struct pd_comm c;
	char err[PPR_ERR_LEN];
	uint64_t time;

	memset(w, 0, sizeof(*w));
	if (perfdata_open(&d, path, err, sizeof(err)) < 0) {
		printf("# %s\n", err);
		return;
	}
	while (perfdata_next_record(&d, &r) > 0) {
		if (r.type < ARRAY_SIZE(w->n))
			w->n[r.type]++;
		if (r.type != PD_RECORD_FINISHED_ROUND &&
		    !perfdata_record_time(&d, &r, &time)) {
			if (time < w->last_time)
				w->decreases++;
		} else {
			time = w->last_time;
		}
		switch (r.type) {
		case PD_RECORD_SAMPLE:
			if (perfdata_decode_sample(&d, r.body, r.len, &s) == 0)
				check_sample(w, &d, &r, &s);
			break;
		case PD_RECORD_COMM:
			if (perfdata_decode_comm(&r, &c) < 0)
				break;
			if (c.pid == 100 && c.tid == 100 && !w->sample_seen &&
			    !strcmp(c.comm, "fakeprog"))
				w->comm100_before_sample = 1;
			if (c.pid == 100 && c.tid == 101 &&
			    !strcmp(c.comm, "worker"))
				w->comm101 = 1;
			if (c.pid == 200 && c.exec &&
			    !strcmp(c.comm, "python3"))
				w->exec200 = 1;
			break;
		case PD_RECORD_MMAP2:
			if (perfdata_decode_mmap(&r, &m) < 0)
				break;
			if (strstr(m.filename, "libnew")) {
				w->libnew_count++;
				w->libnew_ok = m.pid == 100 &&
					time == T0 + 260 * MS &&
					m.start == 0x7f0000100000ull &&
					m.len == 0x1000 && m.pgoff == 0x2000 &&
					m.prot == 5 && m.flags == 2 &&
					get_le32(r.body + 32) == 8 &&
					get_le32(r.body + 36) == 2 &&
					get_le64(r.body + 40) == 77;
			}
			if (m.pid == 200)
				w->mmaps200++;
			if (!m.exec && m.prot == 1 && m.start == 0x400000 &&
			    !strcmp(m.filename, "/usr/bin/fakeprog"))
				w->data_maps++;
			break;
		}
		w->last_time = time;
	}
	w->n[PD_RECORD_LOST] = (unsigned)d.lost;	/* the count */
	perfdata_close(&d);
}

static void synthetic(void)
{
	struct seen seen;
	struct wconv_opts o;
	struct wconv *c;
	const struct wconv_stats *st;
	struct sample_spec sp;
	unsigned char ustack[128];
	uint64_t regs[WALKER_NR_REGS];
	char err[PPR_ERR_LEN], *path = NULL, *proc = NULL;
	const char *argv[] = { "pyperf-run", "record", "fake", NULL };
	unsigned char bad[24];
	struct walk w;
	unsigned i;
	int ok;

	if (asprintf(&path, "%s/perf.data", dir) < 0 ||
	    asprintf(&proc, "%s/proc", dir) < 0)
		abort();
	put_file("100/maps", maps100);
	put_file("100/comm", "fakeprog\n");
	put_file("100/task/101/comm", "worker\n");
	put_file("200/maps", "00500000-00501000 r-xp 00000000 08:01 5 "
		 "/usr/bin/python3.11\n");
	memset(&seen, 0, sizeof(seen));
	memset(&o, 0, sizeof(o));
	o.perf_data = path;
	o.proc_root = proc;
	o.kallsyms = "/proc/kallsyms";
	o.freq = 999;
	o.wall = 1;	/* the off-CPU events too */
	o.ustack_bytes = 128;
	/* the copies as they are written (record --keep-stack-copy) */
	o.keep_stack_copy = 1;
	o.cmdline = argv;
	o.start_ns = T0;
	o.hooks.data = &seen;
	o.hooks.no_proc = h_no_proc;
	o.hooks.exec = h_exec;
	o.hooks.fork = h_fork;
	o.hooks.exit = h_exit;
	o.hooks.py_frame = h_frame;
	if (wconv_new(&c, &o, err, sizeof(err)) < 0) {
		TAP_OK(0, "wconv_new: %s", err);
		return;
	}
	wconv_set_version(c, 100, 0x030b02f0);
	for (i = 0; i < sizeof(ustack); i++)
		ustack[i] = (unsigned char)i;
	for (i = 0; i < WALKER_NR_REGS; i++)
		regs[i] = 0x1000 + i;
	regs[7] = 0x7ffc00020000ull;
	regs[8] = 0x401100;

	/* batch 1, out of order; e4 (100 ms) is held back */
	memset(&sp, 0, sizeof(sp));
	sp.type = WALKER_EV_SAMPLE;
	sp.pid = sp.tid = 100;
	sp.time = T0 + 2 * MS;
	sp.regs = regs;
	sp.npy = 2;
	sp.ustack = ustack;
	sp.ulen = 64;
	sp.asked = 128;
	feed(c, ev_sample(&sp));				/* e1 */
	sp.tid = 101;
	sp.time = T0 + 1 * MS;
	sp.flags = WALKER_F_NO_TSTATE | WALKER_F_KERNEL_MODE |
		   WALKER_F_USTACK_FULL;
	sp.nk = 2;
	sp.npy = 0;
	sp.ulen = 128;
	feed(c, ev_sample(&sp));				/* e2 */
	sp.type = WALKER_EV_OFFCPU;
	sp.time = T0 + 3 * MS;
	sp.flags = WALKER_F_KERNEL_MODE;
	sp.prev_state = 1;
	sp.nk = 3;
	sp.npy = 1;
	feed(c, ev_sample(&sp));				/* e3 */
	sp.type = WALKER_EV_SAMPLE;
	sp.tid = 100;
	sp.time = T0 + 100 * MS;
	sp.flags = WALKER_F_PY_CUT;
	sp.prev_state = 0;
	sp.nk = 0;
	feed(c, ev_sample(&sp));				/* e4 */
	TAP_OK(wconv_flush(c, err, sizeof(err)) == 0, "flush 1");

	/* batch 2: the switch-in pairs e3; e6 (200 ms) held back */
	feed(c, ev_task(WALKER_EV_ONCPU, T0 + 50 * MS, 100, 101, 0, 0,
			NULL));					/* e5 */
	sp.time = T0 + 200 * MS;
	sp.flags = WALKER_F_NO_PROC;
	sp.npy = 0;
	feed(c, ev_sample(&sp));				/* e6 */
	TAP_OK(wconv_flush(c, err, sizeof(err)) == 0, "flush 2");

	/* code loaded later; then a sample in it, a late one, tasks */
	{
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, maps100);
		strbuf_addstr(&sb, libnew);
		put_file("100/maps", sb.buf);
		strbuf_release(&sb);
	}
	regs[8] = 0x7f0000100010ull;
	sp.time = T0 + 260 * MS;
	sp.flags = 0;
	feed(c, ev_sample(&sp));				/* e8 */
	regs[8] = 0x401100;
	sp.time = T0 + 60 * MS;
	feed(c, ev_sample(&sp));				/* e9 */
	feed(c, ev_task(WALKER_EV_FORK, T0 + 270 * MS, 200, 200, 100, 100,
			"fakeprog"));
	feed(c, ev_task(WALKER_EV_EXEC, T0 + 280 * MS, 200, 200, 0, 0,
			"python3"));
	feed(c, ev_lost(T0 + 285 * MS, 3));
	feed(c, ev_task(WALKER_EV_EXIT, T0 + 290 * MS, 100, 101, 100, 100,
			NULL));
	feed(c, ev_exit_last(T0 + 295 * MS, 200, 200, 100, 100));
	sp.type = WALKER_EV_OFFCPU;
	sp.time = T0 + 300 * MS;
	sp.prev_state = 2;
	sp.flags = WALKER_F_KERNEL_MODE;
	sp.nk = 1;
	feed(c, ev_sample(&sp));				/* open */
	wconv_lost(c, 4);
	/* a torn event: refused, counted */
	memset(bad, 0, sizeof(bad));
	TAP_OK(wconv_event(c, bad, sizeof(bad)) < 0, "a torn event refused");
	TAP_OK(wconv_flush(c, err, sizeof(err)) == 0, "flush 3");
	ok = wconv_finish(c, T0 + 400 * MS, err, sizeof(err)) == 0;
	TAP_OK(ok, "finish: %s", ok ? "" : err);

	st = wconv_stats(c);
	TAP_INT(st->samples, 6, "stats: samples");
	TAP_INT(st->samples_py, 2, "stats: with Python frames");
	TAP_INT(st->py_cut, 1, "stats: cut walks");
	TAP_OK(st->no_py[WCONV_NOPY_NO_PROC] == 1 &&
	       st->no_py[WCONV_NOPY_NO_TSTATE] == 1 &&
	       st->no_py[WCONV_NOPY_READ] == 0 &&
	       st->no_py[WCONV_NOPY_IDLE] == 2,
	       "stats: samples without Python frames, by reason");
	TAP_OK(st->flags[0] == 1 && st->flags[2] == 1 && st->flags[7] == 1 &&
	       st->flags[6] == 1, "stats: flag counts");
	TAP_OK(st->offcpu == 2 && st->offcpu_open == 1 &&
	       st->offcpu_ns == 147 * MS && st->offcpu_late == 0 &&
	       st->oncpu_unpaired == 0, "stats: off-CPU intervals");
	TAP_INT(st->lost, 7, "stats: lost events");
	TAP_INT(st->late, 1, "stats: one late event");
	TAP_OK(st->bad == 1 && strstr(st->first_bad, "shorter than its "
						     "header"),
	       "stats: the bad event and why: %s", st->first_bad);
	TAP_OK(st->mmaps == 5 && st->comms == 3 && st->tasks == 3 &&
	       st->maps_unread == 0, "stats: records (%llu mmaps, %llu comms)",
	       (unsigned long long)st->mmaps, (unsigned long long)st->comms);
	TAP_INT(st->first_sample_ns, 1 * MS, "stats: time to first sample");
	TAP_OK(st->bytes > 8 * 128, "stats: %llu bytes",
	       (unsigned long long)st->bytes);
	TAP_OK(seen.no_proc == 1 && seen.no_proc_pid == 100,
	       "hook: no_proc for the sample without its interpreter");
	TAP_OK(seen.fork == 1 && seen.fork_parent == 100 &&
	       seen.fork_child == 200 && seen.exec == 1 &&
	       seen.exec_pid == 200 && seen.exit == 1 && seen.exit_pid == 200,
	       "hooks: fork, exec, exit of the process (its last thread's, "
	       "not another thread's)");
	TAP_OK(seen.frames == 4 && seen.first_code == 0x7f0000500000ull &&
	       seen.first_tag == 40, "hook: each Python frame written (%d)",
	       seen.frames);

	walk_file(path, &w);
	TAP_INT(w.n[PD_RECORD_MMAP], st->kernel_map ? 1 : 0,
		"the kernel's map");
	TAP_OK(st->kernel_map, "kallsyms read (as root)");
	TAP_OK(w.cpu_samples == 6 && w.off_samples == 2,
	       "samples of each event (%u, %u)", w.cpu_samples,
	       w.off_samples);
	TAP_OK(w.comm100_before_sample, "the process's comm before its "
	       "samples");
	TAP_OK(w.comm101, "a thread first seen: its comm from /proc");
	TAP_OK(w.data_maps == 1, "a file's data mapping, marked as data");
	TAP_OK(w.n[PD_RECORD_MMAP2] == 5 && w.libnew_count == 1 &&
	       w.libnew_ok, "maps: the new mapping written once, alone, "
	       "when a sample was in it");
	TAP_OK(w.exec200 && w.mmaps200 == 1, "exec: comm and the new "
	       "program's maps");
	TAP_OK(w.n[PD_RECORD_FORK] == 1 && w.n[PD_RECORD_EXIT] == 2,
	       "fork and exit records");
	TAP_INT(w.n[PD_RECORD_LOST], 7, "lost records count 7");
	TAP_INT(w.n[PD_RECORD_FINISHED_ROUND], 5, "a round per flush");
	TAP_INT(w.decreases, 1, "in time order but for the late event");
	TAP_OK(w.e9_after_e4, "the late event written after the newer ones");
	TAP_OK(w.e1_ok, "user-mode sample: ip, regs, stack dump of 64 bytes "
	       "with room for 8 more, and its user frames after "
	       "PERF_CONTEXT_USER");
	TAP_OK(w.e1_raw_ok, "raw: header and Python frames, version, what "
	       "the copy was (WALKER_F_UNWOUND)");
	TAP_OK(w.e2_ok, "kernel-mode sample: chain after PERF_CONTEXT_KERNEL, "
	       "full dump");
	TAP_OK(w.off1_ok, "off-CPU interval paired by thread: 47 ms, the "
	       "stack it left with");
	TAP_OK(w.off2_ok, "off-CPU interval open at the end: ended then");
	wconv_free(c);
	unlink(path);
	free(path);
	free(proc);
}

/* --- 2. a real interpreter ---------------------------------------------- */

static const char spin_py[] =
	"import sys\n"
	"def spin(n):\n"
	"    while True:\n"
	"        n += 1\n"
	"def outer():\n"
	"    spin(0)\n"
	"sys.stdout.write('ready\\n')\n"
	"sys.stdout.flush()\n"
	"outer()\n";

/* The end of the mapping holding addr in pid's maps (0: none). */
static uint64_t mapping_end(pid_t pid, uint64_t addr)
{
	char path[64], line[512];
	unsigned long long lo, hi;
	uint64_t end = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo &&
		    addr < hi) {
			end = hi;
			break;
		}
	fclose(f);
	return end;
}

/* The stack bytes sample_of() copied (all it asked: a full dump). */
static size_t copied;

/*
 * A walker sample of pid as it is now: stopped with ptrace, its user
 * registers in perf's order, up to 16 KiB of its stack from sp.
 */
static int sample_of(pid_t pid, struct ev *e, uint64_t *sp_out,
		     uint64_t *ip_out)
{
	static unsigned char stack[WALKER_USTACK_MAX];
	struct user_regs_struct u;
	struct sample_spec sp;
	uint64_t regs[WALKER_NR_REGS], end;
	struct iovec local, remote;
	struct timespec ts;
	ssize_t n;
	int status;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0 ||
	    waitpid(pid, &status, __WALL) != pid ||
	    ptrace(PTRACE_GETREGS, pid, 0, &u) < 0)
		return -1;
	regs[0] = u.rax;
	regs[1] = u.rbx;
	regs[2] = u.rcx;
	regs[3] = u.rdx;
	regs[4] = u.rsi;
	regs[5] = u.rdi;
	regs[6] = u.rbp;
	regs[7] = u.rsp;
	regs[8] = u.rip;
	regs[9] = u.eflags;
	regs[10] = u.cs;
	regs[11] = u.ss;
	regs[12] = u.r8;
	regs[13] = u.r9;
	regs[14] = u.r10;
	regs[15] = u.r11;
	regs[16] = u.r12;
	regs[17] = u.r13;
	regs[18] = u.r14;
	regs[19] = u.r15;
	end = mapping_end(pid, u.rsp);
	if (!end)
		return -1;
	local.iov_base = stack;
	local.iov_len = end - u.rsp < sizeof(stack) ? end - u.rsp :
			sizeof(stack);
	local.iov_len &= ~(size_t)7;
	remote.iov_base = (void *)(uintptr_t)u.rsp;
	remote.iov_len = local.iov_len;
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	memset(&sp, 0, sizeof(sp));
	sp.type = WALKER_EV_SAMPLE;
	sp.pid = sp.tid = (uint32_t)pid;
	sp.time = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	sp.flags = WALKER_F_NO_PROC;	/* no walker here: native part only */
	sp.regs = regs;
	sp.ustack = stack;
	sp.ulen = (uint32_t)n;
	sp.asked = sizeof(stack);
	*e = ev_sample(&sp);
	*sp_out = u.rsp;
	*ip_out = u.rip;
	copied = (size_t)n;
	return 0;
}

struct native_seen {
	int samples, eval, runmain, dump_ok;
};

static int on_native(void *data, const struct sample *s)
{
	struct native_seen *n = data;
	size_t i;

	n->samples++;
	/* full only when the stack went on past the 16 KiB copied */
	n->dump_ok = s->dump_known && s->dump_len == copied &&
		     s->dump_full == (copied == WALKER_USTACK_MAX);
	for (i = 0; i < s->nr_frames; i++) {
		const struct sample_str *y = &s->frames[i].sym;

		if (y->len == 24 && !memcmp(y->s, "_PyEval_EvalFrameDefault",
					    24))
			n->eval = 1;
		if (y->len == 10 && !memcmp(y->s, "Py_RunMain", 10))
			n->runmain = 1;
	}
	return 0;
}

/* Stream mode: each record kept, one after the other. */
static int keep_record(void *data, const void *rec, size_t len)
{
	strbuf_add(data, rec, len);
	return 0;
}

/*
 * The streamed records through the native reader's stream, as top
 * reads its ring buffers: decoded with the image's attrs, unwound.
 */
static void stream_read(const unsigned char *image, size_t image_len,
			const struct strbuf *stream)
{
	struct native_stream *nst = NULL;
	struct native_seen ns;
	struct perfdata d;
	char err[PPR_ERR_LEN];
	size_t off = 0, nr = 0;
	int ok;

	memset(&ns, 0, sizeof(ns));
	ok = perfdata_open_mem(&d, image, image_len, err, sizeof(err)) == 0 &&
	     d.nr_attrs == 2 &&
	     native_stream_new(&nst, &d, dir, 0, on_native, &ns, err,
			       sizeof(err)) == 0;
	TAP_OK(ok, "stream: the image decodes, a native stream on it (%s)",
	       ok ? "" : err);
	while (ok && off + 8 <= stream->len) {
		const unsigned char *h = (const unsigned char *)stream->buf +
					 off;
		struct pd_record r;

		r.type = get_le32(h);
		r.misc = get_le16(h + 4);
		r.body = h + 8;
		r.len = get_le16(h + 6) - 8u;
		r.offset = off;
		native_stream_record(nst, &r);
		off += get_le16(h + 6);
		nr++;
	}
	TAP_OK(ok && off == stream->len && nr >= 5,
	       "stream: whole records (%zu)", nr);
	TAP_OK(ns.samples == 1 && ns.eval && ns.runmain && ns.dump_ok,
	       "stream: the sample unwound to Py_RunMain as it was written, "
	       "what its copy was said, as top reads it");
	if (nst)
		native_stream_free(nst);
	if (ok)
		perfdata_close(&d);
}

/* The native reader's samples of the file path into *ns: 0, or -1 (err). */
static int native_seen_of(const char *path, struct native_seen *ns,
			  char *err, size_t errlen)
{
	struct native_opts no;
	int cb_ret = 0;

	memset(&no, 0, sizeof(no));
	memset(ns, 0, sizeof(*ns));
	no.session_dir = dir;
	no.perf_data = path;
	no.cb = on_native;
	no.data = ns;
	return native_load(&no, NULL, &cb_ret, err, errlen) == 0 ? 0 : -1;
}

/*
 * A session written as before the recorder unwound (v1_layout): its
 * samples have the copy, no WALKER_F_UNWOUND and no user frames in the
 * callchain; the native reader unwinds the copy and says what it was.
 */
static void v1_read(const char *path)
{
	struct native_seen ns;
	struct perfdata d;
	struct pd_sample s;
	char err[PPR_ERR_LEN];
	uint64_t i;
	int ok, user = 0;

	ok = perfdata_open(&d, path, err, sizeof(err)) == 0 &&
	     perfdata_next(&d, &s) == 1;
	for (i = 0; ok && i < s.nr_callchain; i++)
		user |= get_le64(s.callchain + 8 * i) == CTX_USER;
	TAP_OK(ok && s.have_stack && d.attrs[0].sample_stack_user &&
	       s.raw_size >= 12 && !(get_le32(s.raw + 8) & WALKER_F_UNWOUND) &&
	       !user, "a session of before: the copy, no frames unwound as "
	       "recorded");
	if (ok)
		perfdata_close(&d);
	ok = native_seen_of(path, &ns, err, sizeof(err)) == 0;
	TAP_OK(ok && ns.samples == 1 && ns.eval && ns.runmain && ns.dump_ok,
	       "a session of before still reads: unwound to Py_RunMain, its "
	       "copy said (%s)", ok ? "" : err);
}

/* perf's words for trouble with a file */
static int complains(const char *s)
{
	static const char *const bad[] = {
		"arning", "rror", "nvalid", "ailed", "orrupt", "nknown",
		"can't", "cannot", "Can't", "Cannot", "ncompatible",
		"restricted",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (strstr(s, bad[i]))
			return 1;
	return 0;
}

static void real_python(void)
{
	const char *py = "/usr/bin/python3";
	const char *argv[] = { py, "-c", spin_py, NULL };
	struct spawn child = SPAWN_INIT;
	struct wconv_opts o, so, vo;
	struct wconv *c = NULL, *sc = NULL, *vc = NULL;
	struct strbuf stream = STRBUF_INIT;
	unsigned char *image = NULL;
	size_t image_len = 0;
	struct perfdata d;
	struct pd_sample s;
	struct ev e;
	char err[PPR_ERR_LEN], buf[16], *path = NULL, *v1path = NULL;
	uint64_t sp = 0, ip = 0;
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	int st, ok;

	if (asprintf(&path, "%s/real.data", dir) < 0 ||
	    asprintf(&v1path, "%s/real-v1.data", dir) < 0)
		abort();
	child.argv = argv;
	child.out = SPAWN_PIPE;
	child.in = SPAWN_DEVNULL;
	if (spawn_start(&child, err, sizeof(err)) < 0) {
		TAP_OK(0, "start %s: %s", py, err);
		return;
	}
	ok = read(child.out, buf, 6) == 6 && !memcmp(buf, "ready\n", 6);
	TAP_OK(ok, "python3 started");
	usleep(100000);		/* into the loop */
	ok = ok && sample_of(child.pid, &e, &sp, &ip) == 0;
	TAP_OK(ok, "python3 stopped, registers and stack taken");
	memset(&o, 0, sizeof(o));
	o.perf_data = path;
	o.kallsyms = "/proc/kallsyms";
	o.freq = 999;
	o.wall = 1;	/* the off-CPU events too */
	o.ustack_bytes = WALKER_USTACK_MAX;
	/*
	 * the same event into a file, its copy kept (record
	 * --keep-stack-copy), and into a stream (top's way), unwound as
	 * it is written
	 */
	so = o;
	/* and as sessions were before the recorder unwound (v1_layout) */
	vo = o;
	vo.perf_data = v1path;
	vo.v1_layout = 1;
	o.keep_stack_copy = 1;
	so.perf_data = NULL;
	so.record_fn = keep_record;
	so.record_data = &stream;
	if (ok && wconv_new(&c, &o, err, sizeof(err)) == 0 &&
	    wconv_new(&sc, &so, err, sizeof(err)) == 0 &&
	    wconv_new(&vc, &vo, err, sizeof(err)) == 0 &&
	    wconv_image(sc, &image, &image_len, err, sizeof(err)) == 0) {
		/* while it lives: its maps are read as the event arrives */
		ok = wconv_event(sc, e.buf, e.len) == 0 &&
		     wconv_event(vc, e.buf, e.len) == 0;
		feed(c, e);
	} else {
		ok = 0;
	}
	kill(child.pid, SIGKILL);
	close(child.out);
	spawn_finish(&child);
	ok = ok && wconv_finish(c, 0, err, sizeof(err)) == 0 &&
	     wconv_finish(sc, 0, err, sizeof(err)) == 0 &&
	     wconv_finish(vc, 0, err, sizeof(err)) == 0;
	TAP_OK(ok, "recorded: %s", ok ? "" : err);
	TAP_OK(c && wconv_stats(c)->mmaps >= 3 && wconv_stats(c)->comms == 1,
	       "its comm and executable mappings from /proc");
	wconv_free(c);
	wconv_free(sc);
	wconv_free(vc);
	if (ok)
		stream_read(image, image_len, &stream);
	if (ok)
		v1_read(v1path);
	if (!ok)
		goto out;
	ok = perfdata_open(&d, path, err, sizeof(err)) == 0 &&
	     perfdata_next(&d, &s) == 1;
	TAP_OK(ok && s.user_sp == sp && s.ip == ip && s.have_stack &&
	       s.dyn_size == copied && copied > 256 &&
	       (copied < WALKER_USTACK_MAX ? s.dyn_size < s.stack_size :
		s.dyn_size == s.stack_size),
	       "read back: sp, ip, the dump (%zu bytes, %s)", copied,
	       copied < WALKER_USTACK_MAX ? "to the stack's top" : "full");
	if (ok)
		perfdata_close(&d);
	{
		struct native_seen ns;

		ok = native_seen_of(path, &ns, err, sizeof(err)) == 0;
		TAP_OK(ok && ns.samples == 1 && ns.eval && ns.runmain &&
		       ns.dump_ok, "our reader unwinds it too (%s)",
		       ok ? "" : err);
	}
	{
		const char *script[] = { "perf", "script", "-i", path, NULL };
		const char *report[] = { "perf", "report", "--stdio", "-i",
					 path, NULL };

		st = spawn_capture(script, NULL, &out, &errout, 1 << 20, err,
				   sizeof(err));
		TAP_OK(st == 0 && !complains(errout.buf),
		       "perf script reads it quietly");
		TAP_OK(strstr(out.buf, "_PyEval_EvalFrameDefault") &&
		       strstr(out.buf, "Py_RunMain") &&
		       strstr(out.buf, "python3.11"),
		       "perf unwinds the dump: _PyEval_EvalFrameDefault up to "
		       "Py_RunMain");
		if (st || complains(errout.buf) ||
		    !strstr(out.buf, "Py_RunMain"))
			printf("# status %d\n# stderr: %s\n# stdout: %s\n", st,
			       errout.buf, out.buf);
		strbuf_reset(&out);
		strbuf_reset(&errout);
		st = spawn_capture(report, NULL, &out, &errout, 1 << 20, err,
				   sizeof(err));
		TAP_OK(st == 0 && !complains(errout.buf) &&
		       strstr(out.buf, "_PyEval_EvalFrameDefault"),
		       "perf report --stdio reads it quietly");
		if (st || complains(errout.buf))
			printf("# status %d\n# stderr: %s\n", st, errout.buf);
	}
out:
	free(image);
	strbuf_release(&stream);
	strbuf_release(&out);
	strbuf_release(&errout);
	if (!getenv("KEEP")) {
		unlink(path);
		unlink(v1path);
	} else {
		printf("# kept %s, %s\n", path, v1path);
	}
	free(path);
	free(v1path);
}

/*
 * Switches the walker did not see (--wall): an interval whose switch-in
 * is missing ends where its thread is next seen running (a sample, its
 * next switch-out, its exit); one whose switch-out is missing is left
 * out and counted; a thread's first switch-in (off CPU when watching
 * began) is no loss.
 */
static void lost_switches(void)
{
	struct wconv_opts o;
	struct wconv *c;
	const struct wconv_stats *st;
	struct sample_spec sp;
	uint64_t regs[WALKER_NR_REGS];
	char err[PPR_ERR_LEN], *path = NULL, *proc = NULL;
	const char *argv[] = { "pyperf-run", "record", "fake", NULL };
	unsigned i;

	if (asprintf(&path, "%s/perf-lost.data", dir) < 0 ||
	    asprintf(&proc, "%s/proc", dir) < 0)
		abort();
	memset(&o, 0, sizeof(o));
	o.perf_data = path;
	o.proc_root = proc;
	o.kallsyms = "/proc/kallsyms";
	o.freq = 999;
	o.wall = 1;
	o.ustack_bytes = 128;
	o.cmdline = argv;
	o.start_ns = T0;
	if (wconv_new(&c, &o, err, sizeof(err)) < 0) {
		TAP_OK(0, "wconv_new: %s", err);
		return;
	}
	for (i = 0; i < WALKER_NR_REGS; i++)
		regs[i] = 0x1000 + i;
	regs[8] = 0x401100;
	memset(&sp, 0, sizeof(sp));
	sp.type = WALKER_EV_OFFCPU;
	sp.pid = 100;
	sp.tid = 102;
	sp.regs = regs;
	sp.prev_state = 1;
	/* off CPU when watching began: its first switch-in, no loss */
	feed(c, ev_task(WALKER_EV_ONCPU, T0 + 1 * MS, 100, 102, 0, 0, NULL));
	sp.time = T0 + 2 * MS;
	feed(c, ev_sample(&sp));
	feed(c, ev_task(WALKER_EV_ONCPU, T0 + 5 * MS, 100, 102, 0, 0, NULL));
	/*
	 * a switch-in whose switch-out was lost: left out, at most the 4 ms
	 * since the thread was last seen (its switch-in at 5 ms)
	 */
	feed(c, ev_task(WALKER_EV_ONCPU, T0 + 9 * MS, 100, 102, 0, 0, NULL));
	/* switch-ins lost: ended by the next switch-out, by a sample */
	sp.time = T0 + 10 * MS;
	feed(c, ev_sample(&sp));
	sp.time = T0 + 12 * MS;
	feed(c, ev_sample(&sp));
	sp.type = WALKER_EV_SAMPLE;
	sp.prev_state = 0;
	sp.time = T0 + 20 * MS;
	feed(c, ev_sample(&sp));
	/* and by its exit */
	sp.type = WALKER_EV_OFFCPU;
	sp.prev_state = 1;
	sp.time = T0 + 30 * MS;
	feed(c, ev_sample(&sp));
	feed(c, ev_task(WALKER_EV_EXIT, T0 + 34 * MS, 100, 102, 100, 100,
			NULL));
	TAP_OK(wconv_finish(c, T0 + 40 * MS, err, sizeof(err)) == 0,
	       "lost switches: finish");
	st = wconv_stats(c);
	TAP_OK(st->offcpu == 4 && st->offcpu_ns == (3 + 2 + 8 + 4) * MS,
	       "lost switches: the intervals, three of them ended late "
	       "(%llu, %llu ns)", (unsigned long long)st->offcpu,
	       (unsigned long long)st->offcpu_ns);
	TAP_OK(st->oncpu_unpaired == 2 && st->offcpu_unopened == 1 &&
	       st->offcpu_unopened_ns == 4 * MS && st->offcpu_late == 3,
	       "lost switches: one switch-out and three switch-ins lost "
	       "(%llu unpaired, %llu unopened, %llu late)",
	       (unsigned long long)st->oncpu_unpaired,
	       (unsigned long long)st->offcpu_unopened,
	       (unsigned long long)st->offcpu_late);
	wconv_free(c);
	free(path);
	free(proc);
}

int main(void)
{

	snprintf(dir, sizeof(dir), "/tmp/t-wrecord-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	synthetic();
	lost_switches();
	real_python();
	/* the fake /proc tree */
	{
		const char *rm[] = { "rm", "-rf", "--", dir, NULL };

		if (!getenv("KEEP"))	/* KEEP=1: left for a look */
			spawn_capture(rm, NULL, NULL, NULL, 0, NULL, 0);
	}
	return tap_done();
}
