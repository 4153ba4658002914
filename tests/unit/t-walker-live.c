// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-kernel frame walker's loader (lib/walker/walker.c).
 *
 * Without arguments (t1000-unit.sh): TAP checks of the loader.  Built
 * without libbpf, walker_open() must say so.  With it: walker_open()
 * loads the BPF programs through the kernel's verifier (as root; as
 * another user it must fail with a message naming the privileges),
 * refuses options and layouts the BPF side cannot use, keeps the process
 * map, attaches to every online CPU and polls.
 *
 * `t-walker-live live ...` (t3500-walker-bpf.sh): watch real processes
 * and print every event the walker sends, one line each, for the shell
 * test to judge:
 *
 *   S|O pid tid flags nk np ulen uasked sp ip rle instr prev_state
 *       a SAMPLE or OFFCPU (flags in decimal, sp and ip in hex); rle:
 *       the Python frames innermost first, runs of equal frames as
 *       code:tag:flags*count (hex code, decimal tag and flags), or -;
 *       instr: the innermost frame's instruction offset, or -
 *   T type pid tid ppid ptid comm                   FORK, EXEC, EXIT, ONCPU
 *   X bad event: why                                 an event that does
 *                                                    not check out
 * first "attached" (flushed) once the walker is attached, and at the
 * end "lost N", "verified NAME N" for each program (instructions the
 * verifier processed), then for walker_sample "prog run_cnt run_time_ns
 * verified_insns" (the kernel's own BPF run-time statistics, on while the
 * helper runs).
 *
 * The events are read here from their bytes with every length checked,
 * independently of walker_decode() (lib/walker/event.c): the test checks
 * what the BPF side writes against walker_abi.h itself.
 */
#include "compat.h"
#include "tap.h"
#include "walker/walker.h"

#include <inttypes.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#ifdef PPR_HAVE_BPF
#include <bpf/bpf.h>
#include <dirent.h>

#include "numparse.h"

static const struct walker_opts default_opts = {
	.freq = 999,
	.ustack_bytes = 16384,
	.max_py_frames = 1024,
};

/* A small valid layout (3.11-like) for the loader checks. */
static void test_layout(struct walker_layout *l)
{
	memset(l, 0, sizeof(*l));
	l->frame_kind = WALKER_IFRAME;
	l->tstate_kind = WALKER_TS_CFRAME;
	l->frame_code = 32;
	l->frame_back = 48;
	l->frame_instr = 56;
	l->frame_is_entry = 68;
	l->frame_owner = WALKER_NO_FIELD;
	l->frame_read_size = 72;
	l->owner_cstack = WALKER_NO_FIELD;
	l->owner_interpreter = WALKER_NO_FIELD;
	l->code_firstlineno = 72;
	l->code_adaptive = 184;
}

static int count_events(void *data, const void *ev, size_t len)
{
	(*(unsigned long *)data)++;
	return 0;
}

