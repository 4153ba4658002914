#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pyperf-run top: a program started and sampled with libperf, its
# samples unwound and named by the native reader, shown live.  Shares
# are checked against the CPU split the program itself is built with
# (record-split.py: 0.20 s per part, the lambda 0.15 s), in both modes.
test_description='top: live shares of a running program, and what it leaves'
. ./test-lib.sh

FIX=$PPR_SRCDIR/tests/fixtures
SPLIT=$FIX/record-split.py

test_prereq_LIBPERF() {
	ppr --version | grep -q " libperf=yes" || {
		echo "pyperf-run was built without libperf (.ci/setup.d/libperf.sh builds it)"
		return 1
	}
}

# check_split TABLE: every part within 4 points of its share, and at
# least 95% of the stacks complete
check_split() {
	python3 "$FIX/top-shares.py" "$1" gen_part Shape.area \
		"main.<locals>.<lambda>" thread_part child_part >shares &&
	cat shares &&
	awk '
		$1 == "stacks" { if ($2 < 95) { print "stacks complete: " $2; bad = 1 }; next }
		{
			want = ($1 ~ /lambda/) ? 15.8 : 21.1
			d = $2 - want; if (d < 0) d = -d
			if (d > 4) { print "share of " $1 " is " $2 ", not " want; bad = 1 }
		}
		END { exit bad }' shares
}

mkdir tmpdir
TMPDIR=$PWD/tmpdir
export TMPDIR

test_expect_success PERF,LIBPERF 'jit mode: every part of the split program has its share' '
	RECORD_SPLIT_PIDS=$PWD/split.pids ppr top --trampoline auto --batch \
		-s total -n 60 --view python "$SPLIT" >table 2>err &&
	cat err &&
	test_grep "^record-split: done$" table &&
	test_grep "^pyperf-run: jit mode, embedded trampoline" err &&
	test_grep "^# pyperf-run top: .*record-split.py \(pid [0-9]+\)$" table &&
	test_grep "^Top functions by total time" table &&
	check_split table
'

# /tmp is shared with the tests beside this one, some in jit mode too:
# only the files of the program top ran and its child (their pids from
# record-split.py) are this test's business.
test_expect_success PERF,LIBPERF 'nothing is left in /tmp or TMPDIR' '
	pid=$(sed -n "s/^# pyperf-run top: .*(pid \([0-9]*\))$/\1/p" table) &&
	test -n "$pid" &&
	read main child <split.pids &&
	test "$main" = "$pid" &&
	for f in /tmp/perf-$main.map /tmp/jit-$main.dump /tmp/jitted-$main-* \
		 /tmp/perf-$child.map /tmp/jit-$child.dump /tmp/jitted-$child-*; do
		! test -e "$f" || { echo "left: $f"; return 1; }
	done &&
	test "$(ls -A tmpdir)" = ""
'

test_expect_success PERF,LIBPERF 'the program output and exit status pass through' '
	test_expect_code 3 ppr top --trampoline auto -q --batch -c "print(\"hello from the program\"); raise SystemExit(3)" >out 2>err &&
	test_grep "^hello from the program$" out &&
	test_grep "^Top functions by self time" out &&
	! test -s err
'

# (3 s: a loaded machine gave the program 241 samples in 1 s)
test_expect_success PERF,LIBPERF '--duration ends a program that runs on; -o takes the table; the vDSO is named' '
	ppr top --trampoline auto -q --batch --duration 3 -s total -n 100 -o hot.txt -c "import time
while True: time.thread_time()" >out 2>err &&
	! test -s out &&
	n=$(sed -n "s/^# samples:  \([0-9]*\) in .*/\1/p" hot.txt) &&
	echo "$n samples" &&
	test "$n" -gt 300 &&
	test_grep "<module> \(<string>\)" hot.txt &&
	test_grep "  __vdso_clock_gettime \[vdso\]$" hot.txt
'

test_expect_success PERF,LIBPERF,FP_PYTHON 'frame-pointer mode: the same shares' '
	ppr top --batch --mode perf --python "$(ppr_fp_python)" -s total \
		-n 60 --view python "$SPLIT" >fp.table 2>err &&
	test_grep "^pyperf-run: perf mode" err &&
	check_split fp.table
'

