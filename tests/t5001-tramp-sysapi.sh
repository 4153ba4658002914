#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: sys API, activation switches, loading'
. ./test-lib.sh
. "$TEST_DIR/fixtures/tramp-lib.sh"

mkdir -p d
D=$TRASH/d
export PYPERF_TRAMPOLINE_DIR="$D"

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'build for every interpreter' '
	for py in $(tramp_pythons); do tramp_build "$py" || return 1; done
'

# PYPERF_TRAMPOLINE=embedded: the sys API is ours for both backends on
# every version (3.12 and 3.13 included), nothing activated at start.
test_expect_success TRAMP_PYTHONS 'sys API behaves like CPython 3.12/3.13' '
	for py in $(tramp_pythons); do
		echo "== $py" &&
		PYPERF_TRAMPOLINE=embedded tramp_run "$py" "$TRAMP_FIX/tramp-sysapi.py" "$D" "$D" >out 2>err ||
			{ cat out err; return 1; }
		test_grep "^ok$" out && ! test -s err || return 1
		# ours served it: nothing of CPython'"'"'s own in /tmp
		pid=$(sed -n "s/^pid //p" out) &&
		! test -e /tmp/perf-$pid.map && ! test -e /tmp/jit-$pid.dump || return 1
	done
'

# Without PYPERF_TRAMPOLINE the glue leaves to CPython what it has: on
# 3.12 perf (its map goes to /tmp) but not perf_jit (ours); on 3.13 both
# (3.13.0 cannot activate perf_jit at run time: gh-141579).
test_expect_success TRAMP_PYTHONS 'sys API on 3.12/3.13: CPython keeps the backends it has' '
	n=0 &&
	for py in $(tramp_pythons); do
		tramp_has_native "$py" || continue
		jit=$D
		test "$(ppr_python_version "$py")" = 3.12 || jit=nojit
		tramp_run "$py" "$TRAMP_FIX/tramp-sysapi.py" /tmp "$jit" >out 2>err ||
			{ cat out err; return 1; }
		test_grep "^ok$" out && ! test -s err || return 1
		pid=$(sed -n "s/^pid //p" out) &&
		tramp_native_clean "$pid" &&
		n=$((n + 1))
	done &&
	echo "checked $n"
'

test_expect_success 'the same checks pass on native CPython 3.13+ (reference)' '
	n=0 &&
	for py in $(ppr_pythons); do
		case $(ppr_python_version "$py") in
		3.1[3-9]) ;;
		*) continue ;;
		esac
		# 3.13.0 cannot activate perf_jit at run time (gh-141579)
		"$py" "$TRAMP_FIX/tramp-sysapi.py" /tmp nojit >out 2>err ||
			{ cat out err; return 1; }
		test_grep "^ok$" out || return 1
		tramp_native_clean "$(sed -n "s/^pid //p" out)"
		n=$((n + 1))
	done &&
	echo "checked $n"
'

cat >toggle.py <<'PROG'
import sys, threading
backends = sys.argv[1:] or ["perf", "perf_jit"]
stop = False
def busy():
    def f(n):
        return n if n < 2 else f(n - 1) + f(n - 2)
    while not stop:
        f(12)
ts = [threading.Thread(target=busy) for _ in range(3)]
for t in ts:
    t.start()
for i in range(400):
    sys.activate_stack_trampoline(backends[i % len(backends)])
    compile("def g%d(): pass" % i, "x", "exec")
    exec("def g%d(): pass\ng%d()" % (i, i))
    sys.deactivate_stack_trampoline()
stop = True
for t in ts:
    t.join()
m = sys.modules["_pyperf_trampoline"]
print(m._state()["extra_index"] >= 0, sys.is_stack_trampoline_active())
PROG

test_expect_success TRAMP_PYTHONS '400 activate/deactivate cycles with threads running: no crash, no index leak' '
	for py in $(tramp_pythons); do
		PYPERF_TRAMPOLINE=embedded tramp_run "$py" toggle.py >out 2>err ||
			{ cat err; return 1; }
		echo "True False" >expect && test_cmp expect out || return 1
	done
'

cat >prog.py <<'PROG'
import sys
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
print(fib(15), sys.argv[1:])
print([p for p in sys.path if "tramp-out" in p])
sys.stderr.write("to stderr\n")
sys.exit(3)
PROG

