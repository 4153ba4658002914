/* Placeholder until the report command lands; replaced by its owner. */
#include "../lib/compat.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

static const char *const report_synopsis[] = {
	"pyperf-run report",
	NULL
};

const struct usage report_usage = { report_synopsis, NULL };

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("'report' is not implemented yet"), EXIT_INTERNAL;
}
