/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `pyperf-run doctor --probe`: record a bundled script in the chosen
 * mode and check, with profile_load() (the one reader of perf script
 * output), that its Python stacks are complete: first a shallow stack,
 * which tells whether the unwinder crosses Python frames at all, then a
 * stack DOCTOR_PROBE_DEPTH levels deep through methods, generators and
 * C callbacks, shaped like a web framework's middleware, which tells
 * whether real programs come out whole.  The script measures the C
 * stack under each leaf itself (from /proc/self/syscall), so that a
 * cut stack can be blamed on the dump size, a frame cap or the
 * unwinder.  In jit mode a cut stack is recorded again at the largest
 * dump size to confirm it.
 *
 * Everything is done in a private directory that is removed afterwards,
 * together with the files the interpreter left in /tmp; perf's build-id
 * cache is pointed into the private directory so that ~/.debug does
 * not grow.
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "alloc.h"
#include "fileio.h"
#include "embedded.h"
#include "numparse.h"
#include "paths.h"
#include "perfcmd.h"
#include "record/jitdump.h"
#include "session.h"
#include "spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_SHALLOW "pyperf_probe_shallow"
#define PROBE_DEEP "pyperf_probe_deep"
#define PROBE_MODULE "<module>"
#define PROBE_SHALLOW_LEVELS 4
#define STR_(x) #x
#define PPR_STR(x) STR_(x)

/*
 * About 0.7 s of work whatever the machine; prints its pid and the C
 * stack bytes under each leaf (0 when /proc/self/syscall cannot say).
 * The leaves spin in their own frames, so that even a perf that stops
 * at the first Python frame shows which stack a sample is from.
 */
static const char probe_script[] =
"import functools, os, sys, time\n"
"def sp():\n"
"    try:\n"
"        with open('/proc/self/syscall') as f:\n"
"            return int(f.read().split()[-2], 16)\n"
"    except Exception:\n"
"        return 0\n"
"def stack_top():\n"
"    try:\n"
"        with open('/proc/self/stat') as f:\n"
"            return int(f.read().rsplit(')', 1)[1].split()[25])\n"
"    except Exception:\n"
"        return 0\n"
"TOP = stack_top()\n"
"def used():\n"
"    s = sp()\n"
"    return TOP - s if TOP and s and TOP > s else 0\n"
"def " PROBE_SHALLOW "():\n"
"    sys.stdout.write('shallow_bytes=%d\\n' % used())\n"
"    s = 0\n"
"    end = time.time() + 0.3\n"
"    while time.time() < end:\n"
"        for i in range(2000):\n"
"            s += i * i\n"
"    return s\n"
"def " PROBE_DEEP "():\n"
"    sys.stdout.write('deep_bytes=%d\\n' % used())\n"
"    s = 0\n"
"    end = time.time() + 0.4\n"
"    while time.time() < end:\n"
"        for i in range(2000):\n"
"            s += i * i\n"
"    return s\n"
"class PyperfProbeLayer:\n"
"    def pyperf_probe_method(self, k, n, leaf):\n"
"        return pyperf_probe_step(k + 1, n, leaf)\n"
"def pyperf_probe_gen(k, n, leaf):\n"
"    yield pyperf_probe_step(k + 1, n, leaf)\n"
"def pyperf_probe_map(k, n, leaf):\n"
"    return list(map(lambda j: pyperf_probe_step(j, n, leaf), [k + 1]))[0]\n"
"def pyperf_probe_key(k, n, leaf):\n"
"    out = []\n"
"    sorted([k + 1], key=lambda j: out.append(pyperf_probe_step(j, n, leaf)))\n"
"    return out[0]\n"
"def pyperf_probe_reduce(k, n, leaf):\n"
"    return functools.reduce(lambda a, j: pyperf_probe_step(j, n, leaf),\n"
"                            [k + 1], 0)\n"
"def pyperf_probe_step(k, n, leaf):\n"
"    if k >= n:\n"
"        return leaf()\n"
"    r = k % 5\n"
"    if r == 0:\n"
"        return PyperfProbeLayer().pyperf_probe_method(k, n, leaf)\n"
"    if r == 1:\n"
"        return next(pyperf_probe_gen(k, n, leaf))\n"
"    if r == 2:\n"
"        return pyperf_probe_map(k, n, leaf)\n"
"    if r == 3:\n"
"        return pyperf_probe_key(k, n, leaf)\n"
"    return pyperf_probe_reduce(k, n, leaf)\n"
"sys.stdout.write('pid=%d\\n' % os.getpid())\n"
"pyperf_probe_step(0, " PPR_STR(PROBE_SHALLOW_LEVELS) ", " PROBE_SHALLOW ")\n"
"pyperf_probe_step(0, " PPR_STR(DOCTOR_PROBE_DEPTH) ", " PROBE_DEEP ")\n"
"sys.stdout.flush()\n";

