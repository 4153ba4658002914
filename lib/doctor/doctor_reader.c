// SPDX-License-Identifier: GPL-2.0-only
/*
 * doctor's "reader" checks: what reading perf.data natively and
 * `pyperf-run top` need.  libdw and libperf are facts of this build;
 * perf's libtraceevent comes from its build options (gathered with the
 * other build options in doctor.c); /proc/kallsyms is read as the
 * current user, since the kernel decides per opener whether it shows
 * addresses.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "alloc.h"

#include <elfutils/libdwfl.h>

/*
 * 1: the kallsyms file at path shows addresses; 0: every address reads
 * as zero (hidden); -errno: it cannot be read.  With addresses shown,
 * the text symbols start within the first few hundred lines (only the
 * per-cpu symbols before them sit at 0), so a bounded read answers.
 */
int doctor_kallsyms_probe(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int lines = 0, r = 0;

	if (!f)
		return -errno;
	while (lines < 20000 && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type;

		lines++;
		if (sscanf(line, "%llx %c", &addr, &type) == 2 && addr) {
			r = 1;
			break;
		}
	}
	if (ferror(f))
		r = -EIO;
	else if (!lines)
		r = -ENODATA;
	fclose(f);
	return r;
}

void doctor_reader_gather(struct doctor *d)
{
	struct doctor_reader *r = &d->reader;
	const char *v = dwfl_version(NULL);

	snprintf(r->libdw_version, sizeof(r->libdw_version), "%s",
		 v ? v : "");
#ifdef PPR_HAVE_LIBPERF
	r->libperf = 1;
#endif
	r->kallsyms = doctor_kallsyms_probe("/proc/kallsyms");
	/* perf 6.2 moved to the system's libtraceevent and added the
	 * build option; earlier ones always build their own copy */
	if (r->perf_libtraceevent < 0 && d->perf_version_ok &&
	    (d->perf_version.major < 6 ||
	     (d->perf_version.major == 6 && d->perf_version.minor < 2)))
		r->perf_libtraceevent = 2;
}

/*
 * Why /proc/kallsyms hides addresses from this user, and the fix.  The
 * kernel shows them when kptr_restrict = 0 and perf_event_paranoid <= 1,
 * or to CAP_SYSLOG (root here) when kptr_restrict <= 1; 2 hides them
 * from everyone.
 */
static void kallsyms_why(const struct sysprobe_kernel *k, char **why,
			 char **fix)
{
	long kr = k->kptr_restrict.have ? k->kptr_restrict.value : -1;
	long pa = k->paranoid.have ? k->paranoid.value : -1;

	if (kr >= 2) {
		*why = xasprintf("kptr_restrict = %ld hides them from every "
				 "user", kr);
		*fix = k->privileged
			? xstrdup("sudo sysctl kernel.kptr_restrict=1 (root "
				  "then sees them; 0 with "
				  "kernel.perf_event_paranoid=1 for every "
				  "user)")
			: xstrdup("sudo sysctl kernel.kptr_restrict=0 "
				  "kernel.perf_event_paranoid=1");
	} else if (kr == 1 && !k->privileged) {
		*why = xstrdup("kptr_restrict = 1 shows them to root "
			       "(CAP_SYSLOG) only");
		*fix = xstrdup("run as root, or: sudo sysctl "
			       "kernel.kptr_restrict=0 "
			       "kernel.perf_event_paranoid=1");
	} else if (kr == 0 && pa >= 2 && !k->privileged) {
		*why = xasprintf("with kptr_restrict = 0 they show only while "
				 "perf_event_paranoid <= 1, and it is %ld", pa);
		*fix = xstrdup("sudo sysctl kernel.perf_event_paranoid=1 (or "
			       "run as root)");
	} else {
		*why = xasprintf("although kptr_restrict = %ld and "
				 "perf_event_paranoid = %ld allow them "
				 "(kernel lockdown?)", kr, pa);
		*fix = xstrdup("see /sys/kernel/security/lockdown: "
			       "confidentiality mode hides them");
	}
}

void doctor_reader_judge(struct doctor *d)
{
	const struct doctor_reader *r = &d->reader;

	if (r->libdw_version[0])
		doctor_add_check(d, "reader", "reader.libdw", DOCTOR_OK,
				 xasprintf("libdw %s: DWARF sessions unwind "
					   "in-process", r->libdw_version),
				 NULL);
	else
		doctor_add_check(d, "reader", "reader.libdw", DOCTOR_WARNING,
				 xstrdup("libdw does not report its version: "
					 "DWARF sessions may not unwind"),
				 xstrdup("reinstall elfutils' libdw "
					 "(apt-get install --reinstall "
					 "libdw1)"));

	if (r->perf_libtraceevent > 0)
		doctor_add_check(d, "reader", "reader.perf_libtraceevent",
				 DOCTOR_OK,
				 xasprintf("perf has libtraceevent%s: it records "
					   "tracepoints (sched_switch for "
					   "off-CPU time) with their formats",
					   r->perf_libtraceevent == 2
					   ? " (its own copy, as perf before "
					     "6.2 has)" : ""),
				 NULL);
	else if (r->perf_libtraceevent == 0)
		doctor_add_check(d, "reader", "reader.perf_libtraceevent",
				 DOCTOR_WARNING,
				 xstrdup("perf was built without "
					 "libtraceevent: it cannot record "
					 "tracepoints such as "
					 "sched:sched_switch, so there is no "
					 "off-CPU or wall-clock time"),
				 xstrdup("install a perf built with "
					 "libtraceevent (Debian's linux-perf "
					 "is; to build perf: apt-get install "
					 "libtraceevent-dev first)"));
	else if (d->perf_version_ok)
		doctor_add_check(d, "reader", "reader.perf_libtraceevent",
				 DOCTOR_OK,
				 xstrdup("perf's build options do not list "
					 "libtraceevent: tracepoint support "
					 "unknown"),
				 NULL);

	if (r->kallsyms == 1) {
		doctor_add_check(d, "reader", "reader.kallsyms", DOCTOR_OK,
				 xstrdup("/proc/kallsyms shows addresses: "
					 "kernel frames get names"), NULL);
	} else if (r->kallsyms == 0) {
		char *why, *fix;

		kallsyms_why(&d->kernel, &why, &fix);
		doctor_add_check(d, "reader", "reader.kallsyms",
				 DOCTOR_WARNING,
				 xasprintf("/proc/kallsyms hides kernel "
					   "addresses (%s): kernel frames stay "
					   "unnamed, and sessions carry no "
					   "kernel symbols", why),
				 fix);
		free(why);
	} else {
		doctor_add_check(d, "reader", "reader.kallsyms",
				 DOCTOR_WARNING,
				 xasprintf("cannot read /proc/kallsyms: %s: "
					   "kernel frames stay unnamed",
					   strerror(-r->kallsyms)),
				 xstrdup("is /proc mounted?"));
	}

	if (r->libperf)
		doctor_add_check(d, "reader", "reader.libperf", DOCTOR_OK,
				 xstrdup("built with libperf: top can "
					 "sample"), NULL);
	else
		doctor_add_check(d, "reader", "reader.libperf",
				 DOCTOR_WARNING,
				 xstrdup("built without libperf: "
					 "'pyperf-run top' is unavailable"),
				 xstrdup("rebuild pyperf-run with libperf: "
					 ".ci/setup.d/libperf.sh builds it "
					 "from linux-source-6.12, then "
					 "./configure --with-libperf"));
}
