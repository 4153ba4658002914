/*
 * `pyperf-run doctor --probe`: record a tiny bundled script in the
 * chosen mode and check that its Python functions, with the script's
 * top level below them, are in the stacks perf reports.  Everything is
 * done in a private directory that is removed afterwards, together with
 * the files the interpreter left in /tmp; perf's build-id cache is
 * pointed into the private directory so that ~/.debug does not grow.
 * Owner: doctor.
 */
#include "compat.h"
#include "doctor.h"
#include "alloc.h"
#include "embedded.h"
#include "numparse.h"
#include "paths.h"
#include "perfcmd.h"
#include "spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_INNER "py::pyperf_probe_inner"
#define PROBE_OUTER "py::pyperf_probe_outer"
#define PROBE_MODULE "py::<module>"

/* About half a second of work, whatever the machine; prints its pid. */
static const char probe_script[] =
"import os, sys, time\n"
"def pyperf_probe_inner(n):\n"
"    s = 0\n"
"    for i in range(n):\n"
"        s += i * i\n"
"    return s\n"
"def pyperf_probe_outer():\n"
"    t = 0\n"
"    end = time.time() + 0.5\n"
"    while time.time() < end:\n"
"        t += pyperf_probe_inner(20000)\n"
"    return t\n"
"sys.stdout.write('pid=%d\\n' % os.getpid())\n"
"sys.stdout.flush()\n"
"pyperf_probe_outer()\n";

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Finish one sample's frames (in order, innermost first). */
static void end_sample(struct doctor_probe *p, int *in_sample, int *inner,
		       int *outer, int *module)
{
	if (*in_sample) {
		p->samples++;
		if (*inner) {
			p->python_samples++;
			p->names_found = 1;
			if (*outer && *module)
				p->reached_module = 1;
		}
	}
	*in_sample = *inner = *outer = *module = 0;
}

void doctor_probe_check_script(const char *text, struct doctor_probe *p)
{
	const char *line = text;
	int in_sample = 0, inner = 0, outer = 0, module = 0;

	p->samples = p->python_samples = 0;
	p->names_found = p->reached_module = 0;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *l = xstrndup(line, len);

		if (!len) {
			end_sample(p, &in_sample, &inner, &outer, &module);
		} else if (l[0] != ' ' && l[0] != '\t') {
			/* A sample's header line. */
			end_sample(p, &in_sample, &inner, &outer, &module);
			in_sample = 1;
		} else if (in_sample) {
			/* Frames: innermost first, callers below. */
			if (strstr(l, PROBE_INNER))
				inner = 1;
			else if (inner && strstr(l, PROBE_OUTER))
				outer = 1;
			else if (inner && outer && strstr(l, PROBE_MODULE))
				module = 1;
		}
		free(l);
		line = nl ? nl + 1 : NULL;
	}
	end_sample(p, &in_sample, &inner, &outer, &module);
}

static int write_script(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			    O_CLOEXEC, 0600);
	size_t off = 0, len = sizeof(probe_script) - 1;

	if (fd < 0)
		return set_err(err, errlen, "cannot create '%s': %s", path,
			       strerror(errno));
	while (off < len) {
		ssize_t w = write(fd, probe_script + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = errno;

			close(fd);
			return set_err(err, errlen, "cannot write '%s': %s",
				       path, strerror(e));
		}
		off += (size_t)w;
	}
	if (close(fd))
		return set_err(err, errlen, "cannot write '%s': %s", path,
			       strerror(errno));
	return 0;
}

