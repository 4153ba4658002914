#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor as an unprivileged user: perf_event_paranoid applies'
. ./test-lib.sh

# Root that can become nobody, and nobody can run the binary and python.
test_prereq_NOBODY() {
	test "$(id -u)" = 0 || { echo "not running as root"; return 1; }
	command -v setpriv >/dev/null || { echo "no setpriv (util-linux)"; return 1; }
	nobody_run "$PPR_BIN" --version >/dev/null 2>&1 ||
		{ echo "nobody cannot run $PPR_BIN"; return 1; }
}

# as_nobody (test-lib.sh) with a home of its own, as a real user has.
nobody_run() {
	as_nobody env HOME="$TRASH/nohome" "$@"
}

paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)

test_expect_success NOBODY,PY313 "as nobody (perf_event_paranoid=$paranoid): the kernel checks follow the setting" '
	py=$(ppr_python 3.13) &&
	nobody_run "$PPR_BIN" doctor --json --python "$py" >out 2>err; code=$? &&
	! test -s err &&
	test "$(json_get out kernel.privileged)" = false &&
	test "$(json_get out kernel.perf_event_paranoid)" = "$paranoid" &&
	case $paranoid in
	-1|0|1)
		test "$(json_get out kernel.callchain.ok)" = true &&
		test "$(json_get out kernel.callchain.user_only)" = false ;;
	2)
		test "$(json_get out kernel.callchain.ok)" = true &&
		test "$(json_get out kernel.callchain.user_only)" = true &&
		test "$(json_get out kernel.dwarf.user_only)" = true &&
		json_get out warnings | grep "perf_event_paranoid = 2: user space only" ;;
	*)
		test "$(json_get out kernel.callchain.ok)" = false &&
		test $code = 1 &&
		json_get out problems | grep "perf_event_open(2) refuses" ;;
	esac
'

test_expect_success NOBODY,PY313 'as nobody: the text report says user space only, with a fix' '
	py=$(ppr_python 3.13) &&
	nobody_run "$PPR_BIN" doctor --python "$py" >out 2>err; code=$? &&
	! test -s err &&
	case $paranoid in
	2)
		test_grep "^  ok       can sample with call chains \(user space only\)$" out &&
		test_grep "^  warning  perf_event_paranoid = 2: user space only, no kernel frames$" out &&
		test_grep "fix: to see kernel frames: sudo sysctl kernel.perf_event_paranoid=1" out ;;
	-1|0|1)
		test_grep "^  ok       can sample with call chains$" out ;;
	*)
		test_grep "^  problem  perf_event_open\(2\) refuses sampling with call chains: " out &&
		test_grep "fix: run as root, or allow it" out ;;
	esac
'

test_expect_success NOBODY 'as nobody: stale files of other users are not counted' '
	mkdir -p "$TRASH/nohome" &&
	nobody_run "$PPR_BIN" doctor --json --python /bin/true >out 2>err;
	! test -s err &&
	# Every stale file it counts belongs to nobody: none in a fresh run.
	n=$(find /tmp -maxdepth 1 -user nobody \( -name "perf-*.map" -o -name "jit-*.dump" -o -name "jitted-*.so" \) | wc -l) &&
	test "$(json_get out housekeeping.stale_files)" -le "$n"
'

test_done
