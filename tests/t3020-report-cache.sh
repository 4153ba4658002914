#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The session's cache of perf script output: the first report of a session
# keeps what perf script gave in SESSION/cache/script.v2, with what report
# reads of perf.data itself (jit mode: each sample's stack dump); later
# reports (any format, view or filter) read it, run no perf and read no
# more of perf.data than its header, with output byte-identical to a fresh
# perf script run.  A changed perf.data, a damaged or truncated cache, or a
# session where no cache can be written all still give the right report.
test_description='report: the session cache of perf script output'
. ./test-lib.sh

# Deep stacks, two processes, two threads, about 1.5 s of CPU (times
# argv[2]).
cat >prog.py <<'EOF'
import os, sys, threading, time

def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def rec(depth, n):
    if depth == 0:
        return leaf(n)
    return rec(depth - 1, n)

def spin(seconds, depth):
    end = time.time() + seconds * float(sys.argv[2])
    k = 0
    while time.time() < end:
        rec(depth + k % 7, 3000 + k % 5 * 500)
        k += 1

def main():
    sys.setrecursionlimit(5000)
    t = threading.Thread(target=spin, args=(0.6, 40))
    t.start()
    pid = os.fork()
    if pid == 0:
        spin(0.8, 70)
        os._exit(0)
    spin(0.8, 90)
    t.join()
    os.waitpid(pid, 0)
    with open(sys.argv[1], "w") as f:
        f.write("%d\n" % pid)

main()
EOF

test_prereq_PYTHON() {
	for v in 3.12 3.11 3.13 3.10; do
		ppr_usable_python $v >"$TRASH/.python" 2>/dev/null && return 0
	done
	echo "no interpreter record can use"
	return 1
}

test_prereq_SESSION() {
	test -s s/perf.data && test -s child ||
		{ echo "the recording failed"; return 1; }
}

# perf behind a wrapper that logs each run and fails while ./deny exists:
# the same program (so the same cache key) can be forbidden to run.
REAL_PERF=$(command -v perf)
cat >perf-wrap <<EOF
#!/bin/sh
echo "\$*" >>"$PWD/perf.log"
if test -e "$PWD/deny"; then
	echo "perf must not run now" >&2
	exit 3
fi
exec "$REAL_PERF" "\$@"
EOF
chmod +x perf-wrap
: >perf.log

# report ARGS...: pyperf-run report through the wrapper
report() {
	PYPERF_PERF=$PWD/perf-wrap ppr report "$@"
}

# how many times perf script ran
runs() {
	awk "/ script / { n++ } END { print n + 0 }" perf.log
}

test_expect_success PERF,PYTHON 'record a program with deep stacks' '
	ppr record --trampoline auto -q -o s --python "$(cat .python)" prog.py child 1 \
		>out 2>err &&
	test -s s/perf.data && test -s child &&
	ppr record --trampoline auto -q -o longer --python "$(cat .python)" prog.py child2 1.6 \
		>out 2>err &&
	test -s longer/perf.data
'

test_expect_success SESSION 'the first report runs perf script and keeps a cache' '
	rm -rf s/cache &&
	before=$(runs) &&
	report -i s --format collapsed >first.folded 2>err &&
	test $(runs) = $((before + 1)) &&
	test -f s/cache/script.v2 &&
	test "$(stat -c %a s/cache)" = 700 &&
	test "$(stat -c %a s/cache/script.v2)" = 600 &&
	! ls s/cache | grep -v "^script\.v2$" &&
	# only warnings (deep stacks: full dumps); every later report of
	# s must say the same
	! grep -v "^pyperf-run report: warning: " err &&
	cp err first.err
'

test_expect_success SESSION 'the second report runs no perf and says the same' '
	before=$(runs) &&
	: >deny &&
	report -i s --format collapsed >second.folded 2>err;
	rc=$?; rm -f deny &&
	test $rc = 0 &&
	test $(runs) = $before &&
	test_cmp first.folded second.folded &&
	test_cmp first.err err
'

# FORMAT/OPTIONS with a fresh perf script run, then from the cache alone
# (of session $S, default s)
same_with_cache() {
	rm -rf "${S:-s}/cache" &&
	report -i "${S:-s}" "$@" >fresh 2>err.fresh &&
	test -f "${S:-s}/cache/script.v2" &&
	before=$(runs) &&
	: >deny &&
	report -i "${S:-s}" "$@" >cached 2>err.cached;
	rc=$?; rm -f deny &&
	test $rc = 0 &&
	test $(runs) = $before &&
	test_cmp fresh cached &&
	test_cmp err.fresh err.cached
}

