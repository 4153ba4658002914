#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pyperf-run report --perf-report: perf report runs on the session, with the
# session's perf map files in /tmp while it runs (and only then).  A
# fake perf (PYPERF_PERF) shows what perf would see.
test_description='report --perf-report: arguments and map files'
. ./test-lib.sh

# pids unlikely to exist (setup checks that /tmp has no maps for them)
P1=3999991
P2=3999992

test_expect_success 'setup a perf-mode session and a fake perf' '
	for p in $P1 $P2; do
		if test -e /tmp/perf-$p.map; then
			echo "/tmp/perf-$p.map exists" && return 1
		fi
	done &&
	mkdir -p s/maps &&
	printf "format=1\nmode=perf\n" >s/meta &&
	printf "PERFILE2" >s/perf.data &&
	echo "7f0000001000 10 py::main:/app.py" >s/maps/perf-$P1.map &&
	echo "7f0000002000 10 py::mine:/app.py" >s/maps/perf-$P2.map &&
	cat >fakeperf <<-EOF &&
	#!/bin/sh
	echo "args: \$*"
	for p in $P1 $P2; do
		if test -f /tmp/perf-\$p.map; then
			echo "map \$p: \$(cat /tmp/perf-\$p.map)"
			ls -l /tmp/perf-\$p.map | cut -c1-10
		fi
	done
	EOF
	chmod +x fakeperf
'

test_expect_success 'maps are in /tmp while perf runs, gone after' '
	PYPERF_PERF=$PWD/fakeperf ppr report -i s --perf-report >out 2>err &&
	test_grep "^map $P1: 7f0000001000 10 py::main:/app.py$" out &&
	test_grep "^map $P2: 7f0000002000 10 py::mine:/app.py$" out &&
	test_grep "^-rw-------" out &&
	! test -e /tmp/perf-$P1.map &&
	! test -e /tmp/perf-$P2.map &&
	! test -s err
'

test_expect_success 'arguments after -- go to perf report' '
	PYPERF_PERF=$PWD/fakeperf ppr report -i s --perf-report -- --stdio --sort sym >out &&
	test_grep "^args: report -i s/perf.data --stdio --sort sym$" out
'

test_expect_success 'the session build-id cache is used when present' '
	mkdir s/buildid &&
	PYPERF_PERF=$PWD/fakeperf ppr report -i s --perf-report >out &&
	test_grep "^args: --buildid-dir s/buildid report -i s/perf.data$" out
'

test_expect_success 'an existing /tmp map is left alone' '
	echo "7f0000002000 10 someone else" >/tmp/perf-$P2.map &&
	PYPERF_PERF=$PWD/fakeperf ppr report -i s --perf-report >out 2>err;
	status=$? &&
	content=$(cat /tmp/perf-$P2.map) &&
	rm -f /tmp/perf-$P2.map &&
	test $status = 0 &&
	test "$content" = "7f0000002000 10 someone else" &&
	test_grep "^map $P2: 7f0000002000 10 someone else$" out &&
	test_grep "warning: .*/tmp/perf-$P2.map.* exists already" err &&
	! test -e /tmp/perf-$P1.map
'

test_expect_success 'perf report failing is a failure' '
	PYPERF_PERF=false test_expect_code 1 ppr report -i s --perf-report 2>err &&
	test_grep "^pyperf-run report: perf report exited with status 1" err &&
	! test -e /tmp/perf-$P1.map
'

test_expect_success 'a missing session' '
	test_expect_code 1 ppr report -i nope --perf-report 2>err &&
	test_grep "cannot open session" err
'

test_done
