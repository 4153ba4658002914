/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: lib/mode.c, the choice of mode (perf, jit or none), of the
 * trampoline and of the call graph for an interpreter and a perf, with
 * the reason, warning or problem it gives.
 */
#include "compat.h"
#include "mode.h"
#include "pyinfo.h"
#include "tap.h"

/* The --trampoline request the decisions below are made with. */
static enum mode_trampoline req = TRAMPOLINE_AUTO;

static void set_req(enum mode_trampoline t)
{
	req = t;
}

/* The probe answer of a 3.11 built without frame pointers. */
static const char probe_311[] =
	"version=3.11.7\nreleaselevel=final\nimplementation=cpython\n"
	"executable=/opt/py/bin/python3.11\nprefix=/opt/py\n"
	"base_prefix=/opt/py\npydebug=0\nmachine=x86_64\n"
	"cv.PY_HAVE_PERF_TRAMPOLINE=0\ncv.Py_GIL_DISABLED=0\ncv.Py_DEBUG=0\n"
	"cv.SOABI=cpython-311-x86_64-linux-gnu\n"
	"cv.EXT_SUFFIX=.cpython-311-x86_64-linux-gnu.so\n"
	"cflags=-Wsign-compare -DNDEBUG -g -fwrapv -O3 -Wall\n"
	"include=/opt/py/include/python3.11\nhas_headers=1\n"
	"purelib=/opt/py/lib/python3.11/site-packages\nend=1\n";

/* A probe answer for version v, with the trampoline flag and cflags. */
static int fake(struct pyinfo *py, const char *v, const char *impl,
		int tramp, const char *cflags)
{
	char text[1024], err[PPR_ERR_LEN];

	snprintf(text, sizeof(text),
		 "version=%s\nimplementation=%s\nmachine=x86_64\n"
		 "cv.PY_HAVE_PERF_TRAMPOLINE=%d\ncflags=%s\n"
		 "has_headers=1\nend=1\n", v, impl, tramp, cflags);
	memset(py, 0, sizeof(*py));
	return pyinfo_parse(text, py, err, sizeof(err));
}

/* The decision for one interpreter: "mode/trampoline/call graph". */
static void decision(const char *v, const char *impl, int tramp,
		     const char *cflags, int embedded_ready,
		     enum tristate fix, const char *want, const char *what)
{
	struct pyinfo py;
	struct perf_version pv;
	struct mode m;
	char got[96];

	perf_version_parse("perf version 6.8.1", &pv);
	if (fake(&py, v, impl, tramp, cflags)) {
		TAP_OK(0, "%s: parse", what);
		return;
	}
	mode_decide(&py, &pv, fix, MODE_AUTO, req, 0, embedded_ready, &m);
	snprintf(got, sizeof(got), "%s/%s/%s%s", mode_name_str(m.name),
		 mode_trampoline_str(m.trampoline), m.call_graph,
		 m.problem[0] ? " problem" : "");
	TAP_STR(got, want, "decision: %s", what);
	pyinfo_release(&py);
}

#define FP "-O3 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer"

