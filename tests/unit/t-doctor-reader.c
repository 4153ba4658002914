// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/doctor/doctor_reader.c: the "reader" checks judged from forced
 * facts (libdw, libperf, perf's libtraceevent, /proc/kallsyms under each
 * kptr_restrict / perf_event_paranoid / privilege combination), and the
 * kallsyms probe on files made here.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "tap.h"

#include <unistd.h>

static const struct doctor_check *find(const struct doctor *d, const char *id)
{
	size_t i;

	for (i = 0; i < d->nr_checks; i++)
		if (!strcmp(d->checks[i].id, id))
			return &d->checks[i];
	return NULL;
}

/* A doctor with everything present and /proc/kallsyms showing addresses. */
static void base(struct doctor *d)
{
	memset(d, 0, sizeof(*d));
	snprintf(d->reader.libdw_version, sizeof(d->reader.libdw_version),
		 "0.188");
	d->reader.libperf = 1;
	d->reader.perf_libtraceevent = 1;
	d->reader.kallsyms = 1;
	d->perf_version_ok = 1;
	d->kernel.kptr_restrict.have = 1;
	d->kernel.paranoid.have = 1;
	d->kernel.paranoid.value = 2;
}

static int has(const struct doctor_check *c, const char *text, const char *fix)
{
	return c && strstr(c->text, text) &&
	       (fix ? c->fix && strstr(c->fix, fix) : c->fix == NULL);
}

/* The kallsyms verdict for hidden addresses under kr, pa, root. */
static void hidden(long kr, long pa, int root, const char *why,
		   const char *fix)
{
	struct doctor d;
	const struct doctor_check *c;

	base(&d);
	d.reader.kallsyms = 0;
	d.kernel.kptr_restrict.value = kr;
	d.kernel.paranoid.value = pa;
	d.kernel.privileged = root;
	doctor_reader_judge(&d);
	c = find(&d, "reader.kallsyms");
	TAP_OK(c && c->level == DOCTOR_WARNING && has(c, why, fix) &&
	       strstr(c->text, "kernel frames stay unnamed"),
	       "kallsyms hidden, kptr_restrict=%ld paranoid=%ld %s: '%s'",
	       kr, pa, root ? "root" : "user", c ? c->text : "(none)");
	if (c && fix && !strstr(c->fix ? c->fix : "", fix))
		printf("#   fix: %s\n", c->fix ? c->fix : "(none)");
	doctor_release(&d);
}

static void test_all_present(void)
{
	struct doctor d;

	base(&d);
	doctor_reader_judge(&d);
	TAP_INT(d.nr_checks, 4, "four reader checks");
	TAP_INT(d.nr_warnings + d.nr_problems, 0, "all present: all ok");
	TAP_OK(has(find(&d, "reader.libdw"), "libdw 0.188", NULL),
	       "libdw's version shown");
	TAP_OK(has(find(&d, "reader.libperf"), "top can sample", NULL),
	       "libperf: top");
	TAP_OK(has(find(&d, "reader.kallsyms"), "shows addresses", NULL),
	       "kallsyms: addresses");
	TAP_OK(has(find(&d, "reader.perf_libtraceevent"), "sched_switch", NULL),
	       "perf records tracepoints");
	TAP_STR(find(&d, "reader.libdw")->section, "reader", "section reader");
	doctor_release(&d);
}

static void test_missing(void)
{
	struct doctor d;
	const struct doctor_check *c;

	base(&d);
	d.reader.libperf = 0;
	d.reader.perf_libtraceevent = 0;
	d.reader.libdw_version[0] = '\0';
	doctor_reader_judge(&d);
	c = find(&d, "reader.libperf");
	TAP_OK(c && c->level == DOCTOR_WARNING &&
	       has(c, "'pyperf-run top' is unavailable", "libperf.sh"),
	       "no libperf: top unavailable, how to build it");
	c = find(&d, "reader.perf_libtraceevent");
	TAP_OK(c && c->level == DOCTOR_WARNING &&
	       has(c, "no off-CPU or wall-clock time", "libtraceevent"),
	       "perf without libtraceevent: no off-CPU time");
	c = find(&d, "reader.libdw");
	TAP_OK(c && c->level == DOCTOR_WARNING, "libdw without a version");
	TAP_INT(d.nr_problems, 0, "none of them blocks Python frames");
	doctor_release(&d);

	base(&d);
	d.reader.perf_libtraceevent = 2;
	doctor_reader_judge(&d);
	TAP_OK(has(find(&d, "reader.perf_libtraceevent"),
		   "its own copy, as perf before 6.2", NULL),
	       "perf before 6.2: its own libtraceevent");
	doctor_release(&d);

	base(&d);
	d.reader.perf_libtraceevent = -1;
	doctor_reader_judge(&d);
	c = find(&d, "reader.perf_libtraceevent");
	TAP_OK(c && c->level == DOCTOR_OK && has(c, "unknown", NULL),
	       "not listed by a perf 6.2+: unknown, not a warning");
	doctor_release(&d);

	base(&d);
	d.reader.kallsyms = -EACCES;
	doctor_reader_judge(&d);
	TAP_OK(has(find(&d, "reader.kallsyms"), "cannot read /proc/kallsyms: "
		   "Permission denied", "/proc"), "kallsyms unreadable");
	doctor_release(&d);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_probe(void)
{
	char dir[] = "/tmp/t-doctor-reader.XXXXXX";
	char path[64];

	if (!mkdtemp(dir)) {
		TAP_OK(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/k", dir);
	write_file(path, "0000000000000000 A fixed_percpu_data\n"
			 "0000000000000000 A __per_cpu_start\n"
			 "ffffffff81000000 T _stext\n");
	TAP_INT(doctor_kallsyms_probe(path), 1, "addresses after per-cpu zeros");
	write_file(path, "0000000000000000 A fixed_percpu_data\n"
			 "0000000000000000 T _stext\n");
	TAP_INT(doctor_kallsyms_probe(path), 0, "all zero: hidden");
	write_file(path, "");
	TAP_INT(doctor_kallsyms_probe(path), -ENODATA, "empty: no data");
	unlink(path);
	TAP_INT(doctor_kallsyms_probe(path), -ENOENT, "missing");
	rmdir(dir);
}

int main(void)
{
	test_all_present();
	test_missing();
	/* which setting hides the addresses, and what fixes it */
	hidden(2, 1, 1, "kptr_restrict = 2 hides them from every user",
	       "sudo sysctl kernel.kptr_restrict=1");
	hidden(2, -1, 0, "kptr_restrict = 2 hides them from every user",
	       "kernel.kptr_restrict=0 kernel.perf_event_paranoid=1");
	hidden(1, 1, 0, "kptr_restrict = 1 shows them to root",
	       "run as root, or: sudo sysctl kernel.kptr_restrict=0");
	hidden(0, 2, 0, "perf_event_paranoid <= 1, and it is 2",
	       "sudo sysctl kernel.perf_event_paranoid=1");
	hidden(0, 3, 0, "perf_event_paranoid <= 1, and it is 3",
	       "sudo sysctl kernel.perf_event_paranoid=1");
	hidden(0, 1, 0, "kernel lockdown", "/sys/kernel/security/lockdown");
	hidden(1, 2, 1, "kernel lockdown", "/sys/kernel/security/lockdown");
	test_probe();
	return tap_done();
}
