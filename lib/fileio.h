/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_FILEIO_H
#define PPR_FILEIO_H
#include "compat.h"

#include <sys/types.h>

/*
 * Writing files: the one write loop, the one copy and the one
 * replace-by-rename of the code base.  Every function returns 0 or
 * -errno and never prints.  Files are created with O_NOFOLLOW, so a
 * planted symbolic link is never written through.
 */

/* Write all len bytes of buf to fd, through short writes and EINTR. */
int write_in_full(int fd, const void *buf, size_t len);

/*
 * Create path (O_TRUNC unless it must not exist: excl) with mode and
 * write buf to it.  Not atomic: for files nobody reads concurrently.
 */
int write_file(const char *path, const void *buf, size_t len, mode_t mode,
	       int excl);

/*
 * Replace path with buf atomically: a temporary file in the same
 * directory (mode, O_EXCL), rename.  A reader sees the old file or the
 * new one, never a part.  On failure nothing is left behind.  flags:
 * WRITE_DURABLE fsyncs before the rename, for files that must survive a
 * crash (the session's meta); caches that are checked and rebuilt when
 * damaged skip it.
 */
#define WRITE_DURABLE 1
int write_file_atomic(const char *path, const void *buf, size_t len,
		      mode_t mode, unsigned flags);

/*
 * Copy the regular file from (not followed if a link) to `to`, which
 * must not exist, with mode.  On failure `to` is removed.
 */
int copy_file(const char *from, const char *to, mode_t mode);

#endif
