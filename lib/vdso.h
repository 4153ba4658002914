/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_VDSO_H
#define PPR_VDSO_H

#include <stddef.h>

/*
 * This process's vDSO image, as the kernel maps it ([vdso] in
 * /proc/self/maps, starting at AT_SYSINFO_EHDR): 0, or -ENOENT when it
 * has none.  Every 64-bit process on this kernel maps the same image,
 * so it stands for theirs: record saves it in the session, and the
 * unwinding done while recording reads its tables from it.
 */
int vdso_self(const unsigned char **img, size_t *len);

#endif
