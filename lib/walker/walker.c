/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The frame walker's loader: the BPF programs of walker.bpf.c through
 * their bpftool skeleton (walker.skel.h, generated at make time), the
 * maps the user side fills, the cpu-clock events they sample on, and the
 * ring buffer they write to.  Silent: errors through err.
 *
 * Without libbpf (PPR_HAVE_BPF undefined) only walker_open() does
 * anything: it says the build has no walker.
 */
#include "compat.h"
#include "walker/walker.h"

#ifdef PPR_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "alloc.h"
#include "numparse.h"
#include "strbuf.h"
#include "walker/kself.h"
#include "walker.skel.h"

/* The largest frame the BPF side reads (walker.bpf.c's FBUF_MAX). */
#define WALKER_FRAME_READ_MAX 256
#define WALKER_RING_DEFAULT (16u << 20)

struct walker {
	struct walker_bpf *skel;
	struct ring_buffer *rb;
	struct walker_opts opts;
	unsigned nr_layouts;
	int attached;
	/* a cpu-clock event's link per online CPU (it owns the event's fd) */
	struct bpf_link **event_links;
	size_t nr_events;
	/* the task tracepoints */
	struct bpf_link *task_links[6];
	/* threads put into the preattach map (walker_preattach()) */
	unsigned nr_preattach;
	/* the callback of the walker_poll() under way */
	walker_event_fn cb;
	void *cb_data;
	/*
	 * BPF_ENABLE_STATS' descriptor from the attach on: while it is
	 * open the kernel times every program run (two clock reads a run),
	 * so that walker_cost() can say what the walker cost; -1 when the
	 * kernel would not (too old, or not root).
	 */
	int stats_fd;
};

/*
 * libbpf prints its warnings and the verifier's log; lib/ never prints,
 * so what it says is kept here (the last 16 KiB) for an error message
 * instead.  One buffer for the process: libbpf's print hook is global too.
 */
static char libbpf_log[16384];
static size_t libbpf_log_len;

static int libbpf_keep(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	struct strbuf sb;
	const char *line;
	size_t len, keep;

	if (level == LIBBPF_DEBUG)
		return 0;
	strbuf_init(&sb, 256);
	strbuf_vaddf(&sb, fmt, ap);
	line = sb.buf;
	len = sb.len;
	if (len >= sizeof(libbpf_log)) {
		line += len - (sizeof(libbpf_log) - 1);
		len = sizeof(libbpf_log) - 1;
	}
	if (libbpf_log_len + len >= sizeof(libbpf_log)) {
		keep = sizeof(libbpf_log) - 1 - len;
		if (keep > libbpf_log_len)
			keep = libbpf_log_len;
		memmove(libbpf_log, libbpf_log + libbpf_log_len - keep, keep);
		libbpf_log_len = keep;
	}
	memcpy(libbpf_log + libbpf_log_len, line, len);
	libbpf_log_len += len;
	libbpf_log[libbpf_log_len] = '\0';
	strbuf_release(&sb);
	return 0;
}

/*
 * What libbpf said that explains a failure: the last lines of the
 * verifier's log when there is one (its verdict and the instruction it
 * stopped at), else libbpf's last line.
 */
static void libbpf_why(char *out, size_t outlen)
{
	const char *log = libbpf_log, *end = NULL, *p;
	int lines = 0;

	for (p = log; (p = strstr(p, "-- END PROG LOAD LOG --")); p++)
		end = p;
	if (!end)
		end = log + libbpf_log_len;
	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (p = end; p > log; p--)
		if (p[-1] == '\n' && ++lines == 3)
			break;
	snprintf(out, outlen, "%.*s", (int)(end - p), p);
	for (; *out; out++)
		if (*out == '\n')
			*out = ' ';
}

/* The value of a one-line /proc/sys file, or "?". */
static void read_sysctl(const char *path, char *out, size_t outlen)
{
	struct strbuf sb;

	strbuf_init(&sb, 16);
	if (strbuf_read_file(&sb, path, 64) == 0) {
		strbuf_rtrim(&sb);
		snprintf(out, outlen, "%s", sb.buf);
	} else {
		snprintf(out, outlen, "?");
	}
	strbuf_release(&sb);
}

