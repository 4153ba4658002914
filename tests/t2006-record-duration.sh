#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time: about 25 s: four recordings of 2 s, two of them with the 3 s
# grace before SIGTERM, in bpf mode and on perf record's route.
test_description='record --duration with a program: stopped after S seconds, SIGINT as from Ctrl-C, SIGTERM after the grace'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

# S, and the grace record gives a program after its SIGINT
# (RECORD_DURATION_GRACE, which --help states).
S=2
GRACE=3

test_prereq_PY() {
	PY=$(record_python 3.11) || { echo "$PY"; return 1; }
}
test_have_prereq PY && PY=$(record_python 3.11)

# A program that never ends: it spins, and writes when it started and
# when it ended (KeyboardInterrupt unwinds through the finally).
cat >spin.py <<-\EOF
	import sys, time
	start = time.monotonic()
	try:
	    while True:
	        sum(i * i for i in range(1000))
	finally:
	    with open(sys.argv[1], "w") as f:
	        f.write("%.3f\n" % (time.monotonic() - start))
EOF
# One that ignores SIGINT: only the SIGTERM after the grace ends it.
cat >deaf.py <<-\EOF
	import signal
	signal.signal(signal.SIGINT, signal.SIG_IGN)
	while True:
	    sum(i * i for i in range(1000))
EOF

# elapsed CMD...: run CMD, its wall time (s) into ./elapsed; CMD's status.
elapsed() {
	el_start_=$(date +%s.%N)
	"$@"
	el_st_=$?
	echo "$(date +%s.%N) $el_start_" | awk '{ printf "%.2f\n", $1 - $2 }' >elapsed
	return $el_st_
}

# within LO VALUE HI: LO <= VALUE <= HI, said when not.
within() {
	awk -v lo="$1" -v v="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
		{ echo "$2 is not within [$1, $3]"; return 1; }
}

# The span of a session's samples (first to last, s): report's json.
span() {
	ppr report -i "$1" --format json >"$1.json" &&
	json_get "$1.json" session.duration
}

# Bounds, S = 2:
# - the program's own lifetime is S plus its SIGINT's delivery: record's
#   clock starts when the program does, and looks every 20-100 ms; at
#   least S - 0.05 (its clock starts after record's), at most S + 0.5
#   (the SIGINT can wait for a CPU on a loaded machine: 0.5 s is five
#   scheduler slices of a busy 2-core machine, not a race);
# - the samples' span: the program's first sample is within ms of its
#   start, the last one before the stop; a program starved of the CPU
#   for its last 0.4 s would have an earlier last sample, and samples
#   after S + 0.3 would mean the recording went on past the stop;
# - record returns once the program has ended, plus its own finish
#   (perf inject, the judgement of the session): within S + GRACE of
#   the program's start for a program that ends at its SIGINT.
for route in bpf perf; do
	if test $route = bpf; then
		opts="--mode bpf" prereq=BPF,PY
	else
		opts="--trampoline auto" prereq=PERF,PY
	fi

	test_expect_success $prereq "$route: a program that never ends stops after $S s, SIGINT's status" '
		rm -f life &&
		elapsed test_expect_code 130 record_env "$PPR_BIN" record $opts -o $route \
			--python "$PY" --duration $S spin.py life 2>err &&
		cat err &&
		test_grep "duration $S s: recording stopped; the program \(pid [0-9]+\) gets SIGINT" err &&
		test_grep ! "SIGTERM" err &&
		test "$(meta $route exit_status)" = 130 &&
		test_diag "record took $(cat elapsed) s, the program $(cat life) s" &&
		within 1.95 "$(cat life)" 2.5 &&
		span=$(span $route) && test_diag "samples span $span s" &&
		within 1.6 "$span" 2.3 &&
		no_tmp_leftovers $route
	'

	test_expect_success $prereq "$route: a program deaf to SIGINT gets SIGTERM after the grace, and record says so" '
		elapsed test_expect_code 143 record_env "$PPR_BIN" record $opts -o $route-deaf \
			--python "$PY" --duration $S deaf.py 2>err &&
		cat err &&
		test_grep "gets SIGINT, as from Ctrl-C" err &&
		test_grep "warning: the program \(pid [0-9]+\) still ran $GRACE s after --duration.s SIGINT: SIGTERM sent to it" err &&
		test "$(meta $route-deaf exit_status)" = 143 &&
		test_diag "record took $(cat elapsed) s" &&
		within $(($S + $GRACE)) "$(cat elapsed)" 60 &&
		span=$(span $route-deaf) && test_diag "samples span $span s" &&
		within 1.6 "$span" 2.3 &&
		no_tmp_leftovers $route-deaf
	'
done

test_expect_success '--help states the grace the test uses, and the man page agrees' '
	ppr record --help >help &&
	test_grep "SIGTERM if it$" help &&
	test_grep "still runs $GRACE s later" help &&
	test_grep "^If it still runs $GRACE seconds later" "$PPR_SRCDIR/man/pyperf-run-record.1"
'

test_done