const char *probe_limit_name(enum probe_limit l)
{
	switch (l) {
	case PROBE_LIMIT_NONE:
		return "none";
	case PROBE_LIMIT_DUMP:
		return "dump_size";
	case PROBE_LIMIT_DUMP_MAX:
		return "dump_max";
	case PROBE_LIMIT_UNWIND:
		return "unwinder";
	case PROBE_LIMIT_DEPTH:
		return "frame_cap";
	case PROBE_LIMIT_NOROOT:
		return "frame_pointers";
	default:
		return "unknown";
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The reason profile_load() put above a cut stack: its pseudo root
 * "[incomplete stack: REASON]" (see profile.h), or CUT_NONE.
 */
static enum stack_cut cut_of(const struct frame *root)
{
	static const struct {
		const char *name;
		enum stack_cut cut;
	} names[] = {
		{ "[incomplete stack: dump full]", CUT_DUMP },
		{ "[incomplete stack: unwinding stopped]", CUT_UNWIND },
		{ "[incomplete stack: frame cap]", CUT_DEPTH },
		{ "[incomplete stack: no root]", CUT_NOROOT },
	};
	size_t i;

	if (root->kind != FRAME_UNKNOWN || !root->name)
		return CUT_NONE;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(root->name, names[i].name))
			return names[i].cut;
	return CUT_NONE;
}

void doctor_probe_check_profile(const struct profile *p,
				struct probe_pass *out)
{
	size_t i;
	unsigned stack_size = out->stack_size;

	memset(out, 0, sizeof(*out));
	out->stack_size = stack_size;
	out->quality_judged = p->quality.judged;
	memcpy(out->quality_cut, p->quality.cut, sizeof(out->quality_cut));
	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *st = &p->stacks[i];
		const struct frame *outer = NULL;
		int shallow = 0, deep = 0, complete;
		unsigned py = 0;
		uint32_t j;

		out->samples += st->weight;
		/* root first: the first Python frame is the outermost */
		for (j = 0; j < st->depth; j++) {
			const struct frame *f = &p->frames[st->frames[j]];

			if (f->kind != FRAME_PYTHON || !f->func)
				continue;
			if (!outer)
				outer = f;
			py++;
			if (!strcmp(f->func, PROBE_SHALLOW))
				shallow = 1;
			else if (!strcmp(f->func, PROBE_DEEP))
				deep = 1;
		}
		complete = outer && !strcmp(outer->func, PROBE_MODULE);
		if (shallow) {
			out->shallow += st->weight;
			if (complete)
				out->shallow_complete += st->weight;
		}
		if (!deep)
			continue;
		out->deep += st->weight;
		if (py > out->deep_py_max)
			out->deep_py_max = py;
		if (st->depth > out->deep_frames_max)
			out->deep_frames_max = st->depth;
		if (complete) {
			out->deep_complete += st->weight;
		} else if (st->depth) {
			const struct frame *f = &p->frames[st->frames[0]];
			enum stack_cut c = cut_of(f);

			out->deep_cut[c] += st->weight;
			/* Where the unwinder stopped: below the pseudo
			 * root, if there is one. */
			if (c != CUT_NONE && st->depth > 1)
				f = &p->frames[st->frames[1]];
			if (!out->deep_stop[0])
				snprintf(out->deep_stop,
					 sizeof(out->deep_stop), "%s",
					 f->name ? f->name : "?");
		}
	}
}

