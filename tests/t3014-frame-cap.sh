#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Frame-pointer chains stop at the kernel's callchain cap
# (kernel.perf_event_max_stack, 127 frames: 15 to 40 Python frames).
# Context trampolines name every Python caller from the innermost one
# the chain holds: a part of the program deeper than the cap must keep
# whole stacks and its share, with nothing counted as cut at the cap.
# (Without contexts, CPython's own trampoline, the cap cuts them: the
# judging of such stacks is tested with it in t2004.)
test_description='report: stacks deeper than the kernel frame cap stay whole'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/load-depth.py
SHARES=$PPR_SRCDIR/tests/fixtures/load-shares.py

test_prereq_SESSION() {
	test -s deep/perf.data && test -s split ||
		{ echo "the recording failed"; return 1; }
}

test_expect_success PERF,FP_PYTHON 'record 80 Python frames deep in perf mode' '
	ppr record -q --mode perf -o deep --python "$(ppr_fp_python)" \
		"$PROG" split 1.2 80 >out 2>err &&
	grep "^mode=perf$" deep/meta &&
	cat split
'

test_expect_success SESSION 'json: nothing cut at the cap, both parts keep their shares' '
	ppr report -i deep -f json -o deep.json 2>/dev/null &&
	ppr report -i deep -f collapsed -o deep.col 2>/dev/null &&
	python3 "$SHARES" deep.col shallow_part deep_part >shares &&
	cat shares &&
	python3 - deep.json split shares <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	q = d["quality"]
	split = dict(l.split() for l in open(sys.argv[2]))
	got = dict(l.strip().split("=") for l in open(sys.argv[3]))
	print("quality:", q)
	assert q["cut"]["depth"] == 0, q
	# The only cut chains are native ones, broken in code without frame
	# pointers (Debian builds libc and ld.so without them; a library
	# _init that ld.so calls has none either; t2004 judges those): each
	# cut stack holds no Python frame.  The Python part, deeper than
	# the cap, is never cut.
	kind = {f["name"]: f["kind"] for f in d["functions"]}
	cut = 0
	for line in open("deep.col"):
	    stack, n = line.rsplit(" ", 1)
	    frames = stack.split(";")
	    if frames[0] != "[incomplete stack: no root]":
	        continue
	    cut += int(n)
	    assert not any(kind.get(f) == "python" for f in frames), line
	assert cut == q["cut"]["noroot"], (cut, q)
	deep_s, shallow_s = float(split["deep_part"]), float(split["shallow_part"])
	both = float(got["deep_part"]) + float(got["shallow_part"])
	profiled = 100.0 * float(got["deep_part"]) / both
	measured = 100.0 * deep_s / (deep_s + shallow_s)
	print("deep part: measured %.1f%%, profiled %.1f%%" % (measured, profiled))
	assert abs(profiled - measured) <= 3, (profiled, measured)
	EOF
'

test_expect_success SESSION 'text: no frame-cap warning' '
	ppr report -i deep --no-tree >deep.txt 2>/dev/null &&
	head -n 8 deep.txt &&
	! test_grep "kernel.s cap of" deep.txt
'

test_done
