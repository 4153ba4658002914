#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='the Debian package: make deb, lintian, dpkg -i, doctor and record/report with the installed files, purge'
. ./test-lib.sh

VERSION=$(sed -n 's/^VERSION=//p' "$PPR_SRCDIR/configure")
DEB_DIR=$TRASH/deb
# The package under test (set once make deb has run).
DEB=

test_expect_success 'debian/changelog carries the version configure builds' '
	test -n "$VERSION" &&
	head -n 1 "$PPR_SRCDIR/debian/changelog" >first &&
	test_grep "^pyperf-run \($VERSION\) " first
'

test_prereq_DPKG_BUILD() {
	command -v dpkg-buildpackage >/dev/null ||
		{ echo "dpkg-buildpackage is not installed (apt-get install dpkg-dev)"; return 1; }
	command -v dh >/dev/null ||
		{ echo "debhelper is not installed (apt-get install debhelper)"; return 1; }
	test -f "$PPR_SRCDIR/Makefile" || { echo "the tree is not configured"; return 1; }
	deps_=$(cd "$PPR_SRCDIR" && dpkg-checkbuilddeps 2>&1) || {
		printf '%s\n' "$deps_" | sed 's/^dpkg-checkbuilddeps: [a-z]*: //'
		return 1
	}
}

test_prereq_LINTIAN() {
	command -v lintian >/dev/null ||
		{ echo "lintian is not installed (apt-get install lintian)"; return 1; }
}

# dpkg -i/--purge change the machine: only as root, and never over a
# pyperf-run package someone installed (the test purges what it installs).
test_prereq_DPKG_INSTALL() {
	test "$(id -u)" = 0 || { echo "not running as root (dpkg -i needs it)"; return 1; }
	if dpkg-query -W -f='${Status}' pyperf-run 2>/dev/null | grep -q 'ok installed'; then
		echo "a pyperf-run package is installed already; the test would remove it"
		return 1
	fi
	dpkg-query -W -f='${Status}' linux-perf 2>/dev/null | grep -q 'ok installed' ||
		{ echo "linux-perf (the package's dependency) is not installed"; return 1; }
}

# dpkg_ran ARGS...: dpkg ran: it succeeded, or failed for another reason
# than apt or another dpkg holding its lock (its status in dpkg.status).
dpkg_ran() {
	dpkg "$@" >dpkg.out 2>&1
	echo $? >dpkg.status
	test "$(cat dpkg.status)" = 0 || ! grep -q 'lock' dpkg.out
}

# dpkg, waiting (up to a minute) while apt or another dpkg holds its lock.
dpkg_locked() {
	wait_for -i 1 60 dpkg_ran "$@" && test "$(cat dpkg.status)" = 0 ||
		{ cat dpkg.out; return 1; }
}

# Builds the package once; every later test uses $DEB.
if test_have_prereq DPKG_BUILD; then
	test_expect_success 'make deb builds pyperf-run_<version>_<arch>.deb outside the tree' '
		make -s -C "$PPR_SRCDIR" deb DEB_DIR="$DEB_DIR" >build.log 2>&1 ||
			{ tail -n 40 build.log; false; } &&
		arch=$(dpkg --print-architecture) &&
		test -f "$DEB_DIR/pyperf-run_${VERSION}_$arch.deb" &&
		! test -e "$DEB_DIR/src" &&
		! test -e "$PPR_SRCDIR/debian/files" &&
		! test -e "$PPR_SRCDIR/debian/pyperf-run" &&
		! test -e "$PPR_SRCDIR/debian/.debhelper"
	'
	DEB=$DEB_DIR/pyperf-run_${VERSION}_$(dpkg --print-architecture).deb
	test -f "$DEB" || DEB=
fi

test_prereq_DEB() {
	test -n "$DEB" || { echo "no package was built"; return 1; }
}

test_expect_success DEB 'Depends: linux-perf; Recommends: a C compiler and python3-dev' '
	dpkg-deb -f "$DEB" Depends >depends &&
	dpkg-deb -f "$DEB" Recommends >recommends &&
	test_grep "(^|, )linux-perf(,|$)" depends &&
	test_grep "libc6" depends &&
	test_grep "(^|, )gcc \| c-compiler(,|$)" recommends &&
	test_grep "(^|, )python3-dev(,|$)" recommends
'

