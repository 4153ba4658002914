/* SPDX-License-Identifier: GPL-2.0-only */
#include "compat.h"
#include "pyinfo.h"
#include "alloc.h"
#include "numparse.h"
#include "spawn.h"
#include "strbuf.h"

#include <sys/wait.h>

/*
 * Runs under any Python from 2.6 on; prints one key=value per line.
 * Newlines in values are folded to spaces.
 */
static const char probe_script[] =
"import sys, os\n"
"def p(k, v):\n"
"    sys.stdout.write('%s=%s\\n' % (k, str(v).replace('\\n', ' ')))\n"
"vi = sys.version_info\n"
"p('version', '%d.%d.%d' % (vi[0], vi[1], vi[2]))\n"
"p('releaselevel', vi[3])\n"
"impl = getattr(sys, 'implementation', None)\n"
"p('implementation', impl.name if impl else\n"
"  ('pypy' if 'PyPy' in sys.version else 'cpython'))\n"
"p('executable', sys.executable)\n"
"p('prefix', sys.prefix)\n"
"p('base_prefix', getattr(sys, 'base_prefix', sys.prefix))\n"
"p('pydebug', int(hasattr(sys, 'gettotalrefcount')))\n"
"try:\n"
"    import platform\n"
"    p('machine', platform.machine())\n"
"except Exception:\n"
"    p('machine', '')\n"
"try:\n"
"    import sysconfig\n"
"    g = sysconfig.get_config_var\n"
"    paths = sysconfig.get_paths()\n"
"except Exception:\n"
"    g = lambda k: None\n"
"    paths = {}\n"
"p('cv.PY_HAVE_PERF_TRAMPOLINE', g('PY_HAVE_PERF_TRAMPOLINE') or 0)\n"
"p('cv.Py_GIL_DISABLED', g('Py_GIL_DISABLED') or 0)\n"
"p('cv.Py_DEBUG', g('Py_DEBUG') or 0)\n"
"p('cv.SOABI', g('SOABI') or '')\n"
"p('cv.EXT_SUFFIX', g('EXT_SUFFIX') or g('SO') or '')\n"
"f = g('PY_CORE_CFLAGS') or ' '.join([str(g(k) or '') for k in\n"
"    ('CFLAGS', 'PY_CFLAGS_NODIST')])\n"
"p('cflags', f)\n"
"inc = paths.get('include', '')\n"
"p('include', inc)\n"
"p('has_headers', int(bool(inc) and os.path.exists(os.path.join(inc, 'Python.h'))))\n"
"p('purelib', paths.get('purelib', ''))\n"
"p('end', 1)\n";

void pyinfo_parse_cflags(const char *flags, struct cflag_facts *out)
{
	const char *p = flags ? flags : "";

	memset(out, 0, sizeof(*out));
	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (!n)
			break;
		if (n == 23 && !strncmp(p, "-fno-omit-frame-pointer", n))
			out->fp = 1;
		else if (n == 20 && !strncmp(p, "-fomit-frame-pointer", n))
			out->fp = 0;
		else if (n == 28 &&
			 !strncmp(p, "-mno-omit-leaf-frame-pointer", n))
			out->leaf_fp = 1;
		else if (n == 25 && !strncmp(p, "-momit-leaf-frame-pointer", n))
			out->leaf_fp = 0;
		else if (n >= 2 && n < sizeof(out->opt) + 1 && p[0] == '-' &&
			 p[1] == 'O') {
			memcpy(out->opt, p + 1, n - 1);
			out->opt[n - 1] = '\0';
			if (n == 2) /* plain -O means -O1 */
				memcpy(out->opt, "O1", 3);
		}
		p += n;
	}
}

static char **field(struct pyinfo *info, const char *key)
{
	static const struct {
		const char *key;
		size_t off;
	} map[] = {
		{ "executable", offsetof(struct pyinfo, executable) },
		{ "version", offsetof(struct pyinfo, version) },
		{ "releaselevel", offsetof(struct pyinfo, releaselevel) },
		{ "implementation", offsetof(struct pyinfo, implementation) },
		{ "machine", offsetof(struct pyinfo, machine) },
		{ "cflags", offsetof(struct pyinfo, cflags_raw) },
		{ "include", offsetof(struct pyinfo, include_dir) },
		{ "cv.SOABI", offsetof(struct pyinfo, soabi) },
		{ "cv.EXT_SUFFIX", offsetof(struct pyinfo, ext_suffix) },
		{ "purelib", offsetof(struct pyinfo, purelib) },
		{ "prefix", offsetof(struct pyinfo, prefix) },
		{ "base_prefix", offsetof(struct pyinfo, base_prefix) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].key, key))
			return (char **)((char *)info + map[i].off);
	return NULL;
}

static int flag_value(const char *v)
{
	return strcmp(v, "0") && strcmp(v, "") && strcmp(v, "False") &&
	       strcmp(v, "None");
}

