#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record + report: complete Python stacks at any depth, shares against an in-process sampler'
. ./test-lib.sh

# With default settings, deep stacks through every kind of call
# (generators, coroutines, map/sorted/reduce callbacks, methods, lambdas,
# exec, imports within imports: tests/fixtures/deep-kinds.py) must come
# out whole (>= 99 % of the samples reach the program's <module>) and
# with inclusive shares within 3 points of tests/fixtures/ref-sampler.py,
# a SIGPROF sampler that walks f_back and is never truncated (shares of
# the program's own run: the reference does not see the interpreter's
# start-up, whose first imports run before the trampoline starts, with
# stacks that can still be cut).  Without
# context trampolines, 150 frames of this kind already need more stack
# than the 65528 bytes perf can copy.

PROG=$PPR_SRCDIR/tests/fixtures/deep-kinds.py
REF=$PPR_SRCDIR/tests/fixtures/ref-sampler.py
CMP=$PPR_SRCDIR/tests/fixtures/ref-compare.py

# check_run PY DEPTH [MODE] [MIN%]: record, report, compare with the
# reference; MIN% complete stacks (default 99)
check_run() {
	name=r-$(echo "$1" | tr -c "a-z0-9\n" _)-$2-${3:-auto} &&
	ppr record -q --python "$1" ${3:+--mode "$3"} -o "$name" \
		"$PROG" "$2" 2 >"$name.out" 2>"$name.err" &&
	ppr report -i "$name" --format json -o "$name.json" &&
	# the reference runs with the context trampolines active
	ppr_ref_env "$1" &&
	# 1000 Hz: about 2,000 samples, a standard error near 1 point
	(. ./ref.sh && "$1" "$REF" "$name.ref" --hz 1000 "$PROG" "$2" 2 \
		>/dev/null) &&
	ppr_check_complete "$name.json" "${4:-99}" "depth $2" &&
	# The reference and the recording are two runs of the program,
	# about 2,000 samples each: a share's difference has a standard
	# error near 1.4 points, and the largest of 15 such differences
	# passed 3 points in 2 of 3 full-suite runs on a loaded machine
	# (frame-pointer build, 400 frames; both perf.data readers give
	# the same shares).  4 points is about three standard errors.  At
	# 900 frames the reference also gives the leaf 2.8 to 3.4 points
	# more than perf does (measured 5 times on 3.8-3.10, 3.1 and 3.2
	# on 3.11), its own limit: its handler runs between bytecodes, and
	# perf sees the C-level time of building 900 frames where it is
	# spent; there the bound is 5.  Before 3.11 the reference only has
	# co_name: compare by that.
	tol=4 &&
	{ test "$2" -lt 900 || tol=5; } &&
	case $(ppr_python_version "$1") in
	3.8|3.9|3.10)
		ppr report -i "$name" --format collapsed -o "$name.col" &&
		set -- "$name.col" --co-name ;;
	*)
		set -- "$name.json" ;;
	esac &&
	python3 "$CMP" "$name.ref" "$@" --top 15 --tol "$tol" \
		--base "<module> (deep-kinds.py)" >"$name.cmp" ||
		{ cat "$name.cmp"; return 1; }
	tail -n 1 "$name.cmp"
}

# 3.12 counts every call through a PEP 523 hook against its C recursion
# limit (t5006): 500 frames of this kind (a third of them C callbacks)
# raise RecursionError there with any hook, CPython's own -X perf too.
depth_for() {
	if test "$1" -gt 400 && test "$(ppr_python_version "$2")" = 3.12; then
		echo 400
	else
		echo "$1"
	fi
}

test_expect_success PERF 'every interpreter: whole stacks and right shares at 50 to 900 frames' '
	found= &&
	for py in $(ppr_pythons); do
		case $(ppr_python_version "$py") in
		3.8|3.9|3.10|3.11|3.12|3.13) ;;
		*) continue ;;
		esac
		ppr_record_can_use "$py" k || continue
		found=1
		for depth in 50 900; do
			d=$(depth_for $depth "$py") &&
			echo "== $py, $d frames" &&
			check_run "$py" "$d" || return 1
		done
	done &&
	test -n "$found"
'

test_expect_success PERF,STRIPPED_PY311 'the distribution 3.11: every depth of the table' '
	for depth in 150 400; do
		echo "== $STRIPPED_PY311, $depth frames" &&
		check_run "$STRIPPED_PY311" $depth || return 1
	done
'

# The frame-pointer build in jit mode (the automatic choice, for C code
# without frame pointers).  Its functions end in "leave; ret" with the
# rbp rule left at its save slot, which the ret has popped below sp:
# a sample on such a ret (about 1.5 % here, in _Py_NewReference) lost
# its callers in both perf unwinders and, until the unwinder kept such
# a register's value, in the native reader (97.9 % complete then).
test_expect_success PERF,FP_PYTHON 'a frame-pointer build, in perf mode too (127-frame kernel cap)' '
	fp=$(ppr_fp_python) &&
	check_run "$fp" 400 perf &&
	check_run "$fp" 400
'

test_done
