#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='robustness: faults (program killed or crashing, Ctrl-C while post-processing and reporting, perf killed, /tmp read-only, disk full, unprivileged user)'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-2,4-8
. "$PPR_SRCDIR/tests/fixtures/robust-lib.sh"

PROG=$FIX/robust-prog.py

test_prereq_PY() {
	PY=$(robust_any_python) || { echo "$PY"; return 1; }
}
test_prereq_MOUNTNS() {
	test "$(id -u)" = 0 || { echo "not root (needed to mount)"; return 1; }
	command -v unshare >/dev/null || { echo "no unshare"; return 1; }
	unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /mnt' ||
		{ echo "cannot mount a tmpfs in a mount namespace"; return 1; }
}
test_prereq_NOBODY() {
	test "$(id -u)" = 0 || { echo "not root (needed to become nobody)"; return 1; }
	command -v setpriv >/dev/null || { echo "no setpriv"; return 1; }
	p=$(cat /proc/sys/kernel/perf_event_paranoid)
	test "$p" -le 2 ||
		{ echo "perf_event_paranoid is $p: no user-space profiling"; return 1; }
}
# An interpreter record can use that the user nobody can run too (those
# under root's home are not).
test_prereq_NOBODY_PY() {
	NOBODY_PY=$(ppr_nobody_python usable) || { echo "$NOBODY_PY"; return 1; }
}
test_have_prereq PERF,PY && PY=$(robust_any_python)

# child_named PID NAME: the pid of PID's child whose command is NAME.
child_named() {
	ps -o pid= -o comm= --ppid "$1" 2>/dev/null | awk -v n="$2" '$2 == n { print $1; exit }'
}

# gone PID...: none of these processes is still running (zombies are
# gone: their parent died and init reaps them).
gone() {
	for p in "$@"; do
		st=$(ps -o stat= -p "$p" 2>/dev/null)
		if test -n "$st" && test "${st#Z}" = "$st"; then
			echo "process $p is still running: $(ps -o args= -p "$p")"
			return 1
		fi
	done
}

# recording_perf PID: the pid of record PID's child perf record writing
# the session (into its .tmp- directory; not the question record asks
# perf first, perf record --dry-run --no-bpf-event)
recording_perf() {
	ps -o pid=,args= --ppid "$1" | grep -F ".tmp-" |
		grep -E "^ *[0-9]+ [^ ]*perf .*record" | awk "{ print \$1; exit }"
}

# seen_recording PID: record PID's recording perf runs; its pid goes into
# the file "perf.pid".  Done (the file not written) if record has ended.
seen_recording() {
	if gone "$1" >/dev/null; then
		echo "record $1 ended before its perf record was seen"
		return 0
	fi
	rp_=$(recording_perf "$1") &&
	test -n "$rp_" &&
	echo "$rp_" >perf.pid
}

# perf_child PID: done when PID has ended, or when it has a child perf,
# whose pid then goes into the file "perf.pid".
perf_child() {
	gone "$1" >/dev/null && return 0
	pc_=$(child_named "$1" perf)
	test -n "$pc_" && echo "$pc_" >perf.pid
}

# no_process_naming TEXT: no process has TEXT in its command line.
no_process_naming() {
	! ps -eo args= | grep -F "$1" | grep -v grep
}

# perf_recording_in DIR: the pid of the perf record writing into a
# temporary session next to DIR.
perf_recording_in() {
	ps -eo pid=,args= | grep -F "$TRASH/$1.tmp-" |
		grep -E "^ *[0-9]+ [^ ]*perf .*record" | awk "{ print \$1; exit }"
}

test_expect_success PERF,PY 'the program killed by SIGKILL: 137, recorded samples reported' '
	robust_env ppr record --trampoline auto -q -o k9 --python "$PY" "$PROG" signal KILL 0.4 2>err;
	code=$? &&
	test $code = 137 &&
	test "$(meta k9 exit_status)" = 137 &&
	collapsed k9 c &&
	test "$(samples_in c busy_a robust-prog.py)" -gt 30 &&
	no_tmp_sessions k9
'

test_expect_success PERF,PY 'the program crashing with SIGSEGV: 139, recorded samples reported' '
	robust_env ppr record --trampoline auto -q -o segv --python "$PY" "$PROG" segv x 0.4 2>err;
	code=$? &&
	test $code = 139 &&
	test "$(meta segv exit_status)" = 139 &&
	collapsed segv c &&
	test "$(samples_in c busy_b robust-prog.py)" -gt 30
'

