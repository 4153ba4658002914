/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_BANNED_H
#define PPR_BANNED_H
/*
 * Calls that are easy to misuse are compile errors in our own code.
 * Included last by every lib/ and cmd/ source file (through compat.h).
 */
#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef mktemp
#define mktemp(t) BANNED(mktemp)
#undef system
#define system(c) BANNED(system)
#undef popen
#define popen(c, m) BANNED(popen)

#endif
