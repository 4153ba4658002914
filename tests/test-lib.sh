# SPDX-License-Identifier: GPL-2.0-only
# test-lib.sh: the TAP test library every tests/tNNNN-*.sh sources.
#
#   test_description='what this file tests'
#   . ./test-lib.sh
#   test_expect_success 'title' '
#           commands chained with && ...
#   '
#   test_done
#
# Each script runs in its own trash directory ($TRASH, the cwd of the
# tests), removed at the end unless PPR_KEEP=1.  Helpers:
#   test_expect_success TITLE BODY, test_expect_success PREREQ TITLE BODY
#   test_skip TITLE REASON      a skip, printed by `make check` at the end
#   test_must_fail CMD...       exit status 1..128 (not a signal, not a
#                               sanitizer report: those exit 198)
#   test_expect_code N CMD...   exactly N
#   test_cmp EXPECT ACTUAL      diff -u
#   test_grep [-v] PATTERN FILE grep -E with a message on failure
#   test_have_prereq NAME       lazy, cached checks (PERF, JIT, ...)
#   ppr ARGS...                 the pyperf-run under test (ASan/valgrind aware)
#   ppr_pythons                 every interpreter found (one path a line)
#   ppr_python X.Y              the first interpreter of that version, or fail
#
# Interpreters are discovered, never hard-coded: PYPERF_TEST_PYTHONS (a
# colon- or space-separated list of paths) wins; otherwise every
# python3.N in $(pyenv root)/versions and on PATH (pyenv shims excluded).

: "${PPR_BUILD:?run the tests with make check}"
: "${PPR_SRCDIR:?run the tests with make check}"

TEST_NAME=$(basename "$0" .sh)
TEST_DIR=$(cd "$(dirname "$0")" && pwd)
PPR_BIN=$PPR_BUILD/pyperf-run
export PPR_BUILD PPR_SRCDIR PPR_BIN TEST_DIR
LC_ALL=C
LANG=C
export LC_ALL LANG
unset PYTHONPERFSUPPORT PYTHON_PERF_JIT_SUPPORT PYTHONSTARTUP PYTHONPATH

if test "${PPR_SANITIZE:-}" = 1; then
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:exitcode=198
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=198
	export ASAN_OPTIONS UBSAN_OPTIONS
fi

test_count=0
test_failures=0
TRASH="$TEST_DIR/trash.$TEST_NAME.$$"
rm -rf "$TRASH"
mkdir -p "$TRASH" || exit 1
cd "$TRASH" || exit 1

ppr() {
	if test "${PPR_VALGRIND:-}" = 1; then
		valgrind -q --error-exitcode=198 --leak-check=full \
			--errors-for-leak-kinds=definite "$PPR_BIN" "$@"
	else
		"$PPR_BIN" "$@"
	fi
}

say_tap() {
	printf '%s\n' "$*"
}

test_ok_() {
	test_count=$((test_count + 1))
	say_tap "ok $test_count - $1"
}

test_failure_() {
	test_count=$((test_count + 1))
	test_failures=$((test_failures + 1))
	say_tap "not ok $test_count - $1"
	shift
	printf '%s\n' "$*" | sed -e 's/^/#	/'
}

test_skip() {
	test_count=$((test_count + 1))
	say_tap "ok $test_count # skip $1 ($2)"
	printf '%s: %s: %s\n' "$TEST_NAME" "$1" "$2" >>"$TEST_DIR/.skipped"
}

# Prerequisites are shell functions test_prereq_NAME returning 0 when
# met; their result is cached.  A failed one records why in prereq_why.
prereq_why=
test_have_prereq() {
	for prereq_ in $(printf '%s' "$1" | tr ',' ' '); do
		eval "cached_=\${prereq_cache_$prereq_:-}"
		if test -z "$cached_"; then
			if "test_prereq_$prereq_" >"$TRASH/.prereq.$prereq_" 2>&1; then
				cached_=yes
			else
				cached_=no
			fi
			eval "prereq_cache_$prereq_=$cached_"
		fi
		if test "$cached_" = no; then
			prereq_why="missing $prereq_$(head -n 1 "$TRASH/.prereq.$prereq_" | sed 's/^/: /')"
			return 1
		fi
	done
	return 0
}

test_expect_success() {
	if test $# = 3; then
		if ! test_have_prereq "$1"; then
			test_skip "$2" "$prereq_why"
			return 0
		fi
		shift
	fi
	test_out_="$TRASH/.out.$((test_count + 1))"
	if (eval "$2") >"$test_out_" 2>&1; then
		test_ok_ "$1"
	else
		test_failure_ "$1" "$(tail -n 40 "$test_out_")"
	fi
}

test_done() {
	say_tap "1..$test_count"
	cd "$TEST_DIR" || exit 1
	if test "$test_failures" -gt 0; then
		say_tap "# failed $test_failures of $test_count (trash kept in $TRASH)"
		exit 1
	fi
	test "${PPR_KEEP:-}" = 1 || rm -rf "$TRASH"
	exit 0
}

