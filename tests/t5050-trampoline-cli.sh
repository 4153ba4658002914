#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='pyperf-run trampoline and pyperf-python: command line, pass-through'
. ./test-lib.sh

# Never touch the user's cache: first-use builds land in the trash.
XDG_CACHE_HOME=$TRASH/cache
export XDG_CACHE_HOME
unset PYTHON PYPERF_TRAMPOLINE PYPERF_TRAMPOLINE_DIR PYPERF_LIBDIR
PYPY=$PPR_BUILD/wrappers/pyperf-python

P311=$(ppr_python 3.11 || true)
P312=$(ppr_python 3.12 || true)
P313=$(ppr_python 3.13 || true)
P38=$(ppr_python 3.8 || true)
P27=$(ppr_python 2.7 || true)
P37=$(ppr_python 3.7 || true)
# An interpreter only the embedded trampoline serves: the distribution's
# own if it is 3.8-3.11, else a pyenv 3.11 or 3.8.
EMB=$(ppr_distro_python 3.11 3.10 3.9 3.8 || true)
test -n "$EMB" || EMB=${P311:-$P38}
test_prereq_EMB() { test -n "$EMB" || { echo "no CPython 3.8-3.11"; return 1; }; }
test_prereq_PY312() { test -n "$P312" || { echo "no CPython 3.12"; return 1; }; }
test_prereq_PY313() { test -n "$P313" || { echo "no CPython 3.13"; return 1; }; }
test_prereq_PY27() { test -n "$P27" || { echo "no Python 2.7"; return 1; }; }
test_prereq_PY37() { test -n "$P37" || { echo "no Python 3.7"; return 1; }; }

test_expect_success 'no subcommand is a usage error' '
	test_expect_code 2 ppr trampoline 2>err &&
	test_grep "^pyperf-run trampoline: which subcommand" err &&
	test_grep "^hint: usage: pyperf-run trampoline install" err
'

test_expect_success 'an unknown subcommand is a usage error' '
	test_expect_code 2 ppr trampoline frob 2>err &&
	test_grep "unknown subcommand .frob." err
'

test_expect_success 'unknown options and missing values are usage errors' '
	test_expect_code 2 ppr trampoline status --frob 2>err &&
	test_grep "unknown option .--frob." err &&
	test_expect_code 2 ppr trampoline status --python 2>err &&
	test_grep "needs a value" err &&
	test_expect_code 2 ppr trampoline status extra 2>err &&
	test_grep "unexpected argument .extra." err &&
	test_expect_code 2 ppr trampoline install --mode jit 2>err &&
	test_grep "unknown option .--mode." err
'

test_expect_success '-h prints the usage on stdout' '
	ppr trampoline -h >out 2>err &&
	test_grep "^usage: pyperf-run trampoline install \[--python <path>\]" out &&
	test_grep "^   or: pyperf-run trampoline status" out &&
	! test -s err &&
	ppr trampoline status -h >out2 &&
	test_cmp out out2
'

test_expect_success 'a missing interpreter fails with status 1' '
	test_expect_code 1 ppr trampoline status --python "$TRASH/nope" 2>err &&
	test_grep "^pyperf-run trampoline: cannot run .*nope.: No such file" err
'

test_expect_success EMB 'status of an interpreter served by the embedded trampoline' '
	ppr trampoline status --python "$EMB" >out &&
	test_grep "^interpreter: +/.* \(CPython 3\.[0-9]+\.[0-9]+\)$" out &&
	test_grep "^support: +embedded trampoline$" out &&
	test_grep "^build: +" out &&
	test_grep "^installed: +no$" out
'

