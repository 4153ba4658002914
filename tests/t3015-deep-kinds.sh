#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record + report: complete Python stacks at any depth, shares against an in-process sampler'
. ./test-lib.sh

# With default settings, deep stacks through every kind of call
# (generators, coroutines, map/sorted/reduce callbacks, methods, lambdas,
# exec, imports within imports: tests/fixtures/deep-kinds.py) must come
# out whole (>= 99 % of the samples reach the program's <module>), with
# the inclusive shares of tests/fixtures/ref-sampler.py, a sampler in
# the program (a timer signal whose handler walks f_back, never
# truncated), over the program's own run (under its <module>: the
# reference does not see the interpreter's start-up).  Without context
# trampolines, 150 frames of this kind already need more stack than the
# 65528 bytes perf can copy.
#
# Two references, two questions:
# - the profiler's accuracy: the reference runs inside the recorded
#   program (record runs ref-sampler.py, which runs deep-kinds.py), so
#   both see the same run with the same hook: the profile must give the
#   shares that run had.  The samples perf took in the sampler's
#   handler are left out (--drop-file), as the sampler leaves its own
#   time out of its weights.
# - the hook's footprint: a second reference runs the program alone,
#   without the trampoline.  At the deepest depth, the program alone is
#   also recorded through the hook, without the sampler, and that
#   profile must give the hook-free reference's shares (the last test;
#   check_alone says why not the sampler's own run).  The two
#   references' largest difference is printed too (TAP diagnostics).
#
# The bound is the sampling noise, not a fixed number of points: a
# share p of n1 and n2 samples (about 2,000 each side, 2 s of CPU at
# 1000 Hz) has a standard error of sqrt(p (1 - p) (1/n1 + 1/n2)) (1.4
# points at 30 %, 0.2 at 99 %), and each of the 15 differences of a
# comparison may be K of those, K chosen by ref-compare.py for a
# false-failure probability of ALPHA per comparison (K = 5.0 for 15
# functions).  The plain pass makes at most 19 asserted comparisons
# here (13 recorded runs, each against its own reference, and 6
# programs alone against the hook-free one), the sanitizer pass fewer
# (tests/sanitize-skip): 19 x 1e-5 < 1e-3 per suite run.
#
# What failed before (issue 22): the reference used ITIMER_PROF, which
# the kernel only checks at its own ticks (CONFIG_HZ=250 here): 576
# samples, not 2,000, for a run, and at 900 frames its handler cost
# about a tick, so nested ticks were charged to the handler's own
# frames (3.10, 900 frames, loaded machine: main 90.7 % against 99.3,
# posixpath.basename 16 %).  ref-sampler.py now ticks on ITIMER_REAL,
# weighs by CPU time, and leaves its handler's time out.
ALPHA=1e-5
BASE="<module> (deep-kinds.py)"

PROG=$PPR_SRCDIR/tests/fixtures/deep-kinds.py
REF=$PPR_SRCDIR/tests/fixtures/ref-sampler.py

# compare REF OTHER OUT [ARGS...]: ppr_ref_compare at this test's bound
compare() {
	cmp_ref=$1 cmp_other=$2 cmp_out=$3 &&
	shift 3 &&
	ppr_ref_compare "$cmp_ref" "$cmp_other" "$cmp_out" "$ALPHA" "$BASE" "$@"
}

