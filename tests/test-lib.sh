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
# tests), removed at the end unless PPR_KEEP=1.  A body fails with "return
# 1" or a failed && chain; an "exit" in it fails the test too, since it
# would make a test that did not run report "ok".  What the machine cannot
# do is a prerequisite, test_prereq_NAME, that prints why it is missing:
# the test then shows as a skip with that reason.  Helpers:
#   test_expect_success TITLE BODY, test_expect_success PREREQ TITLE BODY
#   test_diag TEXT...           a "# TEXT" line after the test's result
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
#   ppr_distro_python X.Y...    one not under pyenv (the distribution's own)
#   ppr_stripped_python X.Y     one without a symbol table, as distributions
#                               ship it (only its exported symbols)
#   ppr_nobody_python           one the user nobody can run
#   ppr_commands                the commands of `pyperf-run --help`
#   wait_for SECONDS CMD...     poll CMD until it succeeds (never a fixed
#                               sleep before a kill or a check)
#   reaped PID                  PID has ended and its parent has seen it
#   as_nobody CMD...            run CMD as the user nobody (setpriv)
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

# python3 on PATH may be a pyenv shim, a bash script that runs `pyenv
# exec`: 0.2 s a call on a quiet machine, more than 1 s on a loaded one
# (measured here), and the tests call python3 for hundreds of checks.
# They run the interpreter the shim would run, directly: its directory
# goes first in PATH (what record and doctor find there is that same
# interpreter).  make check asks the shim once a suite run
# (tests/.python3, beside tests/.pythons: a second a test on a loaded
# machine, every test of both passes, was a minute and a half of the
# suite).
case $(command -v python3 2>/dev/null) in
*/shims/python3)
	shim_py_=
	if test "${PPR_SHARE_PYTHONS:-}" = 1 && test -s "$TEST_DIR/.python3"; then
		shim_py_=$(cat "$TEST_DIR/.python3")
	fi
	if ! test -x "$shim_py_"; then
		shim_py_=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
		if test "${PPR_SHARE_PYTHONS:-}" = 1 && test -x "$shim_py_"; then
			echo "$shim_py_" >"$TEST_DIR/.python3.$$" &&
			mv -f "$TEST_DIR/.python3.$$" "$TEST_DIR/.python3"
		fi
	fi
	case $shim_py_ in
	/*/python3*) test -x "$shim_py_" && PATH=${shim_py_%/*}:$PATH ;;
	esac
	;;
esac

if test "${PPR_SANITIZE:-}" = 1; then
	ASAN_OPTIONS=abort_on_error=0:detect_leaks=1:exitcode=198
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=198
	export ASAN_OPTIONS UBSAN_OPTIONS
fi

# The sanitizer pass (make check SANITIZE=1) runs some of this test's
# subtests only when tests/sanitize-skip says so: gcov's counters of each
# subtest (make sanitize-set) showed that those, with the other kept
# tests, run every line and branch of pyperf-run that the others run.
#   "TEST.sh only LIST ...": the subtests of LIST (as 1-3,7,9): a kept
#     subtest comes with what it needs, by default every subtest before
#     it, unless the test file says which of its subtests stand alone or
#     need only some before them ("# sanitize-set: alone LIST" and
#     "# sanitize-set: LIST needs LIST" lines; tests/sanitize-set.py).
# The others are skipped, said in TAP and counted in tests/.covered; the
# plain pass runs them all.  make sanitize-verify runs the suite so, with
# gcov's counters, and checks that it runs all that the whole suite runs.
# The line also holds the test file's cksum when the counters were
# taken: an edited test (a subtest added or moved) runs whole, and says
# so, until make sanitize-set runs again.
san_only_=
if test "${PPR_SANITIZE:-}" = 1 && test -r "$TEST_DIR/sanitize-skip" &&
   { test -z "${PPR_COVERAGE_DIR:-}" || test "${PPR_SAN_VERIFY:-}" = 1; }; then
	while read -r san_t_ san_w_ san_m_ san_s_ san_ck_ san_rest_; do
		test "$san_t_" = "$TEST_NAME.sh" || continue
		test "$san_w_" = only || continue
		san_now_=$(cksum <"$0")	# "CRC SIZE"
		if test "$san_ck_" != "${san_now_%% *}-${san_now_#* }"; then
			echo "# sanitizer pass: every subtest ($TEST_NAME.sh changed since make sanitize-set chose its subtests $san_w_ $san_m_)"
		else
			san_only_=,$san_m_,
		fi
	done <"$TEST_DIR/sanitize-skip"
fi

# san_kept N: the sanitizer pass runs subtest N (san_only_'s list)
san_kept() {
	san_l_=${san_only_#,}
	while test -n "$san_l_"; do
		san_r_=${san_l_%%,*}
		san_l_=${san_l_#*,}
		case $san_r_ in
		*-*) test "$1" -ge "${san_r_%-*}" && test "$1" -le "${san_r_#*-}" &&
			return 0 ;;
		*) test "$1" = "$san_r_" && return 0 ;;
		esac
	done
	return 1
}

# make check COVERAGE=1: each test's gcov counters in a tree of its own
# (tests/sanitize-set.py), writable by the tests that run as nobody: 0/
# for what runs outside any subtest, N/ for subtest N (set in
# test_expect_success)
if test -n "${PPR_COVERAGE_DIR:-}"; then
	GCOV_PREFIX=$PPR_COVERAGE_DIR/$TEST_NAME/0
	GCOV_PREFIX_STRIP=0
	export GCOV_PREFIX GCOV_PREFIX_STRIP
	mkdir -p "$GCOV_PREFIX" && chmod 1777 "$PPR_COVERAGE_DIR" "$GCOV_PREFIX"
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
	# also kept for make check, which prints it after prove's summary
	# (prove shows a failing test's number, not its output)
	{
		printf '%s %s - %s\n' "$TEST_NAME" "$test_count" "$1"
		shift
		printf '%s\n' "$*" | tail -n 12 | sed -e 's/^/    /'
	} >>"$TEST_DIR/.failed"
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

# test_diag TEXT...: a diagnostic line ("# TEXT") printed after the
# test's result, whatever it is (a body's own output is shown only when
# it fails).
test_diag() {
	printf '%s\n' "$*" >>"$TRASH/.diag.$((test_count + 1))"
}

test_expect_success() {
	if test -n "$san_only_" && ! san_kept $((test_count + 1)); then
		test_count=$((test_count + 1))
		if test $# = 3; then shift; fi
		say_tap "ok $test_count # skip $1 (sanitizer pass: the kept subtests run every line and branch it runs, tests/sanitize-skip)"
		echo "$TEST_NAME" >>"$TEST_DIR/.covered"
		return 0
	fi
	if test $# = 3; then
		if ! test_have_prereq "$1"; then
			test_skip "$2" "$prereq_why"
			return 0
		fi
		shift
	fi
	test_out_="$TRASH/.out.$((test_count + 1))"
	test_end_="$TRASH/.end.$((test_count + 1))"
	test_diag_="$TRASH/.diag.$((test_count + 1))"
	rm -f "$test_end_" "$test_diag_"
	test_t0_=$(date +%s)
	times >"$TRASH/.cpu"	# in this shell: in $(...) it is the subshell's
	# (its second line: the children's times; read without a process)
	{ read -r test_cpu_; read -r test_cpu0_; } <"$TRASH/.cpu"
	(
		# make sanitize-set: each subtest's counters apart
		if test -n "${PPR_COVERAGE_DIR:-}"; then
			GCOV_PREFIX=$PPR_COVERAGE_DIR/$TEST_NAME/$((test_count + 1))
			export GCOV_PREFIX
			mkdir -p "$GCOV_PREFIX" && chmod 1777 "$GCOV_PREFIX"
		fi
		test_body_ "$2"
		test_status_=$?
		: >"$test_end_"
		exit $test_status_
	) >"$test_out_" 2>&1
	test_status_=$?
	# each subtest's wall and CPU seconds (its children's), for
	# tests/times.py: where the suite's time goes
	times >"$TRASH/.cpu"
	{ read -r test_cpu_; read -r test_cpu_; } <"$TRASH/.cpu"
	printf '%s %s %s %s %s\n' "$TEST_NAME" "$((test_count + 1))" \
		"$(($(date +%s) - test_t0_))" "$test_cpu0_" \
		"$test_cpu_" >>"$TEST_DIR/.times"
	if ! test -e "$test_end_"; then
		# An exit in a body would report "ok" for a test that did
		# not run to its end: a skip is a prerequisite's job.
		test_failure_ "$1" "$(tail -n 40 "$test_out_")
the test body called exit (status $test_status_) instead of finishing"
	elif test $test_status_ = 0; then
		test_ok_ "$1"
	else
		test_failure_ "$1" "$(tail -n 40 "$test_out_")"
	fi
	if test -s "$test_diag_"; then
		sed -e 's/^/# /' "$test_diag_"
	fi
}

# A test body runs as a function, with no positional parameters: "return
# 1" fails it, and an "exit" is caught above.
test_body_() {
	test_body_text_=$1
	shift
	eval "$test_body_text_"
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

# wait_for [-i STEP] SECONDS CMD...: run CMD every STEP seconds (0.1 by
# default) until it succeeds; after SECONDS, fail with CMD's last output
# and what was awaited.  Tests wait for a condition ("the program printed
# ready", "perf is gone"), never for a fixed time.  CMD's output is shown
# only when it times out.
wait_for() {
	wf_step_=0.1
	if test "$1" = -i; then
		wf_step_=$2
		shift 2
	fi
	wf_left_=$(awk -v t="$1" -v s="$wf_step_" 'BEGIN { n = int(t / s); print (n > 0 ? n : 1) }')
	shift
	until "$@" >"$TRASH/.wait_for" 2>&1; do
		wf_left_=$((wf_left_ - 1))
		if test "$wf_left_" -le 0; then
			cat "$TRASH/.wait_for"
			echo "wait_for: gave up waiting for: $*"
			return 1
		fi
		sleep "$wf_step_"
	done
}

# perf_buildids_in_trash: perf run directly by a test keeps its build-ids
# and, for perf inject --jit, a jitted-PID-N.so a function in the trash,
# not in ~/.debug (which doctor walks).  Not for tests of record's own
# ~/.debug hygiene: record's perf would write there too.
perf_buildids_in_trash() {
	PERF_BUILDID_DIR=$TRASH/buildid
	export PERF_BUILDID_DIR
}

# reaped PID: there is no process PID any more, not even a zombie: its
# parent has seen it end.
reaped() {
	! ps -o pid= -p "$1" >/dev/null
}

# as_nobody CMD...: run CMD as the user nobody, without root's groups
# (root only; the tests that use it have a prerequisite saying so).  env
# looks CMD up: setpriv itself would still find it with root's rights.
as_nobody() {
	if test -n "${GCOV_PREFIX:-}"; then
		# COVERAGE=1: nobody cannot write where root's runs made
		# the counters' directories (0755): a tree of its own
		mkdir -p "$GCOV_PREFIX/nobody" && chmod 1777 "$GCOV_PREFIX/nobody"
		set -- GCOV_PREFIX="$GCOV_PREFIX/nobody" "$@"
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups env -- "$@"
}

# ppr_commands_of: the command names in the "commands:" section of a
# `pyperf-run --help` text on stdin, one a line.
ppr_commands_of() {
	sed -n '/^commands:$/,/^$/s/^   \([a-z][a-z0-9-]*\)  .*/\1/p'
}

