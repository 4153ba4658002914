/* Placeholder until the doctor command lands; replaced by its owner. */
#include "../lib/compat.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

static const char *const doctor_synopsis[] = {
	"pyperf-run doctor",
	NULL
};

const struct usage doctor_usage = { doctor_synopsis, NULL };

int cmd_doctor(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("'doctor' is not implemented yet"), EXIT_INTERNAL;
}
