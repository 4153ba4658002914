#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor --probe: a 64-level stack through generators and C callbacks, the unwinder in use, the probe cache'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-3,5-6,8-14
# sanitize-set: 4 needs 3
# sanitize-set: 7 needs 1

CHECK="$TEST_DIR/fixtures/doctor-probe-check.py"
mkdir -p "$TRASH/home" "$TRASH/tmp"

test_prereq_READELF() {
	command -v readelf >/dev/null || { echo "no readelf (binutils)"; return 1; }
}

# The DWARF unwinder a perf binary links: libunwind when it needs
# libunwind*.so (perf's build then leaves libdw's unwinder out), else
# libdw.  A reference independent of perf's messages and build options.
linked_unwinder() {
	if readelf -d "$1" | grep -q "NEEDED.*libunwind"; then
		echo libunwind
	else
		echo libdw
	fi
}

# probe_ok PYTHON [PERF]: doctor --probe, checked for consistency.
probe_ok() {
	pp_perf=${2:-$(command -v perf)} &&
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" \
		ppr doctor --probe --json --perf "$pp_perf" --python "$1" >out 2>err ||
		{ cat out err; false; } &&
	! test -s err &&
	python3 "$CHECK" out "$(linked_unwinder "$pp_perf")" &&
	test -z "$(ls "$TRASH/tmp")"
}

test_expect_success PERF,READELF "--probe on the distribution's python3: a deep stack judged, and why" '
	py=$(ppr_distro_python 3.11 || ppr_python 3.11) &&
	probe_ok "$py" &&
	cp out debian.json
'

test_expect_success PERF,READELF,PY312 '--probe on 3.12 (embedded trampoline)' '
	probe_ok "$(ppr_python 3.12)"
'

test_expect_success PERF,READELF,PY313 '--probe on 3.13 (native perf_jit)' '
	probe_ok "$(ppr_python 3.13)" &&
	cp out 313.json
'

test_expect_success PERF,PY313 'a deep stack the dump cannot hold is said so, with numbers' '
	test "$(json_get 313.json probe.deep_complete)" = true || {
		HOME="$TRASH/home" ppr doctor --probe --python "$(ppr_python 3.13)" >text &&
		test_grep "^  warning  deep stacks come out cut: [0-9]+ of [0-9]+ samples of a 64-level stack are whole \((dump_size|dump_max|frame_cap|unwinder)\): " text &&
		test_grep "^           fix: " text
	}
'

test_expect_success PERF,PY313 'a forced small dump: the probe reports dump-size truncation and the size that helps' '
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" \
		ppr doctor --probe --probe-stack-size 8192 --json --python "$(ppr_python 3.13)" >out &&
	test "$(json_get out probe.ok)" = true &&
	test "$(json_get out probe.shallow_complete_first)" = false &&
	python3 -c "