static int mostly(size_t part, size_t all)
{
	return all && part * 100 >= all * DOCTOR_PROBE_COMPLETE_PCT;
}

const char *doctor_unwinder_from_messages(const char *text)
{
	if (!text)
		return NULL;
	/* Only libunwind's find_proc_info() callback says this. */
	if (strstr(text, "unwind: find_proc_info dso "))
		return "libunwind";
	/* Both print a line per step: without the above, it is libdw. */
	if (strstr(text, ":ip = 0x"))
		return "libdw";
	return NULL;
}

static int write_script(const char *path, char *err, size_t errlen)
{
	int r = write_file(path, probe_script, sizeof(probe_script) - 1,
			   0600, 1);

	if (r)
		return set_err(err, errlen, "cannot write '%s': %s", path,
			       strerror(-r));
	return 0;
}

/* Run argv; 0 when it exits 0, else -1 with p->detail set. */
static int run(const char *what, const char *const *argv,
	       const char *const *env, struct strbuf *out,
	       struct doctor_probe *p)
{
	struct strbuf errout = STRBUF_INIT;
	char err[PPR_ERR_LEN], line[256], how[128];
	int st, ret = -1;

	st = spawn_capture(argv, env, out, &errout, 64 << 20, err,
			   sizeof(err));
	if (st < 0) {
		set_err(p->detail, sizeof(p->detail), "%s", err);
		goto out;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		spawn_describe_status(st, how, sizeof(how));
		str_last_line(errout.buf, errout.len, line, sizeof(line));
		set_err(p->detail, sizeof(p->detail), "%s %s%s%s", what, how,
			line[0] ? ": " : "", line);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&errout);
	return ret;
}

/* Remove what the interpreter (pid) left in dir since the probe began. */
static void remove_leftovers(const char *dir, pid_t pid, double since)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat s;

		if (sysprobe_perf_file_pid(de->d_name) != pid)
			continue;
		if (fstatat(dirfd(d), de->d_name, &s, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(s.st_mode) || s.st_uid != geteuid() ||
		    (double)s.st_mtim.tv_sec + 1 < since)
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

static unsigned long script_value(const char *out, const char *key)
{
	const char *p = out ? strstr(out, key) : NULL;
	unsigned long v;

	if (!p || parse_uint_prefix(p + strlen(key), &v, &p))
		return 0;
	return v;
}

static pid_t script_pid(const char *out)
{
	unsigned long v = script_value(out, "pid=");

	return v && v <= 0x7fffffff ? (pid_t)v : 0;
}

/* The probe's private directory as profile_load() reads a session. */
static int write_meta(const char *dir, const struct mode *m,
		      unsigned stack_size, struct doctor_probe *p)
{
	struct session_meta meta = SESSION_META_INIT;
	char err[PPR_ERR_LEN];
	int ret;

	session_meta_set(&meta, "format", "%d", SESSION_META_FORMAT);
	session_meta_set(&meta, "mode", "%s", mode_name_str(m->name));
	if (m->name == MODE_JIT)
		session_meta_set(&meta, "stack_size", "%u", stack_size);
	ret = session_meta_write(dir, &meta, err, sizeof(err));
	if (ret)
		set_err(p->detail, sizeof(p->detail), "%s", err);
	session_meta_release(&meta);
	return ret;
}

struct probe_ctx {
	const char *perf;
	const struct pyinfo *py;
	const struct mode *m;
	const char *dir;
	char *script, *raw, *data, *bid;
	struct strvec env;
	struct strvec target;
	double start;
	pid_t pids[2];
	int no_bpf_event;	/* perf takes --no-bpf-event (as record) */
};

/*
 * Remove the files of one recording (perf.data, the jit files, the
 * build-id cache, what profile_load() keeps next to them), keeping the
 * script.
 */
static void clean_pass(struct probe_ctx *c)
{
	DIR *d = opendir(c->dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "probe.py"))
			continue;
		path = xasprintf("%s/%s", c->dir, de->d_name);
		/* files too; a symlink is removed, not followed */
		paths_remove_tree(path);
		free(path);
	}
	closedir(d);
}