test_must_fail() {
	"$@"
	code=$?
	if test $code = 0; then
		echo "test_must_fail: '$*' succeeded" >&2
		return 1
	elif test $code -gt 128; then
		echo "test_must_fail: '$*' died with status $code" >&2
		return 1
	fi
	return 0
}

test_expect_code() {
	want=$1
	shift
	"$@"
	code=$?
	if test "$code" != "$want"; then
		echo "test_expect_code: '$*' exited $code, not $want" >&2
		return 1
	fi
	return 0
}

test_cmp() {
	diff -u "$1" "$2"
}

test_grep() {
	if test "$1" = -v; then
		shift
		if grep -E -e "$1" "$2" >/dev/null; then
			echo "test_grep: '$1' should not be in $2:" >&2
			cat "$2" >&2
			return 1
		fi
		return 0
	fi
	if ! grep -E -e "$1" "$2" >/dev/null; then
		echo "test_grep: '$1' not found in $2:" >&2
		cat "$2" >&2
		return 1
	fi
}

# --- interpreters ----------------------------------------------------------
ppr_pythons() {
	if test -n "${PYPERF_TEST_PYTHONS:-}"; then
		printf '%s\n' "$PYPERF_TEST_PYTHONS" | tr ': ' '\n\n' | sed '/^$/d'
		return 0
	fi
	{
		root=
		if command -v pyenv >/dev/null 2>&1; then
			root=$(pyenv root 2>/dev/null)
		fi
		test -n "$root" || root=${PYENV_ROOT:-}
		if test -n "$root" && test -d "$root/versions"; then
			for d in "$root"/versions/*/bin; do
				for p in "$d"/python[0-9].[0-9] "$d"/python[0-9].[0-9][0-9]; do
					test -x "$p" && echo "$p"
				done
			done
		fi
		printf '%s\n' "$PATH" | tr ':' '\n' | while read -r d; do
			case $d in *pyenv/shims*|'') continue ;; esac
			for p in "$d"/python3.[0-9] "$d"/python3.[0-9][0-9]; do
				test -x "$p" && echo "$p"
			done
		done
	} | while read -r p; do
		# one line per distinct real interpreter
		r=$(readlink -f "$p")
		echo "$r $p"
	done | sort -u -k1,1 | awk '{print $2}' | sort -V
}

# The version "X.Y" of an interpreter.
ppr_python_version() {
	"$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null
}

# First interpreter of version X.Y (optionally not under pyenv: "system").
ppr_python() {
	for py_ in $(ppr_pythons); do
		if test "$(ppr_python_version "$py_")" = "$1"; then
			echo "$py_"
			return 0
		fi
	done
	return 1
}

# --- common prerequisites ---------------------------------------------------
test_prereq_PERF() {
	command -v perf >/dev/null || { echo "perf is not installed"; return 1; }
	perf record -q -e cpu-clock -o "$TRASH/.prereq.data" -- true >/dev/null 2>&1 ||
		{ echo "perf record is not permitted here"; return 1; }
	rm -f "$TRASH/.prereq.data"
}

test_prereq_ROOT() {
	test "$(id -u)" = 0 || { echo "not running as root"; return 1; }
}

test_prereq_VALGRIND() {
	command -v valgrind >/dev/null || { echo "valgrind is not installed"; return 1; }
}

# The frame-pointer CPython built by .ci/setup.d/fp-python.sh (or named by
# PYPERF_TEST_FP_PYTHON); fails when there is none.
ppr_fp_python() {
	if test -n "${PYPERF_TEST_FP_PYTHON:-}"; then
		test -x "$PYPERF_TEST_FP_PYTHON" && echo "$PYPERF_TEST_FP_PYTHON"
		return
	fi
	fp_=${PYPERF_CACHE:-$HOME/.cache/pyperf-run}/fp-python/bin/python3.11
	test -x "$fp_" && echo "$fp_"
}

test_prereq_FP_PYTHON() {
	ppr_fp_python >/dev/null ||
		{ echo "no frame-pointer CPython (run .ci/setup.d/fp-python.sh)"; return 1; }
}
test_prereq_FPPY() {
	test_prereq_FP_PYTHON
}

# PY27, PY36 ... PY313: an interpreter of that version was found.
for v_ in 2.7 3.6 3.7 3.8 3.9 3.10 3.11 3.12 3.13; do
	eval "test_prereq_PY$(echo $v_ | tr -d .)() {
		(ppr_python $v_) >/dev/null || { echo 'no CPython $v_ found'; return 1; }
	}"
done
unset v_


# json_get FILE KEY.PATH: print a value of a JSON document (strings bare,
# others as JSON); fails when the document is invalid or the key missing.
json_get() {
	python3 - "$1" "$2" <<-\PY
	import json, sys
	with open(sys.argv[1]) as f:
	    v = json.load(f)
	for k in sys.argv[2].split("."):
	    v = v[k]
	print(v if isinstance(v, str) else json.dumps(v))
	PY
}

# The interpreter of version X.Y when `pyperf-run doctor` says record can
# use it (mode perf or jit without a problem); prints why not otherwise.
ppr_usable_python() {
	up_py=$(ppr_python "$1") || { echo "no python$1 found"; return 1; }
	"$PPR_BIN" doctor --python "$up_py" --json >"$TRASH/.doctor.$1.json" 2>/dev/null
	python3 - "$TRASH/.doctor.$1.json" <<'PYEOF' || return 1
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("doctor --json gave no JSON: %s" % e)
    sys.exit(1)
m = d.get("mode") or {}
if m.get("name") not in ("perf", "jit") or m.get("problem"):
    print("doctor says no Python frames: %s" % m.get("problem"))
    sys.exit(1)
PYEOF
	echo "$up_py"
}

# --- the perf matrix ---------------------------------------------------------
# The perfs the matrix tests run: the first perf on PATH ("system") and the
# two perf 6.12 builds of .ci/setup.d/perf-6.12.sh ("6.12-libunwind": DWARF
# unwinding with libunwind; "6.12-libdw": built with NO_LIBUNWIND=1, as
# Fedora ships it).  PYPERF_CACHE moves the cache like the setup script.

# ppr_perf_612 libunwind|libdw: the cached build, when it runs.
ppr_perf_612() {
	p612_=${PYPERF_CACHE:-$HOME/.cache/pyperf-run}/perf-6.12/$1/perf
	test -x "$p612_" && "$p612_" version >/dev/null 2>&1 && echo "$p612_"
}

# ppr_perf_path NAME: the perf of the matrix called NAME, or fail.
ppr_perf_path() {
	case $1 in
	system) command -v perf ;;
	6.12-libunwind) ppr_perf_612 libunwind ;;
	6.12-libdw) ppr_perf_612 libdw ;;
	*) return 1 ;;
	esac
}

# ppr_perfs: "NAME PATH" for every perf of the matrix that is here.  Tests
# that must report a missing one as a skip loop over the names with the
# PERF / PERF_612_LIBUNWIND / PERF_612_LIBDW prerequisites instead.
ppr_perfs() {
	for pn_ in system 6.12-libunwind 6.12-libdw; do
		pp_=$(ppr_perf_path "$pn_") && echo "$pn_ $pp_"
	done
	return 0
}

# ppr_perf_prereq NAME: the prerequisite that says NAME is here.
ppr_perf_prereq() {
	case $1 in
	system) echo PERF ;;
	6.12-libunwind) echo PERF_612_LIBUNWIND ;;
	6.12-libdw) echo PERF_612_LIBDW ;;
	esac
}

# ppr_perf_version PATH: "6.1.187"
ppr_perf_version() {
	"$1" version 2>/dev/null | sed -n 's/^perf version \([0-9][0-9.]*\).*/\1/p'
}

# ppr_with_perf PATH CMD...: run CMD with PATH as the perf on PATH (what
# record runs) and as PYPERF_PERF (what report runs).
ppr_with_perf() {
	wp_dir_=$TRASH/.perf-bin/$(printf '%s' "$1" | cksum | cut -d' ' -f1)
	if ! test -x "$wp_dir_/perf"; then
		mkdir -p "$wp_dir_" && ln -sf "$1" "$wp_dir_/perf" || return 1
	fi
	(
		PYPERF_PERF=$1
		PATH=$wp_dir_:$PATH
		export PYPERF_PERF PATH
		shift
		"$@"
	)
}

test_prereq_PERF_612_LIBUNWIND() {
	ppr_perf_612 libunwind >/dev/null ||
		{ echo "no perf 6.12 built with libunwind (run .ci/setup.d/perf-6.12.sh)"; return 1; }
}

test_prereq_PERF_612_LIBDW() {
	ppr_perf_612 libdw >/dev/null ||
		{ echo "no perf 6.12 built with libdw (run .ci/setup.d/perf-6.12.sh)"; return 1; }
}

# ppr_distro_python X.Y: the interpreter of version X.Y that is not under
# pyenv (the distribution's own), or fail.
ppr_distro_python() {
	dp_root_=
	if command -v pyenv >/dev/null 2>&1; then
		dp_root_=$(pyenv root 2>/dev/null)
	fi
	test -n "$dp_root_" || dp_root_=${PYENV_ROOT:-/nonexistent}
	for dp_ in $(ppr_pythons); do
		case $(readlink -f "$dp_") in "$dp_root_"/*) continue ;; esac
		if test "$(ppr_python_version "$dp_")" = "$1"; then
			echo "$dp_"
			return 0
		fi
	done
	return 1
}
