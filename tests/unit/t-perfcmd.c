/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: lib/perfcmd.c (perf command lines, shell quoting) */
#include "compat.h"
#include "perfcmd.h"
#include "spawn.h"
#include "tap.h"

/* argv joined with single spaces, unquoted. */
static void joined(const struct strvec *sv, struct strbuf *sb)
{
	size_t i;

	strbuf_reset(sb);
	for (i = 0; i < sv->nr; i++) {
		if (i)
			strbuf_addch(sb, ' ');
		strbuf_addstr(sb, sv->v[i]);
	}
}

static void quoted(const char *const *env, const char *const *argv,
		   const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	perfcmd_quote_argv(&sb, env, argv);
	TAP_STR(sb.buf, want, "quote: %s", what);
	strbuf_release(&sb);
}

int main(void)
{
	struct perfcmd_record o;
	struct strvec sv = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct mode m;
	static const char *const target[] = { "python3", "-X", "perf_jit",
					      "app.py", NULL };
	static const char *const extra[] = { "--mmap-pages", "64", NULL };

	perfcmd_record_init(&o);
	o.target = target;
	perfcmd_record_argv(&o, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf record -e cpu-clock -F 999 -k 1 --call-graph "
		"dwarf,32768 -N -o perf.data -- python3 -X perf_jit app.py",
		"jit mode defaults");
	TAP_OK(sv.v[sv.nr] == NULL, "argv is NULL-terminated");
	strvec_clear(&sv);

	perfcmd_record_init(&o);
	o.mode = MODE_PERF;
	o.perf = "/usr/bin/perf";
	o.frequency = 4000;
	o.event = "task-clock";
	o.output = "s/perf.data";
	o.buildid_dir = "s/buildid";
	o.extra = extra;
	o.target = target;
	o.flags = PERFCMD_QUIET;
	perfcmd_record_argv(&o, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "/usr/bin/perf --buildid-dir s/buildid record -q "
		"-e task-clock -F 4000 -g -o s/perf.data --mmap-pages 64 -- "
		"python3 -X perf_jit app.py",
		"perf mode with every option; no -N with a buildid dir");
	strvec_clear(&sv);

	o.flags = PERFCMD_NO_BUILDID_CACHE;
	o.extra = NULL;
	o.target = NULL;
	perfcmd_record_argv(&o, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "/usr/bin/perf --buildid-dir s/buildid record "
		"-e task-clock -F 4000 -g -N -o s/perf.data --",
		"PERFCMD_NO_BUILDID_CACHE forces -N; no target");
	strvec_clear(&sv);

	o.flags = PERFCMD_NO_BUILDID_CACHE | PERFCMD_NO_BPF_EVENT;
	perfcmd_record_argv(&o, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "/usr/bin/perf --buildid-dir s/buildid record "
		"-e task-clock -F 4000 -g -N --no-bpf-event -o s/perf.data --",
		"PERFCMD_NO_BPF_EVENT adds --no-bpf-event before -o");
	strvec_clear(&sv);

	{
		static const char *const none[] = { "--mmap-pages=64", NULL };
		static const char *const z[] = { "--mmap-pages=64", "-z",
						 NULL };
		static const char *const z5[] = { "-z5", NULL };
		static const char *const lvl[] = { "--compression-level=3",
						   NULL };

		TAP_INT(perfcmd_args_compress(NULL), 0, "no --perf-arg: "
			"no compression");
		TAP_INT(perfcmd_args_compress(none), 0, "--mmap-pages: none");
		TAP_INT(perfcmd_args_compress(z), 1, "-z among others");
		TAP_INT(perfcmd_args_compress(z5), 1, "-zN");
		TAP_INT(perfcmd_args_compress(lvl), 1,
			"--compression-level=N");
	}

	/* From a decision. */
	memset(&m, 0, sizeof(m));
	m.name = MODE_JIT;
	m.stack_size = 65528;
	perfcmd_record_init(&o);
	o.mode = MODE_PERF;
	perfcmd_record_set_mode(&o, &m);
	TAP_INT(o.mode, MODE_JIT, "set_mode takes the mode");
	TAP_INT(o.stack_size, 65528, "set_mode takes the stack size");
	perfcmd_record_argv(&o, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf record -e cpu-clock -F 999 -k 1 --call-graph "
		"dwarf,65528 -N -o perf.data --", "stack size from the mode");
	strvec_clear(&sv);
	m.name = MODE_NONE;
	o.mode = MODE_PERF;
	perfcmd_record_set_mode(&o, &m);
	TAP_INT(o.mode, MODE_PERF, "MODE_NONE leaves the mode alone");

	perfcmd_inject_argv(NULL, NULL, "in.data", "out.data", &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf inject --jit -i in.data -o out.data", "inject");
	strvec_clear(&sv);
	perfcmd_inject_argv("perf", "b", "i", "o", &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf --buildid-dir b inject --jit -i i -o o",
		"inject with a buildid dir");
	strvec_clear(&sv);

	TAP_STR(perfcmd_python_xoption(MODE_PERF), "perf", "-X perf");
	TAP_STR(perfcmd_python_xoption(MODE_JIT), "perf_jit", "-X perf_jit");
	TAP_OK(perfcmd_python_xoption(MODE_NONE) == NULL, "no -X for none");
	TAP_STR(perfcmd_python_env(MODE_PERF), "PYTHONPERFSUPPORT=1",
		"env for perf");
	TAP_STR(perfcmd_python_env(MODE_JIT), "PYTHON_PERF_JIT_SUPPORT=1",
		"env for jit");
	{
		struct strvec args = STRVEC_INIT, env = STRVEC_INIT;

		perfcmd_python_switches(MODE_JIT, &args, &env);
		TAP_INT(args.nr, 2, "switches: two args");
		TAP_STR(args.nr == 2 ? args.v[1] : NULL, "perf_jit",
			"switches: -X value");
		TAP_INT(env.nr, 2, "switches: two env settings");
		TAP_STR(env.nr == 2 ? env.v[1] : NULL,
			"PYPERF_TRAMPOLINE=native",
			"switches: CPython's own, not an installed embedded one");
		perfcmd_python_switches(MODE_NONE, &args, &env);
		TAP_INT(args.nr + env.nr, 4, "switches: none adds nothing");
		perfcmd_python_switches(MODE_PERF, NULL, &env);
		TAP_INT(env.nr, 4, "switches: args may be NULL");
		strvec_clear(&args);
		strvec_clear(&env);
	}

	{
		static const char *const a1[] = { "perf", "record", "--",
			"python3", "my app.py", "it's", "", "a=b", "$HOME",
			"x\ny", NULL };
		static const char *const a2[] = { "FOO=bar", "x", NULL };
		static const char *const e1[] = { "PYTHON_PERF_JIT_SUPPORT=1",
			"LD_PRELOAD=/a b/lib.so", "EMPTY=", NULL };

		quoted(NULL, a1, "perf record -- python3 'my app.py' "
		       "'it'\\''s' '' a=b '$HOME' 'x\ny'", "mixed words");
		quoted(NULL, a2, "'FOO=bar' x",
		       "NAME=x in command position is quoted");
		quoted(e1, a2, "PYTHON_PERF_JIT_SUPPORT=1 "
		       "LD_PRELOAD='/a b/lib.so' EMPTY='' 'FOO=bar' x",
		       "environment first, names bare");
		quoted(NULL, NULL, "", "nothing");
		strbuf_reset(&sb);
		perfcmd_quote_word(&sb, "dwarf,16384");
		TAP_STR(sb.buf, "dwarf,16384", "a safe word stays bare");
	}
	/* The helper commands record and doctor run. */
	perfcmd_version_argv("/p/perf", 1, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "/p/perf version --build-options", "perf version");
	strvec_clear(&sv);
	perfcmd_stat_check_argv(NULL, NULL, &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf stat -x, -e cpu-clock -- /bin/sh -c :",
		"the event check");
	strvec_clear(&sv);
	perfcmd_script_unwinder_argv("perf", "s/buildid", "s/perf.data", &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf --buildid-dir s/buildid script -v --no-inline --max-stack 4 "
		"-F ip -i s/perf.data", "the unwinder's messages");
	strvec_clear(&sv);
	perfcmd_record_takes_argv(NULL, "--no-bpf-event", &sv);
	joined(&sv, &sb);
	TAP_STR(sb.buf, "perf record --dry-run --no-bpf-event",
		"asking perf record about an option");
	strvec_clear(&sv);
	/* the real perf (Debian 12's 6.1 takes --no-bpf-event) */
	TAP_INT(perfcmd_record_takes(NULL, "--no-bpf-event"), 1,
		"perf record takes --no-bpf-event");
	TAP_INT(perfcmd_record_takes(NULL, "--no-such-option-at-all"), 0,
		"perf record rejects an unknown option");
	TAP_INT(perfcmd_record_takes("/nonexistent/perf", "--no-bpf-event"),
		0, "a perf that cannot be run takes nothing");
	{
		struct spawn sp = SPAWN_INIT;

		TAP_INT(perfcmd_record_takes_finish(&sp), 0,
			"an unstarted question answers no");
	}
	strbuf_release(&sb);
	return tap_done();
}
