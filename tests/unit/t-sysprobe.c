/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: lib/sysprobe.c (perf file names, staleness, sizes) */
#include "compat.h"
#include "alloc.h"
#include "paths.h"
#include "sysprobe.h"
#include "tap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void touch(const char *dir, const char *name, size_t size,
		  double mtime)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct timespec ts[2];

	if (fd >= 0) {
		if (size && ftruncate(fd, (off_t)size))
			perror("ftruncate");
		if (mtime > 0) {
			ts[0].tv_sec = ts[1].tv_sec = (time_t)mtime;
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
			futimens(fd, ts);
		}
		close(fd);
	}
	free(path);
}

/* A pid that was just in use and is now gone. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

int main(void)
{
	char buf[64];
	char tmpl[] = "/tmp/t-sysprobe-XXXXXX";
	char *dir;
	struct sysprobe_stale st;
	pid_t me = getpid(), gone = dead_pid();
	char name[64];
	double start;

	TAP_INT(sysprobe_perf_file_pid("perf-123.map"), 123, "perf map");
	TAP_INT(sysprobe_perf_file_pid("jit-4567.dump"), 4567, "jitdump");
	TAP_INT(sysprobe_perf_file_pid("jitted-89-12.so"), 89, "jitted so");
	TAP_INT(sysprobe_perf_file_pid("perf-123.map.bak"), 0, "suffix");
	TAP_INT(sysprobe_perf_file_pid("perf-.map"), 0, "no pid");
	TAP_INT(sysprobe_perf_file_pid("perf-0.map"), 0, "pid 0");
	TAP_INT(sysprobe_perf_file_pid("perf-12a.map"), 0, "not digits");
	TAP_INT(sysprobe_perf_file_pid("jitted-89.so"), 0, "jitted w/o n");
	TAP_INT(sysprobe_perf_file_pid("jitted-89-.so"), 0, "jitted n empty");
	TAP_INT(sysprobe_perf_file_pid("jit-99999999999.dump"), 0,
		"pid too large");
	TAP_INT(sysprobe_perf_file_pid("perf.data"), 0, "perf.data");

	sysprobe_human_size(512, buf, sizeof(buf));
	TAP_STR(buf, "512 B", "bytes");
	sysprobe_human_size(1536, buf, sizeof(buf));
	TAP_STR(buf, "1.5 KiB", "KiB with a decimal");
	sysprobe_human_size(62ULL << 20, buf, sizeof(buf));
	TAP_STR(buf, "62 MiB", "MiB");
	sysprobe_human_size(3ULL << 40, buf, sizeof(buf));
	TAP_STR(buf, "3.0 TiB", "TiB");

	start = sysprobe_proc_start(me);
	TAP_OK(start > 1e9 && start <= (double)time(NULL) + 1,
	       "this process started at a plausible time (%.0f)", start);
	TAP_OK(sysprobe_proc_start(gone) < 0, "a dead pid has no start");
	TAP_INT(sysprobe_is_stale(gone, (double)time(NULL)), 1,
		"a dead process's file is stale");
	TAP_INT(sysprobe_is_stale(me, (double)time(NULL)), 0,
		"a live process's fresh file is not stale");
	TAP_INT(sysprobe_is_stale(me, start - 3600), 1,
		"a file older than the process is stale (pid reused)");

	dir = mkdtemp(tmpl);
	TAP_OK(dir != NULL, "temporary directory");
	if (!dir)
		return tap_done();
	snprintf(name, sizeof(name), "perf-%d.map", (int)me);
	touch(dir, name, 100, 0);			/* live */
	snprintf(name, sizeof(name), "jitted-%d-3.so", (int)me);
	touch(dir, name, 1000, start - 3600);		/* pid reused */
	snprintf(name, sizeof(name), "jit-%d.dump", (int)gone);
	touch(dir, name, 10, 0);			/* dead */
	snprintf(name, sizeof(name), "jitted-%d-1.so", (int)gone);
	touch(dir, name, 20, 0);			/* dead */
	touch(dir, "perf-1x.map", 5, 0);		/* not ours */
	touch(dir, "unrelated.txt", 5, 0);
	{
		char *sub = xasprintf("%s/jit-%d.dump", dir, (int)gone + 1);

		mkdir(sub, 0700);			/* not a file */
		free(sub);
	}
	TAP_INT(sysprobe_stale_scan(dir, &st), 0, "scan");
	TAP_INT(st.files, 3, "three stale files");
	TAP_INT(st.bytes, 1030, "their size");
	TAP_INT(st.live, 1, "one live file");
	TAP_INT(st.nr_pids, 2, "two pids");
	sysprobe_stale_release(&st);
	TAP_INT(sysprobe_stale_scan("/nonexistent-dir", &st), -ENOENT,
		"a missing directory");
	sysprobe_stale_release(&st);

	{
		unsigned long long bytes;
		size_t files;
		int trunc;

		TAP_INT(sysprobe_tree_size(dir, 1000, &bytes, &files, &trunc),
			0, "tree size");
		TAP_INT(files, 6, "tree: six files");
		TAP_INT(trunc, 0, "tree: not truncated");
		TAP_INT(sysprobe_tree_size(dir, 2, &bytes, &files, &trunc),
			0, "tree size with a limit");
		TAP_INT(trunc, 1, "tree: truncated at the limit");
		TAP_INT(sysprobe_tree_size("/nonexistent-dir", 10, &bytes,
					   &files, &trunc), -ENOENT,
			"tree: missing");
	}
	TAP_OK(sysprobe_free_bytes(dir) > 0, "free bytes");
	TAP_INT(sysprobe_free_bytes("/nonexistent-dir"), -ENOENT,
		"free bytes of a missing path");
	paths_remove_tree(dir);

	{
		struct sysprobe_kernel k;
		long v;

		sysprobe_kernel(&k);
		TAP_INT(k.paranoid.have,
			!sysprobe_read_long("/proc/sys/kernel/"
					    "perf_event_paranoid", &v),
			"paranoid read as the file says");
		TAP_OK(k.callchain.ok || k.callchain.error,
		       "call-chain open has an outcome");
		TAP_OK(!k.regs_supported || k.dwarf.ok || k.dwarf.error,
		       "dwarf open has an outcome");
	}
	{
		char *b;

		setenv("PERF_BUILDID_DIR", "/x/y", 1);
		b = sysprobe_buildid_dir();
		TAP_STR(b, "/x/y", "PERF_BUILDID_DIR wins");
		free(b);
		unsetenv("PERF_BUILDID_DIR");
		setenv("HOME", "/home/u", 1);
		b = sysprobe_buildid_dir();
		TAP_STR(b, "/home/u/.debug", "~/.debug otherwise");
		free(b);
	}
	{
		struct sysprobe_kernel k;

		memset(&k, 0, sizeof(k));
		TAP_INT(sysprobe_cap_frequency(&k, 999), 999,
			"frequency: no known maximum");
		k.max_sample_rate.have = 1;
		k.max_sample_rate.value = 500;
		TAP_INT(sysprobe_cap_frequency(&k, 999), 500,
			"frequency: capped at perf_event_max_sample_rate");
		TAP_INT(sysprobe_cap_frequency(&k, 100), 100,
			"frequency: below the maximum");
		sysprobe_limits(&k);
		TAP_OK(!k.callchain.ok && !k.dwarf.ok,
		       "limits: no perf_event_open tries");
	}
	return tap_done();
}
