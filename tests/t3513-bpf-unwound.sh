#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='bpf mode unwinds each sample as it records: no stack copies in the session, the same stacks as unwinding the copies'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-10

# The frame walker copies each sample's user stack; the recorder
# unwinds it at once, with the process's live mappings (lib/unwind),
# and writes the user frames into the record's callchain, not the copy
# (walker_abi.h, WALKER_F_UNWOUND).  record --keep-stack-copy writes
# both, and report --reader recorded takes the recorded frames where
# the default unwinds the copies, as before: the two views of one
# session must be the same, sample for sample (the collapsed stacks,
# with their counts, as a multiset; >= 99.5 % identical, the issue's
# bound).  The sessions cover deep stacks, stacks cut by a small copy
# (judged "[incomplete stack: dump full]" alike), threads, forked
# children, --wall with --wakers (switch-out and waker stacks), and a
# Python in another root.

. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"
. "$PPR_SRCDIR/tests/fixtures/uroot-lib.sh"

FIX=$PPR_SRCDIR/tests/fixtures
PROG=$FIX/walker-target.py

test_prereq_DEB() {
	DEB=$(ppr_distro_python 3.11) || { echo "no Debian python3.11"; return 1; }
}
test_have_prereq DEB && DEB=$(ppr_distro_python 3.11)

# same NAME [REPORT ARGS...]: NAME (recorded with --keep-stack-copy)
# read both ways gives the same stacks for >= 99.5 % of its weight
same() {
	n_=$1 &&
	shift &&
	ppr report -i "$n_" "$@" --format collapsed -o "$n_.copy" 2>"$n_.e1" &&
	ppr report -i "$n_" "$@" --reader recorded --format collapsed \
		-o "$n_.rec" 2>"$n_.e2" &&
	python3 - "$n_.copy" "$n_.rec" <<-\EOF
	import collections, sys
	def load(path):
	    c = collections.Counter()
	    for line in open(path):
	        stack, _, w = line.rstrip("\n").rpartition(" ")
	        c[stack] += int(w)
	    return c
	a, b = load(sys.argv[1]), load(sys.argv[2])
	total = sum(a.values())
	diff = sum(abs(a[k] - b[k]) for k in set(a) | set(b)) / 2
	print("%s: %d of %d (weight) differ: %.2f %% identical"
	      % (sys.argv[1], diff, total,
	         100.0 * (1 - diff / total) if total else 0))
	for k in sorted(set(a) | set(b), key=lambda k: -abs(a[k] - b[k]))[:3]:
	    if a[k] != b[k]:
	        print("  copy %d, recorded %d: ...%s" % (a[k], b[k], k[-300:]))
	sys.exit(not (total and diff <= 0.005 * total))
	EOF
}

test_prereq_ZSTD() {
	ppr --version | grep -q " zstd=yes" ||
		{ echo "pyperf-run was built without zstd"; return 1; }
}

# The bytes a sample of examples/busy.py takes: 7.1 KB with the copies;
# unwound, about 370 (well under 1 KB); compressed too (as perf record
# -z), about 20: within issue 30's 64 bytes a sample.
if test_have_prereq ZSTD; then MAX_BYTES=64; else MAX_BYTES=1024; fi

test_expect_success BPF "a session holds no stack copies: at most $MAX_BYTES bytes a sample on examples/busy.py (7.1 KB with them)" '
	ppr record -q -o busy "$PPR_SRCDIR/examples/busy.py" >out 2>err &&
	n=$(meta busy samples) &&
	bytes=$(wc -c <busy/perf.data) &&
	echo "$bytes bytes, $n samples: $((bytes / n)) a sample" &&
	test "$n" -gt 500 &&
	test $((bytes / n)) -le $MAX_BYTES &&
	perf script -i busy/perf.data >ps 2>pserr &&
	test_grep "_PyEval_EvalFrameDefault" ps &&
	ppr report -i busy --format collapsed -o busy.col &&
	test_grep "main \(.*busy.py:[0-9]+\);spin \(.*busy.py:[0-9]+\);parse_numbers" busy.col
'

test_expect_success BPF 'deep stacks (300 Python frames) unwound as recorded, as from the copies' '
	ppr record -q --keep-stack-copy -o deep "$PROG" deep 300 1 >out 2>err &&
	same deep &&
	test_grep "down \(.*walker-target.py:[0-9]+\);leaf" deep.rec
'

test_expect_success BPF 'stacks cut by a 2 KiB copy are judged as cut alike' '
	ppr record -q --keep-stack-copy --stack-size 2048 -o cut "$PROG" deep 300 1 \
		>out 2>err &&
	same cut &&
	ppr report -i cut --reader recorded -o cut.txt 2>cut.err &&
	grep "dump full\|C functions between the outer Python calls" cut.txt