# ppr_commands: the commands the pyperf-run under test offers; tests
# loop over these instead of a list of their own, so that a new command
# is checked (man page, completion, -h) without editing them.
ppr_commands() {
	ppr --help | ppr_commands_of
}

# --- interpreters ----------------------------------------------------------
ppr_pythons() {
	ppr_python_table | awk '{ print $2 }'
}

# "X.Y PATH" for each of ppr_pythons, found and asked once a suite run
# (the first test of make check's run writes tests/.pythons, which make
# check removes first; a test run alone asks once): each lookup ran
# pyenv and every interpreter, seconds on a loaded machine, and a test
# asks for interpreters dozens of times.
ppr_python_table() {
	if test "${PPR_SHARE_PYTHONS:-}" = 1 && test -s "$TEST_DIR/.pythons"; then
		cat "$TEST_DIR/.pythons"
		return 0
	fi
	if ! test -s "$TRASH/.pythons"; then
		ppr_find_pythons | while read -r p_; do
			echo "$(ppr_ask_python_version "$p_") $p_"
		done >"$TRASH/.pythons.new" &&
		mv "$TRASH/.pythons.new" "$TRASH/.pythons" &&
		if test "${PPR_SHARE_PYTHONS:-}" = 1; then
			cp "$TRASH/.pythons" "$TEST_DIR/.pythons.$$" &&
			mv -f "$TEST_DIR/.pythons.$$" "$TEST_DIR/.pythons"
		fi
	fi
	cat "$TRASH/.pythons"
}

