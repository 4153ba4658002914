#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='walker layouts: the tables against each interpreter'"'"'s headers, live processes inspected, code objects named'
. ./test-lib.sh

TP=$PPR_BUILD/tests/unit/t-pytarget
TC=$PPR_BUILD/tests/unit/t-pycode
PROBE_SRC=$PPR_SRCDIR/tests/fixtures/walker-offsets.c
LINES_PY=$PPR_SRCDIR/tests/fixtures/walker-lines.py
NAMES_PY=$PPR_SRCDIR/tests/fixtures/walker-names.py
. "$PPR_SRCDIR/tests/fixtures/uroot-lib.sh"

test_prereq_CC() {
	command -v cc >/dev/null || { echo "no C compiler"; return 1; }
}

# The include directories of an interpreter's own headers (its
# internal/ headers are where the structures are), or fail saying why.
py_includes() {
	inc=$("$1" -c 'import sysconfig as s; p = s.get_paths(); print(p["include"], p.get("platinclude", ""))') || return 1
	set -- $inc
	test -f "$1/internal/pycore_code.h" -o -f "$1/internal/pycore_pystate.h" ||
		{ echo "no internal headers in $1"; return 1; }
	echo "-I$1 -I$1/internal${2:+ -I$2}"
}

# start_lines PY: walker-lines.py under PY in the background, its output
# in lines.out, its pid in $lines_pid, once it has printed "ready".
start_lines() {
	rm -f lines.out
	"$1" "$LINES_PY" >lines.out 2>lines.err &
	lines_pid=$!
	wait_for 30 grep -q '^ready$' lines.out ||
		{ stop_lines; return 1; }
}
# ustart_lines X.Y: the same under Debian unstable's pythonX.Y, chrooted
# (uroot-lib.sh); $lines_pid is the interpreter (chroot execs it).
ustart_lines() {
	dir=$(uroot_put "$LINES_PY") || return 1
	rm -f lines.out
	chroot "$UROOT" "/usr/bin/python$1" "$dir/walker-lines.py" >lines.out 2>lines.err &
	lines_pid=$!
	wait_for 30 grep -q '^ready$' lines.out ||
		{ stop_lines; return 1; }
}
stop_lines() {
	kill "$lines_pid" 2>/dev/null
	wait "$lines_pid" 2>/dev/null
	return 0
}

found=
for py in $(ppr_pythons); do
	v=$(ppr_python_version "$py")
	case $v in
	3.[89]|3.1[0-9]) ;;
	*) continue ;;
	esac
	found="$found $v"
	tag="$v ($py)"

	test_expect_success CC "$tag: the probe compiles against its headers" '
		flags=$(py_includes "$py") &&
		cc -std=gnu11 -w $flags -o "probe-$v" "$PROBE_SRC" &&
		"./probe-$v" | sort >"headers-$v" &&
		test_grep "^frame_code " "headers-$v"
	'

	case $v in
	3.8|3.9|3.10|3.11|3.12)
		test_expect_success CC "$tag: the compiled-in table matches the headers" '
			test -s "headers-$v" &&
			"$TP" layout "$v" | sort >"table-$v" &&
			test_cmp "headers-$v" "table-$v"
		' ;;
	*)
		test_expect_success "$tag: no table: the layout comes from _Py_DebugOffsets" '
			test_must_fail "$TP" layout "$v" >out &&
			test_grep "^no table" out
		' ;;
	esac

	test_expect_success CC "$tag: a live process: the layout pytarget_inspect gives matches the headers" '
		test -s "headers-$v" &&
		start_lines "$py" &&
		"$TP" inspect "$lines_pid" >live; s=$?; stop_lines &&
		test $s = 0 &&
		case $v in
		3.8|3.9|3.10|3.11|3.12) test_grep "^source table$" live ;;
		*) test_grep "^source debug-offsets$" live ;;
		esac &&
		pv=$("$py" -c "import platform; print(platform.python_version())") &&
		test_grep "^version $pv\$" live &&
		test_grep "^free_threaded 0$" live &&
		sed -n "/^version_major/,\$p" live | sort >"live-$v" &&
		test_cmp "headers-$v" "live-$v"
	'

	test_expect_success "$tag: code objects read from the live process: names and lines as python says" '
		start_lines "$py" &&
		"$TC" check "$lines_pid" <lines.out >check; s=$?; stop_lines &&
		cat check &&
		test $s = 0 && ! grep "^not ok" check &&
		grep "^ok .*offsets agree with python" check >agree &&
		test $(wc -l <agree) = 2
	'

	# The other objects (walker/pyobj.h): the offsets any header of the
	# version holds, compared; the rest (3.8-3.10's dict keys, 3.8/3.9's
	# module, staticmethod and property) are checked by the next test,
	# which reads them in a live process.
	test_expect_success CC "$tag: the object table matches the headers" '
		flags=$(py_includes "$py") &&
		cc -std=gnu11 -w $flags -o "probe-$v" "$PROBE_SRC" &&
		"./probe-$v" objects >"objects-headers-$v" &&
		"$TP" objects "$v" >"objects-table-$v" &&
		test_cmp "objects-headers-$v" "objects-table-$v"
	'

	# Names read as pyobj.h reads them: 3.8-3.10's code objects named
	# as the trampoline names them (pyqual.h: methods, behind
	# staticmethod, classmethod and property, a nested class, nested
	# functions, a comprehension), 3.11+'s from co_qualname, and every
	# thread's Python name by its native id (pythreads.h).
	test_expect_success "$tag: qualified names and thread names read from the live process" '
		# (a list ending in & runs in the background whole: the rm
		# then raced the wait below, which could read the last
		# iteration names.out, and $! was a shell, not python)
		rm -f names.out || return 1
		"$py" "$NAMES_PY" >names.out 2>names.err &
		names_pid=$! &&
		wait_for 30 grep -q "^ready$" names.out &&
		"$TP" names "$names_pid" <names.out >names; s=$?
		# (two suite runs saw every read fail: was the target still
		# there?  its stderr and state say, when this fails)
		state=$(ps -o stat= -p $names_pid 2>&1)
		kill $names_pid; wait $names_pid
		echo "# target $names_pid state: ${state:-gone}" >>names
		cat names.err >>names
		cat names &&
		test $s = 0 && ! grep "^not ok" names &&
		test $(grep -c "^ok - code " names) = $(grep -c "^code " names.out) &&
		test $(grep -c "^ok - thread " names) = 4
	'
