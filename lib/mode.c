#include "compat.h"
#include "mode.h"

const char *mode_name_str(enum mode_name m)
{
	switch (m) {
	case MODE_PERF:
		return "perf";
	case MODE_JIT:
		return "jit";
	case MODE_AUTO:
		return "auto";
	default:
		return "none";
	}
}

const char *mode_trampoline_str(enum mode_trampoline t)
{
	switch (t) {
	case TRAMPOLINE_NATIVE:
		return "native";
	case TRAMPOLINE_EMBEDDED:
		return "embedded";
	default:
		return "none";
	}
}

int mode_parse(const char *s, enum mode_name *out)
{
	if (!strcmp(s, "auto"))
		*out = MODE_AUTO;
	else if (!strcmp(s, "perf"))
		*out = MODE_PERF;
	else if (!strcmp(s, "jit"))
		*out = MODE_JIT;
	else
		return -EINVAL;
	return 0;
}

int mode_embedded_supports(const struct pyinfo *py, char *why, size_t len)
{
	if (!pyinfo_is_cpython(py)) {
		set_err(why, len, "it is %s, not CPython", py->implementation);
		return 0;
	}
	if (pyinfo_cmp(py, 3, 8) < 0) {
		set_err(why, len, "Python %s is older than 3.8", py->version);
		return 0;
	}
	if (pyinfo_cmp(py, 3, 12) > 0) {
		set_err(why, len, "Python %s has native support",
			py->version);
		return 0;
	}
	if (py->free_threaded) {
		set_err(why, len, "free-threaded builds are not supported");
		return 0;
	}
	if (strcmp(py->machine, "x86_64") && strcmp(py->machine, "amd64")) {
		set_err(why, len, "only x86-64 is supported here, not '%s'",
			py->machine);
		return 0;
	}
	return 1;
}

static unsigned auto_stack_size(const struct pyinfo *py)
{
	const char *o = py->cflags.opt;

	if (py->pydebug || !strcmp(o, "O0") || !strcmp(o, "Og") || !*o)
		return MODE_STACK_UNOPTIMISED;
	return MODE_STACK_DEFAULT;
}

/* Decide for one mode (name is MODE_PERF or MODE_JIT); see mode_decide(). */
static int decide_as(const struct pyinfo *py, const char *pv, int fp,
		     enum tristate jit_fix, enum mode_name name, int automatic,
		     unsigned stack_size, int embedded_ready, struct mode *out)
{
	int native, embedded;
	char why[160] = "";

	memset(out, 0, sizeof(*out));
	out->name = name;
	native = name == MODE_PERF ? py->native_perf : py->native_perf_jit;
	embedded = mode_embedded_supports(py, why, sizeof(why));
	if (native) {
		out->trampoline = TRAMPOLINE_NATIVE;
	} else if (embedded && embedded_ready) {
		out->trampoline = TRAMPOLINE_EMBEDDED;
	} else if (embedded) {
		set_err(out->problem, sizeof(out->problem),
			"the embedded trampoline for Python %s is not "
			"available", py->version);
	} else {
		set_err(out->problem, sizeof(out->problem),
			"Python %s cannot run the %s trampoline: %s",
			py->version, mode_name_str(name), why);
	}

	if (name == MODE_PERF) {
		snprintf(out->call_graph, sizeof(out->call_graph), "fp");
		snprintf(out->reason, sizeof(out->reason),
			 "python %s %s frame pointers; %s",
			 py->version, fp ? "has" : "has no",
			 !automatic ? "perf mode requested" :
			 jit_fix == TRI_UNKNOWN ?
			 "perf maps with -g (jit mode once 'pyperf-run "
			 "doctor --probe' shows that perf unwinds JIT code)" :
			 "perf maps with -g");
		if (!fp)
			set_err(out->warning, sizeof(out->warning),
				"python %s is built without frame pointers: "
				"stacks will be broken in perf mode; use "
				"--mode jit", py->version);
	} else {
		out->stack_size = stack_size ? stack_size
					     : auto_stack_size(py);
		snprintf(out->call_graph, sizeof(out->call_graph),
			 "dwarf,%u", out->stack_size);
		snprintf(out->reason, sizeof(out->reason),
			 "python %s %s frame pointers%s; %s %s",
			 py->version, fp ? "has" : "has no",
			 fp && automatic ? ", but perf mode is blind to C "
			 "code without them and past 127 frames" : "", pv,
			 jit_fix == TRI_YES ? "unwinds JIT code" :
			 jit_fix == TRI_NO ? "cannot unwind JIT code" :
			 "may unwind JIT code");
		if (jit_fix == TRI_NO && !out->problem[0])
			set_err(out->problem, sizeof(out->problem),
				"%s cannot unwind through jitted code: "
				"stacks stop at the first Python frame; "
				"install perf 6.8 or later", pv);
		else if (jit_fix == TRI_UNKNOWN)
			set_err(out->warning, sizeof(out->warning),
				"cannot tell from its version whether %s "
				"unwinds through jitted code; "
				"'pyperf-run doctor --probe' checks", pv);
	}
	if (out->problem[0]) {
		out->trampoline = out->trampoline == TRAMPOLINE_NATIVE
					  ? TRAMPOLINE_NATIVE
					  : TRAMPOLINE_NONE;
		if (out->trampoline == TRAMPOLINE_NONE)
			out->name = MODE_NONE;
		return -1;
	}
	return 0;
}

