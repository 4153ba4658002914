#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# doctor's "reader" checks (what reading perf.data natively and top need):
# libdw and libperf as built, perf's libtraceevent from its build options
# (fake perfs for the cases this machine's perf is not), and whether
# /proc/kallsyms shows addresses to the user running doctor (root, and
# nobody, for whom kptr_restrict and perf_event_paranoid decide).
test_description='doctor: libdw, libperf, perf libtraceevent, kallsyms'
. ./test-lib.sh

# A PATH holding a perf that prints "perf version $1" and, for
# --build-options, the lines given on stdin.
fake_perf() {
	rm -rf fakebin && mkdir fakebin &&
	cat >fakebin/build-options &&
	cat >fakebin/perf <<-EOF &&
	#!/bin/sh
	test "\$1" = version || exit 3
	echo "perf version $1"
	test "\$2" = --build-options && cat "$TRASH/fakebin/build-options"
	exit 0
	EOF
	chmod +x fakebin/perf
}

kptr=$(cat /proc/sys/kernel/kptr_restrict 2>/dev/null || echo unknown)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)

test_expect_success 'libdw: the version this binary runs with' '
	ppr doctor --json >out 2>err; ! test -s err &&
	v=$(json_get out reader.libdw) &&
	test -n "$v" && test "$v" != null &&
	if command -v pkg-config >/dev/null && pkg-config --exists libdw; then
		test "$v" = "$(pkg-config --modversion libdw)"
	fi &&
	ppr doctor >out 2>err &&
	test_grep "^reader$" out &&
	test_grep "^  ok       libdw $v: DWARF sessions unwind in-process$" out
'

test_expect_success 'libperf: as this build was configured' '
	"$PPR_BUILD/tests/unit/t-libperf" >lp &&
	ppr doctor --json >out &&
	ppr doctor >text &&
	if grep -q "SKIP built without libperf" lp; then
		test "$(json_get out reader.libperf)" = false &&
		test_grep "^  warning  built without libperf: .pyperf-run top. is unavailable$" text &&
		test_grep "fix: rebuild pyperf-run with libperf: .ci/setup.d/libperf.sh" text
	else
		test "$(json_get out reader.libperf)" = true &&
		test_grep "^  ok       built with libperf: top can sample$" text
	fi
'

test_expect_success 'fake perf 6.12 without libtraceevent: no off-CPU time, a warning' '
	fake_perf 6.12.0 <<-\EOF &&
	                 dwarf: [ on  ]  # HAVE_DWARF_SUPPORT
	             libunwind: [ on  ]  # HAVE_LIBUNWIND_SUPPORT
	         libtraceevent: [ OFF ]  # HAVE_LIBTRACEEVENT
	EOF
	PATH="$TRASH/fakebin:$PATH" ppr doctor --json >out 2>err; ! test -s err &&
	test "$(json_get out reader.perf_libtraceevent)" = false &&
	json_get out warnings | grep "perf was built without libtraceevent" &&
	PATH="$TRASH/fakebin:$PATH" ppr doctor >text &&
	test_grep "^  warning  perf was built without libtraceevent: it cannot record tracepoints such as sched:sched_switch, so there is no off-CPU or wall-clock time$" text &&
	test_grep "fix: install a perf built with libtraceevent" text
'

test_expect_success 'fake perf 6.12 with libtraceevent: ok' '
	fake_perf 6.12.0 <<-\EOF &&
	         libtraceevent: [ on  ]  # HAVE_LIBTRACEEVENT
	EOF
	PATH="$TRASH/fakebin:$PATH" ppr doctor --json >out &&
	test "$(json_get out reader.perf_libtraceevent)" = true &&
	PATH="$TRASH/fakebin:$PATH" ppr doctor >text &&
	test_grep "^  ok       perf has libtraceevent: it records tracepoints" text
'

test_expect_success 'fake perf 6.1 (no such build option yet): its own copy' '
	fake_perf 6.1.0 <<-\EOF &&
	                 dwarf: [ on  ]  # HAVE_DWARF_SUPPORT
	EOF
	PATH="$TRASH/fakebin:$PATH" ppr doctor --json >out &&
	test "$(json_get out reader.perf_libtraceevent)" = true &&
	PATH="$TRASH/fakebin:$PATH" ppr doctor >text &&
	test_grep "^  ok       perf has libtraceevent \(its own copy, as perf before 6.2 has\)" text
'

test_expect_success 'fake perf 6.13 not listing it: unknown, no warning' '
	fake_perf 6.13.0 </dev/null &&
	PATH="$TRASH/fakebin:$PATH" ppr doctor --json >out &&
	test "$(json_get out reader.perf_libtraceevent)" = null &&
	! json_get out warnings | grep libtraceevent
'

# What the kernel shows a user: addresses when kptr_restrict = 0 and
# perf_event_paranoid <= 1, or to root when kptr_restrict <= 1.
test_expect_success ROOT "as root (kptr_restrict=$kptr): kallsyms as the kernel shows it" '
	ppr doctor --json >out &&
	test "$(json_get out reader.kallsyms.readable)" = true &&
	if head -n 2000 /proc/kallsyms | grep -qv "^0000000000000000 "; then
		test "$(json_get out reader.kallsyms.addresses)" = true &&
		test "$kptr" -le 1
	else
		test "$(json_get out reader.kallsyms.addresses)" = false &&
		ppr doctor >text &&
		test_grep "^  warning  /proc/kallsyms hides kernel addresses \(" text
	fi
'

test_expect_success NOBODY_PPR "as nobody (kptr_restrict=$kptr, perf_event_paranoid=$paranoid): which one hides kallsyms, and the fix" '
	as_nobody env HOME="$TRASH/nohome" "$PPR_BIN" doctor --json >out 2>err &&
	! test -s err &&
	as_nobody env HOME="$TRASH/nohome" "$PPR_BIN" doctor >text &&
	# what nobody really sees
	if as_nobody head -n 2000 /proc/kallsyms | grep -qv "^0000000000000000 "; then
		test "$(json_get out reader.kallsyms.addresses)" = true
	else
		test "$(json_get out reader.kallsyms.addresses)" = false &&
		test_grep "^  warning  /proc/kallsyms hides kernel addresses" text &&
		test_grep "kernel frames stay unnamed, and sessions carry no kernel symbols" text &&
		case $kptr in
		0)	test "$paranoid" -ge 2 &&
			test_grep "with kptr_restrict = 0 they show only while perf_event_paranoid <= 1, and it is $paranoid" text &&
			test_grep "fix: sudo sysctl kernel.perf_event_paranoid=1" text ;;
		1)	test_grep "kptr_restrict = 1 shows them to root" text ;;
		*)	test_grep "kptr_restrict = $kptr hides them from every user" text ;;
		esac
	fi
'

test_done
