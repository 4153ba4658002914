#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time: about 12 s: jit-mode recordings of record-split.py (1.2 CPU s)
# and of a loop in the vDSO, compressed as record compresses them by
# default, one uncompressed, and their reports by both readers.
#
# Where perf has zstd and the kernel puts build-ids into mmap records,
# record passes perf record -z --buildid-mmap in the modes without perf
# inject (perfcmd_compress_decide()): PERF_RECORD_COMPRESSED records,
# one zstd stream through the file, which pyperf-run built with zstd
# reads itself.  For perf's own readers record then does in the
# compressed stream what it does in plain data: it marks the fork of
# each process that execs (perfdata_fix_exec_forks(): without it perf
# unwound the libraries of 4 of 6 such recordings from the wrong base,
# cutting 9 % of their stacks), and gives the [vdso], which has no file
# and so no build-id in its mmap record, an entry in a build-id table
# (perfdata_add_buildid()), so that perf reads the session's copy of it,
# not the vDSO of the machine it runs on.  So perf script's stacks are
# the native reader's (test 4).
test_description='record compresses with perf record -z: both readers read it'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/record-split.py
SHARES=$PPR_SRCDIR/tests/fixtures/reader-shares.py
PY=/usr/bin/python3

test_prereq_ZSTD() {
	ppr --version | grep -q " zstd=yes" ||
		{ echo "pyperf-run was built without zstd"; return 1; }
	perf record --dry-run -z >/dev/null 2>&1 ||
		{ echo "this perf takes no -z (built without zstd)"; return 1; }
}

test_expect_success PERF,ZSTD 'jit mode compresses by default: -z --buildid-mmap, bytes per sample' '
	ppr record --trampoline auto -q -o z -- $PY "$PROG" >out 2>rec.err &&
	grep "^mode=jit$" z/meta &&
	perf report --header-only -i z/perf.data >header 2>/dev/null &&
	grep "^# compressed : Zstd" header &&
	grep "^# cmdline : .* -z --buildid-mmap " header &&
	n=$(sed -n "s/^samples=//p" z/meta) &&
	test "$n" -gt 500 &&
	b=$(($(stat -c %s z/perf.data) / n)) &&
	test_diag "$n samples, $b bytes per sample" &&
	test "$b" -le 1500
'

# The user's own --no-compression-level: no -z, no --buildid-mmap, and
# perf's build-id pass writes its table (perf 6.1 reads
# --compression-level=0 as its default level, 1).
test_expect_success PERF,ZSTD '--perf-arg=--no-compression-level records uncompressed' '
	ppr record --trampoline auto -q -o u --perf-arg=--no-compression-level \
		-- $PY -c "pass" >out 2>rec.err &&
	perf report --header-only -i u/perf.data >header 2>/dev/null &&
	! grep "^# compressed" header &&
	! grep "^# cmdline : .*--buildid-mmap" header &&
	perf buildid-list -i u/perf.data >ids 2>/dev/null &&
	grep -q python ids
'
# No build-id table in a -z session (the user's -z alone: no
# --buildid-mmap): the native reader takes the session's one saved vDSO
# (buildid/[vdso]/ID/vdso, which record writes), and its functions are
# named.  The program spends its time in time.time() and
# time.process_time(), both in the vDSO.
test_expect_success PERF,ZSTD 'a -z session names the vDSO (perf recorded no build-id for it)' '
	ppr record --trampoline auto -q -o zv --perf-arg=-z -- $PY -c "import time
t0 = time.time()
while time.time() - t0 < 1.0:
    time.process_time()" >out 2>err &&
	ppr report -i zv --format collapsed -o zv.col 2>/dev/null &&
	named=$(awk "/__vdso_clock_gettime/ { n += \$NF } END { print n + 0 }" zv.col) &&
	unnamed=$(awk "/\\[vdso\\]/ { n += \$NF } END { print n + 0 }" zv.col) &&
	test_diag "in the vDSO: $named samples named, $unnamed under [vdso]" &&
	test "$named" -gt 100 &&
	test "$unnamed" = 0
'

# Both readers go through the same pipeline: the same count of samples
# in their collapsed stacks means the native reader decoded every sample
# perf script decoded, and shares within t3031's 0.5 points that they
# unwound the same stacks from the compressed dumps (both views).
test_expect_success PERF,ZSTD 'both readers read the same samples and stacks' '
	ppr report --reader native --view python -f collapsed -i z >z.native &&
	ppr report --reader native --view mixed -f collapsed -i z >z.nmixed &&
	rm -rf z/cache &&
	ppr report --reader perf-script --view python -f collapsed -i z >z.perf &&
	ppr report --reader perf-script --view mixed -f collapsed -i z >z.pmixed &&
	python3 "$SHARES" --ignore "[unknown]" z.nmixed z.pmixed 0.5 &&
	python3 "$SHARES" --ignore "[unknown]" z.native z.perf 0.5 >cmp &&
	cat cmp &&
	n=$(sed -n "s/^samples \([0-9]*\) \/ \([0-9]*\),.*/\1 \2/p" cmp) &&
	set -- $n && test "$1" = "$2" && test "$1" -gt 500
'

test_done
