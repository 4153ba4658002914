#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor --pid: can the walker attach to a running process, and if not, what is missing'
. ./test-lib.sh

# start_py PY [nobody]: a Python that says "ready" and sleeps (as the
# user nobody with a second argument); its pid in $py_pid.  Stopped by
# stop_py.  setpriv and env exec the interpreter: $! is its pid.
start_py() {
	rm -f ready.out
	set -- "$1" -c 'import sys, time; sys.stdout.write("ready\n"); sys.stdout.flush(); time.sleep(60)' ${2:+nobody}
	if test "${4:-}" = nobody; then
		setpriv --reuid=65534 --regid=65534 --clear-groups env -- "$1" "$2" "$3" >ready.out 2>&1 &
	else
		"$1" "$2" "$3" >ready.out 2>&1 &
	fi
	py_pid=$!
	wait_for 30 grep -q ready ready.out ||
		{ stop_py; return 1; }
}
stop_py() {
	kill "$py_pid" 2>/dev/null
	wait "$py_pid" 2>/dev/null
	return 0
}

test_prereq_DEBIAN311() {
	py=$(ppr_distro_python 3.11) || { echo "no distribution python3.11"; return 1; }
}
test_prereq_PY313() {
	ppr_python 3.13 >/dev/null || { echo "no python3.13"; return 1; }
}
test_prereq_PY27() {
	ppr_python 2.7 >/dev/null || { echo "no python2.7"; return 1; }
}
test_prereq_NOBODY() {
	test_prereq_NOBODY_PPR &&
	ppr_nobody_python >/dev/null
}

test_expect_success DEBIAN311 'a running Debian python3.11: attaching would work, layout from tables' '
	py=$(ppr_distro_python 3.11) &&
	v=$("$py" -c "import platform; print(platform.python_version())") &&
	start_py "$py" &&
	ppr doctor --pid $py_pid >out 2>err; s=$?; stop_py &&
	cat out && test $s = 0 && ! test -s err &&
	test_grep "^  ok       python   python $v \(.*\), layout from tables$" out &&
	test_grep "^record -p $py_pid would walk frames in the kernel: python $v, layout from tables\.$" out
'

test_expect_success DEBIAN311 'the same in JSON' '
	py=$(ppr_distro_python 3.11) &&
	v=$("$py" -c "import platform; print(platform.python_version())") &&
	start_py "$py" &&
	ppr doctor --pid $py_pid --json >out 2>err; s=$?; stop_py &&
	test $s = 0 && ! test -s err &&
	test "$(json_get out ok)" = true &&
	test "$(json_get out pid)" = $py_pid &&
	test "$(json_get out python.status)" = ok &&
	test "$(json_get out python.version)" = "$v" &&
	test "$(json_get out python.free_threaded)" = false &&
	test "$(json_get out python.layout)" = tables &&
	test "$(json_get out kernel.seccomp)" = "$(sed -n "s/^Seccomp:[[:space:]]*//p" /proc/self/status)" &&
	test "$(json_get out kernel.perf_event_paranoid)" = "$(cat /proc/sys/kernel/perf_event_paranoid)"
'

test_expect_success PY313 'python 3.13: the layout from its _Py_DebugOffsets' '
	py=$(ppr_python 3.13) &&
	start_py "$py" &&
	ppr doctor --pid $py_pid --json >out; s=$?; stop_py &&
	test $s = 0 &&
	test "$(json_get out python.layout)" = debug-offsets &&
	test "$(json_get out python.version)" = "$("$py" -c "import platform; print(platform.python_version())")"
'

test_expect_success PY27 'python 2.7 is refused by name' '
	start_py "$(ppr_python 2.7)" &&
	ppr doctor --pid $py_pid >out; s=$?; stop_py &&
	cat out && test $s = 1 &&
	test_grep "^  problem  python   python 2\.7(\.[0-9]+)? is not supported: the walker reads CPython 3\.8 to 3\.15$" out &&
	test_grep "fix: run the program with CPython 3\.8 to 3\.15" out &&
	test_grep "^record -p $py_pid cannot attach: python 2\.7" out
'

