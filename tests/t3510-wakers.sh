#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record --wall --wakers: each wait credited to the thread, function and line that ended it'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-11,15-18,20-24
# sanitize-set: 12 needs 1
# sanitize-set: 13 needs 3
# sanitize-set: 14 needs 5
# sanitize-set: 19 needs 1
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"
. "$TEST_DIR/lib-flame.sh"

# The ground truth (tests/fixtures/wakers-truth.py): a thread that waits
# for a threading.Lock only while critical() holds it, and a consumer
# of a queue.Queue that only produce() fills.  report --wakers must
# credit >= 95 % of the lock waits to critical() at the line that
# releases the lock (its with statement; 3.8 gives the __exit__ call the
# line of the block's last statement; the waiter's wait for the holder
# to start, ready.wait(), is no wait of the lock's and left out: under
# load it is tens of ms), and >= 90 % of the
# consumer's waits to produce().  On Debian's python3, 3.8 and 3.13.

FIX=$PPR_SRCDIR/tests/fixtures
PROG=$FIX/wakers-truth.py
SHARE=$FIX/wakers-share.py
# the with statement whose end releases the lock
LOCK_LINE=$(grep -n "^    with lock:$" "$PROG" | cut -d: -f1)

test_prereq_DEB() {
	DEB=$(ppr_distro_python 3.11) || { echo "no Debian python3.11"; return 1; }
}
test_prereq_PY38() {
	PY38=$(record_python 3.8) || { echo "$PY38"; return 1; }
}
test_prereq_PY313() {
	PY313=$(record_python 3.13) || { echo "$PY313"; return 1; }
}
test_have_prereq DEB && DEB=$(ppr_distro_python 3.11)
test_have_prereq PY38 && PY38=$(record_python 3.8)
test_have_prereq PY313 && PY313=$(record_python 3.13)

# wakers NAME PYTHON lock|queue|pipe|chain|exit: record --wall --wakers,
# then the waiting thread's (NAME.tid's first line) wakers view in
# collapsed form (NAME.col)
wakers() {
	ppr record -q --wall --wakers -o "$1" --python "$2" "$PROG" "$3" \
		"$1.tid" >"$1.out" 2>"$1.err" &&
	test "$(meta "$1" exit_status)" = 0 &&
	ppr report -i "$1" --wakers --format collapsed \
		--tid "$(sed -n 1p "$1.tid")" -o "$1.col" 2>"$1.rerr"
}

# wake_row NAME REASON: NAME's waiting thread's "who made whom wait"
# table (report --wakers --tid, into NAME.table, shown), and its
# largest row of REASON (NAME.row)
wake_row() {
	ppr report -i "$1" --wakers --tid "$(cat "$1.tid")" -o "$1.txt" \
		2>"$1.terr" &&
	sed -n "/^Who made whom wait/,/^\$/p" "$1.txt" >"$1.table" &&
	cat "$1.table" &&
	awk -v r="$2" '$6 == r { print; exit }' "$1.table" >"$1.row"
}

# at_least NAME WAIT WAKER MIN [--skip FRAME] [--under FRAME]: the
# share of NAME's WAIT time whose waker's stack has WAKER is at least
# MIN percent (the waits under a --skip frame left out; with --under,
# only the waits under that frame: wakers-share.py)
at_least() {
	n_=$1 w_=$2 k_=$3 m_=$4 &&
	shift 4 &&
	share_=$(python3 "$SHARE" "$w_" "$k_" "$@" <"$n_.col" 2>"$n_.why") &&
	echo "$n_: $share_ % of $w_ credited to $k_" &&
	cat "$n_.why" &&
	awk -v s="$share_" -v m="$m_" "BEGIN { exit !(s >= m) }"
}

for v in DEB PY38 PY313; do
	test_expect_success "BPF,$v" "$v: >= 95 % of the lock waits credited to critical() at its with line" '
		eval py=\$$v &&
		line=$LOCK_LINE &&
		if test $v = PY38; then line=$((LOCK_LINE + 1)); fi &&
		wakers lock-$v "$py" lock &&
		at_least lock-$v "[off-cpu lock]" "critical ($PROG:$line)" 95 \
			--skip "Event.wait ("
	'
	test_expect_success "BPF,$v" "$v: >= 90 % of the queue consumer's waits credited to produce()" '
		eval py=\$$v &&
		wakers queue-$v "$py" queue &&
		at_least queue-$v "[off-cpu lock]" "produce (" 90
	'
