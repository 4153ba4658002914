/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: lib/pyinfo.c, the compiler flags and the interpreter probe's
 * answer.  What record does with them is lib/mode.c's (t-mode.c).
 */
#include "compat.h"
#include "pyinfo.h"
#include "strbuf.h"
#include "tap.h"

static void flags(const char *f, int fp, int leaf, const char *opt)
{
	struct cflag_facts c;

	pyinfo_parse_cflags(f, &c);
	TAP_INT(c.fp, fp, "'%s': frame pointers", f);
	TAP_INT(c.leaf_fp, leaf, "'%s': leaf frame pointers", f);
	TAP_STR(c.opt, opt, "'%s': optimisation", f);
}

static const char probe_311[] =
	"version=3.11.7\nreleaselevel=final\nimplementation=cpython\n"
	"executable=/opt/py/bin/python3.11\nprefix=/opt/py\n"
	"base_prefix=/opt/py\npydebug=0\nmachine=x86_64\n"
	"cv.PY_HAVE_PERF_TRAMPOLINE=0\ncv.Py_GIL_DISABLED=0\ncv.Py_DEBUG=0\n"
	"cv.SOABI=cpython-311-x86_64-linux-gnu\n"
	"cv.EXT_SUFFIX=.cpython-311-x86_64-linux-gnu.so\n"
	"cflags=-Wsign-compare -DNDEBUG -g -fwrapv -O3 -Wall\n"
	"include=/opt/py/include/python3.11\nhas_headers=1\n"
	"purelib=/opt/py/lib/python3.11/site-packages\nend=1\n";

/*
 * pyinfo_command_python() on cmd and its args: found (1/0), the probe's
 * prefix joined by spaces, the root ("" for none).
 */
static void command(const char *cmd, const char *const *args, int found,
		    const char *prefix, const char *root)
{
	struct strvec pre = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *r = NULL;
	int n = 0;
	size_t i;

	while (args[n])
		n++;
	TAP_INT(pyinfo_command_python(cmd, (char *const *)args, n, &pre, &r),
		found, "'%s ...': an interpreter found", cmd);
	for (i = 0; i < pre.nr; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", pre.v[i]);
	TAP_STR(sb.buf, prefix, "'%s ...': the probe's words", cmd);
	TAP_STR(r ? r : "", root, "'%s ...': the root", cmd);
	free(r);
	strbuf_release(&sb);
	strvec_clear(&pre);
}

int main(void)
{
	struct pyinfo py;
	char err[PPR_ERR_LEN];

	flags("", 0, 0, "");
	flags("-O2 -g", 0, 0, "O2");
	flags("-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -O3",
	      1, 1, "O3");
	flags("-fno-omit-frame-pointer -O2 -fomit-frame-pointer", 0, 0, "O2");
	flags("-fomit-frame-pointer -fno-omit-frame-pointer", 1, 0, "");
	flags("-O3 -Og", 0, 0, "Og");
	flags("-O -g", 0, 0, "O1");
	flags("  -O0\t-mno-omit-leaf-frame-pointer ", 0, 1, "O0");
	flags("-Ofast", 0, 0, "Ofast");
	flags("-Oabcdefghijkl", 0, 0, "");

	memset(&py, 0, sizeof(py));
	TAP_INT(pyinfo_parse(probe_311, &py, err, sizeof(err)), 0,
		"parse the probe of a 3.11");
	TAP_INT(py.major * 100 + py.minor, 311, "version 3.11");
	TAP_INT(py.micro, 7, "micro 7");
	TAP_INT(py.native_perf, 0, "no native trampoline");
	TAP_INT(py.has_headers, 1, "headers");
	TAP_STR(py.cflags.opt, "O3", "optimisation from cflags");
	pyinfo_release(&py);

	memset(&py, 0, sizeof(py));
	TAP_INT(pyinfo_parse("version=2.7.18\nimplementation=cpython\nend=1\n",
			     &py, err, sizeof(err)), 0, "parse a 2.7 probe");
	TAP_INT(py.major * 100 + py.minor, 207, "version 2.7");
	pyinfo_release(&py);

	memset(&py, 0, sizeof(py));
	TAP_INT(pyinfo_parse("garbage\n", &py, err, sizeof(err)), -1,
		"garbage is not a probe answer");
	pyinfo_release(&py);
	command("python3.14", (const char *[]){ "prog.py", NULL }, 1,
		"python3.14", "");
	command("/usr/bin/python3.15-dbg", (const char *[]){ "-c", "x", NULL },
		1, "/usr/bin/python3.15-dbg", "");
	command("/usr/sbin/chroot", (const char *[]){ "--userspec", "1:1",
		"/", "/usr/bin/python3.14d", "prog.py", NULL }, 1,
		"/usr/sbin/chroot --userspec 1:1 / /usr/bin/python3.14d", "/");
	command("chroot", (const char *[]){ "--skip-chdir", "--", "/",
		"python3", NULL }, 1, "chroot --skip-chdir -- / python3", "/");
	command("chroot", (const char *[]){ "/", "/bin/sh", "run.sh", NULL }, 0,
		"", "");
	command("chroot", (const char *[]){ "/", NULL }, 0, "", "");
	command("pytest", (const char *[]){ "-q", NULL }, 0, "", "");
	command("python3-config", (const char *[]){ NULL }, 0, "", "");
	return tap_done();
}
