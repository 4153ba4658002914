#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='bpf mode: Python thread names, 3.8-3.10 qualified names, kernel stacks without the walker'"'"'s own frames'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/walker-lib.sh"

# What bpf mode reads from the target besides its frames (lib/walker/
# pyobj.c): Python's names of its threads (pythreads.c) and, on CPython
# 3.8-3.10, whose code objects hold only co_name, the functions'
# qualified names (pyqual.c), the same names the trampoline gives.  And
# the kernel stacks the walker records stop where the program's own
# stack ends, not in the walker's BPF program (kself.c).  t3501 checks
# the offsets these reads use against each interpreter's headers, and
# the names on every interpreter from 3.8 to 3.15.
#
# Its programs count their own CPU time (time.thread_time_ns), so that a
# loaded machine makes them longer, not different: about 2 s of CPU for
# the threads, 1.5 s for each split, whatever the wall time.

THREADS=$PPR_SRCDIR/tests/fixtures/walker-threads.py
SPLIT=$PPR_SRCDIR/tests/fixtures/walker-split.py
CMP=$PPR_SRCDIR/tests/fixtures/ref-compare.py

# The bound of the statistical tests, as t3015's: a share measured on n
# samples against the known split has a standard error of
# sqrt(p (1 - p) / n); each of the N differences may be K of those, K
# for a false-failure probability of ALPHA per comparison (Bonferroni).
ALPHA=1e-5

# thread_shares COLLAPSED PROGRAM_OUT: each thread of the program's
# "thread TID NAME" lines has a --per-thread root "NAME_(COMM)-PID/TID"
# and, of the samples under busy(), a share within the bound of the
# equal share every thread was given
thread_shares() {
	python3 - "$@" "$ALPHA" <<-\PY
	import re, sys
	from statistics import NormalDist
	want = {}
	for line in open(sys.argv[2]):
	    if line.startswith("thread "):
	        _, tid, name = line.rstrip("\n").split(" ", 2)
	        want[int(tid)] = name
	busy, names = {}, {}
	for line in open(sys.argv[1]):
	    stack, _, w = line.rstrip("\n").rpartition(" ")
	    m = re.match(r"^(.*)_\([^)]*\)-[0-9]+/([0-9]+)$", stack.split(";")[0])
	    if not m:
	        continue
	    tid = int(m.group(2))
	    names[tid] = m.group(1)
	    if re.search(r";busy \([^)]*walker-threads\.py:[0-9]+\)", stack):
	        busy[tid] = busy.get(tid, 0) + int(w)
	n = sum(busy.values())
	p = 1.0 / len(want)
	k = NormalDist().inv_cdf(1 - float(sys.argv[3]) / (2 * len(want)))
	bound = 100 * k * (p * (1 - p) / max(n, 1)) ** 0.5
	bad = 0
	for tid, name in sorted(want.items()):
	    share = 100.0 * busy.get(tid, 0) / n if n else 0
	    ok = names.get(tid) == name and abs(share - 100 * p) <= bound
	    bad += not ok
	    print("%s %-12s tid %d: labelled %r, %.1f %% of %d busy samples (%.1f +- %.1f)" %
	          ("ok" if ok else "NOT OK", name, tid, names.get(tid), share, n, 100 * p, bound))
	sys.exit(bad != 0 or len(want) != 11 or n < 1000)
	PY
}

for py in /usr/bin/python3 $(ppr_python 3.8); do
	v=$(ppr_python_version "$py") || continue
	test_expect_success BPF "python $v: ten named threads and MainThread by their Python names, each with its share" '
		ppr record -q --mode bpf -o th$v --python "$py" "$THREADS" 0.2 >th$v.out 2>th$v.err &&
		test $(grep -c "^thread " th$v.out) = 11 &&
		ppr report -i th$v --per-thread --format collapsed -o th$v.col &&
		thread_shares th$v.col th$v.out >th$v.shares; s=$?
		cat th$v.shares &&
		test $s = 0 &&
		ppr report -i th$v --format text >th$v.txt &&
		sed -n "/^Processes and threads/,/^\$/p" th$v.txt >th$v.table &&
		while read -r _ tid name; do
			grep -E "^ +[0-9.]+% +[0-9]+ +[0-9]+ +$tid +$name \\(" th$v.table ||
				{ echo "no row for $name ($tid)"; cat th$v.table; return 1; }
		done <th$v.out
	'
done

test_expect_success BPF 'a session without Python thread names (an older pycode file) reads as before' '
	s=th$(ppr_python_version /usr/bin/python3) &&
	test -d "$s" &&
	cp -r "$s" old &&
	grep -v "^t " "$s/pycode" >old/pycode &&
	ppr report -i old --format text >old.txt &&
	sed -n "/^Processes and threads/,/^\$/p" old.txt >old.table &&
	! grep -E "MainThread|reporter" old.table &&
	test $(grep -cE " [0-9]+  python3\$" old.table) = 11
'