/* Which unwinder perf used: its own -v messages on the recording. */
static void find_unwinder(struct probe_ctx *c, struct doctor_probe *p)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	const char *u;
	int st;

	perfcmd_script_unwinder_argv(c->perf, c->bid, c->data, &argv);
	st = spawn_capture(argv.v, NULL, &out, &errout, 4 << 20, err,
			   sizeof(err));
	if (st >= 0 && (u = doctor_unwinder_from_messages(errout.buf)))
		snprintf(p->unwinder, sizeof(p->unwinder), "%s", u);
	strvec_clear(&argv);
	strbuf_release(&out);
	strbuf_release(&errout);
}

/*
 * Record and read one pass at stack_size (jit mode).  Returns 0, or -1
 * with p->detail set.
 */
static int record_pass(struct probe_ctx *c, unsigned stack_size,
		       struct probe_pass *pass, int first,
		       struct doctor_probe *p)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	struct perfcmd_record o;
	struct mode m = *c->m;
	struct profile prof;
	struct profile_filter f = PROFILE_FILTER_INIT;
	char err[PPR_ERR_LEN];
	int ret = -1;

	if (stack_size)
		m.stack_size = stack_size;
	pass->stack_size = m.name == MODE_JIT ? m.stack_size : 0;
	perfcmd_record_init(&o);
	perfcmd_record_set_mode(&o, &m);
	o.perf = c->perf;
	o.output = m.name == MODE_JIT ? c->raw : c->data;
	o.buildid_dir = c->bid;
	o.target = c->target.v;
	o.flags = PERFCMD_QUIET |
		  (c->no_bpf_event ? PERFCMD_NO_BPF_EVENT : 0);
	perfcmd_record_argv(&o, &argv);
	if (run("perf record", argv.v, c->env.v, &out, p))
		goto out;
	c->pids[first ? 0 : 1] = script_pid(out.buf);
	if (first) {
		p->shallow_bytes = script_value(out.buf, "shallow_bytes=");
		p->deep_bytes = script_value(out.buf, "deep_bytes=");
	}
	strvec_clear(&argv);
	if (m.name == MODE_JIT) {
		perfcmd_inject_argv(c->perf, c->bid, c->raw, c->data, &argv);
		if (run("perf inject", argv.v, NULL, NULL, p))
			goto out;
	}
	if (write_meta(c->dir, &m, pass->stack_size, p))
		goto out;
	f.view = PROFILE_VIEW_ALL;
	/* the question is what perf itself unwinds: read with perf script */
	f.reader = PROFILE_READER_PERF_SCRIPT;
	f.perf = c->perf;
	if (profile_load(&prof, c->dir, &f, err, sizeof(err))) {
		set_err(p->detail, sizeof(p->detail), "%s", err);
		profile_release(&prof);
		goto out;
	}
	doctor_probe_check_profile(&prof, pass);
	profile_release(&prof);
	if (first && m.name == MODE_JIT)
		find_unwinder(c, p);
	ret = 0;
out:
	if (!c->pids[first ? 0 : 1] && out.len)
		c->pids[first ? 0 : 1] = script_pid(out.buf);
	strvec_clear(&argv);
	strbuf_release(&out);
	return ret;
}

/* Dump bytes that hold `bytes` of stack, rounded up to 4 KiB. */
static unsigned dump_for(unsigned long bytes)
{
	/* perf copies from the sampled SP: leave room for the leaf. */
	unsigned long need = bytes + 1024;

	need = (need + 4095) & ~4095UL;
	return need > PERF_STACK_DUMP_MAX ? PERF_STACK_DUMP_MAX
					  : (unsigned)need;
}

