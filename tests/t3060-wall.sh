#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record --wall: wall-clock and off-CPU profiles against the programs'"'"' own clocks and an in-process wall sampler'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 2,5-12
# sanitize-set: 3-4 needs 1
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"
. "$TEST_DIR/lib-flame.sh"

# The ground truth (tests/fixtures/wall-truth.py): the main thread
# times five phases with perf_counter() (CPU, time.sleep, a pipe read
# another thread fills later, a Lock another thread holds while it
# sleeps, two threads in pure Python: the GIL).  In the wall clock each
# phase's share of the main thread's five phases is within 3 points of
# its own measure, and its off-CPU time carries the phase's reason
# (tests/fixtures/wall-check.py).  Then real I/O programs from the
# standard library (an urllib client of a local http.server, sqlite3
# committing to a file): the urllib client's main thread's inclusive
# shares against ref-sampler.py --wall, an ITIMER_REAL sampler inside
# the recorded program that weighs each tick by wall time (blocked
# calls are retried after its handler, PEP 475), within 3 points; the
# sqlite3 workload's and an asyncio server and client's shares against
# their own perf_counter() timing, within 3 points (the reference is
# biased on those two: see sqlite() and asyncio() below).  The ground
# truth on Debian's python3, 3.8 and 3.13 (and the frame-pointer build),
# the I/O programs on Debian's python3 and 3.13; in bpf mode the ground
# truth and the urllib client on all three.

FIX=$PPR_SRCDIR/tests/fixtures
REF=$FIX/ref-sampler.py
CMP=$FIX/ref-compare.py

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
test_have_prereq FP_PYTHON && FPPY=$(ppr_fp_python)

# wall NAME PYTHON ARGS...: record --wall, then the main thread's wall
# clock in collapsed form (NAME.col, microseconds) and JSON.  The
# route must give stacks at switch-out (root: sched_switch).  WMODE=bpf:
# the frame walker; otherwise perf record's route (--trampoline auto).
# record -v: its notes and counts of intervals, shown on a miss.
wall() {
	wn_=$1 wpy_=$2 &&
	shift 2 &&
	if test "${WMODE:-}" = bpf; then wroute_="--mode bpf"
	else wroute_="--trampoline auto"; fi &&
	record_env "$PPR_BIN" record -v --wall $wroute_ \
		-o "$wn_" --python "$wpy_" "$@" >"$wn_.out" 2>"$wn_.err" &&
	test "$(meta "$wn_" exit_status)" = 0 &&
	test "$(meta "$wn_" wall)" = "$(test "${WMODE:-}" = bpf &&
					echo walker || echo sched)" &&
	ppr report -i "$wn_" --reader native --format collapsed \
		--tid "$(meta "$wn_" program_pid)" -o "$wn_.col" 2>/dev/null &&
	ppr report -i "$wn_" --reader native --format json -o "$wn_.json" \
		2>/dev/null
}

truth() {
	wall "$1" "$2" "$FIX/wall-truth.py" "$1.truth" &&
	python3 "$FIX/wall-check.py" "$1.truth" "$1.col" >"$1.check" ||
		{ cat "$1.check" "$1.err"; return 1; }
	test_diag "$(cat "$1.check")"
}

# ref NAME PYTHON BASE PROGRAM ARGS...: the program under ref-sampler.py
# --wall at 1000 Hz inside the recording (recorded at WFREQ Hz when it
# is set; it is then unset); the 15 largest inclusive shares under BASE
# within 3 points (samples in the sampler's handler left out on both
# sides; before 3.11 the reference names functions without their class:
# --co-name).
ref() {
	rn_=$1 rpy_=$2 rbase_=$3 rfreq_=${WFREQ:-} &&
	WFREQ= &&
	shift 3 &&
	wall "$rn_" "$rpy_" ${rfreq_:+-F $rfreq_} "$REF" "$rn_.ref" --hz 1000 \
		--wall "$@" &&
	rco_= &&
	case $(ppr_python_version "$rpy_") in 3.[0-9]|3.10) rco_=--co-name ;; esac &&
	python3 "$CMP" "$rn_.ref" "$rn_.col" --top 15 --tol 3 $rco_ \
		--base "$rbase_" --drop-file ref-sampler.py >"$rn_.cmp" ||
		{ cat "$rn_.cmp" "$rn_.err"; return 1; }
	test_diag "$rn_: $(tail -n 1 "$rn_.cmp")"
}

