#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record --wall --wakers -p on a real server under load: who made gunicorn'"'"'s gthread worker wait'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/server-lib.sh"
. "$PPR_SRCDIR/tests/fixtures/walker-lib.sh"

# Debian's gunicorn serves tests/fixtures/flask-app.py (t3503's app: GET
# /work runs about 1 ms of pure Python in crunch()) with one gthread
# worker of 4 threads; wrk loads it over 127.0.0.1.  record --wall
# --wakers -p attaches to the worker for one window of load at a time,
# twice for each of two loads, and report --wakers's table of each
# session is printed with the top waker functions of its gil and lock
# waits.  The two sessions of a load must name the same top waker
# function; what of their shares is asserted, and why not more, is said
# at the test that records them.  The server, wrk and the recorder run
# at nice -10, as in t3503 (server-lib.sh).

APP_DIR=$PPR_SRCDIR/tests/fixtures
# seconds of load per recording
WINDOW=2

test_expect_success SERVER 'gunicorn serves the Flask app with one gthread worker of 4 threads' '
	{
		$NICE /usr/bin/python3 -m gunicorn --chdir "$APP_DIR" --workers 1 \
			--worker-class gthread --threads 4 --bind 127.0.0.1:0 \
			flask-app:app >server.log 2>&1
		echo $? >server.status
	} &
	listening &&
	. ./server.env &&
	wait_for 20 booted 1 &&
	worker=$(sed -n "s/.*Booting worker with pid: \([0-9]*\)$/\1/p" server.log) &&
	test "$(sed -n "s/^PPid:[[:space:]]*//p" /proc/$worker/status)" = $master &&
	test_grep "Using worker: gthread" server.log &&
	echo "worker=$worker" >>server.env &&
	test_diag "gunicorn master $master, gthread worker $worker, port $port" &&
	wait_for 20 eval "get /ping | grep -q pong" &&
	get /work >body &&
	test_grep "^ok [0-9]+$" body &&
	# warm the worker up (imports, its 4 threads started, first
	# requests) before recording
	$NICE wrk -t1 -c8 -d1s "http://127.0.0.1:$port/work" >warm.wrk 2>&1 &&
	clean warm.wrk
'

# rec NAME PATH: record --wall --wakers -p the worker for one window of
# wrk's load on PATH (8 connections: the 4 threads always have a request
# to serve, so they contend for the GIL and the worker's lock), then the
# session's "who made whom wait" table (NAME.txt, NAME.table, printed
# with the GIL summary) and its json (NAME.json).  The recorder attaches
# before the load starts and stays attached through it.  The session
# goes once read: 50 to 220 MB each (an 8 KiB stack copy with each
# wait and each waker), about 520 MB for the four, the disk and page
# cache of the test running beside this one.
rec() {
	$NICE "$PPR_BIN" record -q --wall --wakers -p $worker \
		--duration $((WINDOW + 1)) -o $1 2>$1.err &
	rpid=$! &&
	wait_for 15 attached $rpid &&
	$NICE wrk -t1 -c8 -d${WINDOW}s "http://127.0.0.1:$port$2" >$1.wrk 2>&1 &&
	kill -0 $rpid &&
	wait $rpid &&
	clean $1.wrk &&
	test_grep "^attached=$worker$" $1/meta &&
	ppr report -i $1 --wakers -o $1.txt 2>$1.terr &&
	sed -n "/^Who made whom wait/,/^\$/p" $1.txt >$1.table &&
	cat $1.table &&
	sed -n "/^GIL holders/,/^\$/p" $1.txt &&
	ppr report -i $1 --wakers --format json -o $1.json 2>$1.jerr &&
	rm -rf $1
}

# top REASON ONE TWO: the top waker functions of REASON's waits in the
# sessions ONE and TWO (fixtures/wakers-top.py: the table's rows summed
# by the waker's function, ranked by number of waits), printed; fails
# unless both name the same top waker, each with a lead over the next
# one of more than 3 standard deviations of the difference of two
# counts (sqrt(c1 + c2)), so that the two agreeing is no coin falling
# the same way twice
top() {
	python3 "$PPR_SRCDIR/tests/fixtures/wakers-top.py" "$@" >top-$1.out 2>&1
	top_s_=$?
	cat top-$1.out &&
	test_diag "$(grep "^$1: .*\(in both\|apart\|differ\)" top-$1.out)" &&
	test $top_s_ = 0
}