test_expect_success PERF,LIBPERF 'the screen: refreshed, q quits and stops the program' '
	command -v script >/dev/null || { echo "script(1) is missing"; false; }
	{ sleep 2; printf q; sleep 5; } |
	script -qfec "$PPR_BIN top -q -d 0.3 -c \"while True: pass\"" /dev/null >screen 2>&1 &&
	n=$(grep -c "Top functions by self time" screen) &&
	echo "$n tables" &&
	test "$n" -ge 3 &&
	grep -q "$(printf "\033\\[H\033\\[2J")" screen
'

# top and record find a bare command name in PATH with the same code
# (record_prepare()); argv[0] stays as typed.
test_expect_success PERF,LIBPERF '-- command: a bare name is found in PATH, as record finds it' '
	py=$(python3 -c "import sys; print(sys.executable)") &&
	mkdir -p bin &&
	ln -sf "$py" bin/py-in-path &&
	PATH=$PWD/bin:$PATH ppr top --trampoline auto -q --batch -n 5 --python "$py" -- py-in-path -c "
import sys, time
print(\"argv0\", sys.orig_argv[0])
t = time.time()
while time.time() - t < 0.3: pass" >out 2>err &&
	test_grep "^Top functions by self time" out &&
	! test -s err &&
	PATH=$PWD/bin:$PATH ppr record --trampoline auto -q -o inpath --python "$py" -- py-in-path -c "
import sys
print(\"argv0\", sys.orig_argv[0])" >rout 2>rerr &&
	test_grep "^argv0 py-in-path$" rout &&
	test_grep "^argv0 py-in-path$" out &&
	test "$(sed -n "s/^exit_status=//p" inpath/meta)" = 0
'

test_expect_success LIBPERF 'a command not in PATH: 127, and the words record says' '
	test_expect_code 127 ppr top --trampoline auto --batch -- no-such-command-here 2>err &&
	test_expect_code 127 ppr record --trampoline auto -o nosession -- no-such-command-here 2>rerr &&
	sed "s/^pyperf-run top: //" err >said.top &&
	sed "s/^pyperf-run record: //" rerr >said.record &&
	test_cmp said.record said.top &&
	test_grep "^cannot run .no-such-command-here.: No such file or directory$" said.top &&
	! test -e nosession
'

test_expect_success 'bad options are refused with the reason' '
	test_expect_code 125 ppr top --trampoline auto --sort nope -c pass 2>err &&
	test_grep "sort must be self or total, not .nope." err &&
	test_expect_code 125 ppr top -p 1 --mode jit 2>err &&
	test_grep "p watches with the frame walker: --mode bpf" err &&
	test_expect_code 125 ppr top -p 1 -c pass 2>err &&
	test_grep "p attaches to running processes: give no program too" err &&
	test_expect_code 125 ppr top --trampoline auto --batch 2>err &&
	test_grep "nothing to run" err
'

# The target serves until the test is done with it (a stop file; at
# most 60 s, so that a failed test still ends), not for a fixed time:
# under the sanitizers on a loaded machine top once took the target's
# whole 4 s to start, and attached to its end (0 samples).
test_expect_success BPF 'top -p: a running process, its frames named live, left running' '
	rm -f stop &&
	WALKER_TARGET_STOP=$TRASH/stop /usr/bin/python3 \
		"$PPR_SRCDIR/tests/fixtures/walker-target.py" serve 60 1 >srv 2>&1 &
	tpid=$! &&
	i=0 &&
	while ! grep -q "^ready" srv 2>/dev/null; do
		i=$((i + 1)) && test $i -lt 100 && sleep 0.1 || return 1
	done &&
	ppr top -q --batch -n 8 -p $tpid --duration 1.5 >out 2>err &&
	kill -0 $tpid &&
	! grep -q "^served" srv &&
	: >stop &&
	wait $tpid &&
	test_grep "^served [0-9]" srv &&
	test_grep "^# mode: +bpf, attached" out &&
	# the table is by function: its lines add up in one row
	test_grep " handle \\(walker-target.py\\)$" out
'

test_expect_success BPF 'top --mode bpf: a program from its start' '
	ppr top -q --batch -n 8 --mode bpf --python /usr/bin/python3 \
		"$PPR_SRCDIR/tests/fixtures/walker-target.py" deep 30 1 >out 2>err &&
	test_grep "^deep done 30" out &&
	test_grep " leaf \\(walker-target.py\\)$" out
'

test_done
