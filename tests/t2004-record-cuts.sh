#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record: cut stacks judged truthfully in both modes, hints only when they help, the automatic mode right with C code without frame pointers'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-6
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

# An interpreter without frame pointers (jit mode), and the
# frame-pointer build with a compiler for the extension.
test_prereq_NOFP311() {
	NOFP=$(record_python 3.11) || { echo "$NOFP"; return 1; }
	"$PPR_BIN" doctor --json --python "$NOFP" >nofp.json 2>/dev/null
	test "$(json_get nofp.json perf_mode.name)" = jit ||
		{ echo "$NOFP does not get jit mode"; return 1; }
}
test_prereq_CEXT() {
	test_prereq_FP_PYTHON || return 1
	command -v cc >/dev/null || { echo "no C compiler"; return 1; }
	fp=$(ppr_fp_python) &&
	inc=$("$fp" -c "import sysconfig; print(sysconfig.get_paths()[\"include\"])") &&
	suf=$("$fp" -c "import sysconfig; print(sysconfig.get_config_var(\"EXT_SUFFIX\"))") &&
	test -f "$inc/Python.h" || { echo "no Python.h for $fp"; return 1; }
	mkdir -p "$TRASH/ext" &&
	cc -O2 -fomit-frame-pointer -fPIC -shared -I"$inc" \
		-o "$TRASH/ext/reccext$suf" "$FIX/rec-cext.c" ||
		{ echo "cannot build the extension"; return 1; }
}
test_have_prereq PERF,NOFP311 && NOFP=$(record_python 3.11)
# CPython 3.13's own perf_jit trampoline: no contexts, so deep stacks
# are cut at the dump and judged as such (context trampolines, the
# default, rebuild them: t3015).
test_prereq_NATIVE313() {
	N313=$(record_python 3.13) || { echo "$N313"; return 1; }
}
test_have_prereq PERF,NATIVE313 && N313=$(record_python 3.13)
NATIVE="--trampoline native --stack-size 32768"
test_have_prereq FP_PYTHON && FPPY=$(ppr_fp_python)

# The share of judged samples whose outermost user frame is not where a
# process or thread starts, from perf script itself (no frame cap).
# pyperf-run's own exec helper (comm pyperf-run, before it execs the
# program) is left out, as the report leaves it out: under ASan it runs
# long enough to take 5-10 % of a short recording, its stacks cut in the
# dynamic loader.
cut_share() {
	perf --buildid-dir "$1/buildid" script -i "$1/perf.data" \
		--max-stack 65535 -F comm,ip,sym --no-inline 2>/dev/null |
	awk '
	function judge() {
		if (n > 0 && comm != "pyperf-run") {
			all++
			if (last !~ /^(_start|__libc_start_main|__libc_start_call_main|clone|clone3|__clone|__clone3|__clone_internal|start_thread)(@.*)?$/)
				cut++
		}
		n = 0
	}
	/^$/ { judge(); next }
	/^[^ \t]/ { comm = $1; next }
	{
		if ($1 ~ /^ffff/ && length($1) == 16) next
		n++; last = $2
	}
	END { judge(); printf "%.4f\n", all ? cut / all : 0 }'
}

# close A B POINTS: |A - B| <= POINTS
close() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		if (d > t) { printf "%s and %s differ by more than %s\n", a, b, t; exit 1 }
	}'
}

test_expect_success PERF,NATIVE313 'jit mode, 40 Python frames: complete, and record says so' '
	record_env "$PPR_BIN" record --trampoline auto -o d40 $NATIVE --python "$N313" \
		"$FIX/rec-deep.py" 1.5 40 >out 2>err &&
	cat err &&
	test "$(meta d40 mode)" = jit &&
	real=$(cut_share d40) && echo "cut: meta $(meta d40 truncated), perf script $real" &&
	close "$(meta d40 truncated)" "$real" 0.02 &&
	awk "BEGIN { exit !($real < 0.05) }" &&
	! test_grep "^hint: " err
'

# 3.13's frames take less C stack than 3.11's: 200 Python frames are
# well past what 65528 bytes hold (100 were close to it).
test_expect_success PERF,NATIVE313 'jit mode, 200 Python frames: the cut share is right and no bigger dump is advised' '
	record_env "$PPR_BIN" record --trampoline auto -o d100 $NATIVE --python "$N313" \
		"$FIX/rec-deep.py" 1.5 200 >out 2>err &&
	cat err &&
	real=$(cut_share d100) && echo "cut: meta $(meta d100 truncated), perf script $real" &&
	close "$(meta d100 truncated)" "$real" 0.02 &&
	awk "BEGIN { exit !($real > 0.5) }" &&
	test_grep "^pyperf-run record: warning: " err &&
	! test_grep "^hint: .*with --stack-size [0-9]" err &&
	test_grep "^hint: .*deeper than the 65528 bytes perf can copy.*would not help" err
'