/* A 3.11 without frame pointers, by mode asked and perf's jit fix. */
static void test_311(void)
{
	struct pyinfo py;
	struct mode m;
	struct perf_version pv;
	char err[PPR_ERR_LEN];

	memset(&py, 0, sizeof(py));
	if (pyinfo_parse(probe_311, &py, err, sizeof(err))) {
		TAP_OK(0, "parse the probe of a 3.11: %s", err);
		return;
	}
	perf_version_parse("perf version 6.8.1", &pv);
	TAP_INT(mode_decide(&py, &pv, TRI_YES, MODE_AUTO, req, 0, 1, &m), 0,
		"3.11 without frame pointers can be profiled");
	TAP_STR(mode_name_str(m.name), "jit", "it gets jit mode");
	TAP_STR(mode_trampoline_str(m.trampoline), "embedded",
		"with the embedded trampoline");
	TAP_STR(m.call_graph, "dwarf,6144",
		"and a 6 KiB stack dump (context trampolines)");
	TAP_OK(m.contexts, "with context trampolines");
	TAP_INT(mode_decide(&py, &pv, TRI_YES, MODE_AUTO, req, 0, 0, &m), -1,
		"not without the embedded library");
	TAP_INT(mode_decide(&py, &pv, TRI_NO, MODE_JIT, req, 8192, 1, &m), 0,
		"an old perf is no problem: nothing jitted to unwind");
	TAP_STR(m.call_graph, "dwarf,8192", "the dump size asked is kept");
	TAP_INT(mode_decide(&py, &pv, TRI_YES, MODE_PERF, req, 0, 1, &m), 0,
		"perf mode can be forced");
	TAP_OK(m.warning[0] != '\0', "with a warning about frame pointers");
	TAP_STR(m.call_graph, "fp", "and fp call graphs");
	pyinfo_release(&py);
}

static void test_python2(void)
{
	struct pyinfo py;
	struct mode m;
	struct perf_version pv;
	char err[PPR_ERR_LEN];

	memset(&py, 0, sizeof(py));
	if (pyinfo_parse("version=2.7.18\nimplementation=cpython\nend=1\n",
			 &py, err, sizeof(err))) {
		TAP_OK(0, "parse a 2.7 probe: %s", err);
		return;
	}
	perf_version_parse("perf version 6.8.1", &pv);
	TAP_INT(mode_decide(&py, &pv, TRI_YES, MODE_AUTO, req, 0, 1, &m), -1,
		"python 2 is refused");
	TAP_STR(mode_name_str(m.name), "none", "with mode none");
	pyinfo_release(&py);
}

/* Every interpreter and --trampoline request: mode/trampoline/call graph. */
static void test_decisions(void)
{
	decision("3.13.0", "cpython", 1, "-O3", 1, TRI_UNKNOWN,
		 "jit/embedded/dwarf,6144",
		 "3.13 without frame pointers: the embedded trampoline");
	decision("3.13.0", "cpython", 1, FP, 1, TRI_UNKNOWN,
		 "jit/embedded/dwarf,6144",
		 "3.13 with frame pointers: jit mode too (C code without them)");
	decision("3.13.0", "cpython", 1, "-O3", 0, TRI_YES,
		 "jit/native/dwarf,32768",
		 "3.13 without the embedded library: CPython's own");
	decision("3.12.1", "cpython", 1, FP, 1, TRI_UNKNOWN,
		 "jit/embedded/dwarf,6144",
		 "3.12 with frame pointers: the embedded trampoline, jit mode");
	decision("3.14.0", "cpython", 1, "-O3", 1, TRI_YES,
		 "jit/native/dwarf,32768", "3.14: CPython's own (not ours yet)");
	decision("3.12.1", "cpython", 1, "-O3", 1, TRI_YES,
		 "jit/embedded/dwarf,6144", "3.12 has no perf_jit");
	decision("3.12.1", "cpython", 1, "-O3", 0, TRI_YES,
		 "none/none/dwarf,32768 problem",
		 "3.12 without the embedded library");
	decision("3.12.1", "cpython", 1, FP, 0, TRI_YES,
		 "perf/native/fp", "3.12 with frame pointers: native perf");
	decision("3.11.7", "cpython", 0, FP, 1, TRI_NO,
		 "jit/embedded/dwarf,6144",
		 "frame pointers and an old perf: jit mode with contexts");
	decision("3.11.7", "cpython", 0, FP, 0, TRI_NO,
		 "none/none/fp problem",
		 "3.11 without the embedded library: no trampoline at all");
	decision("3.10.13", "cpython", 0, "-O0", 1, TRI_YES,
		 "jit/embedded/dwarf,24576", "an -O0 build gets 24 KiB dumps");
	decision("3.8.18", "cpython", 0, "-O2", 1, TRI_NO,
		 "jit/embedded/dwarf,6144",
		 "an old perf does not block jit mode with context trampolines");
	decision("3.13.0", "cpython", 1, "-O3", 1, TRI_NO,
		 "jit/embedded/dwarf,6144", "nor on 3.13");
	set_req(TRAMPOLINE_NATIVE);
	decision("3.13.0", "cpython", 1, "-O3", 1, TRI_NO,
		 "jit/native/dwarf,32768 problem",
		 "an old perf is a problem with the native trampoline too");
	decision("3.13.0", "cpython", 1, "-O3", 1, TRI_YES,
		 "jit/native/dwarf,32768", "--trampoline native on 3.13");
	decision("3.12.1", "cpython", 1, "-O3", 1, TRI_YES,
		 "none/none/dwarf,32768 problem",
		 "--trampoline native: 3.12 has no native perf_jit");
	decision("3.12.1", "cpython", 1, FP, 1, TRI_YES,
		 "perf/native/fp",
		 "--trampoline native: 3.12 with frame pointers, perf mode");
	decision("3.11.7", "cpython", 0, "-O3", 1, TRI_YES,
		 "none/none/dwarf,32768 problem",
		 "--trampoline native: 3.11 has none");
	set_req(TRAMPOLINE_EMBEDDED);
	decision("3.13.0", "cpython", 1, "-O3", 0, TRI_YES,
		 "none/none/dwarf,32768 problem",
		 "--trampoline embedded without the library: no fallback");
	decision("3.14.0", "cpython", 1, "-O3", 1, TRI_YES,
		 "none/none/dwarf,32768 problem",
		 "--trampoline embedded on 3.14 is refused");
	decision("3.12.1", "cpython", 1, "-O3", 1, TRI_YES,
		 "jit/embedded/dwarf,6144", "--trampoline embedded on 3.12");
	set_req(TRAMPOLINE_AUTO);
	decision("3.7.16", "cpython", 0, "-O3", 1, TRI_YES,
		 "none/none/ problem", "3.7 is too old");
	decision("3.10.14", "pypy", 0, "", 1, TRI_YES,
		 "none/none/ problem", "PyPy is not CPython");
}

