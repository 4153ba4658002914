#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report: deep stacks are whole, cut ones are judged and said'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/deep-middleware.py
SHARES=$PPR_SRCDIR/tests/fixtures/load-shares.py
# The interpreter is a 3.11 as distributions ship it (Debian's), recorded
# in jit mode through the embedded trampoline: without a symbol table, its
# internal code shows as [python3.11] (STRIPPED_PY311).

# near A B PTS: |A - B| <= PTS
near() {
	awk -v a="$1" -v b="$2" -v d="$3" \
		'BEGIN { x = a - b; if (x < 0) x = -x; exit !(x <= d) }' ||
		{ echo "$1 and $2 differ by more than $3 points"; return 1; }
}

# 65 Python frames: about 200 native frames, beyond perf script's
# default cap of 127, and 60 KiB of C stack: with default settings
# (a 6 KiB dump) context trampolines still give whole stacks.
test_expect_success PERF,STRIPPED_PY311 'record 65 Python frames deep (default settings)' '
	ppr record --trampoline auto -q --python "$STRIPPED_PY311" -o deep "$PROG" 2 >out 2>err &&
	sed -n "s/^total=.* parse=\([0-9.]*\) render=\([0-9.]*\)$/\1 \2/p" \
		out >split && test -s split
'

test_expect_success PERF,STRIPPED_PY311 'main holds the time; leaf shares match the program' '
	ppr report -i deep -f collapsed >deep.col &&
	python3 "$SHARES" deep.col main parse_body render_template >shares &&
	cat shares split &&
	main=$(sed -n "s/^main=//p" shares) &&
	awk -v m="$main" "BEGIN { exit !(m >= 90) }" &&
	# 4 points: on a loaded machine (the full suite, two tests at a
	# time) render_template came out at 22.2% against the program own
	# 19.0%, the same through both perf.data readers
	near "$(sed -n "s/^parse_body=//p" shares)" "$(cut -d" " -f1 split)" 4 &&
	near "$(sed -n "s/^render_template=//p" shares)" \
		"$(cut -d" " -f2 split)" 4 &&
	# context trampolines: at most a stray sample is cut
	python3 "$SHARES" deep.col "[incomplete stack: dump full]" >cut &&
	cat cut &&
	awk -v c="$(sed -n "s/^\[incomplete stack: dump full\]=//p" cut)" \
		"BEGIN { exit !(c < 1) }"
'

# A dump that often stops before the innermost Python frame (its
# trampoline is what names the callers): cut stacks are counted, said,
# and kept under one root.
test_expect_success PERF,STRIPPED_PY311 'a dump too small for some samples: cut stacks under one root, said' '
	ppr record -q --python "$STRIPPED_PY311" --mode jit --stack-size 512 \
		-o small "$PROG" 1 >out 2>err &&
	ppr report -i small -f collapsed >small.col &&
	ppr report -i small --no-tree >small.txt &&
	head -n 8 small.txt &&
	python3 "$SHARES" small.col main "[incomplete stack: dump full]" >shares &&
	cat shares &&
	cut=$(sed -n "s/^\[incomplete stack: dump full\]=//p" shares) &&
	awk -v c="$cut" "BEGIN { exit !(c >= 2 && c <= 80) }" &&
	test_grep "warning: +[0-9<]+% of samples \([0-9,]+ of [0-9,]+\) have incomplete stacks: the 512-byte stack dump was full" small.txt &&
	# no made-up roots: every stack starts at the program or the cut root
	! grep -v -e "^_start;" -e "^\[incomplete stack: " -e "^\[python start-up\]" \
		-e "^<module> " -e "^main " -e "^\[python3.11\]" small.col | grep -q "(.*deep-middleware"
'

test_done
