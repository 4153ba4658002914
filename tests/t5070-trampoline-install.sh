#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='pyperf-run trampoline install/status/uninstall into a throwaway venv'
. ./test-lib.sh

unset PYTHON PYPERF_TRAMPOLINE PYPERF_TRAMPOLINE_DIR PYPERF_LIBDIR
XDG_CACHE_HOME=$TRASH/cache
export XDG_CACHE_HOME

# Interpreters to make venvs from: one served by the embedded trampoline
# (the distribution's own if it is 3.8-3.11, else pyenv's), 3.12 and 3.13.
P312=$(ppr_python 3.12 || true)
P313=$(ppr_python 3.13 || true)
BASE=
test_prereq_VENV() {
	# (not $p: test_have_prereq loops with it)
	for cand in $(ppr_distro_python 3.11 3.10 3.9 3.8) \
		    $(ppr_python 3.11) $(ppr_python 3.10) $(ppr_python 3.8); do
		case $(ppr_python_version "$cand") in
		3.8|3.9|3.10|3.11) ;;
		*) continue ;;
		esac
		rm -rf "$TRASH/venv"
		if "$cand" -m venv --without-pip "$TRASH/venv" >/dev/null 2>&1
		then
			BASE=$cand
			return 0
		fi
	done
	echo "no CPython 3.8-3.11 that can make a venv"
	return 1
}
test_prereq_VENV312() {
	test -n "$P312" || { echo "no CPython 3.12"; return 1; }
	"$P312" -m venv --without-pip "$TRASH/venv312" ||
		{ echo "python3.12 -m venv does not work"; return 1; }
}
test_prereq_VENV313() {
	test -n "$P313" || { echo "no CPython 3.13"; return 1; }
	"$P313" -m venv --without-pip "$TRASH/venv313" ||
		{ echo "python3.13 -m venv does not work"; return 1; }
}

VPY=$TRASH/venv/bin/python
site_of() {
	"$1" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
}
# Every file under a directory, for before/after comparisons.
snapshot() {
	(cd "$1" && find . | LC_ALL=C sort)
}
# Remove the files a run left in /tmp for pid $1.
clean_pid() {
	rm -f "/tmp/jit-$1.dump" "/tmp/perf-$1.map"
}