int mode_decide(const struct pyinfo *py, const struct perf_version *perf,
		enum tristate jit_fix, enum mode_name requested,
		unsigned stack_size, int embedded_ready, struct mode *out)
{
	int fp = py->cflags.fp && py->cflags.leaf_fp;
	char pv[48] = "perf";

	memset(out, 0, sizeof(*out));
	if (perf) {
		char v[40];

		perf_version_format(perf, v, sizeof(v));
		snprintf(pv, sizeof(pv), "perf %s", v);
	}
	if (py->major < 3) {
		set_err(out->problem, sizeof(out->problem),
			"Python %s is not supported (Python 3.8 or later is "
			"needed)", py->version);
		return -1;
	}
	if (!pyinfo_is_cpython(py)) {
		set_err(out->problem, sizeof(out->problem),
			"%s %s is not CPython: only CPython can be profiled",
			py->implementation, py->version);
		return -1;
	}
	if (pyinfo_cmp(py, 3, 8) < 0) {
		set_err(out->problem, sizeof(out->problem),
			"Python %s is too old: CPython 3.8 or later is needed",
			py->version);
		return -1;
	}
	if (requested != MODE_AUTO)
		return decide_as(py, pv, fp, jit_fix, requested, 0,
				 stack_size, embedded_ready, out);
	/*
	 * Automatic.  jit mode gives complete stacks where perf mode goes
	 * blind without a word: C extensions built without frame pointers
	 * at the leaf (BLAS, FFT: the chain breaks there, and the Python
	 * callers vanish) and stacks deeper than the kernel's 127-frame
	 * cap (a Python frame costs 3-10 native frames: 15-40 Python
	 * frames).  Measured with a frame-pointer CPython 3.11: a C leaf
	 * without frame pointers, its Python caller at 0.2 % in perf mode
	 * against 35.6 % timed (jit mode: 34.1 %); 40 Python frames, 2.5 %
	 * of the stacks complete in perf mode, 98 % in jit mode.  jit
	 * mode costs data (about 32 KiB per sample), so a frame-pointer
	 * build still gets perf mode when jit mode cannot work here or
	 * is not known to (then the recording's own check tells).
	 */
	if (!fp)
		return decide_as(py, pv, fp, jit_fix, MODE_JIT, 1, stack_size,
				 embedded_ready, out);
	if (jit_fix == TRI_YES &&
	    !decide_as(py, pv, fp, jit_fix, MODE_JIT, 1, stack_size,
		       embedded_ready, out))
		return 0;
	return decide_as(py, pv, fp, jit_fix, MODE_PERF, 1, stack_size,
			 embedded_ready, out);
}
