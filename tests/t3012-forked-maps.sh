#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A forked child inherits its parent's jitted code, which perf names
# after the parent's perf-PID.map; the child's own map says what the
# child put there.  Before the loader looked up the sample's own map
# first, a fork pool's workers showed as _ConnectionBase.recv (code the
# parent later put at the same addresses) and pool_task vanished.
test_description='report: pool workers are named from their own perf maps'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/load-mp-pool.py
SHARES=$PPR_SRCDIR/tests/fixtures/load-shares.py

# near A B PTS: |A - B| <= PTS
near() {
	awk -v a="$1" -v b="$2" -v d="$3" \
		'BEGIN { x = a - b; if (x < 0) x = -x; exit !(x <= d) }' ||
		{ echo "$1 and $2 differ by more than $3 points"; return 1; }
}

for method in fork forkserver spawn; do
	test_expect_success PERF,FP_PYTHON "$method pool: the workers' function and its share" '
		ppr record -q --mode perf -o $method --python "$(ppr_fp_python)" \
			"$PROG" $method split.$method 0.75 >out 2>err &&
		grep "^mode=perf$" $method/meta &&
		cat split.$method &&
		# every worker left its own map in the session
		workers=$(sed -n "s/^worker_pids //p" split.$method | tr , " ") &&
		test -n "$workers" &&
		for w in $workers; do
			test -s $method/maps/perf-$w.map || echo "no map of $w"
		done >missing &&
		! test -s missing &&
		ppr report -i $method -f collapsed >$method.col &&
		python3 "$SHARES" $method.col parent_work pool_task \
			_ConnectionBase.recv >shares.$method &&
		cat shares.$method &&
		p=$(sed -n "s/^parent_work //p" split.$method) &&
		w=$(sed -n "s/^pool_task //p" split.$method) &&
		pp=$(sed -n "s/^parent_work=//p" shares.$method) &&
		pw=$(sed -n "s/^pool_task=//p" shares.$method) &&
		recv=$(sed -n "s/^_ConnectionBase\.recv=//p" shares.$method) &&
		# the workers share of the two sides, profiled vs measured
		measured=$(awk -v p="$p" -v w="$w" "BEGIN { print 100 * w / (p + w) }") &&
		profiled=$(awk -v p="$pp" -v w="$pw" \
			"BEGIN { print (p + w) ? 100 * w / (p + w) : 0 }") &&
		echo "pool_task: measured $measured% profiled $profiled%" &&
		near "$profiled" "$measured" 3 &&
		# the workers wait in recv without using the CPU
		awk -v r="$recv" "BEGIN { exit !(r < 2) }"
	'
done

test_done