done

# Across processes: the main thread's waits on a multiprocessing Pipe
# (its io waits under _ConnectionBase.recv: the interpreter's start-up
# reads files too, io waits that a disk's interrupt ends, and a loaded
# machine's page cache may not hold them) are credited to write_it(), in
# the forked child that writes to it (the walker follows children); its
# io row in the table names
# write_it(), not the standard library's Connection._send under it
for v in DEB PY313; do
	test_expect_success "BPF,$v" "$v: >= 90 % of a pipe reader's waits credited to the writing child's write_it()" '
		eval py=\$$v &&
		wakers pipe-$v "$py" pipe &&
		at_least pipe-$v "[off-cpu io]" "write_it (" 90 \
			--under "_ConnectionBase.recv (" &&
		wake_row pipe-$v io &&
		test_grep " main \(wakers-truth\.py\) +write_it \(wakers-truth\.py:[0-9]+\)\$" pipe-$v.row
	'
done

# A child's exit: the main thread's reap() waits in os.waitpid for each
# of three forked children (watched: the walker follows children), which
# run child_work() and exit.  The kernel wakes the parent from the
# child's do_exit(), after its memory is gone (exit_mm()): no registers
# or stack to read there, which made it "an unwatched process".  Every
# one of the parent's waits for a child must be credited to the child it
# waited for, as that watched process's thread, exiting; the children's
# own samples are in the session under their pids (their functions are
# not checked: a child gone before the recorder read its code objects
# leaves them unnamed).
for v in DEB PY313; do
	test_expect_success "BPF,$v" "$v: a parent's waits in waitpid credited to each exiting child, not to an unwatched process" '
		eval py=\$$v &&
		wakers exit-$v "$py" exit &&
		pids=$(sed -n 2p exit-$v.tid) &&
		test $(echo $pids | wc -w) = 3 &&
		grep "\[off-cpu child\];" exit-$v.col >exit-$v.child &&
		sed "s/;try_to_wake_up.* / /" exit-$v.child &&
		! grep "woken by an unwatched process" exit-$v.child &&
		! grep -v "\[off-cpu child\];\[woken by [^]]*, exiting\]" exit-$v.child &&
		for pid in $pids; do
			test_grep "\[off-cpu child\];\[woken by [^]]*[-, ]$pid/$pid, exiting\]" \
				exit-$v.child &&
			ppr report -i exit-$v --format collapsed --tid $pid \
				-o exit-$v.$pid.col 2>/dev/null &&
			test -s exit-$v.$pid.col || return 1
		done
	'
done

# Chains (report --chain): sink()'s queue waits end in relay(), which
# had just waited for produce(): without --chain none of them reach
# produce(), with it >= 90 % do, through "[which had just waited]"
test_expect_success BPF,DEB 'report --wakers --chain: a waker that had just waited is followed to its own waker' '
	wakers chain-DEB "$DEB" chain &&
	at_least chain-DEB "[off-cpu lock]" "relay (" 95 &&
	share=$(python3 "$SHARE" "[off-cpu lock]" "produce (" <chain-DEB.col) &&
	echo "without --chain: $share % reach produce()" &&
	test "$share" = 0.0 &&
	ppr report -i chain-DEB --wakers --chain --format collapsed \
		--tid "$(cat chain-DEB.tid)" -o chain-DEB.col 2>chain-DEB.rerr &&
	at_least chain-DEB "[off-cpu lock]" "produce (" 90 &&
	test_grep "\[which had just waited\];\[woken by [^]]*produce" chain-DEB.col &&
	test_must_fail ppr report -i chain-DEB --chain 2>chain-DEB.err2 &&
	test_grep "give --wakers too" chain-DEB.err2
'