# Two loads, two sessions of each, as what each makes robust differs:
#
# GET /heavy (crunch() for about 50 ms, ten of CPython's 5 ms switch
# intervals): the threads waiting for the GIL make the one in crunch()
# drop it there, again and again.  crunch() must be the top waker of
# the gil waits in both sessions, and the GIL summary's first holder
# at a line of its loop.  Measured here (sessions of 2 s at load
# averages of 2.5 to 4): crunch() 59 to 67 % of about 1,850 gil waits,
# leading util.write() (the response's send, the next) by 25 standard
# deviations and more.  With
# /work's 1 ms the view is too short to be made to drop the GIL, and
# which of gunicorn's own release points (util.write(), finish_request,
# reuse_connection, TConn.init) ends the most waits changed with the
# machine's load (util.write() 29 to 44 % of the waits, the next one
# from 13 to 28 %; the top by wait time once reuse_connection).
#
# GET /work (1 ms a request: about 40 times /heavy's requests, and
# their lock waits): the top waker of the lock waits (the pool threads' waits
# for the worker's lock and work queue) must be gthread's
# ThreadWorker.finish_request(), whose "with self._lock" ends the other
# threads' waits for the worker's lock.  Measured: 34 to 53 % of 340 to
# 2,500 lock waits, leading the next by 7 to 16 standard deviations.
# /heavy's sessions have 8 to 17 lock waits: too few to rank.  Ranked
# by number, not time: the 4 pool threads' waits still under way when
# the recorder detaches (the load ends before it does) are counted
# until then, with no waker, and are a third to four fifths of the lock
# wait time.
#
# The top waker's shares of the two sessions are printed, with how many
# binomial standard deviations apart they are, but not bounded: they
# move with what the test does not control.  crunch()'s share is the
# forced drops of a request (its wall time over 5 ms: longer when other
# programs take the CPU) among its other GIL hand-offs, and
# finish_request's depends on how many threads contend at once; measured
# apart by up to 4.8 (gil) and 3.6 (lock) standard deviations of
# sessions seconds apart, on the same server, where sampling alone
# would rarely give 3.
test_expect_success SERVER "record --wall --wakers -p the worker, twice under wrk on /heavy, twice on /work ($WINDOW s each): report --wakers's tables" '
	. ./server.env &&
	rec heavy1 /heavy &&
	rec heavy2 /heavy &&
	rec work1 /work &&
	rec work2 /work
'

CRUNCH_FIRST=$(grep -n "^def crunch" "$APP_DIR/flask-app.py" | cut -d: -f1)
test_expect_success SERVER 'under /heavy, both sessions name crunch() the top waker of the gil waits, and the GIL summary its loop first' '
	top gil heavy1.json heavy2.json &&
	test_grep "^gil: top crunch \(flask-app\.py\) in both$" top-gil.out &&
	for s in heavy1 heavy2; do
		sed -n "/^GIL holders/,/^\$/p" $s.txt | sed -n 2p >$s.gil &&
		cat $s.gil &&
		line=$(sed -n "s/^GIL held by crunch (flask-app\.py:\([0-9]*\)).*/\1/p" $s.gil) &&
		test -n "$line" &&
		test "$line" -gt "$CRUNCH_FIRST" &&
		test "$line" -le $((CRUNCH_FIRST + 5)) || return 1
	done
'

test_expect_success SERVER 'under /work, both sessions name ThreadWorker.finish_request() the top waker of the lock waits' '
	top lock work1.json work2.json &&
	test_grep "^lock: top ThreadWorker\.finish_request \(gthread\.py\) in both$" top-lock.out
'

test_expect_success SERVER 'the server runs on after the detach, then shuts down cleanly' '
	. ./server.env &&
	kill -0 $master &&
	kill -0 $worker &&
	test "$(grep -c "Booting worker with pid: " server.log)" = 1 &&
	test_grep -v "WORKER TIMEOUT|Worker exiting|Traceback|\[ERROR\]|\[CRITICAL\]" server.log &&
	get /work >body2 &&
	test_grep "^ok [0-9]+$" body2 &&
	kill -TERM $master &&
	wait_for 20 test -s server.status &&
	test "$(cat server.status)" = 0 &&
	for p in $master $worker; do
		wait_for 10 reaped $p || return 1
	done
'

# before test_done removes the trash and server.env with it (t3503)
stop_server
test_done
