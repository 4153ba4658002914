#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='the frame walker on CPython 3.14 and 3.15 (Debian unstable'"'"'s own builds, chrooted): deep stacks, lines, attach, wall, a real program'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1,4-10,13-19
# sanitize-set: 2-3 needs 1
# sanitize-set: 11-12 needs 10
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"
. "$PPR_SRCDIR/tests/fixtures/uroot-lib.sh"

# Debian unstable's python3.14 (3.14.10) and python3.15 (3.15.2) need
# its glibc: they run chrooted into the root .ci/setup.d/unstable-root.sh
# makes, as `record -- chroot ROOT /usr/bin/python3.X prog.py` runs them.
# The walker reads them through their _Py_DebugOffsets (t3501 checks
# the offsets against their headers); it sees the process from outside
# the root, where /proc/PID/maps names its files by their path here.
# The programs are copied into this test's directory in the root's /tmp
# (removed at the end).  As t3502 does for 3.8-3.13: the program's
# output and status, functions with lines in every format, whole stacks
# at 50 and 900 frames, attaching to a running server; then --wall's
# ground truth (as t3060), and pytest on one of sympy's test files from
# Debian unstable's python3-sympy and python3-pytest against
# ref-sampler.py, the hook-free in-process reference, in the same run
# (as t3050: within 3 points).

PROG=$PPR_SRCDIR/tests/fixtures/walker-target.py
REF=$FIX/ref-sampler.py
CMP=$FIX/ref-compare.py

. "$PPR_SRCDIR/tests/fixtures/walker-lib.sh"

test_have_prereq UROOT &&
	DIR=$(uroot_put "$PROG" "$REF" "$FIX/wall-truth.py" \
		"$FIX/walker-long-names.py")

# ns_server X.Y: walker-target.py's server under pythonX.Y as a
# container runs it: in a mount namespace of its own (unshare -m, mounts
# private), with a tmpfs of its own on the root's /tmp (the program is
# copied there), chrooted into the root.  Called in the background: it
# execs, so $! is the interpreter's pid (unshare, sh and chroot exec
# each other in turn).
ns_server() {
	exec unshare -m --propagation private sh -c '
		mount -t tmpfs ppr-test "$1/tmp" &&
		mkdir "$1/tmp/app" &&
		cp "$2" "$1/tmp/app/" &&
		exec chroot "$1" "/usr/bin/python$3" /tmp/app/walker-target.py serve 60 2
	' sh "$UROOT" "$PROG" "$1"
}

for v in 3.14 3.15; do
	n=$(echo $v | tr -d .)
	py="chroot $UROOT /usr/bin/python$v"

	test_expect_success BPF,UROOT "$v: record: the program's output and exit status pass through, bpf mode" "
		ppr record -q --mode bpf -o s$n -- $py \"\$DIR/walker-target.py\" deep 50 1 7 >out$n 2>err$n;
		test \$? = 7 &&
		test_grep '^deep done 50$' out$n &&
		test_grep '^mode=bpf$' s$n/meta &&
		test_grep '^exit_status=7$' s$n/meta
	"

	test_expect_success BPF,UROOT "$v: Python functions, with lines, in every format" "
		ppr report -i s$n --format text >text$n &&
		test_grep 'leaf \\(walker-target.py:[0-9]+\\)' text$n &&
		ppr report -i s$n --format json -o s$n.json &&
		python3 -c '
