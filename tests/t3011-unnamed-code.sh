#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report: time in code without symbols stays there'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/load-gc.py

test_prereq_DEBPY() {
	# Debian's python3.11 exports only its public symbols
	test -x /usr/bin/python3 &&
	test "$(ppr_python_version /usr/bin/python3)" = 3.11 ||
		{ echo "no system python3.11"; return 1; }
}

test_expect_success PERF,DEBPY 'the cyclic GC is not self time of an allocator' '
	ppr record -q --python /usr/bin/python3 --mode jit -o gc "$PROG" 2 \
		>out 2>err &&
	gc=$(sed -n "s/^gc=//p" out) &&
	awk -v g="$gc" "BEGIN { exit !(g >= 30) }" &&
	ppr report -i gc --no-tree --top 40 >text &&
	head -n 20 text &&
	# self share of the named functions the GC runs under
	awk "\$4 ~ /^(PyType_GenericAlloc|_PyObject_GC_New|_PyObject_GC_Link|PyObject_GC_Track|_PyObject_GC_NewVar)\$/ { s += \$1 }
	     /^Top functions by total/ { exit } END { print s + 0 }" text >alloc &&
	cat alloc &&
	awk -v a="$(cat alloc)" "BEGIN { exit !(a < 10) }" &&
	test_grep "warning: .* ran in code without symbols" text
'

test_expect_success PERF,DEBPY 'one frame per run of unnamed code' '
	ppr report -i gc -f collapsed >gc.col &&
	! grep -q "\[python3.11\];\[python3.11\]" gc.col
'
test_done
