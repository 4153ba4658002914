#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run every C unit test binary (tests/unit/t-*.c) as one TAP stream each.
test_description='C unit tests'
. ./test-lib.sh

for src in "$PPR_SRCDIR"/tests/unit/t-*.c; do
	name=$(basename "$src" .c)
	bin=$PPR_BUILD/tests/unit/$name
	if test "${PPR_VALGRIND:-}" = 1; then
		run="valgrind -q --error-exitcode=198 --leak-check=full $bin"
	else
		run=$bin
	fi
	test_expect_success "unit: $name" "
		$run >out 2>err &&
		! grep '^not ok' out &&
		grep -q '^1\\.\\.[1-9]' out
	"
done

test_done
