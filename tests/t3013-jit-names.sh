#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# CPython 3.13's native perf_jit writes a jitdump record per code object
# through stdio.  A fork pool forks from the pool's handler thread while
# the main thread writes: a child can inherit half a record and flush it
# into the parent's dump, and the name perf shows then holds machine
# code (".../pool.p\x08\xc3\xc3...py").  Every name of every format must
# be valid UTF-8 without control characters; a damaged one is dropped
# and counted in the warnings.
test_description='report: jit-mode names are clean, damaged ones counted'
. ./test-lib.sh

PROG=$PPR_SRCDIR/tests/fixtures/load-fork-jit.py
CLEAN=$PPR_SRCDIR/tests/fixtures/load-clean-names.py
FORMATS="text collapsed json html svg speedscope"
if test_have_prereq PPROF; then FORMATS="$FORMATS pprof"; fi

test_prereq_SESSION() {
	test -s pool/perf.data || { echo "the recording failed"; return 1; }
}

# all_clean SESSION [FORBIDDEN]: every format of SESSION's report is clean
all_clean() {
	for f in $FORMATS; do
		ppr report -i "$1" -f $f -o "$1.$f" 2>"$1.$f.err" &&
		python3 "$CLEAN" $f "$1.$f" ${2:+"$2"} || echo "$1: $f" >>bad
	done
	! test -s bad
}

test_expect_success PERF,PY313 'record a fork pool with the native perf_jit' '
	ppr record -q --mode jit --trampoline native -o pool \
		--python "$(ppr_python 3.13)" \
		"$PROG" split 16 0.0003 >out 2>err &&
	grep "^trampoline=native$" pool/meta &&
	ls pool/jit/jit-*.dump >dumps &&
	test "$(wc -l <dumps)" -gt 2 &&
	cat split
'

test_expect_success SESSION 'every format: valid UTF-8, no control characters' '
	all_clean pool &&
	# a damaged name that was shown is counted, in text and json alike
	python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[\"quality\"][\"bad_names\"])" \
		pool.json >bad_names &&
	echo "# damaged names: $(cat bad_names)" &&
	if test "$(cat bad_names)" != 0; then
		test_grep "^# warning: +$(cat bad_names) damaged function names? " pool.text
	else
		test_grep -v "damaged function name" pool.text
	fi
'

# The same session with names damaged in every jitted object perf reads
# (same length, so the ELF stays valid), as torn records damage them:
# pool_task with machine code inside, spin cut short by a NUL ("py::sp",
# no file).  The damage is certain, whatever the run above gave.
test_expect_success SESSION 'a garbled name is dropped and counted, its samples kept' '
	cp -R pool torn && rm -rf torn/cache &&
	python3 - torn <<-\EOF &&
	import os, sys
	n = 0
	for d, _, files in os.walk(sys.argv[1]):
	    for f in files:
	        p = os.path.join(d, f)
	        if os.path.islink(p):
	            continue
	        with open(p, "rb") as fh:
	            b = fh.read()
	        if b"py::pool_task:" in b or b"py::spin:" in b:
	            b = b.replace(b"py::pool_task:", b"py::pool\x08\xc3ask:")
	            b = b.replace(b"py::spin:", b"py::sp\x00n:")
	            with open(p, "wb") as fh:
	                fh.write(b)
	            n += 1
	print("garbled in %d files" % n)
	sys.exit(n == 0)
	EOF
	all_clean torn pool_task &&
	! grep -E "(^|;)(sp|spin)( \(|;| [0-9]+$)" torn.collapsed &&
	test_grep "^# warning: +[1-9][0-9]* damaged function names? \(invalid UTF-8" torn.text &&
	python3 - pool.json torn.json <<-\EOF
	import json, sys
	a, b = (json.load(open(p)) for p in sys.argv[1:])
	assert b["quality"]["bad_names"] > a["quality"]["bad_names"], b["quality"]
	assert a["samples"] == b["samples"], (a["samples"], b["samples"])
	assert any("damaged function name" in w for w in b["warnings"]), b["warnings"]
	EOF
'

test_done