test_expect_success TRAMP_PYTHONS 'loading and activating changes no output, status or sys.path' '
	for py in $(tramp_pythons); do
		test_expect_code 3 "$py" prog.py a b >expect 2>expect.err &&
		for sw in X=0 PYPERF_TRAMPOLINE=perf PYPERF_TRAMPOLINE=jit; do
			test_expect_code 3 env $sw PYTHONPATH="$TRAMP_OUT/boot" \
				"$py" prog.py a b >actual 2>actual.err &&
			test_cmp expect actual && test_cmp expect.err actual.err || return 1
		done
		tramp_has_native "$py" && continue
		for sw in "-X perf" "-X perf_jit"; do
			test_expect_code 3 tramp_run "$py" $sw prog.py a b >actual 2>actual.err &&
			test_cmp expect actual && test_cmp expect.err actual.err || return 1
		done
	done
'

cat >which.py <<'PROG'
import os, sys
m = sys.modules.get("_pyperf_trampoline")
b = m._state()["backend"] if m and m.is_active() else None
if b is None and sys.is_stack_trampoline_active():
    b = "native"
print(os.getpid(), b or "none")
PROG

# want_for PY SPEC: the backend SPEC (VARS:OLD:NEW) gets; OLD before
# 3.12, NEW on 3.12 and 3.13 ("native": CPython's own is active).
# 3.12 has no perf_jit of its own: that one is ours there.
test_expect_success TRAMP_PYTHONS 'environment switches activate the right backend' '
	for py in $(tramp_pythons); do
		v=$(ppr_python_version "$py")
		for spec in "PYTHONPERFSUPPORT=1:perf:native" \
			"PYTHON_PERF_JIT_SUPPORT=1:perf_jit:native" \
			"PYTHONPERFSUPPORT=0:none:none" \
			"PYPERF_TRAMPOLINE=jit:perf_jit:perf_jit" \
			"PYPERF_TRAMPOLINE=perf:perf:perf" \
			"PYPERF_TRAMPOLINE=off:none:none" \
			"PYPERF_TRAMPOLINE=embedded:none:none" \
			"PYPERF_TRAMPOLINE=embedded PYTHONPERFSUPPORT=1:perf:perf" \
			"PYPERF_TRAMPOLINE=embedded PYTHON_PERF_JIT_SUPPORT=1:perf_jit:perf_jit" \
			"PYPERF_TRAMPOLINE=native PYTHONPERFSUPPORT=1:perf:native" \
			"PYPERF_TRAMPOLINE=jit PYTHONPERFSUPPORT=1:perf_jit:perf_jit"; do
			vars=${spec%%:*}
			rest=${spec#*:}
			want=${rest%%:*}
			tramp_has_native "$py" && want=${rest#*:}
			test "$v:$vars" = "3.12:PYTHON_PERF_JIT_SUPPORT=1" && want=perf_jit
			env $vars PYTHONPATH="$TRAMP_OUT/boot" "$py" which.py >out 2>err || return 1
			tramp_native_clean "$(cut -d" " -f1 out)" &&
			echo "$want" >expect &&
			cut -d" " -f2 out >actual &&
			test_cmp expect actual || { echo "$v $vars"; return 1; }
			! test -s err || { cat err; return 1; }
		done
	done
'

test_expect_success TRAMP_PYTHONS '-X wins over the environment; PYPERF_TRAMPOLINE over both' '
	py=$(tramp_pythons | head -n 1) &&
	PYTHON_PERF_JIT_SUPPORT=1 tramp_run "$py" -X perf -c "import sys; print(sys.modules[\"_pyperf_trampoline\"]._state()[\"backend\"])" >out &&
	echo perf >expect && test_cmp expect out &&
	PYPERF_TRAMPOLINE=jit tramp_run "$py" -X perf -c "import sys; print(sys.modules[\"_pyperf_trampoline\"]._state()[\"backend\"])" >out &&
	echo perf_jit >expect && test_cmp expect out
'

test_expect_success TRAMP_PYTHONS 'the user sitecustomize and usercustomize still run' '
	mkdir -p usc ub &&
	echo "import sys; print(\"user sitecustomize\", __name__, file=sys.stderr)" >usc/sitecustomize.py &&
	for py in $(tramp_pythons); do
		us=$(PYTHONUSERBASE=$TRASH/ub "$py" -c "import site; print(site.getusersitepackages())") &&
		mkdir -p "$us" &&
		echo "import sys; print(\"usercustomize ran\", file=sys.stderr)" >"$us/usercustomize.py" &&
		PYPERF_TRAMPOLINE=jit PYTHONUSERBASE=$TRASH/ub PYTHONPATH=$TRAMP_OUT/boot:$TRASH/usc "$py" -c "import sitecustomize, sys; print(sitecustomize.__file__); print(sys.is_stack_trampoline_active())" >out 2>err &&
		test_grep "usc/sitecustomize.py$" out &&
		test_grep "^True$" out &&
		test_grep "^user sitecustomize sitecustomize$" err &&
		test_grep "^usercustomize ran$" err || return 1
	done
'

test_expect_success TRAMP_PYTHONS 'an error in the user sitecustomize is reported as usual' '
	mkdir -p bad &&
	echo "raise RuntimeError(\"boom\")" >bad/sitecustomize.py &&
	py=$(tramp_pythons | tail -n 1) &&
	PYTHONPATH=$TRASH/bad "$py" -c "print(1)" >expect 2>expect.err &&
	PYTHONPATH=$TRAMP_OUT/boot:$TRASH/bad "$py" -c "print(1)" >out 2>err &&
	test_cmp expect out &&
	test_grep "Error in sitecustomize" err &&
	test_grep "boom" err
'

test_expect_success TRAMP_PYTHONS 'Python 2, 3.6, 3.7 (and 3.14+) are left alone on the same PYTHONPATH' '
	for py in $(ppr_pythons); do
		case $(ppr_python_version "$py") in
		3.8|3.9|3.10|3.11|3.12|3.13|"") continue ;;
		esac
		PYTHONPATH=$TRAMP_OUT/boot "$py" -c "print(42)" >out 2>err &&
		echo 42 >expect && test_cmp expect out && ! test -s err || return 1
	done
'

test_expect_success TRAMP_PYTHONS 'a forced backend without a built extension warns once' '
	mkdir -p empty/boot &&
	cp "$TRAMP_OUT/boot/"*.py empty/boot/ &&
	py=$(tramp_pythons | head -n 1) &&
	PYPERF_TRAMPOLINE=jit PYTHONPATH=$TRASH/empty/boot "$py" -c "print(1)" >out 2>err &&
	echo 1 >expect && test_cmp expect out &&
	test_grep "^pyperf-trampoline: cannot activate perf_jit: no _pyperf_trampoline built for Python" err &&
	test $(wc -l <err) = 1
'

test_expect_success TRAMP_PYTHONS '.pth install: works under -I, loads the extension only when asked' '
	n=0 &&
	for py in $(tramp_pythons); do
		rm -rf venv &&
		"$py" -m venv --without-pip venv 2>err || { cat err; continue; }
		n=$((n + 1))
		sp=$(venv/bin/python -c "import sysconfig; print(sysconfig.get_paths()[\"purelib\"])") &&
		cp "$TRAMP_OUT/boot/_pyperf_trampoline_boot.py" "$TRAMP_OUT"/boot/_pyperf_trampoline.cpython-$(venv/bin/python -c "import sys; print(\"%d%d\" % sys.version_info[:2])")-*.so \
			"$TRAMP_OUT/site/pyperf_trampoline.pth" "$sp/" &&
		venv/bin/python -I -c "import sys; print(\"_pyperf_trampoline\" in sys.modules, sys.is_stack_trampoline_active())" >out &&
		echo "False False" >expect && test_cmp expect out &&
		# 3.13: -X perf_jit is CPython'"'"'s own; PYPERF_TRAMPOLINE
		# (read under -I) asks for ours
		sw="-X perf_jit" ours=
		test "$(ppr_python_version "$py")" = 3.13 && sw= ours=jit
		PYPERF_TRAMPOLINE=$ours venv/bin/python -I $sw -c "import sys, os; print(sys.modules[\"_pyperf_trampoline\"].is_active()); print(os.path.exists(\"$D/jit-%d.dump\" % os.getpid()))" >out &&
		printf "True\nTrue\n" >expect && test_cmp expect out &&
		PYTHONPERFSUPPORT=1 venv/bin/python -I -c "import sys; print(sys.is_stack_trampoline_active())" >out &&
		echo False >expect && test_cmp expect out &&
		PYPERF_TRAMPOLINE=embedded venv/bin/python -I -c "import sys; sys.activate_stack_trampoline(\"perf_jit\"); print(sys.modules[\"_pyperf_trampoline\"].is_active())" >out &&
		echo True >expect && test_cmp expect out || return 1
	done &&
	test $n -ge 1
'

test_done