# sqlite NAME PYTHON: main()'s shares in insert, commit and query
# against their own perf_counter() timing (wall-sqlite.py times each
# call), within 3 points.  ref-sampler.py, on this program, gave commit
# 72-91 % where perf_counter() measures 57-59 %, and insert half its
# share: the same bias as on asyncio (below), towards blocking calls.
# Sampled at 4999 Hz: at the default 999 Hz commit came out 0.6 to 3.4
# points above its perf_counter() share (the on-CPU samples' 1 ms grain
# around each of the 800 short stretches between fsyncs; 0.1 to 1.0 at
# 4999 Hz).
sqlite() {
	wall "$1" "$2" -F 4999 "$FIX/wall-sqlite.py" "$TRASH/$1.db" 800 \
		"$1.times" &&
	python3 "$FIX/wall-check.py" --funcs "$1.times" "$1.col" >"$1.check" ||
		{ cat "$1.check" "$1.err"; return 1; }
	test_diag "$1: $(tr '\n' ';' <"$1.check")"
}

# asyncio NAME PYTHON: the event loop's share of time in select() against
# its own perf_counter() timing (wall-asyncio.py times each select()
# call), within 3 points.  Not against ref-sampler.py: on this program
# the reference puts 86-89 % of the run in select() where perf_counter()
# measures 72-76 % (and the profile 73-79 %): the ticks that land in
# the callbacks' CPU work are under-weighed (Handle._run: 4 ms in the
# reference, 38 ms of check() alone by perf_counter).  Its comparison
# is shown, not asserted.
asyncio() {
	wall "$1" "$2" "$FIX/wall-asyncio.py" 200 "$1.times" &&
	python3 "$FIX/wall-check.py" --select "$1.times" "$1.col" >"$1.check" ||
		{ cat "$1.check" "$1.err"; return 1; }
	test_diag "$1: $(cat "$1.check")"
	wall "$1r" "$2" "$REF" "$1r.ref" --hz 1000 --wall \
		"$FIX/wall-asyncio.py" 200 &&
	aco_= &&
	case $(ppr_python_version "$2") in 3.[0-9]|3.10) aco_=--co-name ;; esac &&
	python3 "$CMP" "$1r.ref" "$1r.col" --top 15 $aco_ \
		--base "<module> (wall-asyncio.py)" --drop-file ref-sampler.py \
		>"$1r.cmp" &&
	test_diag "$1: against ref-sampler.py (not asserted): $(grep "EpollSelector.select\| select (selectors" "$1r.cmp" | head -n 1)"
}

# The interpreters each scenario runs on.  The sanitizer pass
# (SANITIZE=1) checks pyperf-run's own code: the wall route's is the
# same whatever the interpreter, and the code each version adds (its
# trampoline, its frame layout in bpf mode) is run under the sanitizers
# by t2003 and t3502 on every version; here it runs Debian's python3
# only (12 fewer subtests: 189 s of that pass became 76 s in a fresh
# clone, about a minute of its wall time at two tests at a time).
if test "${PPR_SANITIZE:-}" = 1; then
	WALL_PYS=DEB
	echo "# sanitizer pass: Debian's python3 only (the plain pass: DEB PY38 PY313)"
else
	WALL_PYS="DEB PY38 PY313"
fi

for v in $WALL_PYS; do
	eval "py=\${$v:-}"
	test_expect_success PERF,ROOT,$v "$v: the ground truth: each phase's wall share and its wait's reason" "
		truth t$v '$py'
	"
done

# The frame-pointer build, in the mode record picks for it (jit: in perf
# mode the waits in the C library's lock code lose their Python callers,
# and record says so).
test_expect_success PERF,ROOT,FP_PYTHON "the frame-pointer build: the ground truth" '
	truth tFP "$FPPY"
'

test_expect_success PERF,ROOT,DEB 'every format carries the unit; the three clocks of one session' '
	s=tDEB &&
	python3 -c "
