#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time: about 2.5 minutes on a loaded 2-core machine (144 s here, for
# 24 s of CPU): twelve records of real programs, each the run, perf
# inject and the judgement of the session, and the waits of the Ctrl-C,
# perf-killed and concurrent runs.  (-F's cap used to run at the kernel's
# 100 kHz: minutes, unfinished, on a loaded VM; see below.)
test_description='record: the program runs as without pyperf-run (status, stdio, Ctrl-C), all target forms, rotation, concurrency'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

test_prereq_PY313() {
	PY313=$(record_python 3.13) || { echo "$PY313"; return 1; }
}
test_have_prereq PERF,PY313 && PY313=$(record_python 3.13)

test_expect_success PERF,PY313 'the exit status is the program'"'"'s (-c)' '
	test_expect_code 3 record_env "$PPR_BIN" record --trampoline auto -q --python "$PY313" \
		-c "import sys; sys.exit(3)" 2>err &&
	test "$(meta pyperf.data exit_status)" = 3 &&
	meta pyperf.data command | grep -q -- "-c .import sys; sys.exit(3).$"
'

# -F above kernel.perf_event_max_sample_rate is capped to it.  The
# kernel's own maximum is 100,000 by default, and at 100 kHz a machine
# with only software events (a VM) spends each 10 us period handling the
# last sample: Python's start-up ran for minutes (255,447 samples in 120
# s, unfinished, on a loaded 2-core VM).  As root, record sees a maximum
# of 2,000 instead, from a file mounted over the kernel's in a mount
# namespace of its own: the same cap, at a rate the program survives.
test_prereq_FAKE_MAX() {
	test "$(id -u)" = 0 || { echo "not root (a mount namespace)"; return 1; }
	echo 2000 >"$TRASH/fake-max" &&
	unshare -m sh -c "mount --bind \"\$1\" /proc/sys/kernel/perf_event_max_sample_rate &&
		test \"\$(cat /proc/sys/kernel/perf_event_max_sample_rate)\" = 2000" sh \
		"$TRASH/fake-max" || { echo "cannot mount over perf_event_max_sample_rate"; return 1; }
}
# with_max CMD...: CMD where record reads the maximum (2,000 when it can)
with_max() {
	if test_have_prereq FAKE_MAX; then
		unshare -m sh -c "mount --bind \"\$1\" /proc/sys/kernel/perf_event_max_sample_rate &&
			shift && exec \"\$@\"" sh "$TRASH/fake-max" "$@"
	else
		"$@"
	fi
}

test_expect_success PERF,PY313 'a signal death becomes 128+N; -F is capped; --perf-arg reaches perf' '
	max=$(with_max cat /proc/sys/kernel/perf_event_max_sample_rate) &&
	echo "kernel.perf_event_max_sample_rate seen by record: $max" &&
	mkdir -p "$TRASH/home" &&
	test_expect_code 143 with_max env HOME="$TRASH/home" XDG_CACHE_HOME="$REAL_CACHE" \
		"$PPR_BIN" record --trampoline auto -q --python "$PY313" \
		-F $((max + 1000)) --perf-arg=--mmap-pages=64 \
		-c "import os, signal; os.kill(os.getpid(), signal.SIGTERM)" 2>err &&
	test_grep "warning: -F $((max + 1000)) is above the kernel.s maximum" err &&
	test "$(meta pyperf.data exit_status)" = 143 &&
	test "$(meta pyperf.data frequency)" -le "$max"
'

test_expect_success PERF,PY313 'an existing session is kept as .old' '
	test -d pyperf.data.old &&
	test "$(meta pyperf.data.old exit_status)" = 3 &&
	test "$(meta pyperf.data exit_status)" = 143 &&
	! ls -A | grep "\.tmp-"
'

