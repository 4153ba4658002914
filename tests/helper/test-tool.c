/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test-tool: exposes lib/ internals to the shell tests, one
 * subcommand each.  Not installed.
 */
#include "compat.h"
#include "mode.h"
#include "perfversion.h"
#include "pyinfo.h"

static int tt_perf_version(int argc, char **argv)
{
	struct perf_version v;
	char why[256], buf[96];

	if (argc != 2)
		return 2;
	if (perf_version_parse(argv[1], &v)) {
		puts("invalid");
		return 1;
	}
	perf_version_format(&v, buf, sizeof(buf));
	printf("%s jit_fix=%s\n", buf,
	       tristate_name(perf_version_jit_fix(&v, why, sizeof(why))));
	return 0;
}

static int tt_pyinfo(int argc, char **argv)
{
	struct pyinfo py;
	char err[PPR_ERR_LEN];

	if (argc != 2)
		return 2;
	if (pyinfo_probe(argv[1], &py, err, sizeof(err))) {
		printf("error: %s\n", err);
		pyinfo_release(&py);
		return 1;
	}
	printf("version=%s\nimplementation=%s\nnative_perf=%d\n"
	       "native_perf_jit=%d\nfp=%d\nleaf_fp=%d\nopt=%s\n"
	       "has_headers=%d\nexecutable=%s\n",
	       py.version, py.implementation, py.native_perf,
	       py.native_perf_jit, py.cflags.fp, py.cflags.leaf_fp,
	       py.cflags.opt, py.has_headers, py.executable);
	pyinfo_release(&py);
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(int, char **);
} tools[] = {
	{ "perf-version", tt_perf_version },
	{ "pyinfo", tt_pyinfo },
};

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "usage: test-tool <tool> [<args>]\n");
		return 2;
	}
	for (i = 0; i < ARRAY_SIZE(tools); i++)
		if (!strcmp(tools[i].name, argv[1]))
			return tools[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "test-tool: unknown tool '%s'\n", argv[1]);
	return 2;
}
