#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='a bpf-mode session read by perf itself: report --perf-report and --format perf-data'
. ./test-lib.sh

# perf cannot put the frame walker's Python frames (perf.data's raw
# field) into the stacks it unwinds itself.  report --format perf-data
# writes the session's merged stacks as callchains, the Python frames
# as slots of a synthetic //anon mapping that perf names through
# /tmp/perf-PID.map; report --perf-report on a bpf session runs perf
# report on that export.  These tests run the real walker, perf and
# interpreter, and hold perf's view to pyperf-run's own report.

# a -> b -> c with a hot leaf c, beside other(), all under main()
cat >walker-perf.py <<\PY
import sys
import time


def c(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def b(n):
    return c(n)


def a(n):
    return b(n)


def other(n):
    s = 0
    for i in range(n):
        s ^= i
    return s


def main(seconds):
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        a(30000)
        a(30000)
        other(30000)


main(float(sys.argv[1]))
PY

# shares PERF_REPORT COLLAPSED FUNC: FUNC's self share in perf report
# --stdio --sort sym (one row per line of FUNC, summed) and in a
# collapsed report (the stacks whose leaf is FUNC); fails when they are
# more than a point apart or FUNC is not there
shares() {
	python3 - "$@" <<-\PY
	import re, sys
	perf, col, fn = sys.argv[1:4]
	p = 0.0
	for line in open(perf):
	    m = re.match(r"^\s+([0-9.]+)%\s+\[[.k]\]\s+(.*?)\s*$", line)
	    if m and m.group(2).split(" (")[0] == fn:
	        p += float(m.group(1))
	n = mine = 0
	for line in open(col):
	    stack, _, w = line.rstrip("\n").rpartition(" ")
	    n += int(w)
	    if stack.split(";")[-1].split(" (")[0] == fn:
	        mine += int(w)
	ours = 100.0 * mine / n if n else 0
	print("%s: perf %.2f %%, pyperf-run %.2f %%" % (fn, p, ours))
	sys.exit(not (p > 5 and abs(p - ours) <= 1.0))
	PY
}

# callers PERF_SCRIPT: in perf script's callchains (leaf first), every
# sample in c() has b, a, main and <module> below it in that order, and
# in most of them the interpreter's native frames below those
callers() {
	python3 - "$1" <<-\PY
	import re, sys
	samples, cur = [], None
	for line in open(sys.argv[1]):
	    if not line.strip():
	        cur = None
	        continue
	    if not line[0].isspace():
	        cur = []
	        samples.append(cur)
	        continue
	    m = re.match(r"\s+[0-9a-f]+ (.+?)\+0x[0-9a-f]+ \(", line)
	    if m and cur is not None:
	        cur.append(m.group(1).split(" (")[0])
	want = ["c", "b", "a", "main", "<module>"]
	n = bad = native = 0
	for fr in samples:
	    if "c" not in fr:
	        continue
	    n += 1
	    if not all(w in fr for w in want):
	        bad += 1
	        continue
	    at = [fr.index(w) for w in want]
	    if at != sorted(at):
	        bad += 1
	    if "Py_RunMain" in fr[at[-1]:]:
	        native += 1
	print("%d samples in c(), %d out of order, %d with Py_RunMain below"
	      % (n, bad, native))
	sys.exit(not n or bad or native < 0.9 * n)
	PY
}

# no_maps_for SESSION: /tmp has no perf map of the session's processes
no_maps_for() {
	for f in "$1".maps/perf-*.map; do
		test -e "$f" || continue
		if test -e "/tmp/$(basename "$f")"; then
			echo "/tmp/$(basename "$f") exists"
			return 1
		fi
	done
}

# with_maps EXPORT CMD...: CMD with EXPORT's perf maps in /tmp
with_maps() {
	x_=$1
	shift
	no_maps_for "$x_" || return 1
	cp "$x_".maps/perf-*.map /tmp/ &&
	"$@"
	st_=$?
	for f in "$x_".maps/perf-*.map; do
		rm -f "/tmp/$(basename "$f")"
	done
	return $st_
}

check_python() {
	py=$1 n=$2
	test_expect_success "BPF$3" "$n: record --mode bpf" "
		ppr record -q --mode bpf -o $n --python \"$py\" walker-perf.py 2 \
			>$n.out 2>$n.err &&
		test_grep '^mode=bpf$' $n/meta
	"

	test_expect_success "BPF$3" "$n: report --perf-report shows the Python functions, with our shares" "
		pid=\$(sed -n 's/^program_pid=//p' $n/meta) &&
		test -n \"\$pid\" &&
		! test -e /tmp/perf-\$pid.map &&
		ppr report -i $n --perf-report -- --stdio --no-children --sort sym \
			-g none >$n.pr 2>$n.prerr &&
		test_grep '\\[\\.\\] c \\(.*walker-perf.py:[0-9]+\\)' $n.pr &&
		test_grep '\\[\\.\\] other \\(.*walker-perf.py:[0-9]+\\)' $n.pr &&
		! test -e /tmp/perf-\$pid.map &&
		test -s $n/perf-python.data &&
		test -s $n/perf-python.maps/perf-\$pid.map &&
		ppr report -i $n --view all --format collapsed -o $n.col 2>/dev/null &&
		{ shares $n.pr $n.col c >$n.share; st=\$?; } &&
		cat $n.share &&
		test_diag \"$n: \$(cat $n.share)\" &&
		test \$st = 0
	"

	test_expect_success "BPF$3" "$n: --perf-report reads the export again, made once" "
		before=\$(stat -c %y $n/perf-python.data) &&
		ppr report -i $n --perf-report -- --stdio --sort sym >/dev/null 2>&1 &&
		test \"\$(stat -c %y $n/perf-python.data)\" = \"\$before\" &&
		touch $n/perf.data &&
		ppr report -i $n --perf-report -- --stdio --sort sym >/dev/null 2>&1 &&
		test \"\$(stat -c %y $n/perf-python.data)\" != \"\$before\"
	"

	test_expect_success "BPF$3" "$n: --format perf-data and perf script: callers in order" "
		ppr report -i $n --format perf-data -o $n.data 2>$n.xerr &&
		test_grep 'wrote .$n.data.: [0-9]+ samples \\([0-9]+ with an incomplete stack' $n.xerr &&
		perf report -i $n.data --header-only >$n.hdr 2>&1 &&
		test_grep 'event : name = cpu-clock' $n.hdr &&
		with_maps $n.data perf script -i $n.data >$n.ps 2>$n.pserr &&
		no_maps_for $n.data &&
		test_grep 'c \\(.*walker-perf.py:[0-9]+\\)\\+0x0 \\(/tmp/perf-[0-9]+\\.map\\)' $n.ps &&
		{ callers $n.ps >$n.callers; st=\$?; } &&
		cat $n.callers &&
		test_diag \"$n: \$(cat $n.callers)\" &&
		test \$st = 0
	"
}

check_python /usr/bin/python3 deb ''
if test_have_prereq PY313; then
	check_python "$(ppr_python 3.13)" py313 ',PY313'
else
	test_skip 'py313: the export on CPython 3.13' "$(test_prereq_PY313)"
fi

test_expect_success BPF 'a stack past the frame cap keeps its pseudo frame, counted' '
	cat >deep.py <<-\PY &&
	import sys, time
	sys.setrecursionlimit(10000)
	def leaf(seconds):
	    t0 = time.process_time()
	    while time.process_time() - t0 < seconds:
	        sum(i * i for i in range(1000))
	def down(n, seconds):
	    if n <= 1:
	        return leaf(seconds)
	    return down(n - 1, seconds)
	down(2300, 1)
	PY
	ppr record -q --mode bpf -o cap --python /usr/bin/python3 deep.py 2>/dev/null &&
	ppr report -i cap --format perf-data -o cap.data 2>cap.xerr &&
	test_grep "wrote .cap.data.: [0-9]+ samples \([1-9][0-9]* with an incomplete stack" cap.xerr &&
	test_grep "\[incomplete stack: frame cap\]$" cap.data.maps/perf-*.map &&
	with_maps cap.data perf script --max-stack 4000 -i cap.data >cap.ps 2>/dev/null &&
	test_grep "\[incomplete stack: frame cap\]\+0x0" cap.ps &&
	cut=$(sed -n "s/.*samples (\([0-9]*\) with an incomplete stack.*/\1/p" cap.xerr) &&
	shown=$(grep -c "\[incomplete stack: " cap.ps) &&
	test_diag "$cut samples cut, $shown shown cut by perf script" &&
	test "$cut" = "$shown" &&
	ppr report -i cap --perf-report -- --stdio --sort sym >/dev/null 2>cap.prerr &&
	test_grep "warning: [0-9]+ of the [0-9]+ samples in .* have an incomplete stack" cap.prerr
'

test_expect_success BPF 'perf-data: the filter leaves samples out, and says how many' '
	ppr report -i deb --format perf-data --time 0,0.5 -o half.data 2>half.err &&
	test_grep "wrote .half.data.: [0-9]+ samples \([0-9]+ with an incomplete stack, [1-9][0-9]* left out by the filter\)" half.err
'

# the user nobody can run pyperf-run and reach this directory
test_prereq_NOBODY() {
	test_prereq_NOBODY_PPR &&
	{ as_nobody test -x "$PWD" || { echo "nobody cannot reach $PWD"; return 1; }; }
}

test_expect_success BPF,NOBODY '--perf-report on a session it cannot write to: an export for the run, removed after' '
	cp -r deb ro &&
	rm -rf ro/perf-python.data ro/perf-python.maps &&
	chown -R 65534 ro &&
	chmod 555 ro &&
	mkdir xtmp &&
	chmod 777 xtmp &&
	TMPDIR=$PWD/xtmp as_nobody "$PPR_BIN" report -i ro --perf-report -- \
		--stdio --no-children --sort sym -g none >ro.pr 2>ro.err &&
	test_grep "\[\.\] c \(.*walker-perf.py:[0-9]+\)" ro.pr &&
	! test -e ro/perf-python.data &&
	test -z "$(ls xtmp)" &&
	pid=$(sed -n "s/^program_pid=//p" ro/meta) &&
	! test -e /tmp/perf-$pid.map
'

test_expect_success BPF 'perf-data needs -o, and is not for other sessions' '
	test_must_fail ppr report -i deb --format perf-data >nope.data 2>err1 &&
	test_grep "give -o <file>" err1 &&
	mkdir -p ps/maps &&
	printf "format=1\nmode=perf\n" >ps/meta &&
	cp deb/perf.data ps/perf.data &&
	test_must_fail ppr report -i ps --format perf-data -o ps.data 2>err2 &&
	test_grep "is a perf-mode session: perf reads its perf.data as it is" err2 &&
	! test -e ps.data
'

test_done