import json, sys
d = json.load(open(\"$s.json\"))
assert d[\"unit\"] == \"nanoseconds\" and d[\"clock\"] == \"wall\", d[\"unit\"]
o = d[\"offcpu\"]
assert o[\"intervals\"] > 0 and o[\"nanoseconds\"] > 0, o
# the period is the CPU time: the on-CPU samples alone
assert d[\"period\"] == d[\"nanoseconds\"] - o[\"nanoseconds\"], d[\"period\"]
main = [t for p in d[\"processes\"] for t in p[\"threads\"]
        if t[\"tid\"] == p[\"pid\"]][0]
w = main[\"waits\"]
for r in (\"sleep\", \"io\", \"lock\", \"gil\"):
    assert w.get(r, 0) > 0.3e9 if r != \"gil\" else w.get(r, 0) > 0.05e9, (r, w)
assert main[\"running\"] + sum(w.values()) == main[\"nanoseconds\"], main
" &&
	ppr report -i $s --format speedscope -o s.ss 2>/dev/null &&
	test_grep "\"unit\":\"nanoseconds\"" s.ss &&
	ppr report -i $s --no-tree >s.txt 2>/dev/null &&
	test_grep "^# wall: +[0-9.]+ s of thread time: [0-9.]+ s on CPU \([0-9]+ samples of cpu-clock at 999 Hz\), [0-9.]+ s off CPU \([0-9]+ intervals\)" s.txt &&
	test_grep "^Threads: running and waiting" s.txt &&
	ppr report -i $s --clock off-cpu --format collapsed -o off.col 2>/dev/null &&
	! grep -v "\[off-cpu [a-z]" off.col &&
	ppr report -i $s --clock cpu --format collapsed -o cpu.col 2>/dev/null &&
	! grep "off-cpu" cpu.col &&
	ppr report -i $s --clock cpu --format json -o cpu.json 2>/dev/null &&
	python3 -c "
import json
d = json.load(open(\"cpu.json\"))
assert \"unit\" not in d and \"clock\" not in d and d[\"samples\"] > 100, d.get(\"samples\")
" &&
	ppr report -i $s --time 0.5,0.7 --tid "$(meta $s program_pid)" \
		--format json -o win.json 2>/dev/null &&
	python3 -c "
import json
d = json.load(open(\"win.json\"))
# a window of 0.2 s of the main thread: intervals cut to it, on-CPU
# samples in it by their time (a sample period at each edge at most)
assert abs(d[\"nanoseconds\"] - 200000000) <= 2100000, d[\"nanoseconds\"]
" &&
	test_must_fail ppr report -i $s --reader perf-script 2>err &&
	test_grep "perf-script reader .* reads only the cpu clock" err &&
	test_must_fail ppr report -i $s --clock nope 2>err &&
	test_grep "clock must be cpu, wall or off-cpu" err
'

# The html page's timeline: a lane per thread; clicking the main
# thread's longest sleep shows the flame graph of that time alone: the
# sleep phase, ending in [off-cpu sleep], weighing about the span.
test_expect_success PERF,ROOT,DEB,CHROMIUM 'html: a timeline of the threads; a span shows its own flame graph' '
	ppr report -i tDEB --format html -o t.html 2>/dev/null &&
	flame_browser html t.html --timeline-span 0,sleep >t.kv &&
	test "$(flame_kv tl_lanes t.kv)" -ge 3 &&
	span=$(flame_kv tl_span_us t.kv) &&
	test "$span" -gt 350000 &&
	after=$(flame_kv tl_total_after t.kv) &&
	before=$(flame_kv tl_total_before t.kv) &&
	test "$after" -lt "$before" &&
	test "$after" -ge "$((span * 1000))" &&
	test "$after" -le "$((span * 1000 + span * 1000 / 50))" &&
	test_grep "^tl_label=phase_sleep \(.*wall-truth.py\)$" t.kv &&
	test_grep "^tl_label=\[off-cpu sleep\]$" t.kv &&
	! grep "^tl_label=phase_cpu" t.kv
'

test_prereq_LIBPERF() {
	ppr --version | grep -q " libperf=yes" ||
		{ echo "pyperf-run was built without libperf"; return 1; }
}

# top --wall, live: the ground truth's three threads that sleep 0.4 s
# each (the main thread, the pipe's writer, the Lock's holder) show as
# 1.2 s of [off-cpu sleep], and the header splits the thread time.
test_expect_success PERF,ROOT,DEB,LIBPERF 'top --wall: which functions wait, and for what, live' '
	record_env "$PPR_BIN" top --trampoline auto --wall --batch -q -o top.txt --python "$DEB" \
		"$FIX/wall-truth.py" top.truth >/dev/null 2>top.err &&
	test_grep "^# wall: +[0-9.]+ s of thread time: [0-9.]+ s on CPU, [0-9.]+ s off CPU \([0-9]+ intervals\)$" top.txt &&
	# the time column is three digits and a unit (1.22 s): back to ns
	ns=$(awk "/  \\[off-cpu sleep\\]\$/ && \$4 == \"s\" { printf \"%.0f\\n\", \$3 * 1e9; exit }" top.txt) &&
	test -n "$ns" &&
	test "$ns" -ge 1180000000 && test "$ns" -le 1260000000 &&
	test_grep "\[off-cpu lock\]" top.txt &&
	test_grep "\[off-cpu io\]" top.txt
'

test_expect_success ROOT,DEB 'doctor says the route record --wall takes (root: sched_switch)' '
	ppr doctor --json --python "$DEB" >doc.json 2>/dev/null; code=$? &&
	test $code = 0 -o $code = 1 &&
	python3 -c "
import json
c = [c for c in json.load(open(\"doc.json\"))[\"checks\"]
     if c[\"id\"] == \"kernel.wall\"]
assert c and c[0][\"level\"] == \"ok\" and \"sched:sched_switch\" in c[0][\"text\"], c
"
'

test_expect_success PERF,ROOT,DEB 'a session without --wall has no wall clock' '
	record_env "$PPR_BIN" record --trampoline auto -q -o plain --python "$DEB" \
		"$FIX/wall-truth.py" plain.truth >/dev/null 2>&1 &&
	test_must_fail ppr report -i plain --clock wall 2>err &&
	test_grep "no off-CPU data for --clock wall: record with .pyperf-run record --wall." err
'

# The urllib client fetches FETCHES pages.  The reference's own error
# bounds the test: 100 fetches gave it 470-930 samples, a standard
# error of up to 2.3 points at a 50 % share against the 3-point bound
# (a bpf run on 3.13 once came out 4.3 points, 2.3 standard errors,
# away); 300 give three times the samples and 1.1-1.3 points, and
# still failed under load: Debian's 3.11, _find_and_load 16.5 % in the
# reference and 19.8 % in the profile, 3.3 points, 2.7 standard errors
# of the reference's 1,084 samples (15 functions compared at 2.5
# standard errors fail about once in ten runs).  900 give about 3,000
# samples, 0.7 points: the 3-point bound is then over 4 standard errors.
# Still, 3.13 failed twice by 3.3 and 3.6 points, 5.4 and 5.8 standard
# errors: the reference lower in SocketIO.readinto.  2 to 3 % of its
# ticks went to the server's threads (perf's signal:signal_deliver), so
# the main thread's recv() was not interrupted and the wait's time went
# to the code after it; its other threads now block the tick (none went
# there in the same count: ref-sampler.py's main_thread_only()).
# Then perf record's route, still 2 to 4 points high in readinto
# beside a busy loop: perf's per-thread cpu-clock, whose count a new
# or exiting thread of the process takes from the main thread (see
# src_native_switches.h), gave its CPU work 4 to 28 % too little.  The
# report now weighs each thread's samples by its time on CPU from the
# switch records.
# What is left is the sample's grain: the count restarts at each new
# thread's context, so at 999 Hz a period of the main thread's
# 0.8 ms of CPU a fetch can go unsampled, in the same place of each
# fetch (request and connect 2.1 to 2.6 points off, either way, in 9
# runs beside a busy loop; 0.3 to 1.0 at 4999 Hz in 5): perf record's
# route records the urllib client at 4999 Hz.
FETCHES=900
# The three real-I/O programs through perf record's route on Debian's
# 3.11 and on 3.13, not 3.8: the wall route's code is the interpreter's
# only in the names its trampoline gives, which 3.8's ground truth
# (above) and its bpf-mode runs (below) check (issue 31, the suite's
# time: 3 subtests, about 36 s, fewer)
case $WALL_PYS in
DEB*PY313) IO_PYS="DEB PY313" ;;
*) IO_PYS=$WALL_PYS ;;
esac
for v in $IO_PYS; do
	eval "py=\${$v:-}"
	test_expect_success PERF,ROOT,$v "$v: an urllib client of a local http.server against the wall reference" "
		WFREQ=4999 &&
		ref u$v '$py' '<module> (wall-urllib.py)' '$FIX/wall-urllib.py' $FETCHES
	"
	test_expect_success PERF,ROOT,$v "$v: sqlite3 committing to a file: insert, commit, query against perf_counter()" "
		sqlite q$v '$py'
	"
	test_expect_success PERF,ROOT,$v "$v: an asyncio server and client: the loop's time in select() against perf_counter()" "
		asyncio a$v '$py'
	"
done

# --wall with the frame walker (--mode bpf): the stacks at switch-out
# are walked in the kernel by the sched_switch program (Python frames
# read from the interpreter, no trampoline); the same truths hold.
for v in $WALL_PYS; do
	eval "py=\${$v:-}"
	test_expect_success BPF,$v "$v, bpf mode: the ground truth: each phase's wall share and its wait's reason" "
		WMODE=bpf && truth b$v '$py'
	"
	test_expect_success BPF,$v "$v, bpf mode: an urllib client against the wall reference" "
		WMODE=bpf && ref bu$v '$py' '<module> (wall-urllib.py)' '$FIX/wall-urllib.py' $FETCHES
	"
done

test_done