test_expect_success PERF,NATIVE313 'jit mode, 60 Python frames: the --stack-size advised is measured, and it helps' '
	record_env "$PPR_BIN" record --trampoline auto -o d60 $NATIVE --python "$N313" \
		"$FIX/rec-deep.py" 1.5 60 >out 2>err &&
	cat err &&
	awk "BEGIN { exit !($(meta d60 truncated) > 0.5) }" &&
	size=$(sed -n "s/^hint: record again with --stack-size \([0-9]*\): .*/\1/p" err) &&
	test -n "$size" && test "$size" -gt 32768 && test "$size" -le 65528 &&
	test_grep "^pyperf-run record: warning: a [0-9]*-byte stack dump would complete 99% of the" err &&
	record_env "$PPR_BIN" record -o d60b --trampoline native \
		--stack-size "$size" --python "$N313" "$FIX/rec-deep.py" 1.5 60 \
		>out 2>err2 &&
	cat err2 &&
	awk "BEGIN { exit !($(meta d60b truncated) < 0.05) }" &&
	! test_grep "^hint: " err2 &&
	! test_grep "would complete" err2
'

test_expect_success PERF,CEXT 'perf mode, a C leaf without frame pointers: record says so and hints jit mode' '
	PYTHONPATH="$TRASH/ext" record_env "$PPR_BIN" record --trampoline auto -o cperf \
		--mode perf --python "$FPPY" "$FIX/rec-cext.py" 2 >out 2>err &&
	cat out err &&
	own=$(sed -n "s/.*crunch=\([0-9.]*\).*/\1/p" out) &&
	got=$(sed -n "s/^hint: record again with --mode jit: \([0-9]*\)% of the stacks broke off.*/\1/p" err) &&
	test -n "$got" &&
	close "$got" "$own" 10 &&
	test_grep "^pyperf-run record: warning: " err &&
	awk "BEGIN { exit !($(meta cperf truncated) > 0.2) }"
'

# The Python caller of the extension and the C leaf, as shares of the
# samples in the program's two timed parts.
shares() {
	python3 - "$1" <<-\PY
	import json, sys
	r = json.load(open(sys.argv[1]))
	t = {}
	for f in r["functions"]:
	    t[f["function"]] = max(t.get(f["function"], 0), f["total_samples"])
	both = t.get("crunch", 0) + t.get("pyloop", 0)
	print("%.2f %.2f" % (100.0 * t.get("crunch", 0) / both,
	                     100.0 * t.get("rec_kernel", 0) / both))
	PY
}

test_expect_success PERF,CEXT 'the automatic mode gets the C leaf and its caller right' '
	PYTHONPATH="$TRASH/ext" record_env "$PPR_BIN" record --trampoline auto -o cauto \
		--python "$FPPY" "$FIX/rec-cext.py" 2.5 >out 2>err &&
	cat out err &&
	"$PPR_BIN" report -i cauto --format json -o cauto.json &&
	own=$(sed -n "s/.*crunch=\([0-9.]*\).*/\1/p" out) &&
	set -- $(shares cauto.json) &&
	echo "own $own, profiled: crunch $1, rec_kernel $2 (mode $(meta cauto mode))" &&
	close "$1" "$own" 3 &&
	close "$2" "$own" 3
'

test_expect_success PERF,FP_PYTHON 'perf mode, 60 Python frames: the kernel frame cap no longer cuts them' '
	record_env "$PPR_BIN" record -o cap --mode perf --python "$FPPY" \
		"$FIX/rec-deep.py" 1 60 >out 2>err &&
	cat err &&
	test "$(meta cap max_stack)" = "$(cat /proc/sys/kernel/perf_event_max_stack)" &&
	# the raw chains stop at the 127-frame cap ...
	real=$(cut_share cap) && echo "perf script alone: $real cut" &&
	awk "BEGIN { exit !($real > 0.5) }" &&
	# ... and context trampolines rebuild every Python stack the
	# chain reaches (a leaf in code without frame pointers, the vDSO
	# clock_gettime this program calls, still breaks about 1 %)
	awk "BEGIN { exit !($(meta cap truncated) < 0.03) }" &&
	! test_grep "^hint: " err
'

# A sample in a page fault can come with none of the user stack copied
# (perf: "ustack: size 0"); its stack is cut, and the reason said is
# that, with how many, not a frame without unwind information.  New
# threads that touch new memory give such samples in every run (Debian's
# python3.11: 200 of 3,200 at 4999 Hz; far fewer with pyenv's, whose
# libpython is shared); perf's own dump of the records is the reference.
test_prereq_DEB() {
	DEB=$(ppr_distro_python 3.11) || { echo "no Debian python3.11"; return 1; }
}
test_expect_success PERF,DEB 'jit mode: samples with no stack copied are said to be so' '
	DEB=$(ppr_distro_python 3.11) &&
	record_env "$PPR_BIN" record -q --mode jit -F 4999 -o nostack \
		--python "$DEB" "$FIX/thread-faults.py" 100 >out 2>err &&
	perf report -D -i nostack/perf.data 2>/dev/null |
		grep -c "ustack: size 0," >zero || : &&
	z=$(cat zero) &&
	"$PPR_BIN" report -i nostack -o nostack.txt 2>/dev/null &&
	grep "incomplete stacks" nostack.txt >cutline || : &&
	cat cutline &&
	n=$(sed -n "s/.*for \([0-9,]*\) of them, the kernel copied none of the user stack.*/\1/p" cutline | tr -d ,) &&
	if test -z "$n" && grep -q "incomplete stacks: the kernel copied none of the user stack" cutline; then
		n=$(sed -n "s/.* (\([0-9,]*\) of [0-9,]*) have incomplete stacks.*/\1/p" cutline | tr -d ,)
	fi &&
	test_diag "perf: $z samples with no stack copied; the report: ${n:-none}" &&
	test "$z" -ge 1 &&
	test -n "$n" && test "$n" -ge 1 && test "$n" -le "$z"
'

test_done
