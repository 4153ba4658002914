#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='perf matrix: complete thread stacks and the same shares with every perf'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1-4

# Every perf of the matrix (test-lib's ppr_perf_path: the system perf and
# the two perf 6.12 builds of .ci/setup.d/perf-6.12.sh, one unwinding
# with libunwind, one with libdw) records, with pyperf-run, on 3.8, the
# distribution's 3.11, 3.12 and 3.13:
#   - tests/fixtures/record-split.py, whose thread_part runs in a thread;
#   - tests/fixtures/threads-deep.py, four threads 6 Python levels deep;
# and reports with the same perf.  At least 99 % of the samples of every
# thread but the main one must be complete: the stack reaches the
# thread's bootstrap (start_thread / clone, or the kernel's
# ret_from_fork for a thread not yet in user space).  Then every other perf of
# the matrix that can read the session (perf 6.1 cannot read what 6.12
# wrote: "incompatible file format") reports it again, and every Python
# function's inclusive share must be within 1 point.  A perf or an
# interpreter that is missing is a printed skip.  The sanitizer pass
# records four of the cells (cell(), below).

PERFS='system 6.12-libunwind 6.12-libdw'
PYS='3.8 distro-3.11 3.12 3.13'

test_prereq_DISTRO_PY311() {
	ppr_distro_python 3.11 >/dev/null ||
		{ echo "no CPython 3.11 outside pyenv found"; return 1; }
}

py_prereq() {
	case $1 in
	distro-3.11) echo DISTRO_PY311 ;;
	*) echo "PY$(echo "$1" | tr -d .)" ;;
	esac
}

py_path() {
	case $1 in
	distro-3.11) ppr_distro_python 3.11 ;;
	*) ppr_python "$1" ;;
	esac
}

# thread_complete SESSION: "COMPLETE TOTAL" over the samples of threads
# other than their process's main thread, with every frame kept.
thread_complete() {
	ppr report -i "$1" --all --per-thread --format collapsed >"$1.all" &&
	awk '{
		n = $NF
		line = $0
		sub(/ [0-9]+$/, "", line)
		split(line, f, ";")
		split(f[1], pt, "/")
		np = split(pt[1], c, "-")
		if (pt[2] == c[np])
			next
		tot += n
		# a native thread root, or the Python root of the thread when the
		# stack was rebuilt from its context (not under [incomplete]), or
		# the kernel root of a thread sampled in its clone, before it first
		# returned to user space: it has no user frames to unwind yet
		if (f[2] ~ /^(__GI_)?_*(clone3?|start_thread)$/ ||
		    f[2] ~ /^Thread\._bootstrap \(.*threading\.py\)$/ ||
		    f[2] ~ /^ret_from_fork(_asm)?_\[k\]$/)
			ok += n
		else
			cut[f[2]] += n
	} END {
		for (k in cut)
			printf "cut at %s: %d\n", k, cut[k] >"/dev/stderr"
		print ok + 0, tot + 0
	}' "$1.all"
}

# check_threads SESSION MIN: >= 99 % complete of at least MIN samples
check_threads() {
	set -- "$1" "$2" $(thread_complete "$1") &&
	echo "$1: $3 of $4 thread samples complete" &&
	test "$4" -ge "$2" &&
	test $(($3 * 1000)) -ge $(($4 * 990))
}

# shares SESSION: "share function" lines (blanks in names made "_"),
# inclusive shares in percent of all samples, Python frames only.
shares() {
	ppr report -i "$1" --python-only --format collapsed |
	awk '{
		n = $NF
		line = $0
		sub(/ [0-9]+$/, "", line)
		tot += n
		k = split(line, f, ";")
		delete seen
		for (i = 1; i <= k; i++)
			if (!(f[i] in seen)) {
				seen[f[i]] = 1
				inc[f[i]] += n
			}
	} END {
		for (fn in inc) {
			name = fn
			gsub(/[ \t]/, "_", name)
			printf "%.2f %s\n", 100 * inc[fn] / tot, name
		}
	}' | sort -k2
}

# same_shares A B: every function of A or B within 1 point
same_shares() {
	join -1 2 -2 2 -a 1 -a 2 -e 0 -o 0,1.1,2.1 "$1" "$2" |
	awk '{
		d = $2 - $3
		if (d < 0)
			d = -d
		if (d > 1.0) {
			printf "share of %s: %s vs %s\n", $1, $2, $3
			bad = 1
		}
	} END { exit bad }'
}

