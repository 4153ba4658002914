#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='robustness: concurrent record runs, 50 forked children, spawned interpreters, 32 threads: no collisions, every function resolved'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-3,5-6
. "$PPR_SRCDIR/tests/fixtures/robust-lib.sh"

PROG=$FIX/robust-prog.py

test_prereq_PY() {
	PY=$(robust_any_python) || { echo "$PY"; return 1; }
}
test_have_prereq PERF,PY && PY=$(robust_any_python)

# missing_funcs FILE PREFIX N SCRIPT: the PREFIX_<i> (i < N) of SCRIPT
# without a sample in collapsed FILE; prints them, fails if any.
missing_funcs() {
	missing=
	i=0
	while test $i -lt "$3"; do
		test "$(samples_in "$1" "$2_$i" "$4")" -gt 0 ||
			missing="$missing $2_$i"
		i=$((i + 1))
	done
	test -z "$missing" || { echo "not resolved:$missing"; return 1; }
}

test_expect_success PERF,PY 'two record runs at once into the same directory' '
	cp "$PROG" a.py && cp "$PROG" b.py &&
	{ robust_env ppr record --trampoline auto -q -o same --python "$PY" a.py exit 3 0.5 \
		2>err.a & } &&
	pa=$! &&
	{ robust_env ppr record --trampoline auto -q -o same --python "$PY" b.py exit 4 0.5 \
		2>err.b & } &&
	pb=$! &&
	{ wait $pa; ca=$?; } && { wait $pb; cb=$?; } &&
	echo "a: $ca, b: $cb" && cat err.a err.b &&
	test $ca = 3 && test $cb = 4 &&
	no_tmp_sessions same &&
	test -d same && test -d same.old &&
	for s in same same.old; do
		collapsed $s $s.c || return 1
		na=$(samples_in $s.c busy_a a.py) &&
		nb=$(samples_in $s.c busy_a b.py) &&
		st=$(meta $s exit_status) &&
		echo "$s: status $st, a.py $na, b.py $nb" &&
		case $st in
		3) test "$na" -gt 30 && test "$nb" = 0 ;;
		4) test "$nb" -gt 30 && test "$na" = 0 ;;
		*) false ;;
		esac || return 1
	done &&
	test "$(meta same exit_status)" != "$(meta same.old exit_status)"
'

test_expect_success PERF,PY 'three record runs at once in different directories' '
	for n in 1 2 3; do
		cp "$PROG" p$n.py &&
		{ robust_env ppr record --trampoline auto -q -o d$n --python "$PY" p$n.py exit $n 0.4 \
			2>err.$n & } || return 1
	done &&
	wait &&
	for n in 1 2 3; do
		test "$(meta d$n exit_status)" = $n &&
		collapsed d$n d$n.c &&
		test "$(samples_in d$n.c busy_a p$n.py)" -gt 20 &&
		for m in 1 2 3; do
			test $m = $n || test "$(samples_in d$n.c busy_a p$m.py)" = 0 ||
				return 1
		done || return 1
	done
'

test_expect_success PERF,PY '50 forked short-lived children: every child resolved' '
	robust_env ppr record --trampoline auto -q -o fork -F 2000 --python "$PY" \
		"$PROG" fork 50 0.04 2>err &&
	pids=$(meta fork pids | wc -w) &&
	echo "processes: $pids" &&
	test "$pids" -ge 51 &&
	collapsed fork fork.c &&
	missing_funcs fork.c child 50 robust-prog.py &&
	ppr report -i fork --per-process --format collapsed >pp.c &&
	test "$(cut -d";" -f1 pp.c | sort -u | wc -l)" -ge 51
'

test_expect_success PERF,PY 'a map or dump file for every process, none left in /tmp' '
	mode=$(meta fork mode) &&
	if test "$(meta fork trampoline)" = embedded; then
		# context trampolines: a map and a context table each
		n=$(ls fork/maps | grep -c "^ctx-[0-9]*\.tab\.gz$") &&
		test "$(ls fork/maps | grep -c "^perf-[0-9]*\.map$")" = "$n"
	elif test "$mode" = jit; then
		n=$(ls fork/jit | grep -c "^jit-[0-9]*\.dump$")
	else
		n=$(ls fork/maps | grep -c "^perf-[0-9]*\.map$")
	fi &&
	echo "$mode mode: $n files" &&
	test "$n" -ge 51 &&
	start=$(meta fork start_time | cut -d. -f1) &&
	for p in $(meta fork pids); do
		for f in /tmp/perf-$p.map /tmp/jit-$p.dump; do
			# pids wrap around: an older file is not of this run
			! test -e "$f" || test "$(stat -c %Y "$f")" -lt "$start" ||
				{ echo "left: $f"; return 1; }
		done
	done
'

test_expect_success PERF,PY '10 spawned interpreters (subprocess): every child resolved' '
	robust_env ppr record --trampoline auto -q -o spawn -F 2000 --python "$PY" \
		"$PROG" spawn 10 0.08 2>err &&
	collapsed spawn spawn.c &&
	missing_funcs spawn.c child 10 robust-prog.py
'

test_expect_success PERF,PY '32 threads: every thread function resolved' '
	robust_env ppr record --trampoline auto -q -o thr -F 2000 --python "$PY" \
		"$PROG" threads 32 0.05 2>err &&
	collapsed thr thr.c &&
	missing_funcs thr.c thread 32 robust-prog.py &&
	ppr report -i thr --per-thread --format collapsed >pt.c &&
	test "$(cut -d";" -f1 pt.c | sort -u | wc -l)" -ge 33
'

test_done
