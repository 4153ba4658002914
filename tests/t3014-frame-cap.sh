#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Frame-pointer chains stop at the kernel's callchain cap
# (kernel.perf_event_max_stack).  The samples of a part of the program
# deeper than the cap must be counted as cut at the cap, shown under
# one pseudo root, and said in json's quality and warnings; the shallow
# part keeps its share.
test_description='report: stacks cut at the kernel frame cap are counted'
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

test_expect_success SESSION 'json: the cut count matches the deep part, the warning says it' '
	cap=$(cat /proc/sys/kernel/perf_event_max_stack) &&
	ppr report -i deep -f json -o deep.json 2>/dev/null &&
	ppr report -i deep -f collapsed -o deep.col 2>/dev/null &&
	python3 "$SHARES" deep.col shallow_part >shares &&
	cat shares &&
	python3 - deep.json deep.col split shares "$cap" <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	q, warnings = d["quality"], d["warnings"]
	split = dict(l.split() for l in open(sys.argv[3]))
	shallow_pct = float(open(sys.argv[4]).read().split("=")[1])
	cap = sys.argv[5]
	print("quality:", q)
	cut = q["cut"]["depth"]
	# the pseudo root holds exactly the samples counted
	roots = 0
	for line in open(sys.argv[2], encoding="utf-8"):
	    stack, n = line.rsplit(" ", 1)
	    if stack.startswith("[incomplete stack: frame cap]"):
	        roots += int(n)
	    # a pseudo root is a root, never inside a stack
	    assert "[incomplete stack: " not in stack.partition(";")[2], stack
	assert roots == cut, (roots, cut)
	# cut share of the two parts, against the program own timings
	shallow = shallow_pct * d["samples"] / 100
	profiled = 100.0 * cut / (cut + shallow)
	deep_s, shallow_s = float(split["deep_part"]), float(split["shallow_part"])
	measured = 100.0 * deep_s / (deep_s + shallow_s)
	print("deep part: measured %.1f%%, cut at the cap %.1f%%" % (measured, profiled))
	assert abs(profiled - measured) <= 3, (profiled, measured)
	# the warning: the count, the samples judged and the cap
	want = "(%s of %s) have incomplete stacks: the call chain reached " \
	       "the kernel\x27s cap of %s frames" % ("{:,}".format(cut),
	                                          "{:,}".format(q["judged"]), cap)
	assert any(want in w and w.endswith("[incomplete stack: frame cap]")
	           for w in warnings), (want, warnings)
	assert q["complete"] + sum(q["cut"].values()) == q["judged"], q
	EOF
'

test_expect_success SESSION 'text: the same warning in the header' '
	ppr report -i deep --no-tree >deep.txt 2>/dev/null &&
	test_grep "^# warning: +[0-9]+% of samples \([0-9,]+ of [0-9,]+\) have incomplete stacks: the call chain reached the kernel.s cap of [0-9]+ frames" deep.txt
'

test_done
