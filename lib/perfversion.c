/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "perfversion.h"
#include "numparse.h"

#include <ctype.h>

const char *tristate_name(enum tristate t)
{
	switch (t) {
	case TRI_YES:
		return "yes";
	case TRI_NO:
		return "no";
	default:
		return "unknown";
	}
}

int perf_build_option(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while ((p = strstr(p, name))) {
		const char *q = p + n;

		if ((p == text || p[-1] == ' ' || p[-1] == '\n') &&
		    q[0] == ':') {
			q++;
			while (*q == ' ')
				q++;
			if (!strncmp(q, "[ on", 4))
				return 1;
			if (!strncmp(q, "[ OFF", 5))
				return 0;
		}
		p = q;
	}
	return -1;
}

int perf_version_parse(const char *text, struct perf_version *v)
{
	const char *p = text;
	unsigned long n;
	size_t len;

	memset(v, 0, sizeof(*v));
	v->patch = -1;
	v->libunwind = TRI_UNKNOWN;
	v->zstd = TRI_UNKNOWN;
	if (!p)
		return -EINVAL;
	while (isspace((unsigned char)*p))
		p++;
	if (!strncmp(p, "perf version", 12)) {
		p += 12;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (parse_uint_prefix(p, &n, &p) || n > 1000 || *p != '.')
		return -EINVAL;
	v->major = (int)n;
	if (parse_uint_prefix(p + 1, &n, &p) || n > 1000)
		return -EINVAL;
	v->minor = (int)n;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		if (parse_uint_prefix(p + 1, &n, &p) || n > 1000000)
			return -EINVAL;
		v->patch = (int)n;
		/* A fourth number (WSL's 5.15.167.4) is part of extra. */
	}
	len = strcspn(p, "\r\n");
	if (len && !(*p == '-' || *p == '.' || *p == '+' || *p == '~' ||
		     *p == '_' || *p == ' '))
		return -EINVAL;
	if (len >= sizeof(v->extra))
		len = sizeof(v->extra) - 1;
	memcpy(v->extra, p, len);
	v->extra[len] = '\0';
	/* Nothing but the version may be on the line. */
	if (strchr(v->extra, ' '))
		return -EINVAL;
	return 0;
}

void perf_version_format(const struct perf_version *v, char *buf, size_t len)
{
	if (v->patch >= 0)
		snprintf(buf, len, "%d.%d.%d%s", v->major, v->minor, v->patch,
			 v->extra);
	else
		snprintf(buf, len, "%d.%d%s", v->major, v->minor, v->extra);
}

static int ver_ge(const struct perf_version *v, int major, int minor)
{
	return v->major > major || (v->major == major && v->minor >= minor);
}

enum tristate perf_version_jit_fix(const struct perf_version *v,
				   char *why, size_t whylen)
{
	/*
	 * Stable lines that got the unwinding fixes (c966d23a351a libdw,
	 * 4fb54994b236 libunwind, and genelf's), from .patch on.
	 */
	static const struct {
		int major, minor, patch;
	} backports[] = {
		{ 6, 7, 2 },
		{ 6, 6, 14 },
		{ 6, 1, 91 },
	};
	size_t i;

	if (ver_ge(v, 6, 8)) {
		set_err(why, whylen, "perf 6.8 and later unwind through "
			"jitted code");
		return TRI_YES;
	}
	for (i = 0; i < ARRAY_SIZE(backports); i++) {
		if (v->major != backports[i].major ||
		    v->minor != backports[i].minor)
			continue;
		if (v->patch >= backports[i].patch) {
			set_err(why, whylen, "the fix was backported to "
				"%d.%d.%d", backports[i].major,
				backports[i].minor, backports[i].patch);
			return TRI_YES;
		}
		/* A distribution may have picked the fix earlier. */
		if (v->patch < 0)
			set_err(why, whylen, "perf %d.%d without a patch "
				"level: the fix came in %d.%d.%d; a probe "
				"tells", v->major, v->minor,
				backports[i].major, backports[i].minor,
				backports[i].patch);
		else
			set_err(why, whylen, "the fix came in %d.%d.%d, "
				"unless the distribution backported it: a "
				"probe tells", backports[i].major,
				backports[i].minor, backports[i].patch);
		return TRI_UNKNOWN;
	}
	set_err(why, whylen, "perf %d.%d predates the fix (6.8; 6.7.2, "
		"6.6.14 and 6.1.91 on the stable lines): a probe tells",
		v->major, v->minor);
	return TRI_UNKNOWN;
}
