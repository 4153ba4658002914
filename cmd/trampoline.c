/* Placeholder until the trampoline command lands; replaced by its owner. */
#include "../lib/compat.h"
#include "builtin.h"
#include "exitcodes.h"
#include "usage.h"

static const char *const trampoline_synopsis[] = {
	"pyperf-run trampoline",
	NULL
};

const struct usage trampoline_usage = { trampoline_synopsis, NULL };

int cmd_trampoline(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return error("'trampoline' is not implemented yet"), EXIT_INTERNAL;
}
