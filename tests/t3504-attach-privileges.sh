#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record -p and --mode bpf as an unprivileged user: each refusal with its reason and fix'
. ./test-lib.sh

# The user nobody runs pyperf-run (as_nobody, test-lib.sh).  Loading the
# frame walker needs root, or CAP_BPF and CAP_PERFMON; attaching to a
# process also needs the right to ptrace it, judged by the caller's REAL
# uid (lib/walker/access.c), so that a copy of pyperf-run given those
# capabilities with setcap still refuses another user's process.  The
# targets are real Python processes (walker-target.py serve), which must
# run on unharmed after each refusal.

PROG=$PPR_SRCDIR/tests/fixtures/walker-target.py
caps=cap_bpf,cap_perfmon,cap_sys_ptrace+ep
fix='run as root, or give pyperf-run the capabilities: sudo setcap cap_bpf,cap_perfmon,cap_sys_ptrace\+ep "\$\(command -v pyperf-run\)"'

test_prereq_NOBODY() {
	ppr --version | grep -q " bpf=yes" ||
		{ echo "pyperf-run was built without libbpf"; return 1; }
	test_prereq_NOBODY_PPR &&
	ppr_nobody_python >/dev/null
}
# With kernel.yama.ptrace_scope 1 or more, nobody could not ptrace its own
# process either, and that refusal would come first.
test_prereq_OWN_PTRACE() {
	s=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	test "$s" = 0 ||
		{ echo "kernel.yama.ptrace_scope = $s: a user may not ptrace its own processes"; return 1; }
}
# perf record as a user: perf_event_paranoid 2 or less
test_prereq_USER_PERF() {
	p=$(cat /proc/sys/kernel/perf_event_paranoid)
	test "$p" -le 2 ||
		{ echo "kernel.perf_event_paranoid = $p: users may not sample their own programs"; return 1; }
}

# start_target SECONDS [nobody]: walker-target.py serving (as nobody
# with a second argument) until unharmed ends it, or for SECONDS at most
# (a loaded machine can take seconds to load the walker: the target must
# outlive the attach); its pid in $tpid once it is ready; its output in
# target.out, its exit status in target.status once it ends.  setpriv
# and env exec the interpreter: the pid is the interpreter's, read from
# its "ready PID" line.
start_target() {
	rm -f target.out target.status target.stop
	py=$(ppr_nobody_python) || return 1
	if test "${2:-}" = nobody; then
		{ as_nobody env WALKER_TARGET_STOP="$TRASH/target.stop" \
			"$py" "$PROG" serve "$1" >target.out 2>&1; echo $? >target.status; } &
	else
		{ env WALKER_TARGET_STOP="$TRASH/target.stop" \
			"$py" "$PROG" serve "$1" >target.out 2>&1; echo $? >target.status; } &
	fi
	wait_for 30 grep -q "^ready " target.out &&
	tpid=$(sed -n "s/^ready //p" target.out) &&
	test "$(sed -n "s/^Uid:[[:space:]]*\([0-9]*\).*/\1/p" /proc/$tpid/status)" = \
		"$(test "${2:-}" = nobody && echo 65534 || echo 0)"
}

# unharmed: the target was neither stopped nor traced; told to end, it
# ran to its end, served and exited 0
unharmed() {
	test "$(sed -n "s/^TracerPid:[[:space:]]*//p" /proc/$tpid/status)" = 0 &&
	! grep -q "^State:[[:space:]]*[tT]" /proc/$tpid/status &&
	: >target.stop &&
	wait_for 30 test -s target.status &&
	test "$(cat target.status)" = 0 &&
	test_grep "^served [1-9][0-9]*$" target.out
}

# nothing_left NAME: no session NAME and no temporary directory of it
nothing_left() {
	! test -e out/$1 &&
	test -z "$(find out -maxdepth 1 -name "$1*")"
}

test_expect_success NOBODY 'setup: a directory nobody writes sessions to' '
	chmod 755 "$TRASH" &&
	mkdir out nohome &&
	chown nobody out nohome
'

test_expect_success NOBODY,OWN_PTRACE 'nobody, record -p of its own python: no BPF privileges, the fix named' '
	start_target 60 nobody &&
	as_nobody "$PPR_BIN" record -p $tpid --duration 1 -o out/s1 >o1 2>e1; s=$? &&
	cat e1 &&
	test $s = 125 &&
	test_grep "^pyperf-run record: cannot attach to process $tpid: loading the walker.s BPF programs needs root, or CAP_BPF and CAP_PERFMON \(this process has neither\); kernel\.unprivileged_bpf_disabled = " e1 &&
	test_grep "^hint: $fix$" e1 &&
	nothing_left s1 &&
	unharmed
