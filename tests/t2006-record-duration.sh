#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time: about 25 s: four recordings of 1 s, two of them with the 3 s
# grace before SIGTERM, in bpf mode and on perf record's route.
test_description='record --duration with a program: stopped after S seconds, SIGINT as from Ctrl-C, SIGTERM after the grace'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

# record runs the program with SIGINT as it found it: a test run in the
# background of a non-interactive shell (a suite started with &) has it
# ignored, and the program would then be deaf to --duration's SIGINT.
# The program starts as from a terminal: SIGINT at its default.
SIGDFL=$PPR_SRCDIR/tests/fixtures/robust-sigdfl.py

# S, and the grace record gives a program after its SIGINT
# (RECORD_DURATION_GRACE, which --help states).
S=1
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

# plus A B: A + B
plus() {
	awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'
}

# The span of a session's samples, first to last (s), as perf reads
# them (report's json has the recording's whole time, perf's start and
# end included).
span() {
	perf script -i "$1/perf.data" -F time 2>/dev/null >"$1.times" &&
	awk '{ t = $1 + 0; if (NR == 1) f = t; l = t }
	     END { if (NR < 2) exit 1; printf "%.3f\n", l - f }' "$1.times"
}

# Bounds:
# - the program's own lifetime, from its script's first line: S less
#   the interpreter's start-up (record's clock starts at its exec; 0.1
#   to 0.3 s measured on a loaded machine), plus its SIGINT's delivery
#   (record looks every 20 to 100 ms): S - 0.5 to S + 0.5, 0.5 s being
#   five scheduler slices of a busy 2-core machine, not a race;
# - the samples' span: the first sample is within ms of the exec, the
#   last one before the stop; a program starved of the CPU for its last
#   0.4 s would have an earlier last sample, and samples after S + 0.3
#   would mean the recording went on past the stop (perf record's
#   routes record until the program's end: S + GRACE for a program deaf
#   to SIGINT, and its SIGTERM's delivery, to + 0.5);
# - record returns within S + GRACE (the issue's bound) for a program
#   that ends at its SIGINT: its start-up, S, and its own finish (perf
#   inject, the judgement of the session).
for route in bpf perf; do
	# bpf mode stops recording at S; perf record records its workload
	# until it ends, the grace included (S + GRACE for a deaf program)
	if test $route = bpf; then
		opts="--mode bpf" prereq=BPF,PY
		deaf_lo=$(plus $S -0.4) deaf_hi=$(plus $S 0.3)
	else
		opts="--trampoline auto" prereq=PERF,PY
		deaf_lo=$(plus $S $GRACE) deaf_lo=$(plus $deaf_lo -0.4)
		deaf_hi=$(plus $S $GRACE) deaf_hi=$(plus $deaf_hi 0.5)
	fi

	test_expect_success $prereq "$route: a program that never ends stops after $S s, SIGINT's status" '
		rm -f life &&
		{ elapsed test_expect_code 130 record_env python3 "$SIGDFL" "$PPR_BIN" record $opts -o $route \
			--python "$PY" --duration $S spin.py life 2>err ||
			{ cat err; false; }; } &&
		cat err &&
		test_grep "duration $S s: the program \(pid [0-9]+\) gets SIGINT, as from Ctrl-C" err &&
		! grep SIGTERM err &&
		test "$(meta $route exit_status)" = 130 &&
		test_diag "record took $(cat elapsed) s, the program $(cat life) s" &&
		within 0 "$(cat elapsed)" $(($S + $GRACE)) &&
		within $(plus $S -0.5) "$(cat life)" $(plus $S 0.5) &&
		span=$(span $route) && test_diag "samples span $span s" &&
		within $(plus $S -0.4) "$span" $(plus $S 0.3) &&
		no_tmp_leftovers $route
	'

	test_expect_success $prereq "$route: a program deaf to SIGINT gets SIGTERM after the grace, and record says so" '
		{ elapsed test_expect_code 143 record_env python3 "$SIGDFL" "$PPR_BIN" record $opts -o $route-deaf \
			--python "$PY" --duration $S deaf.py 2>err ||
			{ cat err; false; }; } &&
		cat err &&
		test_grep "gets SIGINT, as from Ctrl-C" err &&
		test_grep "warning: the program \(pid [0-9]+\) still ran $GRACE s after --duration.s SIGINT: SIGTERM sent to it" err &&
		test "$(meta $route-deaf exit_status)" = 143 &&
		test_diag "record took $(cat elapsed) s" &&
		within $(($S + $GRACE)) "$(cat elapsed)" 60 &&
		span=$(span $route-deaf) && test_diag "samples span $span s" &&
		within $deaf_lo "$span" $deaf_hi &&
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
