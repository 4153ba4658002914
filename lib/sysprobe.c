/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel and housekeeping facts for doctor (see sysprobe.h).
 */
#include "compat.h"
#include "sysprobe.h"
#include "alloc.h"
#include "numparse.h"
#include "strbuf.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int sysprobe_read_long(const char *path, long *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = strbuf_read_file(&sb, path, 256);

	if (!ret) {
		strbuf_rtrim(&sb);
		ret = parse_long(sb.buf, 10, -1000000000L, 1000000000L, out);
	}
	strbuf_release(&sb);
	return ret;
}

static void read_value(const char *name, struct sysprobe_value *v)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	v->have = !sysprobe_read_long(path, &v->value);
}

/* The user registers perf asks for with --call-graph dwarf. */
static uint64_t user_regs_mask(void)
{
#if defined(__x86_64__)
	/* AX..R15 (24 registers) without DS, ES, FS, GS (12-15). */
	return ((1ULL << 24) - 1) & ~(0xfULL << 12);
#elif defined(__aarch64__)
	return (1ULL << 33) - 1;
#else
	return 0;
#endif
}

/* Open a on the calling thread and close it again: 0, or -errno. */
static int try_attr(struct perf_event_attr *a)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int open_event(int dwarf, unsigned stack_size, int user_only)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.freq = 1;
	a.sample_freq = 99;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	a.disabled = 1;
	a.mmap = 1;
	a.comm = 1;
	a.exclude_kernel = user_only ? 1 : 0;
	a.exclude_hv = 1;
	if (dwarf) {
		a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = user_regs_mask();
		a.sample_stack_user = stack_size;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
	}
	return try_attr(&a);
}

void sysprobe_try_open(int dwarf, unsigned stack_size,
		       struct sysprobe_open *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = open_event(dwarf, stack_size, 0);
	if (r == -EACCES || r == -EPERM) {
		int r2 = open_event(dwarf, stack_size, 1);

		if (!r2) {
			out->ok = 1;
			out->user_only = 1;
			return;
		}
	}
	out->ok = !r;
	out->error = r ? -r : 0;
}

int sysprobe_mmap_build_id(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.build_id = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return try_attr(&a) == 0;
}

void sysprobe_limits(struct sysprobe_kernel *k)
{
	memset(k, 0, sizeof(*k));
	read_value("perf_event_paranoid", &k->paranoid);
	read_value("kptr_restrict", &k->kptr_restrict);
	read_value("perf_event_max_sample_rate", &k->max_sample_rate);
	read_value("perf_event_max_stack", &k->max_stack);
	k->privileged = geteuid() == 0;
}

void sysprobe_kernel(struct sysprobe_kernel *k)
{
	sysprobe_limits(k);
	sysprobe_try_open(0, 0, &k->callchain);
	k->regs_supported = user_regs_mask() != 0;
	if (k->regs_supported)
		sysprobe_try_open(1, 16384, &k->dwarf);
}

pid_t sysprobe_perf_file_pid(const char *name)
{
	static const struct {
		const char *prefix, *suffix;
		int dash;	/* "-N" between the pid and the suffix */
	} kinds[] = {
		{ "perf-", ".map", 0 },
		{ "jit-", ".dump", 0 },
		{ "jitted-", ".so", 1 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		size_t pl = strlen(kinds[i].prefix);
		const char *p;
		unsigned long pid, n;

		if (strncmp(name, kinds[i].prefix, pl))
			continue;
		if (parse_uint_prefix(name + pl, &pid, &p) || !pid ||
		    pid > 0x7fffffffUL)
			continue;
		if (kinds[i].dash &&
		    (*p != '-' || parse_uint_prefix(p + 1, &n, &p)))
			continue;
		if (strcmp(p, kinds[i].suffix))
			continue;
		return (pid_t)pid;
	}
	return 0;
}

static double boot_time(void)
{
	static double btime = -2;
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (btime > -2)
		return btime;
	btime = -1;
	if (!strbuf_read_file(&sb, "/proc/stat", 1 << 20)) {
		p = strstr(sb.buf, "\nbtime ");
		if (p) {
			unsigned long v;

			if (!parse_uint_prefix(p + 7, &v, &p))
				btime = (double)v;
		}
	}
	strbuf_release(&sb);
	return btime;
}

double sysprobe_proc_start(pid_t pid)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64];
	double ret = -1;
	const char *p;
	int field;
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (strbuf_read_file(&sb, path, 8192))
		goto out;
	/* The command name may hold spaces and parentheses: skip past
	 * the last ')'; then field 3 (state) follows. */
	p = strrchr(sb.buf, ')');
	if (!p)
		goto out;
	p++;
	for (field = 3; field < 22 && *p; field++) {
		while (*p == ' ')
			p++;
		p += strcspn(p, " ");
	}
	while (*p == ' ')
		p++;
	{
		unsigned long ticks;
		double bt = boot_time();

		if (bt < 0 || hz <= 0 || parse_uint_prefix(p, &ticks, &p))
			goto out;
		ret = bt + (double)ticks / (double)hz;
	}