'

test_expect_success NOBODY 'nobody, record -p of root'"'"'s python: no ptrace access, with why' '
	start_target 60 &&
	as_nobody "$PPR_BIN" record -p $tpid --duration 1 -o out/s2 >o2 2>e2; s=$? &&
	cat e2 &&
	test $s = 125 &&
	test_grep "^pyperf-run record: cannot attach to process $tpid: process $tpid belongs to uid 0 \(gid 0\), not to the caller \(uid 65534, gid 65534\): the caller could not ptrace it$" e2 &&
	test_grep "^hint: run pyperf-run as that user, or as root \(sudo\); capabilities given to pyperf-run do not extend to other users. processes$" e2 &&
	nothing_left s2 &&
	unharmed
'

# A copy of the binary with file capabilities, as an administrator
# would install it to let users attach without root.
test_expect_success NOBODY,SETCAP 'a setcap copy run by nobody refuses root'"'"'s python and records nothing' '
	cp "$PPR_BIN" ppr-caps &&
	chmod 755 ppr-caps &&
	setcap "$caps" ppr-caps &&
	getcap ppr-caps >getcap.out &&
	for c in cap_bpf cap_perfmon cap_sys_ptrace; do
		test_grep "$c" getcap.out || return 1
	done &&
	start_target 60 &&
	as_nobody ./ppr-caps record -p $tpid --duration 1 -o out/s3 >o3 2>e3; s=$? &&
	cat e3 &&
	test $s = 125 &&
	test_grep "^pyperf-run record: cannot attach to process $tpid: process $tpid belongs to uid 0 \(gid 0\), not to the caller \(uid 65534, gid 65534\): the caller could not ptrace it$" e3 &&
	test_grep "capabilities given to pyperf-run do not extend to other users. processes$" e3 &&
	nothing_left s3 &&
	unharmed
'

# The same copy can attach to nobody's own process: the refusal above
# is the uid check, not capabilities the copy lacks.
test_expect_success NOBODY,SETCAP,OWN_PTRACE 'the setcap copy run by nobody records nobody'"'"'s own python' '
	start_target 60 nobody &&
	as_nobody ./ppr-caps record -q -p $tpid --duration 1 -o out/s4 >o4 2>e4 &&
	test_grep "^mode=bpf$" out/s4/meta &&
	test_grep "^attached=$tpid$" out/s4/meta &&
	test "$(stat -c %U out/s4)" = nobody &&
	unharmed &&
	ppr report -i out/s4 --format collapsed >s4.col &&
	test_grep "serve_forever \(.*walker-target\.py:[0-9]+\);handle" s4.col
'

test_expect_success NOBODY 'nobody, record --mode bpf of a program: no BPF privileges, the fix named, the program not run' '
	as_nobody env HOME="$TRASH/nohome" "$PPR_BIN" record --mode bpf -o out/s5 \
		--python /usr/bin/python3 "$PROG" deep 10 0.2 >o5 2>e5; s=$? &&
	cat e5 &&
	test $s = 125 &&
	test_grep "^pyperf-run record: --mode bpf: loading BPF programs needs root, or CAP_BPF and CAP_PERFMON \(kernel\.unprivileged_bpf_disabled = [0-9]+\)$" e5 &&
	test_grep "^hint: $fix$" e5 &&
	! test -s o5 &&
	nothing_left s5
'

# The default mode is the trampoline's (jit or perf), which an
# unprivileged user may record with.  The embedded trampoline comes from
# a copy of the build tree's laid out as `make install` leaves it
# (trampoline/build.mk: readable by all): the build tree's own builds are
# readable by their owner only.
test_expect_success NOBODY,USER_PERF 'nobody, record with the default mode still works: jit or perf, not bpf' '
	cp -R "$PPR_BUILD/trampoline" lib &&
	chmod -R go-w,a+rX lib &&
	as_nobody env HOME="$TRASH/nohome" PYPERF_LIBDIR="$TRASH/lib" "$PPR_BIN" \
		record -o out/s6 --python /usr/bin/python3 "$PROG" deep 10 0.5 >o6 2>e6 &&
	cat e6 &&
	test_grep "^deep done 10$" o6 &&
	test_grep "^pyperf-run: (jit|perf) mode[ ,]" e6 &&
	test_grep -v "bpf mode" e6 &&
	test_grep "^mode=(jit|perf)$" out/s6/meta &&
	ppr report -i out/s6 --format collapsed >s6.col &&
	test_grep "main \([^)]*walker-target\.py[^)]*\);down \([^)]*\);.*;leaf \([^)]*walker-target\.py[^)]*\) [0-9]+$" s6.col
'

test_done
