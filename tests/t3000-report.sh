#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pyperf-run report on a real recording of a program with a known split
# of CPU time (a function, a generator, a method, a lambda, a thread and
# a forked child), on CPython 3.13 (jit mode): shares, formats, folding,
# views and filters.
test_description='report: shares, formats, folding, views, filters'
. ./test-lib.sh

WORKLOAD=$PPR_SRCDIR/tests/fixtures/report-workload.py
CHECK=$PPR_SRCDIR/tests/fixtures/report-check.py


test_prereq_CHECKER() {
	command -v python3 >/dev/null || { echo "no python3 for the checks"; return 1; }
}

test_prereq_SESSION() {
	test -s wl/perf.data && test -s split ||
		{ echo "the recording failed"; return 1; }
}

test_expect_success PERF,PY313 'record the workload' '
	ppr record --trampoline auto -q -o wl --python "$(ppr_python 3.13)" "$WORKLOAD" split \
		>out 2>err &&
	test -s wl/perf.data && test -s split &&
	grep "^child_pid " split
'

test_expect_success SESSION 'default text report names Python functions' '
	ppr report -i wl >text 2>err &&
	test_grep "^# samples: +[0-9]+ of cpu-clock" text &&
	test_grep "^# view: +mixed" text &&
	test_grep "Top functions by self time" text &&
	test_grep "Top functions by total time" text &&
	test_grep "Call tree" text &&
	test_grep " plain_function \(report-workload\.py\)$" text &&
	test_grep " gen_values \(report-workload\.py\)$" text &&
	test_grep " Worker\.compute \(report-workload\.py\)$" text &&
	test_grep " <lambda> \(report-workload\.py\)$" text &&
	test_grep " thread_work \(report-workload\.py\)$" text &&
	test_grep " child_work \(report-workload\.py\)$" text &&
	test_grep "Processes and threads" text &&
	! test -s err
'

test_expect_success SESSION,CHECKER 'json shares match the measured split' '
	ppr report -i wl --format json >r.json &&
	python3 "$CHECK" split shares r.json 4
'

test_expect_success SESSION,CHECKER 'text, collapsed and json agree' '
	ppr report -i wl --format collapsed >r.folded &&
	ppr report -i wl >r.txt &&
	python3 "$CHECK" split agree r.json r.folded r.txt
'

test_expect_success SESSION 'collapsed: one well-formed stack a line' '
	ppr report -i wl --format collapsed >c &&
	test -s c &&
	# FRAME(;FRAME)* COUNT, no empty frame, count > 0
	! grep -v -E "^[^; ][^;]*(;[^;]+)* [1-9][0-9]*$" c &&
	! grep -E ";;|^;| ;" c &&
	# Python frames: qualname (filename), root first
	grep -E "^<module> \([^)]*report-workload\.py\);main \([^)]*report-workload\.py\);" c &&
	grep -E ";Worker\.compute \([^;]*report-workload\.py\);work \(" c &&
	grep -E ";gen_values \([^;]*report-workload\.py\);work \(" c &&
	# kernel frames end in _[k], and only kernel frames
	grep -E "_\[k\]( |;)" c &&
	! grep -E "(^|;)(do_syscall_64|entry_SYSCALL_64[a-z_]*|asm_[a-z_]+)(;| )" c
'

test_expect_success SESSION 'collapsed: sample counts add up' '
	ppr report -i wl --format collapsed >c &&
	ppr report -i wl --format json >j &&
	sum=$(awk "{ s += \$NF } END { print s }" c) &&
	grep "\"samples\": $sum," j
'

test_expect_success SESSION 'mixed view folds the interpreter plumbing' '
	ppr report -i wl --format collapsed >mixed &&
	! grep -E "(^|;)(_PyEval_EvalFrameDefault|_PyEval_Vector|PyObject_Vectorcall|_PyFunction_Vectorcall|py_trampoline_evaluator|ppt_hook|method_vectorcall[A-Z_]*|cfunction_call|cfunction_vectorcall_[A-Z_]+|slot_tp_call|gen_iternext)(;| )" mixed &&
	# no interpreter start-up frames under the first Python frame
	! grep -E "(Py_BytesMain|Py_RunMain|_start|__libc_start_call_main).*;<module> \(" mixed &&
	# native callees of Python functions are kept
	grep -E ";work \([^;]*\);[A-Za-z_]+" mixed