done

# CPython 3.14 and 3.15: Debian unstable's own builds, chrooted into the
# root .ci/setup.d/unstable-root.sh makes, checked against the headers
# of their -dev packages there.  The process is read from outside the
# root: /proc/PID/maps names its files by their path here.
for v in 3.14 3.15; do
	tag="$v (Debian unstable, chroot)"

	test_expect_success CC,UROOT "$tag: the probe compiles against its -dev headers" '
		cc -std=gnu11 -w $(uroot_includes $v) -o "uprobe-$v" "$PROBE_SRC" &&
		"./uprobe-$v" | sort >"uheaders-$v" &&
		test_grep "^version_minor ${v#3.}\$" "uheaders-$v" &&
		test_grep "^owner_interpreter 3\$" "uheaders-$v" &&
		test_grep "^code_tag_bits 3\$" "uheaders-$v"
	'

	test_expect_success UROOT "$tag: no table: the layout comes from _Py_DebugOffsets" '
		test_must_fail "$TP" layout "$v" >out &&
		test_grep "^no table" out
	'

	test_expect_success CC,UROOT "$tag: a live process: the layout pytarget_inspect gives matches the headers" '
		test -s "uheaders-$v" &&
		ustart_lines $v &&
		"$TP" inspect "$lines_pid" >live; s=$?; stop_lines &&
		cat live &&
		test $s = 0 &&
		test_grep "^source debug-offsets$" live &&
		pv=$(uroot_python $v -c "import platform; print(platform.python_version())") &&
		test_grep "^version $pv\$" live &&
		test_grep "^free_threaded 0$" live &&
		test_grep "^path $UROOT/usr/bin/python$v\$" live &&
		sed -n "/^version_major/,\$p" live | sort >"ulive-$v" &&
		test_cmp "uheaders-$v" "ulive-$v"
	'

	test_expect_success UROOT "$tag: code objects read from the live process: names and lines as co_lines() says" '
		ustart_lines $v &&
		"$TC" check "$lines_pid" <lines.out >check; s=$?; stop_lines &&
		cat check &&
		test $s = 0 && ! grep "^not ok" check &&
		grep "^ok .*offsets agree with python" check >agree &&
		test $(wc -l <agree) = 2
	'

	# The object table (walker/pyobj.h) against the -dev headers, then
	# read as bpf mode reads it: every thread's Python name by its
	# native id, and the code objects' qualified names.
	test_expect_success CC,UROOT "$tag: the object table matches the headers" '
		cc -std=gnu11 -w $(uroot_includes $v) -o "uprobe-$v" "$PROBE_SRC" &&
		"./uprobe-$v" objects >"uobjects-headers-$v" &&
		"$TP" objects "$v" >"uobjects-table-$v" &&
		test_cmp "uobjects-headers-$v" "uobjects-table-$v"
	'

	test_expect_success UROOT "$tag: qualified names and thread names read from the live process" '
		dir=$(uroot_put "$NAMES_PY") && rm -f names.out || return 1
		chroot "$UROOT" "/usr/bin/python$v" "$dir/walker-names.py" >names.out 2>names.err &
		names_pid=$! &&
		wait_for 30 grep -q "^ready$" names.out &&
		"$TP" names "$names_pid" <names.out >names; s=$?
		kill $names_pid; wait $names_pid
		cat names.err >>names
		cat names &&
		test $s = 0 && ! grep "^not ok" names &&
		test $(grep -c "^ok - code " names) = $(grep -c "^code " names.out) &&
		test $(grep -c "^ok - thread " names) = 4
	'
done

test_expect_success 'interpreters 3.8 and later were found' '
	test_diag "checked:$found" &&
	test -n "$found"
'

for old in 2.7 3.6 3.7; do
	py=$(ppr_python $old) || {
		test_skip "python $old is refused by name" "no python$old installed"
		continue
	}
	test_expect_success "python $old ($py) is refused by name" '
		"$py" -c "import time, sys; sys.stdout.write(\"ready\\n\"); sys.stdout.flush(); time.sleep(60)" >old.out &
		pid=$! &&
		wait_for 30 grep -q ready old.out &&
		"$TP" inspect $pid >out; s=$?; kill $pid; wait $pid
		test $s = 1 &&
		test_grep "^status unsupported$" out &&
		test_grep "^why python $old(\\.[0-9]+)? is not supported: the walker reads CPython 3\\.8 to 3\\.15$" out
	'
done

test_expect_success 'a process that is not Python is refused' '
	sleep 60 &
	pid=$! &&
	"$TP" inspect $pid >out; s=$?; kill $pid; wait $pid
	test $s = 1 &&
	test_grep "^status not-python$" out &&
	test_grep "is not a Python" out
'

test_expect_success 'a process that has exited is gone' '
	true &
	pid=$! &&
	wait $pid &&
	test_must_fail "$TP" inspect $pid >out &&
	test_grep "^status gone$" out
'

test_done
