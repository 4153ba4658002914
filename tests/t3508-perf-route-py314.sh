#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='perf record'"'"'s route on CPython 3.14 and 3.15 (Debian unstable'"'"'s, chrooted): CPython'"'"'s own -X perf_jit, whole stacks, the hook-free shares'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/uroot-lib.sh"

# The embedded trampoline serves 3.8 to 3.13; on 3.14 and 3.15 perf
# record's route (--mode jit, or --trampoline auto: not bpf mode) uses
# CPython's own -X perf_jit, which record switches on itself
# (PYTHON_PERF_JIT_SUPPORT=1).  `record -- chroot ROOT /usr/bin/python3.X`
# probes the interpreter in its root, and the program's files (its
# jitdump in ROOT/tmp, the interpreter and its libraries) are found from
# here (perfdata_root_paths()).  fib-split.py (two recursive functions,
# 60/40, at most 20 frames deep) runs under ref-sampler.py, as t3015's
# programs do.
#
# Not asserted yet (issue 28, item 2 is open there), measured here with
# this file at 23:10 on a loaded machine: complete stacks 98.0 % (3.14)
# and 97.5 % (3.15), the rest "dump full" at the 32 KiB default (each
# Python call takes C stack under CPython's trampoline; deep-kinds.py at
# 12 or 50 frames: 92 % deeper than perf's 64 KiB); and the shares
# against the in-run and the hook-free references were past t3015's
# bound (3.14: 9.7 and 5.4 points; the references' own difference, the
# hook's footprint, 11.3 points), not yet explained.
FIX=$PPR_SRCDIR/tests/fixtures
PROG=$FIX/fib-split.py
REF=$FIX/ref-sampler.py

test_have_prereq UROOT &&
	DIR=$(uroot_put "$PROG" "$REF")

for v in 3.14 3.15; do
	n=$(echo $v | tr -d .)
	py="chroot $UROOT /usr/bin/python$v"

	test_expect_success PERF,UROOT "$v: --mode jit takes CPython's own -X perf_jit, and the first line says why" "
		LC_ALL=C ppr record --mode jit -o s$n -- $py \"\$DIR/ref-sampler.py\" \
			\"\$DIR/hook$n\" --hz 1000 \"\$DIR/fib-split.py\" 2 \
			>out$n 2>err$n &&
		test_grep '^split ' out$n &&
		test_grep \"^pyperf-run: jit mode \\\\(python $v\\\\.[0-9]+ .*CPython's own trampoline \\\\(the embedded one: Python $v\\\\.[0-9]+ is not supported\" err$n &&
		test_grep '^trampoline=native$' s$n/meta &&
		test_grep \"^python_version=$v\\\\.\" s$n/meta &&
		ls s$n/jit/jit-*.dump &&
		pid=\$(sed -n 's/^program_pid=//p' s$n/meta) &&
		! ls \"\$UROOT/tmp\" | grep -E \"^(jit-|jitted-|perf-)\$pid[-.]\"
	"

	test_expect_success PERF,UROOT "$v: Python frames named, under the program's own callers" "
		ppr report -i s$n --view python --format collapsed -o s$n.col &&
		test_grep '<module> \\(.*fib-split.py\\);main \\(.*fib-split.py\\);fib_a \\(.*fib-split.py\\);fib_a ' s$n.col &&
		test_grep ';main \\(.*fib-split.py\\);fib_b \\(.*fib-split.py\\);fib_b ' s$n.col
	"
done

test_done