/* err for a failure with errno e while doing what. */
static int bpf_fail(int e, const char *what, int *errnum, char *err,
		    size_t errlen)
{
	char ub[16], why[400];

	if (errnum)
		*errnum = e;
	/* the verifier's refusals are EACCES and EINVAL: not privileges */
	if (e == EPERM) {
		read_sysctl("/proc/sys/kernel/unprivileged_bpf_disabled", ub,
			    sizeof(ub));
		return set_err(err, errlen, "cannot %s: the frame walker needs "
			       "root, or CAP_BPF and CAP_PERFMON "
			       "(kernel.unprivileged_bpf_disabled is %s)",
			       what, ub);
	}
	libbpf_why(why, sizeof(why));
	if (why[0])
		return set_err(err, errlen, "cannot %s: %s (libbpf: %s)", what,
			       strerror(e), why);
	return set_err(err, errlen, "cannot %s: %s", what, strerror(e));
}

static void detach_all(struct walker *w);

static int ring_cb(void *ctx, void *data, size_t size)
{
	struct walker *w = ctx;

	return w->cb ? w->cb(w->cb_data, data, size) : 0;
}

/* The smallest power of two >= n and >= a page (the ring's rule). */
static size_t ring_size(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), s = page;

	while (s < n && s < ((size_t)1 << 30))
		s <<= 1;
	return s;
}

/* The interrupt ranges for walker_config (walker_opts' kself_base). */
static int irq_ranges(const struct walker_opts *o, uint64_t hard[2],
		      uint64_t soft_lo[2], uint64_t soft_hi[2])
{
	struct kself k;
	int r = -1;

	memset(&k, 0, sizeof(k));
	if (o->kself_base && !o->kself_base(o->kself_data, &k))
		r = kself_irq(&k, &hard[0], &hard[1], soft_lo, soft_hi);
	kself_release(&k);
	if (r < 0)
		r = kself_irq_ranges("/proc/kallsyms", &hard[0], &hard[1],
				     soft_lo, soft_hi);
	return r;
}

