#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: first-use builds, cache, missing compiler or headers'
. ./test-lib.sh

# A library directory with the sources but no prebuilt library, so that
# every interpreter needs a first-use build, into a cache in the trash.
unset PYTHON PYPERF_TRAMPOLINE CC CFLAGS
mkdir -p lib &&
cp -R "$PPR_BUILD/trampoline/src" lib/src &&
cp "$PPR_BUILD/trampoline/SOURCE_ID" lib/SOURCE_ID || exit 1
PYPERF_LIBDIR=$TRASH/lib
XDG_CACHE_HOME=$TRASH/cache
export PYPERF_LIBDIR XDG_CACHE_HOME
CACHE=$XDG_CACHE_HOME/pyperf-run/trampoline
PYPY=$PPR_BUILD/wrappers/pyperf-python
# The trampoline's files of these runs go to the trash, not /tmp.
mkdir -p dumps
PYPERF_TRAMPOLINE_DIR=$TRASH/dumps
export PYPERF_TRAMPOLINE_DIR

# The distribution's interpreter first (the one most people have), then
# the others found.
PY=
for p in $(ppr_distro_python 3.8 3.9 3.10 3.11 3.12 3.13) $(ppr_pythons); do
	case $(ppr_python_version "$p") in
	3.8|3.9|3.10|3.11|3.12|3.13)
		inc=$("$p" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
		if test -f "$inc/Python.h"; then PY=$p; break; fi ;;
	esac
done
test_prereq_PY() { test -n "$PY" || { echo "no CPython 3.8-3.13 with headers"; return 1; }; }
test_prereq_CC() { command -v cc >/dev/null || { echo "no C compiler"; return 1; }; }

test_expect_success PY 'status before the first use: built on first use' '
	ppr trampoline status --python "$PY" >out &&
	test_grep "^build: +none yet \(built on first use\)$" out
'

test_expect_success PY,CC 'build: first use builds into XDG_CACHE_HOME' '
	ppr trampoline build --python "$PY" >dir &&
	d=$(cat dir) &&
	case $d in "$CACHE"/cpython-*) ;; *) echo "built in $d"; false ;; esac &&
	test -d "$d/boot" &&
	ls "$d"/boot/_pyperf_trampoline.*so >/dev/null &&
	test "$(stat -c %a "$d")" = 700 &&
	test "$(stat -c %a "$XDG_CACHE_HOME/pyperf-run")" = 700 &&
	test "$(stat -c %a "$CACHE")" = 700 &&
	! ls -a "$CACHE" | grep "^\.tmp-"
'

test_expect_success PY,CC 'build: the second time reuses the build' '
	d=$(cat dir) &&
	so=$(ls "$d"/boot/_pyperf_trampoline.*so) &&
	before=$(stat -c %Y.%i "$so") &&
	ppr trampoline build --python "$PY" >dir2 &&
	test_cmp dir dir2 &&
	test "$(stat -c %Y.%i "$so")" = "$before" &&
	ppr trampoline status --python "$PY" >out &&
	test_grep "^build: +$d$" out
'

test_expect_success PY,CC 'pyperf-python loads the cached build' '
	"$PYPY" --python "$PY" -c "import os, sys; print(sys.is_stack_trampoline_active()); print(os.environ[\"PYTHONPATH\"])" >out &&
	test "$(sed -n 1p out)" = True &&
	test "$(sed -n 2p out)" = "$(cat dir)/boot"
'

test_expect_success PY,CC 'pyperf-python builds on first use by itself' '
	rm -rf "$XDG_CACHE_HOME" &&
	"$PYPY" --python "$PY" -c "import sys; print(sys.is_stack_trampoline_active())" >out 2>err &&
	echo True >expect &&
	test_cmp expect out &&
	! test -s err &&
	ls -d "$CACHE"/cpython-*
'

test_expect_success PY,CC 'two first-use builds at once: both succeed, one build stays' '
	rm -rf "$XDG_CACHE_HOME" || return 1
	ppr trampoline build --python "$PY" >b1 2>e1 &
	ppr trampoline build --python "$PY" >b2 2>e2 &&
	wait $! &&
	wait &&
	test_cmp b1 b2 &&
	! test -s e1 && ! test -s e2 &&
	test $(find "$CACHE" -mindepth 1 -maxdepth 1 | wc -l) = 1 &&
	ls "$(cat b1)"/boot/_pyperf_trampoline.*so
'

