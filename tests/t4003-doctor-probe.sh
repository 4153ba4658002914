#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor --probe: a real recording of a bundled script, cleaned up after'
. ./test-lib.sh

# Nothing of the probe may stay behind: its private directory, the files
# its interpreter wrote in /tmp, or a build-id cache in $HOME.
no_leftovers() {
	pid=$(json_get "$1" probe.pid) &&
	dir=$(json_get "$1" probe.workdir) &&
	test "$pid" != null && test "$dir" != null &&
	! test -e "$dir" &&
	! test -e "/tmp/perf-$pid.map" &&
	! test -e "/tmp/jit-$pid.dump" &&
	! ls /tmp/jitted-$pid-*.so 2>/dev/null &&
	! test -e "$TRASH/home/.debug" &&
	test -z "$(ls "$TRASH/tmp")"
}

mkdir -p "$TRASH/home" "$TRASH/tmp"

test_expect_success PERF,PY313 '--probe on 3.13 (jit, native): frames down to <module>, jit_fix yes' '
	py=$(ppr_python 3.13) &&
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" ppr doctor --probe --json \
		--trampoline native --python "$py" >out 2>err ||
		{ cat out err; false; } &&
	! test -s err &&
	test "$(json_get out probe.ok)" = true &&
	test "$(json_get out probe.mode)" = jit &&
	test "$(json_get out probe.names_found)" = true &&
	test "$(json_get out probe.reached_module)" = true &&
	test "$(json_get out perf.jit_fix)" = yes &&
	test "$(json_get out perf.jit_fix_source)" = probe &&
	test "$(json_get out perf_mode.name)" = jit &&
	test "$(json_get out perf_mode.trampoline)" = native &&
	test "$(json_get out ok)" = true &&
	case $(json_get out probe.workdir) in "$TRASH/tmp/pyperf-doctor-"*) ;; *) false ;; esac &&
	no_leftovers out
'

test_expect_success PERF,PY313 '--probe text: a probe section with the sample counts' '
	py=$(ppr_python 3.13) &&
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" ppr doctor --probe \
		--trampoline native --python "$py" >out 2>err &&
	! test -s err &&
	test_grep "^probe$" out &&
	test_grep "^  ok       recorded in jit mode: Python frames down to <module> in [1-9][0-9]* of [1-9][0-9]* samples of a shallow stack$" out &&
	test_grep "^  ok       unwinds through jitted code: the probe" out &&
	test_grep "^Python frames will work: jit mode, native trampoline" out
'

test_expect_success PERF,PY312 '--probe on 3.12 (jit, embedded trampoline)' '
	py=$(ppr_python 3.12) &&
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" ppr doctor --probe --json --python "$py" >out 2>err ||
		{ cat out err; false; } &&
	test "$(json_get out perf_mode.trampoline)" = embedded &&
	test "$(json_get out probe.ok)" = true &&
	test "$(json_get out probe.reached_module)" = true &&
	no_leftovers out
'

test_expect_success PERF,FPPY '--probe on the frame-pointer Python (embedded trampoline)' '
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" ppr doctor --probe --json --python "$(ppr_fp_python)" >out 2>err ||
		{ cat out err; false; } &&
	test "$(json_get out probe.mode)" = "$(json_get out perf_mode.name)" &&
	test "$(json_get out probe.ok)" = true &&
	no_leftovers out
'

# A perf whose stacks stop at the first Python frame: what an old perf
# does with jitted code.  It is the real perf, except that perf script
# drops every frame after a sample's first py:: frame, so that the pid,
# files and recording are real.
test_expect_success PERF,PY313 'a probe whose stacks stop early turns jit_fix into no' '
	py=$(ppr_python 3.13) &&
	real=$(command -v perf) &&
	mkdir -p fakebin &&
	cat >fakebin/perf <<-SH &&
	#!/bin/sh
	cut=
	for a in "\$@"; do
		case \$a in script) cut=1 ;; -v) cut= ; break ;; esac
	done
	test -n "\$cut" || exec "$real" "\$@"
	"$real" "\$@" | awk "/^[^ \t]/ { skip = 0 } /^\$/ { skip = 0 } !skip { print } /py::/ { skip = 1 }"
	SH
	chmod +x fakebin/perf &&
	PATH="$TRASH/fakebin:$PATH" HOME="$TRASH/home" TMPDIR="$TRASH/tmp" \
		test_expect_code 1 "$PPR_BIN" doctor --probe --json --python "$py" >out &&
	test "$(json_get out probe.names_found)" = true &&
	test "$(json_get out probe.reached_module)" = false &&
	test "$(json_get out perf.jit_fix)" = no &&
	test "$(json_get out perf.jit_fix_source)" = probe &&
	json_get out problems | grep "stacks stop before the script" &&
	no_leftovers out
'

test_expect_success PY313 'a perf record that fails is reported with perf'"'"'s words' '
	py=$(ppr_python 3.13) &&
	mkdir -p badbin &&
	printf "#!/bin/sh\ntest \"\$1\" = version && { echo perf version 6.1.187; exit 0; }\necho \"failed to mmap with 12 (Cannot allocate memory)\" >&2\nexit 255\n" >badbin/perf &&
	chmod +x badbin/perf &&
	PATH="$TRASH/badbin:$PATH" HOME="$TRASH/home" TMPDIR="$TRASH/tmp" \
		test_expect_code 1 "$PPR_BIN" doctor --probe --python "$py" >out &&
	test_grep "^  problem  jit mode: perf record exited with status 255: failed to mmap with 12 \(Cannot allocate memory\)$" out &&
	test -z "$(ls "$TRASH/tmp")"
'

test_expect_success '--probe with an unusable interpreter says the probe was not run' '
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" test_expect_code 1 ppr doctor --probe --python /bin/true >out &&
	test_grep "^  warning  probe not run: needs a working perf and a supported interpreter$" out
'

# not_empty DIR: DIR holds something.
not_empty() {
	test -n "$(ls "$1")"
}

test_expect_success PERF,PY313 'an interrupted probe still cleans up and exits 130' '
	py=$(ppr_python 3.13) || return 1
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" "$PPR_BIN" doctor --probe --python "$py" >out 2>err &
	pid=$! &&
	wait_for 10 not_empty "$TRASH/tmp" &&
	kill -INT $pid &&
	{ wait $pid; code=$?; } &&
	test $code = 130 &&
	test_grep "^pyperf-run doctor: interrupted$" err &&
	test -z "$(ls "$TRASH/tmp")"
'

test_done
