#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# One perf for a session: record --perf keeps the perf's path in the
# session, report reads it with that perf (perf 6.1 cannot read what 6.12
# wrote), and an explicit other perf fails with a message naming it.

test_description='--perf PATH for record, report and doctor'
. ./test-lib.sh

# 1.5 s of CPU in work(): the interpreter's start-up and imports take
# about 0.1 s of samples (more on a cold or loaded machine), which at
# 0.6 s left work() at 79-86 % of the samples, against the 80 % below.
cat >small.py <<'EOF'
import time

def work():
    end = time.process_time() + 1.5
    n = 0
    while time.process_time() < end:
        n += sum(i * i for i in range(200))
    return n

work()
EOF

test_expect_success PERF_612_LIBUNWIND 'record --perf keeps the perf in the session' '
	p612=$(ppr_perf_612 libunwind) &&
	ppr record --trampoline auto -q --perf "$p612" -o s612 small.py 2>err &&
	test "$(sed -n "s/^perf=//p" s612/meta)" = "$(readlink -f "$p612")" &&
	grep "^perf_version=6\.12" s612/meta
'

test_expect_success PERF_612_LIBUNWIND 'report reads it with that perf while the system perf is first on PATH' '
	rm -rf s612/cache &&
	ppr report -i s612 --format json -o r.json 2>err &&
	python3 - r.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))
	work = sum(f["total_samples"] for f in r["functions"]
	           if f["kind"] == "python" and f["function"] == "work")
	share = work / r["samples"]
	print("work: %.1f%% of %d samples" % (100 * share, r["samples"]))
	sys.exit(0 if share > 0.8 else 1)
	EOF
'

test_expect_success PERF_612_LIBUNWIND 'an explicit older perf that cannot read it names the one that can' '
	sys=$(command -v perf) &&
	case $(ppr_perf_version "$sys") in
	6.1.*) ;;
	*) echo "system perf is not 6.1: nothing to refuse"; false ;;
	esac &&
	rm -rf s612/cache &&
	test_expect_code 1 ppr report -i s612 --perf "$sys" 2>err &&
	cat err &&
	test_grep "recorded with perf 6\.12.*try --perf .*perf-6\.12/libunwind/perf" err
'

test_expect_success PERF 'PYPERF_PERF wins over the recorded perf, --perf over both' '
	ppr record --trampoline auto -q -o s61 small.py &&
	cat >fakeperf <<-\EOF &&
	#!/bin/sh
	echo "fake perf ran" >&2
	exit 3
	EOF
	chmod +x fakeperf &&
	rm -rf s61/cache &&
	PYPERF_PERF=$PWD/fakeperf test_expect_code 1 ppr report -i s61 2>err &&
	test_grep "perf script exited with status 3" err &&
	PYPERF_PERF=$PWD/fakeperf ppr report -i s61 --perf "$(command -v perf)" >out &&
	test_grep "work \(small.py\)" out
'

test_expect_success PERF 'a recorded perf that is gone falls back to perf on PATH' '
	sed "s|^perf=.*|perf=/nonexistent/perf|" s61/meta >m && mv m s61/meta &&
	rm -rf s61/cache &&
	ppr report -i s61 >out &&
	test_grep "work \(small.py\)" out
'

test_expect_success PERF 'record --perf with a missing program says so' '
	test_expect_code 125 ppr record --trampoline auto --perf /nonexistent/perf small.py 2>err ||
	test_expect_code 126 ppr record --trampoline auto --perf /nonexistent/perf small.py 2>err ||
	test_expect_code 127 ppr record --trampoline auto --perf /nonexistent/perf small.py 2>err &&
	test_grep "cannot run ./nonexistent/perf.: No such file" err
'

test_done