/* The reasons and problems say why, in words. */
static void test_reasons(void)
{
	struct pyinfo py3;
	struct perf_version pv;
	struct mode m3;

	perf_version_parse("perf version 6.8.1", &pv);
	fake(&py3, "3.13.0", "cpython", 1, "-O3");
	mode_decide(&py3, &pv, TRI_YES, MODE_AUTO, req, 0, 0, &m3);
	TAP_OK(strstr(m3.reason, "CPython's own trampoline: the "
		      "embedded one is not available") != NULL,
	       "the fallback says why: %s", m3.reason);
	mode_decide(&py3, &pv, TRI_YES, MODE_AUTO, req, 0, 1, &m3);
	TAP_OK(strstr(m3.reason, "; the embedded trampoline, not "
		      "CPython's own") != NULL,
	       "the reason says why not CPython's own: %s", m3.reason);
	set_req(TRAMPOLINE_NATIVE);
	pyinfo_release(&py3);
	fake(&py3, "3.11.7", "cpython", 0, "-O3");
	mode_decide(&py3, &pv, TRI_YES, MODE_JIT, req, 0, 1, &m3);
	TAP_OK(strstr(m3.problem, "no native jit trampoline (it came "
		      "in 3.12)") != NULL,
	       "--trampoline native on 3.11 says why: %s", m3.problem);
	set_req(TRAMPOLINE_AUTO);
	pyinfo_release(&py3);
}

