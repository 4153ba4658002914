/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: lib/doctor/doctor_probe.c's judgement of the probe's recording
 * (a profile as profile_load() builds it, root first) and of perf's
 * unwinder messages.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "report/profile.h"
#include "tap.h"

static uint32_t py(struct profile *p, const char *func)
{
	return profile_frame_intern(p, FRAME_PYTHON, NATIVE_NONE, NULL, func,
				    "/t/probe.py", NULL);
}

static uint32_t native(struct profile *p, const char *sym)
{
	return profile_frame_intern(p, FRAME_NATIVE, NATIVE_LIBPYTHON, NULL,
				    sym, NULL, "/usr/bin/python3.11");
}

/* A stack root first: <module>, levels x step, leaf (complete or not). */
static void add(struct profile *p, int module, int levels, const char *leaf,
		uint64_t samples)
{
	uint32_t f[300];
	uint32_t n = 0;
	int i;

	f[n++] = native(p, "_start");
	if (module)
		f[n++] = py(p, "<module>");
	for (i = 0; i < levels; i++) {
		f[n++] = native(p, "_PyEval_EvalFrameDefault");
		f[n++] = py(p, "pyperf_probe_step");
	}
	f[n++] = py(p, leaf);
	profile_stack_add(p, f, n, PROFILE_NO_TASK, samples, samples);
}

int main(void)
{
	struct profile p;
	struct probe_pass a;

	profile_init(&p);
	add(&p, 1, 4, "pyperf_probe_shallow", 30);
	add(&p, 1, 64, "pyperf_probe_deep", 10);
	add(&p, 0, 20, "pyperf_probe_deep", 30);
	memset(&a, 0, sizeof(a));
	a.stack_size = 32768;
	doctor_probe_check_profile(&p, &a);
	TAP_INT(a.stack_size, 32768, "the pass keeps its dump size");
	TAP_INT(a.samples, 70, "every sample counted");
	TAP_INT(a.shallow, 30, "shallow samples");
	TAP_INT(a.shallow_complete, 30, "...all down to <module>");
	TAP_INT(a.deep, 40, "deep samples");
	TAP_INT(a.deep_complete, 10, "...10 down to <module>");
	TAP_INT(a.deep_py_max, 66, "Python frames of the deepest sample");
	TAP_INT(a.deep_frames_max, 131, "frames of the deepest sample");
	TAP_STR(a.deep_stop, "_start", "where a cut deep stack begins");
	profile_release(&p);

	/* Python frames without <module> at the root: incomplete. */
	profile_init(&p);
	add(&p, 0, 2, "pyperf_probe_shallow", 5);
	memset(&a, 0, sizeof(a));
	doctor_probe_check_profile(&p, &a);
	TAP_INT(a.shallow, 5, "cut shallow samples are counted");
	TAP_INT(a.shallow_complete, 0, "...as incomplete");
	TAP_INT(a.deep, 0, "no deep samples");
	profile_release(&p);

	/* Nothing of the probe. */
	profile_init(&p);
	{
		uint32_t f[2];

		f[0] = native(&p, "_start");
		f[1] = native(&p, "main");
		profile_stack_add(&p, f, 2, PROFILE_NO_TASK, 3, 3);
	}
	memset(&a, 0, sizeof(a));
	doctor_probe_check_profile(&p, &a);
	TAP_INT(a.samples, 3, "samples without the probe");
	TAP_INT(a.shallow + a.deep, 0, "...have none of its functions");
	profile_release(&p);

	TAP_STR(doctor_unwinder_from_messages(
			"unwind: thread map already set, dso=/x\n"
			"unwind: find_proc_info dso /usr/bin/python3.11\n"
			"unwind: _start:ip = 0x627bd0 (0x227bd0)\n"),
		"libunwind", "libunwind's find_proc_info lines");
	TAP_STR(doctor_unwinder_from_messages(
			"unwind: access_mem addr 0x7ffc, val 0, offset 8\n"
			"unwind: _start:ip = 0x627bd0 (0x227bd0)\n"),
		"libdw", "step lines alone: libdw");
	TAP_OK(!doctor_unwinder_from_messages("nothing here\n"),
	       "no unwinding messages: unknown");
	TAP_OK(!doctor_unwinder_from_messages(NULL), "NULL: unknown");
	TAP_STR(probe_limit_name(PROBE_LIMIT_DUMP), "dump_size",
		"limit names");
	TAP_STR(probe_limit_name(PROBE_LIMIT_DEPTH), "frame_cap",
		"limit names");
	return tap_done();
}
