/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "alloc.h"

static void default_oom(size_t size)
{
	(void)size;
	abort();
}

static alloc_oom_fn oom_handler = default_oom;

void alloc_set_oom_handler(alloc_oom_fn fn)
{
	oom_handler = fn ? fn : default_oom;
}

static void *check(void *p, size_t size)
{
	if (!p) {
		oom_handler(size);
		abort(); /* the handler must not return */
	}
	return p;
}

void *xmalloc(size_t size)
{
	return check(malloc(size ? size : 1), size);
}

void *xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1), n * size);
}

void *xrealloc(void *p, size_t size)
{
	return check(realloc(p, size ? size : 1), size);
}

char *xstrdup(const char *s)
{
	return check(strdup(s), strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
	return check(strndup(s, n), n + 1);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return check(NULL, 0);
	return s;
}

int set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}
