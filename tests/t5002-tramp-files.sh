#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='embedded trampoline: perf map and jitdump files'
. ./test-lib.sh
perf_buildids_in_trash
. "$TEST_DIR/fixtures/tramp-lib.sh"

mkdir -p d
D=$TRASH/d
export PYPERF_TRAMPOLINE_DIR="$D"

cat >names.py <<'PROG'
import os
def plain():
    return 1
class Klass:
    def method(self):
        def inner():
            return plain()
        return inner()
    @staticmethod
    def static():
        return (lambda: 2)()
    @property
    def prop(self):
        return 3
k = Klass()
k.method(); Klass.static(); k.prop
print(os.getpid())
PROG

test_expect_success TRAMP_PYTHONS,TRAMP_CC 'build for every interpreter' '
	for py in $(tramp_pythons); do tramp_build "$py" || return 1; done
'

test_expect_success TRAMP_PYTHONS 'perf map: one well-formed line per code object, qualnames, 0600' '
	for py in $(tramp_pythons); do
		pid=$(PYPERF_TRAMPOLINE=perf tramp_run "$py" "$TRASH/names.py") &&
		map=$D/perf-$pid.map &&
		test "$(stat -c %a "$map")" = 600 &&
		! grep -Ev "^[0-9a-f]+ b py::.+:.+$" "$map" || return 1
		for q in "<module>" plain Klass.method "Klass.method.<locals>.inner" \
			Klass.static "Klass.static.<locals>.<lambda>" Klass.prop; do
			grep -F " py::$q:$TRASH/names.py" "$map" >/dev/null ||
				{ echo "$py: no $q"; cat "$map"; return 1; }
		done
		# one entry per code object, distinct addresses
		test $(cut -d" " -f1 "$map" | sort | uniq -d | wc -l) = 0 || return 1
	done
'

test_expect_success TRAMP_PYTHONS 'perf map: a stale file of ours with that pid is truncated' '
	py=$(tramp_pythons | head -n 1) &&
	sh -c "echo 1000 10 py::STALE:stale >\"$D/perf-\$\$.map\"; chmod 644 \"$D/perf-\$\$.map\"; exec env PYTHONPATH=\"$TRAMP_OUT/boot\" \"$py\" -X perf \"$TRASH/names.py\"" >pid &&
	map=$D/perf-$(cat pid).map &&
	test_grep -v STALE "$map" &&
	test_grep "py::plain:" "$map" &&
	test "$(stat -c %a "$map")" = 600
'

test_expect_success TRAMP_PYTHONS 'perf map: a planted symlink is not followed' '
	py=$(tramp_pythons | head -n 1) &&
	echo precious >target &&
	sh -c "ln -s \"$TRASH/target\" \"$D/perf-\$\$.map\"; exec env PYTHONPATH=\"$TRAMP_OUT/boot\" \"$py\" -X perf \"$TRASH/names.py\"" >pid 2>err &&
	echo precious >expect && test_cmp expect target &&
	test -L "$D/perf-$(cat pid).map" &&
	test_grep "^pyperf-trampoline: cannot activate perf: .*Too many levels of symbolic links" err
'

test_expect_success TRAMP_PYTHONS 'jitdump: a planted symlink or hard link is not used' '
	py=$(tramp_pythons | head -n 1) &&
	echo precious >target &&
	sh -c "ln -s \"$TRASH/target\" \"$D/jit-\$\$.dump\"; exec env PYTHONPATH=\"$TRAMP_OUT/boot\" \"$py\" -X perf_jit \"$TRASH/names.py\"" >pid 2>err &&
	test_cmp expect target &&
	test_grep "cannot activate perf_jit: .*symbolic links" err &&
	sh -c "ln \"$TRASH/target\" \"$D/jit-\$\$.dump\"; exec env PYTHONPATH=\"$TRAMP_OUT/boot\" \"$py\" -X perf_jit \"$TRASH/names.py\"" >pid 2>err &&
	test_cmp expect target &&
	test_grep "cannot activate perf_jit: refusing to write .*single link" err
'

test_expect_success TRAMP_PYTHONS 'jitdump: valid structure for every interpreter (independent parser)' '
	for py in $(tramp_pythons); do
		pid=$(PYPERF_TRAMPOLINE=jit tramp_run "$py" "$TRASH/names.py") &&
		tramp_jitdump "$D/jit-$pid.dump" >out || { cat out; return 1; }
		test_grep "^ok loads=[0-9]+" out &&
		test_grep " py::Klass.method.<locals>.inner:$TRASH/names.py$" out &&
		test_grep " py::Klass.prop:$TRASH/names.py$" out || return 1
	done
'

test_expect_success TRAMP_PYTHONS 'jitdump: the marker mapping is executable and the pid matches' '
	py=$(tramp_pythons | head -n 1) &&
	tramp_run "$py" -X perf_jit -c "import os; print(os.getpid()); print(open(\"/proc/self/maps\").read())" >out &&
	pid=$(head -n 1 out) &&
	test_grep "r-xp .* $D/jit-$pid.dump$" out
'

test_expect_success TRAMP_PYTHONS,PERF 'perf inject --jit accepts the dump and names every trampoline' '
	py=$(tramp_pythons | tail -n 1) &&
	PYPERF_TRAMPOLINE=jit PYTHONPATH=$TRAMP_OUT/boot perf record -q -k 1 -e cpu-clock -o perf.data -- "$py" "$TRASH/names.py" >pid 2>err &&
	perf inject --jit -i perf.data -o perf.jit.data 2>err &&
	ls "$D"/jitted-$(cat pid)-*.so >sos &&
	n=$(tramp_jitdump "$D/jit-$(cat pid).dump" | sed -n "s/^ok loads=//p") &&
	test "$(wc -l <sos)" = "$n" &&
	so=$(grep -- "-1.so$" sos) &&
	readelf -S "$so" >sections &&
	test_grep "\.eh_frame_hdr" sections &&
	readelf --debug-dump=frames "$so" >frames 2>&1 &&
	test_grep "DW_CFA_def_cfa_offset: 16" frames
'

# The unwind rules perf got must equal what the assembler emits for the
# same instructions with the obvious .cfi directives.
test_expect_success TRAMP_PYTHONS,PERF 'unwind rules in the synthesized ELF equal the assembler reference' '
	test -f frames &&
	test "$(uname -m)" = x86_64 &&
	cat >ref.S <<-\EOF &&
	.text
	t:
	.cfi_startproc
	sub $8, %rsp
	.cfi_def_cfa_offset 16
	call *%rcx
	add $8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	EOF
	${CC:-cc} -c -o ref.o ref.S &&
	readelf --debug-dump=frames ref.o >ref.frames &&
	for f in ref.frames frames; do
		grep -o "DW_CFA_.*" $f | grep -v DW_CFA_nop |
			sed "s/([^)]*)//g; s/ to [0-9a-f]*//; s/  */ /g; s/ *$//" >$f.cfa || return 1
	done &&
	sed -n "/Code alignment\|Data alignment\|Return address/p" ref.frames >ref.cie &&
	sed -n "/Code alignment\|Data alignment\|Return address/p" frames >cie &&
	test_cmp ref.cie cie &&
	test_cmp ref.frames.cfa frames.cfa
'

test_done
