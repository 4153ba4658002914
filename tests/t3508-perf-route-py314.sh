#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='perf record'"'"'s route on CPython 3.14 and 3.15 (Debian unstable'"'"'s, chrooted): CPython'"'"'s own -X perf_jit, whole stacks, the hook-free shares'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-2,5-6
# sanitize-set: 3 needs 2
# sanitize-set: 7 needs 6
. "$PPR_SRCDIR/tests/fixtures/uroot-lib.sh"

# The embedded trampoline serves 3.8 to 3.13; on 3.14 and 3.15 perf
# record's route (--mode jit, or --trampoline auto: not bpf mode) uses
# CPython's own -X perf_jit, which record switches on itself
# (PYTHON_PERF_JIT_SUPPORT=1).  `record -- chroot ROOT /usr/bin/python3.X`
# probes the interpreter in its root, and the program's files (its
# jitdump in ROOT/tmp, the interpreter and its libraries) are found from
# here (perfdata_root_paths()).
#
# As t3015 does for 3.8-3.13: a program under ref-sampler.py, complete
# stacks (>= 99 %, out of those not cut in the sampler's own signal
# delivery or before the interpreter ran: under ASan, with a slower exec
# helper, those were 15 of a 3.15 run's 2,091 samples, 98.9 % complete
# with them, 99.6 % without), the profile against the same run's reference and against a
# hook-free reference run separately (without -X perf_jit), each
# difference within K standard errors of the sampling noise (K from
# ref-compare.py for ALPHA per comparison; t3015 explains the bound),
# and the hook's footprint (the two references' difference) printed.
#
# The profile's shares are of the program's own run, the samples under
# its <module> (ref-compare.py's --base divides by those, but counts a
# function's samples anywhere): the interpreter's start-up, before the
# reference starts, imports json & co., and with CPython's trampoline
# writing a jitdump entry for each new code object that was 1.9 % of a
# 3.14 run's samples, in importlib's functions (0.2 % in the reference).
#
# The program is fib-split.py (two recursive functions, 60/40, in 20 ms
# slices, about 30 frames deep), not deep-kinds.py: under CPython's own
# trampoline every Python call on 3.14 takes C stack: at 12 of
# deep-kinds.py's levels 6.5 % of the stacks were complete in the 32 KiB
# dump (54 KiB would hold 99 %), at 50 levels 4 %, deeper than the 64 KiB
# perf can copy (the embedded trampoline's context trampolines, which
# 3.8-3.13 get, need no deep copy; bpf mode none).
#
# The root's standard library has no byte code (dpkg -x installs no
# .pyc), and with PYTHONDONTWRITEBYTECODE each run compiled json &
# co. again, before the reference started: 5 % of the samples, in
# importlib, outside its window, and 2 % of the stacks cut (the parser's
# deep C stacks).  Byte code goes to this test's directory
# (PYTHONPYCACHEPREFIX), written by a run of no length first: when the
# hook-free run wrote it, the imports after its sampler started
# (runpy's) were compiled in it alone, and importlib's functions were
# 0.9 points (4.1 standard errors) apart from the profile's.
FIX=$PPR_SRCDIR/tests/fixtures
ALPHA=1e-5
BASE="<module> (fib-split.py)"
REF=$FIX/ref-sampler.py

test_have_prereq UROOT &&
	DIR=$(uroot_put "$FIX/fib-split.py" "$REF")
unset PYTHONDONTWRITEBYTECODE
PYTHONPYCACHEPREFIX=${DIR:-/nonexistent}/pycache
export PYTHONPYCACHEPREFIX

# compare REF OTHER OUT [ARGS...]: ppr_ref_compare at this test's bound
compare() {
	cmp_ref=$1 cmp_other=$2 cmp_out=$3 &&
	shift 3 &&
	ppr_ref_compare "$cmp_ref" "$cmp_other" "$cmp_out" "$ALPHA" "$BASE" "$@"
}