import json, sys
p = json.load(open(\"out\"))[\"probe\"]
a, b = p[\"passes\"]
assert a[\"stack_size\"] == 8192 and b[\"stack_size\"] == 65528, p[\"passes\"]
assert a[\"shallow_complete\"] * 10 < a[\"shallow\"], a
assert b[\"shallow_complete\"] * 10 >= b[\"shallow\"] * 9, b
assert p[\"shallow_needed_stack_size\"] > p[\"shallow_stack_bytes\"] > 8192, p
" &&
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" \
		ppr doctor --probe --probe-stack-size 8192 --python "$(ppr_python 3.13)" >text &&
	test_grep "^  warning  the 8192-byte stack dump cuts even a shallow stack \([0-9]+ bytes of C stack\)" text &&
	test_grep "^           fix: record with --stack-size [0-9]+ or more$" text &&
	test -z "$(ls "$TRASH/tmp")"
'

test_expect_success '--probe-stack-size takes a multiple of 8 up to 65528' '
	test_expect_code 2 ppr doctor --probe-stack-size 7 2>err &&
	test_grep "needs a multiple of 8 from 8 to 65528, not .7." err &&
	test_expect_code 2 ppr doctor --probe-stack-size 65536 &&
	test_expect_code 2 ppr doctor --probe-stack-size x
'

test_expect_success PERF 'the probe keeps its verdict in a private cache' '
	test -f debian.json &&
	cache="$TRASH/home/.cache/pyperf-run/probe-cache" &&
	test "$(stat -c %a "$cache")" = 600 &&
	test "$(stat -c %a "$(dirname "$cache")")" = 700 &&
	grep "	$(readlink -f "$(command -v perf)")\$" "$cache" &&
	HOME="$TRASH/home" ppr doctor --json >out &&
	test "$(json_get out perf.unwinder)" = "$(json_get debian.json perf.unwinder)" &&
	test "$(json_get out perf.unwinder_source)" = cache &&
	mkdir -p fresh &&
	HOME="$TRASH/fresh" ppr doctor --json >out &&
	test "$(json_get out perf.unwinder_source)" = build
'

# A perf that reports an old 6.1 version the table cannot judge, and is
# the real perf otherwise.
old_perf() {
	mkdir -p oldbin &&
	real=$(command -v perf) &&
	cat >oldbin/perf <<-SH &&
	#!/bin/sh
	if test "\$#" = 1 && test "\$1" = version; then
		echo "perf version 6.1.50"
		exit 0
	fi
	exec "$real" "\$@"
	SH
	chmod +x oldbin/perf
}

test_expect_success PERF,PY313 'an old 6.1: unknown, then yes from the probe, then yes from the cache' '
	old_perf &&
	mkdir -p h2 &&
	HOME="$TRASH/h2" ppr doctor --perf "$TRASH/oldbin/perf" --json --python "$(ppr_python 3.13)" >out &&
	test "$(json_get out perf.jit_fix)" = unknown &&
	HOME="$TRASH/h2" TMPDIR="$TRASH/tmp" \
		ppr doctor --perf "$TRASH/oldbin/perf" --probe --json --python "$(ppr_python 3.13)" >out &&
	test "$(json_get out perf.jit_fix)" = yes &&
	test "$(json_get out perf.jit_fix_source)" = probe &&
	HOME="$TRASH/h2" ppr doctor --perf "$TRASH/oldbin/perf" --json --python "$(ppr_python 3.13)" >out &&
	test "$(json_get out perf.jit_fix)" = yes &&
	test "$(json_get out perf.jit_fix_source)" = cache &&
	HOME="$TRASH/h2" ppr doctor --perf "$TRASH/oldbin/perf" --python "$(ppr_python 3.13)" >text &&
	test_grep "^  ok       unwinds through jitted code: an earlier .doctor --probe. of this perf found that stacks cross jitted frames$" text &&
	touch -d "2001-01-01" oldbin/perf &&
	HOME="$TRASH/h2" ppr doctor --perf "$TRASH/oldbin/perf" --json --python "$(ppr_python 3.13)" >out &&
	test "$(json_get out perf.jit_fix)" = unknown
'

test_expect_success PERF '--probe on an unsupported interpreter does not advise --probe' '
	old_perf &&
	mkdir -p h3 &&
	HOME="$TRASH/h3" test_expect_code 1 ppr doctor --perf "$TRASH/oldbin/perf" --probe --python /bin/true >out &&
	test_grep "^  warning  unwinding through jitted code: unknown" out &&
	test_grep "^  warning  probe not run: needs a working perf and a supported interpreter$" out &&
	! grep -e "--probe" out &&
	HOME="$TRASH/h3" test_expect_code 1 ppr doctor --perf "$TRASH/oldbin/perf" --python /bin/true >out &&
	test_grep "fix: run .pyperf-run doctor --probe --python PYTHON. with a CPython 3.8 or later" out
'

# The perf matrix: doctor names the unwinder each perf really uses.
for name in system 6.12-libunwind 6.12-libdw; do
	prereq=$(ppr_perf_prereq $name)
	test_expect_success "$prereq,READELF,PY313" "perf $name: the unwinder from the build and from the probe agree with its ELF links" '
		perf_=$(ppr_perf_path '"$name"') &&
		want=$(linked_unwinder "$perf_") &&
		mkdir -p h-'"$name"' &&
		HOME="$TRASH/h-'"$name"'" ppr doctor --perf "$perf_" --json >out &&
		test "$(json_get out perf.unwinder)" = "$want" &&
		test "$(json_get out perf.unwinder_source)" = build &&
		HOME="$TRASH/h-'"$name"'" ppr doctor --perf "$perf_" >text &&
		test_grep "^  ok       DWARF unwinding with $want \(from the build options\)$" text &&
		probe_ok "$(ppr_python 3.13)" "$perf_"
	'
done

test_expect_success PERF_612_LIBDW,READELF 'perf 6.12 with libdw: a probe that loses the Python frames says why' '
	py=$(ppr_distro_python 3.11 || ppr_python 3.11) &&
	HOME="$TRASH/home" TMPDIR="$TRASH/tmp" \
		ppr doctor --perf "$(ppr_perf_path 6.12-libdw)" --probe --json --python "$py" >out; code=$? &&
	test "$(json_get out perf.unwinder)" = libdw &&
	if test "$(json_get out probe.ok)" = true; then
		python3 "$CHECK" out libdw
	else
		test $code = 1 &&
		json_get out problems | grep "/tmp/jitted-\*.so"
	fi &&
	test -z "$(ls "$TRASH/tmp")"
'

# Which objects lack symbols, against readelf's view of the same files:
# Debian's python3 (stripped: the warning and its advice) and the oldest
# and newest other interpreter (their own symbols; a libpython beside the
# binary or none).  One ELF reading serves every interpreter; the ten of
# this machine took 25 s (issue 31: the suite's time).
test_expect_success READELF 'doctor says which interpreter objects have only exported symbols' '
	pys=$(ppr_python_table | awk "\$2 !~ /^\/usr\// { print \$2 }" |
	      sed -n "1p;\$p") &&
	for py in $(ppr_distro_python 3.11 || :) $pys; do
		ppr doctor --json --python "$py" >out 2>/dev/null || :
		python3 -c "
import json
for y in json.load(open(\"out\"))[\"python\"][\"symbols\"]:
    print(y[\"path\"], json.dumps(y[\"symtab\"]), y[\"build_id\"] or \"-\")
" >syms || return 1
		test -s syms || { echo "no symbols entry for $py"; return 1; }
		while read -r path symtab bid; do
			if readelf -S "$path" | grep -q " \.symtab "; then want=true; else want=false; fi
			test "$symtab" = "$want" || { echo "$path: symtab $symtab, readelf says $want"; return 1; }
			rbid=$(readelf -n "$path" | sed -n "s/.*Build ID: //p")
			test "$bid" = "${rbid:--}" || { echo "$path: build-id $bid, readelf $rbid"; return 1; }
			if test $want = false && ! test -e "/usr/lib/debug/.build-id/$(echo $bid | cut -c1-2)/$(echo $bid | cut -c3-).debug"; then
				ppr doctor --python "$py" >text 2>/dev/null || :
				test_grep "^  warning  symbols: $path has only its exported symbols: its other code \(the garbage collector, ...\) shows as \[$(basename "$path")\]$" text &&
				# the advice names the build-id (t4007 checks it)
				test_grep "fix: .*build-id $bid" text || return 1
			fi
		done <syms || return 1
	done
'

test_done
