#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='what record and report say is about the Python program:
no warning or hint for the shell that starts it, times a reader can read,
a shell waiting for its child, off-CPU leaves in the flame graph legend'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

# A shell that sleeps, then starts Python and waits for it (the user's
# wrapper script): record --wall -- sh delayed_launch.sh used to print
# five warnings and three hints, two of them for dash and sleep, and its
# html opened on "5 warnings: the numbers below may mislead".
BUSY=$PPR_SRCDIR/examples/busy.py

test_prereq_PY311() {
	PY311=$(ppr_python 3.11) || { echo "no CPython 3.11"; return 1; }
}
test_have_prereq PY311 && PY311=$(ppr_python 3.11)

# The lines of record's standard error that are warnings, notes, hints.
warnings() { grep "^pyperf-run record: warning: " "$1"; }
notes() { grep "^pyperf-run record: note: " "$1"; }
hints() { grep "^hint: " "$1"; }
# The hints other than the one about the program's own stacks: when at
# least 1 % of the Python program's samples were cut at the copied
# stack, record advises the --stack-size that holds them (a diagnosis of
# the program's answer, which the warning beside it states).  On a
# loaded machine the interpreter's start-up imports, deeper than the
# 8 KiB copy, took 5 % of busy.py's samples (60 of 1,243) here, and
# 6 % (66 of 1,166) started by a shell in a rehearsal; the warning that
# states the size (it repeats the hint) is allowed with it.
other_hints() {
	hints "$1" | grep -v "^hint: record again with --stack-size [0-9]*: [0-9]*% of the stacks were deeper than the [0-9]*-byte dump"
}

test_expect_success BPF,PY311 'record --mode bpf busy.py: every warning and hint is the program'"'"'s' '
	ppr record --mode bpf --python "$PY311" -o busy "$BUSY" 0.5 \
		>out 2>err &&
	cat err &&
	! other_hints err &&
	test "$(notes err | wc -l)" = 0 &&
	# what may be said of a program with symbols: unnamed code (the
	# vDSO), C frames the copied stack did not reach, its own cut
	# stacks, its start-up before the walker could read its Python
	# frames (imports deeper than the copy, more of them on a loaded
	# machine, where start-up is longer), Python frames whose
	# code objects the recorder could not read before the process
	# ended (more of them when the recorder lags), or read torn while
	# it freed them (dropped, and said: once under ASan); never the perf
	# version (bpf mode runs no perf) nor another process
	! warnings err | grep -v -e "ran in code without symbols" \
		-e "have more Python calls than the copied stack" \
		-e "of the Python program.s samples .* have incomplete stacks" \
		-e "% of samples (.*) have incomplete stacks" \
		-e "of the Python program.s samples .* ran in the interpreter.s start-up, before the frame walker could read its Python frames" \
		-e "of the frame walker.s Python frames .* are unnamed" \
		-e "damaged function names* (invalid UTF-8, .*) dropped" \
		-e "a [0-9]*-byte stack dump would complete 99% of the [0-9,]* samples whose dump was full" &&
	! grep -i -e "perf 6.8" -e "outside the Python program" err &&
	ppr report -i busy --format json -o busy.json &&
	python3 - busy.json err <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	said = [l.split("warning: ", 1)[1].rstrip("\n")
	        for l in open(sys.argv[2]) if "record: warning: " in l]
	# record says the report'"'"'s warnings, no more (it says them only
	# when cut or unnamed samples make 1 % of the judged ones: the
	# walker'"'"'s missing C frames alone it leaves to the report)
	assert all(w in d["warnings"] for w in said), (said, d["warnings"])
	q = d["quality"]["program"]
	assert q["processes"] == 1 and q["count"] == d["samples"], q
	# notes: under 1 %, no other process
	for n in d["notes"]:
	    assert n.startswith("<1%"), n
	EOF
'

test_expect_success BPF,PY311 'record --wall -- sh script: no warning or hint for the shell or sleep' '
	cat >delayed_launch.sh <<-EOF &&
	sleep 0.3
	"$PY311" "$BUSY" 0.5
	EOF
	ppr record --wall -o sh1 -- sh delayed_launch.sh >out 2>err &&
	cat err &&
	test_grep "^busy.py: done" out &&
	! other_hints err &&
	test "$(notes err | wc -l)" = 0 &&
	! grep -e "\\[dash\\]" -e "\\[sleep\\]" -e "perf 6.8" err &&
	! warnings err | grep -v -E \
		-e "ran in code without symbols, .* \\(e\\.g\\. \\[(python3\\.11|vdso|libpython[^]]*)\\]" \
		-e "have more Python calls than the copied stack" \
		-e "of the Python program.s samples .* have incomplete stacks" \
		-e "% of samples (.*) have incomplete stacks" \
		-e "of the Python program.s samples .* ran in the interpreter.s start-up, before the frame walker could read its Python frames" \
		-e "of the frame walker.s Python frames .* are unnamed" \
		-e "damaged function names? \\(invalid UTF-8, .*\\) dropped" \
		-e "a [0-9]+-byte stack dump would complete 99% of the [0-9,]+ samples whose dump was full" &&
	ppr report -i sh1 --format json -o sh1.json &&
	python3 - sh1.json <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	q = d["quality"]["program"]
	# sh, sleep and python: the program is python alone
	assert q["processes"] == 1, q
	assert q["count"] < d["count"], (q, d["count"])
	out = [n for n in d["notes"] if n.startswith("outside the Python program")]
	assert len(out) == 1, d["notes"]
	for w in d["warnings"]:
	    assert "dash" not in w and "sleep" not in w, w
	EOF
