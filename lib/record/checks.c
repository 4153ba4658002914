/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Record's checks before anything is started (the script, the command,
 * perf's version, whether perf can open the event), and the explanation
 * of a perf record that failed.  Each reports through the run's message
 * callback (record_say()).
 */
#include "compat.h"
#include "record/checks.h"
#include "alloc.h"
#include "perfcmd.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

void record_say(struct record_run *r, enum record_msg_level level,
		const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	r->msg(r->msg_data, level, sb.buf);
	strbuf_release(&sb);
}

void record_say_output(struct record_run *r, const char *text)
{
	r->msg(r->msg_data, RECORD_MSG_OUTPUT, text);
}

/*
 * The script given is a program (an interpreter, say; a name found in
 * PATH or an ELF file): the two ways to say what was meant.
 */
static void hint_program(struct record_run *r, const char *prog)
{
	record_say(r, RECORD_MSG_HINT,
		   "to profile a script with that interpreter, give "
		   "'--python %s' before the script; to run a program, "
		   "put it after '--'", prog);
}

/* RECORD_OK, or why the script cannot run (said). */
enum record_outcome record_check_script(struct record_run *r,
					const char *path)
{
	struct stat st;
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		int e = errno;
		char *prog = e == ENOENT && !strchr(path, '/') ?
			spawn_which(path) : NULL;

		record_say(r, RECORD_MSG_ERROR, "cannot open '%s': %s", path,
		    strerror(e));
		if (prog) {
			/* `record python3 app.py`: a program in PATH */
			hint_program(r, path);
			free(prog);
		}
		return e == ENOENT || e == ENOTDIR ? RECORD_NOT_FOUND
						   : RECORD_CANNOT_EXEC;
	}
	if (fstat(fd, &st) < 0) {
		record_say(r, RECORD_MSG_ERROR, "cannot stat '%s': %s", path,
		    strerror(errno));
		close(fd);
		return RECORD_CANNOT_EXEC;
	}
	/*
	 * An ELF file is no Python source: Python would stop at its first
	 * byte with a SyntaxError about null bytes.
	 */
	if (S_ISREG(st.st_mode) && read(fd, magic, 4) == 4 &&
	    !memcmp(magic, "\177ELF", 4)) {
		close(fd);
		record_say(r, RECORD_MSG_ERROR, "cannot run '%s' as a Python "
			   "script: it is an executable (ELF) file", path);
		hint_program(r, path);
		return RECORD_CANNOT_EXEC;
	}
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		record_say(r, RECORD_MSG_ERROR,
			   "cannot run '%s': it is a directory", path);
		record_say(r, RECORD_MSG_HINT,
		    "give a Python script, or '-m <module>'");
		return RECORD_CANNOT_EXEC;
	}
	return RECORD_OK;
}

enum record_outcome record_check_command(struct record_run *r,
					 const char *cmd)
{
	char *p = spawn_which(cmd);
	int e = errno;

	if (p) {
		free(r->program_path);
		r->program_path = p;
		return RECORD_OK;
	}
	record_say(r, RECORD_MSG_ERROR, "cannot run '%s': %s", cmd,
		   strerror(e));
	return e == ENOENT ? RECORD_NOT_FOUND : RECORD_CANNOT_EXEC;
}

/* perf's version, and its `perf version` line (for the probe cache). */
int record_perf_version(const char *perf, struct perf_version *v,
			char *line, size_t linelen)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	char err[PPR_ERR_LEN];
	int st, ret = -1;

	perfcmd_version_argv(perf, 0, &argv);
	st = spawn_capture(argv.v, NULL, &out, NULL, 4096, err, sizeof(err));
	if (st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st) &&
	    !perf_version_parse(out.buf, v)) {
		snprintf(line, linelen, "%.*s", (int)strcspn(out.buf, "\n"),
			 out.buf);
		ret = 0;
	}
	strvec_clear(&argv);
	if (!ret) {
		/* which DWARF unwinder (see mode_decide()), and zstd */
		strbuf_reset(&out);
		perfcmd_version_argv(perf, 1, &argv);
		st = spawn_capture(argv.v, NULL, &out, NULL, 1 << 16, err,
				   sizeof(err));
		if (st >= 0 && WIFEXITED(st) && !WEXITSTATUS(st)) {
			int u = perf_build_option(out.buf, "libunwind");

			int z = perf_build_option(out.buf, "zstd");

			v->libunwind = u > 0 ? TRI_YES : u == 0 ? TRI_NO
							 : TRI_UNKNOWN;
			v->zstd = z > 0 ? TRI_YES : z == 0 ? TRI_NO
						      : TRI_UNKNOWN;
		}
		strvec_clear(&argv);
	}
	strbuf_release(&out);
	return ret;
}

static int perf_not_permitted(const char *perr)
{
	return strstr(perr, "Access to performance monitoring") ||
	       strstr(perr, "perf_event_paranoid") ||
	       strstr(perr, "Permission denied") ||
	       strstr(perr, "Operation not permitted");
}

