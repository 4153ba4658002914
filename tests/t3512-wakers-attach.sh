#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record --wall [--wakers] -p: a wait under way at the attach is counted from the attach, with its stack and its waker'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1,3,5,7,9,10
# sanitize-set: 2 needs 1
# sanitize-set: 4 needs 3
# sanitize-set: 6 needs 5
# sanitize-set: 8 needs 7
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"
. "$PPR_SRCDIR/tests/fixtures/walker-lib.sh"

# The ground truth (tests/fixtures/wakers-attach.py): three threads
# block since before the recorder starts (their /proc state S for
# 100 ms; then 0.5 s more before record -p is run): blocked_lock() in a
# threading.Lock the main thread holds (a futex wait), blocked_sleep()
# in a 30 s time.sleep() (clock_nanosleep), blocked_recv() in a
# socket's recv().  Once the recorder is attached the test signals the
# main thread, which notes the time (SIGNALLED), waits 1 s, notes it
# again (RELEASED), lets the lock go in release(), then signals the
# sleeper in wake_sleeper() and writes to the socket in send_it(), and
# notes the time again (WOKEN).  Each wait began before the attach and
# ended after RELEASED: counted from the attach, it weighs at least
# RELEASED - SIGNALLED (the attach came before the signal, the waiter
# ran after the release: no tolerance), and at most WOKEN - T0, T0
# taken before record was started: its start-up, the BPF programs'
# load, comes between T0 and the attach (RELEASED - T0 exceeded the
# lock wait by 0.13 to 0.38 s here, 0.24 to 1.3 s with 3 busy loops on
# the 2 cores), and it is longer than a waiter's wake-up (the lock
# waiter's switch-in 0.05 to 0.4 ms after RELEASED with the 3 busy
# loops, perf script's time of the interval).  Measured: the lock wait
# 1.01 to 1.45 s against a lower bound of 1.00 to 1.03 s.  Before the
# attach's waits were counted, each of these threads' only wait was
# lost whole: no "[off-cpu ..., from the attach]", 0 s under them.
# With --wakers each is credited to the main thread's function that
# ended it, at its line: release(), wake_sleeper(), send_it().

FIX=$PPR_SRCDIR/tests/fixtures
PROG=$FIX/wakers-attach.py
SHARE=$FIX/wakers-share.py
# line N of function F of the program: F's def line + N
line_of() {
	echo $(($(grep -n "^def $1(" "$PROG" | cut -d: -f1) + $2))
}
# each wait: the thread (OUT's key), its function and line, its reason,
# the function and line that end it, whether the thread waits there
# again after (the sleeper's time.sleep() sleeps on after the signal)
WAITS="lock blocked_lock 2 lock release 1 once
sleep blocked_sleep 2 sleep wake_sleeper 1 again
recv blocked_recv 2 io send_it 1 once"

test_prereq_DEB() {
	DEB=$(ppr_distro_python 3.11) || { echo "no Debian python3.11"; return 1; }
}
test_prereq_PY38() {
	PY38=$(record_python 3.8) || { echo "$PY38"; return 1; }
}
test_prereq_PY313() {
	PY313=$(record_python 3.13) || { echo "$PY313"; return 1; }
}
test_have_prereq DEB && DEB=$(ppr_distro_python 3.11)
test_have_prereq PY38 && PY38=$(record_python 3.8)
test_have_prereq PY313 && PY313=$(record_python 3.13)

# attach_rec NAME PYTHON [RECORD OPTION...]: the program (its OUT in
# NAME.prog), record --wall -p it once its threads are blocked (into
# NAME, its messages in NAME.err), the signal once attached; T0 in
# NAME.t0.  Each background command starts a list of its own (a `&` at
# the end of an && list would run the whole list in the background).
attach_rec() {
	ar_n_=$1 ar_py_=$2
	shift 2
	"$ar_py_" "$PROG" "$ar_n_.prog" >"$ar_n_.pout" 2>&1 &
	ar_pid_=$!
	if ! wait_for 30 grep -q "^ready$" "$ar_n_.prog"; then
		echo "the program's threads did not block"
		kill $ar_pid_
		return 1
	fi
	sleep 0.5
	python3 -c 'import time; print("%.6f" % time.monotonic())' >"$ar_n_.t0"
	"$PPR_BIN" record --wall "$@" -p $ar_pid_ --duration 30 -o "$ar_n_" \
		2>"$ar_n_.err" &
	ar_rpid_=$!
	if ! wait_for 15 attached $ar_rpid_; then
		echo "the recorder did not attach"
		kill $ar_pid_ $ar_rpid_
		return 1
	fi
	kill -USR1 $ar_pid_ &&
	wait $ar_pid_ &&
	wait $ar_rpid_ &&
	cat "$ar_n_.err" &&
	grep "^times " "$ar_n_.prog"
}

