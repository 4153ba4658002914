/* SPDX-License-Identifier: GPL-2.0-only */
/* Writing files; see fileio.h. */
#include "compat.h"
#include "fileio.h"
#include "alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int write_in_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Close fd, keeping the first error. */
static int close_keep(int fd, int ret)
{
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

int write_file(const char *path, const void *buf, size_t len, mode_t mode,
	       int excl)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
		      (excl ? O_EXCL : O_TRUNC), mode);

	if (fd < 0)
		return -errno;
	return close_keep(fd, write_in_full(fd, buf, len));
}

int write_file_atomic(const char *path, const void *buf, size_t len,
		      mode_t mode, unsigned flags)
{
	char *tmp = xasprintf("%s.tmp-XXXXXX", path);
	int fd, ret;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(tmp);
		return ret;
	}
	ret = fchmod(fd, mode) < 0 ? -errno : 0;
	if (!ret)
		ret = write_in_full(fd, buf, len);
	if (!ret && (flags & WRITE_DURABLE) && fsync(fd) < 0)
		ret = -errno;
	ret = close_keep(fd, ret);
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in, out, ret = 0;

	in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		   mode);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -errno;
		if (n <= 0)
			break;
		ret = write_in_full(out, buf, (size_t)n);
		if (ret)
			break;
	}
	close(in);
	ret = close_keep(out, ret);
	if (ret)
		unlink(to);
	return ret;
}