# fp_check_complete NAME MIN% LABEL: at least MIN% of the session NAME's
# samples are complete, out of those not cut in Debian's libc or ld.so
# (how many those were is printed).  perf mode unwinds user stacks in
# the kernel by frame pointers, and Debian builds libc and ld.so
# without them: a sample in malloc, memmove, read or dlopen (the
# program's imports) loses its callers whatever the interpreter.  They
# were 36 of the 40 cut samples of 2,348 in a run here (the others: 2
# [unknown], 1 in Python's signal handler, 1 in Py_BytesMain), 1.5 %:
# that run was 98.3 % complete, 99.8 % without them.  The frame-pointer
# build's own code is what this test is about, and its samples stay
# judged.
fp_check_complete() {
	ppr report -i "$1" --format speedscope -o "$1.speedscope" &&
	python3 - "$1.speedscope" "$2" "$3" <<'PYEOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
frames = d["shared"]["frames"]
nofp = re.compile(r"/(libc\.so\.6|ld-linux[^/]*\.so\.2)$")
judged = complete = libc = 0
for p in d["profiles"]:
    for st, w in zip(p["samples"], p["weights"]):
        names = [frames[i]["name"] for i in st]
        if names and names[0] in ("[python start-up]",):
            continue
        cut = bool(names) and names[0].startswith("[incomplete stack")
        user = [frames[i] for i in st
                if frames[i].get("file") != "[kernel.kallsyms]"]
        if cut and user and nofp.search(user[-1].get("file", "")):
            libc += w
            continue
        judged += w
        complete += 0 if cut else w
pct = 100.0 * complete / judged
print("%s: %d of %d stacks complete (%.1f %%), %d more cut in libc or ld.so"
      % (sys.argv[3], complete, judged, pct, libc))
sys.exit(pct < float(sys.argv[2]))
PYEOF
}

# check_run PY DEPTH [MODE] [MIN%|fp-own]: record the program under the
# reference sampler, report, compare: MIN% complete stacks (default 99),
# out of those not cut in the sampler's own signal delivery
# (ppr_check_complete_sampler: 24 of the 25 cut samples of a 3.12 run at
# 50 frames were there), and the profile against the run's own reference
# (NAME.cmp).  With HOOK_FREE=1 it also runs the hook-free reference
# (NAME.ref, which check_alone compares with) and prints the two
# references' difference (NAME.foot).  Without, that reference would
# only be printed: a run of 2 s of CPU saved where nothing asserts on it
# (issue 31: the suite's time).
check_run() {
	name=r-$(echo "$1" | tr -c "a-z0-9\n" _)-$2-${3:-auto} &&
	# no MODE: perf record's route, its automatic mode (--trampoline auto)
	ppr record -q --python "$1" $(test -n "${3:-}" && echo "--mode $3" ||
				      echo "--trampoline auto") -o "$name" \
		"$REF" "$name.hook" --hz 1000 "$PROG" "$2" "${ROUNDS:-2}" \
		>"$name.out" 2>"$name.err" &&
	test_grep "^split " "$name.out" &&
	ppr report -i "$name" --format json -o "$name.json" &&
	ppr report -i "$name" --format collapsed -o "$name.col" &&
	if test "${HOOK_FREE:-}" = 1; then
		"$1" "$REF" "$name.ref" --hz 1000 "$PROG" "$2" "${ROUNDS:-2}" >/dev/null
	fi &&
	if test "${4:-}" = fp-own; then
		fp_check_complete "$name" 99 "depth $2"
	else
		ppr_check_complete_sampler "$name.col" "$name.json" \
			"${4:-99}" "depth $2"
	fi &&
	# Before 3.11 the reference only has co_name: compare by that.
	case $(ppr_python_version "$1") in
	3.8|3.9|3.10) co=--co-name ;;
	*) co= ;;
	esac &&
	{
		compare "$name.hook" "$name.col" "$name.cmp" $co \
			--drop-file ref-sampler.py
		echo $? >"$name.cmp.rc"
		if test "${HOOK_FREE:-}" = 1; then
			compare "$name.ref" "$name.hook" "$name.foot"
			test_diag "$(ppr_python_version "$1") ${3:-auto} mode, $2 frames: profile against the same run's reference $(ppr_diff_of "$name.cmp"); both references (the sampler with and without the hook) $(ppr_diff_of "$name.foot")"
		else
			test_diag "$(ppr_python_version "$1") ${3:-auto} mode, $2 frames: profile against the same run's reference $(ppr_diff_of "$name.cmp")"
		fi
	} &&
	test "$(cat "$name.cmp.rc")" = 0 || { cat "$name.cmp"; return 1; }
}