# The program's stderr comes first, byte for byte; record's own warnings
# (-q keeps them) may follow it, after the program has ended, and
# nothing else: no line of perf's.  This run of a few milliseconds
# takes 60 to 100 samples, and record judges a session from 50 on: on a
# loaded machine one sample at an address of libpython that no symbol
# covers was 2 % of 62, and its warning followed the program's line.
test_expect_success PERF,PY313 'stdin, stdout and stderr pass through byte for byte' '
	printf "line one\nbin\000\001\377 end" >in.bin &&
	record_env "$PPR_BIN" record --trampoline auto -q -o io --python "$PY313" -c "
import sys
data = sys.stdin.buffer.read()
sys.stdout.buffer.write(data)
sys.stderr.write(\"to stderr\\n\")
" <in.bin >out.bin 2>err &&
	cmp in.bin out.bin &&
	printf "to stderr\n" >expect &&
	n=$(wc -c <expect) &&
	head -c $n err >err.program &&
	test_cmp expect err.program &&
	tail -c +$((n + 1)) err >err.own &&
	cat err.own &&
	! grep -v -E "^(pyperf-run record: warning: |hint: )" err.own
'

test_expect_success PERF,PY313 '-m runs a module with its arguments' '
	mkdir -p mods &&
	printf "import sys\nprint(\"recmod\", sys.argv[1:])\n" >mods/recmod.py &&
	(cd mods && record_env "$PPR_BIN" record --trampoline auto -q -o ../msession \
		--python "$PY313" -m recmod a "b c") >out 2>err &&
	test_grep "^recmod \[.a., .b c.\]$" out &&
	meta msession command | grep -q -- "-m recmod a .b c.$"
'

test_expect_success PERF,PY313 '-- command: a shell script that starts Python is profiled' '
	cat >run.sh <<-EOF &&
	#!/bin/sh
	exec "$PY313" "$FIX/record-small.py" 0.4
	EOF
	chmod +x run.sh &&
	record_env "$PPR_BIN" record --trampoline auto -o cmd --python "$PY313" -- ./run.sh >out 2>err &&
	test_grep "^record-small: done$" out &&
	test "$(meta cmd exit_status)" = 0 &&
	session_script cmd >script.txt &&
	python3 "$FIX/record-stacks.py" foo bar <script.txt >shares &&
	cat shares &&
	awk '"'"'$1 == "bar" && $2 > 90 { ok = 1 } END { exit !ok }'"'"' shares &&
	no_tmp_leftovers cmd
'

test_expect_success PERF,PY313 'Ctrl-C reaches the program; the recording so far is kept' '
	setsid "$PPR_BIN" record --trampoline auto -q -o intr --python "$PY313" \
		"$FIX/record-spin.py" >out 2>err &
	pid=$! &&
	wait_for 30 grep -q ready out &&
	env kill -INT -- -$pid &&
	{ wait $pid; code=$?; } &&
	echo "exit $code" &&
	test $code = 130 &&
	test_grep "^interrupted$" out &&
	test_grep "KeyboardInterrupt" err &&
	test "$(meta intr exit_status)" = 130 &&
	test "$(meta intr samples)" -gt 100 &&
	session_script intr >script.txt &&
	grep -q "spin (.*record-spin.py)" script.txt &&
	no_tmp_leftovers intr
'

test_expect_success PERF,PY313 'two runs at once in different directories keep apart' '
	mkdir -p a b
	(cd a && record_env "$PPR_BIN" record --trampoline auto -q --python "$PY313" \
		"$FIX/record-small.py" 0.4 >out 2>err) &
	pa=$! &&
	(cd b && record_env "$PPR_BIN" record --trampoline auto -q --python "$PY313" \
		"$FIX/record-small.py" 0.4 >out 2>err) &
	pb=$! &&
	wait $pa && wait $pb &&
	for d in a b; do
		test_grep "^record-small: done$" $d/out || return 1
		for f in $d/pyperf.data/jit/jit-*.dump; do
			p=${f##*/jit-}; p=${p%.dump}
			echo " $(meta $d/pyperf.data pids) " | grep -q " $p " || {
				echo "$f is not of this run"; return 1; }
		done
		no_tmp_leftovers $d/pyperf.data || return 1
	done &&
	for p in $(meta a/pyperf.data pids); do
		! echo " $(meta b/pyperf.data pids) " | grep -q " $p " || return 1
	done
'

# CPython's own trampoline: context trampolines (the default) need only
# the bytes down to the innermost Python frame, 1 KiB often enough.
test_expect_success PERF,PY313 'a stack dump too small is noticed; a size is advised only when measured, and then it helps' '
	record_env "$PPR_BIN" record --trampoline auto -q -o small --stack-size 1024 \
		--trampoline native \
		--python "$PY313" "$FIX/record-small.py" 0.3 >out 2>err &&
	cat err &&
	test_grep "^pyperf-run record: warning: .*1024-byte stack dump" err &&
	test "$(meta small stack_size)" = 1024 &&
	awk "BEGIN { exit !($(meta small truncated) > 0.5) }" &&
	size=$(sed -n "s/^hint: record again with --stack-size \([0-9]*\): .*/\1/p" err) &&
	if test -n "$size"; then
		test "$size" -gt 1024 && test "$size" -le 65528 &&
		record_env "$PPR_BIN" record --trampoline auto -q -o bigger --stack-size "$size" \
			--trampoline native --python "$PY313" \
			"$FIX/record-small.py" 0.3 >out 2>err2 &&
		awk "BEGIN { exit !($(meta bigger truncated) < 0.05) }"
	fi
'

test_expect_success PERF,PY313 'perf killed mid-recording: the samples it wrote stay reportable' '
	cat >spin.py <<-\EOF &&
	import os, sys, time
	def busy():
	    s = 0
	    for i in range(20000):
	        s += i * i
	    return s
	with open("spin.pid", "w") as f:
	    f.write("%d\n" % os.getpid())
	warm = time.process_time() + 1
	while time.process_time() < warm:
	    busy()
	print("ready", flush=True)
	end = time.monotonic() + 30
	try:
	    while time.monotonic() < end:
	        busy()
	except KeyboardInterrupt:
	    sys.exit(5)
	EOF
	{ record_env "$PPR_BIN" record --trampoline auto -q -o killed --python "$PY313" \
		spin.py >out 2>err & } &&
	rp=$! &&
	wait_for 30 grep -q ready out &&
	pp=$(ps -eo pid=,args= | grep -F "$TRASH/killed.tmp-" |
		grep -E "^ *[0-9]+ [^ ]*perf .*record" | awk "{ print \$1; exit }") &&
	test -n "$pp" &&
	kill -KILL $pp &&
	wait_for 10 reaped $pp &&
	kill -INT "$(cat spin.pid)" ;
	{ wait $rp; code=$?; } &&
	cat err &&
	test $code = 5 &&
	test_grep "perf record killed by signal 9" err &&
	test_grep "did not finish .killed/perf.data. \(it was killed\): keeping" err &&
	"$PPR_BIN" report -i killed --format collapsed >c &&
	grep -q "busy (.*spin.py)" c
'

test_expect_success PERF,PY313 'interpreters started by subprocess: every child unwound' '
	cat >spawn.py <<-\EOF &&
	import subprocess, sys, time
	def child_work():
	    s = 0
	    end = time.thread_time() + 0.15
	    while time.thread_time() < end:
	        s += sum(range(1000))
	if len(sys.argv) > 1:
	    child_work()
	    sys.exit(0)
	ps = [subprocess.Popen([sys.executable, __file__, "c"]) for i in range(4)]
	sys.exit(any(p.wait() for p in ps))
	EOF
	record_env "$PPR_BIN" record --trampoline auto -q -o spawned -F 2000 --python "$PY313" \
		spawn.py 2>err &&
	"$PPR_BIN" report -i spawned --per-process --format collapsed >c &&
	n=$(grep "child_work (.*spawn.py)" c | cut -d";" -f1 | sort -u | wc -l) &&
	echo "children with child_work: $n" &&
	test "$n" = 4
'

test_expect_success PERF,PY313 'nothing was written to ~/.debug or the current directory' '
	! test -e home/.debug &&
	test "$(ls -A home)" = "" &&
	! ls -A | grep -E "^(perf\.data|jitted-|jit-|perf-)"
'

test_done
