/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The perf command lines pyperf-run runs (see perfcmd.h).
 */
#include "compat.h"
#include "perfcmd.h"
#include "alloc.h"
#include "spawn.h"

#include <sys/wait.h>
#include <unistd.h>

void perfcmd_record_init(struct perfcmd_record *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = MODE_JIT;
}

const char *perfcmd_wall_name(enum perfcmd_wall w)
{
	switch (w) {
	case PERFCMD_WALL_SCHED:
		return "sched";
	case PERFCMD_WALL_CTXSW:
		return "context-switches";
	case PERFCMD_WALL_NOSTACK:
		return "switch-records";
	default:
		return NULL;
	}
}

void perfcmd_record_set_mode(struct perfcmd_record *o, const struct mode *m)
{
	if (m->name == MODE_NONE || m->name == MODE_AUTO)
		return;
	o->mode = m->name;
	o->stack_size = m->stack_size;
}

static void push_global(struct strvec *out, const char *perf,
			const char *buildid_dir)
{
	strvec_push(out, perf ? perf : "perf");
	if (buildid_dir) {
		strvec_push(out, "--buildid-dir");
		strvec_push(out, buildid_dir);
	}
}

int perfcmd_args_compress(const char *const *extra)
{
	for (; extra && *extra; extra++)
		if (!strncmp(*extra, "-z", 2) ||
		    !strncmp(*extra, "--compression-level", 19))
			return 1;
	return 0;
}

int perfcmd_compress_decide(const struct mode *m, enum tristate zstd,
			    int takes_buildid_mmap, int kernel_build_id,
			    int in_chroot, const char *const *extra)
{
	const char *const *e;

	for (e = extra; e && *e; e++)
		if (!strcmp(*e, "--no-compression-level"))
			return 0;
	return zstd == TRI_YES && takes_buildid_mmap && kernel_build_id &&
	       !in_chroot && !mode_needs_inject(m) && !perfcmd_args_compress(extra);
}

void perfcmd_record_argv(const struct perfcmd_record *o, struct strvec *out)
{
	unsigned freq = o->frequency ? o->frequency : PERFCMD_FREQ_DEFAULT;

	push_global(out, o->perf, o->buildid_dir);
	strvec_push(out, "record");
	if (o->flags & PERFCMD_QUIET)
		strvec_push(out, "-q");
	strvec_push(out, "-e");
	if (o->wall == PERFCMD_WALL_NONE) {
		strvec_push(out, o->event ? o->event : PERFCMD_EVENT_DEFAULT);
		strvec_push(out, "-F");
		strvec_pushf(out, "%u", freq);
	} else {
		/* the frequency as a term: see enum perfcmd_wall */
		strvec_pushf(out, "%s/freq=%u/",
			     o->event ? o->event : PERFCMD_EVENT_DEFAULT, freq);
		if (o->wall == PERFCMD_WALL_SCHED) {
			strvec_push(out, "-e");
			strvec_push(out, "sched:sched_switch");
		} else if (o->wall == PERFCMD_WALL_CTXSW) {
			strvec_push(out, "-e");
			strvec_push(out, "context-switches/period=1/");
		}
		strvec_push(out, "--switch-events");
	}
	if (o->mode == MODE_PERF) {
		strvec_push(out, "-g");
	} else {
		unsigned size = o->stack_size ? o->stack_size
					      : MODE_STACK_DEFAULT;

		/* jitdump timestamps are CLOCK_MONOTONIC: perf inject
		 * refuses data recorded with another clock. */
		strvec_push(out, "-k");
		strvec_push(out, "1");
		strvec_push(out, "--call-graph");
		strvec_pushf(out, "dwarf,%u", size);
	}
	if (!o->buildid_dir || (o->flags & PERFCMD_NO_BUILDID_CACHE))
		strvec_push(out, "-N");
	if (o->flags & PERFCMD_NO_BPF_EVENT)
		strvec_push(out, PERFCMD_NO_BPF_EVENT_OPT);
	if (o->flags & PERFCMD_COMPRESS) {
		strvec_push(out, "-z");
		strvec_push(out, PERFCMD_BUILDID_MMAP_OPT);
	}
	if (o->max_size)
		strvec_pushf(out, PERFCMD_MAX_SIZE_OPT "=%lluB",
			     (unsigned long long)o->max_size);
	strvec_push(out, "-o");
	strvec_push(out, o->output ? o->output : PERFCMD_OUTPUT_DEFAULT);
	if (o->extra)
		strvec_pushv(out, o->extra);
	strvec_push(out, "--");
	if (o->target)
		strvec_pushv(out, o->target);
}

