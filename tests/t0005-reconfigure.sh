#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A build follows its configuration.  A copy of the program and the
# libperf unit test (at -O0, to be quick) is configured without libperf
# and built into this test's directory, as t6004 builds its own
# (make -C the source tree -f b/Makefile BUILD=b/build); then configured
# with libperf, as after .ci/setup.d/libperf.sh: `make` must rebuild what
# the new flags reach, and top must work.  A configure that finds the same
# again must rebuild nothing.  --version must say what configure found and
# what the binary holds, and every PPR_HAVE_ macro the sources test must
# be one the build defines (--version once tested two that nothing did).
# A build without the frame walker (--without-bpf) must build, and say
# so.
test_description='a re-configured build follows its configuration; --version says what was built'
. ./test-lib.sh

B=$TRASH/b
mkdir "$B"

test_prereq_BUILD_TOOLS() {
	command -v make >/dev/null && command -v cc >/dev/null ||
		{ echo "no make or cc to build with"; return 1; }
}

test_prereq_LIBPERF_FOUND() {
	mkdir -p "$TRASH/lp" &&
	(cd "$TRASH/lp" && "$PPR_SRCDIR/configure" --with-libperf) >/dev/null 2>&1 ||
		{ echo "configure finds no libperf (.ci/setup.d/libperf.sh builds it)"; return 1; }
}

# configure_b ARGS...: configure b/ at -O0; its output in b/configure.out
configure_b() {
	(cd "$B" && "$PPR_SRCDIR/configure" CFLAGS=-O0 "$@" >configure.out 2>configure.err) ||
		{ cat "$B/configure.out" "$B/configure.err"; return 1; }
}

# make_b LOG: make the program and the libperf unit test in b/build
make_b() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 -C "$PPR_SRCDIR" \
		-f "$B/Makefile" BUILD="$B/build" \
		"$B/build/pyperf-run" "$B/build/tests/unit/t-libperf" >"$1" 2>&1 ||
		{ cat "$1"; return 1; }
}

# compiled LOG: the objects LOG's make compiled, one a line, sorted
compiled() {
	sed -n "s|.* -c -o $B/build/\([^ ]*\.o\) .*|\1|p" "$1" | sort
}

# rebuilt_nothing LOG: make ran no command (it printed nothing but
# entering and leaving the source tree and that a goal is up to date),
# and wrote no file after configure wrote b/Makefile
rebuilt_nothing() {
	grep -v -E "^make(\[[0-9]+\])?: ((Entering|Leaving) directory |.* is up to date\.$|Nothing to be done for )" "$1" >ran
	if test -s ran; then
		echo "the make after an identical configure did this:"
		cat ran
		return 1
	fi
	find "$B/build" -type f -newer "$B/Makefile" >newer &&
	if test -s newer; then
		echo "the make after an identical configure wrote:"
		cat newer
		return 1
	fi
}

# found FEATURE: yes or no, as configure's "checking for FEATURE..." said
found() {
	sed -n -E "s/^checking for $1\.\.\. (yes|no).*/\1/p" "$B/configure.out"
}

# in_binary FEATURE: the build holds what the feature takes: the program
# links the shared libprotobuf-c and libdw, and libperf (static from
# .ci/setup.d/libperf.sh, or shared) is called.  No command calls the
# tracepoint decoder (lib/tracedata.c; t-tracedata and the fuzzer do), so
# the linker drops libtraceevent from the program: for it, libppr.a's
# decoder is the one compiled against it.
in_binary() {
	case $1 in
	pprof) ldd "$B/build/pyperf-run" | grep -q "libprotobuf-c\.so" ;;
	libdw) ldd "$B/build/pyperf-run" | grep -q "libdw\.so" ;;
	libtraceevent) nm "$B/build/libppr.a" 2>/dev/null | grep -q " U tep_alloc$" ;;
	libperf) nm "$B/build/pyperf-run" | grep -q " perf_evlist__new$" ;;
	# no command loads the frame walker yet: libppr.a's loader is the
	# one compiled against libbpf (its skeleton calls libbpf)
	bpf) nm "$B/build/libppr.a" 2>/dev/null | grep -q " U bpf_object__open_skeleton$" ;;
	zstd) nm "$B/build/libppr.a" 2>/dev/null | grep -q " U ZSTD_decompressStream$" ;;
	*) echo "in_binary: no check for $1"; return 1 ;;
	esac
}

# features_agree: --version's features line is what configure found, and
# each yes or no is what the binary holds
features_agree() {
	bpf=$(sed -n -E "s/^checking whether to build the frame walker \(bpf\)\.\.\. (yes|no).*/\1/p" "$B/configure.out") &&
	echo "features: pprof=$(found protobuf-c) libdw=$(found "libdw and libelf") libtraceevent=$(found libtraceevent) libperf=$(found libperf) bpf=$bpf zstd=$(found zstd)" >want &&
	"$B/build/pyperf-run" --version >ver &&
	sed -n 3p ver >got &&
	test_cmp want got &&
	for f in pprof libdw libtraceevent libperf bpf zstd; do
		said=$(sed -n -E "s/^features: .*\<$f=(yes|no)\>.*/\1/p" ver) &&
		if in_binary $f; then has=yes; else has=no; fi &&
		echo "$f: --version $said, in the binary $has" &&
		test "$said" = "$has" || return 1
	done
}

