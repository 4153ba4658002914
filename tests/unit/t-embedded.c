/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: lib/embedded.c (keys, environment strings, argument scan,
 * install/uninstall on a scratch site-packages) and lib/paths.c.
 */
#include "compat.h"
#include "alloc.h"
#include "embedded.h"
#include "paths.h"
#include "tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static void fake_py(struct pyinfo *py, const char *site)
{
	memset(py, 0, sizeof(*py));
	py->path = xstrdup("/bin/sh");
	py->executable = xstrdup("/bin/sh");
	py->version = xstrdup("3.11.7");
	py->major = 3;
	py->minor = 11;
	py->micro = 7;
	py->releaselevel = xstrdup("final");
	py->implementation = xstrdup("cpython");
	py->machine = xstrdup("x86_64");
	py->cflags_raw = xstrdup("-O3");
	py->include_dir = xstrdup("/nonexistent/include");
	py->soabi = xstrdup("cpython-311-x86_64-linux-gnu");
	py->ext_suffix = xstrdup(".cpython-311-x86_64-linux-gnu.so");
	py->purelib = xstrdup(site);
	py->prefix = xstrdup("/opt");
	py->base_prefix = xstrdup("/opt");
}

static void scan(int isolated, enum mode_name xmode, const char *what, ...)
{
	const char *argv[16];
	struct embedded_args a;
	va_list ap;
	int argc = 0;

	va_start(ap, what);
	while (argc < 15 && (argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	embedded_scan_args(argc, argv, &a);
	TAP_INT(a.isolated, isolated, "scan %s: isolated", what);
	TAP_INT(a.xmode, xmode, "scan %s: -X mode", what);
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, path, strlen(path)) < 0)
			perror("write");
		close(fd);
	}
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int env_has(const struct strvec *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

int main(void)
{
	char tmpl[] = "/tmp/t-embedded.XXXXXX";
	char key[256], key2[256], err[PPR_ERR_LEN];
	char *root, *site, *lib, *kdir, *p;
	struct pyinfo py;
	struct strvec env = STRVEC_INIT;
	struct embedded_status st;
	struct stat sb;
	int code;

	scan(0, MODE_NONE, "script", "app.py", "-X", "perf", NULL);
	scan(0, MODE_PERF, "-X perf", "-X", "perf", "app.py", NULL);
	scan(0, MODE_JIT, "-Xperf_jit", "-Xperf_jit", "app.py", NULL);
	scan(1, MODE_JIT, "-I -X perf_jit", "-I", "-X", "perf_jit", "-c",
	     "pass", NULL);
	scan(1, MODE_PERF, "grouped -uEX perf", "-uEX", "perf", "a.py", NULL);
	scan(0, MODE_NONE, "-c ends options", "-c", "-X", "-X", "perf", NULL);
	scan(0, MODE_NONE, "-m ends options", "-mI", "-X", "perf", NULL);
	scan(0, MODE_PERF, "-W takes a value", "-W", "-I", "-X", "perf",
	     "a.py", NULL);
	scan(0, MODE_JIT, "last -X wins", "-X", "perf", "-X", "perf_jit",
	     "a.py", NULL);
	scan(0, MODE_NONE, "-X dev", "-X", "dev", "a.py", NULL);

	root = mkdtemp(tmpl);
	TAP_OK(root != NULL, "scratch directory");
	if (!root)
		return tap_done();
	site = xasprintf("%s/site", root);
	lib = xasprintf("%s/lib", root);
	TAP_INT(paths_mkdirs(site, 0700), 0, "mkdirs site");
	TAP_INT(paths_mkdirs(lib, 0700), 0, "mkdirs lib");
	TAP_INT(paths_mkdirs(lib, 0700), 0, "mkdirs is idempotent");
	setenv("PYPERF_LIBDIR", lib, 1);
	TAP_STR(paths_trampoline_dir(), lib, "PYPERF_LIBDIR wins");
	setenv("XDG_CACHE_HOME", root, 1);
	p = paths_cache_dir(err, sizeof(err));
	TAP_OK(p && !strcmp(p + strlen(root), "/pyperf-run/trampoline"),
	       "cache dir under XDG_CACHE_HOME");
	free(p);
	setenv("XDG_CACHE_HOME", "relative", 1);
	setenv("HOME", "/home/x", 1);
	p = paths_cache_dir(err, sizeof(err));
	TAP_STR(p, "/home/x/.cache/pyperf-run/trampoline",
		"relative XDG_CACHE_HOME is ignored");
	free(p);
	setenv("XDG_CACHE_HOME", root, 1);

	fake_py(&py, site);
	TAP_INT(embedded_key(&py, key, sizeof(key), err, sizeof(err)), 0,
		"key");
	TAP_OK(!strncmp(key, "cpython-311-x86_64-linux-gnu-", 29) &&
	       strlen(key) == 29 + 16, "key is SOABI-hash: %s", key);
	embedded_key(&py, key2, sizeof(key2), err, sizeof(err));
	TAP_STR(key2, key, "key is stable");
	free(py.version);
	py.version = xstrdup("3.11.8");
	embedded_key(&py, key2, sizeof(key2), err, sizeof(err));
	TAP_OK(strcmp(key, key2), "another build gets another key");
	free(py.version);
	py.version = xstrdup("3.11.7");
	free(py.soabi);
	py.soabi = xstrdup("");
	embedded_key(&py, key2, sizeof(key2), err, sizeof(err));
	TAP_OK(!strncmp(key2, "cpython-311-", 12), "no SOABI: %s", key2);
	free(py.soabi);
	py.soabi = xstrdup("../../etc");
	TAP_INT(embedded_key(&py, key2, sizeof(key2), err, sizeof(err)), -1,
		"a SOABI with a slash is refused");
	free(py.soabi);
	py.soabi = xstrdup("cpython-311-x86_64-linux-gnu");

	/* No build yet: find fails; a fake build makes it succeed. */
	TAP_INT(embedded_find(&py, &p), -ENOENT, "no build yet");
	kdir = xasprintf("%s/%s", lib, key);
	p = xasprintf("%s/boot", kdir);
	paths_mkdirs(p, 0755);
	free(p);
	p = xasprintf("%s/site", kdir);
	paths_mkdirs(p, 0755);
	free(p);
	p = xasprintf("%s/boot/_pyperf_trampoline%s", kdir, py.ext_suffix);
	touch(p);
	free(p);
	p = xasprintf("%s/boot/_pyperf_trampoline_boot.py", kdir);
	touch(p);
	free(p);
	p = xasprintf("%s/site/pyperf_trampoline.pth", kdir);
	touch(p);
	free(p);
	TAP_INT(embedded_find(&py, &p), 0, "the build is found");
	TAP_STR(p, kdir, "in the library directory");
	free(p);
	chmod(kdir, 0777);
	TAP_INT(embedded_find(&py, &p), -ENOENT,
		"a world-writable build is not used");
	chmod(kdir, 0755);

	/* Environment strings. */
	unsetenv("PYTHONPATH");
	TAP_INT(embedded_prepare(&py, MODE_JIT, NULL, &env, err,
				 sizeof(err)), 0, "prepare jit");
	p = xasprintf("PYTHONPATH=%s/boot", kdir);
	TAP_OK(env_has(&env, p), "PYTHONPATH is the boot directory");
	free(p);
	TAP_OK(env_has(&env, "PYPERF_TRAMPOLINE=jit"), "jit backend");
	TAP_INT(env.nr, 2, "no dump directory for /tmp");
	strvec_clear(&env);
	setenv("PYTHONPATH", "/a:/b", 1);
	TAP_INT(embedded_prepare(&py, MODE_PERF, "/x/y", &env, err,
				 sizeof(err)), 0, "prepare perf");
	p = xasprintf("PYTHONPATH=%s/boot:/a:/b", kdir);
	TAP_OK(env_has(&env, p), "the user's PYTHONPATH is kept after ours");
	free(p);
	TAP_OK(env_has(&env, "PYPERF_TRAMPOLINE=perf"), "perf backend");
	TAP_OK(env_has(&env, "PYPERF_TRAMPOLINE_DIR=/x/y"), "dump directory");
	strvec_clear(&env);
	TAP_INT(embedded_prepare(&py, MODE_AUTO, NULL, &env, err,
				 sizeof(err)), -1, "auto is not a backend");
	strvec_clear(&env);

	/* Install, status, uninstall into the scratch site-packages. */
	p = xasprintf("%s/unrelated.py", site);
	touch(p);
	free(p);
	TAP_INT(embedded_status_read(&py, &st, err, sizeof(err)), 0,
		"status");
	TAP_INT(st.installed, 0, "not installed");
	embedded_status_release(&st);
	TAP_INT(embedded_uninstall(&py, &code, err, sizeof(err)), -1,
		"uninstall of nothing fails");
	TAP_INT(code, -ENOENT, "with ENOENT");
	TAP_INT(embedded_install(&py, &code, err, sizeof(err)), 0,
		"install: %s", err);
	TAP_INT(count_entries(site), 5, "three files and a manifest added");
	p = xasprintf("%s/pyperf_trampoline.pth", site);
	TAP_OK(stat(p, &sb) == 0 && (sb.st_mode & 07777) == 0644,
	       "installed files are 0644");
	free(p);
	TAP_INT(embedded_install(&py, &code, err, sizeof(err)), -1,
		"second install reports");
	TAP_INT(code, -EEXIST, "with EEXIST");
	TAP_INT(embedded_status_read(&py, &st, err, sizeof(err)), 0,
		"status again");
	TAP_INT(st.installed, 1, "installed");
	TAP_INT(st.files.nr, 3, "three files listed");
	TAP_INT(st.missing.nr, 0, "none missing");
	TAP_STR(st.key, key, "the build's key is recorded");
	embedded_status_release(&st);
	p = xasprintf("%s/__pycache__", site);
	paths_mkdirs(p, 0755);
	free(p);
	p = xasprintf("%s/__pycache__/_pyperf_trampoline_boot.cpython-311"
		      ".pyc", site);
	touch(p);
	free(p);
	TAP_INT(embedded_uninstall(&py, &code, err, sizeof(err)), 0,
		"uninstall: %s", err);
	TAP_INT(count_entries(site), 1, "only the unrelated file is left");

	/* A file of ours that someone else put there is not overwritten. */
	p = xasprintf("%s/pyperf_trampoline.pth", site);
	touch(p);
	TAP_INT(embedded_install(&py, &code, err, sizeof(err)), -1,
		"install refuses to overwrite a foreign file");
	TAP_OK(strstr(err, "not installed by pyperf-run") != NULL,
	       "and says so: %s", err);
	unlink(p);
	free(p);

	/* 3.14 is refused (its frame layout changed); 3.7 too. */
	py.minor = 14;
	free(py.version);
	py.version = xstrdup("3.14.0");
	TAP_INT(embedded_install(&py, &code, err, sizeof(err)), -1,
		"3.14: refused");
	TAP_OK(strstr(err, "Python 3.14.0 is not supported yet (3.8 to 3.13 "
		      "are; 3.14 changed the frame layout)") != NULL,
	       "and says why: %s", err);
	TAP_INT(count_entries(site), 1, "nothing was installed");
	py.minor = 7;
	TAP_INT(embedded_install(&py, &code, err, sizeof(err)), -1,
		"3.7: refused");

	TAP_INT(paths_remove_tree(root), 0, "remove the scratch tree");
	TAP_OK(access(root, F_OK) < 0, "it is gone");
	pyinfo_release(&py);
	free(kdir);
	free(site);
	free(lib);
	return tap_done();
}
