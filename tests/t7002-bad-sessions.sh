#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='robustness: report on damaged sessions (cut perf.data, garbage maps and meta, odd files), record with a jitdump cut mid-record'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/robust-lib.sh"

PROG=$FIX/robust-prog.py

test_prereq_PY() {
	PY=$(robust_any_python) || { echo "$PY"; return 1; }
}
test_prereq_FPPY() {
	FPPY=$(ppr_fp_python) ||
		{ echo "no frame-pointer CPython (.ci/setup.d/fp-python.sh)"; return 1; }
}
test_have_prereq PERF,PY && PY=$(robust_any_python)
test_have_prereq FPPY && FPPY=$(ppr_fp_python)

# report_ok_or_clear SESSION: report on a damaged session either works
# (status 0, something on stdout) or fails with status 1 and one
# "pyperf-run report: ..." message; never a crash, a sanitizer report, a
# usage error or a hang, and no output file left on failure.
report_ok_or_clear() {
	rm -f rep.out rep.err
	timeout 120 "$PPR_BIN" report -i "$1" -o rep.out ${2:+--format "$2"} \
		2>rep.err
	code=$?
	case $code in
	0)
		test -s rep.out || { echo "status 0 but no output"; return 1; }
		;;
	1)
		grep "^pyperf-run report: " rep.err >/dev/null ||
			{ echo "status 1 without a message:"; cat rep.err; return 1; }
		! test -e rep.out ||
			{ echo "a failed report left rep.out"; return 1; }
		;;
	*)
		echo "report -i $1: status $code"
		cat rep.err
		return 1
		;;
	esac
	if test "$(grep -c . rep.err)" -gt 6; then
		echo "report -i $1: a stack of messages:"
		cat rep.err
		return 1
	fi
}
# valgrind/ASan-aware variant for the cases that must stay fast
report_any() {
	ppr report -i "$1" --format collapsed >rep.out 2>rep.err
	code=$?
	test $code = 0 || test $code = 1 ||
		{ echo "status $code"; cat rep.err; return 1; }
}

test_expect_success PERF,PY 'setup: a good jit-or-auto session' '
	robust_env ppr record --trampoline auto -q -o good --python "$PY" "$PROG" exit 0 0.3 &&
	collapsed good good.c &&
	test "$(samples_in good.c busy_a robust-prog.py)" -gt 30
'

test_expect_success PERF,PY 'perf.data cut at many places: never a crash' '
	size=$(stat -c %s good/perf.data) &&
	for cut in 0 100 $((size / 3)) $((size - 1)); do
		rm -rf cut && cp -r good cut &&
		head -c $cut good/perf.data >cut/perf.data &&
		report_ok_or_clear cut collapsed || { echo "cut at $cut"; return 1; }
	done
'

test_expect_success PERF,PY 'perf.data cut in half: what was recorded is reported' '
	rm -rf half && cp -r good half &&
	size=$(stat -c %s good/perf.data) &&
	head -c $((size / 2)) good/perf.data >half/perf.data &&
	timeout 120 "$PPR_BIN" report -i half --format collapsed >half.c 2>half.err;
	code=$? &&
	if test $code = 0; then
		test "$(samples_in half.c busy_a robust-prog.py)" -gt 0
	else
		test $code = 1 && test_grep "^pyperf-run report: .*perf.data" half.err
	fi
'

test_expect_success PERF,PY 'perf.data replaced: zeros, random bytes, a directory, a symlink, a fifo' '
	for kind in zeros random dir link fifo; do
		rm -rf k && cp -r good k && rm -f k/perf.data &&
		case $kind in
		zeros) head -c 100000 /dev/zero >k/perf.data ;;
		random) head -c 100000 /dev/urandom >k/perf.data ;;
		dir) mkdir k/perf.data ;;
		link) ln -s /etc/passwd k/perf.data ;;
		fifo) mkfifo k/perf.data ;;
		esac &&
		report_ok_or_clear k || { echo "perf.data: $kind"; return 1; }
	done
'

test_expect_success PERF,PY 'meta damaged: binary, huge, cut, NUL bytes' '
	for kind in binary huge cut nul; do
		rm -rf k && cp -r good k &&
		case $kind in
		binary) head -c 3000 /dev/urandom >k/meta ;;
		huge) { cat good/meta; printf "command="; head -c 2000000 /dev/zero |
			tr "\0" x; echo; } >k/meta ;;
		cut) head -c $(($(stat -c %s good/meta) / 2)) good/meta >k/meta ;;
		nul) tr "\n" "\0" <good/meta >k/meta ;;
		esac &&
		report_ok_or_clear k || { echo "meta: $kind"; return 1; }
	done