int pyinfo_parse(const char *text, struct pyinfo *info,
		 char *err, size_t errlen)
{
	const char *line = text;
	int seen_end = 0;
	const char *p;
	unsigned long v;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *eq = memchr(line, '=', len);

		if (eq) {
			char *key = xstrndup(line, (size_t)(eq - line));
			char *val = xstrndup(eq + 1, len - (size_t)(eq - line) - 1);
			char **slot = field(info, key);

			if (slot) {
				free(*slot);
				*slot = val;
				val = NULL;
			} else if (!strcmp(key, "cv.PY_HAVE_PERF_TRAMPOLINE")) {
				info->native_perf = flag_value(val);
			} else if (!strcmp(key, "cv.Py_GIL_DISABLED")) {
				info->free_threaded = flag_value(val);
			} else if (!strcmp(key, "cv.Py_DEBUG") ||
				   !strcmp(key, "pydebug")) {
				info->pydebug |= flag_value(val);
			} else if (!strcmp(key, "has_headers")) {
				info->has_headers = flag_value(val);
			} else if (!strcmp(key, "end")) {
				seen_end = 1;
			}
			free(key);
			free(val);
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!seen_end || !info->version)
		return set_err(err, errlen, "no answer from the probe");
	p = info->version;
	if (parse_uint_prefix(p, &v, &p) || *p != '.' || v > 99)
		return set_err(err, errlen, "cannot parse version '%s'",
			       info->version);
	info->major = (int)v;
	if (parse_uint_prefix(p + 1, &v, &p) || v > 999)
		return set_err(err, errlen, "cannot parse version '%s'",
			       info->version);
	info->minor = (int)v;
	if (*p == '.' && !parse_uint_prefix(p + 1, &v, &p))
		info->micro = (int)v;
	pyinfo_parse_cflags(info->cflags_raw, &info->cflags);
	info->native_perf_jit = info->native_perf && pyinfo_is_cpython(info) &&
				pyinfo_cmp(info, 3, 13) >= 0;
	/* Keep every string non-NULL for the callers. */
	{
		static const char *keys[] = {
			"executable", "releaselevel", "implementation",
			"machine", "cflags", "include", "cv.SOABI",
			"cv.EXT_SUFFIX", "purelib", "prefix", "base_prefix",
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			char **slot = field(info, keys[i]);

			if (!*slot)
				*slot = xstrdup("");
		}
	}
	return 0;
}

int pyinfo_probe(const char *python, struct pyinfo *info,
		 char *err, size_t errlen)
{
	const char *const prefix[] = { python, NULL };

	return pyinfo_probe_argv(prefix, info, err, errlen);
}

int pyinfo_probe_argv(const char *const *prefix, struct pyinfo *info,
		      char *err, size_t errlen)
{
	struct strvec argv = STRVEC_INIT;
	const char *python;
	/* Keep the user's environment but not settings that make it chatty. */
	static const char *const unset[] = {
		"PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONPERFSUPPORT",
		"PYTHON_PERF_JIT_SUPPORT", "PYTHONWARNINGS", NULL,
	};
	struct strvec env = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT, errout = STRBUF_INIT;
	char perr[PPR_ERR_LEN];
	int st, ret = -1;

	memset(info, 0, sizeof(*info));
	strvec_pushv(&argv, prefix);
	/* the interpreter: the prefix's last word */
	python = argv.v[argv.nr - 1];
	info->path = xstrdup(python);
	strvec_push(&argv, "-c");
	strvec_push(&argv, probe_script);
	spawn_env_build(&env, unset);
	st = spawn_capture((const char *const *)argv.v, env.v, &out, &errout,
			   1 << 20, perr, sizeof(perr));
	if (st < 0) {
		set_err(err, errlen, "%s", perr);
		goto out;
	}
	if (pyinfo_parse(out.buf, info, perr, sizeof(perr)) < 0) {
		char why[PPR_ERR_LEN];

		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			snprintf(why, sizeof(why), "%s", perr);
		else
			spawn_describe_status(st, why, sizeof(why));
		strbuf_rtrim(&errout);
		set_err(err, errlen, "'%s' is not a Python interpreter (%s)",
			python, why);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		pyinfo_release(info);
	strvec_clear(&argv);
	strvec_clear(&env);
	strbuf_release(&out);
	strbuf_release(&errout);
	return ret;
}

/* python, python3, python3.14, python3.14d, python3.15-dbg */
static int python_name(const char *path)
{
	const char *b = strrchr(path, '/');

	b = b ? b + 1 : path;
	if (strncmp(b, "python", 6))
		return 0;
	b += 6;
	b += strspn(b, "0123456789.");
	return !*b || !strcmp(b, "d") || !strcmp(b, "-dbg");
}

int pyinfo_command_python(const char *cmd, char *const *args, int nargs,
			  struct strvec *prefix, char **root)
{
	const char *b = strrchr(cmd, '/');
	int i = 0, j;

	*root = NULL;
	if (python_name(cmd)) {
		strvec_push(prefix, cmd);
		return 1;
	}
	if (strcmp(b ? b + 1 : cmd, "chroot"))
		return 0;
	/* chroot [--userspec=U:G] [--groups=G] [--skip-chdir] ROOT PROG */
	for (; i < nargs && args[i][0] == '-'; i++) {
		const char *a = args[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if ((!strcmp(a, "--userspec") || !strcmp(a, "--groups")) &&
		    i + 1 < nargs)
			i++;
	}
	if (i + 1 >= nargs || !python_name(args[i + 1]))
		return 0;
	strvec_push(prefix, cmd);
	for (j = 0; j <= i + 1; j++)
		strvec_push(prefix, args[j]);
	*root = realpath(args[i], NULL);
	if (!*root)
		*root = xstrdup(args[i]);
	return 1;
}

int pyinfo_is_cpython(const struct pyinfo *info)
{
	return info->implementation &&
	       !strcmp(info->implementation, "cpython");
}

int pyinfo_cmp(const struct pyinfo *info, int major, int minor)
{
	if (info->major != major)
		return info->major < major ? -1 : 1;
	if (info->minor != minor)
		return info->minor < minor ? -1 : 1;
	return 0;
}

void pyinfo_release(struct pyinfo *info)
{
	free(info->path);
	free(info->executable);
	free(info->version);
	free(info->releaselevel);
	free(info->implementation);
	free(info->machine);
	free(info->cflags_raw);
	free(info->include_dir);
	free(info->soabi);
	free(info->ext_suffix);
	free(info->purelib);
	free(info->prefix);
	free(info->base_prefix);
	memset(info, 0, sizeof(*info));
}