'

test_expect_success SESSION 'the all view keeps every frame' '
	ppr report -i wl --all --format collapsed >all &&
	# the eval loop under a Python frame (context trampolines keep the
	# native frames a sample holds, below its innermost Python frame)
	grep -E " \([^;]*\);_PyEval_EvalFrameDefault;" all &&
	# every context trampoline became the Python frame it stands for
	! grep -F "[pyperf contexts]" all &&
	ppr report -i wl --all >all.txt &&
	test_grep "^# view: +all" all.txt &&
	test_grep "_PyEval_EvalFrameDefault" all.txt
'

test_expect_success SESSION 'python-only view has only Python frames' '
	ppr report -i wl --python-only --format collapsed >py &&
	# every frame is "name (file)", a [native]/[kernel] placeholder or
	# the pseudo root of a cut stack ("[incomplete stack: REASON]") or
	# of the interpreter start-up before the trampoline
	tr ";" "\n" <py | sed "s/ [0-9]*$//" |
		grep -v -E "^(.* \(.*\)|\[native\]|\[kernel\]_\[k\]|\[incomplete stack: [a-z ]+\]|\[python start-up\])$" >bad || : &&
	! test -s bad &&
	! grep -E ";\[(incomplete stack: |python start-up)" py &&
	grep -E "^<module> \([^;]*\);main \([^;]*\);timed \([^;]*\);plain_function \([^;]*\);work \([^;]*\) [0-9]+$" py &&
	ppr report -i wl --python-only >py.txt &&
	test_grep "^# view: +python" py.txt &&
	! grep -v "^#" py.txt | grep "\[libpython"
'

test_expect_success SESSION '--pid keeps one process' '
	child=$(awk "/^child_pid/ { print \$2 }" split) &&
	ppr report -i wl --pid "$child" --format collapsed >child &&
	test_grep "child_work \(" child &&
	test_grep -v "plain_function|thread_work|Worker\.compute" child &&
	ppr report -i wl --pid "$child" --format json >child.json &&
	test_grep "\"pid\": $child," child.json &&
	test "$(grep -c "\"pid\": " child.json)" = 1
'

test_expect_success SESSION '--tid keeps one thread' '
	tid=$(awk "/^thread_tid/ { print \$2 }" split) &&
	ppr report -i wl --tid "$tid" --format collapsed >thr &&
	test_grep "work \(" thr &&
	test_grep -v "plain_function|child_work|gen_values" thr &&
	ppr report -i wl --tid "$tid" >thr.txt &&
	test_grep "^# samples: .*1 process, 1 thread" thr.txt
'

test_expect_success SESSION '--per-thread groups the collapsed stacks' '
	pid=$(awk "/^pid/ { print \$2 }" split) &&
	tid=$(awk "/^thread_tid/ { print \$2 }" split) &&
	ppr report -i wl --per-thread --format collapsed >pt &&
	grep -E "^python3\.13-$pid/$tid;" pt &&
	grep -E "^python3\.13-$pid/$pid;<module>" pt &&
	ppr report -i wl --per-process --format collapsed >pp &&
	grep -E "^python3\.13-$pid;<module>" pp
'

test_expect_success SESSION '--time selects a window' '
	ppr report -i wl --format json >full.json &&
	ppr report -i wl --time 0,0.3 --format json >early.json &&
	full=$(sed -n "s/^  \"samples\": \([0-9]*\),/\1/p" full.json) &&
	early=$(sed -n "s/^  \"samples\": \([0-9]*\),/\1/p" early.json) &&
	test "$early" -gt 0 && test "$early" -lt "$full" &&
	test_grep "\"filtered_out\": [1-9]" early.json
'

test_expect_success SESSION '--min-share hides small frames' '
	ppr report -i wl --min-share 5 --format collapsed >small &&
	test_grep "\[small frames\]" small &&
	ppr report -i wl --format collapsed >c &&
	test "$(awk "{ s += \$NF } END { print s }" small)" = \
		"$(awk "{ s += \$NF } END { print s }" c)" &&
	test "$(wc -l <small)" -lt "$(wc -l <c)"
