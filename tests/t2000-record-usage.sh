#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record: usage and bad input (clear message, right status, no session)'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

# No session, finished or half-built, may be left after a failure.
no_session() {
	if ls -A | grep -E -e '^pyperf\.data' -e '\.tmp-'; then
		echo "left behind by a failed record"
		return 1
	fi
}

test_expect_success 'setup' '
	mkdir input &&
	printf "print(1)\n" >input/ok.py
'

test_expect_success '-h prints the usage on stdout and exits 0' '
	ppr record -h >out 2>err &&
	test_grep "^usage: pyperf-run record \[<options>\] <script.py>" out &&
	test_grep "^   or: pyperf-run record \[<options>\] -- <command>" out &&
	test_grep "^    --perf-arg <arg>" out &&
	! test -s err
'

test_expect_success 'an unknown option is a usage error (125)' '
	test_expect_code 125 ppr record --frobnicate input/ok.py 2>err &&
	test_grep "^pyperf-run record: unknown option .--frobnicate.$" err &&
	test_grep "^hint: usage: pyperf-run record" err &&
	test_expect_code 125 ppr record -Z input/ok.py 2>err &&
	test_grep "unknown option .-Z." err &&
	no_session
'

test_expect_success 'an option without its value is a usage error' '
	test_expect_code 125 ppr record -F 2>err &&
	test_grep "option .-F. needs a value" err &&
	test_expect_code 125 ppr record --python 2>err &&
	test_grep "option .--python. needs a value" err
'

test_expect_success '--stack-size must be a multiple of 8 up to 65528' '
	for bad in 100000 65536 12 0 -8 abc ""; do
		test_expect_code 125 ppr record --stack-size "$bad" input/ok.py \
			2>err || return 1
		test_grep "stack-size needs a multiple of 8 from 8 to 65528" err ||
			return 1
	done &&
	no_session
'

test_expect_success 'bad --mode and -F values are usage errors' '
	test_expect_code 125 ppr record --mode fast input/ok.py 2>err &&
	test_grep "mode must be auto, perf, jit or bpf, not .fast." err &&
	test_expect_code 125 ppr record -F 0 input/ok.py 2>err &&
	test_grep "F needs a frequency" err &&
	test_expect_code 125 ppr record -F 10x input/ok.py 2>err &&
	no_session
'

test_expect_success 'nothing to record' '
	test_expect_code 125 ppr record 2>err &&
	test_grep "nothing to record" err &&
	test_expect_code 125 ppr record -q -- 2>err &&
	test_grep "nothing to record" err
'

test_expect_success 'a missing script: 127, and no session' '
	test_expect_code 127 ppr record missing.py 2>err &&
	test_grep "^pyperf-run record: cannot open .missing.py.: No such file or directory$" err &&
	test $(wc -l <err) = 1 &&
	no_session
'

test_expect_success 'a directory as the script: 126' '
	test_expect_code 126 ppr record input 2>err &&
	test_grep "cannot run .input.: it is a directory" err &&
	no_session
'

test_expect_success 'a command that is not found (127) or not executable (126)' '
	test_expect_code 127 ppr record -- no-such-command-here 2>err &&
	test_grep "cannot run .no-such-command-here.: No such file or directory" err &&
	test_expect_code 126 ppr record -- ./input/ok.py 2>err &&
	test_grep "cannot run .\./input/ok\.py.: Permission denied" err &&
	no_session
'

test_expect_success 'an interpreter that is not found: 127' '
	test_expect_code 127 ppr record --python /no/such/python3 input/ok.py 2>err &&
	test_grep "cannot run the interpreter ./no/such/python3." err &&
	no_session
'

test_expect_success 'something that is not a Python interpreter: 125' '
	test_expect_code 125 ppr record --python /bin/true input/ok.py 2>err &&
	test_grep "not a Python interpreter|cannot" err &&
	no_session
'

test_prereq_PY27() { test -n "$(ppr_python 2.7)" || { echo "no python2.7"; return 1; }; }
test_expect_success PY27 'Python 2.7 is refused clearly: 125' '
	test_expect_code 125 ppr record --python "$(ppr_python 2.7)" input/ok.py 2>err &&
	test_grep "Python frames are not available: Python 2\.7\.[0-9]+ is not supported" err &&
	no_session
