/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "alloc.h"
#include "usage.h"

#include <getopt.h>
#include "exitcodes.h"

#include <unistd.h>

const char *ppr_prog = "pyperf-run";

void set_prog(const char *prog)
{
	ppr_prog = prog;
}

static void vreport(const char *prefix, const char *fmt, va_list ap,
		    int err)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", ppr_prog, prefix);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int error_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, saved);
	va_end(ap);
	errno = saved;
	return -1;
}

int error_code(int neg_errno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, neg_errno < 0 ? -neg_errno : neg_errno);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("note: ", fmt, ap, 0);
	va_end(ap);
}

void hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("hint: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	exit(code);
}

void usage_print(const struct usage *u, FILE *fp)
{
	size_t i;

	for (i = 0; u->synopsis[i]; i++)
		fprintf(fp, "%s%s\n", i ? "   or: " : "usage: ",
			u->synopsis[i]);
	if (u->options)
		fprintf(fp, "\n%s", u->options);
}

void usage_error(const struct usage *u, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	if (u && u->synopsis[0])
		fprintf(stderr, "hint: usage: %s\n"
			"hint: see '%s -h' for the options\n",
			u->synopsis[0], ppr_prog);
	exit(code);
}

static void oom(size_t size)
{
	static const char msg[] = "pyperf-run: out of memory\n";
	ssize_t r;

	(void)size;
	r = write(2, msg, sizeof(msg) - 1);
	(void)r;
	_exit(EXIT_INTERNAL);
}

void usage_install_oom(void)
{
	alloc_set_oom_handler(oom);
}

void usage_bad_option(const struct usage *u, int code, int c, char **argv)
{
	if (c == ':')
		usage_error(u, code, "option '%s' needs a value",
			    argv[optind - 1]);
	if (optopt)
		usage_error(u, code, "unknown option '-%c'", optopt);
	usage_error(u, code, "unknown option '%s'", argv[optind - 1]);
}
