#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report --format pprof: read by go tool pprof'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

test_prereq_BUILD_TOOLS() {
	command -v make >/dev/null && command -v cc >/dev/null ||
		{ echo "no make or cc to build with"; return 1; }
}

# `go tool pprof -top` rows: flat flat% sum% cum cum% name...
pprof_cum() {
	awk -v name="$1" '$5 ~ /%$/ && $6 == name { sub(/%/, "", $5); print $5; exit }' "$2"
}

test_expect_success PPROF,GO_PPROF 'a synthetic profile: go tool pprof -top' '
	flame_synth 2000 pprof >s.pb.gz &&
	go tool pprof -top -nodecount=1000 s.pb.gz >top 2>err &&
	test_grep "^Type: samples$" top &&
	test_grep "python3.13 synthetic.py" top &&
	test_grep " mod0.func_0$" top &&
	test_grep " kernel_fn_[0-9]+$" top &&
	test "$(pprof_cum mod0.func_0 top)" = 100
'

test_expect_success PPROF,GO_PPROF 'sample types, period and mappings' '
	go tool pprof -raw s.pb.gz >raw 2>err &&
	test_grep "^PeriodType: cpu nanoseconds$" raw &&
	test_grep "^Period: 1001001$" raw &&
	test_grep "^samples/count(\\[dflt\\])? cpu/nanoseconds" raw &&
	test_grep "libc.so.6" raw
'

test_expect_success PPROF,GO_PPROF 'warnings: a comment each (go tool pprof -comments)' '
	flame_synth 200 pprof warn >w.pb.gz &&
	go tool pprof -comments w.pb.gz >comments 2>err &&
	cat comments &&
	test_grep "^warning: 30% of the samples have incomplete stacks \(<cut> at \"depth\"\)$" comments &&
	test_grep "^warning: 12 damaged map records were dropped & not shown$" comments &&
	test "$(grep -c "^warning: " comments)" = 2
'

test_expect_success PPROF,SESSION 'record a session' '
	flame_session sess 0.3 &&
	ppr report -i sess --format collapsed >c &&
	ppr report -i sess --format pprof -o prof.pb.gz
'

test_expect_success PPROF,SESSION,GO_PPROF 'the Python functions with the right shares' '
	go tool pprof -top -nodecount=1000 prof.pb.gz >top 2>err &&
	cat top &&
	for f in alpha beta Gamma.inner; do
		want=$(flame_collapsed_share "^$f \\(.*prog.py\\)\$" c) &&
		got=$(pprof_cum $f top) &&
		echo "$f: pprof $got, collapsed $want" &&
		flame_close "$got" "$want" 0.1 &&
		flame_close "$got" 33 12 || return 1
	done
'

test_expect_success PPROF,SESSION,GO_PPROF 'Python functions carry their file names' '
	go tool pprof -top -files prof.pb.gz >files 2>err &&
	test_grep " /.*prog.py$" files
'

test_expect_success PPROF,SESSION,GO_PPROF 'cpu time as the second sample type' '
	go tool pprof -top -sample_index=cpu prof.pb.gz >cpu 2>err &&
	test_grep "^Type: cpu$" cpu &&
	test_grep " beta$" cpu
'

test_expect_success PPROF,SESSION,GO_PPROF '--per-thread: pid, tid and thread_name labels' '
	ppr report -i sess --per-thread --format pprof -o thr.pb.gz &&
	go tool pprof -tags thr.pb.gz >tags 2>err &&
	test_grep "^ *pid: " tags &&
	test_grep "^ *tid: " tags &&
	test_grep "^ *thread_name: " tags
'

# A build configured without the optional libraries, protobuf-c and
# libperf (only the program, at -O0 to be quick, into this test's
# directory): everything but pprof and top works, and both say how to
# get them.
test_expect_success BUILD_TOOLS 'configure --without-protobuf-c: a build without pprof' '
	mkdir nopb &&
	(cd nopb && "$PPR_SRCDIR/configure" --without-protobuf-c \
		--without-libperf CFLAGS=-O0 >out 2>err) &&
	test_grep "^checking for protobuf-c\.\.\. no \(--without-protobuf-c\)$" nopb/out &&
	test_grep "^checking for libperf\.\.\. no \(--without-libperf\)$" nopb/out &&
	test_grep "pprof output: no; compressed perf\.data \(zstd\): (yes|no); top \(libperf\): no\)$" nopb/out &&
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$PPR_SRCDIR" \
		-f "$PWD/nopb/Makefile" BUILD="$PWD/nopb/build" \
		"$PWD/nopb/build/pyperf-run" >nopb/make.out 2>&1 &&
	! ldd nopb/build/pyperf-run | grep protobuf &&
	nopb/build/pyperf-run --version >ver &&
	test_grep "^features: pprof=no " ver
'

test_expect_success BUILD_TOOLS 'without protobuf-c: --format pprof says why and how to fix' '
	mkdir s &&
	test_expect_code 1 nopb/build/pyperf-run report -i s --format pprof \
		-o p.pb.gz 2>err &&
	cat err &&
	test_grep "^pyperf-run report: --format pprof needs protobuf-c, and this pyperf-run was built without it: install libprotobuf-c-dev \(Fedora: protobuf-c-devel\), then run ./configure and make again$" err &&
	! test -e p.pb.gz
'

test_expect_success BUILD_TOOLS 'without libperf: top says so and what to install' '
	nopb/build/pyperf-run --version >ver &&
	test_grep " libperf=no" ver &&
	test_expect_code 125 nopb/build/pyperf-run top --batch -c pass >out 2>err &&
	cat err &&
	test_grep "^pyperf-run top: this pyperf-run was built without libperf, which top samples with$" err &&
	test_grep "^hint: build libperf with .ci/setup.d/libperf.sh" err &&
	! test -s out
'

test_expect_success BUILD_TOOLS,SESSION 'without protobuf-c: the other formats are the same' '
	{ test -d sess || flame_session sess 0.3; } &&
	ppr report -i sess --format collapsed >want &&
	nopb/build/pyperf-run report -i sess --format collapsed >got &&
	test_cmp want got
'

test_done
