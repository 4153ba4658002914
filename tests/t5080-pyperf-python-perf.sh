#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='pyperf-python under real perf: Python functions in perf script'
. ./test-lib.sh

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

for v in 3.8 3.10 3.12 system; do
	if test $v = system; then
		p=/usr/bin/python3
		case $(ppr_python_version $p 2>/dev/null) in
		3.8|3.9|3.10|3.11|3.12|3.13) ;;
		*) test_skip "jit mode: system python3" "no supported /usr/bin/python3"; continue ;;
		esac
	elif ! p=$(ppr_python $v); then
		test_skip "jit mode: python $v" "no CPython $v here"
		continue
	fi
	test_expect_success PERF "jit mode, $v ($p): perf script shows the script's functions" "
		record_jit '$p'
	"
done

test_expect_success PERF 'no mode given: a build without frame pointers gets jit' '
	p=$(ppr_python 3.10 || echo /usr/bin/python3) &&
	ppr trampoline env --python "$p" >env &&
	test_grep "^PYPERF_TRAMPOLINE=jit$" env
'

if p=$(ppr_python 3.13); then
	test_expect_success PERF "3.13: perf_jit through pyperf-python, the embedded trampoline" "
		'$PYPY' --python '$p' -c 'import os, sys; print(os.getpid(), os.environ.get(\"PYPERF_TRAMPOLINE\"), sys.modules[\"_pyperf_trampoline\"].is_active())' >tramp &&
		set -- \$(cat tramp) && clean_pid \$1 &&
		test \"\$2 \$3\" = \"jit True\" &&
		record_jit '$p'
	"
fi

# perf mode needs frame pointers for -g; the frame-pointer build does.
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

if p=$(ppr_python 3.12); then
	# Without frame pointers perf -g cannot walk these stacks; the map
	# the embedded trampoline writes is what is checked.
	test_expect_success "3.12 -X perf: the perf map names the functions" "
		rm -f pid &&
		'$PYPY' --python '$p' -X perf app.py &&
		pid=\$(cat pid) &&
		grep ' py::hot_leaf:.*app.py\$' /tmp/perf-\$pid.map >found
		st=\$?
		clean_pid \$pid
		return \$st
	"
fi

test_done
