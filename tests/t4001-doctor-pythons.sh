#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor on every interpreter of the machine, in text and JSON'
. ./test-lib.sh

# Built with frame pointers (both flags), asked of the interpreter itself.
has_fp() {
	"$1" -c '
import sys
try:
    import sysconfig
    f = (sysconfig.get_config_var("PY_CORE_CFLAGS") or
         sysconfig.get_config_var("CFLAGS") or "").split()
except Exception:
    f = []
def last(a, b):
    i = max([n for n, x in enumerate(f) if x == a] or [-1])
    j = max([n for n, x in enumerate(f) if x == b] or [-1])
    return i > j
sys.exit(0 if last("-fno-omit-frame-pointer", "-fomit-frame-pointer") and
         last("-mno-omit-leaf-frame-pointer", "-momit-leaf-frame-pointer")
         else 1)' 2>/dev/null
}

# expect_for PYTHON: "exit mode trampoline" that doctor must answer.
expect_for() {
	v=$(ppr_python_version "$1")
	major=${v%%.*}
	minor=${v#*.}
	if test "$major" -lt 3 || test "$minor" -lt 8; then
		echo "1 none none"
		return
	fi
	# frame-pointer builds get jit mode too where perf is known to
	# unwind jitted code (perf mode cuts deep stacks and goes blind
	# in C code without frame pointers), else perf mode
	if has_fp "$1" && test "$jit_fix" != yes; then
		mode=perf
	else
		mode=jit
	fi
	# the embedded trampoline on every version it serves (3.12 and
	# 3.13 too: their own cut thread stacks with libunwind perfs);
	# CPython's own from 3.14 on
	if test "$minor" -ge 14; then
		tramp=native
	else
		tramp=embedded
	fi
	echo "0 $mode $tramp"
}

jit_fix=$(ppr doctor --json 2>/dev/null >doctor.json; json_get doctor.json perf.jit_fix)
pythons=$(ppr_pythons)
fp=$(ppr_fp_python || true)
test -n "$fp" && pythons="$pythons $fp"
if test -z "$pythons"; then
	test_skip 'doctor on every interpreter' 'no interpreter found'
fi

n=0
# --trampoline changes what doctor shows, as it changes what record does.
# (First: of this test's subtests only this one runs code no other test
# runs, and the sanitizer pass keeps a test's first subtests only:
# tests/sanitize-skip.)
P313=$(ppr_python 3.13 || true)
P311=$(ppr_python 3.11 || true)
test_prereq_PY311_313() {
	test -n "$P313" && test -n "$P311" ||
		{ echo "no CPython 3.11 and 3.13 here"; return 1; }
}
test_expect_success PY311_313 "--trampoline native: 3.13 gets CPython's own, 3.11 has none" '
	ppr doctor --trampoline native --python "$P313" >text 2>err &&
	test_grep "^  ok       (jit|perf) mode, native trampoline, call graph " text &&
	test_grep "CPython.s own trampoline \(--trampoline native\)" text &&
	test_grep "^ +PYTHON(_PERF_JIT_SUPPORT|PERFSUPPORT)=1 " text &&
	ppr doctor --json --trampoline embedded --python "$P313" >j &&
	test "$(json_get j perf_mode.trampoline)" = embedded &&
	test_expect_code 1 ppr doctor --trampoline native --python "$P311" >text 2>err &&
	test_grep "^  problem  Python 3\.11\.[0-9]+ has no native (jit|perf) trampoline \(it came in 3\.12\): --trampoline native cannot work" text
'

for py in $pythons; do
	n=$((n + 1))
	set -- $(expect_for "$py")
	want_code=$1 want_mode=$2 want_tramp=$3
	v=$(ppr_python_version "$py")

	# as root the frame walker takes CPython 3.8-3.13 (record --mode
	# auto, doctor's first decision line); perf_mode is perf record's
	walks=no
	case $v in 3.8|3.9|3.1[0-3]) test_have_prereq BPF && walks=yes ;; esac
	test "$walks" = yes && want_auto=bpf || want_auto=$want_mode

	test_expect_success "$v ($py): JSON says $want_mode/$want_tramp" "
		ppr doctor --json --python '$py' >out.$n 2>err.$n; code=\$? &&
		! test -s err.$n &&
		python3 -m json.tool out.$n >/dev/null &&
		test \"\$(json_get out.$n python.version | cut -d. -f1-2)\" = '$v' &&
		test \"\$(json_get out.$n mode.name)\" = '$want_auto' &&
		test \"\$(json_get out.$n perf_mode.name)\" = '$want_mode' &&
		test \"\$(json_get out.$n perf_mode.trampoline)\" = '$want_tramp' &&
		case '$want_mode' in
		jit) json_get out.$n perf_mode.call_graph | grep -E '^dwarf,[0-9]+\$' ;;
		perf) test \"\$(json_get out.$n perf_mode.call_graph)\" = fp ;;
		none) test \"\$(json_get out.$n ok)\" = false &&
		      test \$code = 1 &&
		      json_get out.$n problems | grep 'is not supported' ;;
		esac &&
		if test '$want_code' = 0 && test_have_prereq PERF; then
			test \$code = 0 && test \"\$(json_get out.$n ok)\" = true
		fi
	"

	test_expect_success "$v ($py): the text report says the same" "
		ppr doctor --python '$py' >text.$n 2>err.$n; code=\$? &&
		! test -s err.$n &&
		if test '$want_mode' = none; then
			test \$code = 1 &&
			test_grep '^  problem  CPython $v.* is not supported: CPython 3.8 or later is needed' text.$n &&
			test_grep '^Python frames will not work: ' text.$n &&
			test_grep -v '^decision' text.$n
		else
			if test '$walks' = yes; then
				test_grep '^  ok       bpf mode: the in-kernel frame walker' text.$n &&
				test_grep '^  ok       with --mode jit or perf, or without these privileges: $want_mode mode, $want_tramp trampoline, call graph ' text.$n
			else
				test_grep '^  ok       $want_mode mode, $want_tramp trampoline, call graph ' text.$n
			fi &&
			test_grep '^  ok       CPython $v' text.$n &&
			test_grep 'record runs:' text.$n &&
			case '$want_tramp/$want_mode' in
			native/jit) test_grep '^ +PYTHON_PERF_JIT_SUPPORT=1 .* -k 1 --call-graph dwarf,' text.$n ;;
			native/perf) test_grep '^ +PYTHONPERFSUPPORT=1 .* -g ' text.$n ;;
			embedded/*) test_grep '^ +(PYTHONPATH=.* PYPERF_TRAMPOLINE=$want_mode .*perf|.*note: the embedded trampoline is built on first use)' text.$n ;;
			esac &&
			if test \$code = 0; then
				test_grep '^Python frames will work: (bpf mode \(otherwise )?$want_mode mode, $want_tramp trampoline' text.$n
			fi
		fi
	"
done

test_done
