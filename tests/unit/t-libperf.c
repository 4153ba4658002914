// SPDX-License-Identifier: GPL-2.0-only
/*
 * libperf, as configure found it (PPR_HAVE_LIBPERF): that this build can
 * sample a child process with perf_evlist / perf_evsel / perf_mmap, the
 * way `pyperf-run top` will.  A cpu-clock event at 999 Hz follows one
 * child that spins for 300 ms of its own CPU time; the samples read back
 * from the ring buffer must be the child's and add up to its CPU time.
 *
 * Built without libperf, the test says so as one skipped TAP point.
 */
#define _GNU_SOURCE
#include "tap.h"

#ifdef PPR_HAVE_LIBPERF
#include <errno.h>
#include <linux/perf_event.h>
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int quiet(enum libperf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static double thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child: wait for the go byte, spin for 300 ms of CPU, exit. */
static void child_main(int go_fd)
{
	char c;
	volatile unsigned long sink = 0;
	double start;

	if (read(go_fd, &c, 1) != 1)
		_exit(2);
	start = thread_cpu_seconds();
	while (thread_cpu_seconds() - start < 0.3)
		sink++;
	_exit(0);
}

/* The layout of a sample with IP | TID | TIME | PERIOD, in that order. */
struct sample {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t period;
};

int main(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.disabled = 1,
		.freq = 1,
		.sample_freq = 999,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			       PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
	};
	struct perf_thread_map *threads;
	struct perf_cpu_map *cpus;
	struct perf_evlist *evlist;
	struct perf_evsel *evsel;
	struct perf_mmap *map;
	union perf_event *ev;
	int go[2], status = 0, rc;
	pid_t pid;
	unsigned long nsamples = 0, foreign = 0;
	uint64_t period_sum = 0;

	libperf_init(quiet);
	if (pipe(go)) {
		TAP_OK(0, "pipe: %s", strerror(errno));
		return tap_done();
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		child_main(go[0]);
	}
	close(go[0]);
	TAP_OK(pid > 0, "fork the child to sample");
	if (pid < 0)
		return tap_done();

	threads = perf_thread_map__new_array(1, &pid);
	cpus = perf_cpu_map__new_any_cpu();
	evlist = perf_evlist__new();
	evsel = perf_evsel__new(&attr);
	TAP_OK(threads && cpus && evlist && evsel,
	       "libperf: thread map, cpu map, evlist and evsel");
	perf_evlist__add(evlist, evsel);
	perf_evlist__set_maps(evlist, cpus, threads);
	rc = perf_evlist__open(evlist);
	TAP_INT(rc, 0, "perf_evlist__open: cpu-clock on the child (%s)",
		rc ? strerror(-rc) : "ok");
	rc = rc ? rc : perf_evlist__mmap(evlist, 64);
	TAP_INT(rc, 0, "perf_evlist__mmap: 64 data pages");
	if (rc == 0) {
		perf_evlist__enable(evlist);
		if (write(go[1], "g", 1) != 1)
			kill(pid, SIGKILL);
	} else {
		kill(pid, SIGKILL);
	}
	close(go[1]);
	TAP_OK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0, "the child spun and exited");

	if (rc == 0) {
		perf_evlist__disable(evlist);
		perf_evlist__for_each_mmap(evlist, map, false) {
			if (perf_mmap__read_init(map) < 0)
				continue;
			while ((ev = perf_mmap__read_event(map)) != NULL) {
				if (ev->header.type == PERF_RECORD_SAMPLE &&
				    ev->header.size >= sizeof(struct sample)) {
					const struct sample *s = (const void *)ev;

					nsamples++;
					period_sum += s->period;
					if ((pid_t)s->pid != pid)
						foreign++;
				}
				perf_mmap__consume(map);
			}
			perf_mmap__read_done(map);
		}
	}
	/* 300 ms at 999 Hz is ~300 samples; the kernel may throttle the
	 * frequency, and a loaded machine delays the child, so the bound
	 * is loose.  The periods (ns of cpu-clock) add up to its CPU time. */
	TAP_OK(nsamples >= 100, "read %lu samples from the ring buffer", nsamples);
	TAP_INT(foreign, 0, "every sample is the child's (pid %d)", (int)pid);
	TAP_OK(period_sum >= 200000000ull && period_sum <= 600000000ull,
	       "the periods add up to the child's ~300 ms of CPU (%.1f ms)",
	       (double)period_sum / 1e6);

	if (evlist) {
		perf_evlist__munmap(evlist);
		perf_evlist__close(evlist);
		/* libperf 6.12's evsel delete keeps its map references */
		perf_cpu_map__put(perf_evsel__cpus(evsel));
		perf_thread_map__put(perf_evsel__threads(evsel));
		perf_evlist__delete(evlist); /* deletes evsel too */
	} else {
		perf_evsel__delete(evsel);
	}
	perf_cpu_map__put(cpus);
	perf_thread_map__put(threads);
	return tap_done();
}

#else

int main(void)
{
	printf("ok 1 # SKIP built without libperf (./configure --with-libperf)\n");
	printf("1..1\n");
	return 0;
}

#endif
