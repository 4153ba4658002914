#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time: 25 s at a load of 6 on a 2-core machine (15 CPU-s): three
# recordings of a program of 2 s of CPU (bpf mode launched and attached,
# perf record's jit route), each read back.
test_description='record --max-size: recording stops at the size, the program runs on untouched, every format says the profile ends early'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

test_prereq_PY() {
	PY=$(record_python 3.11) || { echo "$PY"; return 1; }
}
test_have_prereq PY && PY=$(record_python 3.11)

# The limit: perf record's route takes 5 to 8 KiB a sample (its 8 KiB
# stack copy): 2 MiB hold 250 to 400 samples, a third of a second of the
# program's 2 s of CPU; bpf mode unwinds as it records and compresses,
# about 20 bytes a sample here: 16 KiB hold about 800.  Either stops
# long before the program ends.
SIZE=2M
BYTES=2097152
BSIZE=16K
BBYTES=16384
# jit mode's perf record compresses (-z): about 100 bytes a sample, so
# busy.py's 2,000 samples fill some 200 KB, and 2M would never stop it
JSIZE=64K
JBYTES=65536

# A busy program with output and an exit status of its own, both to
# pass through untouched.  It does a fixed amount of work, 2 s of CPU
# here (not 3 s of wall time: a loaded machine slows the program and its
# samples alike, so the stop comes at the same share of its work); given
# a file name, it then works on until that file exists (a server that
# -p attaches to, still running when record has detached).
cat >busy.py <<-\EOF
	import os, sys, time
	def work():
	    return sum(i * i for i in range(1000))
	for _ in range(65000):
	    work()
	end = time.monotonic() + 120
	while len(sys.argv) > 1 and not os.path.exists(sys.argv[1]) and time.monotonic() < end:
	    work()
	print("busy: done")
	sys.exit(3)
EOF

# The slack past SIZE, by route, and why:
# - bpf mode: the walker's writer looks at the size before each record,
#   so the data ends at most one record past SIZE (a record's size is a
#   u16: under 64 KiB), then the header and features (about 1 KiB);
# - perf record: perf looks after each buffer it writes (up to one
#   ring buffer, perf_event_mlock_kb, 516 KiB by default), then empties
#   every CPU's ring buffer into the file before it stops, then writes
#   its header and features (build-ids); perf inject --jit adds the
#   jitted code's few records.  One buffer per CPU and one more, and
#   256 KiB for the rest.
slack_bpf=$((64 * 1024 + 64 * 1024))
mlock_kb=$(cat /proc/sys/kernel/perf_event_mlock_kb 2>/dev/null || echo 516)
slack_perf=$((($(nproc) + 1) * mlock_kb * 1024 + 256 * 1024))

# within LO VALUE HI: LO <= VALUE <= HI, said when not.
within() {
	awk -v lo="$1" -v v="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
		{ echo "$2 is not within [$1, $3]"; return 1; }
}

# stopped_early DIR ERR SLACK SIZE BYTES: record said once that it
# stopped at SIZE (BYTES bytes) (ERR), perf.data is within BYTES +
# SLACK, meta has the limit and when.
stopped_early() {
	cat "$2" &&
	test "$(grep -c "recording stopped at --max-size $4 after [0-9.]* s, perf.data holding [0-9]* bytes" "$2")" = 1 &&
	size=$(stat -c %s "$1/perf.data") &&
	test_diag "perf.data: $size bytes, $4 is $5" &&
	within $(($5 / 2)) $size $(($5 + $3)) &&
	test "$(meta "$1" max_size)" = $5 &&
	stop=$(meta "$1" max_size_stop) &&
	test_diag "stopped after $stop s" &&
	within 0.001 "$stop" 1000
}

