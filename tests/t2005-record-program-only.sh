#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# perf's workload is record's exec helper (pyperf-run itself), enabled
# on its exec; the helper starts the program in a process of its own
# (vfork), which runs the helper's last system calls until it execs.
# The profile holds the program only, whatever the event: no frame of
# pyperf-run's, no process or thread named pyperf-run.  The report
# drops the helper's pid (meta helper_pid) and the program's first
# process before its exec (meta program_pid).
test_description='record: the profile holds the program, not pyperf-run'
. ./test-lib.sh
perf_buildids_in_trash
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

test_prereq_PY313() {
	PY313=$(record_python 3.13) || { echo "$PY313"; return 1; }
}
test_have_prereq PERF,PY313 && PY313=$(record_python 3.13)

# The syscalls tracepoints need a readable tracefs.
test_prereq_EXECVE_TP() {
	test_prereq_PERF || return 1
	perf record -q -e syscalls:sys_enter_execve -o "$TRASH/.prereq.data" \
		-- true >/dev/null 2>&1 ||
		{ echo "perf cannot record syscalls:sys_enter_execve here (tracefs or privileges)"; return 1; }
	rm -f "$TRASH/.prereq.data"
}

# program_only SESSION: the session has samples, and none of them is
# pyperf-run's: no frame of its functions or its binary in any stack
# (every frame, per thread), no process or thread named pyperf-run.
program_only() {
	"$PPR_BIN" report -i "$1" --all --per-thread --format collapsed \
		>"$1.collapsed" 2>/dev/null &&
	test -s "$1.collapsed" &&
	! grep -E "(^|;)(spawn_[a-z_]*|vfork_exec|record_exec_program|record_internal_exec|cmd_record)(;| )|\[pyperf-run\]|^pyperf-run-" \
		"$1.collapsed" &&
	"$PPR_BIN" report -i "$1" --all --format json >"$1.json" 2>/dev/null &&
	python3 - "$1.json" <<-\PY
	import json, os, sys
	d = json.load(open(sys.argv[1]))
	assert d["samples"] > 0, d["samples"]
	ours = [f["name"] for f in d["functions"]
	        if os.path.basename(f.get("dso") or "") == "pyperf-run"]
	assert not ours, "pyperf-run's own functions: %s" % ours
	for p in d["processes"]:
	    assert p["comm"] != "pyperf-run", p["pid"]
	    for t in p.get("threads", []):
	        assert t["comm"] != "pyperf-run", (p["pid"], t)
	PY
}

# The exec the helper's process makes to become the program is a sample
# of syscalls:sys_enter_execve in every run, under the helper's comm
# and with its stack (vfork_exec, spawn_start, ...): a certain case.
# The program's own exec of /bin/true is the one sample that stays.
test_expect_success PERF,PY313,EXECVE_TP 'syscalls:sys_enter_execve: only the program'"'"'s own exec' '
	record_env "$PPR_BIN" record --trampoline auto -q -o exec -e syscalls:sys_enter_execve \
		--python "$PY313" -c "import os; os.execv(\"/bin/true\", [\"true\"])" \
		2>err &&
	test -n "$(meta exec program_pid)" &&
	test "$(meta exec program_pid)" != "$(meta exec helper_pid)" &&
	program_only exec &&
	python3 -c "import json, sys; n = json.load(open(sys.argv[1]))[\"samples\"]; print(n); sys.exit(n != 1)" exec.json
'

test_expect_success PERF,PY313 'page-faults: only the program' '
	record_env "$PPR_BIN" record --trampoline auto -q -o faults -e page-faults \
		--python "$PY313" -c "x = [bytearray(4096) for i in range(20000)]" \
		2>err &&
	program_only faults
'

test_expect_success PERF,PY313 'cpu-clock: only the program' '
	record_env "$PPR_BIN" record --trampoline auto -q -o clock --python "$PY313" \
		-c "sum(i * i for i in range(300000))" 2>err &&
	program_only clock
'

test_expect_success PERF 'the program gets the PATH record was given, not perf'"'"'s' '
	PATH="$TRASH/bin-first:$PATH" "$PPR_BIN" record --trampoline auto -q -o path -- \
		/usr/bin/python3 -c "import os; print(os.environ.get(\"PATH\"))" \
		>path.out 2>err &&
	test "$(cat path.out)" = "$TRASH/bin-first:$PATH" &&
	env -u PATH "$PPR_BIN" record --trampoline auto -q -o nopath -- \
		/usr/bin/python3 -c "import os; print(os.environ.get(\"PATH\"))" \
		>nopath.out 2>err &&
	test "$(cat nopath.out)" = None
'

test_done