static void test_unknown_fix(void)
{
	struct pyinfo py2;
	struct perf_version pv2;
	struct mode m2;

	/* CPython's own perf_jit needs perf to unwind its jitted code */
	fake(&py2, "3.13.0", "cpython", 1, "-O2");
	perf_version_parse("perf version 6.7-3", &pv2);
	mode_decide(&py2, &pv2, TRI_UNKNOWN, MODE_AUTO, req, 0, 0, &m2);
	TAP_OK(strstr(m2.reason, "perf 6.7-3") != NULL,
	       "the reason names perf and its version: %s", m2.reason);
	TAP_OK(strstr(m2.warning, "--probe") != NULL,
	       "an unknown fix suggests --probe: %s", m2.warning);
	/* a perf that unwinds with libdw stops before anonymous code */
	pv2.libunwind = TRI_NO;
	mode_decide(&py2, &pv2, TRI_YES, MODE_AUTO, req, 0, 1, &m2);
	TAP_INT(m2.contexts, 0, "a libdw perf gets no context trampolines");
	TAP_STR(m2.call_graph, "dwarf,32768", "but jitdump and 32 KiB dumps");
	pv2.libunwind = TRI_UNKNOWN;
	/* context trampolines leave perf nothing jitted to unwind */
	mode_decide(&py2, &pv2, TRI_UNKNOWN, MODE_AUTO, req, 0, 1, &m2);
	TAP_STR(m2.warning, "", "with context trampolines the fix does not "
		"matter");
	TAP_OK(strstr(m2.reason, "context trampoline") != NULL,
	       "and the reason says so: %s", m2.reason);
	pyinfo_release(&py2);
}

static void test_embedded_supports(void)
{
	struct pyinfo py3;
	char why[256];

	fake(&py3, "3.14.0", "cpython", 1, "-O3");
	TAP_INT(mode_embedded_supports(&py3, why, sizeof(why)), 0,
		"3.14 is not for the embedded trampoline");
	TAP_OK(strstr(why, "3.14 changed the frame layout") != NULL,
	       "and says why: %s", why);
	pyinfo_release(&py3);
	fake(&py3, "3.13.1", "cpython", 1, "-O3");
	TAP_INT(mode_embedded_supports(&py3, why, sizeof(why)), 1,
		"3.13 is for the embedded trampoline");
	pyinfo_release(&py3);
}

/* The frame walker's versions: 3.8 to 3.15 (lib/walker/pytarget.c). */
static void test_walker_serves(void)
{
	static const struct { const char *v; int want; } cases[] = {
		{ "3.7.17", 0 }, { "3.8.18", 1 }, { "3.13.1", 1 },
		{ "3.14.10", 1 }, { "3.15.2", 1 }, { "3.16.0a1", 0 },
	};
	struct pyinfo py;
	char why[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		why[0] = '\0';
		fake(&py, cases[i].v, "cpython", 1, "-O3");
		TAP_INT(mode_walker_serves(&py, why, sizeof(why)),
			cases[i].want, "the frame walker %s %s%s%s",
			cases[i].want ? "serves" : "refuses", cases[i].v,
			why[0] ? ": " : "", why);
		if (!cases[i].want)
			TAP_OK(strstr(why, "CPython 3.8 to 3.15") != NULL,
			       "and names the versions it knows");
		pyinfo_release(&py);
	}
}

static void test_trampoline_parse(void)
{
	enum mode_trampoline t;

	TAP_INT(mode_trampoline_parse("native", &t), 0, "parse native");
	TAP_INT(t, TRAMPOLINE_NATIVE, "native");
	TAP_INT(mode_trampoline_parse("embedded", &t), 0, "parse embedded");
	TAP_INT(t, TRAMPOLINE_EMBEDDED, "embedded");
	TAP_INT(mode_trampoline_parse("auto", &t), 0, "parse auto");
	TAP_INT(t, TRAMPOLINE_AUTO, "auto");
	TAP_INT(mode_trampoline_parse("jit", &t), -EINVAL,
		"'jit' is not a trampoline");
}

int main(void)
{
	test_311();
	test_python2();
	test_decisions();
	test_reasons();
	test_embedded_supports();
	test_walker_serves();
	test_trampoline_parse();
	test_unknown_fix();
	return tap_done();
}
