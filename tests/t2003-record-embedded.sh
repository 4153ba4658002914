#!/bin/sh
test_description='record: CPython 3.8-3.12 through the embedded trampoline (jit mode) show their Python functions'
. ./test-lib.sh
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

# Main-thread stacks must be complete; in the second thread perf 6.1
# may stop at the thread's outer Python frames (as with CPython 3.13's
# own perf_jit, see t2001), so there only the names are checked.
for v in 3.8 3.9 3.10 3.11 3.12; do
	eval "test_prereq_PY$(echo $v | tr -d .)() {
		rp_=\$(record_python $v) || { echo \"\$rp_\"; return 1; }
	}"
	pre=PERF,PY$(echo $v | tr -d .)
	test_expect_success $pre "python $v: record, with the embedded trampoline" "
		py=\$(record_python $v) &&
		record_env \"\$PPR_BIN\" record -o s$v --python \"\$py\" \
			\"\$FIX/record-small.py\" 0.3 >out 2>err &&
		test_grep '^record-small: done\$' out &&
		test_grep '^pyperf-run: (jit|perf) mode, embedded trampoline \\(python $v\\.' err &&
		test \"\$(meta s$v trampoline)\" = embedded &&
		test \"\$(meta s$v exit_status)\" = 0
	"
	test_expect_success $pre "python $v: foo and bar resolved, complete stacks, nothing left" "
		session_script s$v >script.txt &&
		python3 \"\$FIX/record-stacks.py\" foo bar '<module>' <script.txt >shares &&
		cat shares &&
		awk '\$1 == \"bar\" && \$2 > 90 { ok++ }
		     \$1 == \"<module>\" && \$2 > 25 && \$3 > 95 { ok++ }
		     END { exit ok != 2 }' shares &&
		no_tmp_leftovers s$v &&
		! test -e home/.debug
	"
done

test_prereq_FPPY() {
	fp=$(ppr_fp_python) || { echo "no frame-pointer CPython (run .ci/setup.d/fp-python.sh)"; return 1; }
}
test_prereq_REPORT() {
	ppr report -h 2>/dev/null | grep -q collapsed ||
		{ echo "report --format collapsed is not there yet"; return 1; }
}

# perf mode: the perf map goes straight into the session, and report
# resolves from there (perf itself looks in /tmp only).
test_expect_success PERF,FPPY,REPORT 'a frame-pointer build records in perf mode; report resolves its maps' '
	fp=$(ppr_fp_python) &&
	record_env "$PPR_BIN" record -o fp --mode perf --python "$fp" \
		"$FIX/record-small.py" 0.3 >out 2>err &&
	test_grep "^pyperf-run: perf mode.* \(python 3\.[0-9.]+ has frame pointers; perf mode requested" err &&
	test "$(meta fp mode)" = perf &&
	test "$(meta fp call_graph)" = fp &&
	ls fp/maps | grep -q "^perf-[0-9]*\.map$" &&
	no_tmp_leftovers fp &&
	ppr report -i fp --format collapsed >collapsed &&
	awk '"'"'{ t += $NF } /bar \(/ { b += $NF } END { exit !(t > 100 && b > 0.9 * t) }'"'"' collapsed
'

# The automatic mode: jit for a frame-pointer build when perf unwinds
# jitted code (t2004 shows why), and record says what doctor says.
test_expect_success PERF,FPPY 'the automatic mode of a frame-pointer build is the one doctor shows' '
	fp=$(ppr_fp_python) &&
	"$PPR_BIN" doctor --json --python "$fp" >doc.json &&
	want=$(json_get doc.json mode.name) &&
	record_env "$PPR_BIN" record -o fpauto --python "$fp" \
		"$FIX/record-small.py" 0.3 >out 2>err &&
	test "$(meta fpauto mode)" = "$want" &&
	if test "$(json_get doc.json perf.jit_fix)" = yes; then
		test "$want" = jit &&
		test_grep "^pyperf-run: jit mode.*has frame pointers, but perf mode is blind" err
	else
		test "$want" = perf
	fi
'

test_done