out:
	strbuf_release(&sb);
	return ret;
}

int sysprobe_is_stale(pid_t pid, double mtime)
{
	double start = sysprobe_proc_start(pid);

	if (start < 0)
		return 1;
	/* btime has one-second resolution: allow for it. */
	return start > mtime + 1.0;
}

static void add_pid(struct sysprobe_stale *st, pid_t pid)
{
	size_t i;

	for (i = 0; i < st->nr_pids; i++)
		if (st->pids[i] == pid)
			return;
	ALLOC_GROW(st->pids, st->nr_pids + 1, st->alloc_pids);
	st->pids[st->nr_pids++] = pid;
}

int sysprobe_stale_scan(const char *dir, struct sysprobe_stale *st)
{
	const size_t max_entries = 1000000;
	uid_t euid = geteuid();
	size_t seen = 0;
	struct dirent *de;
	DIR *d;
	int dfd;

	memset(st, 0, sizeof(*st));
	d = opendir(dir);
	if (!d)
		return -errno;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		struct stat s;
		double mtime;
		pid_t pid;

		if (++seen > max_entries) {
			st->truncated = 1;
			break;
		}
		pid = sysprobe_perf_file_pid(de->d_name);
		if (!pid)
			continue;
		if (fstatat(dfd, de->d_name, &s, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(s.st_mode))
			continue;
		/* Only what the caller could remove. */
		if (euid && s.st_uid != euid)
			continue;
		mtime = (double)s.st_mtim.tv_sec + s.st_mtim.tv_nsec / 1e9;
		if (!sysprobe_is_stale(pid, mtime)) {
			st->live++;
			continue;
		}
		st->files++;
		st->bytes += (unsigned long long)s.st_size;
		add_pid(st, pid);
	}
	closedir(d);
	return 0;
}

void sysprobe_stale_release(struct sysprobe_stale *st)
{
	free(st->pids);
	memset(st, 0, sizeof(*st));
}

long long sysprobe_free_bytes(const char *path)
{
	struct statvfs v;

	if (statvfs(path, &v))
		return -errno;
	return (long long)v.f_bavail * (long long)v.f_frsize;
}

struct tree_walk {
	size_t max, entries;
	unsigned long long bytes;
	size_t files;
	int truncated;
};

static void walk(int dfd, struct tree_walk *w, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(dfd);

	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) && !w->truncated) {
		struct stat s;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > w->max) {
			w->truncated = 1;
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(s.st_mode)) {
			w->bytes += (unsigned long long)s.st_blocks * 512;
			w->files++;
		} else if (S_ISDIR(s.st_mode) && depth < 64) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);

			if (sub >= 0)
				walk(sub, w, depth + 1);
		}
	}
	closedir(d);
}

int sysprobe_tree_size(const char *path, size_t max_entries,
		       unsigned long long *bytes, size_t *files,
		       int *truncated)
{
	struct tree_walk w = { max_entries, 0, 0, 0, 0 };
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	*bytes = 0;
	*files = 0;
	*truncated = 0;
	if (fd < 0)
		return -errno;
	walk(fd, &w, 0);
	*bytes = w.bytes;
	*files = w.files;
	*truncated = w.truncated;
	return 0;
}

char *sysprobe_buildid_dir(void)
{
	const char *e = getenv("PERF_BUILDID_DIR");
	const char *home = getenv("HOME");

	if (e && *e)
		return xstrdup(e);
	if (!home || !*home)
		return NULL;
	return xasprintf("%s/.debug", home);
}

void sysprobe_human_size(unsigned long long bytes, char *buf, size_t len)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	size_t i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu B", bytes);
		return;
	}
	v /= 1024;
	while (v >= 1024 && i + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[i]);
}

unsigned sysprobe_cap_frequency(const struct sysprobe_kernel *k,
				unsigned long want)
{
	const struct sysprobe_value *max = &k->max_sample_rate;

	if (max->have && max->value > 0 && want > (unsigned long)max->value)
		return (unsigned)max->value;
	return (unsigned)want;
}