# A stand-in 3.14 that answers pyperf-run's probe like a real one.
test_expect_success 'install into 3.14 is refused: its frame layout changed' '
	mkdir -p site314 &&
	cat >fake314 <<-EOF &&
	#!/bin/sh
	printf "%s\\n" version=3.14.0 releaselevel=final implementation=cpython \\
		executable=$TRASH/fake314 prefix=$TRASH base_prefix=$TRASH \\
		pydebug=0 machine=x86_64 cv.PY_HAVE_PERF_TRAMPOLINE=1 \\
		cv.Py_GIL_DISABLED=0 cv.SOABI=cpython-314-x86_64-linux-gnu \\
		cv.EXT_SUFFIX=.cpython-314-x86_64-linux-gnu.so cflags=-O3 \\
		include=$TRASH has_headers=1 purelib=$TRASH/site314 end=1
	EOF
	chmod +x fake314 &&
	test_expect_code 1 ppr trampoline install --python "$TRASH/fake314" 2>err &&
	test_grep "Python 3\.14\.0 is not supported yet \(3\.8 to 3\.13 are; 3\.14 changed the frame layout\)" err &&
	test "$(ls -A site314)" = ""
'

test_expect_success PY27 'install into Python 2.7 is refused clearly' '
	test_expect_code 1 ppr trampoline install --python "$P27" 2>err &&
	test_grep "cannot install the embedded trampoline into .*: Python 2\.7\.[0-9]+ is older than 3\.8" err
'

test_expect_success PY37 'install into Python 3.7 is refused clearly' '
	test_expect_code 1 ppr trampoline install --python "$P37" 2>err &&
	test_grep "older than 3\.8" err
'

test_expect_success EMB 'env: our directory first on PYTHONPATH, the user'"'"'s kept' '
	PYTHONPATH=/u1:/u2 ppr trampoline env --python "$EMB" >env &&
	test_grep "^PYTHONPATH=/.*/boot:/u1:/u2$" env &&
	test_grep "^PYPERF_TRAMPOLINE=jit$" env &&
	ppr trampoline env --python "$EMB" --mode perf --dump-dir "$TRASH/d" >env2 &&
	test_grep "^PYTHONPATH=/[^:]*/boot$" env2 &&
	test_grep "^PYPERF_TRAMPOLINE=perf$" env2 &&
	test_grep "^PYPERF_TRAMPOLINE_DIR=$TRASH/d$" env2
'

test_expect_success PY312 'env on 3.12: both modes use the embedded trampoline' '
	ppr trampoline env --python "$P312" >env &&
	test_grep "^PYPERF_TRAMPOLINE=jit$" env &&
	ppr trampoline env --python "$P312" --mode perf >env &&
	test_grep "^PYPERF_TRAMPOLINE=perf$" env &&
	test_grep "^PYTHONPATH=/.*/boot$" env &&
	! grep "^PYTHONPERFSUPPORT" env
'

test_expect_success PY313 'env on 3.13: the embedded trampoline, both modes' '
	ppr trampoline env --python "$P313" >env &&
	test_grep "^PYPERF_TRAMPOLINE=jit$" env &&
	test_grep "^PYTHONPATH=/.*/boot$" env &&
	! grep "^PYTHON_PERF_JIT_SUPPORT" env &&
	ppr trampoline env --python "$P313" --mode perf >env &&
	test_grep "^PYPERF_TRAMPOLINE=perf$" env
'

# --- pyperf-python -------------------------------------------------------------

# The embedded trampoline's files of these runs go to the trash, not /tmp.
mkdir -p dumps
PYPERF_TRAMPOLINE_DIR=$TRASH/dumps
export PYPERF_TRAMPOLINE_DIR

test_expect_success 'pyperf-python --help' '
	"$PYPY" --help >out 2>err &&
	test_grep "^usage: pyperf-python \[--python <path>\]" out &&
	! test -s err
'

test_expect_success 'pyperf-python: usage errors exit 125' '
	test_expect_code 125 "$PYPY" --python 2>err &&
	test_grep "^pyperf-python: option .--python. needs a value" err
'

test_expect_success 'pyperf-python: a missing interpreter is 127, a non-executable 126' '
	test_expect_code 127 "$PYPY" --python "$TRASH/nope" -c pass 2>err &&
	test_grep "^pyperf-python: cannot run .*nope.: No such file" err &&
	echo "not a program" >noexec &&
	chmod 644 noexec &&
	test_expect_code 126 "$PYPY" --python "$TRASH/noexec" -c pass 2>err &&
	test_grep "^pyperf-python: cannot run " err
'

test_expect_success PY27 'pyperf-python: Python 2.7 is refused (125)' '
	test_expect_code 125 "$PYPY" --python "$P27" -c pass 2>err &&
	test_grep "^pyperf-python: Python 2\.7\.[0-9]+ is not supported" err
