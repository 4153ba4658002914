#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record: a known CPU split on CPython 3.13 comes out right, with complete stacks, from a self-contained session'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

test_prereq_PY313() {
	PY313=$(record_python 3.13) || { echo "$PY313"; return 1; }
}
test_have_prereq PERF,PY313 && PY313=$(record_python 3.13)

test_expect_success PERF,PY313 'record the split program' '
	ls /tmp >tmp.before &&
	record_env "$PPR_BIN" record --trampoline auto -o split --python "$PY313" \
		"$FIX/record-split.py" 1.0 >out 2>err &&
	test_grep "^record-split: done$" out &&
	test_grep "^pyperf-run: jit mode, embedded trampoline \(python 3\.13\.[0-9]+ has no frame pointers; [0-9]+-byte stack dumps reach the innermost Python frame, whose context trampoline names every caller.*\)$" err &&
	test_grep "^pyperf-run: [0-9]+ samples from [0-9]+ processes \([0-9.]+% with complete stacks\) in .split." err
'

test_expect_success PERF,PY313 'the session has the documented layout, mode 0700' '
	for f in perf.data meta; do test -f split/$f || return 1; done &&
	for d in maps jit buildid; do test -d split/$d || return 1; done &&
	test "$(stat -c %a split)" = 700 &&
	! ls -A | grep "\.tmp-"
'

test_expect_success PERF,PY313 'meta says what was run and how' '
	test "$(meta split format)" = 1 &&
	test "$(meta split mode)" = jit &&
	test "$(meta split trampoline)" = embedded &&
	test "$(meta split exit_status)" = 0 &&
	test "$(meta split call_graph)" = "dwarf,$(meta split stack_size)" &&
	test "$(meta split event)" = cpu-clock &&
	meta split python_version | grep -q "^3\.13\." &&
	meta split command | grep -q "record-split\.py 1\.0$" &&
	test $(meta split samples) -gt 500 &&
	test $(meta split pids | wc -w) -ge 2 &&
	test -n "$(meta split helper_pid)" &&
	start=$(meta split start_time) && end=$(meta split end_time) &&
	python3 -c "import sys; s, e = map(float, sys.argv[1:]); sys.exit(not (0 < e - s < 60))" "$start" "$end"
'

# With CPython 3.13.0's own perf_jit, stacks in a second thread stop at
# one of its Python frames with perf's libunwind unwinder (its arenas lie
# in the thread's stack-dump window); the embedded trampoline, record's
# default, keeps them whole (t2003, t8000).
test_expect_success PERF,PY313 'every part has its share; every stack is complete' '
	session_script split >script.txt &&
	python3 "$FIX/record-stacks.py" gen_part Shape.area "main.<locals>.<lambda>" \
		thread_part child_part <script.txt >shares &&
	cat shares &&
	# expected: 0.20 s each, the lambda 0.15 s, of 0.95 s
	awk '"'"'
		$1 == "python_samples" { next }
		{
			want = ($1 ~ /lambda/) ? 15.8 : 21.1
			d = $2 - want; if (d < 0) d = -d
			if (d > 4) { print "share of " $1 " is " $2 ", not " want; bad = 1 }
			if ($3 < 95) {
				print $1 " stacks complete: " $3 "%"; bad = 1
			}
		}
		END { exit bad }'"'"' shares
'

test_expect_success PERF,PY313 'the stack size was enough' '
	awk "BEGIN { exit !($(meta split truncated) < 0.05) }" &&
	! test_grep "^hint: record again" err
'

test_expect_success PERF,PY313 'nothing of the run is left in /tmp, the cwd or ~/.debug' '
	no_tmp_leftovers split &&
	ls /tmp >tmp.after &&
	for p in $(meta split pids); do
		! grep -E "^(perf|jit|jitted)-$p[-.]" tmp.after || return 1
	done &&
	! test -e home/.debug &&
	test "$(ls -A home)" = "" &&
	test "$(ls -A | grep -v -e "^\." -e "^home$" -e "^out$" -e "^err$" \
		-e "^tmp\." -e "^split$" -e "^script\.txt$" -e "^shares$")" = ""
'

test_expect_success PERF,PY313 'the session gathered the context tables and maps of parent and child' '
	n=$(ls split/maps | sed -n "s/^ctx-\([0-9]*\)\.tab\.gz$/\1/p" | wc -l) &&
	test "$n" -ge 2 &&
	for t in split/maps/ctx-*.tab.gz; do
		p=${t##*/ctx-}; p=${p%.tab.gz}
		echo " $(meta split pids) " | grep -q " $p " &&
		test -f "split/maps/perf-$p.map" || return 1
	done &&
	# context trampolines need no jitdump and no perf inject
	test -z "$(ls split/jit)" && ! test -e split/perf.raw
'

test_expect_success PERF,PY313 'the build-id cache keeps only the vDSO' '
	! find split/buildid -name "libpython*" | grep . &&
	! find split/buildid -name "*kallsyms*" | grep . &&
	! find split/buildid -path "*jitted-*" | grep . &&
	find split/buildid -path "*vdso*" -name vdso | grep -q . &&
	test $(du -sk split/buildid | cut -f1) -lt 200
'

test_expect_success PERF,PY313 'a copy elsewhere still resolves every Python frame' '
	mkdir -p elsewhere &&
	cp -a split elsewhere/copy &&
	mv split split.away &&
	(cd / && session_script "$TRASH/elsewhere/copy") >copy.txt &&
	mv split.away split &&
	python3 "$FIX/record-stacks.py" child_part Shape.area <copy.txt >shares2 &&
	cat shares2 &&
	awk '"'"'$1 != "python_samples" && ($2 < 10 || $3 < 95) { bad = 1 } END { exit bad }'"'"' shares2 &&
	! grep -q "perf-[0-9]*\.map\]\|\[unknown\] (/tmp/jitted" copy.txt
'

test_prereq_REPORT() {
	ppr report -h 2>/dev/null | grep -q collapsed ||
		{ echo "report --format collapsed is not there yet"; return 1; }
}

test_expect_success PERF,PY313,REPORT 'report --format collapsed shows the parts' '
	ppr report -i split --format collapsed >collapsed &&
	for f in "gen_part (" "Shape.area (" "<lambda> (" "thread_part (" "child_part ("; do
		grep -q "$f" collapsed || { echo "no $f"; return 1; }
	done
'

test_done