# Ctrl-C between the end of perf record and record's own end.  That
# window is short (the native read-back is quick), so it is made to stay
# open: once the recording's perf runs, record itself is stopped
# (SIGSTOP; perf and the program go on), and once perf has ended, SIGINT
# goes to record's process group and record is continued.  The signal is
# then pending when record resumes after perf's end, whatever it does
# next: it may end with 130 (interrupted) or finish (0) with a session
# that is whole; either way nothing is left behind.
test_expect_success PERF,PY 'Ctrl-C while record post-processes: no crash, no leftovers' '
	mkdir -p home &&
	rm -rf ci perf.pid &&
	env HOME="$TRASH/home" $SIGDFL --setsid "$PPR_BIN" record --trampoline auto -q -o ci \
		--python "$PY" -F 4000 "$PROG" exit 0 1.5 >out 2>err &
	rp=$! &&
	wait_for -i 0.01 60 seen_recording $rp &&
	test -s perf.pid &&
	kill -STOP $rp &&
	pp=$(cat perf.pid) &&
	echo "record $rp stopped while its perf record $pp runs" &&
	wait_for 60 gone $pp &&
	env kill -INT -- "-$rp" &&
	kill -CONT $rp &&
	{ wait $rp; code=$?; } &&
	echo "record exited $code" &&
	cat err &&
	not_crashed $code 130 &&
	case $code in
	0) collapsed ci c && test "$(samples_in c busy_a robust-prog.py)" -gt 30 ;;
	130) test_grep "^pyperf-run record: .*(interrupt|Interrupt)" err ;;
	*) echo "unexpected status $code"; false ;;
	esac &&
	no_tmp_sessions ci &&
	wait_for 10 no_process_naming "$TRASH/ci.tmp-"
'

test_expect_success PERF,PY 'Ctrl-C during report: stops, no partial output file, perf gone' '
	test -d ci || robust_env ppr record --trampoline auto -q -o ci --python "$PY" -F 4000 \
		"$PROG" exit 0 1.5 &&
	ppr report -i ci --format collapsed >full.txt &&
	# the perf script reader, without the session cache, so that perf
	# script runs
	rm -rf ci/cache &&
	$SIGDFL --setsid "$PPR_BIN" report --reader perf-script -i ci -o rep.txt \
		--format collapsed 2>err &
	rp=$! &&
	rm -f perf.pid &&
	wait_for -i 0.01 30 perf_child $rp &&
	pp=$(cat perf.pid 2>/dev/null || :) &&
	if test -z "$pp"; then
		wait $rp
		echo "report finished before perf was seen (status $?)"
		false
	fi &&
	# it may have ended between the look and the signal: then it must
	# be complete (below)
	{ env kill -INT -- -$rp 2>/dev/null ||
		echo "report ended before the signal"; } &&
	{ wait $rp; code=$?; } &&
	echo "report exited $code" && cat err &&
	not_crashed $code 130 &&
	if test $code = 0; then
		echo "not interrupted: the report must then be complete" &&
		test "$(total_samples rep.txt)" = "$(total_samples full.txt)"
	else
		! test -e rep.txt || { echo "partial rep.txt left"; false; }
	fi &&
	wait_for 10 gone $pp
'

test_expect_success PERF,PY 'perf killed while recording: clear message, no hang, what was recorded kept' '
	mkdir -p home &&
	env HOME="$TRASH/home" ROBUST_PIDFILE="$TRASH/spin.pid" \
		"$PPR_BIN" record --trampoline auto -q -o pk --python "$PY" "$PROG" spin x 0.9 >out 2>err &
	rp=$! &&
	wait_for 30 grep -q ready out &&
	pp=$(perf_recording_in pk) &&
	echo "perf is $pp" &&
	test -n "$pp" &&
	kill -KILL $pp &&
	wait_for 10 reaped $pp &&
	{ kill -INT "$(cat spin.pid)" 2>/dev/null || :; } &&
	{ wait $rp; code=$?; } &&
	echo "record exited $code" && cat err &&
	not_crashed $code 130 &&
	case $code in
	125|130) ;;
	*) echo "neither the program'"'"'s status (130) nor 125"; false ;;
	esac &&
	test_grep "^pyperf-run record: .*perf.*(killed|signal 9)" err &&
	no_tmp_sessions pk &&
	test -d pk &&
	{ ppr report -i pk --format collapsed >c 2>rerr; rc=$?; } &&
	cat rerr &&
	{ test $rc = 0 || test $rc = 1; }
'