test_expect_success SESSION 'text, collapsed and json: identical with and without the cache' '
	same_with_cache --format text --color never &&
	same_with_cache --format collapsed &&
	same_with_cache --format json
'

test_expect_success SESSION 'views, filters and groupings: identical from the cache' '
	child=$(cat child) &&
	same_with_cache --format collapsed --python-only &&
	same_with_cache --format collapsed --all &&
	same_with_cache --format collapsed --pid "$child" &&
	same_with_cache --format collapsed --per-thread &&
	same_with_cache --format json --time 0.3,0.9 &&
	same_with_cache --format text --color never --pid "$child" &&
	test -s cached
'

test_expect_success SESSION 'a filtered first report keeps every sample in the cache' '
	child=$(cat child) &&
	rm -rf s/cache &&
	report -i s --format collapsed --pid "$child" >child.folded &&
	: >deny &&
	report -i s --format collapsed >all.folded;
	rc=$?; rm -f deny &&
	test $rc = 0 &&
	test_cmp first.folded all.folded
'

test_expect_success SESSION 'touching perf.data makes the next report run perf' '
	report -i s --format collapsed >/dev/null &&
	before=$(runs) &&
	touch s/perf.data &&
	report -i s --format collapsed >touched.folded &&
	test $(runs) = $((before + 1)) &&
	test_cmp first.folded touched.folded &&
	: >deny &&
	report -i s --format collapsed >again.folded;
	rc=$?; rm -f deny &&
	test $rc = 0 && test_cmp first.folded again.folded
'

# sum of the counts of a collapsed report
samples_of() {
	awk "{ s += \$NF } END { print s }" "$1"
}

test_expect_success SESSION 'another perf.data in place is read, not the cache' '
	rm -rf x && cp -r s x &&
	report -i x --format collapsed >x1.folded &&
	n1=$(samples_of x1.folded) &&
	# cp keeps the inode: only size and mtime tell (meta names the
	# helper process whose samples are left out)
	cp longer/perf.data x/perf.data && cp longer/meta x/meta &&
	report -i longer --format collapsed >longer.folded &&
	before=$(runs) &&
	report -i x --format collapsed >x2.folded &&
	test $(runs) = $((before + 1)) &&
	n2=$(samples_of x2.folded) &&
	test "$n2" = "$(samples_of longer.folded)" &&
	test "$n1" != "$n2"
'

test_expect_success SESSION 'a moved session keeps its cache' '
	report -i x --format collapsed >x2.folded &&
	mv x y &&
	: >deny &&
	report -i y --format collapsed >y.folded;
	rc=$?; rm -f deny &&
	test $rc = 0 && test_cmp x2.folded y.folded && rm -rf y
'

# the cache alone (perf forbidden) gives the first report
from_cache_alone() {
	: >deny &&
	report -i s --format collapsed >alone.folded;
	rc_=$?; rm -f deny &&
	test $rc_ = 0 && test_cmp first.folded alone.folded
}

test_expect_success SESSION 'a damaged cache is ignored and rebuilt' '
	report -i s --format collapsed >/dev/null &&
	size=$(stat -c %s s/cache/script.v2) &&
	printf "garbage!" |
		dd of=s/cache/script.v2 bs=1 seek=$((size / 2)) conv=notrunc \
			2>/dev/null &&
	before=$(runs) &&
	report -i s --format collapsed >damaged.folded 2>err &&
	test $(runs) = $((before + 1)) &&
	test_cmp first.folded damaged.folded &&
	test_cmp first.err err &&
	from_cache_alone
'

test_expect_success SESSION 'a truncated or empty cache is ignored and rebuilt' '
	size=$(stat -c %s s/cache/script.v2) &&
	truncate -s $((size - 1)) s/cache/script.v2 &&
	before=$(runs) &&
	report -i s --format collapsed >cut.folded &&
	test_cmp first.folded cut.folded &&
	from_cache_alone &&
	: >s/cache/script.v2 &&
	report -i s --format collapsed >empty.folded &&
	test_cmp first.folded empty.folded &&
	test $(runs) = $((before + 2)) &&
	from_cache_alone
'

test_expect_success SESSION 'a cache from another perf is not used' '
	report -i s --format collapsed >/dev/null &&
	cp perf-wrap perf-other &&
	: >deny &&
	PYPERF_PERF=$PWD/perf-other test_must_fail ppr report -i s \
		--format collapsed >/dev/null 2>err;
	rc=$?; rm -f deny &&
	test $rc = 0 &&
	test_grep "perf must not run now" err
'

