#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: context trampolines name the true Python stack'
. ./test-lib.sh
. "$TEST_DIR/fixtures/tramp-lib.sh"

# In context mode (PYPERF_TRAMPOLINE_CONTEXTS=1, what record sets) every
# Python call path gets its own trampoline and the process writes
# ctx-<pid>.tab.  tests/fixtures/ctx-paths.py reaches leaves through
# every kind of call (generator, coroutine, map, sorted(key=), reduce,
# method, __init__, lambda, exec, class body, import in import, thread,
# fork child, spawned child) below DEPTH frames, and checks that the
# context the trampoline reports at each leaf names exactly the frames
# the program walks itself (f_back), root to leaf.

mkdir -p d
D=$TRASH/d

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'build for every interpreter' '
	for py in $(tramp_pythons); do tramp_build "$py" || return 1; done
'

# CPython 3.12 counts every Python call made through a PEP 523 hook
# against its C recursion limit, twice: with any hook (its own -X perf
# too) a recursion of about 750 frames raises RecursionError there.
# 3.12 is tested at 700 frames instead of 900.
depth_for() {
	if test "$1" -gt 700 && test "$(ppr_python_version "$2")" = 3.12; then
		echo 700
	else
		echo "$1"
	fi
}

for depth in 50 900; do
	test_expect_success TRAMP_PYTHONS "every context path is the true stack at depth $depth" '
		for py in $(tramp_pythons); do
			d=$(depth_for '"$depth"' "$py") &&
			echo "== $py, depth $d" &&
			rm -rf "$D" && mkdir "$D" &&
			PYPERF_TRAMPOLINE=jit PYPERF_TRAMPOLINE_CONTEXTS=1 \
			PYPERF_TRAMPOLINE_DIR=$D \
				tramp_run "$py" "$TRAMP_FIX/ctx-paths.py" run "$D" "$d" &&
			"$(tramp_checker_python)" "$TRAMP_FIX/ctx-paths.py" check "$D" >out &&
			cat out &&
			# the main process, its fork child and its spawned child
			test "$(grep -c "all paths right" out)" = 3 ||
			return 1
		done
	'
done

test_expect_success TRAMP_PYTHONS 'frames entered before activation get their contexts from the frame chain' '
	for py in $(tramp_pythons); do
		echo "== $py" &&
		rm -rf "$D" && mkdir "$D" &&
		PYPERF_TRAMPOLINE_CONTEXTS=1 PYPERF_TRAMPOLINE_DIR=$D CTX_PATHS_LATE=1 \
			tramp_run "$py" "$TRAMP_FIX/ctx-paths.py" run "$D" 100 &&
		"$(tramp_checker_python)" "$TRAMP_FIX/ctx-paths.py" check "$D" >out &&
		cat out &&
		grep "2 leaves" out &&
		# a fork child whose first new context comes from an at-fork
		# callback that runs before the trampoline reopens its table
		grep "1 leaves" out || return 1
	done
'

test_expect_success TRAMP_PYTHONS 'perf sees one jitdump load per arena, not one per context' '
	py=$(tramp_pythons | tail -n 1) &&
	rm -rf "$D" && mkdir "$D" &&
	PYPERF_TRAMPOLINE=jit PYPERF_TRAMPOLINE_CONTEXTS=1 PYPERF_TRAMPOLINE_DIR=$D \
		tramp_run "$py" "$TRAMP_FIX/ctx-paths.py" run "$D" \
			"$(depth_for 900 "$py")" &&
	"$(tramp_checker_python)" "$TRAMP_FIX/ctx-paths.py" check "$D" >out &&
	cat out &&
	for t in "$D"/ctx-*.tab; do
		pid=${t##*/ctx-} && pid=${pid%.tab} &&
		tramp_jitdump "$D/jit-$pid.dump" >dump.txt &&
		cat dump.txt &&
		arenas=$(sed -n "s/^pid $pid: .*arenas \([0-9]*\):.*/\1/p" out) &&
		test "$(grep -c "^load .* \[pyperf contexts\]$" dump.txt)" = "$arenas" &&
		test "$(grep -c "^load " dump.txt)" = "$arenas" || return 1
	done
'

test_expect_success TRAMP_PYTHONS 'the context cap falls back to an unknown parent, and says so in the table' '
	py=$(tramp_pythons | tail -n 1) &&
	rm -rf "$D" && mkdir "$D" &&
	PYPERF_TRAMPOLINE=jit PYPERF_TRAMPOLINE_CONTEXTS=1 \
	PYPERF_TRAMPOLINE_MAX_CONTEXTS=100 PYPERF_TRAMPOLINE_DIR=$D CTX_PATHS_CHILD=1 \
		tramp_run "$py" "$TRAMP_FIX/ctx-paths.py" run "$D" 300 &&
	! "$(tramp_checker_python)" "$TRAMP_FIX/ctx-paths.py" check "$D" >out &&
	cat out &&
	grep "<unknown>" out
'

test_done