# cell PERF PY: does this pass record the matrix cell PERF x PY?  The
# plain pass records all twelve.  The sanitizer pass (SANITIZE=1) checks
# pyperf-run's own code, and that code is chosen by the perf (its
# version, its unwinder) and by the interpreter, not by the pair: it
# records four cells, each perf and each Python at least once, and
# reports them with every other perf as the plain pass does.  (It took
# 155 s of that pass's 17 minutes with all twelve.)
cell() {
	test "${PPR_SANITIZE:-}" = 1 || return 0
	case "$1 $2" in
	"system 3.8" | "6.12-libunwind distro-3.11" | "6.12-libdw 3.12" | \
	"system 3.13") return 0 ;;
	esac
	return 1
}
test "${PPR_SANITIZE:-}" = 1 &&
	echo "# sanitizer pass: the cells system x 3.8, 6.12-libunwind x distro-3.11, 6.12-libdw x 3.12, system x 3.13 (the plain pass records all twelve)"

for pn in $PERFS; do
	for pv in $PYS; do
		cell "$pn" "$pv" || continue
		test_expect_success "$(ppr_perf_prereq "$pn"),$(py_prereq "$pv")" \
			"perf $pn, Python $pv: >= 99 % of thread samples complete" '
			perf=$(ppr_perf_path '"$pn"') &&
			py=$(py_path '"$pv"') &&
			echo "perf $perf ($(ppr_perf_version "$perf")), $py" &&
			s=$TRASH/s-'"$pn-$pv"' &&
			ppr_with_perf "$perf" ppr record --trampoline auto -q --python "$py" \
				-o "$s-split" "$TEST_DIR/fixtures/record-split.py" &&
			ppr_with_perf "$perf" ppr record --trampoline auto -q --python "$py" \
				-o "$s-deep" "$TEST_DIR/fixtures/threads-deep.py" 0.6 &&
			ppr_with_perf "$perf" check_threads "$s-split" 100 &&
			ppr_with_perf "$perf" check_threads "$s-deep" 400
		'
	done
done

# can_read A B: perf B reads what perf A records (B is not older)
can_read() {
	test "$(printf '%s\n%s\n' "$(ppr_perf_version "$1")" \
		"$(ppr_perf_version "$2")" | sort -V | tail -n 1)" = \
		"$(ppr_perf_version "$2")"
}

for rec in $PERFS; do
	for rep in $PERFS; do
		test "$rec" = "$rep" && continue
		a=$(ppr_perf_path "$rec") && b=$(ppr_perf_path "$rep") &&
		if ! can_read "$a" "$b"; then
			test_skip "sessions of perf $rec reported with perf $rep" \
				"perf $(ppr_perf_version "$b") cannot read what $(ppr_perf_version "$a") records"
			continue
		fi
		for pv in $PYS; do
			cell "$rec" "$pv" || continue
			test_expect_success "$(ppr_perf_prereq "$rec"),$(ppr_perf_prereq "$rep"),$(py_prereq "$pv")" \
				"Python $pv recorded with perf $rec: perf $rep gives the same shares" '
				a=$(ppr_perf_path '"$rec"') &&
				b=$(ppr_perf_path '"$rep"') &&
				s=$TRASH/s-'"$rec-$pv"' &&
				for f in split deep; do
					test -d "$s-$f" || {
						echo "no session $s-$f (its recording test failed)"
						return 1
					}
					# the shares of the recording perf: the same for
					# every perf that reads the session after, made once
					{ test -s "$s-$f.a" ||
					  ppr_with_perf "$a" shares "$s-$f" >"$s-$f.a"; } &&
					cat "$s-$f.a" &&
					if ls "$s-$f"/maps/ctx-*.tab.gz >/dev/null 2>&1 &&
					   case '"$rep"' in *libdw*) true ;; *) false ;; esac
					then
						# context trampolines are anonymous code:
						# libdw gives no frame there, so this perf
						# cannot reach them; said, never hidden
						rm -rf "$s-$f/cache" &&
						ppr_with_perf "$b" ppr report -i "$s-$f" \
							--format collapsed >/dev/null 2>"$s-$f.err" &&
						cat "$s-$f.err" &&
						grep "incomplete stacks" "$s-$f.err" &&
						rm -rf "$s-$f/cache"
					else
						ppr_with_perf "$b" shares "$s-$f" >"$s-$f.b" &&
						same_shares "$s-$f.a" "$s-$f.b"
					fi || return 1
				done
			'
		done
	done
done

test_done