static int unit_tests(void)
{
	struct walker *w = NULL;
	struct walker_opts o = default_opts;
	struct walker_layout l;
	struct walker_proc p = { 0 };
	char err[PPR_ERR_LEN];
	unsigned long n = 0;
	__u32 id = 99;
	int errnum = 0, r;

	o.freq = 0;
	r = walker_open(&w, &o, &errnum, err, sizeof(err));
	TAP_OK(r == -1 && errnum == EINVAL && strstr(err, "out of range"),
	       "a frequency of 0 is refused: %s", err);
	o = default_opts;
	o.ustack_bytes = 100;
	r = walker_open(&w, &o, &errnum, err, sizeof(err));
	TAP_OK(r == -1 && strstr(err, "multiple of 8"),
	       "a user stack size that is not a multiple of 8 is refused");

	o = default_opts;
	r = walker_open(&w, &o, &errnum, err, sizeof(err));
	if (geteuid() != 0) {
		/* as a user: refused, and the message says what it needs */
		TAP_OK(r == -1 && (errnum == EPERM || errnum == EACCES) &&
		       strstr(err, "CAP_BPF and CAP_PERFMON") &&
		       strstr(err, "kernel.unprivileged_bpf_disabled is "),
		       "as uid %d, walker_open says what it needs: %s",
		       (int)geteuid(), r ? err : "(it loaded)");
		walker_close(w);
		return tap_done();
	}
	TAP_OK(r == 0, "as root, the BPF programs load and verify%s%s",
	       r ? ": " : "", r ? err : "");
	if (r)
		return tap_done();

	test_layout(&l);
	l.frame_kind = 7;
	TAP_OK(walker_add_layout(w, &l, &id, err, sizeof(err)) == -1 &&
	       strstr(err, "frame kind"), "an unknown frame kind is refused");
	test_layout(&l);
	l.frame_read_size = 300;
	TAP_OK(walker_add_layout(w, &l, &id, err, sizeof(err)) == -1 &&
	       strstr(err, "300 bytes"), "a frame read of 300 bytes is refused");
	test_layout(&l);
	l.frame_is_entry = 72;
	TAP_OK(walker_add_layout(w, &l, &id, err, sizeof(err)) == -1 &&
	       strstr(err, "frame_is_entry"),
	       "a field outside the frame read is refused: %s", err);
	test_layout(&l);
	TAP_OK(walker_add_layout(w, &l, &id, err, sizeof(err)) == 0 && id == 0,
	       "a good layout is stored as layout 0");

	p.layout = 1;
	p.runtime = 0x1000;	/* a process without one has no layout yet */
	p.flags = WALKER_PROC_WATCHED;
	TAP_OK(walker_set_proc(w, getpid(), &p, err, sizeof(err)) == -1 &&
	       strstr(err, "layout 1 was not added"),
	       "a process with a layout not added is refused");
	p.layout = 0;
	TAP_OK(walker_set_proc(w, getpid(), &p, err, sizeof(err)) == 0,
	       "a process is watched");
	TAP_INT(walker_del_proc(w, getpid()), 0, "and no longer watched");
	TAP_INT(walker_del_proc(w, getpid()), -1,
		"a process not watched cannot be removed");

	r = walker_attach(w, err, sizeof(err));
	TAP_OK(r == 0, "attached to every online CPU%s%s", r ? ": " : "",
	       r ? err : "");
	TAP_OK(walker_attach(w, err, sizeof(err)) == -1,
	       "a second attach is refused");
	r = walker_poll(w, 50, count_events, &n);
	TAP_OK(r >= 0 && n == 0,
	       "nothing watched: a poll returns no event (%d, %lu)", r, n);
	TAP_INT(walker_lost(w), 0, "and nothing was lost");
	walker_close(w);
	return tap_done();
}

/* --- live mode -------------------------------------------------------------- */

struct live {
	unsigned long events;
	const struct walker_opts *o;
	unsigned stop_tid;	/* stop once this thread has exited */
	int stop;
};

static uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* One event as a line on stdout (see the file's comment). */
static int print_event(void *data, const void *ev, size_t len)
{
	struct live *lv = data;
	const unsigned char *b = ev;
	struct walker_ev_hdr h;
	struct walker_sample s;
	struct walker_task t;
	struct walker_py_frame f, run = { 0 };
	size_t need, off;
	unsigned i, count = 0;

	lv->events++;
	if (len < sizeof(h)) {
		printf("X bad event: %zu bytes\n", len);
		return 0;
	}
	memcpy(&h, b, sizeof(h));
	if (h.size != len) {
		printf("X bad event: type %u says %u bytes, has %zu\n", h.type,
		       h.size, len);
		return 0;
	}
	switch (h.type) {
	case WALKER_EV_SAMPLE:
	case WALKER_EV_OFFCPU:
		if (len < sizeof(s)) {
			printf("X bad event: a sample of %zu bytes\n", len);
			return 0;
		}
		memcpy(&s, b, sizeof(s));
		need = sizeof(s) + WALKER_NR_REGS * 8 + (size_t)s.nr_kstack * 8 +
		       (size_t)s.nr_py * sizeof(f) + (((size_t)s.ustack_len + 7) & ~(size_t)7);
		if (need != len || s.nr_kstack > WALKER_MAX_KSTACK ||
		    s.nr_py > WALKER_MAX_PY_FRAMES ||
		    s.ustack_len > s.ustack_asked ||
		    s.ustack_asked != (h.type == WALKER_EV_OFFCPU &&
				       lv->o->ustack_bytes >
				       WALKER_OFFCPU_USTACK ?
				       WALKER_OFFCPU_USTACK :
				       lv->o->ustack_bytes)) {
			printf("X bad event: sample of %zu bytes: nk %u np %u "
			       "ulen %u asked %u (%zu expected)\n", len,
			       s.nr_kstack, s.nr_py, s.ustack_len,
			       s.ustack_asked, need);
			return 0;
		}
		off = sizeof(s);
		printf("%c %u %u %u %u %u %u %u %#" PRIx64 " %#" PRIx64 " ",
		       h.type == WALKER_EV_SAMPLE ? 'S' : 'O', h.pid, h.tid,
		       h.flags, s.nr_kstack, s.nr_py, s.ustack_len,
		       s.ustack_asked, le64(b + off + 7 * 8),
		       le64(b + off + 8 * 8));
		off += WALKER_NR_REGS * 8 + (size_t)s.nr_kstack * 8;
		if (!s.nr_py)
			fputs("-", stdout);
		for (i = 0; i < s.nr_py; i++, off += sizeof(f)) {
			memcpy(&f, b + off, sizeof(f));
			if (count && (f.code != run.code || f.tag != run.tag ||
				      f.flags != run.flags)) {
				printf("%" PRIx64 ":%u:%u*%u,", (uint64_t)run.code,
				       run.tag, run.flags, count);
				count = 0;
			}
			run = f;
			count++;
		}
		if (count)
			printf("%" PRIx64 ":%u:%u*%u", (uint64_t)run.code, run.tag,
			       run.flags, count);
		/* the innermost frame's instruction offset */
		if (s.nr_py) {
			memcpy(&f, b + sizeof(s) + WALKER_NR_REGS * 8 +
			       (size_t)s.nr_kstack * 8, sizeof(f));
			printf(" %u", f.instr);
		} else {
			fputs(" -", stdout);
		}
		printf(" %" PRIu64 "\n", (uint64_t)s.prev_state);
		return 0;
	case WALKER_EV_FORK:
	case WALKER_EV_EXEC:
	case WALKER_EV_EXIT:
	case WALKER_EV_ONCPU:
		if (len != sizeof(t)) {
			printf("X bad event: task event type %u of %zu bytes\n",
			       h.type, len);
			return 0;
		}
		memcpy(&t, b, sizeof(t));
		t.comm[sizeof(t.comm) - 1] = '\0';
		if (h.type == WALKER_EV_EXIT && lv->stop_tid && h.tid == lv->stop_tid)
			lv->stop = 1;
		printf("T %u %u %u %u %u %s\n", h.type, h.pid, h.tid, t.ppid,
		       t.ptid, t.comm[0] ? t.comm : "-");
		return 0;
	default:
		printf("X bad event: type %u\n", h.type);
		return 0;
	}
}

/* A layout from lines "name value" (the test's offsetof probe). */
static int read_layout(const char *path, struct walker_layout *l)
{
	static const struct { const char *name; size_t off; } fields[] = {
#define F(x) { #x, offsetof(struct walker_layout, x) }
		F(frame_kind), F(tstate_kind), F(runtime_interp_head),
		F(interp_tstate_head), F(tstate_next), F(tstate_thread_id),
		F(tstate_frame), F(cframe_current_frame), F(frame_code),
		F(frame_back), F(frame_instr), F(frame_is_entry),
		F(frame_owner), F(frame_read_size), F(owner_cstack),
		F(owner_interpreter), F(code_adaptive), F(code_firstlineno),
		F(lasti_units), F(code_tag_bits),
#undef F
	};
	FILE *fp = fopen(path, "r");
	char name[64], val[64];
	unsigned long v;
	size_t i, seen = 0;

	if (!fp)
		return -1;
	memset(l, 0, sizeof(*l));
	while (fscanf(fp, "%63s %63s", name, val) == 2) {
		if (parse_ulong(val, 0, 0xffffffffu, &v))
			break;
		for (i = 0; i < ARRAY_SIZE(fields); i++)
			if (!strcmp(name, fields[i].name))
				break;
		if (i == ARRAY_SIZE(fields)) {
			fprintf(stderr, "layout: unknown field %s\n", name);
			fclose(fp);
			return -1;
		}
		memcpy((char *)l + fields[i].off, &(__u32){ (__u32)v }, 4);
		seen++;
	}
	fclose(fp);
	if (seen != ARRAY_SIZE(fields))
		fprintf(stderr, "layout: %zu of %zu fields\n", seen,
			ARRAY_SIZE(fields));
	return seen == ARRAY_SIZE(fields) ? 0 : -1;
}

/* This process's BPF program fds of the given name (walker_sample). */
static int own_prog_stats(const char *name, struct bpf_prog_info *out)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	char path[64], link[64];
	ssize_t n;
	int found = -1;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct bpf_prog_info info;
		__u32 ilen = sizeof(info);
		unsigned long fd;

		if (parse_ulong(de->d_name, 10, 1 << 20, &fd))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%lu", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:bpf-prog"))
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd((int)fd, &info, &ilen))
			continue;
		if (!strcmp(info.name, name)) {
			*out = info;
			found = 0;
		}
		if (!strncmp(info.name, "walker_", 7))
			printf("verified %s %u\n", info.name, info.verified_insns);
	}
	closedir(d);
	return found;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr, "usage: t-walker-live live --layout FILE --runtime ADDR "
		"--watch PID [--seconds S] [--freq HZ] [--ustack BYTES] "
		"[--max-frames N] [--ring BYTES] [--wall] [--follow] [--until-exit]\n"
		"  --until-exit: stop early when the first watched process's "
		"main thread exits\n");
	return 2;
}