/* The reason most cut deep samples of a pass share, or CUT_NONE. */
static enum stack_cut main_cut(const struct probe_pass *a)
{
	enum stack_cut best = CUT_NONE;
	int r;

	for (r = CUT_DUMP; r < CUT_NR; r++)
		if (a->deep_cut[r] && (best == CUT_NONE ||
				       a->deep_cut[r] > a->deep_cut[best]))
			best = (enum stack_cut)r;
	return best;
}

/*
 * Why the deep stack is cut: the reason profile_load() read from
 * perf.data (dump full or not; chain at the kernel's cap or not), the
 * second recording at the largest dump, and the C stack the script
 * measured under its leaf.
 */
static void diagnose(struct doctor_probe *p, unsigned max_stack)
{
	const struct probe_pass *a = &p->pass[0];
	const struct probe_pass *b = p->nr_passes > 1 ? &p->pass[1] : NULL;
	unsigned long per = p->deep_bytes / DOCTOR_PROBE_DEPTH;
	enum stack_cut why = main_cut(a);
	int b_whole = b && mostly(b->deep_complete, b->deep);

	if (p->deep_complete) {
		p->limit = PROBE_LIMIT_NONE;
		return;
	}
	if (!a->deep) {
		p->limit = PROBE_LIMIT_UNKNOWN;
		set_err(p->limit_why.text,
			sizeof(p->limit_why.text),
			"no sample of the deep stack has the probe's "
			"functions");
		return;
	}
	/* Without a reason from perf.data, infer one. */
	if (why == CUT_NONE) {
		if (max_stack && a->deep_frames_max == max_stack)
			why = CUT_DEPTH;
		else if (p->mode != MODE_JIT)
			why = CUT_NOROOT;
		else if (b_whole || p->deep_bytes > a->stack_size)
			why = CUT_DUMP;
		else
			why = CUT_UNWIND;
	}
	switch (why) {
	case CUT_DEPTH:
		p->limit = PROBE_LIMIT_DEPTH;
		p->frame_cap = max_stack ? max_stack : a->deep_frames_max;
		set_err(p->limit_why.text,
			sizeof(p->limit_why.text),
			"call chains stop at the kernel's cap of %u frames "
			"(kernel.perf_event_max_stack); a %d-level Python "
			"stack has more", p->frame_cap, DOCTOR_PROBE_DEPTH);
		set_err(p->limit_why.hint,
			sizeof(p->limit_why.hint),
			"sudo sysctl kernel.perf_event_max_stack=4096");
		return;
	case CUT_DUMP:
		p->needed_stack = dump_for(p->deep_bytes);
		if (b_whole) {
			p->limit = PROBE_LIMIT_DUMP;
			set_err(p->limit_why.text,
				sizeof(p->limit_why.text),
				"the stack dump was full: a %d-level Python "
				"stack takes %lu bytes of C stack, more than "
				"the %u-byte dump; it is whole at %u",
				DOCTOR_PROBE_DEPTH, p->deep_bytes,
				a->stack_size, b->stack_size);
			set_err(p->limit_why.hint,
				sizeof(p->limit_why.hint),
				"for programs this deep, record with "
				"--stack-size %u", p->needed_stack);
			return;
		}
		if (p->deep_bytes > PERF_STACK_DUMP_MAX ||
		    (b && main_cut(b) == CUT_DUMP)) {
			p->limit = PROBE_LIMIT_DUMP_MAX;
			if (per)
				set_err(p->limit_why.text,
					sizeof(p->limit_why.text),
					"the stack dump was full: a %d-level "
					"Python stack takes %lu bytes of C "
					"stack (%lu a level) and perf copies "
					"at most %u, so stacks deeper than "
					"about %lu levels come out cut (%lu "
					"at the %u-byte dump)",
					DOCTOR_PROBE_DEPTH, p->deep_bytes,
					per, PERF_STACK_DUMP_MAX,
					PERF_STACK_DUMP_MAX / per,
					a->stack_size / per, a->stack_size);
			else
				set_err(p->limit_why.text,
					sizeof(p->limit_why.text),
					"the stack dump was full even at %u "
					"bytes, the most perf copies",
					PERF_STACK_DUMP_MAX);
			set_err(p->limit_why.hint,
				sizeof(p->limit_why.hint),
				"no --stack-size helps deeper programs; "
				"perf mode (a Python built with frame "
				"pointers) has no such limit once "
				"kernel.perf_event_max_stack is raised");
			return;
		}
		p->limit = PROBE_LIMIT_DUMP;
		set_err(p->limit_why.text,
			sizeof(p->limit_why.text),
			"the stack dump was full: a %d-level Python stack "
			"takes %lu bytes of C stack, more than the %u-byte "
			"dump", DOCTOR_PROBE_DEPTH, p->deep_bytes,
			a->stack_size);
		set_err(p->limit_why.hint,
			sizeof(p->limit_why.hint),
			"for programs this deep, record with --stack-size %u",
			p->needed_stack);
		return;
	case CUT_UNWIND:
		p->limit = PROBE_LIMIT_UNWIND;
		set_err(p->limit_why.text,
			sizeof(p->limit_why.text),
			"the %s unwinder stopped at '%s' before the end of "
			"the %u-byte dump", p->unwinder[0] ? p->unwinder
							   : "DWARF",
			a->deep_stop, a->stack_size);
		return;
	default:
		p->limit = PROBE_LIMIT_NOROOT;
		set_err(p->limit_why.text,
			sizeof(p->limit_why.text),
			"the call chain stops at '%s' (%u Python frames) "
			"before the process's start", a->deep_stop,
			a->deep_py_max);
		if (p->mode != MODE_JIT)
			set_err(p->limit_why.hint,
				sizeof(p->limit_why.hint),
				"code without frame pointers is on the "
				"stack: record in jit mode (--mode jit)");
		return;
	}
}

