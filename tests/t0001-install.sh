#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='make install and make uninstall honour DESTDIR and leave nothing behind'
. ./test-lib.sh

ROOT=$TRASH/root

# make from the source tree, with the configured directories.
run_make() {
	make -s -C "$PPR_SRCDIR" BUILD="${PPR_BUILD#"$PPR_SRCDIR"/}" \
		DESTDIR="$ROOT" "$@"
}

test_prereq_MAKE() {
	command -v make >/dev/null || { echo "make is not installed"; return 1; }
	test -f "$PPR_SRCDIR/Makefile" || { echo "not configured"; return 1; }
}

test_expect_success MAKE 'make install puts every part under DESTDIR' '
	run_make install >out 2>&1 || { cat out; false; } &&
	bindir=$(sed -n "s/^bindir = //p" "$PPR_SRCDIR/Makefile") &&
	mandir=$(sed -n "s/^mandir = //p" "$PPR_SRCDIR/Makefile") &&
	libdir=$(sed -n "s/^libdir = //p" "$PPR_SRCDIR/Makefile") &&
	test -x "$ROOT$bindir/pyperf-run" &&
	test -x "$ROOT$bindir/pyperf-python" &&
	for m in "$PPR_SRCDIR"/man/*.1; do
		test -f "$ROOT$mandir/man1/$(basename "$m")" || return 1
	done &&
	test -f "$ROOT$libdir/pyperf-run/src/build.sh" &&
	"$ROOT$bindir/pyperf-run" --version >version &&
	test_grep "^pyperf-run [0-9]" version &&
	grep -q "$bindir" "$ROOT$bindir/pyperf-python" &&
	! grep -q "$PPR_SRCDIR" "$ROOT$bindir/pyperf-python"
'

test_expect_success MAKE 'make uninstall removes everything install added' '
	run_make uninstall >out 2>&1 || { cat out; false; } &&
	find "$ROOT" -type f >left &&
	! test -s left || { cat left; false; }
'

test_done
