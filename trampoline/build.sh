#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh PYTHON OUTDIR - build the embedded perf trampoline for one
# interpreter (CPython 3.8-3.13).  Contract: trampoline/README.md.
#
# Produces OUTDIR/boot/{sitecustomize.py,_pyperf_trampoline_boot.py,
# _pyperf_trampoline<EXT_SUFFIX>} and OUTDIR/site/pyperf_trampoline.pth.
# Exit: 0 built, 1 cannot build (compiler, headers, compile error),
# 2 usage, 3 interpreter not supported (version, debug, free-threaded).

me=build.sh
die() {
	code=$1
	shift
	printf '%s: %s\n' "$me" "$1" >&2
	test -n "${2:-}" && printf 'hint: %s\n' "$2" >&2
	exit "$code"
}

test $# = 2 || die 2 "usage: trampoline/build.sh <python> <outdir>"
python=$1
outdir=$2
src=$(cd "$(dirname "$0")" && pwd) || exit 1

command -v "$python" >/dev/null 2>&1 || test -x "$python" ||
	die 1 "cannot run '$python': not found"

# One line: version ext_suffix debug gil_disabled include platinclude
info=$("$python" -E -S -c '
import sys, sysconfig
v = sysconfig.get_config_var
p = sysconfig.get_paths()
sys.stdout.write("%d.%d %s %d %d %s %s\n" % (sys.version_info[0],
      sys.version_info[1], v("EXT_SUFFIX") or "-",
      int(bool(v("Py_DEBUG")) or hasattr(sys, "gettotalrefcount")),
      int(bool(v("Py_GIL_DISABLED"))), p["include"], p["platinclude"]))
' 2>/dev/null) || die 1 "cannot run '$python' to ask for its build settings"

# shellcheck disable=SC2086
set -- $info
test $# = 6 ||
	die 1 "cannot use '$python': its include paths contain spaces"
version=$1 ext=$2 debug=$3 nogil=$4 inc=$5 platinc=$6

case $version in
3.8|3.9|3.10|3.11|3.12|3.13) ;;
3.1[4-9]|3.[2-9][0-9])
	die 3 "Python $version is not supported yet (3.8 to 3.13 are): its frame layout changed; use its native -X perf / -X perf_jit" ;;
*)	die 3 "Python $version is not supported (3.8 to 3.13 are)" ;;
esac
test "$debug" = 0 ||
	die 3 "'$python' is a debug build (Py_DEBUG), which is not supported"
test "$nogil" = 0 ||
	die 3 "'$python' is a free-threaded build, which is not supported"
test "$ext" != - || die 1 "'$python' reports no EXT_SUFFIX"

pkgs="Debian/Ubuntu: apt-get install python$version-dev; Fedora: dnf install python$version-devel"
case $python in
*/.pyenv/*|*/pyenv/*)
	pkgs="reinstall it with pyenv (pyenv installs headers); $pkgs" ;;
esac
test -f "$inc/Python.h" ||
	die 1 "Python.h for Python $version not found in '$inc'" "$pkgs"

cc=${CC:-cc}
command -v "${cc%% *}" >/dev/null 2>&1 ||
	die 1 "C compiler '$cc' not found" \
		"Debian/Ubuntu: apt-get install gcc; Fedora: dnf install gcc"

mkdir -p "$outdir/boot" "$outdir/site" ||
	die 1 "cannot create '$outdir'"
so="$outdir/boot/_pyperf_trampoline$ext"
tmp="$so.tmp.$$"
# shellcheck disable=SC2086
if ! $cc -shared -fPIC -O2 -g -std=gnu11 -fno-omit-frame-pointer \
	-fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers \
	-I"$inc" -I"$platinc" ${CFLAGS:-} \
	-o "$tmp" "$src/_pyperf_trampoline.c" 2>"$tmp.log"; then
	cat "$tmp.log" >&2
	hdr=0
	grep -q 'Python\.h\|pyconfig\.h' "$tmp.log" && hdr=1
	rm -f "$tmp" "$tmp.log"
	test $hdr = 0 ||
		die 1 "cannot compile against Python $version headers" "$pkgs"
	die 1 "compiling the trampoline for Python $version failed"
fi
test -s "$tmp.log" && cat "$tmp.log" >&2
rm -f "$tmp.log"
mv -f "$tmp" "$so" || die 1 "cannot write '$so'"

for f in sitecustomize.py _pyperf_trampoline_boot.py; do
	cp "$src/python/$f" "$outdir/boot/$f.tmp.$$" &&
		mv -f "$outdir/boot/$f.tmp.$$" "$outdir/boot/$f" ||
		die 1 "cannot copy '$f' to '$outdir/boot'"
done
cp "$src/python/pyperf_trampoline.pth" "$outdir/site/pyperf_trampoline.pth" ||
	die 1 "cannot copy the .pth file to '$outdir/site'"
exit 0