test_expect_success BUILD_TOOLS,LIBPERF_FOUND 'configured --without-libperf: a build without top' '
	configure_b --without-libperf &&
	test_grep "^checking for libperf\.\.\. no \(--without-libperf\)$" "$B/configure.out" &&
	make_b make1.log &&
	compiled make1.log >objs1 &&
	test_grep "^lib/top/top\.o$" objs1 &&
	test_grep "^cmd/top\.o$" objs1 &&
	test_grep "^tests/unit/t-libperf\.o$" objs1 &&
	features_agree &&
	test_grep " libperf=no( |$)" ver
'

test_expect_success BUILD_TOOLS,LIBPERF_FOUND 'the same configure again: make rebuilds nothing' '
	configure_b --without-libperf &&
	make_b make2.log &&
	rebuilt_nothing make2.log
'

test_expect_success BUILD_TOOLS,LIBPERF_FOUND 'configured with libperf: make rebuilds every object, and --version says libperf=yes' '
	configure_b --with-libperf &&
	test_grep "^checking for libperf\.\.\. yes " "$B/configure.out" &&
	make_b make3.log &&
	compiled make3.log >objs3 &&
	test_cmp objs1 objs3 &&
	grep " -c -o $B/build/lib/top/top\.o " make3.log >top.cmd &&
	test_grep " -DPPR_HAVE_LIBPERF " top.cmd &&
	features_agree &&
	test_grep " libperf=yes( |$)" ver
'

test_expect_success BUILD_TOOLS,LIBPERF_FOUND 'and again: make rebuilds nothing' '
	configure_b --with-libperf &&
	make_b make4.log &&
	rebuilt_nothing make4.log
'

test_expect_success BUILD_TOOLS,LIBPERF_FOUND,PERF 'the rebuilt unit test samples with libperf' '
	"$B/build/tests/unit/t-libperf" >tap 2>err &&
	cat tap &&
	test_grep "^1\.\.[1-9]" tap &&
	test_grep -v "^not ok" tap &&
	test_grep -v "# SKIP" tap
'

# The embedded trampolines of the build under test (b/build has none)
test_expect_success BUILD_TOOLS,LIBPERF_FOUND,PERF 'the rebuilt top names the running Python function' '
	PYPERF_LIBDIR=$PPR_BUILD/trampoline "$B/build/pyperf-run" top -q --trampoline auto \
		--batch --duration 1 -s total -n 100 -o hot.txt -c "def spin():
    while True:
        pass
spin()" >out 2>err &&
	cat err hot.txt &&
	! test -s out &&
	n=$(sed -n "s/^# samples:  \([0-9]*\) in .*/\1/p" hot.txt) &&
	test "$n" -gt 0 &&
	test_grep "  spin \(<string>\)$" hot.txt
'

# Each PPR_HAVE_ macro a source tests must be defined by the build that
# has the feature: both builds above together cover libperf's yes and no,
# and pprof, libdw and libtraceevent were found (or configure fails).
test_prereq_PROTOBUF_C_FOUND() {
	test "$(found protobuf-c)" = yes ||
		{ echo "configure found no protobuf-c, so PPR_HAVE_PROTOBUF_C is defined by no build here"; return 1; }
}

test_expect_success BUILD_TOOLS,LIBPERF_FOUND,PROTOBUF_C_FOUND 'every PPR_HAVE_ macro the sources test is one the build defines' '
	(cd "$PPR_SRCDIR" && grep -r -h -o -E --include="*.[ch]" \
		"PPR_HAVE_[A-Z0-9_]+" cmd lib tests/unit tests/fuzz trampoline) |
		sort -u >used &&
	cat used &&
	test_grep "^PPR_HAVE_LIBPERF$" used &&
	cat make1.log make3.log | grep -o -E -- "-DPPR_HAVE_[A-Z0-9_]+" |
		sed "s/^-D//" | sort -u >defined &&
	cat defined &&
	comm -23 used defined >undefined &&
	if test -s undefined; then
		echo "tested in the sources, defined by no build:" &&
		cat undefined &&
		return 1
	fi
'

# Without the frame walker's tools (libbpf, bpftool, clang's BPF target,
# kernel BTF; here --without-bpf) everything else builds, nothing of the
# walker's BPF side is made, and its loader says the walker is not built.
test_expect_success BUILD_TOOLS 'configured --without-bpf: no walker, and walker_open() says so' '
	B=$TRASH/nobpf &&
	mkdir -p "$B" &&
	configure_b --without-bpf &&
	test_grep "^checking whether to build the frame walker \(bpf\)\.\.\. no$" "$B/configure.out" &&
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 -C "$PPR_SRCDIR" \
		-f "$B/Makefile" BUILD="$B/build" "$B/build/pyperf-run" \
		"$B/build/tests/unit/t-walker-live" >make5.log 2>&1 ||
		{ cat make5.log; return 1; }
	! test -e "$B/build/walker" &&
	"$B/build/pyperf-run" --version >ver5 &&
	test_grep " bpf=no( |$)" ver5 &&
	"$B/build/tests/unit/t-walker-live" >tap5 &&
	cat tap5 &&
	test_grep "^ok 1 - built without libbpf, walker_open says so" tap5 &&
	test_grep -v "^not ok" tap5
'

test_done