'

test_expect_success BPF,PY311 'record -v: the notes, and the shell'"'"'s debug-symbol hint' '
	ppr record -v --wall -o sh2 -- sh delayed_launch.sh >out 2>err &&
	notes err >n &&
	cat n &&
	test_grep "note: outside the Python program \\(2 processes without Python frames" n &&
	ppr report -i sh2 --format json -o sh2.json &&
	python3 - sh2.json n <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	said = [l.split("note: ", 1)[1].rstrip("\n") for l in open(sys.argv[2])]
	assert said == d["notes"], (said, d["notes"])
	EOF
'

test_expect_success BPF,PY311 'report: warnings for the program, the rest as notes (-v: each)' '
	ppr report -i sh1 --no-tree >t &&
	sed -n "s/^# warning:  //p" t >w &&
	python3 -c "import json; [print(w) for w in json.load(open(\"sh1.json\"))[\"warnings\"]]" >want &&
	test_cmp want w &&
	n=$(python3 -c "import json; print(len(json.load(open(\"sh1.json\"))[\"notes\"]))") &&
	test_grep "^# notes:    $n, each under 1% of the Python program" t &&
	ppr report -i sh1 -v --no-tree >tv &&
	test "$(grep -c "^# note:     " tv)" = "$n" &&
	ppr report -i sh1 --format collapsed -v >/dev/null 2>ce &&
	test "$(grep -c "^pyperf-run report: note: " ce)" = "$n" &&
	ppr report -i sh1 --format collapsed >/dev/null 2>c &&
	! grep "note:" c
'

# --- times ------------------------------------------------------------------
test_expect_success BPF,PY311 'text and flame graphs: times in 3 digits; json keeps nanoseconds' '
	grep -A3 "^Top functions by self time" t >top &&
	cat top &&
	test_grep "^   Self%   Total%      Time  Function$" top &&
	test_grep "^ +[0-9.]+% +[0-9.]+% +[0-9.]+ (s|ms|us|ns)  " top &&
	! grep -E "[0-9]{7}" top &&
	ppr report -i sh1 --format html -o sh1.html &&
	test_grep "^\\[\"time\",\"[0-9.]+ (s|ms)\"\\]" sh1.html &&
	! grep "^\\[\"nanoseconds\"" sh1.html &&
	ppr report -i sh1 --format svg -o sh1.svg &&
	test_grep "<title>all \\([0-9.]+ (s|ms), 100.00%\\)</title>" sh1.svg &&
	test_grep "\"unit\": \"nanoseconds\"" sh1.json
'

# --- the child wait reason -----------------------------------------------------
test_expect_success BPF,PY311 'a shell waiting for its child waits for "child"' '
	sh_pid=$(python3 -c "import json; print([p[\"pid\"] for p in json.load(open(\"sh1.json\"))[\"processes\"] if p[\"comm\"] in (\"sh\", \"dash\")][0])") &&
	ppr report -i sh1 --clock off-cpu --pid "$sh_pid" --format collapsed \
		-o sh.col 2>/dev/null &&
	share=$(flame_collapsed_share "^\\[off-cpu child\\]$" sh.col) &&
	test_diag "the shell off CPU in [off-cpu child]: $share %" &&
	awk -v s="$share" "BEGIN { exit !(s >= 50) }" &&
	! grep "\\[off-cpu other\\]" sh.col | grep -q "wait4"
'

# --- the legend --------------------------------------------------------------
test_expect_success BPF,PY311 'flame graphs: the off-CPU leaves are their own kind, not unknown' '
	python3 - sh1.html <<-\EOF &&
	import json, re, sys
	page = open(sys.argv[1]).read()
	d = json.loads(re.search(r"<script id=\"ppr-data\" type=\"application/json\">(.*?)</script>", page, re.S).group(1))
	S, F = d["strings"], d["frames"]
	kinds = {S[F[4 * i]]: F[4 * i + 3] for i in range(len(F) // 4)}
	off = {n: k for n, k in kinds.items() if n.startswith("[off-cpu ")}
	assert off and all(k == 9 for k in off.values()), off
	assert "[off-cpu child]" in off, off
	EOF
	test_grep "<g id=\"legend\">.*off-CPU" sh1.svg
'

test_expect_success BPF,PY311,CHROMIUM 'html legend: off-CPU with its share, unknown not most of it' '
	flame_browser html sh1.html >b &&
	! grep -E "^(request|pageerror|console_error|error)=" b &&
	legend=$(flame_kv legend b) &&
	test_diag "legend: $legend" &&
	echo "$legend" | grep -E "off-CPU [0-9.]+% self" &&
	! echo "$legend" | grep -E "unknown ([5-9][0-9]|100)\\.[0-9]% self" &&
	test "$(grep -c "^warning=" b)" = "$(python3 -c "import json; print(len(json.load(open(\"sh1.json\"))[\"warnings\"]))")" &&
	test "$(grep -c "^note=" b)" = "$(python3 -c "import json; print(len(json.load(open(\"sh1.json\"))[\"notes\"]))")"
'

test_done