enum record_outcome record_explain_perf_failure(struct record_run *r, int st,
						const char *perr)
{
	char desc[128];

	if (perf_not_permitted(perr)) {
		const struct sysprobe_value *p = &r->kernel.paranoid;
		char value[32] = "unknown";

		if (p->have)
			snprintf(value, sizeof(value), "%ld", p->value);
		record_say(r, RECORD_MSG_ERROR, "perf is not permitted to "
			   "record here (kernel.perf_event_paranoid = %s)",
			   value);
		record_say(r, RECORD_MSG_HINT, "as root: 'sysctl "
		    "kernel.perf_event_paranoid=1' (or -1 for kernel frames), "
		    "or give perf the CAP_PERFMON capability");
		record_say(r, RECORD_MSG_HINT,
		    "'pyperf-run doctor' checks the whole setup");
		return RECORD_FAILED;
	}
	spawn_describe_status(st, desc, sizeof(desc));
	record_say(r, RECORD_MSG_ERROR, "perf record failed (%s)", desc);
	record_say_output(r, perr);
	return RECORD_FAILED;
}


void record_check_event_start(struct event_check *c, const char *perf,
			      const char *event)
{
	struct strvec argv = STRVEC_INIT;

	memset(c, 0, sizeof(*c));
	perfcmd_stat_check_argv(perf, event, &argv);
	c->sp = (struct spawn)SPAWN_INIT;
	c->sp.argv = argv.v;	/* copied by the child; not used later */
	c->sp.in = SPAWN_DEVNULL;
	c->sp.out = SPAWN_DEVNULL;
	c->sp.err = SPAWN_PIPE;
	c->started = spawn_start(&c->sp, c->err, sizeof(c->err)) == 0;
	c->sp.argv = NULL;
	strvec_clear(&argv);
}

/* Stop a check whose verdict is not wanted any more. */
void record_check_event_abandon(struct event_check *c)
{
	if (!c->started)
		return;
	kill(c->sp.pid, SIGKILL);
	close(c->sp.err);
	spawn_finish(&c->sp);
	c->started = 0;
}

/* Read fd to its end into sb, keeping at most max bytes. */
void record_read_all(int fd, struct strbuf *sb, size_t max)
{
	for (;;) {
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (sb && sb->len < max)
			strbuf_add(sb, buf, (size_t)n);
	}
}

enum record_outcome record_check_event_finish(struct record_run *r,
					      struct event_check *c,
					      const char *event)
{
	struct strbuf errout = STRBUF_INIT;
	enum record_outcome ret = RECORD_OK;
	int st;

	if (!c->started) {
		record_say(r, RECORD_MSG_ERROR, "%s", c->err);
		return RECORD_FAILED;
	}
	record_read_all(c->sp.err, &errout, RECORD_HELPER_STDERR_MAX);
	close(c->sp.err);
	st = spawn_finish(&c->sp);
	c->started = 0;
	if (st < 0) {
		record_say(r, RECORD_MSG_ERROR, "cannot run perf stat: %s",
		    strerror(-st));
		ret = RECORD_FAILED;
	} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		if (strstr(errout.buf, "Access to performance monitoring") ||
		    strstr(errout.buf, "perf_event_paranoid") ||
		    strstr(errout.buf, "ermission")) {
			ret = record_explain_perf_failure(r, st, errout.buf);
		} else {
			record_say(r, RECORD_MSG_ERROR,
			    "perf cannot use the event '%s'", event);
			record_say_output(r, errout.buf);
			record_say(r, RECORD_MSG_HINT, "'perf list' shows the "
				   "events this machine has; cpu-clock works "
				   "everywhere");
			ret = RECORD_FAILED;
		}
	}
	strbuf_release(&errout);
	return ret;
}

void record_cap_frequency(struct record_run *r, unsigned long want)
{
	r->freq = sysprobe_cap_frequency(&r->kernel, want);
	if (r->freq != want)
		record_say(r, RECORD_MSG_WARNING, "-F %lu is above the "
			   "kernel's maximum of %u "
			   "(kernel.perf_event_max_sample_rate): using %u",
			   want, r->freq, r->freq);
}

#define PERF_PROGRESS_PREFIX "[ perf record: "
/*
 * perf 6.1's warning when it reads its recording back at the end: a
 * line "Warning:", then "Processed N samples and lost P%!".
 */
#define PERF_LOST_WARNING "Warning:\nProcessed "
#define PERF_LOST_WARNING_END "%!\n"

void record_drop_perf_lost_warning(struct strbuf *perr)
{
	char *at = strstr(perr->buf, PERF_LOST_WARNING), *end;
	size_t n;

	if (!at || (at != perr->buf && at[-1] != '\n') ||
	    !(end = strstr(at, PERF_LOST_WARNING_END)) ||
	    memchr(at + strlen(PERF_LOST_WARNING), '\n',
		   (size_t)(end - at) - strlen(PERF_LOST_WARNING)))
		return;
	end += strlen(PERF_LOST_WARNING_END);
	n = perr->len - (size_t)(end - perr->buf);
	memmove(at, end, n + 1);
	perr->len -= (size_t)(end - at);
	/* nothing else said (blank lines): nothing to show */
	if (strspn(perr->buf, " \t\n") == perr->len)
		strbuf_reset(perr);
}

/* Drop perf record's "[ perf record: ... ]" progress lines. */
void record_drop_perf_progress(struct strbuf *perr)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = perr->buf;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (strncmp(p, PERF_PROGRESS_PREFIX,
			    strlen(PERF_PROGRESS_PREFIX)))
			strbuf_add(&out, p, n + (p[n] == '\n'));
		p += n + (p[n] == '\n');
	}
	strbuf_reset(perr);
	strbuf_add(perr, out.buf, out.len);
	strbuf_release(&out);
}