'

cat >prog.py <<'PY'
import os, sys
data = sys.stdin.read()
sys.stdout.write("argv=%r\n" % (sys.argv,))
sys.stdout.write("stdin=%r\n" % (data,))
sys.stderr.write("to stderr\n")
sys.exit(int(os.environ.get("CODE", "0")))
PY

for p in $EMB $P312 $P313; do
	v=$(ppr_python_version "$p")
	test_expect_success "pyperf-python $v: argv, streams and exit status pass through" "
		printf 'in put' | CODE=7 '$p' prog.py a 'b c' -X perf >expect.out 2>expect.err
		test \$? = 7 &&
		printf 'in put' | CODE=7 '$PYPY' --python '$p' prog.py a 'b c' -X perf >out 2>err
		test \$? = 7 &&
		test_cmp expect.out out &&
		test_cmp expect.err err
	"
	test_expect_success "pyperf-python $v: Python frames are on" "
		'$PYPY' --python '$p' -c 'import sys; print(sys.is_stack_trampoline_active())' >out &&
		echo True >expect &&
		test_cmp expect out
	"
done

test_expect_success EMB 'pyperf-python: --python=PATH; -h is the interpreter'"'"'s' '
	"$PYPY" --python="$EMB" -c "import sys; print(sys.executable)" >out &&
	"$EMB" -c "import sys; print(sys.executable)" >expect &&
	test_cmp expect out &&
	"$PYPY" --python="$EMB" -h >out &&
	"$EMB" -h >expect &&
	test_cmp expect out
'

test_expect_success EMB 'pyperf-python: a signal death is reported like a shell does' '
	"$PYPY" --python "$EMB" -c "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
	test $? = 143
'

test_expect_success EMB 'pyperf-python: $PYTHON picks the interpreter' '
	PYTHON="$EMB" "$PYPY" -c "import sys; print(sys.executable)" >out &&
	"$EMB" -c "import sys; print(sys.executable)" >expect &&
	test_cmp expect out
'

test_expect_success EMB 'pyperf-python: the user'"'"'s sitecustomize still runs, sys.path is clean' '
	mkdir -p usersite &&
	echo "print(\"user sitecustomize ran\")" >usersite/sitecustomize.py &&
	PYTHONPATH="$TRASH/usersite" "$EMB" -c "import sys; print(sys.path[1:])" >expect.path &&
	PYTHONPATH="$TRASH/usersite" "$PYPY" --python "$EMB" \
		-c "import sys; print(sys.path[1:]); print(sys.is_stack_trampoline_active())" >out &&
	head -n 1 out >first &&
	echo "user sitecustomize ran" >expect &&
	test_cmp expect first &&
	sed -n 2p out >path &&
	sed -n 2p expect.path >want.path &&
	test_cmp want.path path &&
	test "$(sed -n 3p out)" = True
'

test_expect_success EMB 'pyperf-python: -X perf asks for perf maps' '
	env -u PYPERF_TRAMPOLINE_DIR "$PYPY" --python "$EMB" -X perf -c "
import os
def work(): return sum(range(1000))
work()
print(os.getpid())" >pid &&
	pid=$(cat pid) &&
	map=/tmp/perf-$pid.map &&
	test -f "$map" &&
	test "$(stat -c %a "$map")" = 600 &&
	grep -q " py::work:<string>$" "$map" &&
	rm -f "$map"
'

test_expect_success EMB 'pyperf-python: -I without an install is refused with a hint' '
	test_expect_code 125 "$PYPY" --python "$EMB" -I -c pass 2>err &&
	test_grep "^pyperf-python: -E and -I make Python" err &&
	test_grep "^hint: .pyperf-run trampoline install --python " err
'

test_expect_success PY313 'pyperf-python: -I on 3.13 without an install: CPython'"'"'s own' '
	"$PYPY" --python "$P313" -I -c "import os, sys; print(sys.is_stack_trampoline_active(), os.getpid())" >out &&
	set -- $(cat out) &&
	rm -f /tmp/jit-$2.dump /tmp/perf-$2.map &&
	test "$1" = True
'

test_done