void doctor_probe_run(const char *perf, const struct pyinfo *py,
		      const struct mode *m, const char *tmpdir,
		      unsigned stack_size, unsigned max_stack,
		      struct doctor_probe *p)
{
	const char *base = tmpdir ? tmpdir : "/tmp";
	struct probe_ctx c;
	struct strvec env_set = STRVEC_INIT;
	char *dir = NULL, *jit_dir = NULL;
	char err[PPR_ERR_LEN];
	struct probe_pass *a;
	size_t i;

	memset(p, 0, sizeof(*p));
	memset(&c, 0, sizeof(c));
	p->mode = m->name;
	p->trampoline = m->trampoline;
	if (m->name != MODE_PERF && m->name != MODE_JIT) {
		p->unavailable = 1;
		set_err(p->detail, sizeof(p->detail), "no mode to test");
		return;
	}
	dir = xasprintf("%s/pyperf-doctor-XXXXXX", base);
	if (!mkdtemp(dir)) {
		p->unavailable = 1;
		set_err(p->detail, sizeof(p->detail),
			"cannot create a directory in '%s': %s", base,
			strerror(errno));
		free(dir);
		return;
	}
	p->ran = 1;
	snprintf(p->workdir, sizeof(p->workdir), "%s", dir);
	c.perf = perf;
	c.no_bpf_event = perfcmd_record_takes(perf, PERFCMD_NO_BPF_EVENT_OPT);
	c.py = py;
	c.m = m;
	c.dir = dir;
	c.start = now();
	c.script = xasprintf("%s/probe.py", dir);
	c.raw = xasprintf("%s/perf.data.raw", dir);
	c.data = xasprintf("%s/perf.data", dir);
	c.bid = xasprintf("%s/buildid", dir);
	if (write_script(c.script, p->detail, sizeof(p->detail)))
		goto out;

