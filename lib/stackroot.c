/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a stack starts (see stackroot.h). */
#include "compat.h"
#include "stackroot.h"

int stack_is_root_symbol(const char *sym)
{
	static const char *const roots[] = {
		"_start", "__libc_start_main", "__libc_start_call_main",
		"clone", "clone3", "__clone", "__clone3", "__clone_internal",
		"start_thread", "_dl_start", "_dl_start_user",
		"ret_from_fork", "ret_from_fork_asm",
	};
	size_t i, n = strcspn(sym, "@");

	for (i = 0; i < ARRAY_SIZE(roots); i++)
		if (strlen(roots[i]) == n && !strncmp(sym, roots[i], n))
			return 1;
	return 0;
}