ppr_find_pythons() {
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
	pv_=$(ppr_python_table | awk -v p="$1" '$2 == p { print $1; exit }')
	if test -n "$pv_"; then
		echo "$pv_"
	else
		ppr_ask_python_version "$1"
	fi
}

ppr_ask_python_version() {
	"$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null
}

# First interpreter of version X.Y (optionally not under pyenv: "system").
ppr_python() {
	ppr_python_table | awk -v v="$1" '$1 == v { print $2; f = 1; exit }
		END { exit !f }'
}

# --- common prerequisites ---------------------------------------------------
# pprof output needs libprotobuf-c at build time (configure finds it).
test_prereq_PPROF() {
	ppr --version | grep -q " pprof=yes" ||
		{ echo "pyperf-run was built without protobuf-c"; return 1; }
}

test_prereq_PERF() {
	command -v perf >/dev/null || { echo "perf is not installed"; return 1; }
	perf record -q -e cpu-clock -o "$TRASH/.prereq.data" -- true >/dev/null 2>&1 ||
		{ echo "perf record is not permitted here"; return 1; }
	rm -f "$TRASH/.prereq.data"
}

# The in-kernel frame walker: built with libbpf, and run as root (it
# needs CAP_BPF and CAP_PERFMON; the suite runs as root in CI).
test_prereq_BPF() {
	ppr --version | grep -q " bpf=yes" ||
		{ echo "pyperf-run was built without libbpf"; return 1; }
	test "$(id -u)" = 0 || { echo "the frame walker needs root here"; return 1; }
}