	strvec_push(&c.target, py->executable[0] ? py->executable : py->path);
	if (m->trampoline == TRAMPOLINE_NATIVE) {
		perfcmd_python_switches(m->name, &c.target, NULL);
	} else {
		/*
		 * The jitdump where record puts it (see record_jit_dir():
		 * a libdw-unwinding perf needs it), so that the probe tests
		 * what record does; perf maps are read from /tmp only.
		 */
		if (m->name == MODE_JIT)
			jit_dir = record_jit_dir(err, sizeof(err));
		if (embedded_prepare(py, m->name,
				     m->name != MODE_JIT ? NULL :
				     jit_dir ? jit_dir : dir,
				     &env_set, err, sizeof(err))) {
			set_err(p->detail, sizeof(p->detail),
				"the embedded trampoline is not ready: %s",
				err);
			goto out;
		}
	}
	strvec_push(&c.target, c.script);
	/* The probe's own settings only. */
	strvec_push(&env_set, "PYTHONPERFSUPPORT");
	strvec_push(&env_set, "PYTHON_PERF_JIT_SUPPORT");
	strvec_push(&env_set, "PYTHONSTARTUP");
	spawn_env_build(&c.env, env_set.v);

	a = &p->pass[0];
	if (record_pass(&c, stack_size, a, 1, p))
		goto out;
	p->nr_passes = 1;
	p->recorded = 1;
	p->samples = a->samples;
	p->python_samples = a->shallow + a->deep;
	p->names_found = a->shallow || a->deep;
	p->reached_module = mostly(a->shallow_complete, a->shallow);
	p->deep_complete = mostly(a->deep_complete, a->deep);
	p->shallow_first = p->reached_module;
	/*
	 * Cut in jit mode: again at the largest dump, to tell why; not
	 * when perf.data already says the dump was full and the stack is
	 * deeper than any dump.
	 */
	if (m->name == MODE_JIT && p->names_found &&
	    (!p->reached_module ||
	     (!p->deep_complete && !(main_cut(a) == CUT_DUMP &&
				     p->deep_bytes > PERF_STACK_DUMP_MAX))) &&
	    a->stack_size < PERF_STACK_DUMP_MAX) {
		clean_pass(&c);
		if (record_pass(&c, PERF_STACK_DUMP_MAX, &p->pass[1], 0, p))
			goto out;
		p->nr_passes = 2;
		/* The unwinder crosses Python frames if it does once. */
		if (mostly(p->pass[1].shallow_complete, p->pass[1].shallow))
			p->reached_module = 1;
	}
	if (p->reached_module && !p->shallow_first) {
		p->shallow_need = dump_for(p->shallow_bytes);
		if (p->shallow_need <= a->stack_size)
			p->shallow_need =
				a->stack_size * 2 < PERF_STACK_DUMP_MAX ?
				a->stack_size * 2 : PERF_STACK_DUMP_MAX;
	}
	if (!a->samples)
		set_err(p->detail, sizeof(p->detail), "perf recorded no "
			"samples");
	else if (!p->names_found)
		set_err(p->detail, sizeof(p->detail), "no Python function "
			"of the probe in %zu samples", a->samples);
	else if (!p->reached_module)
		set_err(p->detail, sizeof(p->detail), "Python frames are "
			"there but the stacks stop before the script's top "
			"level (%s): %zu of %zu shallow samples complete",
			PROBE_MODULE, a->shallow_complete, a->shallow);
	if (p->names_found)
		diagnose(p, max_stack);
out:
	p->pid = c.pids[0];
	for (i = 0; i < 2; i++) {
		if (!c.pids[i])
			continue;
		remove_leftovers("/tmp", c.pids[i], c.start);
		if (strcmp(base, "/tmp"))
			remove_leftovers(base, c.pids[i], c.start);
	}
	paths_remove_tree(dir);
	if (jit_dir) {
		record_jit_dir_remove(jit_dir);
		free(jit_dir);
	}
	strvec_clear(&env_set);
	strvec_clear(&c.env);
	strvec_clear(&c.target);
	free(dir);
	free(c.script);
	free(c.raw);
	free(c.data);
	free(c.bid);
}