# The text report's "who made whom wait" table of a lock session: the
# waiting thread's largest lock row is waiter() woken by critical() at
# the line that releases the lock (the sessions above)
for v in DEB PY38 PY313; do
	test_expect_success "BPF,$v" "$v: report --wakers's table: the waiter's largest lock row credits critical() at its with line" '
		line=$LOCK_LINE &&
		if test $v = PY38; then line=$((LOCK_LINE + 1)); fi &&
		wake_row lock-$v lock &&
		test_grep " waiter \(wakers-truth\.py\) +critical \(wakers-truth\.py:$line\)\$" lock-$v.row
	'
done

# The GIL's holders (wakers-truth.py gil): hog() runs pure Python while
# four threads sleep, do a socket round trip and some Python work.  The
# summary must name hog() at a line of its loop, with a held time (from
# each taking of the GIL to its handing on, the spans of its frames)
# within 10 % of the program's own bookkeeping: at least 0.9 of the CPU
# time hog() ran (it held the GIL all that time), at most 1.1 of that
# plus its run-queue wait (preempted while it held the GIL, which still
# counts, or woken for it and not yet running, which does not).  When
# the held time was the union of the waits hog() ended, it was 0.74 to
# 1.11 of hog()'s CPU time: the requester that took the GIL without
# sleeping (its timed wait had just run out) left no wakeup, and a wait
# that began under another holder was counted whole.  Holds from each
# taking to each handing on were 0.88 to 0.93 until a drop on request
# (hog() then takes the GIL back with no wait when the thread it went
# to releases it first) counted as the start of the next hold: 0.99 to
# 1.01 (Debian's 3.11 and 3.8, two runs each).
HOG_FIRST=$(grep -n "^def hog" "$PROG" | cut -d: -f1)
for v in DEB PY38 PY313; do
	test_expect_success "BPF,$v" "$v: the GIL summary names hog() at a line of its loop, with its held time" '
		eval py=\$$v &&
		ppr record -q --wall --wakers -o gil-$v --python "$py" "$PROG" \
			gil gil-$v.out >gil-$v.rout 2>gil-$v.err &&
		ppr report -i gil-$v --wakers -o gil-$v.txt 2>gil-$v.terr &&
		sed -n "/^GIL holders/,/^\$/p" gil-$v.txt >gil-$v.table &&
		cat gil-$v.table &&
		grep "^GIL held by hog (wakers-truth.py:[0-9]*)" gil-$v.table &&
		ppr report -i gil-$v --wakers --format json -o gil-$v.json \
			2>gil-$v.jerr &&
		python3 -c "