'

test_prereq_PY36() { test -n "$(ppr_python 3.6)" || { echo "no python3.6"; return 1; }; }
test_expect_success PY36 'Python 3.6 is too old: 125' '
	test_expect_code 125 ppr record --python "$(ppr_python 3.6)" input/ok.py 2>err &&
	test_grep "Python 3\.6\.[0-9]+ is too old: CPython 3\.8 or later is needed" err &&
	no_session
'

test_expect_success 'perf missing: 125 with the package to install' '
	mkdir -p bin-noperf &&
	py=$(python3 -c "import sys; print(sys.executable)") &&
	test_expect_code 125 env PATH="$PWD/bin-noperf" "$PPR_BIN" record \
		--trampoline auto --python "$py" input/ok.py 2>err &&
	test_grep "cannot run .perf.: No such file or directory" err &&
	test_grep "^hint: install perf" err &&
	rmdir bin-noperf &&
	no_session
'

# --mode auto takes the frame walker as root, which runs no perf at all
test_expect_success BPF 'perf missing: bpf mode needs none' '
	mkdir -p bin-noperf &&
	py=$(python3 -c "import sys; print(sys.executable)") &&
	env PATH="$PWD/bin-noperf" "$PPR_BIN" record -o noperf \
		--python "$py" input/ok.py >out 2>err &&
	test_grep "^pyperf-run: bpf mode \(root, python [0-9.]+: Python frames walked in the kernel" err &&
	test_grep "^pyperf-run: [0-9]+ samples" err &&
	rmdir bin-noperf &&
	rm -rf noperf
'

test_prereq_SETPRIV() {
	test "$(id -u)" = 0 || { echo "not root (needed to become nobody)"; return 1; }
	command -v setpriv >/dev/null || { echo "no setpriv"; return 1; }
	p=$(cat /proc/sys/kernel/perf_event_paranoid)
	test "$p" -ge 2 || { echo "perf_event_paranoid is $p: kernel events allowed"; return 1; }
	as_nobody test -x "$PPR_BIN" ||
		{ echo "nobody cannot run $PPR_BIN"; return 1; }
}

# An interpreter nobody can run, so that record gets as far as perf.
test_prereq_NOBODY_PY() {
	NOBODY_PY=$(ppr_nobody_python) || { echo "$NOBODY_PY"; return 1; }
}

test_expect_success SETPRIV,NOBODY_PY 'perf not permitted: 125, the paranoid setting and the fix' '
	mkdir -m 777 nobody &&
	cp input/ok.py nobody/ &&
	(cd nobody && as_nobody \
		env HOME="$PWD" "$PPR_BIN" record --python "$NOBODY_PY" \
		-e cpu-clock:k ok.py) 2>err;
	code=$? &&
	test $code = 125 &&
	test_grep "perf is not permitted to record here \(kernel\.perf_event_paranoid = [0-9]\)" err &&
	test_grep "^hint: .*sysctl kernel\.perf_event_paranoid=1.*CAP_PERFMON" err &&
	test "$(ls -A nobody)" = ok.py
'

test_expect_success SETPRIV 'an unreadable script: 126' '
	mkdir -m 777 locked &&
	printf "print(1)\n" >locked/secret.py &&
	chmod 000 locked/secret.py &&
	(cd locked && as_nobody \
		env HOME="$PWD" "$PPR_BIN" record secret.py) 2>err;
	code=$? &&
	test $code = 126 &&
	test_grep "cannot open .secret\.py.: Permission denied" err &&
	test "$(ls -A locked)" = secret.py
'

test_expect_success '-o refuses a file and a directory that is not a session' '
	printf x >afile &&
	test_expect_code 125 ppr record -o afile input/ok.py 2>err &&
	test_grep ".afile. exists and is not a directory" err &&
	test_expect_code 125 ppr record -o input input/ok.py 2>err &&
	test_grep ".input. exists and is not a pyperf-run session" err &&
	test -f input/ok.py && ! test -e input.old && rm afile
'

test_expect_success PERF 'an unknown event: 125 before anything runs' '
	test_expect_code 125 ppr record -e no-such-event input/ok.py 2>err &&
	test_grep "perf cannot use the event .no-such-event." err &&
	no_session
'

test_done
