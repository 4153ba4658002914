/* SPDX-License-Identifier: GPL-2.0-only */
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
	case MODE_BPF:
		return "bpf";
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
	case TRAMPOLINE_AUTO:
		return "auto";
	default:
		return "none";
	}
}

int mode_trampoline_parse(const char *s, enum mode_trampoline *out)
{
	if (!strcmp(s, "auto"))
		*out = TRAMPOLINE_AUTO;
	else if (!strcmp(s, "native"))
		*out = TRAMPOLINE_NATIVE;
	else if (!strcmp(s, "embedded"))
		*out = TRAMPOLINE_EMBEDDED;
	else
		return -EINVAL;
	return 0;
}

int mode_parse(const char *s, enum mode_name *out)
{
	if (!strcmp(s, "auto"))
		*out = MODE_AUTO;
	else if (!strcmp(s, "perf"))
		*out = MODE_PERF;
	else if (!strcmp(s, "jit"))
		*out = MODE_JIT;
	else if (!strcmp(s, "bpf"))
		*out = MODE_BPF;
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
	if (pyinfo_cmp(py, 3, 13) > 0) {
		/* 3.14's frames hold tagged references: see trampoline/ */
		set_err(why, len, "Python %s is not supported yet (3.8 to "
			"3.13 are; 3.14 changed the frame layout)",
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

static unsigned auto_stack_size(const struct pyinfo *py, int contexts)
{
	const char *o = py->cflags.opt;

	if (py->pydebug || !strcmp(o, "O0") || !strcmp(o, "Og") || !*o)
		return contexts ? MODE_STACK_CONTEXTS_UNOPTIMISED
				: MODE_STACK_UNOPTIMISED;
	return contexts ? MODE_STACK_CONTEXTS : MODE_STACK_DEFAULT;
}

/* Why the interpreter has no native trampoline for mode name. */
static void no_native_why(const struct pyinfo *py, enum mode_name name,
			  char *buf, size_t len)
{
	if (pyinfo_cmp(py, 3, 12) < 0)
		set_err(buf, len, "it came in 3.12");
	else if (name == MODE_JIT && pyinfo_cmp(py, 3, 13) < 0)
		set_err(buf, len, "-X perf_jit came in 3.13");
	else
		set_err(buf, len, "it is built without "
			"PY_HAVE_PERF_TRAMPOLINE");
}

/*
 * Pick the trampoline for mode name by the request: out->trampoline, or
 * out->problem.  note gets the words the reason ends with.
 */
static void pick_trampoline(const struct pyinfo *py, enum mode_name name,
			    enum mode_trampoline request,
			    int embedded_ready, struct mode *out,
			    char *note, size_t notelen)
{
	int native, embedded;
	char why[160] = "", nwhy[64];

	native = name == MODE_PERF ? py->native_perf : py->native_perf_jit;
	embedded = mode_embedded_supports(py, why, sizeof(why));
	switch (request) {
	case TRAMPOLINE_NATIVE:
		if (native) {
			out->trampoline = TRAMPOLINE_NATIVE;
			snprintf(note, notelen, "CPython's own trampoline "
				 "(--trampoline native)");
			return;
		}
		no_native_why(py, name, nwhy, sizeof(nwhy));
		set_err(out->problem, sizeof(out->problem),
			"Python %s has no native %s trampoline (%s): "
			"--trampoline native cannot work", py->version,
			mode_name_str(name), nwhy);
		return;
	case TRAMPOLINE_EMBEDDED:
		if (embedded && embedded_ready) {
			out->trampoline = TRAMPOLINE_EMBEDDED;
			snprintf(note, notelen, "embedded trampoline "
				 "(--trampoline embedded)");
		} else if (embedded) {
			set_err(out->problem, sizeof(out->problem),
				"the embedded trampoline for Python %s is "
				"not available", py->version);
		} else {
			set_err(out->problem, sizeof(out->problem),
				"Python %s cannot run the embedded "
				"trampoline: %s", py->version, why);
		}
		return;
	default:
		break;
	}
	/*
	 * Automatic: the embedded trampoline wherever it serves, also on
	 * 3.12 and 3.13 where CPython has its own: CPython's code arenas
	 * sit right above later thread stacks, inside perf's stack-dump
	 * window, so libunwind perfs stop those threads' stacks at their
	 * first Python frame, and 3.13.0's perf_jit garbles names after
	 * fork.  CPython's own is the fallback.
	 */
	if (embedded && embedded_ready) {
		out->trampoline = TRAMPOLINE_EMBEDDED;
		if (native)
			snprintf(note, notelen, "the embedded trampoline, "
				 "not CPython's own (whole thread stacks, "
				 "names after fork)");
	} else if (native) {
		/*
		 * CPython's own; where the embedded one cannot serve
		 * (3.14+), named by its option: -X perf_jit in jit mode
		 * (3.13+), -X perf in perf mode (3.12+; jit mode is the
		 * choice without frame pointers, or where perf unwinds
		 * JIT code: see mode_decide()).
		 */
		out->trampoline = TRAMPOLINE_NATIVE;
		if (embedded)
			snprintf(note, notelen, "CPython's own trampoline: "
				 "the embedded one is not available");
		else
			snprintf(note, notelen, "CPython's own trampoline "
				 "(-X %s; the embedded one: %s)",
				 name == MODE_PERF ? "perf" : "perf_jit", why);
	} else if (embedded) {
		set_err(out->problem, sizeof(out->problem),
			"the embedded trampoline for Python %s is not "
			"available", py->version);
	} else {
		set_err(out->problem, sizeof(out->problem),
			"Python %s cannot run the %s trampoline: %s",
			py->version, mode_name_str(name), why);
	}
}

/*
 * perf's libdw unwinder (Fedora's perf; perf built without libunwind)
 * gives no frame for an address outside every object, so a DWARF chain
 * stops before an anonymous context trampoline: such a perf gets one
 * trampoline per function in jitted objects (jitdump, perf inject).
 */
static int perf_unwinds_with_libdw(const struct perf_version *perf)
{
	return perf && perf->libunwind == TRI_NO;
}

/* Decide for one mode (name is MODE_PERF or MODE_JIT); see mode_decide(). */
static int decide_as(const struct pyinfo *py,
		     const struct perf_version *perf, const char *pv, int fp,
		     enum tristate jit_fix, enum mode_name name, int automatic,
		     enum mode_trampoline tramp, unsigned stack_size,
		     int embedded_ready, struct mode *out)
{
	char note[320] = "";
	size_t n;

	memset(out, 0, sizeof(*out));
	out->name = name;
	pick_trampoline(py, name, tramp, embedded_ready, out, note,
			sizeof(note));
	out->contexts = out->trampoline == TRAMPOLINE_EMBEDDED &&
			!(embedded_ready & MODE_EMBEDDED_PLAIN) &&
			!(name == MODE_JIT && perf_unwinds_with_libdw(perf));

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
	} else if (out->contexts) {
		/*
		 * Context trampolines: perf unwinds native code only, up to
		 * the innermost Python frame; nothing jitted to unwind.
		 */
		out->stack_size = stack_size ? stack_size
					     : auto_stack_size(py, 1);
		snprintf(out->call_graph, sizeof(out->call_graph),
			 "dwarf,%u", out->stack_size);
		snprintf(out->reason, sizeof(out->reason),
			 "python %s %s frame pointers%s; %u-byte stack dumps "
			 "reach the innermost Python frame, whose context "
			 "trampoline names every caller", py->version,
			 fp ? "has" : "has no",
			 fp && automatic ? ", but perf mode is blind to C "
			 "code without them" : "", out->stack_size);
	} else {
		out->stack_size = stack_size ? stack_size
					     : auto_stack_size(py, 0);
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
	n = strlen(out->reason);
	if (note[0] && n + 2 < sizeof(out->reason))
		snprintf(out->reason + n, sizeof(out->reason) - n, "; %s",
			 note);
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
		enum mode_trampoline tramp, unsigned stack_size, int embedded_ready, struct mode *out)
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
		return decide_as(py, perf, pv, fp, jit_fix, requested, 0, tramp,
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
	 *
	 * With the embedded trampoline's context trampolines jit mode
	 * needs no JIT unwinding and only a small dump (MODE_STACK_CONTEXTS:
	 * an eighth of the data): it is the choice on every build.
	 */
	if (!fp || (tramp != TRAMPOLINE_NATIVE && embedded_ready &&
		    !(embedded_ready & MODE_EMBEDDED_PLAIN) &&
		    !perf_unwinds_with_libdw(perf) &&
		    mode_embedded_supports(py, NULL, 0)))
		return decide_as(py, perf, pv, fp, jit_fix, MODE_JIT, 1, tramp,
				 stack_size, embedded_ready, out);
	if (jit_fix == TRI_YES &&
	    !decide_as(py, perf, pv, fp, jit_fix, MODE_JIT, 1, tramp, stack_size,
		       embedded_ready, out))
		return 0;
	return decide_as(py, perf, pv, fp, jit_fix, MODE_PERF, 1, tramp, stack_size,
			 embedded_ready, out);
}

int mode_walker_serves(const struct pyinfo *py, char *why, size_t len)
{
	if (!py->implementation || strcmp(py->implementation, "cpython")) {
		snprintf(why, len, "%s is not CPython",
			 py->implementation ? py->implementation : "it");
		return 0;
	}
	if (py->free_threaded) {
		snprintf(why, len, "python %s is a free-threaded build",
			 py->version);
		return 0;
	}
	if (py->major != 3 || py->minor < 8 || py->minor > 15) {
		snprintf(why, len, "python %s: the frame walker knows "
			 "CPython 3.8 to 3.15", py->version);
		return 0;
	}
	return 1;
}