# waits NAME: for each of WAITS, the waiting thread's off-CPU time in
# NAME (seconds) under its function at its line and "[off-cpu REASON,
# from the attach]" (NAME.KEY.col: its collapsed stacks), its other
# waits there of that reason (none for a thread that waited once), and
# the bounds above (said after the test's result); fails unless each is
# within them
waits() {
	echo "$WAITS" | while read key fn n reason waker m again; do
		tid=$(sed -n "s/^$key //p" "$1.prog") &&
		ppr report -i "$1" --clock off-cpu --format collapsed --tid "$tid" \
			-o "$1.$key.col" 2>"$1.$key.rerr" || return 1
		python3 - "$1.$key.col" "$fn ($PROG:$(line_of $fn $n))" \
			"[off-cpu $reason" "$1.prog" "$1.t0" $again >"$1.$key.w" <<-\PY
		import sys
		col, frame, leaf, prog, t0, again = sys.argv[1:]
		attach = other = 0
		for line in open(col):
		    stack, _, w = line.rstrip("\n").rpartition(" ")
		    frames = stack.split(";")
		    if frame not in frames:
		        continue
		    if frames[-1] == leaf + ", from the attach]":
		        attach += int(w) / 1e6
		    elif frames[-1] == leaf + "]":
		        other += int(w) / 1e6
		times = [l.split() for l in open(prog) if l.startswith("times ")][0]
		signalled, released, woken = map(float, times[1:])
		start = float(open(t0).read())
		lo, hi = released - signalled, woken - start
		print("%s: %.6f s from the attach (at least %.6f, at most %.6f); "
		      "its other such waits there: %.6f s"
		      % (frame.split()[0], attach, lo, hi, other))
		sys.exit(0 if lo <= attach <= hi and (again == "again" or
		                                       other < 0.01) else 1)
		PY
		s=$?
		cat "$1.$key.w"
		test_diag "$1: $(cat "$1.$key.w")"
		test $s = 0 || return 1
	done
}

# credited NAME: with --wakers, each of WAITS's waits from the attach
# credited whole to the function and line that ended it
credited() {
	echo "$WAITS" | while read key fn n reason waker m again; do
		tid=$(sed -n "s/^$key //p" "$1.prog") &&
		ppr report -i "$1" --wakers --format collapsed --tid "$tid" \
			-o "$1.$key.wcol" 2>/dev/null &&
		share=$(python3 "$SHARE" "[off-cpu $reason, from the attach]" \
			"$waker ($PROG:$(line_of $waker $m))" <"$1.$key.wcol" \
			2>"$1.$key.why") &&
		cat "$1.$key.why" &&
		echo "$fn: $share % credited to $waker()" &&
		test "$share" = 100.0 || return 1
	done
}

for v in DEB PY38 PY313; do
	test_expect_success "BPF,$v" "$v: record --wall --wakers -p: the lock, sleep and socket waits under way at the attach, from the attach to their end, each under its function and line" '
		eval py=\$$v &&
		attach_rec wk-$v "$py" --wakers &&
		waits wk-$v
	'
	test_expect_success "BPF,$v" "$v: ... each credited to the function and line that ended it (release(), wake_sleeper(), send_it())" '
		credited wk-$v
	'
done

test_expect_success BPF,DEB 'record --wall -p (no --wakers): the same three waits' '
	attach_rec wall-DEB "$DEB" &&
	waits wall-DEB
'

test_expect_success BPF,DEB 'record says how many threads were blocked at the attach, report how much wait time began before it' '
	test_grep "^pyperf-run: 4 threads were blocked at the attach: [1-4] of their waits \([0-9.]+ s\) began before it and are counted from it" \
		wall-DEB.err &&
	ppr report -i wall-DEB -o wall-DEB.txt 2>/dev/null &&
	sed -n "/^# warning: .*attach/p" wall-DEB.txt &&
	test_grep "^# warning: +[0-9]+% of off-CPU time \([0-9.]+ s in [1-4] waits?\) began before the attach: counted from it, under \[off-cpu \.\.\., from the attach\]" \
		wall-DEB.txt &&
	ppr report -i wall-DEB --format collapsed -o wall-DEB.all 2>wall-DEB.cerr &&
	test_grep "^pyperf-run report: warning: [0-9]+% of off-CPU time \([0-9.]+ s in [1-4] waits?\) began before the attach" \
		wall-DEB.cerr &&
	ppr report -i wall-DEB --format json -o wall-DEB.json 2>/dev/null &&
	python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))[\"offcpu\"]
print(o)
assert 3 <= o[\"before_attach\"] <= 4
assert 3e9 <= o[\"before_attach_nanoseconds\"] <= o[\"nanoseconds\"]
" wall-DEB.json
'

# The four threads stay blocked for all of a 2 s recording (no signal
# until it has ended; tick() runs meanwhile): their waits are in no
# interval, and record and report say so, with 4 x 2 s of waits
test_expect_success BPF,DEB 'waits under way at the attach that outlast the recording are said to be missing' '
	TICK=1 "$DEB" "$PROG" long.prog >long.pout 2>&1 &
	ppid=$!
	wait_for 30 grep -q "^ready$" long.prog &&
	ppr record --wall -p $ppid --duration 2 -o long >long.out 2>long.err
	s=$?
	kill -USR1 $ppid && wait $ppid && cat long.err && test $s = 0 &&
	test_grep "^pyperf-run: [45] threads were blocked at the attach: .*; 4 did not end while attached \(([89]|[12][0-9])\.[0-9]+ s from the attach\) and are not in the profile$" long.err &&
	ppr report -i long --format collapsed -o long.col 2>long.rerr &&
	cat long.rerr &&
	test_grep "warning: 4 threads blocked since before the attach stayed blocked until the recording ended: their waits \(([89]|[12][0-9])\.[0-9]+ s from the attach\) are not in the profile" long.rerr
'

test_expect_success BPF,DEB 'a recording of a program it starts has no wait from the attach' '
	ppr record -q --wall -o own --python "$DEB" "$PROG" own.prog \
		>own.out 2>own.err &
	rpid=$!
	wait_for 30 grep -q "^ready$" own.prog &&
	kill -USR1 $(sed -n "s/^pid //p" own.prog) &&
	wait $rpid &&
	ppr report -i own --clock off-cpu --format collapsed -o own.col 2>own.rerr &&
	test_grep "blocked_lock \(" own.col &&
	test_grep -v "from the attach" own.col &&
	test_grep -v "before the attach" own.rerr
'

test_done
