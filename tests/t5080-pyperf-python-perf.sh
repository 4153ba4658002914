#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='pyperf-python under real perf: Python functions in perf script'
. ./test-lib.sh
perf_buildids_in_trash

unset PYTHON PYPERF_TRAMPOLINE PYPERF_TRAMPOLINE_DIR PYPERF_LIBDIR
XDG_CACHE_HOME=$TRASH/cache
export XDG_CACHE_HOME
PYPY=$PPR_BUILD/wrappers/pyperf-python

cat >app.py <<'PY'
import os, time
def hot_leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def middle_fn():
    return hot_leaf(20000)
def main():
    with open("pid", "w") as f:
        f.write("%d\n" % os.getpid())
    end = time.process_time() + 0.6
    while time.process_time() < end:
        middle_fn()
main()
PY

# Remove what the run of pid $1 left in /tmp.
clean_pid() {
	rm -f "/tmp/jit-$1.dump" "/tmp/perf-$1.map" /tmp/jitted-"$1"-*.so
}

# The Python frames of every sample, innermost first, one sample a line
# ("hot_leaf middle_fn main <module>").
py_stacks() {
	perf script -i "$1" -F ip,sym 2>/dev/null | awk '
		/^$/ { if (s != "") print s; s = ""; next }
		{ for (i = 2; i <= NF; i++) if ($i ~ /^py::/) {
			n = $i; sub(/^py::/, "", n); sub(/:.*/, "", n)
			s = s (s == "" ? "" : " ") n } }
		END { if (s != "") print s }'
}

# At least 80% of the samples in hot_leaf have the whole Python stack.
check_stacks() {
	py_stacks "$1" >stacks &&
	total=$(grep -c "^hot_leaf" stacks) &&
	full=$(grep -c "^hot_leaf middle_fn main <module>" stacks) &&
	echo "hot_leaf samples: $total, complete stacks: $full" &&
	test "$total" -ge 25 &&
	test $((full * 100)) -ge $((total * 80))
}

# jit mode: perf record -k 1 --call-graph dwarf, perf inject --jit.
record_jit() {
	rm -f perf.data perf.jit.data pid &&
	perf record -q -e cpu-clock -F 299 -k 1 --call-graph dwarf \
		-o perf.data "$PYPY" --python "$1" app.py 2>perf.err &&
	pid=$(cat pid) &&
	perf inject --jit -i perf.data -o perf.jit.data 2>>perf.err
	st=$?
	check_stacks perf.jit.data || st=1
	clean_pid "$pid"
	return $st
}

# perf mode needs frame pointers for -g; the frame-pointer build does.
# (First: only this subtest runs code no other test runs, and the
# sanitizer pass keeps a test's first subtests only: tests/sanitize-skip.)
# (Own prerequisite: ppr_fp_python sets $p, which test_have_prereq uses.)
test_prereq_FPPY() {
	fp=$(ppr_fp_python) && test -n "$fp" ||
		{ echo "no frame-pointer CPython (run .ci/setup.d/fp-python.sh)"; return 1; }
}
test_expect_success PERF,FPPY 'perf mode on a frame-pointer build: perf record -g' '
	fp=$(ppr_fp_python) &&
	ppr trampoline env --python "$fp" >env &&
	test_grep "^PYPERF_TRAMPOLINE=perf$" env &&
	rm -f perf.data pid &&
	perf record -q -e cpu-clock -F 299 -g -o perf.data \
		"$PYPY" --python "$fp" app.py 2>perf.err &&
	pid=$(cat pid) &&
	check_stacks perf.data
	st=$?
	clean_pid $pid
	return $st
'

# The distribution's own interpreter (outside pyenv), when supported.
DISTRO_PY=$(ppr_distro_python 3.13 3.12 3.11 3.10 3.9 3.8) || DISTRO_PY=
test_prereq_DISTRO_PY() {
	test -n "$DISTRO_PY" ||
		{ echo "no CPython 3.8-3.13 of the distribution (outside pyenv)"; return 1; }
}

for v in 3.8 3.10 3.12; do
	p=$(ppr_python $v) || p=
	test_expect_success PERF,PY$(echo $v | tr -d .) "jit mode, $v ($p): perf script shows the script's functions" "
		record_jit '$p'
	"
done
test_expect_success PERF,DISTRO_PY "jit mode, the distribution's python ($DISTRO_PY): perf script shows the script's functions" '
	record_jit "$DISTRO_PY"
'

# A build without frame pointers: pyenv's 3.10, else the distribution's.
test_prereq_NOFP_PY() {
	NOFP_PY=$(ppr_python 3.10 || ppr_distro_python 3.13 3.12 3.11 3.10 3.9 3.8) ||
		{ echo "no CPython 3.10, nor one of the distribution"; return 1; }
}
test_expect_success PERF,NOFP_PY 'no mode given: a build without frame pointers gets jit' '
	ppr trampoline env --python "$NOFP_PY" >env &&
	test_grep "^PYPERF_TRAMPOLINE=jit$" env
'

P313=$(ppr_python 3.13) || P313=
test_expect_success PERF,PY313 "3.13: perf_jit through pyperf-python, the embedded trampoline" "
	'$PYPY' --python '$P313' -c 'import os, sys; print(os.getpid(), os.environ.get(\"PYPERF_TRAMPOLINE\"), sys.modules[\"_pyperf_trampoline\"].is_active())' >tramp &&
	set -- \$(cat tramp) && clean_pid \$1 &&
	test \"\$2 \$3\" = \"jit True\" &&
	record_jit '$P313'
"

# Without frame pointers perf -g cannot walk these stacks; the map the
# embedded trampoline writes is what is checked.
P312=$(ppr_python 3.12) || P312=
test_expect_success PY312 "3.12 -X perf: the perf map names the functions" "
	rm -f pid &&
	'$PYPY' --python '$P312' -X perf app.py &&
	pid=\$(cat pid) &&
	grep ' py::hot_leaf:.*app.py\$' /tmp/perf-\$pid.map >found
	st=\$?
	clean_pid \$pid
	return \$st
"

test_done
