/* SPDX-License-Identifier: GPL-2.0-only */
/* This process's vDSO image (vdso.h). */
#include "compat.h"
#include "vdso.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

int vdso_self(const unsigned char **img, size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long lo = 0, hi = 0;
	char line[512];
	FILE *f;

	if (!base)
		return -ENOENT;
	f = fopen("/proc/self/maps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			break;
	fclose(f);
	if (base != lo || hi <= lo)
		return -ENOENT;
	*img = (const unsigned char *)lo;
	*len = hi - lo;
	return 0;
}