# The split: Delta.method 40 %, Other.method 30 %, spin 20 %,
# Delta.<lambda> 10 % of run(), measured by the program itself.  Before
# the walker read qualified names on 3.8-3.10, the two methods were one
# row "method" and the lambda "<lambda>": 8.7 points off on 3.8.
for v in 3.8 3.10 3.12; do
	py=$(ppr_python $v) || {
		test_skip "python $v: the split by qualified names" "no python$v installed"
		continue
	}
	test_expect_success BPF "python $v: Delta.method, Other.method, Delta.<lambda> and spin apart, within the bound of the known split" '
		ppr record -q --mode bpf -o sp$v --python "$py" "$SPLIT" sp$v.ref 1.5 >sp$v.out 2>sp$v.err &&
		test_grep "^split " sp$v.out &&
		ppr report -i sp$v --format collapsed -o sp$v.col &&
		python3 "$CMP" sp$v.ref sp$v.col --top 5 --alpha "$ALPHA" \
			--base "run (walker-split.py)" >sp$v.cmp; s=$?
		cat sp$v.cmp &&
		test_diag "python $v: $(tail -n 1 sp$v.cmp)" &&
		test $s = 0 &&
		test_grep "Delta\\.<lambda> \\([^)]*walker-split\\.py:[0-9]+\\)" sp$v.col &&
		test_grep "Other\\.method \\([^)]*walker-split\\.py:[0-9]+\\)" sp$v.col &&
		! grep -E "(^|;)(method|<lambda>) \\([^)]*walker-split" sp$v.col
	'
done

# The frozen importlib's code ("<frozen importlib._bootstrap_external>")
# is named with its class too (SourceLoader.get_code, as the trampoline
# names it): the walk for its names reads the frozen module itself, by
# its name.  It read every module without a __file__ (builtins and each
# of its classes: 25 ms each time), and in a short program most methods
# of the frozen code had no class (3.8: 7 of 34 names had one, none of
# the file loaders').  1 s of CPU of imports from files, 40 in turn (120
# imports, 25 samples, were too few to count on).
test_expect_success BPF 'python 3.8-3.10: frozen importlib methods named with their class' '
	modules40 fz f "VALUE = %d\n" &&
	printf "import importlib, sys, time\nsys.dont_write_bytecode = True\nt = time.process_time()\nwhile time.process_time() - t < 1:\n    for i in range(1, 41):\n        sys.modules.pop(\"f%%d\" %% i, None)\n        importlib.import_module(\"f%%d\" %% i)\n" >fz/main.py &&
	ok=0 &&
	for v in 3.8 3.9 3.10; do
		py=$(ppr_usable_python $v) || continue
		ppr record -q --mode bpf -o fz$v --python "$py" fz/main.py \
			>fzout 2>fzerr &&
		ppr report -i fz$v --format collapsed --view python -o fz$v.col &&
		tr ";" "\n" <fz$v.col | grep "(<frozen importlib" |
			sed "s/ (.*//" | sort -u >fz$v.names &&
		test_diag "python $v: $(grep -c "\." fz$v.names) of $(wc -l <fz$v.names) frozen importlib functions with a class" &&
		grep -E "^(FileFinder|SourceLoader|FileLoader|PathFinder|_LoaderBasics|SourceFileLoader)\." fz$v.names &&
		ok=$((ok + 1)) || return 1
	done &&
	test "$ok" -ge 1
'

# --wall: a thread's stack at a switch-out is taken by the walker's
# sched_switch program, whose own frames (the JIT-compiled program,
# named by the last symbol before it, and bpf_trace_runN) came above
# __schedule.  Now the stack ends at __schedule, the function traced.
test_expect_success BPF '--wall: kernel stacks end where the program'"'"'s own stack ends, not in the walker'"'"'s BPF program' '
	cat >sleepy.py <<-\EOF &&
	import threading, time
	def nap():
	    for i in range(40):
	        time.sleep(0.005)
	def spin():
	    end = time.time() + 0.4
	    while time.time() < end:
	        pass
	t = threading.Thread(target=nap, name="napper")
	t.start()
	spin()
	t.join()
	EOF
	ppr record -q --mode bpf --wall -o wall --python /usr/bin/python3 sleepy.py 2>wall.err &&
	ppr report -i wall --view all --format collapsed -o wall.col &&
	grep "\\[off-cpu " wall.col >off.col &&
	test_grep "nap \\(" wall.col &&
	# the html timeline labels the threads by their Python names
	ppr report -i wall --clock wall --format html -o wall.html &&
	test_grep "\\[[0-9]+,[0-9]+,\"napper \\(" wall.html &&
	test_grep "\\[[0-9]+,[0-9]+,\"MainThread \\(" wall.html &&
	test_grep "__schedule_\\[k\\];\\[off-cpu " off.col &&
	# every off-CPU stack with kernel frames ends at __schedule
	! grep "_\\[k\\]" off.col | grep -v "__schedule_\\[k\\];\\[off-cpu " &&
	# none of the walker'"'"'s own programs (perf_event and tp_btf ones,
	# with their bpf_loop callbacks and walk_user, the function they
	# share; it loads no trampoline).  Another
	# BPF program of the machine stays in the stacks that ran it: once
	# a sample in an exec'"'"'s commit_creds ended in __bpf_prog_enter_recur,
	# the entry of a trampoline (fentry, LSM) that was not the walker'"'"'s
	! grep -E "bpf_prog_[0-9a-f]+_(walker_[a-z]+|ts_step|py_step|probe_step|wake_step|walk_user)|_einittext|bpf_trace_run[0-9]+_\\[k\\];\\[off-cpu" wall.col &&
	! grep -E "bpf_trace_run[0-9]+_\\[k\\];[^ ]" wall.col
'

test_done