# check_alone PY DEPTH: the hook's footprint on the program alone.
# Record deep-kinds.py through the hook (perf record's route,
# --trampoline auto) without sampling it (ref-sampler.py --hz 0: started
# as the sampled runs start it, with the sampler's imports and runpy,
# so that its <module> does the same work), and compare the profile
# with check_run's hook-free reference of the same PY and DEPTH
# (r-...-auto.ref, another run).  Leaves NAME.free (its status in
# NAME.free.rc) and a line "X.Y NAME" in runs, for free_ok.
#
# Started as "python3 deep-kinds.py", the program imported in its
# <module> what the sampler had already imported: 2.6 % of its samples
# were there (0.6 % in the sampled runs; 3.13, 900 frames), and every
# function under main() was 2 points short of the reference's share.
#
# Why not the profile of check_run's own run: there the sampler runs
# inside the hooked program, and the two interact.  3.9 at 900 frames:
# the sampler's own shares with the hook and without it differed by 0.9
# to 1.4 points of spin() in four pairs of runs (2.8 standard errors
# once), while perf's profiles of the program alone, with the hook and
# without any (bpf mode), gave spin() 95.4/95.2 % and 95.5/95.3 %.  The
# program alone is what a user profiles.  In one run of this test
# beside t3502 (this design): the program alone against the hook-free
# reference 1.3 to 2.1 standard errors on the seven interpreters, the
# sampler-inside profiles of the same runs up to 3.0; CI's suite once
# had one of the latter past the bound (K = 5) on 3.8 to 3.10.
check_alone() {
	ref=r-$(echo "$1" | tr -c "a-z0-9\n" _)-$2-auto &&
	name=$ref-alone &&
	ppr record -q --python "$1" --trampoline auto -o "$name" \
		"$REF" "$name.none" --hz 0 "$PROG" "$2" 2 \
		>"$name.out" 2>"$name.err" &&
	test_grep "^split " "$name.out" &&
	ppr report -i "$name" --format collapsed -o "$name.col" &&
	case $(ppr_python_version "$1") in
	3.8|3.9|3.10) co=--co-name ;;
	*) co= ;;
	esac &&
	{
		compare "$ref.ref" "$name.col" "$name.free" $co
		echo $? >"$name.free.rc"
		echo "$(ppr_python_version "$1") $name" >>runs
		test_diag "$(ppr_python_version "$1") auto mode, $2 frames, the program alone: profile against the hook-free reference $(ppr_diff_of "$name.free")"
	}
}

# 3.12 counts every call through a PEP 523 hook against its C recursion
# limit (t5006): 500 frames of this kind (a third of them C callbacks)
# raise RecursionError there with any hook, CPython's own -X perf too.
depth_for() {
	if test "$1" -gt 400 && test "$(ppr_python_version "$2")" = 3.12; then
		echo 400
	else
		echo "$1"
	fi
}

# The bpf-mode test comes first: the sanitizer pass runs a test's first
# subtests only, as far as the last that runs code no other kept test
# runs (tests/sanitize-skip), and only this one here does (the walker's
# names for 3.8's methods, its spill of unqualified names).
# The frame walker (record --mode bpf) changes nothing in the program:
# the reference inside the recorded run is a hook-free reference, and
# the profile must give its shares on every interpreter, at 900 frames
# of every kind of call (3.12: 400, its C recursion limit).  3.8 to
# 3.10 spend C stack on every Python call: far past the copied stack,
# every Python frame is still there (the walker reads them all), only
# the C frames between outer calls are missing, and report says so.
#
# One interpreter of each frame layout the walker knows: 3.8 (frame
# objects), Debian's 3.11 (stripped; is_entry), 3.12 (shim frames from
# tables) and 3.13 (_Py_DebugOffsets); t3502 covers every version at 400
# plain frames.
#
# The samples taken before the walker has read the interpreter (its
# start-up's imports: no Python frames yet, C stacks deeper than the
# 8 KiB copy) are not judged: report shows them under [python start-up]
# and says how many.  Until it did, they counted as cut, and the walker
# starts slower under ASan: 29 of 2,140 samples (1.4 %) on 3.8 in a
# rehearsal's sanitizer pass, which then recorded 4 rounds here.
test_expect_success PERF,BPF 'bpf mode: whole stacks and the hook-free shares, each frame layout' '
	found= &&
	stripped=$(ppr_stripped_python 3.11 || :) &&
	for py in $(ppr_pythons); do
		case $(ppr_python_version "$py") in
		3.8|3.12|3.13) ;;
		3.11) test "$py" = "$stripped" || continue ;;
		*) continue ;;
		esac
		found=1
		d=$(depth_for 900 "$py") &&
		echo "== $py, $d frames, bpf mode" &&
		check_run "$py" "$d" bpf || return 1
	done &&
	test -n "$found"