/* The last non-empty line of perf's stderr, for a one-line reason. */
static void last_line(const struct strbuf *sb, char *buf, size_t len)
{
	const char *end = sb->buf + sb->len, *start;

	while (end > sb->buf && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > sb->buf && start[-1] != '\n')
		start--;
	snprintf(buf, len, "%.*s", (int)(end - start), start);
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
		last_line(&errout, line, sizeof(line));
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

static pid_t script_pid(const char *out)
{
	const char *p = strstr(out, "pid=");
	unsigned long v;

	if (!p || parse_uint_prefix(p + 4, &v, &p) || !v || v > 0x7fffffff)
		return 0;
	return (pid_t)v;
}

void doctor_probe_run(const char *perf, const struct pyinfo *py,
		      const struct mode *m, const char *tmpdir,
		      struct doctor_probe *p)
{
	const char *base = tmpdir ? tmpdir : "/tmp";
	char *dir = NULL, *script = NULL, *raw = NULL, *data = NULL;
	char *bid = NULL;
	struct strvec env_set = STRVEC_INIT, env = STRVEC_INIT;
	struct strvec target = STRVEC_INIT, argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	struct perfcmd_record o;
	double start = now();
	pid_t pid = 0;
	char err[PPR_ERR_LEN];

	memset(p, 0, sizeof(*p));
	p->mode = m->name;
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
	script = xasprintf("%s/probe.py", dir);
	raw = xasprintf("%s/perf.data.raw", dir);
	data = xasprintf("%s/perf.data", dir);
	bid = xasprintf("%s/buildid", dir);
	if (write_script(script, p->detail, sizeof(p->detail)))
		goto out;

	strvec_push(&target, py->executable[0] ? py->executable : py->path);
	if (m->trampoline == TRAMPOLINE_NATIVE) {
		perfcmd_python_switches(m->name, &target, NULL);
	} else if (embedded_prepare(py, m->name,
				    /* perf reads maps from /tmp only */
				    m->name == MODE_JIT ? dir : NULL,
				    &env_set, err, sizeof(err))) {
		set_err(p->detail, sizeof(p->detail),
			"the embedded trampoline is not ready: %s", err);
		goto out;
	}
	strvec_push(&target, script);
	/* The probe's own settings only. */
	strvec_push(&env_set, "PYTHONPERFSUPPORT");
	strvec_push(&env_set, "PYTHON_PERF_JIT_SUPPORT");
	strvec_push(&env_set, "PYTHONSTARTUP");
	spawn_env_build(&env, env_set.v);

	perfcmd_record_init(&o);
	perfcmd_record_set_mode(&o, m);
	o.perf = perf;
	o.output = m->name == MODE_JIT ? raw : data;
	o.buildid_dir = bid;
	o.target = target.v;
	o.flags = PERFCMD_QUIET;
	perfcmd_record_argv(&o, &argv);
	if (run("perf record", argv.v, env.v, &out, p))
		goto out;
	pid = script_pid(out.buf);
	strvec_clear(&argv);
	if (m->name == MODE_JIT) {
		perfcmd_inject_argv(perf, bid, raw, data, &argv);
		if (run("perf inject", argv.v, NULL, NULL, p))
			goto out;
		strvec_clear(&argv);
	}
	strvec_push(&argv, perf ? perf : "perf");
	strvec_push(&argv, "--buildid-dir");
	strvec_push(&argv, bid);
	strvec_pushv(&argv, (const char *const[]){ "script", "-F",
		     "comm,ip,sym", "--no-inline", "-i", NULL });
	strvec_push(&argv, data);
	strbuf_reset(&out);
	if (run("perf script", argv.v, NULL, &out, p))
		goto out;
	p->recorded = 1;
	doctor_probe_check_script(out.buf, p);
	if (!p->samples)
		set_err(p->detail, sizeof(p->detail), "perf recorded no "
			"samples");
	else if (!p->names_found)
		set_err(p->detail, sizeof(p->detail), "no Python function "
			"of the probe in %zu samples", p->samples);
	else if (!p->reached_module)
		set_err(p->detail, sizeof(p->detail), "Python frames are "
			"there but the stacks stop before the script's top "
			"level (%s)", PROBE_MODULE);
out:
	if (!pid && out.len)
		pid = script_pid(out.buf);
	p->pid = pid;
	if (pid) {
		remove_leftovers("/tmp", pid, start);
		if (strcmp(base, "/tmp"))
			remove_leftovers(base, pid, start);
	}
	paths_remove_tree(dir);
	strvec_clear(&env_set);
	strvec_clear(&env);
	strvec_clear(&target);
	strvec_clear(&argv);
	strbuf_release(&out);
	free(dir);
	free(script);
	free(raw);
	free(data);
	free(bid);
}