test_prereq_ROOT() {
	test "$(id -u)" = 0 || { echo "not running as root"; return 1; }
}

# The user nobody can run the pyperf-run under test (as_nobody: root and
# setpriv).  Tests that need more of nobody add to it in their own
# test_prereq_NOBODY.
test_prereq_NOBODY_PPR() {
	test "$(id -u)" = 0 || { echo "not running as root"; return 1; }
	command -v setpriv >/dev/null || { echo "no setpriv (util-linux)"; return 1; }
	as_nobody "$PPR_BIN" --version >/dev/null 2>&1 ||
		{ echo "nobody cannot run $PPR_BIN"; return 1; }
}

# Only a missing setcap skips: a setcap that is there but fails (a file
# system without xattrs) fails the test.
test_prereq_SETCAP() {
	command -v setcap >/dev/null ||
		{ echo "setcap is not installed (apt-get install libcap2-bin)"; return 1; }
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
	eval "test_prereq_PY${v_%%.*}${v_#*.}() {
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
	ppr_record_can_use "$up_py" "$1" || return 1
	echo "$up_py"
}

# ppr_python_with MODULE: an interpreter that imports MODULE and that
# record can use (Debian's python3 for Debian's python3-* packages);
# prints why not otherwise.
ppr_python_with() {
	for pw_ in $(ppr_pythons); do
		"$pw_" -c "import $1" 2>/dev/null || continue
		ppr_record_can_use "$pw_" "with-$1" >/dev/null || continue
		echo "$pw_"
		return 0
	done
	echo "no interpreter here imports $1 and can be recorded"
	return 1
}

# ppr_check_complete REPORT.json MIN% LABEL: at least MIN% of the judged
# stacks of a `report --format json` are complete (says how many).
ppr_check_complete() {
	python3 - "$1" "$2" "$3" <<'PYEOF'
import json, sys
q = json.load(open(sys.argv[1]))["quality"]
pct = 100.0 * q["complete"] / q["judged"]
print("%s: %d of %d stacks complete (%.1f %%)"
      % (sys.argv[3], q["complete"], q["judged"], pct))
sys.exit(pct < float(sys.argv[2]))
PYEOF
}

# ppr_ref_compare REF OTHER OUT ALPHA BASE [ARGS...]:
# tests/fixtures/ref-compare.py of REF (a ref-sampler.py output) and
# OTHER (a collapsed report or another reference), its 15 largest
# functions' shares under BASE, each at the bound of sampling noise for
# a false-failure probability ALPHA, into OUT; prints OUT's last line;
# its status
ppr_ref_compare() {
	rc_ref_=$1 rc_other_=$2 rc_out_=$3 rc_alpha_=$4 rc_base_=$5 &&
	shift 5 &&
	python3 "$PPR_SRCDIR/tests/fixtures/ref-compare.py" "$rc_ref_" \
		"$rc_other_" "$@" --top 15 --alpha "$rc_alpha_" \
		--base "$rc_base_" >"$rc_out_"
	rc_status_=$?
	tail -n 1 "$rc_out_"
	return $rc_status_
}

