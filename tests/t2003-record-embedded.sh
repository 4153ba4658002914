#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='record: CPython 3.8-3.13 through the embedded trampoline (jit mode) show their Python functions'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1,3,5,7,9,11,13-27
# sanitize-set: 2 needs 1
# sanitize-set: 4 needs 3
# sanitize-set: 6 needs 5
# sanitize-set: 8 needs 7
# sanitize-set: 10 needs 9
# sanitize-set: 12 needs 11
. "$PPR_SRCDIR/tests/fixtures/record-lib.sh"

# The embedded trampoline is the default on every version it serves,
# 3.12 and 3.13 included (their own trampolines cut thread stacks with
# libunwind perfs: t8000).  Thread stacks are checked by t8000.
for v in 3.8 3.9 3.10 3.11 3.12 3.13; do
	eval "test_prereq_PY$(echo $v | tr -d .)() {
		rp_=\$(record_python $v) || { echo \"\$rp_\"; return 1; }
	}"
	pre=PERF,PY$(echo $v | tr -d .)
	test_expect_success $pre "python $v: record, with the embedded trampoline" "
		py=\$(record_python $v) &&
		record_env \"\$PPR_BIN\" record --trampoline auto -o s$v --python \"\$py\" \
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

test_prereq_PY313() {
	record_python 3.13 >/dev/null || { echo "no usable CPython 3.13"; return 1; }
}
test_prereq_PY312() {
	record_python 3.12 >/dev/null || { echo "no usable CPython 3.12"; return 1; }
}

# record-split.py's thread_part runs in a second thread: with perf's
# libunwind unwinder CPython 3.13's own arenas sit in the thread's
# stack-dump window and its stacks stop at the first Python frame; the
# embedded trampoline keeps them whole.  SESSION's second-thread samples
# as "COMPLETE TOTAL" (complete: the stack reaches the thread's start).
# The thread runs 0.3 s (scale 1.5): a sample that comes in a page fault
# on the thread's new stack has no stack dump (perf's "ustack: size 0")
# and is cut whatever unwinds it; one such of 99 samples, at scale 0.5,
# once failed the 99 % bound.
thread_samples() {
	ppr report -i "$1" --all --per-thread --format collapsed |
	awk '{
		n = $NF; line = $0; sub(/ [0-9]+$/, "", line)
		split(line, f, ";"); split(f[1], pt, "/"); np = split(pt[1], c, "-")
		if (pt[2] == c[np]) next
		tot += n
		# a native thread root, or the Python root of the thread when the
		# stack was rebuilt from its context (not under [incomplete])
		if (f[2] ~ /^(__GI_)?_*(clone3?|start_thread)$/ ||
		    f[2] ~ /^Thread\._bootstrap \(.*threading\.py\)$/) ok += n
	} END { print ok + 0, tot + 0 }'
}

test_expect_success PERF,PY313 'python 3.13 by default: the embedded trampoline, whole thread stacks' '
	py=$(record_python 3.13) &&
	record_env "$PPR_BIN" record --trampoline auto -o split13 --python "$py" \
		"$FIX/record-split.py" 1.5 >out 2>err &&
	test_grep "^pyperf-run: jit mode, embedded trampoline \(python 3\.13\..*; the embedded trampoline, not CPython.s own \(whole thread stacks, names after fork\)\)$" err &&
	test "$(meta split13 trampoline)" = embedded &&
	set -- $(thread_samples split13) &&
	echo "thread samples: $1 complete of $2" &&
	test "$2" -ge 50 && test $(($1 * 100)) -ge $(($2 * 99)) &&
	no_tmp_leftovers split13
'

test_expect_success PERF,PY313 'python 3.13 --trampoline native: CPython'"'"'s own -X perf_jit' '
	py=$(record_python 3.13) &&
	record_env "$PPR_BIN" record -o native13 --trampoline native \
		--python "$py" "$FIX/record-small.py" 0.3 >out 2>err &&
	test_grep "^pyperf-run: jit mode \(python 3\.13\..*; CPython.s own trampoline \(--trampoline native\)\)$" err &&
	test "$(meta native13 trampoline)" = native &&
	session_script native13 >script.txt &&
	python3 "$FIX/record-stacks.py" foo bar "<module>" <script.txt >shares &&
	cat shares &&
	awk '"'"'$1 == "bar" && $2 > 90 { ok++ } END { exit ok != 1 }'"'"' shares &&
	no_tmp_leftovers native13
