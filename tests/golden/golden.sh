#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/golden/golden.sh: is report's output byte for byte what another
# build of pyperf-run gives on the same sessions?  For refactors that
# must not change what a user sees (issue 31's pipeline split).
#
#   golden.sh record CORPUS PYPERF-RUN
#       record the corpus (five small sessions, about 1 s each: bpf and
#       jit mode, busy.py and a threaded program, --wall in both modes)
#       with that build into the directory CORPUS
#   golden.sh render CORPUS PYPERF-RUN OUT
#       every format, view, filter and diff of each session into OUT (a
#       file per command: its output, its standard error, its exit code)
#   golden.sh compare CORPUS OLD NEW OUT
#       render with both builds into OUT/old and OUT/new; list what
#       differs and exit 1 if anything does
#
# Sessions are not kept in the tree: a recording is 4-8 MB, and the
# native reader names frames from the machine's own binaries, so a
# corpus is only meaningful on the machine that recorded it.  Recording
# once and rendering with both builds makes the sessions the same for
# both.  Each render works on its own copy of the corpus, since report
# writes caches into a session (the perf-script parse, the perf-data
# export), and runs in OUT so that the paths it writes are the same.
set -u

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
SESSIONS="bpf-busy jit-busy bpf-threads bpf-wall jit-wall"

die() { echo "golden.sh: $*" >&2; exit 2; }
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }

do_record() {
	corpus=$1 bin=$(abs "$2")
	test -x "$bin" || die "no pyperf-run at '$bin'"
	mkdir -p "$corpus" || exit 2
	busy="$srcdir/examples/busy.py"
	thr="$here/threads.py"
	for s in $SESSIONS; do
		case $s in
		bpf-busy) set -- --mode bpf "$busy" 0.5 ;;
		jit-busy) set -- --mode jit --trampoline auto "$busy" 0.5 ;;
		bpf-threads) set -- --mode bpf "$thr" ;;
		bpf-wall) set -- --mode bpf --wall "$thr" ;;
		jit-wall) set -- --mode jit --trampoline auto --wall "$thr" ;;
		esac
		rm -rf "$corpus/$s" "$corpus/$s.old"
		"$bin" record -q -o "$corpus/$s" "$@" >/dev/null ||
			die "record $s failed"
		echo "recorded $corpus/$s"
	done
	# The filters' pids and tids, picked once so that both builds get
	# the same: the process, and its busiest thread but the first.
	for s in $SESSIONS; do
		"$bin" report -i "$corpus/$s" --format collapsed --per-thread \
			>"$corpus/$s.threads" 2>/dev/null ||
			die "report $s failed"
		pid=$(sed -n 's/^[^;]*-\([0-9]*\)\/[0-9]*;.*/\1/p' \
			"$corpus/$s.threads" | head -n 1)
		tid=$(awk '{ n = $NF; sub(/;.*/, ""); w[$0] += n }
			END { for (t in w) print w[t], t }' "$corpus/$s.threads" |
			sort -rn | sed -n 's/.*\/\([0-9]*\)$/\1/p' | sed -n 2p)
		test -n "$tid" || tid=$pid
		printf 'pid=%s\ntid=%s\n' "$pid" "$tid" >"$corpus/$s.filter"
		rm -f "$corpus/$s.threads"
	done
}

# run NAME ARGS...: pyperf-run ARGS, its output in NAME.out, its standard
# error in NAME.err, its exit code in NAME.rc
run() {
	name=$1; shift
	"$bin" "$@" >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}

do_render() {
	corpus=$(abs "$1") bin=$(abs "$2") out=$(abs "$3")
	test -x "$bin" || die "no pyperf-run at '$bin'"
	test -d "$corpus/bpf-busy" || die "no corpus in '$corpus' (golden.sh record)"
	rm -rf "$out" && mkdir -p "$out/s" || exit 2
	for s in $SESSIONS; do
		cp -R "$corpus/$s" "$out/s/$s" || exit 2
	done
	(
	cd "$out" || exit 2
	formats="text collapsed json html svg speedscope"
	"$bin" --version | grep -q 'pprof=yes' && formats="$formats pprof"
	for s in $SESSIONS; do
		. "$corpus/$s.filter"
		i=s/$s
		for f in $formats; do
			run "$s.fmt-$f" report -i "$i" --format "$f"
		done
		case $s in bpf-*)
			run "$s.fmt-perf-data" report -i "$i" --format perf-data \
				-o "$s.perf-data"
			for m in "$s.perf-data.maps"/*; do
				mv "$m" "$s.perf-data.maps.$(basename "$m")"
			done
			rmdir "$s.perf-data.maps" ;;
		esac
		for v in python all; do
			run "$s.view-$v" report -i "$i" --view "$v"
			run "$s.view-$v-collapsed" report -i "$i" --view "$v" \
				--format collapsed
		done
		run "$s.per-thread" report -i "$i" --per-thread --format collapsed
		run "$s.per-thread-json" report -i "$i" --per-thread --format json
		run "$s.per-process" report -i "$i" --per-process
		run "$s.inverted" report -i "$i" --inverted --tree-min 0.5
		run "$s.min-share" report -i "$i" --min-share 5 --top 5
		case $s in *-wall)
			for c in cpu wall off-cpu; do
				run "$s.clock-$c" report -i "$i" --clock "$c" \
					--format collapsed
				run "$s.clock-$c-text" report -i "$i" --clock "$c"
			done ;;
		esac
		run "$s.time" report -i "$i" --time 0.2,0.6
		run "$s.time-json" report -i "$i" --time ,0.5 --format json
		run "$s.pid" report -i "$i" --pid "$pid" --format collapsed
		run "$s.tid" report -i "$i" --tid "$tid"
		run "$s.tid-html" report -i "$i" --tid "$tid" --format html
		run "$s.perf-script" report -i "$i" --reader perf-script \
			--clock cpu --format collapsed
	done
	for d in "bpf-busy jit-busy" "bpf-threads bpf-busy" "jit-wall bpf-wall"; do
		set -- $d
		for f in collapsed html; do
			run "diff-$1-$2.$f" report --diff "s/$1" "s/$2" --format "$f"
		done
	done
	)
	rm -rf "$out/s"
}

do_compare() {
	cmp_out=$(abs "$4")
	do_render "$1" "$2" "$cmp_out/old"
	do_render "$1" "$3" "$cmp_out/new"
	n=$(ls "$cmp_out/old" | wc -l)
	if diff -r -q "$cmp_out/old" "$cmp_out/new" >"$cmp_out/differ"; then
		echo "golden: $n files byte for byte the same (in $cmp_out)"
		return 0
	fi
	cat "$cmp_out/differ"
	echo "golden: $(wc -l <"$cmp_out/differ") of $n files differ" \
		"(diff -r $cmp_out/old $cmp_out/new)"
	return 1
}

cmd=${1:-}
case $cmd in
record) test $# = 3 || die "usage: golden.sh record CORPUS PYPERF-RUN"
	do_record "$2" "$3" ;;
render) test $# = 4 || die "usage: golden.sh render CORPUS PYPERF-RUN OUT"
	do_render "$2" "$3" "$4" ;;
compare) test $# = 5 || die "usage: golden.sh compare CORPUS OLD NEW OUT"
	do_compare "$2" "$3" "$4" "$5" ;;
*) die "usage: golden.sh record|render|compare ..." ;;
esac
