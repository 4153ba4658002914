/* SPDX-License-Identifier: GPL-2.0-only */
/* Where pyperf-run finds its files; see paths.h. */
#include "compat.h"
#include "paths.h"
#include "alloc.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PPR_LIBDIR
#define PPR_LIBDIR "/usr/local/lib/pyperf-run"
#endif

const char *paths_self_dir(void)
{
	static char dir[PATH_MAX];
	static int done;
	ssize_t n;
	char *slash;

	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0) {
		dir[0] = '\0';
		return NULL;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash) {
		dir[0] = '\0';
		return NULL;
	}
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return dir;
}

const char *paths_trampoline_dir(void)
{
	static char *dir;
	const char *env = getenv("PYPERF_LIBDIR");
	const char *self;

	if (env && *env == '/')
		return env;
	if (dir)
		return dir;
	self = paths_self_dir();
	if (self) {
		char *marker = xasprintf("%s/trampoline/.build-tree", self);
		int ok = access(marker, F_OK) == 0;

		free(marker);
		if (ok) {
			dir = xasprintf("%s/trampoline", self);
			return dir;
		}
	}
	dir = xstrdup(PPR_LIBDIR);
	return dir;
}

char *paths_cache_dir(char *err, size_t errlen)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/pyperf-run/trampoline", xdg);
	if (!home || *home != '/') {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || *home != '/') {
		set_err(err, errlen, "cannot find a cache directory: "
			"neither XDG_CACHE_HOME nor HOME is set");
		return NULL;
	}
	return xasprintf("%s/.cache/pyperf-run/trampoline", home);
}

int paths_mkdirs(const char *path, mode_t mode)
{
	char *p = xstrdup(path);
	char *s = p;
	int ret = 0;

	for (;;) {
		char save;

		while (*s == '/')
			s++;
		s += strcspn(s, "/");
		save = *s;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			ret = -errno;
			goto out;
		}
		if (!save)
			break;
		*s = save;
	}
	{
		struct stat st;

		if (stat(p, &st) < 0)
			ret = -errno;
		else if (!S_ISDIR(st.st_mode))
			ret = -ENOTDIR;
	}
out:
	free(p);
	return ret;
}

static int remove_at(int dfd, const char *name)
{
	struct stat st;
	int ret = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY |
				O_NOFOLLOW | O_CLOEXEC);
		DIR *d;
		struct dirent *de;

		if (fd < 0)
			return -errno;
		d = fdopendir(fd);
		if (!d) {
			ret = -errno;
			close(fd);
			return ret;
		}
		while ((de = readdir(d))) {
			int r;

			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			r = remove_at(dirfd(d), de->d_name);
			if (r < 0 && !ret)
				ret = r;
		}
		closedir(d);
		if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && !ret)
			ret = -errno;
		return ret;
	}
	if (unlinkat(dfd, name, 0) < 0)
		return -errno;
	return 0;
}

int paths_remove_tree(const char *path)
{
	return remove_at(AT_FDCWD, path);
}
