#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='robustness: every option with a wrong value gives one clear message, the right status, and writes nothing'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/robust-lib.sh"

# bad CODE REGEX ARGS...: `pyperf-run ARGS`, run in an empty directory
# holding only a script that would leave a marker, must exit CODE, say
# "pyperf-run[ cmd]: REGEX" on stderr in at most 4 lines (no stack of
# warnings, no usage dump), print nothing on stdout, run nothing and
# write nothing.
bad() {
	want=$1 re=$2
	shift 2
	rm -rf cwd && mkdir cwd &&
	printf 'open("ran", "w").close()\n' >cwd/prog.py &&
	(cd cwd && ls -A >../before && ppr "$@" >../out 2>../err
	 echo $? >../code) &&
	code=$(cat code) &&
	if test "$code" != "$want"; then
		echo "pyperf-run $*: exit $code, want $want"
		cat err
		return 1
	fi &&
	if ! grep -E "^pyperf-run( [a-z]+)?: .*($re)" err >/dev/null; then
		echo "pyperf-run $*: no message matching '$re':"
		cat err
		return 1
	fi &&
	if test "$(wc -l <err)" -gt 4; then
		echo "pyperf-run $*: too many lines on stderr:"
		cat err
		return 1
	fi &&
	if test -s out; then
		echo "pyperf-run $*: wrote on stdout:"
		cat out
		return 1
	fi &&
	(cd cwd && ls -A) >after &&
	if ! test_cmp before after; then
		echo "pyperf-run $*: the directory changed (or the program ran)"
		return 1
	fi
}

test_expect_success 'top level: unknown command and option' '
	bad 2 "unknown command .nosuch." nosuch &&
	bad 2 "unknown option .--bogus." --bogus
'

test_expect_success 'record: -F and --freq' '
	for v in 0 -5 abc 1e3 0x10 " 5" "5 " 99999999999999999999 ""; do
		bad 125 "-F needs a frequency" record -F "$v" prog.py || return 1
	done &&
	bad 125 "-F needs a frequency" record --freq= prog.py &&
	bad 125 "option .-F. needs a value|-F needs" record -F
'

test_expect_success 'record: --stack-size' '
	for v in 0 7 12 -8 65536 65529 1000000000000 x 8k ""; do
		bad 125 "--stack-size needs a multiple of 8" \
			record --stack-size "$v" prog.py || return 1
	done
'

test_expect_success 'record: --mode, -e, --perf-arg, -o without values' '
	for v in fast PERF "" "jit "; do
		bad 125 "--mode must be auto, perf, jit or bpf" \
			record --mode "$v" prog.py || return 1
	done &&
	bad 125 "-e needs an event" record -e "" prog.py &&
	bad 125 "option .--perf-arg. needs a value" record --perf-arg &&
	bad 125 "nothing to record" record -o out &&
	bad 125 "nothing to record" record &&
	bad 125 "unknown option .--bogus." record --bogus prog.py
'

test_expect_success 'record: --python that cannot be one' '
	bad 127 "cannot run the interpreter .\/nonexistent." \
		record --python /nonexistent prog.py &&
	bad 127 "cannot run the interpreter ..: No such file" \
		record --python "" prog.py &&
	bad 126 "cannot run the interpreter .\/etc\/passwd.: Permission denied" \
		record --python /etc/passwd prog.py &&
	bad 126 "cannot run the interpreter .\/tmp." \
		record --python /tmp prog.py &&
	bad 125 "not a Python interpreter" record --python true prog.py
'

test_expect_success 'record: -o that is not a place for a session' '
	bad 125 "session directory name is empty|-o" record -o "" prog.py &&
	bad 125 "prog.py" record -o prog.py prog.py
'

test_expect_success 'report: formats, filters and numbers' '
	for f in nope "" TEXT; do
		bad 2 "unknown format" report -f "$f" || return 1
	done &&
	bad 2 "option .--format. needs a value" report --format &&
	for v in abc 1,,2 -1 "" ,1 1, 1.5; do
		bad 2 "--pid needs process" report --pid "$v" || return 1
		bad 2 "--tid needs process" report --tid "$v" || return 1
	done &&
	for v in 5,1 abc ,x x, "" 1,2,3 -1,2; do
		bad 2 "--time needs FROM,TO" report --time "$v" || return 1
	done &&
	for v in 200 -1 x "" 1e9 nan; do
		bad 2 "--min-share needs a percentage" report --min-share "$v" ||
			return 1
		bad 2 "--tree-min needs a percentage" report --tree-min "$v" ||
			return 1
	done &&
	for v in 0 -3 x "" 99999999999999999999; do
		bad 2 "--top needs a number" report --top "$v" || return 1
	done &&
	bad 2 "--color must be auto, always or never" report --color sometimes &&
	bad 2 "--diff needs two sessions" report --diff a &&
	bad 2 "--perf-report runs perf report" report --perf-report --format json &&
	bad 2 "unexpected argument .extra." report extra &&
	bad 2 "option .-i. needs a value" report -i &&
	bad 2 "option .-o. needs a value" report -o
'

test_expect_success 'report: sessions and outputs that are not there' '
	bad 1 "cannot open session .\/nonexistent." report -i /nonexistent &&
	bad 1 "cannot open session .pyperf.data." report &&
	bad 1 "cannot open session .\/nonexistent." \
		report --diff /nonexistent /nonexistent2
'

test_expect_success 'doctor and trampoline' '
	bad 2 "unknown option .--bogus." doctor --bogus &&
	bad 2 "option .--python. needs a value" doctor --python &&
	bad 2 "unexpected argument .extra." doctor extra &&
	bad 2 "which subcommand" trampoline &&
	bad 2 "unknown subcommand .frob." trampoline frob &&
	bad 2 "unknown option .--bogus." trampoline install --bogus &&
	bad 1 "cannot run .\/nonexistent." trampoline status --python /nonexistent &&
	bad 1 "not a Python interpreter" trampoline build --python true
'

test_expect_success 'pyperf-python: --python without a value' '
	w=$PPR_BUILD/wrappers/pyperf-python &&
	test -x "$w" &&
	test_expect_code 125 "$w" --python 2>err &&
	test_grep "^pyperf-python: option .--python. needs a value" err
'

test_done
