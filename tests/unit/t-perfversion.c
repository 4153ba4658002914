/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests: lib/perfversion.c */
#include "compat.h"
#include "perfversion.h"
#include "tap.h"

struct vcase {
	const char *text;
	int ok;
	int major, minor, patch;
	const char *extra;
	enum tristate fix;
};

static const struct vcase cases[] = {
	{ "perf version 6.1.187", 1, 6, 1, 187, "", TRI_YES },
	{ "perf version 6.7-3", 1, 6, 7, -1, "-3", TRI_UNKNOWN },
	{ "perf version 6.7.1", 1, 6, 7, 1, "", TRI_UNKNOWN },
	{ "perf version 6.7.2", 1, 6, 7, 2, "", TRI_YES },
	{ "perf version 6.6.13", 1, 6, 6, 13, "", TRI_UNKNOWN },
	{ "perf version 6.6.14", 1, 6, 6, 14, "", TRI_YES },
	{ "perf version 6.8.0-rc1", 1, 6, 8, 0, "-rc1", TRI_YES },
	{ "perf version 6.11.4-200.fc40.x86_64", 1, 6, 11, 4,
	  "-200.fc40.x86_64", TRI_YES },
	{ "perf version 5.15.167.4-microsoft-standard-WSL2", 1, 5, 15, 167,
	  ".4-microsoft-standard-WSL2", TRI_UNKNOWN },
	{ "perf version 6.5.0", 1, 6, 5, 0, "", TRI_UNKNOWN },
	{ "perf version 4.19.0", 1, 4, 19, 0, "", TRI_UNKNOWN },
	{ "perf version 10.0", 1, 10, 0, -1, "", TRI_YES },
	{ "6.8", 1, 6, 8, -1, "", TRI_YES },
	{ "perf version 6.2.16+deb12u1", 1, 6, 2, 16, "+deb12u1",
	  TRI_UNKNOWN },
	{ "perf version 6.14.0-1011-aws", 1, 6, 14, 0, "-1011-aws",
	  TRI_YES },
	{ "perf version 5.14.0-427.13.1.el9_4.x86_64", 1, 5, 14, 0,
	  "-427.13.1.el9_4.x86_64", TRI_UNKNOWN },
	{ "perf version 6.11.5-arch1-1", 1, 6, 11, 5, "-arch1-1", TRI_YES },
	{ "perf version 6.6.14.g1234abcd", 1, 6, 6, 14, ".g1234abcd",
	  TRI_YES },
	{ "perf version 6.9.rc3.g0123", 1, 6, 9, -1, ".rc3.g0123", TRI_YES },
	{ "perf version 6.1.187\n", 1, 6, 1, 187, "", TRI_YES },
	{ "  perf version 6.7.2\r\n", 1, 6, 7, 2, "", TRI_YES },
	{ "perf version 6.6", 1, 6, 6, -1, "", TRI_UNKNOWN },
	{ "perf version 4.19.269", 1, 4, 19, 269, "", TRI_UNKNOWN },
	/* The 6.1 stable line: 6.1.91 got the fixes (queue/6.1, May 2024). */
	{ "perf version 6.1.90", 1, 6, 1, 90, "", TRI_UNKNOWN },
	{ "perf version 6.1.91", 1, 6, 1, 91, "", TRI_YES },
	{ "perf version 6.1.76-1", 1, 6, 1, 76, "-1", TRI_UNKNOWN },
	{ "perf version 6.1", 1, 6, 1, -1, "", TRI_UNKNOWN },
	{ "perf version 6.6.58-0-lts", 1, 6, 6, 58, "-0-lts", TRI_YES },
	{ "perf version 6.7.0", 1, 6, 7, 0, "", TRI_UNKNOWN },
	{ "perf version 6.7.12", 1, 6, 7, 12, "", TRI_YES },
	{ "perf version 6.12.48+deb13-amd64", 1, 6, 12, 48, "+deb13-amd64",
	  TRI_YES },
	{ "perf version 5.15.167", 1, 5, 15, 167, "", TRI_UNKNOWN },
	{ "perf version 7.0.1", 1, 7, 0, 1, "", TRI_YES },
	{ "", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version six", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version 6", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version 6.", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version 6.x", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "Segmentation fault", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version 99999999999999999999.1", 0, 0, 0, 0, NULL,
	  TRI_UNKNOWN },
	{ "perf version 6.1abc", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
	{ "perf version 6.1.2 extra words", 0, 0, 0, 0, NULL, TRI_UNKNOWN },
};

int main(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct vcase *c = &cases[i];
		struct perf_version v;
		char why[256];
		int r = perf_version_parse(c->text, &v);

		TAP_INT(r == 0, c->ok, "parse '%s' %s", c->text,
			c->ok ? "succeeds" : "fails");
		if (!c->ok || r)
			continue;
		TAP_INT(v.major, c->major, "'%s' major", c->text);
		TAP_INT(v.minor, c->minor, "'%s' minor", c->text);
		TAP_INT(v.patch, c->patch, "'%s' patch", c->text);
		TAP_STR(v.extra, c->extra, "'%s' extra", c->text);
		TAP_STR(tristate_name(perf_version_jit_fix(&v, why,
							   sizeof(why))),
			tristate_name(c->fix), "'%s' jit fix (%s)", c->text,
			why);
	}
	{
		struct perf_version v;
		char buf[64];

		perf_version_parse("perf version 6.7-3", &v);
		perf_version_format(&v, buf, sizeof(buf));
		TAP_STR(buf, "6.7-3", "format keeps the distro revision");
	}
	return tap_done();
}