'

# 900 frames (3.12: 400) on every interpreter: the depth where stacks
# break and shares drift, which the runs exist for.  (50 frames, a stack
# any unwinder holds, was recorded on 3.8 and 3.13 too until issue 31:
# t2003 and t3502 check such stacks whole on every version.)
test_expect_success PERF 'every interpreter: whole stacks and right shares at 900 frames' '
	found= &&
	for py in $(ppr_pythons); do
		case $(ppr_python_version "$py") in
		3.8|3.9|3.10|3.11|3.12|3.13) ;;
		*) continue ;;
		esac
		ppr_record_can_use "$py" k || continue
		found=1
		d=$(depth_for 900 "$py") &&
		echo "== $py, $d frames" &&
		HOOK_FREE=1 &&
		check_run "$py" "$d" &&
		HOOK_FREE= &&
		# the hook on the program alone (test 5)
		check_alone "$py" "$d" || return 1
	done &&
	test -n "$found"
'

# Debian's stripped 3.11 at 400 frames (150, a depth between test 1's
# two, was recorded here too until issue 31's cut of the suite's time)
test_expect_success PERF,STRIPPED_PY311 'the distribution 3.11: whole stacks and right shares at 400 frames' '
	for depth in 400; do
		echo "== $STRIPPED_PY311, $depth frames" &&
		check_run "$STRIPPED_PY311" $depth || return 1
	done
'

# The frame-pointer build in jit mode (the automatic choice, for C code
# without frame pointers).  Its functions end in "leave; ret" with the
# rbp rule left at its save slot, which the ret has popped below sp:
# a sample on such a ret (about 1.5 % here, in _Py_NewReference) lost
# its callers in both perf unwinders and, until the unwinder kept such
# a register's value, in the native reader (97.9 % complete then).
test_expect_success PERF,FP_PYTHON 'a frame-pointer build, in perf mode too (127-frame kernel cap)' '
	fp=$(ppr_fp_python) &&
	check_run "$fp" 400 perf fp-own &&
	check_run "$fp" 400
'

# free_ok VERSION...: the runs of these versions (at least one) gave the
# hook-free reference's shares
free_ok() {
	found= &&
	while read -r v n; do
		case " $* " in *" $v "*) ;; *) continue ;; esac
		found=1
		echo "$v $n: $(tail -n 1 "$n.free")"
		test "$(cat "$n.free.rc")" = 0 || { cat "$n.free"; bad=1; }
	done <runs &&
	test -n "$found" && test -z "${bad:-}"
}

# The hook's footprint is small here: the program's time is in spin()'s
# loop, which makes no Python calls, and it descends in 2 rounds (the
# descents' cost varies between runs with the machine's load: with 10
# rounds, 3.13 at 900 frames gave spin() 90.2 % without the hook and
# 83.9 % with it, and bpf mode on 3.8 93.8 % and 89.9 % in two runs,
# which no bound on sampling noise covers).  Until this test recorded
# the program alone (check_alone), it held the profile of the run with
# the sampler inside to the hook-free reference: the sampler's
# interaction with the hook then counted as the hook's footprint, 2.9
# standard errors on 3.9 at 900 frames here, and past the bound (K = 5)
# once in CI's suite on 3.8 to 3.10.
test_expect_success PERF 'without the hook: the profile gives the hook-free reference'"'"'s shares' '
	free_ok 3.8 3.9 3.10 3.11 3.12 3.13
'

test_done
