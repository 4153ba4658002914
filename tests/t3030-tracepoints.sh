#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lib/tracedata on a real recording: sched:sched_switch payloads decoded
# through the formats in perf.data's tracing-data section must give what
# perf script prints for the same file (prev_comm, prev_pid, prev_state,
# next_pid, ... per sample, with its timestamp).  The decoding side is the
# unit-test binary's --sched-switch mode (tests/unit/t-tracedata.c).
test_description='tracepoint payloads from perf.data agree with perf script'
. ./test-lib.sh
perf_buildids_in_trash

# sched_switch across all CPUs needs root or perf_event_paranoid <= -1,
# and a readable tracefs.
test_prereq_SCHED_SWITCH() {
	test_prereq_PERF || return 1
	perf record -q -e sched:sched_switch -a -o "$TRASH/.prereq.data" \
		-- true >/dev/null 2>&1 ||
		{ echo "perf cannot record sched:sched_switch here (tracefs or privileges)"; return 1; }
	rm -f "$TRASH/.prereq.data"
}

# Each perf of the matrix writes the section (perf 6.1 with its own copy
# of libtraceevent, 6.12 with the system's).
for name in system 6.12-libunwind 6.12-libdw; do
	pre=$(ppr_perf_prereq $name)
	test_expect_success "SCHED_SWITCH,$pre" "perf $name: every sched_switch sample decodes as perf script prints it" '
		p=$(ppr_perf_path '"$name"') &&
		# forty short sleeps: at least eighty switches, however
		# quiet or busy the machine is
		"$p" record -q -e sched:sched_switch -a -o sw.data -- \
			sh -c "i=0; while test \$i -lt 40; do sleep 0.01; i=\$((i + 1)); done" \
			>/dev/null 2>err &&
		"$PPR_BUILD/tests/unit/t-tracedata" --sched-switch sw.data \
			>mine 2>mine.err &&
		"$p" script -i sw.data --ns -F time,trace >ref.raw 2>/dev/null &&
		sed "s/^ *//" ref.raw | sort >ref &&
		sort mine >mine.sorted &&
		n=$(wc -l <ref) &&
		test "$n" -ge 20 &&
		grep -q "^t-tracedata: $n sched_switch samples$" mine.err &&
		test_cmp ref mine.sorted &&
		# prev_state takes more than one value and pids vary: a
		# decoder reading one fixed offset for every field would
		# not pass
		sed -n "s/.*prev_state=\([^ ]*\) .*/\1/p" mine | sort -u >states &&
		test "$(wc -l <states)" -ge 2 &&
		sed -n "s/.* next_pid=\([0-9]*\) .*/\1/p" mine | sort -u >pids &&
		test "$(wc -l <pids)" -ge 3
	'
done

test_done