test_expect_success DEB 'it holds the programs, man pages, completion, trampoline sources and a prebuilt trampoline' '
	dpkg-deb -c "$DEB" | awk "{print \$6}" | sed "s|^\./|/|" >contents &&
	for f in /usr/bin/pyperf-run /usr/bin/pyperf-python \
		/usr/lib/pyperf-run/src/build.sh \
		/usr/lib/pyperf-run/src/_pyperf_trampoline.c \
		/usr/lib/pyperf-run/SOURCE_ID \
		/usr/share/bash-completion/completions/pyperf-run \
		/usr/share/zsh/vendor-completions/_pyperf-run \
		/usr/share/doc/pyperf-run/copyright; do
		grep -qx "$f" contents || { echo "missing $f"; return 1; }
	done &&
	for m in "$PPR_SRCDIR"/man/*.1; do
		grep -qx "/usr/share/man/man1/$(basename "$m").gz" contents ||
			{ echo "missing man page $m"; return 1; }
	done &&
	test_grep "^/usr/lib/pyperf-run/cpython-3[0-9]+-[^/]+/boot/_pyperf_trampoline\..*\.so$" contents
'

test_expect_success DEB,LINTIAN 'lintian: no errors, no warnings' '
	lintian --fail-on error,warning "$DEB" >lintian.out 2>&1 ||
		{ cat lintian.out; false; } &&
	test_grep -v "^[EW]: " lintian.out
'

test_expect_success DEB,DPKG_INSTALL 'dpkg -i installs it' '
	dpkg_locked -i "$DEB" &&
	dpkg-query -W -f="\${Status}" pyperf-run >status &&
	test_grep "install ok installed" status &&
	dpkg -L pyperf-run >"$TRASH/installed"
'

# The installed files only: absolute paths, no build-tree override, and a
# private HOME so that a first-use build would show in its cache.
installed() {
	env -u PYPERF_LIBDIR -u XDG_CACHE_HOME HOME="$TRASH/home" "$@"
}
mkdir -p "$TRASH/home"

test_prereq_INSTALLED() {
	test -s "$TRASH/installed" && test -x /usr/bin/pyperf-run ||
		{ echo "the package is not installed"; return 1; }
}

# deb_python: the distribution's interpreter of the version the package's
# prebuilt trampoline was built for (its cpython-3NN-... directory).
deb_python() {
	dv_=$(sed -n 's|^/usr/lib/pyperf-run/cpython-3\([0-9][0-9]*\)-[^/]*/boot/.*|3.\1|p' \
		"$TRASH/installed" | head -n 1)
	test -n "$dv_" || { echo "no prebuilt trampoline in the package" >&2; return 1; }
	ppr_distro_python "$dv_" ||
		{ echo "no distribution python$dv_ for the prebuilt trampoline" >&2; return 1; }
}

test_expect_success INSTALLED 'the installed pyperf-run --version names the version, perf and features' '
	installed /usr/bin/pyperf-run --version >version &&
	test_grep "^pyperf-run $VERSION$" version &&
	test_grep "^built with: (perf [0-9]|no perf)" version &&
	test_grep "^features: .*pprof=yes" version
'

test_expect_success INSTALLED 'the installed doctor finds the packaged prebuilt trampoline' '
	py=$(deb_python) &&
	installed /usr/bin/pyperf-run doctor --python "$py" >doctor 2>&1 ||
		{ cat doctor; false; } &&
	test_grep "embedded trampoline: available" doctor &&
	test_grep "PYTHONPATH=/usr/lib/pyperf-run/cpython-[^ ]*/boot " doctor
'

# hot() runs twice as long as cold(); the program measures both with its
# own CPU clock and prints the shares, the reference for the profile.
cat >"$TRASH/prog.py" <<'EOF'
import time

def spin(seconds):
    end = time.process_time() + seconds
    n = 0
    while time.process_time() < end:
        n += sum(i * i for i in range(200))
    return n

def hot():
    return spin(0.8)

def cold():
    return spin(0.4)

def main():
    t0 = time.process_time()
    hot()
    t1 = time.process_time()
    cold()
    t2 = time.process_time()
    print("reference hot %.1f" % (100 * (t1 - t0) / (t2 - t0)))

main()
EOF

test_expect_success INSTALLED,PERF 'record and report with the installed files use the prebuilt trampoline' '
	py=$(deb_python) &&
	installed /usr/bin/pyperf-run record --trampoline auto -o sess --python "$py" \
		prog.py >rec.out 2>rec.err || { cat rec.out rec.err; false; } &&
	test_grep "embedded trampoline" rec.err &&
	! test -e "$TRASH/home/.cache/pyperf-run/trampoline" &&
	installed /usr/bin/pyperf-run report -i sess --no-tree >report &&
	ref=$(sed -n "s/^reference hot //p" rec.out) &&
	got=$(awk "/^Top functions by total time/ { t = 1 }
		t && \$(NF-1) == \"hot\" && \$NF == \"(prog.py)\" { sub(\"%\", \"\", \$1); print \$1; exit }" report) &&
	echo "hot: $got% of the samples, $ref% by its own clock" &&
	test -n "$ref" && test -n "$got" &&
	awk -v a="$got" -v b="$ref" "BEGIN { d = a - b; exit !(d < 10 && d > -10) }"
'

# Always runs once the package went in, so that a failure above does not
# leave it installed.
test_expect_success INSTALLED 'dpkg --purge removes every file it installed' '
	dpkg_locked --purge pyperf-run &&
	! dpkg-query -W -f="\${Status}" pyperf-run 2>/dev/null | grep -q "ok installed" &&
	while read -r f; do
		case $f in /.|/) continue ;; esac
		if test -d "$f" && ! test -L "$f"; then
			# a directory may stay only while another package owns it
			dpkg -S "$f" >/dev/null 2>&1 || echo "left: $f/"
		elif test -e "$f" || test -L "$f"; then
			echo "left: $f"
		fi
	done <"$TRASH/installed" >left &&
	! test -s left || { cat left; false; }
'

test_done