test_expect_success SESSION 'a cache of the format before is replaced' '
	rm -rf s/cache && mkdir -m 700 s/cache &&
	echo "PPRSCR1 an old cache" >s/cache/script.v1 &&
	before=$(runs) &&
	report -i s --format collapsed >old.folded &&
	test $(runs) = $((before + 1)) &&
	test_cmp first.folded old.folded &&
	test "$(ls s/cache)" = script.v2 &&
	from_cache_alone
'

# jit mode: report judges each stack by its dump in perf.data (full or
# not, the stack pointer, each thread's stack top).  Deep recursion fills
# a small dump; shallow code first lets a dump reach each thread's stack
# top, which tells how big a dump the deep samples needed.
cat >jitprog.py <<'EOF'
import sys, threading, time

def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s

def rec(depth, n):
    if depth == 0:
        return leaf(n)
    return rec(depth - 1, n)

def work(shallow, deep, depth):
    end = time.time() + shallow
    s = 0
    while time.time() < end:
        for i in range(1000):
            s += i * i
    end = time.time() + deep
    while time.time() < end:
        rec(depth, 3000)

sys.setrecursionlimit(5000)
t = threading.Thread(target=work, args=(0.25, 0.35, 60))
t.start()
work(0.1, 0.5, 90)
t.join()
EOF

test_expect_success PERF,PYTHON 'record a jit-mode session with small stack dumps' '
	ppr record -q -o j --mode jit --stack-size 512 \
		--python "$(cat .python)" jitprog.py >out 2>err &&
	test -s j/perf.data
'

test_prereq_JITSESSION() {
	test -s j/perf.data && grep -q "^mode=jit$" j/meta ||
		{ echo "the jit-mode recording failed"; return 1; }
}

test_prereq_STRACE() {
	strace -o /dev/null true 2>/dev/null ||
		{ echo "no strace that can trace here"; return 1; }
}

test_expect_success JITSESSION 'jit mode: the judgement of every stack is the same from the cache' '
	S=j same_with_cache --format text --color never &&
	# the dumps decided something: full dumps (512 bytes often stop
	# before the innermost Python frame, whose context trampoline
	# names the callers)
	test_grep "512-byte stack dump was full" cached &&
	S=j same_with_cache --format json &&
	S=j same_with_cache --format collapsed --all &&
	S=j same_with_cache --format collapsed --python-only --per-thread &&
	S=j same_with_cache --format json --time 0.1,0.4
'

# access TRACE: "MMAPS BYTES", how often pyperf-run itself (not its
# children) mapped perf.data and how many bytes it read of it
access() {
	awk '/perf\.data>/ && /^mmap\(/ { m++ }
	     /perf\.data>/ && /^(read|pread64)\(/ {
		sub(/.*= /, ""); if ($1 > 0) b += $1 }
	     END { print m + 0, b + 0 }' "$1"
}

# trace FILE ARGS...: pyperf-run report ARGS under strace, no valgrind
# (LeakSanitizer cannot run under ptrace: leaks are checked elsewhere)
trace() {
	trace_=$1; shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	PYPERF_PERF=$PWD/perf-wrap strace -y -o "$trace_" \
		-e trace=openat,mmap,read,pread64 "$PPR_BIN" report "$@"
}

test_expect_success JITSESSION,STRACE 'a cached report of a jit session reads only the first block of perf.data' '
	rm -rf j/cache &&
	trace fresh.trace -i j --format collapsed >fresh 2>err.fresh &&
	set -- $(access fresh.trace) &&
	# without the cache the samples are read: the check sees it
	test "$1" -ge 1 &&
	size=$(stat -c %s j/perf.data) &&
	# compressed (perf record -z): some 40 KB, ten times the 4 KiB read
	test "$size" -gt 16384 &&
	: >deny &&
	trace cached.trace -i j --format collapsed >cached 2>err.cached;
	rc=$?; rm -f deny &&
	test $rc = 0 &&
	test_cmp fresh cached &&
	test_cmp err.fresh err.cached &&
	set -- $(access cached.trace) &&
	echo "perf.data of $size bytes: mapped $1 times, $2 bytes read" &&
	test "$1" = 0 &&
	test "$2" -le 4096
'

test_expect_success SESSION 'no cache can be written: the report is still right' '
	rm -rf s/cache &&
	echo "not a directory" >s/cache &&
	before=$(runs) &&
	report -i s --format collapsed >nocache.folded 2>err &&
	report -i s --format collapsed >nocache2.folded 2>>err &&
	test $(runs) = $((before + 2)) &&
	test_cmp first.folded nocache.folded &&
	test_cmp first.folded nocache2.folded &&
	cat first.err first.err >twice.err &&
	test_cmp twice.err err &&
	test "$(cat s/cache)" = "not a directory" &&
	rm -f s/cache
'

test_done