'

test_expect_success SESSION '-o writes a file, nothing on stdout' '
	ppr report -i wl -o report.txt >out &&
	! test -s out &&
	test_grep "Top functions by self time" report.txt &&
	ppr report -i wl -f collapsed -o c2 &&
	ppr report -i wl -f collapsed >c3 &&
	test_cmp c3 c2
'

test_expect_success SESSION 'works after the session is moved (own maps, buildid)' '
	mv wl moved &&
	ppr report -i moved --format collapsed >m &&
	mv moved wl &&
	test_grep "plain_function \(" m
'

test_expect_success SESSION '--perf-report runs perf report on the session' '
	ppr report -i wl --perf-report -- --stdio --sort sym >perf.out 2>perf.err &&
	test_grep "py::work:" perf.out &&
	ppr report -i wl --perf-report -- --stdio --no-such-option >/dev/null 2>&1;
	test $? = 1
'

# CPython 3.12 through the embedded trampoline (jit mode here)
test_prereq_S312() {
	test -s s312/perf.data && test -s split312 ||
		{ echo "the 3.12 recording failed"; return 1; }
}

test_expect_success PERF,PY312 'record the workload with 3.12' '
	ppr record --trampoline auto -q -o s312 --python "$(ppr_python 3.12)" "$WORKLOAD" \
		split312 >out 2>err &&
	test -s s312/perf.data
'

test_expect_success S312,CHECKER '3.12: shares match, plumbing folded' '
	ppr report -i s312 --format json >s312.json &&
	python3 "$CHECK" split312 shares s312.json 4 &&
	ppr report -i s312 --format collapsed >s312.c &&
	grep -E ";Worker\.compute \([^;]*\);work \(" s312.c &&
	! grep -E "(^|;)(_PyEval_EvalFrameDefault|_PyEval_Vector|PyObject_Vectorcall|_PyFunction_Vectorcall)(;| )" s312.c &&
	! grep -E "_pyperf_trampoline" s312.c
'

# perf map mode: a frame-pointer CPython with the embedded trampoline;
# the maps are resolved from the session (record removes /tmp's copies)
test_prereq_FP_SESSION() {
	test -s fp/perf.data && test -s fpsplit ||
		{ echo "the perf-mode recording failed"; return 1; }
}

test_expect_success PERF,FP_PYTHON 'record the workload in perf mode' '
	ppr record -q --mode perf -o fp --python "$(ppr_fp_python)" \
		"$WORKLOAD" fpsplit >out 2>err &&
	grep "^mode=perf$" fp/meta &&
	ls fp/maps/perf-*.map
'

test_expect_success FP_SESSION,CHECKER 'perf mode: shares match the split' '
	pid=$(awk "/^pid/ { print \$2 }" fpsplit) &&
	! test -e /tmp/perf-$pid.map &&
	ppr report -i fp --format json >fp.json &&
	python3 "$CHECK" fpsplit shares fp.json 4 &&
	ppr report -i fp --format collapsed >fp.folded &&
	ppr report -i fp >fp.txt &&
	python3 "$CHECK" fpsplit agree fp.json fp.folded fp.txt
'

test_expect_success FP_SESSION 'perf mode: complete stacks, plumbing folded' '
	ppr report -i fp --format collapsed >fpc &&
	grep -E "^Thread\._bootstrap \([^;]*\);Thread\._bootstrap_inner \([^;]*\);Thread\.run \([^;]*\);thread_work \([^;]*\);work \(" fpc &&
	grep -E "^<module> \([^;]*\);main \([^;]*\);child_work \([^;]*\);work \(" fpc &&
	! grep -E "(^|;)(_PyEval_EvalFrameDefault|_PyEval_Vector|PyObject_Vectorcall|_PyFunction_Vectorcall|method_vectorcall)(;| )" fpc &&
	ppr report -i fp --all --format collapsed >fpa &&
	grep -E ";_PyEval_Vector;main \(" fpa
'

test_done