int walker_open(struct walker **out, const struct walker_opts *o,
		int *errnum, char *err, size_t errlen)
{
	struct walker *w;
	struct walker_config cfg = { 0 };
	uint64_t hard[2] = { 0, 0 }, soft_lo[2] = { 0, 0 }, soft_hi[2] = { 0, 0 };
	__u32 k0 = 0;
	int ncpu, r;

	*out = NULL;
	if (errnum)
		*errnum = 0;
	if (!o->freq || o->ustack_bytes > WALKER_USTACK_MAX ||
	    o->ustack_bytes % 8 || !o->max_py_frames ||
	    o->max_py_frames > WALKER_MAX_PY_FRAMES) {
		if (errnum)
			*errnum = EINVAL;
		return set_err(err, errlen, "frame walker options out of range: "
			       "frequency %u (> 0), user stack %u bytes (a "
			       "multiple of 8, <= %u), %u Python frames (1-%u)",
			       o->freq, o->ustack_bytes, WALKER_USTACK_MAX,
			       o->max_py_frames, WALKER_MAX_PY_FRAMES);
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		if (errnum)
			*errnum = errno;
		return set_err(err, errlen, "the kernel has no BTF "
			       "(/sys/kernel/btf/vmlinux: %s): the frame walker "
			       "needs a kernel built with CONFIG_DEBUG_INFO_BTF",
			       strerror(errno));
	}
	libbpf_set_print(libbpf_keep);
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';

	w = xcalloc(1, sizeof(*w));
	w->opts = *o;
	w->stats_fd = -1;
	w->skel = walker_bpf__open();
	if (!w->skel) {
		r = errno;
		free(w);
		return bpf_fail(r, "open the frame walker's BPF object", errnum,
				err, errlen);
	}
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		walker_close(w);
		return bpf_fail(-ncpu, "count the possible CPUs", errnum, err,
				errlen);
	}
	if (bpf_map__set_max_entries(w->skel->maps.scratch, 4 * (unsigned)ncpu) ||
	    bpf_map__set_max_entries(w->skel->maps.ring,
				     ring_size(o->ring_bytes ? o->ring_bytes :
					       WALKER_RING_DEFAULT))) {
		r = errno;
		walker_close(w);
		return bpf_fail(r, "size the frame walker's maps", errnum, err,
				errlen);
	}
	/*
	 * A program this recording never attaches is not loaded: verifying
	 * them was most of record's start-up (sched_switch's 1,599
	 * instructions 86 ms, sched_waking's 36 ms, sys_exit's 25 ms, of
	 * 175 ms for all seven).
	 */
	if (bpf_program__set_autoload(w->skel->progs.walker_switch,
				      !!o->wall) ||
	    bpf_program__set_autoload(w->skel->progs.walker_sys_exit,
				      !!o->wall) ||
	    bpf_program__set_autoload(w->skel->progs.walker_waking,
				      o->wall && o->wakers)) {
		r = errno;
		walker_close(w);
		return bpf_fail(r, "choose the frame walker's programs", errnum,
				err, errlen);
	}
	r = walker_bpf__load(w->skel);
	if (r) {
		walker_close(w);
		return bpf_fail(-r, "load the frame walker's BPF programs",
				errnum, err, errlen);
	}
	cfg.ustack_bytes = o->ustack_bytes;
	cfg.max_py_frames = o->max_py_frames;
	cfg.follow_children = !!o->follow_children;
	cfg.wall = !!o->wall;
	cfg.wakers = o->wall && o->wakers;
	if (cfg.wakers && irq_ranges(o, hard, soft_lo, soft_hi) < 0) {
		walker_close(w);
		if (errnum)
			*errnum = ENOENT;
		return set_err(err, errlen, "cannot find the kernel's interrupt "
			       "entry and softirq code in /proc/kallsyms "
			       "(__irqentry_text_start, handle_softirqs or "
			       "__do_softirq): without them a wakeup in an "
			       "interrupt cannot be told from its task's");
	}
	cfg.hardirq_lo = hard[0];
	cfg.hardirq_hi = hard[1];
	cfg.softirq_lo[0] = soft_lo[0];
	cfg.softirq_lo[1] = soft_lo[1];
	cfg.softirq_hi[0] = soft_hi[0];
	cfg.softirq_hi[1] = soft_hi[1];
	if (bpf_map__update_elem(w->skel->maps.wconfig, &k0, sizeof(k0), &cfg,
				 sizeof(cfg), BPF_ANY)) {
		r = errno;
		walker_close(w);
		return bpf_fail(r, "configure the frame walker", errnum, err,
				errlen);
	}
	w->rb = ring_buffer__new(bpf_map__fd(w->skel->maps.ring), ring_cb, w,
				 NULL);
	if (!w->rb) {
		r = errno;
		walker_close(w);
		return bpf_fail(r, "open the frame walker's ring buffer", errnum,
				err, errlen);
	}
	*out = w;
	return 0;
}

void walker_close(struct walker *w)
{
	if (!w)
		return;
	detach_all(w);
	if (w->stats_fd >= 0)
		close(w->stats_fd);
	free(w->event_links);
	ring_buffer__free(w->rb);
	walker_bpf__destroy(w->skel);
	free(w);
}

/*
 * A layout the BPF side can use: known kinds, a frame read that it
 * allows, and every frame field inside that read.
 */