'

test_expect_success BPF 'threads' '
	ppr record -q --keep-stack-copy -o thr "$PROG" serve 1 3 >out 2>err &&
	same thr &&
	test_grep "worker \(.*walker-target.py:[0-9]+\)" thr.rec
'

test_expect_success BPF 'forked children' '
	ppr record -q --keep-stack-copy -o forks "$PROG" forks 1 >out 2>err &&
	same forks &&
	test_grep "child_work \(.*walker-target.py:[0-9]+\)" forks.rec
'

# A sample in the vDSO (time.monotonic()'s clock_gettime) is unwound by
# the vDSO's own tables, read from a copy of this process's image: the
# live process's [vdso] is in no file.  Stepped by its frame pointer
# instead, samples at its entry or after its epilogue's pop lost every
# caller (1 in 70 of them), and were said to have too short a copy.
test_expect_success BPF 'samples in the vDSO keep their C callers' '
	ppr record -q --keep-stack-copy -o vdso -c "import time
t = time.monotonic()
while time.monotonic() - t < 2: pass" >out 2>err &&
	same vdso --view all &&
	grep "__vdso_clock_gettime" vdso.rec >in-vdso &&
	n=$(awk "{ n += \$NF } END { print n + 0 }" in-vdso) &&
	echo "$n samples in the vDSO" &&
	test "$n" -ge 100 &&
	! grep -v ";clock_gettime[@;].*;__vdso_clock_gettime" in-vdso &&
	ppr report -i vdso --reader recorded -o vdso.txt 2>vdso.err &&
	! grep "C functions between the outer Python calls" vdso.txt
'

# An extension without unwind tables that calls back into Python, on a
# Python without frame pointers: the unwinding stops at the extension,
# inside a copy that holds the whole stack.  The outer Python frames are
# still put in, and report says why the C functions between them are
# missing: not the copy's size (a bigger one would change nothing).
test_prereq_NOCFI() {
	command -v cc >/dev/null || { echo "no C compiler"; return 1; }
	py=$(ppr_usable_python 3.11) || { echo "$py"; return 1; }
	inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()[\"include\"])") &&
	suf=$("$py" -c "import sysconfig; print(sysconfig.get_config_var(\"EXT_SUFFIX\"))") &&
	test -f "$inc/Python.h" || { echo "no Python.h for $py"; return 1; }
	mkdir -p "$TRASH/ext-nocfi" &&
	cc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -fPIC -shared -I"$inc" \
		-o "$TRASH/ext-nocfi/reccext$suf" "$FIX/rec-cext.c" ||
		{ echo "cannot build the extension"; return 1; }
	NOCFI_PY=$py
}
test_expect_success BPF,NOCFI 'Python called back from C without unwind tables: the stop is said, not the copy' '
	PYTHONPATH="$TRASH/ext-nocfi" ppr record -q -o nocfi --python "$NOCFI_PY" \
		"$FIX/rec-cext-callback.py" 1 >out 2>err &&
	ppr report -i nocfi -o nocfi.txt 2>nocfi.err &&
	test_grep "warning: +[0-9]+% of the frame walker.s samples .* lack the C functions between the outer Python calls: the unwinding stopped inside the copied stack" nocfi.txt &&
	! grep "a bigger --stack-size would show them" nocfi.txt &&
	ppr report -i nocfi --format collapsed --view python -o nocfi.col &&
	test_grep "^<module> \(.*rec-cext-callback.py:[0-9]+\);outer \(.*rec-cext-callback.py:[0-9]+\);inner" nocfi.col
'

test_expect_success BPF,DEB '--wall --wakers: switch-out and waker stacks (Debian python3)' '
	ppr record -q --keep-stack-copy --wall --wakers -o wake --python "$DEB" \
		"$FIX/wakers-truth.py" gil wake.tid >out 2>err &&
	same wake &&
	same wake --clock off-cpu &&
	same wake --wakers
'

test_expect_success BPF,UROOT 'CPython 3.14, chrooted: its files found from outside the root' '
	dir=$(uroot_put "$PROG") &&
	ppr record -q --keep-stack-copy -o u314 -- chroot "$UROOT" \
		/usr/bin/python3.14 "$dir/walker-target.py" deep 50 1 >out 2>err &&
	same u314 &&
	test_grep "down \(.*walker-target.py:[0-9]+\);leaf" u314.rec
'

test_expect_success BPF '--keep-stack-copy outside bpf mode is said to change nothing' '
	ppr record -q --mode jit --keep-stack-copy -o jit "$PPR_SRCDIR/examples/busy.py" \
		>out 2>err &&
	test_grep "keep-stack-copy only matters in bpf mode" err
'

test_done
