#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: fork, threads, asyncio, multiprocessing, chaining'
. ./test-lib.sh
. "$TEST_DIR/fixtures/tramp-lib.sh"

mkdir -p d
D=$TRASH/d
export PYPERF_TRAMPOLINE_DIR="$D"

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'build for every interpreter' '
	for py in $(tramp_pythons); do tramp_build "$py" || return 1; done
'

# check_expect OUT: every "expect PID NAME" is in that pid's jitdump
# (which is also validated), every "absent PID NAME" is not.
check_expect() {
	grep -E "^(expect|absent) " "$1" >todo || return 1
	while read -r what pid name; do
		test -f "loads.$pid" ||
			tramp_jitdump "$D/jit-$pid.dump" >"loads.$pid" ||
			{ cat "loads.$pid"; rm -f "loads.$pid"; return 1; }
		if test "$what" = expect; then
			grep -E " py::$name:" "loads.$pid" >/dev/null ||
				{ echo "$pid lacks $name"; cat "loads.$pid"; return 1; }
		else
			! grep -E " py::$name:" "loads.$pid" >/dev/null ||
				{ echo "$pid has $name"; return 1; }
		fi
	done <todo
}

# fork, threads, asyncio + generators + exceptions + recursion,
# subprocess, multiprocessing fork and spawn, interpreter shutdown (atexit,
# finalizers, a daemon thread still running): in one run per interpreter.
for py in $(tramp_pythons); do
	test_expect_success TRAMP_PYTHONS "$(ppr_python_version "$py") ($py): every process names its frames, output unchanged" '
		py='"$py"' &&
		rm -f loads.* &&
		PYPERF_TRAMPOLINE=jit tramp_run "$py" "$TRAMP_FIX/tramp-procs.py" all >out 2>err &&
		"$py" "$TRAMP_FIX/tramp-procs.py" all >plain 2>plain.err &&
		sed "/^expect /d; /^absent /d" out >out.res &&
		sed "/^expect /d; /^absent /d" plain >plain.res &&
		test_cmp plain.res out.res &&
		test_grep "^asyncio 10$" out.res &&
		test_grep "^atexit ran$" out.res &&
		test_grep "^finalizer ran$" out.res &&
		test_grep "^squares \[0, 1, 4, 9, 16, 25, 36, 49\]$" out.res &&
		! test -s err &&
		check_expect out &&
		test $(grep -c "^expect [0-9]* square$" out) -ge 2
	'
done

test_expect_success TRAMP_PYTHONS 'fork: frames live across the fork resolve in the child' '
	py=$(tramp_pythons | head -n 1) &&
	PYPERF_TRAMPOLINE=jit tramp_run "$py" "$TRAMP_FIX/tramp-procs.py" fork >out &&
	child=$(sed -n "s/^expect \([0-9]*\) child_only$/\1/p" out) &&
	parent=$(sed -n "s/^expect \([0-9]*\) parent_only$/\1/p" out) &&
	tramp_jitdump "$D/jit-$parent.dump" | grep " py::case_fork:" | cut -d" " -f3- >p.case &&
	tramp_jitdump "$D/jit-$child.dump" | grep " py::case_fork:" | cut -d" " -f3- >c.case &&
	test -s p.case && test_cmp p.case c.case
'

test_expect_success TRAMP_PYTHONS 'fork, perf map backend: the child map replays the parent entries' '
	py=$(tramp_pythons | head -n 1) &&
	PYPERF_TRAMPOLINE=perf tramp_run "$py" "$TRAMP_FIX/tramp-procs.py" fork >out &&
	child=$(sed -n "s/^expect \([0-9]*\) child_only$/\1/p" out) &&
	parent=$(sed -n "s/^expect \([0-9]*\) parent_only$/\1/p" out) &&
	grep " py::case_fork:" "$D/perf-$parent.map" >p.case &&
	grep " py::case_fork:" "$D/perf-$child.map" >c.case &&
	test_cmp p.case c.case &&
	grep " py::child_only:" "$D/perf-$child.map" &&
	! grep " py::child_only:" "$D/perf-$parent.map" &&
	test "$(stat -c %a "$D/perf-$child.map")" = 600
'

# A tiny extension with its own PEP 523 hook (a stand-in for a debugger).
build_testhook() {
	inc=$("$1" -c "import sysconfig as s; p = s.get_paths(); print(p[\"include\"])") &&
	pinc=$("$1" -c "import sysconfig as s; p = s.get_paths(); print(p[\"platinclude\"])") &&
	ext=$("$1" -c "import sysconfig as s; print(s.get_config_var(\"EXT_SUFFIX\"))") &&
	mkdir -p hook &&
	${CC:-cc} -shared -fPIC -O1 -I"$inc" -I"$pinc" \
		-o "hook/_tramp_testhook$ext" "$TRAMP_FIX/tramp-testhook.c"
}

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'an existing PEP 523 hook is chained to, then restored' '
	for py in $(tramp_pythons); do
		build_testhook "$py" || return 1
		PYPERF_TRAMPOLINE=embedded PYTHONPATH=$TRAMP_OUT/boot:$TRASH/hook "$py" -c "
import sys, _tramp_testhook as h
def f(): return 1
h.install()
n0 = h.count(); f(); n1 = h.count()
assert n1 > n0, (n0, n1)
sys.activate_stack_trampoline(\"perf_jit\")
import _pyperf_trampoline as t
assert t._state()[\"chained\"], t._state()
f(); n2 = h.count()
assert n2 > n1, \"our trampoline must call the previous hook\"
sys.deactivate_stack_trampoline()
assert h.installed(), \"the previous hook must be restored\"
f(); assert h.count() > n2
print(\"ok\")
" >out 2>err || { cat out err; return 1; }
		test_grep "^ok$" out || return 1
	done
'

test_done
