#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: real perf profiles (shares, complete stacks)'
. ./test-lib.sh
perf_buildids_in_trash
. "$TEST_DIR/fixtures/tramp-lib.sh"

mkdir -p d
D=$TRASH/d

# check_shares FILE: heavy ~2/3, light ~1/3, >= 90% complete stacks
check_shares() {
	cat "$1" &&
	set -- $(sed "s/[a-z]*=//g" "$1") &&
	test "$1" -ge 100 &&
	tot=$(($2 + $3)) &&
	test "$tot" -ge 80 &&
	test $(($2 * 100 / tot)) -ge 55 && test $(($2 * 100 / tot)) -le 78 &&
	awk -v c="$4" "BEGIN { exit !(c >= 0.9) }"
}

# test-lib's ppr_fp_python sets $p, which test_have_prereq loops with:
# ask in a subshell.
test_prereq_TRAMP_FP() {
	(test_prereq_FP_PYTHON)
}

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'build for every interpreter' '
	for py in $(tramp_pythons); do tramp_build "$py" || return 1; done
'

test_expect_success TRAMP_PYTHONS,PERF 'perf_jit + dwarf: right shares and complete stacks on every interpreter' '
	for py in $(tramp_pythons); do
		echo "== $py" &&
		rm -rf "$D" && mkdir "$D" &&
		PYPERF_TRAMPOLINE=jit PYPERF_TRAMPOLINE_DIR=$D \
			PYTHONPATH=$TRAMP_OUT/boot \
			perf record -q -k 1 -e cpu-clock -F 499 \
			--call-graph dwarf,16384 -o perf.data -- \
			"$py" "$TRAMP_FIX/tramp-split.py" 0.9 2>err &&
		perf inject --jit -i perf.data -o perf.jit.data 2>err &&
		perf script -i perf.jit.data -F comm,ip,sym,dso 2>/dev/null |
			"$py" "$TRAMP_FIX/tramp-shares.py" >shares &&
		check_shares shares || { cat err; return 1; }
	done
'

test_expect_success PERF,TRAMP_FP,TRAMP_CC 'perf map + frame pointers (-g): right shares and complete stacks' '
	py=$(ppr_fp_python) &&
	tramp_build "$py" &&
	PYTHONPATH=$TRAMP_OUT/boot perf record -q -e cpu-clock -F 499 -g \
		-o perf.data -- "$py" -X perf "$TRAMP_FIX/tramp-split.py" 0.9 2>err &&
	pid=$(perf script -i perf.data -F pid 2>/dev/null | sort | uniq -c | sort -rn | awk "NR==1 {print \$2}") &&
	test -f "/tmp/perf-$pid.map" &&
	perf script -i perf.data -F comm,ip,sym,dso 2>/dev/null |
		"$py" "$TRAMP_FIX/tramp-shares.py" >shares &&
	rm -f "/tmp/perf-$pid.map" &&
	check_shares shares
'

test_done