test_expect_success PY,CC 'a new build replaces older ones of the same interpreter' '
	d=$(ppr trampoline build --python "$PY") &&
	real=$(readlink -f "$("$PY" -c "import sys; print(sys.executable)")") &&
	test "$(cat "$d/ORIGIN")" = "$real" &&
	mkdir -p "$CACHE/cpython-old-0000000000000000" "$CACHE/cpython-other-1111111111111111" &&
	echo "$real" >"$CACHE/cpython-old-0000000000000000/ORIGIN" &&
	echo /usr/bin/other >"$CACHE/cpython-other-1111111111111111/ORIGIN" &&
	touch -d "1 hour ago" "$CACHE"/cpython-old-* "$CACHE"/cpython-other-* &&
	rm -rf "$d" &&
	ppr trampoline build --python "$PY" >out &&
	test "$(cat out)" = "$d" &&
	! test -e "$CACHE/cpython-old-0000000000000000" &&
	test -d "$CACHE/cpython-other-1111111111111111" &&
	rm -rf "$CACHE/cpython-other-1111111111111111"
'

test_expect_success PY,CC 'a cache writable by others is refused' '
	rm -rf "$XDG_CACHE_HOME" &&
	mkdir -p "$CACHE" &&
	chmod 777 "$CACHE" &&
	test_expect_code 1 ppr trampoline build --python "$PY" 2>err &&
	test_grep "is writable by other users or not ours" err &&
	chmod 700 "$CACHE"
'

test_expect_success PY 'a missing compiler is named, with the package' '
	rm -rf "$XDG_CACHE_HOME" &&
	CC=/nonexistent/cc test_expect_code 1 ppr trampoline build --python "$PY" 2>err &&
	test_grep "no C compiler \(./nonexistent/cc.\) is installed; install build-essential \(Debian/Ubuntu\) or gcc \(Fedora\)" err &&
	test $(wc -l <err) = 1 &&
	CC=/nonexistent/cc test_expect_code 125 "$PYPY" --python "$PY" -c pass 2>err &&
	test_grep "^pyperf-python: the embedded trampoline for Python .* is not available" err &&
	test_grep "^hint: no C compiler .* build-essential" err
'

test_expect_success PY,CC 'a failing compile keeps a log and no half build' '
	rm -rf "$XDG_CACHE_HOME" &&
	CFLAGS=-fno-such-flag-here test_expect_code 1 ppr trampoline build --python "$PY" 2>err &&
	test_grep "building the embedded trampoline for Python .* failed .*; the log is in .*\.log.$" err &&
	log=$(ls "$CACHE"/*.log) &&
	test "$(stat -c %a "$log")" = 600 &&
	test_grep "no-such-flag-here" "$log" &&
	test -z "$(find "$CACHE" -mindepth 1 -type d)"
'

# A fake interpreter: the real one, but its sysconfig says the headers are
# in an empty directory (as on a machine without python3.X-dev).
test_expect_success PY 'missing Python headers: a clear message naming the package' '
	rm -rf "$XDG_CACHE_HOME" &&
	mkdir -p noinc fakesite &&
	cat >fakesite/sitecustomize.py <<-PYEOF &&
	import sysconfig
	_real = sysconfig.get_paths
	def _fake(*a, **k):
	    d = _real(*a, **k)
	    d["include"] = d["platinclude"] = "$TRASH/noinc"
	    return d
	sysconfig.get_paths = _fake
	PYEOF
	cat >fakepy <<-SHEOF &&
	#!/bin/sh
	for a
	do
	    shift
	    case \$a in -E|-S|-I|-s) ;; *) set -- "\$@" "\$a" ;; esac
	done
	PYTHONPATH="$TRASH/fakesite" exec "$PY" "\$@"
	SHEOF
	chmod +x fakepy &&
	./fakepy -c "import sysconfig; print(sysconfig.get_paths()[\"include\"])" >inc &&
	test "$(cat inc)" = "$TRASH/noinc" &&
	test_expect_code 1 ppr trampoline build --python "$TRASH/fakepy" 2>err &&
	v=$(ppr_python_version "$PY") &&
	test_grep "headers of Python $v\.[0-9]+ are missing \(.$TRASH/noinc/Python.h.\)" err &&
	test_grep "python$v-dev" err &&
	test_grep "python3-devel" err &&
	test_expect_code 125 "$PYPY" --python "$TRASH/fakepy" -c pass 2>err &&
	test_grep "python$v-dev" err &&
	test -z "$(find "$XDG_CACHE_HOME" -name "cpython-*" -type d)"
'

test_done