'

# perf inject --jit finds no jitdump in a compressed recording (perf
# 6.1 and 6.12 wrote no jitted code for one: 66 % of the stacks cut, the
# Python frames unnamed): --perf-arg -z is refused in a mode that needs
# perf inject, before the program runs, and is taken where none is
# needed (the embedded trampoline in jit mode), where the report reads
# the compressed records itself.
test_expect_success PERF,PY313 'python 3.13 --trampoline native --perf-arg=-z: refused before the program runs, said why' '
	py=$(record_python 3.13) &&
	test_expect_code 125 record_env "$PPR_BIN" record -o z13 \
		--trampoline native --perf-arg=-z --python "$py" \
		"$FIX/record-small.py" 0.3 >out 2>err &&
	cat err &&
	test_grep "^pyperf-run record: --perf-arg: perf inject --jit, which this jit mode needs, does not read the jitdump of a compressed recording \(-z\): the Python frames would be unnamed$" err &&
	test_grep "^hint: leave -z and --compression-level out of --perf-arg$" err &&
	! test -s out &&
	! test -e z13 &&
	! ls -d z13.tmp-* 2>/dev/null
'

test_expect_success PERF,PY313 'python 3.13 --perf-arg=-z with the embedded trampoline: a compressed session, read whole' '
	py=$(record_python 3.13) &&
	record_env "$PPR_BIN" record -o ze13 --trampoline auto \
		--perf-arg=--compression-level=3 --python "$py" \
		"$FIX/record-small.py" 0.3 >out 2>err &&
	test_grep "^record-small: done\$" out &&
	perf report --header-only -i ze13/perf.data >hdr 2>/dev/null &&
	test_grep "^# compressed : Zstd, level = 3," hdr &&
	session_script ze13 >script.txt &&
	python3 "$FIX/record-stacks.py" foo bar "<module>" <script.txt >shares &&
	cat shares &&
	awk '"'"'$1 == "bar" && $2 > 90 { ok++ } END { exit ok != 1 }'"'"' shares
'

# A fork pool on 3.13: CPython 3.13.0's own perf_jit can garble names
# there (t3013); with the embedded trampoline every format's names are
# clean and the workers' share is what their own CPU clocks measured.
test_expect_success PERF,PY313 'python 3.13 fork pool: clean names, the workers'"'"' share right' '
	py=$(record_python 3.13) &&
	record_env "$PPR_BIN" record --trampoline auto -q -o pool13 --python "$py" \
		"$FIX/load-mp-pool.py" fork split.pool 0.5 >out 2>err &&
	test "$(meta pool13 trampoline)" = embedded &&
	for f in text collapsed json; do
		ppr report -i pool13 -f $f -o pool.$f &&
		python3 "$FIX/load-clean-names.py" $f pool.$f || return 1
	done &&
	python3 -c "import json, sys; q = json.load(open(sys.argv[1]))[\"quality\"]; sys.exit(q[\"bad_names\"] != 0)" pool.json &&
	python3 "$FIX/load-shares.py" pool.collapsed parent_work pool_task >shares &&
	cat split.pool shares &&
	awk '"'"'
		FILENAME == "split.pool" && $1 == "parent_work" { p = $2 }
		FILENAME == "split.pool" && $1 == "pool_task" { w = $2 }
		FILENAME == "shares" { split($0, kv, "="); s[kv[1]] = kv[2] }
		END {
			measured = 100 * w / (p + w)
			pp = s["parent_work"]; pw = s["pool_task"]
			profiled = (pp + pw) ? 100 * pw / (pp + pw) : 0
			printf "pool_task: measured %.1f%%, profiled %.1f%%\n", measured, profiled
			d = measured - profiled; if (d < 0) d = -d
			exit !(d <= 3)
		}'"'"' split.pool shares &&
	no_tmp_leftovers pool13
