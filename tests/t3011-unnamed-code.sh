#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report: time in code without symbols stays there'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/load-gc.py

# A python3.11 that names only its exported symbols, as Debian's does
# (STRIPPED_PY311): the cyclic GC runs in code without symbols.

test_expect_success PERF,STRIPPED_PY311 'the cyclic GC is not self time of an allocator' '
	ppr record -q --python "$STRIPPED_PY311" --mode jit -o gc "$PROG" 2 \
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

test_expect_success PERF,STRIPPED_PY311 'one frame per run of unnamed code' '
	ppr report -i gc -f collapsed >gc.col &&
	! grep -q "\[python3.11\];\[python3.11\]" gc.col
'
test_done
