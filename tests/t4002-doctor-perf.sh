#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor: perf missing from PATH, and fake perfs printing odd versions'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-22

# A PATH holding nothing but a perf that prints $1 for `perf version`
# (and fails with $2 on stderr when $2 is given).
fake_perf() {
	rm -rf fakebin && mkdir fakebin &&
	if test $# -ge 2; then
		printf '#!/bin/sh\necho "%s" >&2\nexit 1\n' "$2" >fakebin/perf
	else
		printf '#!/bin/sh\ntest "$1" = version || exit 3\necho "%s"\n' "$1" >fakebin/perf
	fi &&
	chmod +x fakebin/perf
}

if test_have_prereq PY313; then
	PY=$(ppr_python 3.13)
fi
PERF=$(command -v perf || echo perf)

test_expect_success PY313 'perf missing from PATH is a problem with an install hint' '
	mkdir -p empty &&
	PATH="$TRASH/empty" test_expect_code 1 "$PPR_BIN" doctor --python "$PY" >out 2>err &&
	! test -s err &&
	test_grep "^  problem  .perf. is not installed \(not found in PATH\)$" out &&
	test_grep "fix: install it: apt-get install linux-perf" out &&
	test_grep "^  ok       (with --mode jit or perf, or without these privileges: )?jit mode, embedded trampoline" out &&
	if test_have_prereq BPF; then
		# the frame walker runs no perf: only perf record is blocked
		test_grep "^Python frames will work in bpf mode; perf record.s modes will not: 1 problem\.$" out
	else
		test_grep "^Python frames will not work: 1 problem" out
	fi
'

test_expect_success PY313 'perf missing: --json says so' '
	PATH="$TRASH/empty" test_expect_code 1 "$PPR_BIN" doctor --json --python "$PY" >out &&
	test "$(json_get out perf.path)" = null &&
	test "$(json_get out perf.version)" = null &&
	test "$(json_get out perf.jit_fix)" = unknown &&
	test "$(json_get out ok)" = false &&
	json_get out problems | grep "not installed"
'

# version text, what doctor prints, jit_fix
while read -r text shown fix; do
	test_expect_success PY313 "fake perf '$text': version $shown, jit_fix $fix" "
		fake_perf 'perf version $text' &&
		PATH=\"\$TRASH/fakebin\" \"\$PPR_BIN\" doctor --json --python \"\$PY\" >out; code=\$? &&
		test \"\$(json_get out perf.version)\" = '$shown' &&
		test \"\$(json_get out perf.jit_fix)\" = '$fix' &&
		test \"\$(json_get out perf.path)\" = \"\$TRASH/fakebin/perf\" &&
		case '$fix' in
		no)	test \$code = 1 &&
			test \"\$(json_get out ok)\" = false &&
			json_get out problems | grep 'cannot unwind through jitted code' ;;
		*)	if test_have_prereq PERF; then test \$code = 0; fi ;;
		esac
	"
done <<-\CASES
6.7-3 6.7-3 unknown
5.15.167.4-microsoft-standard-WSL2 5.15.167.4-microsoft-standard-WSL2 unknown
6.8.0-rc1 6.8.0-rc1 yes
6.11.4-200.fc40.x86_64 6.11.4-200.fc40.x86_64 yes
6.6.13 6.6.13 unknown
6.6.14 6.6.14 yes
6.1.90 6.1.90 unknown
6.1.91 6.1.91 yes
6.1.187 6.1.187 yes
6.7.1 6.7.1 unknown
6.7.2 6.7.2 yes
CASES

test_expect_success PY313 'fake perf 6.7-3: the text says unknown and suggests --probe' '
	fake_perf "perf version 6.7-3" &&
	PATH="$TRASH/fakebin" "$PPR_BIN" doctor --python "$PY" >out &&
	test_grep "^  ok       perf 6.7-3 \(.*/fakebin/perf\)$" out &&
	test_grep "^  warning  unwinding through jitted code: unknown" out &&
	test_grep "fix: run .pyperf-run doctor --probe." out
'

# The version alone never says "no": distributions backport the fix.
test_expect_success PY313 'fake WSL perf: unknown, with a warning that suggests --probe' '
	fake_perf "perf version 5.15.167.4-microsoft-standard-WSL2" &&
	PATH="$TRASH/fakebin" "$PPR_BIN" doctor --python "$PY" >out &&
	test_grep "^  warning  unwinding through jitted code: unknown \(perf 5.15 predates the fix" out &&
	test_grep "fix: run .pyperf-run doctor --probe. to find out" out
'

test_expect_success FPPY 'fake WSL perf: no unwinding problem for a frame-pointer Python' '
	fake_perf "perf version 5.15.167.4-microsoft-standard-WSL2" &&
	PATH="$TRASH/fakebin" "$PPR_BIN" doctor --json --python "$(ppr_fp_python)" >out; code=$? &&
	test "$(json_get out perf.jit_fix)" = unknown &&
	json_get out problems >problems &&
	! grep "unwind" problems
'

test_expect_success PY313 'a garbage version is a clear problem' '
	fake_perf "Segmentation fault" &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --python "$PY" >out 2>err &&
	! test -s err &&
	test_grep "^  problem  cannot understand the output of .*/fakebin/perf version.: .Segmentation fault.$" out &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --json --python "$PY" >out &&
	test "$(json_get out perf.version)" = null &&
	test "$(json_get out perf.version_text)" = "Segmentation fault" &&
	test "$(json_get out perf.jit_fix)" = unknown
'

test_expect_success PY313 'an empty version is a clear problem' '
	fake_perf "" &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --python "$PY" >out &&
	test_grep "^  problem  cannot understand the output of" out
'

test_expect_success PY313 'a perf that fails (Debian wrapper without tools) says why' '
	fake_perf x "E: linux-perf-6.9 is not installed." &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --python "$PY" >out &&
	test_grep "^  problem  .*/fakebin/perf version. exited with status 1: E: linux-perf-6.9 is not installed.$" out
'

test_expect_success PY313 'a perf that is not executable is a problem, not a crash' '
	rm -rf fakebin && mkdir fakebin && echo "echo" >fakebin/perf &&
	chmod 644 fakebin/perf &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --python "$PY" >out &&
	test_grep "^  problem  .perf. is not installed" out
'

test_expect_success PY313 'a perf built without libunwind and libdw cannot do jit mode' '
	rm -rf fakebin && mkdir fakebin &&
	cat >fakebin/perf <<-\SH &&
	#!/bin/sh
	echo "perf version 6.8.0"
	if test "$2" = --build-options; then
		echo "             libunwind: [ OFF ]  # HAVE_LIBUNWIND_SUPPORT"
		echo "    libdw-dwarf-unwind: [ OFF ]  # HAVE_DWARF_SUPPORT"
	fi
	SH
	chmod +x fakebin/perf &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --python "$PY" >out &&
	test_grep "^  problem  built without libunwind and libdw: --call-graph dwarf cannot unwind$" out &&
	PATH="$TRASH/fakebin" test_expect_code 1 "$PPR_BIN" doctor --json --python "$PY" >out &&
	test "$(json_get out perf.dwarf_unwind)" = no
'

test_expect_success PERF,PY313 'the real perf: DWARF unwinding is reported' '
	"$PPR_BIN" doctor --json --python "$PY" >out &&
	case $(json_get out perf.dwarf_unwind) in yes|unknown) ;; *) false ;; esac &&
	if perf version --build-options | grep -E "(libunwind|libdw-dwarf-unwind): \[ on" >/dev/null; then
		test "$(json_get out perf.dwarf_unwind)" = yes
	fi
'

test_done