static int layout_check(const struct walker_layout *l, char *err,
			size_t errlen)
{
	const struct { const char *name; __u32 off, size; } f[] = {
		{ "frame_code", l->frame_code, 8 },
		{ "frame_back", l->frame_back, 8 },
		{ "frame_instr", l->frame_instr,
		  l->frame_kind == WALKER_FRAMEOBJ ? 4 : 8 },
		{ "frame_is_entry", l->frame_is_entry, 1 },
		{ "frame_owner", l->frame_owner, 1 },
	};
	size_t i;

	if (l->frame_kind != WALKER_FRAMEOBJ && l->frame_kind != WALKER_IFRAME)
		return set_err(err, errlen, "layout: unknown frame kind %u",
			       l->frame_kind);
	if (l->tstate_kind != WALKER_TS_DIRECT &&
	    l->tstate_kind != WALKER_TS_CFRAME)
		return set_err(err, errlen, "layout: unknown thread state kind %u",
			       l->tstate_kind);
	if (!l->frame_read_size || l->frame_read_size > WALKER_FRAME_READ_MAX)
		return set_err(err, errlen, "layout: a frame read of %u bytes "
			       "(the walker reads 1 to %u)", l->frame_read_size,
			       WALKER_FRAME_READ_MAX);
	for (i = 0; i < ARRAY_SIZE(f); i++) {
		if (f[i].off == WALKER_NO_FIELD)
			continue;
		if ((uint64_t)f[i].off + f[i].size > l->frame_read_size)
			return set_err(err, errlen, "layout: %s at %u is not "
				       "inside the %u bytes read per frame",
				       f[i].name, f[i].off, l->frame_read_size);
	}
	if (l->frame_code == WALKER_NO_FIELD || l->frame_back == WALKER_NO_FIELD ||
	    l->frame_instr == WALKER_NO_FIELD)
		return set_err(err, errlen, "layout: a frame needs its code, "
			       "its caller and its instruction");
	return 0;
}

int walker_add_layout(struct walker *w, const struct walker_layout *l,
		      __u32 *id, char *err, size_t errlen)
{
	__u32 k = w->nr_layouts;

	if (layout_check(l, err, errlen))
		return -1;
	if (k >= WALKER_MAX_LAYOUTS)
		return set_err(err, errlen, "the frame walker holds at most %u "
			       "layouts", WALKER_MAX_LAYOUTS);
	if (bpf_map__update_elem(w->skel->maps.layouts, &k, sizeof(k), l,
				 sizeof(*l), BPF_ANY))
		return set_err(err, errlen, "cannot store a layout: %s",
			       strerror(errno));
	w->nr_layouts++;
	*id = k;
	return 0;
}

int walker_set_proc(struct walker *w, pid_t tgid,
		    const struct walker_proc *p, char *err, size_t errlen)
{
	__u32 k = (__u32)tgid;

	if (tgid <= 0)
		return set_err(err, errlen, "cannot watch process %d",
			       (int)tgid);
	/* a process watched before its interpreter is known has none */
	if (p->runtime && p->layout >= w->nr_layouts)
		return set_err(err, errlen, "process %d: layout %u was not "
			       "added (%u are)", (int)tgid, p->layout,
			       w->nr_layouts);
	if (bpf_map__update_elem(w->skel->maps.procs, &k, sizeof(k), p,
				 sizeof(*p), BPF_ANY))
		return set_err(err, errlen, "cannot watch process %d: %s",
			       (int)tgid, strerror(errno));
	return 0;
}

int walker_del_proc(struct walker *w, pid_t tgid)
{
	__u32 k = (__u32)tgid;

	return bpf_map__delete_elem(w->skel->maps.procs, &k, sizeof(k), 0) ?
		-1 : 0;
}

int walker_preattach(struct walker *w, pid_t tid, uint64_t state, char *err,
		     size_t errlen)
{
	struct walker_preattach pa;
	__u32 k = (__u32)tid;

	if (w->attached)
		return set_err(err, errlen, "thread %d: the frame walker is "
			       "attached already", (int)tid);
	memset(&pa, 0, sizeof(pa));
	pa.state = state;
	/* BPF_NOEXIST: a thread listed twice is counted once */
	if (bpf_map__update_elem(w->skel->maps.preattach, &k, sizeof(k), &pa,
				 sizeof(pa), BPF_NOEXIST)) {
		if (errno == EEXIST)
			return 0;
		return set_err(err, errlen, "cannot follow thread %d from the "
			       "attach: %s", (int)tid, strerror(errno));
	}
	w->nr_preattach++;
	return 0;
}