# ppr_diff_of OUT: "N points, M s.e." of ppr_ref_compare's OUT, and the
# functions past the bound
ppr_diff_of() {
	sed -n -e "s/^max difference: \([0-9.]*\) points, \([0-9.]*\) standard errors.*/\1 points, \2 s.e./p" "$1" | tr -d "\n"
	grep -q "^past the bound" "$1" && sed -n -e "s/^past the bound: / past the bound: /p" "$1" | tr -d "\n"
	return 0
}

# ppr_check_complete_sampler COLLAPSED JSON MIN% LABEL: as
# ppr_check_complete, out of the judged stacks not cut inside the
# reference sampler's own signal delivery (tests/fixtures/ref-sampler.py
# runs in the recorded program).  Its timer sends 1,000 SIGALRMs a
# second; a sample taken in CPython's C handler or in the return from
# it has the kernel's signal frame on its stack (its saved AVX-512 state
# alone is kilobytes), and with the 6 KiB dump of context trampolines 1
# to 2 % of such samples were cut there ("dump full"; in a sympy run 215
# of 228 cut samples, in a t3015 run on 3.12 at 50 frames 24 of 25: the
# interrupted code, then libc's __restore_rt, or unnamed libc code at
# its return address, then the interpreter's handler).  The comparisons
# drop the sampler's samples too (--drop-file).  How many were left out
# is printed.  A fifth argument "before" also leaves out the cut samples
# without any Python frame: those that ran before the interpreter did
# (a chroot(1) in front of it, the exec, a dynamic loader whose first
# frames have no unwind information; t3508).
ppr_check_complete_sampler() {
	python3 - "$@" <<-\PY
	import json, re, sys
	q = json.load(open(sys.argv[2]))["quality"]
	before_too = len(sys.argv) > 5 and sys.argv[5] == "before"
	py = re.compile(r" \((.*\.py|<frozen [^>]*>|<string>)(:[0-9]+)?\)$")
	sig = before = 0
	for line in open(sys.argv[1]):
	    stack, _, n = line.rstrip("\n").rpartition(" ")
	    f = stack.split(";")
	    if not f[0].startswith("[incomplete stack"):
	        continue
	    user = [x for x in f[1:] if not x.endswith("_[k]")]
	    if "__restore_rt" in user or (
	            len(user) >= 2 and user[-2] == "[libc.so.6]"):
	        sig += int(n)
	    elif before_too and not any(py.search(x) for x in f[1:]):
	        before += int(n)
	judged, complete = q["judged"] - sig - before, q["complete"]
	pct = 100.0 * complete / judged
	print("%s: %d of %d stacks complete (%.1f %%), %d more cut in the "
	      "sampler's signal delivery%s" % (sys.argv[4], complete, judged,
	      pct, sig, ", %d before the interpreter ran" % before
	      if before_too else ""))
	sys.exit(pct < float(sys.argv[3]))
	PY
}

# ppr_record_can_use PATH TAG: `pyperf-run doctor` says record can use the
# interpreter PATH (its answer is kept in $TRASH/.doctor.TAG.json); prints
# why not.  Under make check (PPR_SHARE_PYTHONS=1) each interpreter is
# asked once a pass, like tests/.pythons: the answers go to
# tests/.usable, a line "PATH<TAB>yes" or "PATH<TAB>no: WHY" each
# (doctor takes 0.2 s of CPU a question, and t2003 alone asked a dozen
# times; issue 31).
ppr_record_can_use() {
	if test "${PPR_SHARE_PYTHONS:-}" = 1 && test -s "$TEST_DIR/.usable"; then
		cu_=$(awk -F '\t' -v p="$1" '$1 == p { a = $2 } END { print a }' \
			"$TEST_DIR/.usable")
		case $cu_ in
		yes) return 0 ;;
		no:*) echo "${cu_#no: }"; return 1 ;;
		esac
	fi
	"$PPR_BIN" doctor --python "$1" --json >"$TRASH/.doctor.$2.json" 2>/dev/null
	python3 - "$TRASH/.doctor.$2.json" >"$TRASH/.doctor.$2.why" <<'PYEOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("doctor --json gave no JSON: %s" % e)
    sys.exit(1)
