/* Unit tests: lib/doctor_probe.c's reading of perf script output */
#include "../../lib/compat.h"
#include "../../lib/doctor.h"
#include "tap.h"

static const char full[] =
	"python3.13  4242\n"
	"\t  85 py::pyperf_probe_inner:/t/probe.py (/tmp/jitted-4242-9.so)\n"
	"\t  2bc5f0 py_trampoline_evaluator (/usr/lib/libpython3.13.so)\n"
	"\t  8e60a _PyEval_EvalFrameDefault (/usr/lib/libpython3.13.so)\n"
	"\t  85 py::pyperf_probe_outer:/t/probe.py (/tmp/jitted-4242-8.so)\n"
	"\t  2bc5f0 py_trampoline_evaluator (/usr/lib/libpython3.13.so)\n"
	"\t  85 py::<module>:/t/probe.py (/tmp/jitted-4242-7.so)\n"
	"\t  1080 _start (/usr/bin/python3.13)\n"
	"\n"
	"python3.13  4242\n"
	"\t  123456 PyLong_FromLong (/usr/lib/libpython3.13.so)\n"
	"\t  1080 _start (/usr/bin/python3.13)\n"
	"\n";

/* Stacks that stop at the first jitted frame (an old perf). */
static const char cut[] =
	"python3.13  4242\n"
	"\t  85 py::pyperf_probe_inner:/t/probe.py (/tmp/jitted-4242-9.so)\n"
	"\n"
	"python3.13  4242\n"
	"\t  85 py::pyperf_probe_inner:/t/probe.py (/tmp/jitted-4242-9.so)\n"
	"\t  99 [unknown] ([unknown])\n";

/* <module> above the inner frame does not count (wrong order). */
static const char upside_down[] =
	"python3.13 1\n"
	"\t 1 py::<module>:/t/probe.py (x)\n"
	"\t 2 py::pyperf_probe_outer:/t/probe.py (x)\n"
	"\t 3 py::pyperf_probe_inner:/t/probe.py (x)\n";

int main(void)
{
	struct doctor_probe p;

	memset(&p, 0, sizeof(p));
	doctor_probe_check_script(full, &p);
	TAP_INT(p.samples, 2, "two samples");
	TAP_INT(p.python_samples, 1, "one with the probe's function");
	TAP_INT(p.names_found, 1, "names found");
	TAP_INT(p.reached_module, 1, "stack reaches <module>");

	doctor_probe_check_script(cut, &p);
	TAP_INT(p.samples, 2, "cut: two samples (no final newline)");
	TAP_INT(p.python_samples, 2, "cut: both with the function");
	TAP_INT(p.names_found, 1, "cut: names found");
	TAP_INT(p.reached_module, 0, "cut: <module> not reached");

	doctor_probe_check_script(upside_down, &p);
	TAP_INT(p.names_found, 1, "upside down: names found");
	TAP_INT(p.reached_module, 0, "upside down: not reached");

	doctor_probe_check_script("", &p);
	TAP_INT(p.samples, 0, "empty: no samples");
	TAP_INT(p.names_found, 0, "empty: nothing found");

	TAP_STR(doctor_level_name(DOCTOR_OK), "ok", "level ok");
	TAP_STR(doctor_level_name(DOCTOR_WARNING), "warning", "level warning");
	TAP_STR(doctor_level_name(DOCTOR_PROBLEM), "problem", "level problem");
	return tap_done();
}