'

test_expect_success PERF,PY 'a foreign directory and empty maps/ jit/ buildid/' '
	mkdir -p foreign/sub && echo hello >foreign/file &&
	report_ok_or_clear foreign &&
	test_grep "^pyperf-run report: .*foreign" rep.err &&
	rm -rf k && cp -r good k && rm -rf k/maps k/jit k/buildid &&
	report_ok_or_clear k &&
	rm -rf k && cp -r good k && rm -rf k/maps && mkdir k/maps &&
	mkdir k/maps/perf-1.map && report_ok_or_clear k
'

test_expect_success FPPY,PERF 'setup: a perf-mode session (frame-pointer build)' '
	robust_env ppr record -q -o fp --mode perf --python "$FPPY" \
		"$PROG" exit 0 0.6 &&
	ls fp/maps/perf-*.map >maps &&
	test -s maps &&
	collapsed fp fp.c &&
	test "$(samples_in fp.c busy_a robust-prog.py)" -gt 50
'

test_expect_success FPPY,PERF 'map files with garbage lines still resolve their good lines' '
	rm -rf g && cp -r fp g &&
	for m in g/maps/perf-*.map; do
		{
			printf "garbage\n\n \t \nzzzz 10 bad hex\n"
			printf "ffffffffffffffff ffffffffffffffff huge\n"
			printf "0 0 empty-region\n-1 -1 negative\n10\n10 20\n"
			head -c 300 /dev/urandom | tr -d "\n"; echo
			head -c 100000 /dev/zero | tr "\0" 7; echo
			cat "$m"
			printf "7f00000000 \0nul-in-line\n"
			printf "7f0000"
		} >"$m.new" && mv "$m.new" "$m" || return 1
	done &&
	ppr report -i g --format collapsed >g.c 2>g.err &&
	a=$(samples_in fp.c busy_a robust-prog.py) &&
	b=$(samples_in g.c busy_a robust-prog.py) &&
	echo "busy_a: $a before, $b after" &&
	test "$a" = "$b"
'

test_expect_success FPPY,PERF 'a map file cut mid-line, binary, or missing' '
	rm -rf g && cp -r fp g &&
	for m in g/maps/perf-*.map; do
		head -c $(($(stat -c %s "$m") / 2)) "$m" >"$m.new" &&
		mv "$m.new" "$m" || return 1
	done &&
	report_ok_or_clear g collapsed &&
	rm -rf g && cp -r fp g &&
	for m in g/maps/perf-*.map; do
		head -c 5000 /dev/urandom >"$m" || return 1
	done &&
	report_ok_or_clear g collapsed &&
	rm -rf g && cp -r fp g && rm -f g/maps/* &&
	report_ok_or_clear g collapsed
'

# CPython 3.13's own perf_jit writes a jitdump to cut (the embedded
# trampoline's context mode writes none: its tables are tested below).
test_prereq_JIT_SESSION() {
	PY313=$(robust_python 3.13) ||
		{ echo "no 3.13 for CPython's own jitdump: $PY313"; return 1; }
}

test_expect_success PERF,PY,JIT_SESSION 'a jitdump cut in the middle of a record: status kept, reportable' '
	robust_env ppr record -q -o cutdump --trampoline native \
		--python "$(robust_python 3.13)" \
		"$PROG" truncate-jitdump 0 0.5 >out 2>err;
	code=$? &&
	cat out err &&
	test_grep "^truncated " out &&
	test $code = 0 &&
	test "$(meta cutdump exit_status)" = 0 &&
	collapsed cutdump c &&
	test -s c &&
	# what the cut dump no longer describes is said, not hidden
	test_grep "^pyperf-run record: warning: .*incomplete stacks" err &&
	test_grep -v "^pyperf-run record: [^w]" err
'

# A context table damaged after the recording: read up to the damage,
# the rest of the report stays right, and it says so.
test_expect_success PERF,PY 'a damaged context table: reportable, and said' '
	test -f good/meta &&
	rm -rf dctx && cp -r good dctx && rm -rf dctx/cache &&
	t=$(ls dctx/maps/ctx-*.tab.gz | head -n 1) &&
	test -n "$t" &&
	gzip -dc "$t" >plain.tab &&
	size=$(wc -c <plain.tab) &&
	head -c $((size / 2 + 3)) plain.tab >cut.tab &&
	printf "\377\377\377\377\010\000\000\000" >>cut.tab &&
	rm -f "$t" && cp cut.tab "${t%.gz}" &&
	ppr report -i dctx --format collapsed >c 2>err &&
	cat err &&
	test -s c &&
	test_grep "context table was damaged" err
'

test_done
