#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='the pyperf-run command line: help, version, usage errors'
. ./test-lib.sh

test_expect_success 'no arguments is a usage error listing the commands' '
	test_expect_code 2 ppr 2>err &&
	test_grep "^usage: pyperf-run" err &&
	test_grep "^   doctor " err
'

test_expect_success '--help prints to stdout and exits 0' '
	ppr --help >out 2>err &&
	test_grep "^usage: pyperf-run \[--version\] \[--help\] <command>" out &&
	test_grep "^   record " out &&
	test_grep "^   report " out &&
	! test -s err
'

test_expect_success '--version prints the version, the perf configure found and the features' '
	ppr --version >out &&
	test $(wc -l <out) = 3 &&
	sed -n 1p out >line1 &&
	test_grep "^pyperf-run [0-9]+\.[0-9]+\.[0-9]+$" line1 &&
	perf_version=$(sed -n "s/^PERF_VERSION = //p" "$PPR_SRCDIR/Makefile") &&
	sed -n 2p out >line2 &&
	if test -n "$perf_version"; then
		test_grep "^built with: perf $perf_version$" line2
	else
		test_grep "^built with: no perf \(built without perf present\)$" line2
	fi &&
	sed -n 3p out >line3 &&
	test_grep "^features: pprof=yes libdw=(yes|no) libtraceevent=(yes|no) libperf=(yes|no)$" line3
'

test_expect_success '-V is --version' '
	ppr --version >expect &&
	ppr -V >actual &&
	test_cmp expect actual
'

test_expect_success 'an unknown command is a usage error with a hint' '
	test_expect_code 2 ppr frobnicate 2>err &&
	test_grep "^pyperf-run: unknown command .frobnicate.$" err &&
	test_grep "^hint: " err &&
	test $(wc -l <err) -le 2
'

test_expect_success 'an unknown global option is a usage error' '
	test_expect_code 2 ppr --frobnicate 2>err &&
	test_grep "^pyperf-run: unknown option .--frobnicate.$" err
'

test_expect_success 'help <command> prints that command'"'"'s usage' '
	for c in doctor record report trampoline; do
		ppr help $c >out &&
		test_grep "^usage: pyperf-run $c" out || return 1
	done
'

test_expect_success 'help of an unknown command fails' '
	test_expect_code 2 ppr help frobnicate 2>err &&
	test_grep "unknown command .frobnicate." err
'

test_expect_success '<command> -h prints the same usage as help <command>' '
	for c in doctor record report trampoline; do
		ppr help $c >expect &&
		ppr $c -h >actual &&
		test_cmp expect actual || return 1
	done
'

test_expect_success 'a write error on stdout is reported' '
	if test -w /dev/full; then
		test_must_fail ppr --help >/dev/full 2>err &&
		test_grep "write failure on standard output" err
	fi
'

test_done