m = d.get("perf_mode") or {}
if m.get("name") not in ("perf", "jit") or m.get("problem"):
    print("doctor says no Python frames: %s" % m.get("problem"))
    sys.exit(1)
PYEOF
	cu_status_=$?
	if test "${PPR_SHARE_PYTHONS:-}" = 1; then
		if test $cu_status_ = 0; then
			printf '%s\tyes\n' "$1"
		else
			printf '%s\tno: %s\n' "$1" "$(tr '\n\t' '  ' <"$TRASH/.doctor.$2.why")"
		fi >>"$TEST_DIR/.usable"
	fi
	cat "$TRASH/.doctor.$2.why"
	return $cu_status_
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

# ppr_distro_python X.Y...: the first interpreter not under pyenv (the
# distribution's own) of one of these versions, in the order given, or fail.
ppr_distro_python() {
	dp_root_=
	if command -v pyenv >/dev/null 2>&1; then
		dp_root_=$(pyenv root 2>/dev/null)
	fi
	test -n "$dp_root_" || dp_root_=${PYENV_ROOT:-/nonexistent}
	for dp_v_ in "$@"; do
		for dp_ in $(ppr_pythons); do
			case $(readlink -f "$dp_") in "$dp_root_"/*) continue ;; esac
			if test "$(ppr_python_version "$dp_")" = "$dp_v_"; then
				echo "$dp_"
				return 0
			fi
		done
	done
	return 1
}

# ppr_has_symtab FILE: the ELF file FILE carries a symbol table (.symtab),
# so that perf names its internal functions too.
ppr_has_symtab() {
	readelf -S -W "$1" 2>/dev/null | grep -q ' \.symtab '
}

# ppr_stripped_python X.Y: an interpreter of version X.Y whose executable,
# and its libpython when it has one, carry no symbol table: only their
# exported symbols are named, as in Debian's python3.11.  Found by asking
# each interpreter for its executable, never by a path.
ppr_stripped_python() {
	command -v readelf >/dev/null || return 1
	for sp_ in $(ppr_pythons); do
		test "$(ppr_python_version "$sp_")" = "$1" || continue
		sp_exe_=$("$sp_" -c 'import sys; print(sys.executable)' 2>/dev/null) ||
			continue
		sp_exe_=$(readlink -f "$sp_exe_")
		readelf -h "$sp_exe_" >/dev/null 2>&1 || continue
		ppr_has_symtab "$sp_exe_" && continue
		sp_lib_=$(ldd "$sp_exe_" 2>/dev/null |
			sed -n 's/^[[:space:]]*libpython[^ ]* => \([^ ]*\) .*/\1/p')
		if test -n "$sp_lib_" && ppr_has_symtab "$sp_lib_"; then
			continue
		fi
		echo "$sp_"
		return 0
	done
	return 1
}

# STRIPPED_PY311: a CPython 3.11 without a symbol table (Debian's python3.11
# is one), in $STRIPPED_PY311: perf names only its exported functions.
test_prereq_STRIPPED_PY311() {
	command -v readelf >/dev/null || { echo "readelf is not installed (binutils)"; return 1; }
	STRIPPED_PY311=$(ppr_stripped_python 3.11) ||
		{ echo "no CPython 3.11 without a symbol table (as Debian ships it)"; return 1; }
}

# ppr_nobody_python [usable]: an interpreter of CPython 3.8 or later that
# the user nobody can run (those under root's home are not); with
# "usable", one record can use too.  Prints why not and fails otherwise.
ppr_nobody_python() {
	test "$(id -u)" = 0 || { echo "not root (needed to become nobody)"; return 1; }
	command -v setpriv >/dev/null || { echo "no setpriv"; return 1; }
	for np_ in $(ppr_pythons); do
		np_v_=$(ppr_python_version "$np_")
		case $np_v_ in 3.[89]|3.[1-9][0-9]) ;; *) continue ;; esac
		as_nobody "$np_" -c pass >/dev/null 2>&1 || continue
		if test "${1:-}" = usable; then
			ppr_record_can_use "$np_" "nobody.$np_v_" >/dev/null || continue
		fi
		echo "$np_"
		return 0
	done
	echo "no CPython 3.8 or later the user nobody can run${1:+ that record can use}"
	return 1
}