import json
d = json.load(open(\"s$n.json\"))
fr = [f for f in d[\"functions\"] if f[\"function\"] == \"leaf\"]
assert fr and all(f.get(\"line\", 0) > 20 for f in fr), fr
' &&
		ppr report -i s$n --format collapsed >col$n &&
		test_grep 'down \\(.*walker-target.py:[0-9]+\\);leaf' col$n
	"

	# python$v is stripped; its symbols are in the root's
	# /usr/lib/debug/.build-id (the -dbg package): run_mod(), a static
	# function every script runs under, is named from there
	test_expect_success BPF,UROOT "$v: the interpreter's static functions are named from the root's debug file" "
		ppr report -i s$n --format collapsed --view all >all$n &&
		test_grep ';run_mod(\\.lto_priv\\.[0-9]+)?;' all$n
	"

	# 5 s: the start-up's samples are judged cut (the dynamic loader's
	# first frames, without unwind information; the interpreter's
	# initialisation and the parser compiling the program, C stacks
	# deeper than the 8 KiB dump): under ASan at a load of 16 they were
	# 22 of 2,088 samples in 2 s (1.1 %), 32 of 3,089 in 3 s (1.0 %)
	for depth in 50 900; do
		test_expect_success BPF,UROOT "$v: whole stacks at $depth frames" "
			ppr record -q --mode bpf -o d$n-$depth -- $py \"\$DIR/walker-target.py\" \
				deep $depth 5 >/dev/null 2>err$n-$depth &&
			ppr report -i d$n-$depth --format json -o d$n-$depth.json &&
			ppr_check_complete d$n-$depth.json 99 '$v, depth $depth' &&
			ppr report -i d$n-$depth --view python --format collapsed -o d$n-$depth.col &&
			deep_share d$n-$depth.col $depth 99
		"
	done

	# the server runs until killed: a 2 s attach took 10 s in all on a
	# machine with a load of 16 (the walker loaded and verified, the
	# code objects named from the process after the recording)
	test_expect_success BPF,UROOT "$v: record -p: attach to a running server, frames already running are in the stacks" "
		$py \"\$DIR/walker-target.py\" serve 60 2 >served$n 2>&1 &
		tpid=\$! &&
		wait_ready served$n &&
		ppr record -q -p \$tpid --duration 2 -o a$n 2>a$n.err &&
		kill -0 \$tpid &&
		kill \$tpid &&
		wait \$tpid;
		test \$? = 143 &&
		ppr report -i a$n --format collapsed >a$n.col &&
		test_grep '<module> \\(.*walker-target.py:[0-9]+\\);main \\(.*\\);serve_forever \\(.*\\);handle' a$n.col &&
		test_grep '_bootstrap.*;worker \\(.*\\);handle' a$n.col &&
		test_grep \"^attached=\$tpid\$\" a$n/meta
	"

	# a container's Python: its own mount namespace and root, and a /tmp
	# only it sees; attached from outside, its frames already running
	# are named, and the walker leaves no file in /tmp, ours or its
	test_expect_success BPF,UROOT "$v: record -p of a Python in its own mount namespace and root" "
		ns_server $v >servedm$n 2>&1 &
		tpid=\$! &&
		wait_ready servedm$n &&
		test \"\$(sed -n 's/^ready //p' servedm$n)\" = \$tpid &&
		test \"\$(readlink /proc/\$tpid/ns/mnt)\" != \"\$(readlink /proc/self/ns/mnt)\" &&
		ppr record -q -p \$tpid --duration 2 -o m$n 2>m$n.err &&
		ls /proc/\$tpid/root/tmp/ >intmp$n &&
		kill -0 \$tpid &&
		kill \$tpid &&
		wait \$tpid;
		test \$? = 143 &&
		test \"\$(cat intmp$n)\" = app &&
		! ls /tmp/perf-\$tpid.map /tmp/jit-\$tpid.dump 2>/dev/null &&
		ppr report -i m$n --format collapsed >m$n.col &&
		test_grep '<module> \\(/tmp/app/walker-target.py:[0-9]+\\);main \\(.*\\);serve_forever \\(.*\\);handle' m$n.col &&
		test_grep '_bootstrap.*;worker \\(.*\\);handle' m$n.col
	"

	# wall-truth.py's five phases (CPU, sleep, a pipe, a lock, the
	# GIL): each phase's wall share of the main thread within 3 points
	# of its own perf_counter() measure, with the wait's reason (record
	# -v: its notes and counts of intervals are shown on a miss)
	test_expect_success BPF,UROOT "$v: --wall: the ground truth: each phase's wall share and its wait's reason" "
		ppr record -v --wall --mode bpf -o w$n -- $py \"\$DIR/wall-truth.py\" \
			\"\$DIR/w$n.truth\" >w$n.out 2>w$n.err &&
		test \"\$(meta w$n exit_status)\" = 0 &&
		test \"\$(meta w$n wall)\" = walker &&
		ppr report -i w$n --reader native --format collapsed \
			--tid \"\$(meta w$n program_pid)\" -o w$n.col 2>/dev/null &&
		python3 \"\$FIX/wall-check.py\" \"\$UROOT_TMP/w$n.truth\" w$n.col >w$n.check ||
			{ cat w$n.check w$n.err; return 1; }
		test_diag \"$v: \$(cat w$n.check)\"
	"

	# Python's names of the threads (pythreads.c reads them from
	# threading._active; t3501 checks the offsets it reads at against
	# the -dev headers): ten threads the program names, each name longer
	# than the kernel's 15-byte comm (3.14+ sets the comm from it, cut),
	# and MainThread (comm python3.X).  The per-thread view's roots and
	# the text report's table name each by its whole Python name; the
	# comm alone, as before 3.14 and 3.15 had an object table, fails.
	test_expect_success BPF,UROOT "$v: bpf mode: ten named threads and MainThread by their Python names" '
		ppr record -q --mode bpf -o ln$n -- $py "$DIR/walker-long-names.py" 0.1 \
			>ln$n.out 2>ln$n.err &&
		test $(grep -c "^thread " ln$n.out) = 11 &&
		pid=$(meta ln$n program_pid) &&
		ppr report -i ln$n --per-thread --format collapsed -o ln$n.col &&
		ppr report -i ln$n --format text >ln$n.txt &&
		sed -n "/^Processes and threads/,/^\$/p" ln$n.txt >ln$n.table &&
		while read -r _ tid name; do
			grep -Eq "^${name}_\\([^)]*\\)-$pid/$tid;" ln$n.col &&
			grep -Eq "^ +[0-9.]+% +[0-9]+ +$pid +$tid +$name \\(" ln$n.table ||
				{ echo "thread $tid: not named $name"; cat ln$n.table; return 1; }
		done <ln$n.out
	'

	# pytest on sympy's core/tests/test_arit.py (as t3050), its hash
	# seed fixed (sympy's set orders change the work it does); the 20
	# largest inclusive shares under pytest's <module> within 3 points of
	# ref-sampler.py in the same run (its own samples left out on both
	# sides).  Two of its tests fail with Debian unstable's sympy 1.14 on
	# 3.14 and 3.15 (test_oddness_in_ternary_integer_product_with_odd,
	# test_evenness_...): left out, so that the status says the run
	# worked.  The sanitizer pass (SANITIZE=1) runs it on 3.15 only: the
	# code it checks there (the walker's reading and naming of a real
	# program's code objects) is the same for 3.14 and 3.15, and 3.14's
	# run cost about 20 s of that pass.
	if test "${PPR_SANITIZE:-}" = 1 && test $v = 3.14; then
		echo "# sanitizer pass: pytest on sympy on 3.15 only (the plain pass: 3.14 too)"
		continue
	fi
	test_expect_success BPF,UROOT_EXTRAS "$v: pytest on sympy (Debian unstable's): whole stacks, within 3 points of a hook-free reference" "
		PYTHONHASHSEED=0 &&
		export PYTHONHASHSEED &&
		ppr record -q --mode bpf -o sy$n -- $py \"\$DIR/ref-sampler.py\" \"\$DIR/sy$n.ref\" \
			--hz 1000 -m pytest -q -p no:cacheprovider -W ignore \
			-k 'not ternary_integer_product_with_odd' \
			/usr/lib/python3/dist-packages/sympy/core/tests/test_arit.py \
			>sy$n.out 2>sy$n.err &&
		test_grep ' passed' sy$n.out &&
		test \"\$(meta sy$n exit_status)\" = 0 &&
		ppr report -i sy$n --format json -o sy$n.json &&
		ppr report -i sy$n --format collapsed -o sy$n.col &&
		ppr_check_complete sy$n.json 99 '$v: pytest on sympy' &&
		python3 \"\$CMP\" \"\$UROOT_TMP/sy$n.ref\" sy$n.col --top 20 --tol 3 \
			--base '<module> (__main__.py)' --drop-file ref-sampler.py >sy$n.cmp ||
			{ cat sy$n.cmp; return 1; }
		test_diag \"$v: pytest on sympy: \$(tail -n 1 sy$n.cmp)\"
	"
done

test_done
