#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: no thread stack window reaches an arena'
. ./test-lib.sh
. "$TEST_DIR/fixtures/tramp-lib.sh"

# perf's libunwind unwinder answers every read in [SP, SP + stack dump
# size) from the sample's stack copy (at most 65528 bytes); a thread stack
# mapped right below an arena hides the arena's unwind tables and the
# stack stops at the first Python frame.  Every arena must keep 64 KiB
# below it free of anything readable (t8000 checks the stacks with perf).

mkdir -p d
D=$TRASH/d

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'build for every interpreter' '
	for py in $(tramp_pythons); do tramp_build "$py" || return 1; done
'

test_expect_success TRAMP_PYTHONS 'every arena has 64 KiB of unreadable address space below it, with 4 threads started' '
	for py in $(tramp_pythons); do
		echo "== $py" &&
		rm -f "$D"/* &&
		PYPERF_TRAMPOLINE=jit PYPERF_TRAMPOLINE_DIR=$D \
			tramp_run "$py" "$TRAMP_FIX/tramp-arena-gap.py" "$D" ||
			return 1
	done
'

test_done
