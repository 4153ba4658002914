#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='robustness: missing, empty, binary, odd-named scripts; spaces and non-ASCII everywhere; nothing written outside the session'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/robust-lib.sh"

test_prereq_PY() {
	PY=$(robust_any_python) || { echo "$PY"; return 1; }
}
test_have_prereq PERF,PY && PY=$(robust_any_python)

# rec ARGS...: record quietly with $PY and a private HOME; status in
# ./code, stderr in ./err.
rec() {
	robust_env ppr record --trampoline auto -q --python "$PY" "$@" 2>"$TRASH/err"
	echo $? >"$TRASH/code"
}

test_expect_success 'a missing script: 127, one message, no session' '
	mkdir m && (cd m && rec -o s missing.py) &&
	test "$(cat code)" = 127 &&
	test_grep "^pyperf-run record: cannot open .missing.py.: No such file or directory" err &&
	test "$(wc -l <err)" -le 2 &&
	test -z "$(ls -A m)"
'

test_expect_success 'a directory as the script: 126, no session' '
	mkdir d d/dir.py && (cd d && rec -o s dir.py) &&
	test "$(cat code)" = 126 &&
	test_grep "^pyperf-run record: .*dir.py.*[Ii]s a directory" err &&
	test "$(ls -A d)" = dir.py
'

test_expect_success 'a program in PATH as the script: 127, a hint that names both ways, no session' '
	mkdir p && (cd p && rec -o s sh -c "exit 3") &&
	test "$(cat code)" = 127 &&
	test_grep "^pyperf-run record: cannot open .sh.: No such file or directory" err &&
	test_grep "^hint: .*--python sh. before the script; to run a program, put it after .--." err &&
	test -z "$(ls -A p)"
'

test_expect_success 'an executable file as the script: 126, not run by Python, a hint' '
	elf=$(command -v sh) &&
	mkdir e && (cd e && rec -o s "$elf" -c "exit 3") &&
	test "$(cat code)" = 126 &&
	test_grep "^pyperf-run record: cannot run .$elf. as a Python script: it is an executable .ELF. file" err &&
	test_grep "^hint: .*--python $elf. before the script" err &&
	! grep -q SyntaxError err &&
	test -z "$(ls -A e)"
'

test_expect_success PERF,PY 'an empty script: exit 0 and a reportable session' '
	: >empty.py &&
	rec -o s-empty empty.py &&
	test "$(cat code)" = 0 &&
	test "$(meta s-empty exit_status)" = 0 &&
	ppr report -i s-empty >rep 2>rep.err &&
	test_grep "^# command: .*empty.py" rep
'

test_expect_success PERF,PY 'a binary script: the interpreter'"'"'s own status, clean report' '
	printf "\377\376\001binary\200garbage\n" >bin.py &&
	{ "$PY" bin.py >/dev/null 2>&1; echo $? >want; } &&
	rec -o s-bin bin.py &&
	test "$(cat code)" = "$(cat want)" &&
	test "$(meta s-bin exit_status)" = "$(cat want)" &&
	ppr report -i s-bin --format collapsed >c 2>c.err &&
	test_grep -v "^pyperf-run record: [^w]" err
'

test_expect_success PERF,PY 'spaces and non-ASCII in the script path, its functions, the session and the arguments' '
	d="my dir/ünï cødé ✓" &&
	mkdir -p "$d" &&
	cat >"$d/prog näme.py" <<-\EOF &&
	import sys, time
	def fünc_ü():
	    t0 = time.process_time()
	    while time.process_time() - t0 < 0.4:
	        sum(i * i for i in range(2000))
	fünc_ü()
	open(sys.argv[1], "w", encoding="utf-8").write(repr(sys.argv[1:]))
	EOF
	rec -o "sess ion ü" "$d/prog näme.py" "args.txt" "a b" "ñ
x" "" &&
	test "$(cat code)" = 0 &&
	"$PY" -c "import sys; print(repr(sys.argv[1:]), end=\"\")" \
		args.txt "a b" "ñ
x" "" >want &&
	test_cmp want args.txt &&
	test -d "sess ion ü" &&
	collapsed "sess ion ü" c &&
	test "$(samples_in c "fünc_ü" "prog näme.py")" -gt 100 &&
	test_grep "fünc_ü \(.*my dir/ünï cødé ✓/prog näme.py\)" c &&
	ppr report -i "sess ion ü" >rep &&
	test_grep "fünc_ü" rep
'

test_expect_success PERF,PY 'nothing is written outside the session, ~/.debug stays empty' '
	mkdir clean && printf "x = 1\n" >clean/p.py &&
	(cd clean && rec -o out p.py) &&
	test "$(cat code)" = 0 &&
	(cd clean && ls -A) >got &&
	printf "out\np.py\n" >want &&
	test_cmp want got &&
	test -z "$(find "$TRASH/home" -mindepth 1 -print -quit)" &&
	perm=$(stat -c %a clean/out) &&
	test "$perm" = 700 &&
	for p in $(meta clean/out pids); do
		for f in /tmp/perf-$p.map /tmp/jit-$p.dump; do
			if test -e "$f"; then echo "left $f"; return 1; fi
		done
	done
'

test_expect_success PERF,PY 'a script that changes directory and removes itself still resolves' '
	mkdir wander &&
	cat >wander/w.py <<-\EOF &&
	import os, time
	os.unlink(__file__)
	os.chdir("/")
	def roam():
	    t0 = time.process_time()
	    while time.process_time() - t0 < 0.3:
	        sum(range(3000))
	roam()
	EOF
	(cd wander && rec -o s w.py) &&
	test "$(cat code)" = 0 &&
	collapsed wander/s c &&
	test "$(samples_in c roam w.py)" -gt 50
'

test_done
