#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='the pyperf-run command line: help, version, usage errors'
. ./test-lib.sh

# The commands, read from --help: every test below checks each of them,
# so that a new command is held to the same rules without editing this.
ppr_commands >commands

test_expect_success 'no arguments is a usage error listing the commands' '
	test_expect_code 2 ppr 2>err &&
	test_grep "^usage: pyperf-run" err &&
	ppr_commands_of <err >listed &&
	test_cmp commands listed
'

test_expect_success '--help prints to stdout and exits 0' '
	ppr --help >out 2>err &&
	test_grep "^usage: pyperf-run \[--version\] \[--help\] <command>" out &&
	ppr_commands_of <out >listed &&
	test_grep "^record$" listed &&
	test_grep "^report$" listed &&
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
	test_grep "^features: pprof=yes libdw=(yes|no) libtraceevent=(yes|no) libperf=(yes|no) bpf=(yes|no) zstd=(yes|no)$" line3
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
	test -s commands &&
	for c in $(cat commands); do
		ppr help $c >out &&
		test_grep "^usage: pyperf-run $c" out || return 1
	done
'

test_expect_success 'help of an unknown command fails' '
	test_expect_code 2 ppr help frobnicate 2>err &&
	test_grep "unknown command .frobnicate." err
'

test_expect_success '<command> -h prints the same usage as help <command>' '
	test -s commands &&
	for c in $(cat commands); do
		ppr help $c >expect &&
		ppr $c -h >actual &&
		test_cmp expect actual || return 1
	done
'

test_prereq_DEV_FULL() {
	test -w /dev/full || { echo "no writable /dev/full"; return 1; }
}

test_expect_success DEV_FULL 'a write error on stdout is reported' '
	test_must_fail ppr --help >/dev/full 2>err &&
	test_grep "write failure on standard output" err
'

test_done