/*
 * The online CPUs from /sys/devices/system/cpu/online ("0-3,6"), in
 * *cpus (caller frees); their number, or -1.
 */
static int online_cpus(int **cpus)
{
	struct strbuf sb;
	const char *p;
	unsigned long a, b, c;
	size_t n = 0, alloc = 0;
	int *v = NULL;

	strbuf_init(&sb, 64);
	if (strbuf_read_file(&sb, "/sys/devices/system/cpu/online", 4096)) {
		strbuf_release(&sb);
		return -1;
	}
	strbuf_rtrim(&sb);
	p = sb.buf;
	while (*p) {
		if (parse_uint_prefix(p, &a, &p))
			goto bad;
		b = a;
		if (*p == '-' && parse_uint_prefix(p + 1, &b, &p))
			goto bad;
		if (b < a || b > 65535)
			goto bad;
		for (c = a; c <= b; c++) {
			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				v = xrealloc(v, alloc * sizeof(*v));
			}
			v[n++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	strbuf_release(&sb);
	*cpus = v;
	return (int)n;
bad:
	strbuf_release(&sb);
	free(v);
	return -1;
}

static int perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* Undo what walker_attach() did so far. */
static void detach_all(struct walker *w)
{
	size_t t;

	for (t = 0; t < ARRAY_SIZE(w->task_links); t++) {
		bpf_link__destroy(w->task_links[t]);
		w->task_links[t] = NULL;
	}
	/* a perf event's link closes the event's fd too */
	for (t = 0; t < w->nr_events; t++)
		bpf_link__destroy(w->event_links[t]);
	w->nr_events = 0;
}

/* One cpu-clock event on each online CPU, walker_sample on each. */
static int attach_events(struct walker *w, char *err, size_t errlen)
{
	struct perf_event_attr a;
	struct bpf_link *link;
	int *cpus = NULL, n, i, fd, e;
	char par[16];

	n = online_cpus(&cpus);
	if (n < 0) {
		/* no sysfs: every configured CPU, the offline ones skipped */
		n = (int)sysconf(_SC_NPROCESSORS_CONF);
		if (n <= 0)
			return set_err(err, errlen, "cannot count the CPUs");
		cpus = xcalloc((size_t)n, sizeof(*cpus));
		for (i = 0; i < n; i++)
			cpus[i] = i;
	}
	free(w->event_links);
	w->event_links = xcalloc((size_t)n, sizeof(*w->event_links));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = w->opts.freq;
	for (i = 0; i < n; i++) {
		fd = perf_event_open(&a, -1, cpus[i]);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline since the list was read */
		if (fd < 0) {
			e = errno;
			fd = cpus[i];
			free(cpus);
			if (e != EACCES && e != EPERM)
				return set_err(err, errlen, "cannot open a "
					       "cpu-clock event on CPU %d: %s",
					       fd, strerror(e));
			read_sysctl("/proc/sys/kernel/perf_event_paranoid", par,
				    sizeof(par));
			return set_err(err, errlen, "cannot open a cpu-clock "
				       "event on every CPU: %s (the frame walker "
				       "needs root or CAP_PERFMON; "
				       "kernel.perf_event_paranoid is %s)",
				       strerror(e), par);
		}
		link = bpf_program__attach_perf_event(w->skel->progs.walker_sample,
						      fd);
		if (!link) {
			e = errno;
			close(fd);
			free(cpus);
			return bpf_fail(e, "attach the frame walker to a "
					"cpu-clock event", NULL, err, errlen);
		}
		w->event_links[w->nr_events++] = link;
	}
	free(cpus);
	if (!w->nr_events)
		return set_err(err, errlen, "no online CPU to sample");
	return 0;
}

int walker_attach(struct walker *w, char *err, size_t errlen)
{
	struct bpf_program *tp[ARRAY_SIZE(w->task_links)];
	__u64 left = w->nr_preattach;
	__u32 k0 = 0;
	size_t t;

	if (w->attached)
		return set_err(err, errlen, "the frame walker is attached already");
	/* before any program runs: the entries are all there by now */
	if (left && bpf_map__update_elem(w->skel->maps.preattach_left, &k0,
					 sizeof(k0), &left, sizeof(left),
					 BPF_ANY))
		return bpf_fail(errno, "count the threads blocked at the attach",
				NULL, err, errlen);
	/* before the first run, so that every run is timed */
	if (w->stats_fd < 0)
		w->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (attach_events(w, err, errlen)) {
		detach_all(w);
		return -1;
	}
	tp[0] = w->skel->progs.walker_fork;
	tp[1] = w->skel->progs.walker_exec;
	tp[2] = w->skel->progs.walker_exit;
	tp[3] = w->opts.wall ? w->skel->progs.walker_switch : NULL;
	tp[4] = w->opts.wall && w->opts.wakers ?
		w->skel->progs.walker_waking : NULL;
	/* every system call's exit: only while a blocked thread is followed */
	tp[5] = w->opts.wall && left ? w->skel->progs.walker_sys_exit : NULL;
	for (t = 0; t < ARRAY_SIZE(tp); t++) {
		if (!tp[t])
			continue;
		w->task_links[t] = bpf_program__attach(tp[t]);
		if (!w->task_links[t]) {
			bpf_fail(errno, "attach the frame walker to the "
				 "scheduler's tracepoints", NULL, err, errlen);
			detach_all(w);
			return -1;
		}
	}
	w->attached = 1;
	return 0;
}

int walker_poll(struct walker *w, int timeout_ms, walker_event_fn cb,
		void *data)
{
	int r;

	w->cb = cb;
	w->cb_data = data;
	/*
	 * The BPF side wakes this poll only once the ring is a quarter
	 * full: after a timeout, what is there is read all the same.
	 */
	r = ring_buffer__poll(w->rb, timeout_ms);
	if (r == 0)
		r = ring_buffer__consume(w->rb);
	w->cb = NULL;
	w->cb_data = NULL;
	return r;
}

/*
 * The sys_exit program runs at every system call's end on the machine
 * (the kernel takes every task's slow path for it while attached: 0.15
 * us a call measured, 60 % of dd bs=1's time): once no thread of
 * preattach is left, it goes.
 */
void walker_preattach_poll(struct walker *w)
{
	struct bpf_link **l = &w->task_links[5];
	__u64 left = 1;
	__u32 k0 = 0;

	if (!*l || bpf_map__lookup_elem(w->skel->maps.preattach_left, &k0,
					sizeof(k0), &left, sizeof(left), 0) ||
	    left)
		return;
	bpf_link__destroy(*l);
	*l = NULL;
}

void walker_preattach_rest(const struct walker *w, uint64_t attach_ns,
			   uint64_t end_ns, uint64_t *n, uint64_t *ns)
{
	const struct bpf_map *m = w->skel->maps.preattach;
	struct walker_preattach pa;
	__u32 k, next;
	uint64_t e;
	int first = 1;

	*n = *ns = 0;
	if (!w->nr_preattach)
		return;
	while (!bpf_map__get_next_key(m, first ? NULL : &k, &next,
				      sizeof(next))) {
		first = 0;
		k = next;
		if (bpf_map__lookup_elem(m, &k, sizeof(k), &pa, sizeof(pa), 0))
			continue;	/* gone since */
		/* switched in, not sent: its wait ended then */
		e = pa.in_ns ? pa.in_ns : end_ns;
		(*n)++;
		*ns += e > attach_ns ? e - attach_ns : 0;
	}
}

/* The sum over the CPUs of a per-CPU array's first value. */
static uint64_t percpu_sum(const struct bpf_map *map)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	__u64 *v;
	__u32 k0 = 0;
	uint64_t sum = 0;

	if (ncpu <= 0)
		return 0;
	v = xcalloc((size_t)ncpu, sizeof(*v));
	if (!bpf_map__lookup_elem(map, &k0, sizeof(k0), v,
				  (size_t)ncpu * sizeof(*v), 0))
		for (i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

uint64_t walker_lost(const struct walker *w)
{
	return percpu_sum(w->skel->maps.lost);
}

uint64_t walker_ustack_probes(const struct walker *w)
{
	return percpu_sum(w->skel->maps.ustack_probes);
}

int walker_cost(const struct walker *w, uint64_t *ns, uint64_t *runs)
{
	struct bpf_program *prog;

	*ns = *runs = 0;
	if (w->stats_fd < 0)
		return -1;
	bpf_object__for_each_program(prog, w->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;	/* not loaded */
		*ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
	return 0;
}

int walker_prog_ranges(const struct walker *w,
		       void (*cb)(void *data, uint64_t start, uint64_t end),
		       void *data)
{
	struct bpf_program *prog;
	int n = 0;

	bpf_object__for_each_program(prog, w->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info), i, nk, nl;
		__u64 *ks;
		__u32 *lens;
		int fd = bpf_program__fd(prog);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;	/* not loaded */
		nk = info.nr_jited_ksyms;
		nl = info.nr_jited_func_lens;
		if (!nk || nk != nl)
			continue;
		/* a program and its subprograms (bpf_loop() callbacks) */
		ks = xcalloc(nk, sizeof(*ks));
		lens = xcalloc(nl, sizeof(*lens));
		memset(&info, 0, sizeof(info));
		info.nr_jited_ksyms = nk;
		info.jited_ksyms = (__u64)(uintptr_t)ks;
		info.nr_jited_func_lens = nl;
		info.jited_func_lens = (__u64)(uintptr_t)lens;
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.nr_jited_ksyms == nk)
			for (i = 0; i < nk; i++)
				/* 0: addresses hidden (kptr_restrict) */
				if (ks[i] && lens[i]) {
					cb(data, ks[i], ks[i] + lens[i]);
					n++;
				}
		free(ks);
		free(lens);
	}
	return n;
}

#else /* !PPR_HAVE_BPF */

struct walker {
	int unused;
};

int walker_open(struct walker **out, const struct walker_opts *o,
		int *errnum, char *err, size_t errlen)
{
	*out = NULL;
	if (errnum)
		*errnum = ENOSYS;
	return set_err(err, errlen, "this pyperf-run was built without libbpf: "
		       "no in-kernel frame walker (install libbpf-dev, bpftool "
		       "and clang, then run ./configure and make again)");
}

/*
 * Nothing can call these without a walker from walker_open(): they are
 * here so that callers link either way.
 */
void walker_close(struct walker *w)
{
}

int walker_add_layout(struct walker *w, const struct walker_layout *l,
		      __u32 *id, char *err, size_t errlen)
{
	return set_err(err, errlen, "built without libbpf");
}

int walker_set_proc(struct walker *w, pid_t tgid,
		    const struct walker_proc *p, char *err, size_t errlen)
{
	return set_err(err, errlen, "built without libbpf");
}

int walker_del_proc(struct walker *w, pid_t tgid)
{
	return -1;
}

int walker_preattach(struct walker *w, pid_t tid, uint64_t state, char *err,
		     size_t errlen)
{
	return set_err(err, errlen, "built without libbpf");
}

int walker_attach(struct walker *w, char *err, size_t errlen)
{
	return set_err(err, errlen, "built without libbpf");
}

int walker_poll(struct walker *w, int timeout_ms, walker_event_fn cb,
		void *data)
{
	return -ENOSYS;
}

void walker_preattach_poll(struct walker *w)
{
}

void walker_preattach_rest(const struct walker *w, uint64_t attach_ns,
			   uint64_t end_ns, uint64_t *n, uint64_t *ns)
{
	*n = *ns = 0;
}

uint64_t walker_lost(const struct walker *w)
{
	return 0;
}

uint64_t walker_ustack_probes(const struct walker *w)
{
	return 0;
}

int walker_cost(const struct walker *w, uint64_t *ns, uint64_t *runs)
{
	*ns = *runs = 0;
	return -1;
}

int walker_prog_ranges(const struct walker *w,
		       void (*cb)(void *data, uint64_t start, uint64_t end),
		       void *data)
{
	return 0;
}

#endif