# Mounting over /tmp would hide the tree under test when it lives there.
test_prereq_TREE_NOT_IN_TMP() {
	case "$PPR_BUILD/$TRASH/$PY" in
	/tmp/*|*/tmp/*) echo "the tree under test or the interpreter is in /tmp"; return 1 ;;
	esac
}

test_expect_success PERF,PY,MOUNTNS,TREE_NOT_IN_TMP '/tmp read-only and TMPDIR missing: recording still works' '
	robust_env unshare -m sh -c "
		mount -t tmpfs -o ro,size=1m tmpfs /tmp &&
		\"\$0\" record -q --trampoline auto -o ro --python \"\$1\" \"\$2\" exit 0 0.4
	" "$PPR_BIN" "$PY" "$PROG" 2>err &&
	collapsed ro c &&
	test "$(samples_in c busy_a robust-prog.py)" -gt 30 &&
	TMPDIR=/nonexistent robust_env ppr record --trampoline auto -q -o ro2 --python "$PY" \
		"$PROG" exit 0 0.4 2>err2 &&
	collapsed ro2 c2 &&
	test "$(samples_in c2 busy_a robust-prog.py)" -gt 30
'

test_expect_success PERF,PY,MOUNTNS 'disk full: the program'"'"'s status, the reason said, no leftovers' '
	mkdir full &&
	robust_env unshare -m sh -c "
		mount -t tmpfs -o size=1m tmpfs full &&
		cd full &&
		\"\$0\" record -q --trampoline auto -o s --python \"\$1\" \"\$2\" exit 7 1.0
		echo \$? >../code
		ls -A >../ls
		if test -d s; then
			timeout 120 \"\$0\" report -i s --format collapsed >/dev/null
			echo \$? >../rcode
		fi
	" "$PPR_BIN" "$PY" "$PROG" 2>err;
	cat err &&
	echo "record exited $(cat code); report: $(cat rcode 2>/dev/null || echo "not run"); left there: $(cat ls | tr "\n" " ")" &&
	test "$(cat code)" = 7 &&
	test_grep "No space left on device" err &&
	! grep "\.tmp-" ls &&
	if test -f rcode; then
		test "$(cat rcode)" = 0 || test "$(cat rcode)" = 1
	fi
'

# The frame walker writes its perf.data itself: a failed write ends the
# recording, not the program, whose status record still ends with.  (It
# unwinds as it records and compresses: about 20 bytes a sample, too
# few to fill a disk soon: once its perf.data is there, a file fills
# what is left.)
test_expect_success PY,MOUNTNS,BPF 'disk full, bpf mode: the program runs to its end, its status, no leftovers' '
	mkdir fullb &&
	robust_env unshare -m sh -c "
		mount -t tmpfs -o size=1m tmpfs fullb || exit 1
		cd fullb || exit 1
		# (the file below fills this tmpfs, never another disk)
		test \"\$(stat -f -c %T .)\" = tmpfs || exit 1
		{ \"\$0\" record --mode bpf -o s --python \"\$1\" \"\$2\" exit 7 3.0 >../outb
		  echo \$? >../codeb; } &
		n=0
		while ! ls s.tmp-*/perf.data.tmp-* >/dev/null 2>&1 && test \$n -lt 200; do
			sleep 0.05; n=\$((n + 1))
		done
		cat /dev/zero >fill 2>/dev/null
		wait
		ls -A | grep -v \"^fill\$\" >../lsb
	" "$PPR_BIN" "$PY" "$PROG" 2>errb;
	cat errb &&
	test "$(cat codeb)" = 7 &&
	test_grep "^pyperf-run record: cannot write .*No space left on device" errb &&
	test_grep "^hint: free some space there" errb &&
	test_grep "^pyperf-run: no longer recording: waiting for the program to end" errb &&
	! test -s lsb
'

test_expect_success PERF,NOBODY,NOBODY_PY 'an unprivileged user (paranoid <= 2) records its own program' '
	mkdir -m 777 nb &&
	cp "$PROG" nb/p.py && chmod 644 nb/p.py &&
	cp -r "$PPR_BUILD/trampoline" nb/lib && chmod -R a+rX nb/lib &&
	(cd nb && as_nobody \
		env HOME="$PWD" XDG_CACHE_HOME="$PWD/cache" PYPERF_LIBDIR="$PWD/lib" \
		"$PPR_BIN" record -q -o s --python "$NOBODY_PY" p.py exit 0 0.4) 2>err;
	code=$? &&
	cat err &&
	test $code = 0 &&
	test "$(stat -c %U:%a nb/s)" = "nobody:700" &&
	# no BPF privileges: --mode auto keeps perf record'"'"'s route
	test_grep "^mode=(jit|perf)$" nb/s/meta &&
	(cd nb && as_nobody \
		env HOME="$PWD" "$PPR_BIN" report -i s --format collapsed) >c &&
	test "$(samples_in c busy_a p.py)" -gt 30
'

test_done