# reported_early DIR SIZE BYTES: text, json and collapsed read it and
# say so; the stop came early in the program's run (the limit holds
# about a tenth of its samples: well before 0.7 of its time).
reported_early() {
	ppr report -i "$1" >text 2>text.err &&
	test_grep "^# warning:  recording stopped at --max-size $2 after [0-9.]+ s" text &&
	ppr report -i "$1" --format json >json 2>json.err &&
	python3 - "$(meta "$1" max_size_stop)" "$2" "$3" <<-\EOF &&
	import json, sys
	d = json.load(open("json"))
	s = d["session"]
	assert s["max_size"] == int(sys.argv[3]), s
	assert abs(s["max_size_stop"] - float(sys.argv[1])) < 1e-6, s
	assert 0 < s["max_size_stop"] < 0.7 * s["duration"], s
	assert any(w.startswith("recording stopped at --max-size %s after"
	                        % sys.argv[2])
	           for w in d["warnings"]), d["warnings"]
	assert d["samples"] > 0
	EOF
	ppr report -i "$1" --format collapsed >collapsed 2>collapsed.err &&
	test -s collapsed &&
	test_grep "warning: recording stopped at --max-size $2 after" collapsed.err &&
	! grep -q "lost" text json collapsed.err
}

test_expect_success BPF,PY "bpf mode: stops at --max-size $BSIZE, the program runs on to its own end" '
	test_expect_code 3 record_env "$PPR_BIN" record --mode bpf --python "$PY" \
		--max-size $BSIZE -o bpf busy.py >out 2>err &&
	test "$(cat out)" = "busy: done" &&
	test "$(meta bpf exit_status)" = 3 &&
	test_grep "recording stopped at --max-size $BSIZE .*: the program runs on, not recorded" err &&
	stopped_early bpf err $slack_bpf $BSIZE $BBYTES
'

test_expect_success BPF,PY 'bpf mode: every format says the profile ends early' '
	reported_early bpf $BSIZE $BBYTES &&
	ppr report -i bpf --format perf-data -o bpf.pd 2>pd.err &&
	test_grep "warning: recording stopped at --max-size $BSIZE after" pd.err
'

test_expect_success BPF,PY "bpf mode -p: stops at --max-size $BSIZE and detaches, the process runs on" '
	# the interpreter itself, not a launcher (the shims of pyenv are shell
	# scripts): its pid is the Python process from the start.  Each on
	# its own: a list that ends in & runs in the background whole.
	rm -f stop
	exe=$("$PY" -c "import sys; print(sys.executable)")
	"$exe" busy.py stop >p.out 2>p.err &
	pid=$!
	test -x "$exe" &&
	sleep 0.3 &&
	{
		record_env "$PPR_BIN" record -p $pid --max-size $BSIZE -o attached 2>err
		rst=$?
		kill -0 $pid
		alive=$?
		touch stop	# the program ends, whatever the rest says
		wait $pid
		st=$?
	} &&
	cat err &&
	test_diag "record: $rst, the program alive after it: $alive, its status: $st" &&
	test $rst = 0 && test $alive = 0 && test $st = 3 &&
	test_grep "recording stopped at --max-size $BSIZE .*: detached, the processes run on" err &&
	test "$(cat p.out)" = "busy: done" &&
	stopped_early attached err $slack_bpf $BSIZE $BBYTES &&
	ppr report -i attached >text &&
	test_grep "^# warning:  recording stopped at --max-size $BSIZE after [0-9.]+ s \(then detached: the processes ran on\)" text
'

test_expect_success PERF,PY "perf record (jit mode): its own --max-size, the program runs on to its own end" '
	test_expect_code 3 record_env "$PPR_BIN" record --mode jit --trampoline auto \
		--python "$PY" --max-size $JSIZE -o jit busy.py >out 2>err &&
	test "$(cat out)" = "busy: done" &&
	test "$(meta jit exit_status)" = 3 &&
	test_grep "recording stopped at --max-size $JSIZE .*: the program ran on to its end, not recorded" err &&
	! grep -i "lost" err &&
	stopped_early jit err $slack_perf $JSIZE $JBYTES &&
	reported_early jit $JSIZE $JBYTES
'

test_expect_success 'bad sizes are usage errors' '
	for bad in 0 -1 10Q 1.5M "" 99999999999999999999; do
		test_expect_code 125 ppr record --max-size "$bad" busy.py 2>err ||
			{ cat err; return 1; }
		test_grep "^pyperf-run record: --max-size needs a size in bytes \(more than 0\), or with K, M, G or T" err ||
			return 1
	done
'

test_expect_success '--help and the man page describe --max-size' '
	ppr record --help >help &&
	test_grep "^    --max-size <size> " help &&
	test_grep "^\.BI \\\\-\\\\-max\\\\-size " "$PPR_SRCDIR/man/pyperf-run-record.1"
'

test_done