void perfcmd_record_takes_argv(const char *perf, const char *option,
			       struct strvec *out)
{
	push_global(out, perf, NULL);
	strvec_pushv(out, (const char *const[]){ "record", "--dry-run",
						 NULL });
	strvec_push(out, option);
}

int perfcmd_record_takes_start(struct spawn *sp, const char *perf,
			       const char *option)
{
	struct strvec argv = STRVEC_INIT;
	char err[PPR_ERR_LEN];
	int r;

	perfcmd_record_takes_argv(perf, option, &argv);
	*sp = (struct spawn)SPAWN_INIT;
	sp->argv = (const char *const *)argv.v;	/* used by the start only */
	sp->in = SPAWN_DEVNULL;
	sp->out = SPAWN_DEVNULL;
	sp->err = SPAWN_DEVNULL;
	r = spawn_start(sp, err, sizeof(err));
	sp->argv = NULL;
	strvec_clear(&argv);
	return r;
}

int perfcmd_record_takes_finish(struct spawn *sp)
{
	int st;

	if (sp->pid <= 0)
		return 0;
	st = spawn_finish(sp);
	return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int perfcmd_record_takes(const char *perf, const char *option)
{
	struct spawn sp;

	perfcmd_record_takes_start(&sp, perf, option);
	return perfcmd_record_takes_finish(&sp);
}

void perfcmd_report_argv(const char *perf, const char *buildid_dir,
			 const char *input, struct strvec *out)
{
	push_global(out, perf, buildid_dir);
	strvec_push(out, "report");
	strvec_push(out, "-i");
	strvec_push(out, input);
}

void perfcmd_script_argv(const char *perf, const char *buildid_dir,
			 const char *input, const char *fields,
			 unsigned flags, struct strvec *out)
{
	push_global(out, perf, buildid_dir);
	strvec_push(out, "script");
	strvec_push(out, "-i");
	strvec_push(out, input);
	strvec_push(out, "--max-stack");
	strvec_pushf(out, "%u", PERFCMD_SCRIPT_MAX_STACK);
	if (!(flags & PERFCMD_SCRIPT_INLINE))
		strvec_push(out, "--no-inline");
	if (flags & PERFCMD_SCRIPT_TASK_EVENTS)
		strvec_push(out, "--show-task-events");
	if (flags & PERFCMD_SCRIPT_NS)
		strvec_push(out, "--ns");
	if (fields) {
		strvec_push(out, "-F");
		strvec_push(out, fields);
	}
}

void perfcmd_inject_argv(const char *perf, const char *buildid_dir,
			 const char *in, const char *output,
			 struct strvec *out)
{
	push_global(out, perf, buildid_dir);
	strvec_push(out, "inject");
	strvec_push(out, "--jit");
	strvec_push(out, "-i");
	strvec_push(out, in);
	strvec_push(out, "-o");
	strvec_push(out, output);
}

void perfcmd_version_argv(const char *perf, int build_options,
			  struct strvec *out)
{
	push_global(out, perf, NULL);
	strvec_push(out, "version");
	if (build_options)
		strvec_push(out, "--build-options");
}

void perfcmd_stat_check_argv(const char *perf, const char *event,
			     struct strvec *out)
{
	push_global(out, perf, NULL);
	strvec_pushv(out, (const char *const[]){ "stat", "-x,", "-e", NULL });
	strvec_push(out, event ? event : PERFCMD_EVENT_DEFAULT);
	strvec_pushv(out, (const char *const[]){ "--", "/bin/sh", "-c", ":",
						 NULL });
}

void perfcmd_script_unwinder_argv(const char *perf, const char *buildid_dir,
				  const char *input, struct strvec *out)
{
	push_global(out, perf, buildid_dir);
	/*
	 * --no-inline: the unwinder's messages are all that is read, and
	 * without it perf runs addr2line for every frame's inlined calls
	 * (3.2 s instead of 0.5 s on a 1 s jit-mode session; in doctor
	 * --probe it ran until the 4 MB output cap killed it, 8 s).
	 */
	strvec_pushv(out, (const char *const[]){ "script", "-v", "--no-inline",
		     "--max-stack", NULL });
	strvec_pushf(out, "%u", PERFCMD_UNWINDER_MAX_STACK);
	strvec_pushv(out, (const char *const[]){ "-F", "ip", "-i", NULL });
	strvec_push(out, input);
}

const char *perfcmd_python_xoption(enum mode_name mode)
{
	switch (mode) {
	case MODE_PERF:
		return "perf";
	case MODE_JIT:
		return "perf_jit";
	default:
		return NULL;
	}
}

const char *perfcmd_python_env(enum mode_name mode)
{
	switch (mode) {
	case MODE_PERF:
		return "PYTHONPERFSUPPORT=1";
	case MODE_JIT:
		return "PYTHON_PERF_JIT_SUPPORT=1";
	default:
		return NULL;
	}
}

void perfcmd_python_switches(enum mode_name mode, struct strvec *args,
			     struct strvec *env)
{
	const char *x = perfcmd_python_xoption(mode);

	if (!x)
		return;
	if (args) {
		strvec_push(args, "-X");
		strvec_push(args, x);
	}
	if (env) {
		strvec_push(env, perfcmd_python_env(mode));
		/* an installed embedded trampoline leaves it to CPython */
		strvec_push(env, "PYPERF_TRAMPOLINE=native");
	}
}

static int safe_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_@%+=:,./-", c);
}