for v in 3.14 3.15; do
	n=$(echo $v | tr -d .)
	py="chroot $UROOT /usr/bin/python$v"

	test_expect_success PERF,UROOT "$v: doctor -- chroot ROOT python$v: which trampoline, why, and the record line" "
		ppr doctor --trampoline auto -- $py prog.py >doc$n &&
		test_grep \"CPython $v\\\\.[0-9]+ \\(/usr/bin/python$v in the root \" doc$n &&
		test_grep '^  ok +jit mode, native trampoline' doc$n &&
		test_grep \"why: .*CPython's own trampoline \\(-X perf_jit; the embedded one: Python $v\" doc$n &&
		test_grep \"PYTHON_PERF_JIT_SUPPORT=1 .* -- chroot [^ ]+ /usr/bin/python$v prog.py\\$\" doc$n
	"

	test_expect_success PERF,UROOT "$v: --mode jit takes CPython's own -X perf_jit, the first line says why, the jitdump comes from the root" "
		LC_ALL=C $py \"\$DIR/ref-sampler.py\" \"\$DIR/warm$n\" --hz 1000 \
			\"\$DIR/fib-split.py\" 0 >warm$n.out &&
		LC_ALL=C $py \"\$DIR/ref-sampler.py\" \"\$DIR/free$n\" --hz 1000 \
			\"\$DIR/fib-split.py\" 2 >free$n.out &&
		LC_ALL=C ppr record --mode jit -o s$n -- $py \"\$DIR/ref-sampler.py\" \
			\"\$DIR/hook$n\" --hz 1000 \"\$DIR/fib-split.py\" 2 \
			>out$n 2>err$n &&
		test_grep '^split ' out$n &&
		test_grep \"^pyperf-run: jit mode \\(python $v\\\\.[0-9]+ .*CPython's own trampoline \\(-X perf_jit; the embedded one: Python $v\\\\.[0-9]+ is not supported\" err$n &&
		test_grep '^trampoline=native$' s$n/meta &&
		test_grep \"^python_version=$v\\\\.\" s$n/meta &&
		ls s$n/jit/jit-*.dump &&
		pid=\$(sed -n 's/^program_pid=//p' s$n/meta) &&
		! ls \"\$UROOT/tmp\" | grep -E \"^(jit-|jitted-|perf-)\$pid[-.]\"
	"

	test_expect_success PERF,UROOT "$v: Python frames named, whole stacks" "
		ppr report -i s$n --view python --format collapsed -o s$n.py.col &&
		test_grep '<module> \\(.*fib-split.py\\);main \\(.*fib-split.py\\);fib_a \\(.*fib-split.py\\);fib_a ' s$n.py.col &&
		test_grep ';main \\(.*fib-split.py\\);fib_b \\(.*fib-split.py\\);fib_b ' s$n.py.col &&
		ppr report -i s$n --format json -o s$n.json &&
		ppr report -i s$n --format collapsed -o s$n.col &&
		ppr_check_complete_sampler s$n.col s$n.json 99 '$v -X perf_jit' \\
			before >s$n.complete ||
			{ cat s$n.complete; return 1; }
		test_diag \"\$(cat s$n.complete)\"
	"

	test_expect_success PERF,UROOT "$v: the shares of the same run's reference and of the hook-free run" "
		cp \"\$UROOT_TMP/hook$n\" \"\$UROOT_TMP/free$n\" . &&
		grep '<module> ([^)]*fib-split.py' s$n.col >s$n.prog.col &&
		{
			compare hook$n s$n.prog.col s$n.cmp --drop-file ref-sampler.py
			echo \$? >s$n.cmp.rc
			compare free$n hook$n s$n.foot
			compare free$n s$n.prog.col s$n.free --drop-file ref-sampler.py
			echo \$? >s$n.free.rc
			test_diag \"$v -X perf_jit: profile against the same run's reference \$(ppr_diff_of s$n.cmp); hook footprint \$(ppr_diff_of s$n.foot); profile against the hook-free reference \$(ppr_diff_of s$n.free)\"
		} &&
		{ test \"\$(cat s$n.cmp.rc)\" = 0 || { cat s$n.cmp; false; }; } &&
		{ test \"\$(cat s$n.free.rc)\" = 0 || { cat s$n.free; false; }; }
	"
done

test_done