'

# doctor --trampoline T shows what record --trampoline T does: the same
# mode and trampoline, or the same problem.
for v in 3.12 3.13; do
	for t in auto native embedded; do
		test_expect_success PERF,PY$(echo $v | tr -d .) "python $v --trampoline $t: record does what doctor shows" "
			py=\$(record_python $v) &&
			ppr doctor --json --trampoline $t --python \"\$py\" >doc.json;
			want=\$(json_get doc.json perf_mode.name)/\$(json_get doc.json perf_mode.trampoline) &&
			echo \"doctor: \$want\" &&
			rm -rf agree &&
			record_env \"\$PPR_BIN\" record -q -o agree --trampoline $t \\
				--python \"\$py\" \"\$FIX/record-small.py\" 0.1 >out 2>err
			code=\$? &&
			if test \"\$want\" = none/none; then
				test \$code = 125 &&
				problem=\$(json_get doc.json perf_mode.problem) &&
				test -n \"\$problem\" &&
				grep -F \"Python frames are not available: \$problem\" err
			else
				test \$code = 0 &&
				test \"\$(meta agree mode)/\$(meta agree trampoline)\" = \"\$want\"
			fi
		"
	done
done

# The library dir holds the sources but no build, the cache is empty and
# there is no compiler: the embedded trampoline cannot be had.
no_embedded() {
	mkdir -p nolib nocache &&
	cp -R "$PPR_BUILD/trampoline/src" nolib/src &&
	cp "$PPR_BUILD/trampoline/SOURCE_ID" nolib/SOURCE_ID &&
	PYPERF_LIBDIR=$TRASH/nolib CC=$TRASH/no-such-cc \
		HOME=$TRASH/home XDG_CACHE_HOME=$TRASH/nocache "$@"
}

test_expect_success PERF,PY313 'no compiler, no build: 3.13 falls back to CPython'"'"'s own, and says why' '
	py=$(record_python 3.13) &&
	mkdir -p home &&
	no_embedded "$PPR_BIN" record --trampoline auto -o fallback --python "$py" \
		"$FIX/record-small.py" 0.2 >out 2>err &&
	test "$(meta fallback trampoline)" = native &&
	test_grep "^pyperf-run: jit mode \(python 3\.13\..*; CPython.s own trampoline: the embedded one is not available\)$" err &&
	test_grep "^pyperf-run record: warning: using CPython.s own trampoline: the embedded one cannot be used: no C compiler .*no-such-cc.* is installed" err &&
	no_embedded "$PPR_BIN" doctor --json --python "$py" >doc.json &&
	test "$(json_get doc.json perf_mode.trampoline)" = native &&
	test_expect_code 125 no_embedded "$PPR_BIN" record --trampoline auto -o forced \
		--trampoline embedded --python "$py" "$FIX/record-small.py" 0.2 \
		>out 2>err &&
	test_grep "^pyperf-run record: Python frames are not available: the embedded trampoline for Python 3\.13\.[0-9]+ is not available" err &&
	test_grep "^hint: no C compiler" err &&
	! test -d forced
'

test_expect_success 'a wrong --trampoline is a usage error' '
	test_expect_code 125 ppr record --trampoline jit -c pass 2>err &&
	test_grep "^pyperf-run record: --trampoline must be auto, native or embedded, not .jit." err &&
	test_expect_code 2 ppr doctor --trampoline frob 2>err &&
	test_grep "^pyperf-run doctor: --trampoline must be auto, native or embedded, not .frob." err
'

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
	# 1 s of bar() a thread: the interpreter'"'"'s start-up and exit are
	# about 60 samples, 9 % of a 0.3 s run under ASan on a loaded machine
	# (bar() at 87 % against the 90 % below)
	record_env "$PPR_BIN" record -o fp --mode perf --python "$fp" \
		"$FIX/record-small.py" 1.0 >out 2>err &&
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
	want=$(json_get doc.json perf_mode.name) &&
	record_env "$PPR_BIN" record --trampoline auto -o fpauto --python "$fp" \
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
