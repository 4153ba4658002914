/* Placeholder until the record command lands; replaced by its owner. */
#include "../lib/compat.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

static const char *const record_synopsis[] = {
	"pyperf-run record",
	NULL
};

const struct usage record_usage = { record_synopsis, NULL };

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("'record' is not implemented yet"), EXIT_INTERNAL;
}