test_expect_success 'a process that is not Python' '
	sleep 60 &
	pid=$! &&
	ppr doctor --pid $pid >out; s=$?; kill $pid; wait $pid
	cat out && test $s = 1 &&
	test_grep "^  problem  python   process $pid \(.*sleep\) is not a Python" out
'

test_expect_success 'a process that has exited' '
	true &
	pid=$! && wait $pid &&
	test_expect_code 1 ppr doctor --pid $pid --json >out &&
	test "$(json_get out ok)" = false &&
	json_get out checks >checks &&
	grep "process $pid does not exist (it has exited)" checks &&
	test "$(json_get out python.status)" = not-checked
'

test_expect_success 'usage: --pid takes a pid and no interpreter' '
	test_expect_code 2 ppr doctor --pid abc 2>err &&
	test_grep "needs a process id" err &&
	test_expect_code 2 ppr doctor --pid 1 --python python3 2>err &&
	test_grep "does not take" err
'

test_expect_success NOBODY 'as nobody, root'"'"'s python: ptrace refused, no BPF privileges, each with its fix' '
	py=$(ppr_nobody_python) &&
	start_py "$py" &&
	as_nobody "$PPR_BIN" doctor --pid $py_pid >out; s=$?; stop_py &&
	cat out && test $s = 1 &&
	test_grep "^  problem  ptrace   process $py_pid belongs to uid 0 \(gid 0\), not to the caller \(uid 65534, gid 65534\): the caller could not ptrace it$" out &&
	test_grep "^  problem  bpf      loading the walker.s BPF programs needs root, or CAP_BPF and CAP_PERFMON \(this process has neither\)" out &&
	test_grep "fix: run as root, or give pyperf-run the capabilities: sudo setcap cap_bpf,cap_perfmon,cap_sys_ptrace\+ep" out &&
	test_grep "^  -        python   not inspected" out
'

# A copy of the binary with file capabilities, as an administrator
# would install it to let users attach without root.
caps=cap_bpf,cap_perfmon,cap_sys_ptrace+ep
make_caps_copy() {
	cp "$PPR_BIN" ppr-caps &&
	chmod 755 ppr-caps "$TRASH" &&
	setcap "$caps" ppr-caps &&
	getcap ppr-caps | grep -q cap_sys_ptrace
}

test_expect_success NOBODY,SETCAP 'a setcap copy run by nobody refuses root'"'"'s python, though the kernel would let it read it' '
	make_caps_copy &&
	cp "$PPR_BUILD/tests/unit/t-pytarget" tp-caps && setcap "$caps" tp-caps &&
	py=$(ppr_nobody_python) &&
	start_py "$py" &&
	as_nobody ./ppr-caps doctor --pid $py_pid --json >out; s=$?
	# the kernel: the same capabilities read its memory
	as_nobody ./tp-caps inspect $py_pid >kernel; k=$?
	stop_py &&
	test $s = 1 &&
	test "$(json_get out caller.uid)" = 65534 &&
	test "$(json_get out caller.cap_sys_ptrace)" = true &&
	test "$(json_get out caller.cap_bpf)" = true &&
	test "$(json_get out target.uid)" = 0 &&
	json_get out checks >checks &&
	grep "not to the caller (uid 65534, gid 65534): the caller could not ptrace it" checks &&
	grep "capabilities given to pyperf-run do not extend to other users" checks &&
	grep "CAP_BPF and CAP_PERFMON: may load BPF programs" checks &&
	test "$(json_get out python.status)" = not-checked &&
	test $k = 0 && test_grep "^status ok$" kernel
'

test_expect_success NOBODY,SETCAP 'a setcap copy run by nobody may attach to nobody'"'"'s own python' '
	make_caps_copy &&
	py=$(ppr_nobody_python) &&
	start_py "$py" nobody &&
	as_nobody ./ppr-caps doctor --pid $py_pid >out; s=$?; stop_py &&
	cat out && test $s = 0 &&
	test_grep "^  ok       ptrace   process $py_pid belongs to the caller \(uid 65534\)" out &&
	test_grep "^  ok       bpf      CAP_BPF and CAP_PERFMON" out &&
	test_grep "^record -p $py_pid would walk frames in the kernel: python " out
'

test_done