test_expect_success VENV 'status: not installed; nothing else touched yet' '
	site=$(site_of "$VPY") &&
	case $site in "$TRASH"/venv/*) ;; *) echo "site $site"; false ;; esac &&
	snapshot "$site" >before &&
	snapshot "$(site_of "$BASE")" >base.before &&
	ppr trampoline status --python "$VPY" >out &&
	test_grep "^site-packages: $site$" out &&
	test_grep "^installed: +no$" out
'

test_expect_success VENV 'install adds three files and a manifest to the venv' '
	ppr trampoline install --python "$VPY" >out 2>err &&
	test_grep "^installed the embedded trampoline into .$(site_of "$VPY")." out &&
	snapshot "$(site_of "$VPY")" >after &&
	comm -13 before after >added &&
	sed "s|^\./||" added >names &&
	grep -qx "_pyperf_trampoline_boot.py" names &&
	grep -qx "pyperf_trampoline.pth" names &&
	grep -qx "pyperf_trampoline.pyperf-run-manifest" names &&
	grep -qx "_pyperf_trampoline\..*\.so" names &&
	test $(wc -l <names) = 4 &&
	test -z "$(comm -23 before after)"
'

test_expect_success VENV 'the base interpreter is untouched' '
	snapshot "$(site_of "$BASE")" >base.after &&
	test_cmp base.before base.after &&
	"$BASE" -c "import sys; print(hasattr(sys, \"activate_stack_trampoline\"))" >out &&
	echo False >expect &&
	test_cmp expect out
'

test_expect_success VENV 'status lists what is installed' '
	ppr trampoline status --python "$VPY" >out &&
	test_grep "^installed: +yes \(by pyperf-run [0-9.]+\)$" out &&
	test_grep "^  $(site_of "$VPY")/pyperf_trampoline.pth$" out &&
	test_grep "manifest$" out
'

test_expect_success VENV 'installing twice is harmless' '
	snapshot "$(site_of "$VPY")" >s1 &&
	ppr trampoline install --python "$VPY" 2>err &&
	test_grep "installed already" err &&
	snapshot "$(site_of "$VPY")" >s2 &&
	test_cmp s1 s2
'

test_expect_success VENV 'a process that does not ask loads no library and writes nothing' '
	"$VPY" -c "
import os, sys
print(sys.is_stack_trampoline_active())
print(\"_pyperf_trampoline\" in sys.modules)
print(os.getpid())" >out &&
	pid=$(sed -n 3p out) &&
	test "$(sed -n 1p out)" = False &&
	test "$(sed -n 2p out)" = False &&
	! test -e /tmp/jit-$pid.dump &&
	! test -e /tmp/perf-$pid.map
'

test_expect_success VENV 'python -X perf_jit works permanently' '
	"$VPY" -X perf_jit -c "
import os, sys
def f(): return sum(range(100))
f()
print(sys.is_stack_trampoline_active()); print(os.getpid())" >out &&
	pid=$(sed -n 2p out) &&
	test "$(sed -n 1p out)" = True &&
	test -s /tmp/jit-$pid.dump &&
	test "$(stat -c %a /tmp/jit-$pid.dump)" = 600 &&
	clean_pid $pid
'

test_expect_success VENV 'python -X perf writes a perf map' '
	"$VPY" -X perf -c "
import os
def work(): return sum(range(100))
work(); print(os.getpid())" >pid &&
	pid=$(cat pid) &&
	grep -q " py::work:<string>$" /tmp/perf-$pid.map &&
	clean_pid $pid
'

test_expect_success VENV 'it also works in isolated mode (-I)' '
	"$VPY" -I -X perf_jit -c "import os, sys; print(sys.is_stack_trampoline_active()); print(os.getpid())" >out &&
	test "$(sed -n 1p out)" = True &&
	clean_pid $(sed -n 2p out)
'

test_expect_success VENV 'PYTHON_PERF_JIT_SUPPORT=1 works, and is ignored under -E' '
	PYTHON_PERF_JIT_SUPPORT=1 "$VPY" -c "import os, sys; print(sys.is_stack_trampoline_active()); print(os.getpid())" >out &&
	test "$(sed -n 1p out)" = True &&
	clean_pid $(sed -n 2p out) &&
	PYTHON_PERF_JIT_SUPPORT=1 "$VPY" -E -c "import sys; print(sys.is_stack_trampoline_active())" >out &&
	test "$(cat out)" = False
'

test_expect_success VENV 'the sys API works after install' '
	"$VPY" -c "
import os, sys
sys.activate_stack_trampoline(\"perf_jit\")
a = sys.is_stack_trampoline_active()
sys.deactivate_stack_trampoline()
b = sys.is_stack_trampoline_active()
try:
    sys.activate_stack_trampoline(\"bogus\")
except ValueError as e:
    c = str(e)
print(a, b, c); print(os.getpid())" >out &&
	test "$(sed -n 1p out)" = "True False invalid backend: bogus" &&
	clean_pid $(sed -n 2p out)
'

test_expect_success VENV 'pyperf-python -I works once installed' '
	"$PPR_BUILD/wrappers/pyperf-python" --python "$VPY" -I -c "import os, sys; print(sys.is_stack_trampoline_active()); print(os.getpid())" >out &&
	test "$(sed -n 1p out)" = True &&
	clean_pid $(sed -n 2p out)
'

test_expect_success VENV 'uninstall removes exactly what install added' '
	ppr trampoline uninstall --python "$VPY" >out &&
	test_grep "^removed the embedded trampoline from " out &&
	snapshot "$(site_of "$VPY")" >after.uninstall &&
	test_cmp before after.uninstall &&
	ppr trampoline status --python "$VPY" >out &&
	test_grep "^installed: +no$" out &&
	"$VPY" -X perf_jit -c "import sys; print(hasattr(sys, \"is_stack_trampoline_active\"))" >out &&
	test "$(cat out)" = False
'

test_expect_success VENV 'uninstall when nothing is installed fails' '
	test_expect_code 1 ppr trampoline uninstall --python "$VPY" 2>err &&
	test_grep "is not installed in " err
'

test_expect_success VENV 'a foreign file of the same name is never overwritten' '
	site=$(site_of "$VPY") &&
	echo "# mine" >"$site/pyperf_trampoline.pth" &&
	test_expect_code 1 ppr trampoline install --python "$VPY" 2>err &&
	test_grep "was not installed by pyperf-run; not touching it" err &&
	echo "# mine" >expect &&
	test_cmp expect "$site/pyperf_trampoline.pth" &&
	! test -e "$site/pyperf_trampoline.pyperf-run-manifest" &&
	rm "$site/pyperf_trampoline.pth"
'

test_expect_success VENV312 'on 3.12: install gives -X perf_jit; -X perf stays native' '
	V=$TRASH/venv312/bin/python &&
	before=$(snapshot "$(site_of "$V")") &&
	ppr trampoline install --python "$V" >out &&
	"$V" -X perf_jit -c "import os, sys; print(sys.is_stack_trampoline_active()); print(os.getpid())" >out &&
	test "$(sed -n 1p out)" = True &&
	pid=$(sed -n 2p out) &&
	test -s /tmp/jit-$pid.dump &&
	clean_pid $pid &&
	ppr trampoline uninstall --python "$V" &&
	test "$(snapshot "$(site_of "$V")")" = "$before"
'

# Installed into 3.13, the embedded trampoline serves what pyperf-run
# asks for (PYPERF_TRAMPOLINE, read under -I too); -X perf_jit stays
# CPython's own.
test_expect_success VENV313 'on 3.13: install; PYPERF_TRAMPOLINE gives ours, -X perf_jit stays native' '
	V=$TRASH/venv313/bin/python &&
	before=$(snapshot "$(site_of "$V")") &&
	ppr trampoline install --python "$V" >out &&
	cat >which.py <<-\EOF &&
	import os, sys
	m = sys.modules.get("_pyperf_trampoline")
	print(os.getpid(), m is not None and m.is_active(),
	      sys.is_stack_trampoline_active())
	EOF
	PYPERF_TRAMPOLINE=jit "$V" -I which.py >out &&
	set -- $(cat out) && clean_pid $1 &&
	test "$2 $3" = "True True" &&
	"$V" -X perf_jit which.py >out &&
	set -- $(cat out) &&
	test -s /tmp/jit-$1.dump && clean_pid $1 &&
	test "$2 $3" = "False True" &&
	ppr trampoline uninstall --python "$V" &&
	test "$(snapshot "$(site_of "$V")")" = "$before"
'

test_done
