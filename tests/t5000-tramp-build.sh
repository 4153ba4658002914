#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: trampoline/build.sh'
. ./test-lib.sh
. "$TEST_DIR/fixtures/tramp-lib.sh"

build=$PPR_SRCDIR/trampoline/build.sh

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'builds for every CPython 3.8-3.13 found' '
	for py in $(tramp_pythons); do
		tramp_build "$py" || return 1
		ext=$("$py" -c "import sysconfig; print(sysconfig.get_config_var(\"EXT_SUFFIX\"))") &&
		test -f "$TRAMP_OUT/boot/_pyperf_trampoline$ext" || return 1
	done &&
	test -f "$TRAMP_OUT/boot/sitecustomize.py" &&
	test -f "$TRAMP_OUT/boot/_pyperf_trampoline_boot.py" &&
	test -f "$TRAMP_OUT/site/pyperf_trampoline.pth"
'

test_expect_success TRAMP_PYTHONS 'every built extension loads, activates, verifies its fast path' '
	mkdir -p d &&
	for py in $(tramp_pythons); do
		PYPERF_TRAMPOLINE_DIR=$TRASH/d tramp_run "$py" -c "import _pyperf_trampoline_boot as b; m = b._load(); s = m._state(); assert s[\"arch\"] == \"x86_64\" and not s[\"active\"], s; m.activate(\"perf_jit\"); import json; s = m._state(); assert s[\"fast_extra\"] == 1 and s[\"trampolines\"] > 8, s; print(\"ok\")" >out 2>err &&
		test_grep "^ok$" out || return 1
		! test -s err || { cat err; return 1; }
	done
'

test_prereq_AARCH64_AS() {
	command -v aarch64-linux-gnu-as >/dev/null ||
		{ echo "no aarch64-linux-gnu-as (binutils-aarch64-linux-gnu)"; return 1; }
}

test_expect_success TRAMP_CC 'x86-64 template and unwind rules equal the assembler reference' '
	${CC:-cc} -Wall -Wno-unused-function -I"$PPR_SRCDIR/trampoline" \
		-o tramp-unwind "$TRAMP_FIX/tramp-unwind.c" &&
	${CC:-cc} -c -o ref-x86_64.o "$TRAMP_FIX/tramp-ref-x86_64.S" &&
	./tramp-unwind x86_64 >unw &&
	"$(tramp_checker_python)" "$TRAMP_FIX/tramp-cfi-compare.py" x86_64 ref-x86_64.o <unw >out &&
	test_grep "^ok$" out
'

test_expect_success TRAMP_CC,AARCH64_AS 'aarch64 template and unwind rules (not run here) equal the assembler reference' '
	test -x tramp-unwind &&
	aarch64-linux-gnu-as -o ref-aarch64.o "$TRAMP_FIX/tramp-ref-aarch64.S" &&
	./tramp-unwind aarch64 >unw &&
	"$(tramp_checker_python)" "$TRAMP_FIX/tramp-cfi-compare.py" aarch64 ref-aarch64.o <unw >out &&
	test_grep "^ok$" out
'

test_expect_success 'usage: wrong number of arguments' '
	test_expect_code 2 "$build" 2>err &&
	test_grep "^build.sh: usage: " err
'

test_expect_success 'a missing interpreter is an error' '
	test_expect_code 1 "$build" "$TRASH/no-such-python" out 2>err &&
	test_grep "^build.sh: cannot run .*no-such-python.: not found" err
'

test_expect_success 'interpreters too old or too new are refused' '
	n=0 &&
	for py in $(ppr_pythons); do
		case $(ppr_python_version "$py") in
		3.8|3.9|3.10|3.11|3.12|3.13) continue ;;
		esac
		n=$((n + 1))
		test_expect_code 3 "$build" "$py" out3 2>err || return 1
		test_grep "^build.sh: Python [0-9.]+ is not supported" err || return 1
		! test -e out3/boot/_pyperf_trampoline_boot.py || return 1
	done &&
	echo "checked $n"
'

# A fake interpreter reporting an include dir without Python.h.
write_fake() {
	cat >fakepy <<-FAKE
	#!/bin/sh
	echo "$1 .cpython-311-x86_64-linux-gnu.so $2 $3 $TRASH/noinc $TRASH/noinc"
	FAKE
	chmod +x fakepy
}

test_expect_success '3.14 is refused: its frame layout changed' '
	write_fake 3.14 0 0 &&
	test_expect_code 3 "$build" ./fakepy out8 2>err &&
	test_grep "^build.sh: Python 3.14 is not supported yet \(3.8 to 3.13 are\): its frame layout changed" err &&
	! test -e out8/boot
'

test_expect_success TRAMP_CC '3.14 headers are refused at compile time too' '
	mkdir -p inc14 &&
	printf "#define PY_VERSION_HEX 0x030E00F0\n" >inc14/Python.h &&
	: >inc14/frameobject.h &&
	test_must_fail ${CC:-cc} -fsyntax-only -Iinc14 -I"$PPR_SRCDIR/trampoline" \
		"$PPR_SRCDIR/trampoline/_pyperf_trampoline.c" 2>err &&
	test_grep "supports CPython 3.8-3.13 \(3.14 changed the frame layout\)" err
'

test_expect_success 'missing Python.h names the package to install' '
	write_fake 3.11 0 0 &&
	test_expect_code 1 "$build" ./fakepy out4 2>err &&
	test_grep "^build.sh: Python.h for Python 3.11 not found" err &&
	test_grep "^hint: .*apt-get install python3.11-dev.*dnf install python3.11-devel" err
'

test_expect_success 'debug and free-threaded builds are refused clearly' '
	write_fake 3.11 1 0 &&
	test_expect_code 3 "$build" ./fakepy out5 2>err &&
	test_grep "is a debug build \(Py_DEBUG\)" err &&
	write_fake 3.12 0 1 &&
	test_expect_code 3 "$build" ./fakepy out5 2>err &&
	test_grep "is a free-threaded build" err
'

test_expect_success TRAMP_PYTHONS 'a missing compiler names the package to install' '
	py=$(tramp_pythons | head -n 1) &&
	CC=$TRASH/no-such-cc test_expect_code 1 "$build" "$py" out6 2>err &&
	test_grep "^build.sh: C compiler .*no-such-cc. not found" err &&
	test_grep "^hint: .*apt-get install gcc" err
'

test_expect_success TRAMP_PYTHONS 'a compile error fails without leaving an extension' '
	py=$(tramp_pythons | head -n 1) &&
	CFLAGS=-DTRAMP_FORCE_ERROR=1 CC="${CC:-cc} -include $TRASH/bad.h" &&
	echo "#error forced" >bad.h &&
	CC="$CC" test_expect_code 1 "$build" "$py" out7 2>err &&
	test_grep "^build.sh: compiling the trampoline for Python" err &&
	! ls out7/boot/_pyperf_trampoline*.so 2>/dev/null
'

test_done