static int needs_quotes(const char *w)
{
	if (!*w)
		return 1;
	for (; *w; w++)
		if (!safe_char((unsigned char)*w))
			return 1;
	return 0;
}

static void quote_word(struct strbuf *sb, const char *word, int force)
{
	const char *p;

	if (!force && !needs_quotes(word)) {
		strbuf_addstr(sb, word);
		return;
	}
	strbuf_addch(sb, '\'');
	for (p = word; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '\'');
}

void perfcmd_quote_word(struct strbuf *sb, const char *word)
{
	quote_word(sb, word, 0);
}

void perfcmd_quote_argv(struct strbuf *sb, const char *const *env,
			const char *const *argv)
{
	int first = 1, cmdpos = 1;

	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');

		if (!first)
			strbuf_addch(sb, ' ');
		first = 0;
		/* NAME=value: the name stays bare so that it still assigns. */
		if (eq && eq != *env) {
			strbuf_add(sb, *env, (size_t)(eq - *env) + 1);
			quote_word(sb, eq + 1, 0);
		} else {
			quote_word(sb, *env, 0);
		}
	}
	for (; argv && *argv; argv++) {
		if (!first)
			strbuf_addch(sb, ' ');
		/* A bare NAME=x in command position would be an assignment. */
		quote_word(sb, *argv, cmdpos && strchr(*argv, '='));
		first = cmdpos = 0;
	}
}

const char *perfcmd_perf(const char *explicit_perf, const char *fallback)
{
	const char *env = getenv("PYPERF_PERF");

	if (explicit_perf && *explicit_perf)
		return explicit_perf;
	if (env && *env)
		return env;
	/* a recorded path counts only while it is still there */
	if (fallback && fallback[0] == '/' && !access(fallback, X_OK))
		return fallback;
	return "perf";
}

void perfcmd_session_argv(const struct perfcmd_session *s,
			  struct strvec *record_argv,
			  struct strvec *inject_argv)
{
	struct perfcmd_record pc;
	char *bid = xasprintf("%s/buildid", s->session);
	char *raw = xasprintf("%s/perf.raw", s->session);
	char *data = xasprintf("%s/perf.data", s->session);

	perfcmd_record_init(&pc);
	perfcmd_record_set_mode(&pc, s->mode);
	pc.perf = s->perf;
	pc.frequency = s->freq;
	pc.event = s->event;
	pc.output = mode_needs_inject(s->mode) ? raw : data;
	pc.buildid_dir = bid;
	pc.extra = s->extra;
	pc.target = s->target;
	/* not PERFCMD_QUIET: see perfcmd.h */
	pc.flags = PERFCMD_NO_BUILDID_CACHE;
	pc.wall = s->wall;
	pc.max_size = s->max_size;
	if (s->no_bpf_event)
		pc.flags |= PERFCMD_NO_BPF_EVENT;
	if (s->compress)
		pc.flags |= PERFCMD_COMPRESS;
	perfcmd_record_argv(&pc, record_argv);
	if (mode_needs_inject(s->mode))
		perfcmd_inject_argv(s->perf, bid, raw, data, inject_argv);
	free(bid);
	free(raw);
	free(data);
}