import json, sys
w = json.load(open(sys.argv[1]))[\"wakers\"][\"gil\"][\"holders\"]
h = [x for x in w if x[\"holder\"].get(\"function\") == \"hog\"][0]
print(h[\"line\"][\"line\"], h[\"held_nanoseconds\"] / 1e9)
" gil-$v.json >gil-$v.hog &&
		read hogline held <gil-$v.hog &&
		set -- $(sed -n 2p gil-$v.out) && cpu=$1 && wall=$2 && rq=$3 &&
		echo "hog() at line $hogline: held $held s; its CPU time $cpu s, run-queue wait $rq s, ran $wall s" &&
		test "$hogline" -gt "$HOG_FIRST" &&
		test "$hogline" -le $((HOG_FIRST + 5)) &&
		awk -v h="$held" -v c="$cpu" -v q="$rq" \
			"BEGIN { exit !(h >= 0.9 * c && h <= 1.1 * (c + q)) }"
	'
done

# top --wall --wakers, live: the same table under top's, from the
# walker's events as they come (its waker samples told from its
# intervals by their event's name); every thread is in it, so the row
# is the waiter's largest lock row
test_prereq_LIBPERF() {
	ppr --version | grep -q " libperf=yes" ||
		{ echo "pyperf-run was built without libperf"; return 1; }
}
test_expect_success BPF,DEB,LIBPERF 'top --wall --wakers: the waiter'"'"'s lock waits credited to critical() at its with line, live' '
	ppr top --wall --wakers --batch -q -o top.txt --python "$DEB" \
		"$PROG" lock top.tid >/dev/null 2>top.err &&
	sed -n "/^Who made whom wait/,/^\$/p" top.txt >top.table &&
	cat top.table &&
	awk "\$6 == \"lock\" && \$7 == \"waiter\" { print; exit }" top.table >top.row &&
	test_grep " waiter \(wakers-truth\.py\) +critical \(wakers-truth\.py:$LOCK_LINE\)\$" top.row &&
	test_must_fail ppr top --wakers --batch --python "$DEB" "$PROG" lock \
		top2.tid 2>top2.err &&
	test_grep "give --wall too" top2.err
'

# html: in the timeline, the waiter's longest lock wait links to the
# thread that ended it (the holder), and "Show the waker" shows the
# time around the wait's end
test_expect_success BPF,DEB,CHROMIUM 'html: a wait in the timeline links to its waker at that moment' '
	ppr report -i lock-DEB --format html -o lock-DEB.html 2>/dev/null &&
	lane=$(python3 -c "
import json, re, sys
t = re.search(r\"\\\"threads\\\":(\\[\\[.*?\\]\\])\", open(sys.argv[1]).read())
print([i for i, x in enumerate(json.loads(t.group(1))) if \"(waiter)\" in x[2]][0])
" lock-DEB.html) &&
	flame_browser html lock-DEB.html --timeline-span "$lane,lock" --tl-waker \
		>lock-DEB.kv &&
	grep "^tl_waker" lock-DEB.kv | head -3 &&
	test_grep "^tl_waker=Thread-[0-9]* \(holder\)" lock-DEB.kv &&
	python3 -c "
import json, sys
kv = dict(l.rstrip(\"\\n\").split(\"=\", 1) for l in open(sys.argv[1]) if \"=\" in l)
wait, shown = json.loads(kv[\"tl_range\"]), json.loads(kv[\"tl_waker_range\"])
print(\"wait\", wait, \"waker shown\", shown)
assert shown[0] <= wait[1] <= shown[1]
" lock-DEB.kv
'

test_expect_success BPF 'report --wakers: the record line and the text tree say the wakers' '
	test_grep "wakeups; .* of the off-CPU intervals have their waker" lock-DEB.err ||
	ppr record --wall --wakers -o again --python /usr/bin/python3 "$PROG" lock again.tid 2>again.err &&
	test_grep "wakeups; .* of the off-CPU intervals have their waker" again.err
'

test_expect_success BPF 'report --wakers: a session recorded without --wakers is refused with the fix' '
	ppr record -q --wall -o plain --python /usr/bin/python3 "$PROG" lock plain.tid &&
	test_must_fail ppr report -i plain --wakers 2>err &&
	test_grep "has no wakers for --wakers: record with .pyperf-run record --wall --wakers." err
'

test_expect_success 'record --wakers without --wall is refused' '
	test_must_fail ppr record --wakers -o x /dev/null 2>err &&
	test_grep "give --wall too" err
'

test_expect_success 'record --wakers outside bpf mode is refused with the fix, before the program runs' '
	test_must_fail ppr record --wall --wakers --mode jit -o j \
		--python /usr/bin/python3 "$PROG" lock j.tid 2>err &&
	test_grep "record: --wakers needs bpf mode .*not --mode jit" err &&
	test_grep "give --mode bpf" err &&
	! test -e j.tid
'

test_expect_success ROOT 'record --wakers without the privileges is refused with the fix (the walker'"'"'s own diagnosis)' '
	mkdir -p nb && chmod 777 nb &&
	(cd nb && as_nobody "$PPR_BIN" record --wall --wakers -o s \
		--python /usr/bin/python3 "$PROG" lock t.tid 2>../nb.err;
	 echo $? >../nb.rc) &&
	test "$(cat nb.rc)" != 0 &&
	test_grep "record: --wakers needs bpf mode .*needs root, or CAP_BPF and CAP_PERFMON" nb.err &&
	test_grep "setcap cap_bpf,cap_perfmon.*plain --wall works without --wakers" nb.err &&
	! test -e nb/t.tid
'

test_done
