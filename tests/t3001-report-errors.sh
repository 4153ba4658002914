#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# pyperf-run report on missing, empty, truncated, corrupt and foreign
# sessions, and bad command lines: a clear message, exit 1 (2 for usage),
# nothing on stdout, no output file left behind.
test_description='report: bad sessions and bad usage'
. ./test-lib.sh
perf_buildids_in_trash

# expect_fail PATTERN ARGS...: exit 1, one error line matching PATTERN,
# stdout empty
expect_fail() {
	pat=$1
	shift
	test_expect_code 1 ppr report "$@" >out 2>err &&
	! test -s out &&
	test_grep "^pyperf-run report: $pat" err &&
	test "$(grep -c "^pyperf-run report: " err)" = 1
}

test_expect_success 'missing session' '
	expect_fail "cannot open session '"'"'nope'"'"': No such file or directory" -i nope &&
	test_grep "^hint: record one first" err
'

test_expect_success 'the default session is pyperf.data' '
	expect_fail "cannot open session '"'"'pyperf.data'"'"'"
'

test_expect_success 'not a directory' '
	echo x >file &&
	expect_fail "'"'"'file'"'"' is not a pyperf-run session \(not a directory\)" -i file
'

test_expect_success 'empty directory' '
	mkdir empty &&
	expect_fail "'"'"'empty'"'"' is not a pyperf-run session" -i empty
'

test_expect_success 'foreign directory' '
	mkdir foreign && echo hello >foreign/README &&
	expect_fail "'"'"'foreign'"'"' is not a pyperf-run session" -i foreign
'

test_expect_success 'meta but no perf.data' '
	mkdir nodata && echo format=1 >nodata/meta &&
	expect_fail "session '"'"'nodata'"'"' has no perf.data" -i nodata
'

test_expect_success 'empty perf.data' '
	mkdir e && echo format=1 >e/meta && : >e/perf.data &&
	expect_fail "'"'"'e/perf.data'"'"' is empty" -i e
'

test_expect_success 'perf.data that is not one' '
	mkdir junk && echo format=1 >junk/meta &&
	head -c 4096 /dev/zero | tr "\0" "x" >junk/perf.data &&
	expect_fail "'"'"'junk/perf.data'"'"' is not a perf.data file" -i junk
'

test_expect_success 'a binary meta file' '
	mkdir badmeta && printf "\001\002\000\003" >badmeta/meta &&
	printf PERFILE2 >badmeta/perf.data &&
	expect_fail "'"'"'badmeta/meta'"'"' is not a pyperf-run session meta file" -i badmeta
'

test_expect_success 'meta without format' '
	mkdir nofmt && echo mode=jit >nofmt/meta &&
	printf PERFILE2 >nofmt/perf.data &&
	expect_fail "'"'"'nofmt/meta'"'"' is not a pyperf-run session meta file \(no format line\)" -i nofmt
'

test_expect_success 'a newer session format' '
	mkdir fmt9 && echo format=9 >fmt9/meta &&
	printf PERFILE2 >fmt9/perf.data &&
	expect_fail "session '"'"'fmt9'"'"' has format 9" -i fmt9
'

test_prereq_TINY() {
	test_have_prereq PERF || { echo "$prereq_why"; return 1; }
	mkdir -p tiny &&
	perf record -q -g -e cpu-clock -o tiny/perf.data -- \
		sh -c "i=0; while [ \$i -lt 30000 ]; do i=\$((i+1)); done" \
		>/dev/null 2>&1 &&
	echo format=1 >tiny/meta
}

test_expect_success TINY 'a session from plain perf is reported' '
	ppr report -i tiny --format collapsed >c &&
	test -s c
'

# Cut in the middle of the samples, not of the file: the feature
# sections after them hold perf's information on every BPF program
# loaded on the machine, so while another one runs (the frame walker of
# a t35xx test beside this one at prove -j2) they are 70 KB, the file
# 4 times its samples, and its half ended after them: the samples were
# whole and nothing said "truncated".
test_expect_success TINY 'perf.data cut in the middle of its samples' '
	mkdir half && echo format=1 >half/meta &&
	cut=$(python3 -c "
import struct, sys
off, size = struct.unpack(\"<QQ\", open(\"tiny/perf.data\", \"rb\").read()[40:56])
print(off + size // 2)
") &&
	head -c $cut tiny/perf.data >half/perf.data &&
	expect_fail "'"'"'half/perf.data'"'"' is truncated" -i half
'

test_expect_success TINY 'perf.data of a killed perf record' '
	mkdir killed && echo format=1 >killed/meta &&
	python3 -c "
import struct, sys
b = bytearray(open(\"tiny/perf.data\", \"rb\").read())
b[48:56] = struct.pack(\"<Q\", 0)
open(\"killed/perf.data\", \"wb\").write(b[:len(b) * 2 // 3])
" &&
	expect_fail "'"'"'killed/perf.data'"'"' is incomplete" -i killed
'

test_expect_success TINY 'perf missing' '
	PYPERF_PERF=/nonexistent/perf expect_fail "cannot run '"'"'/nonexistent/perf'"'"'" -i tiny
'

test_expect_success TINY 'a failed report leaves no output file' '
	test_expect_code 1 ppr report -i nope -o out.txt 2>err &&
	! test -e out.txt &&
	PYPERF_PERF=false test_expect_code 1 ppr report -i tiny -o out.txt 2>err &&
	! test -e out.txt
'

test_expect_success TINY 'filters that keep nothing' '
	expect_fail "no samples in '"'"'tiny'"'"' match the filters" -i tiny --pid 1
'

test_expect_success 'usage errors exit 2' '
	test_expect_code 2 ppr report --no-such-option 2>err &&
	test_grep "unknown option" err &&
	test_expect_code 2 ppr report --format nope 2>err &&
	test_grep "unknown format '"'"'nope'"'"'" err &&
	test_expect_code 2 ppr report --pid abc 2>err &&
	test_expect_code 2 ppr report --pid 0 2>err &&
	test_expect_code 2 ppr report --time 5 2>err &&
	test_expect_code 2 ppr report --time 3,1 2>err &&
	test_expect_code 2 ppr report --min-share 101 2>err &&
	test_expect_code 2 ppr report --top 0 2>err &&
	test_expect_code 2 ppr report --color sometimes 2>err &&
	test_expect_code 2 ppr report extra 2>err &&
	test_grep "unexpected argument '"'"'extra'"'"'" err &&
	test_expect_code 2 ppr report -- --stdio 2>err &&
	test_grep "for --perf-report only" err &&
	test_expect_code 2 ppr report --diff onlyone 2>err &&
	test_expect_code 2 ppr report --diff a b --format json 2>err &&
	test_expect_code 2 ppr report --perf-report -o x 2>err &&
	test_expect_code 2 ppr report -i 2>err &&
	test_grep "needs a value" err
'

test_expect_success 'report -h prints the usage' '
	ppr report -h >out &&
	test_grep "^usage: pyperf-run report" out &&
	test_grep "python-only" out
'

test_done