static int live(int argc, char **argv)
{
	struct walker_opts o = default_opts;
	struct walker_layout l;
	struct walker_proc p = { .flags = WALKER_PROC_WATCHED };
	struct walker *w;
	struct live lv = { 0 };
	struct bpf_prog_info info;
	char err[PPR_ERR_LEN];
	const char *layout = NULL;
	unsigned long v, watch[8];
	size_t nwatch = 0, i;
	double seconds = 2, end;
	int errnum, stats_fd, r, until_exit = 0;

	for (i = 2; i < (size_t)argc; i++) {
		const char *a = argv[i], *val = i + 1 < (size_t)argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--wall")) {
			o.wall = 1;
			continue;
		}
		if (!strcmp(a, "--follow")) {
			o.follow_children = 1;
			continue;
		}
		if (!strcmp(a, "--until-exit")) {
			until_exit = 1;
			continue;
		}
		if (!val)
			return usage();
		i++;
		if (!strcmp(a, "--layout"))
			layout = val;
		else if (!strcmp(a, "--runtime") && !parse_ulong(val, 0, ULONG_MAX, &v))
			p.runtime = v;
		else if (!strcmp(a, "--watch") && nwatch < ARRAY_SIZE(watch) &&
			 !parse_ulong(val, 10, 1 << 22, &v))
			watch[nwatch++] = v;
		else if (!strcmp(a, "--seconds") && !parse_ulong(val, 10, 60, &v))
			seconds = (double)v;
		else if (!strcmp(a, "--freq") && !parse_ulong(val, 10, 100000, &v))
			o.freq = (unsigned)v;
		else if (!strcmp(a, "--ustack") && !parse_ulong(val, 10, 1 << 20, &v))
			o.ustack_bytes = (unsigned)v;
		else if (!strcmp(a, "--max-frames") && !parse_ulong(val, 10, 1 << 20, &v))
			o.max_py_frames = (unsigned)v;
		else if (!strcmp(a, "--ring") && !parse_ulong(val, 10, 1ul << 30, &v))
			o.ring_bytes = v;
		else
			return usage();
	}
	if (!layout || !nwatch)
		return usage();
	if (read_layout(layout, &l)) {
		fprintf(stderr, "cannot read the layout %s\n", layout);
		return 1;
	}
	lv.o = &o;
	if (until_exit)
		lv.stop_tid = (unsigned)watch[0];
	if (walker_open(&w, &o, &errnum, err, sizeof(err))) {
		fprintf(stderr, "walker_open: %s\n", err);
		return 1;
	}
	if (walker_add_layout(w, &l, &p.layout, err, sizeof(err))) {
		fprintf(stderr, "walker_add_layout: %s\n", err);
		walker_close(w);
		return 1;
	}
	for (i = 0; i < nwatch; i++)
		if (walker_set_proc(w, (pid_t)watch[i], &p, err, sizeof(err))) {
			fprintf(stderr, "walker_set_proc: %s\n", err);
			walker_close(w);
			return 1;
		}
	/* the kernel's run-time statistics of BPF programs, while this runs */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (walker_attach(w, err, sizeof(err))) {
		fprintf(stderr, "walker_attach: %s\n", err);
		walker_close(w);
		return 1;
	}
	/* for a test that starts its program's work once sampled */
	printf("attached\n");
	fflush(stdout);
	end = now_s() + seconds;
	while (now_s() < end && !lv.stop) {
		r = walker_poll(w, 100, print_event, &lv);
		if (r < 0 && r != -EINTR) {
			fprintf(stderr, "walker_poll: %s\n", strerror(-r));
			walker_close(w);
			return 1;
		}
	}
	/* what is still in the ring */
	while (walker_poll(w, 0, print_event, &lv) > 0)
		;
	printf("lost %" PRIu64 "\n", walker_lost(w));
	if (own_prog_stats("walker_sample", &info) == 0)
		printf("prog %llu %llu %u\n", (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns, info.verified_insns);
	if (stats_fd >= 0)
		close(stats_fd);
	walker_close(w);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	if (argc > 1 && !strcmp(argv[1], "live"))
		return live(argc, argv);
	return unit_tests();
}

#else /* !PPR_HAVE_BPF */

int main(int argc, char **argv)
{
	struct walker *w = (struct walker *)1;
	struct walker_opts o = { .freq = 999, .max_py_frames = 1024 };
	char err[PPR_ERR_LEN];
	int errnum = 0, r;

	if (argc > 1) {
		fprintf(stderr, "t-walker-live: built without libbpf\n");
		return 2;
	}
	r = walker_open(&w, &o, &errnum, err, sizeof(err));
	TAP_OK(r == -1 && !w && errnum == ENOSYS &&
	       strstr(err, "built without libbpf"),
	       "built without libbpf, walker_open says so: %s", err);
	return tap_done();
}

#endif
