#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# unstable-root.sh: a root directory made of Debian unstable's packages,
# for the tests on CPython 3.14 and 3.15 (Debian's own builds, which need
# unstable's glibc: Debian 12 has 2.36).  The tests run them as
#   chroot $CACHE/unstable-root /usr/bin/python3.14 prog.py
# where CACHE is ${PYPERF_CACHE:-$HOME/.cache/pyperf-run}.
#
# How: apt with a private sources list (the Debian mirror the machine
# already uses, suite sid) and its own Dir::Etc, Dir::State (lists,
# status) and Dir::Cache under $CACHE/unstable-apt, so the system's apt
# state is untouched and no apt source is added to the system.  Each
# package is fetched with `apt-get download` (apt checks it against the
# signed Release file) and unpacked with `dpkg -x` into the root; no
# maintainer script runs.  /bin, /sbin, /lib and /lib64 are links to
# usr/, as on a merged-/usr system.  The packages: the C runtime and the
# libraries the interpreters and their standard modules load, tzdata,
# python3.14 and python3.15 with their minimal and stdlib packages, the
# -dev packages (the headers t3501 checks the walker's layouts against)
# and the -dbg packages.  Then, separately, Debian's python3-pytest and
# python3-sympy with their dependencies, for the real-program tests
# (pure Python, in /usr/lib/python3/dist-packages, which both
# interpreters read); when they cannot be fetched the root is still
# made, the summary says so and $ROOT/.pyperf-extras says "none".
#
# The root gets /dev/null and the few other device nodes programs open
# by name; /proc is not mounted (a test that needs it mounts it and
# unmounts it after).
#
# Built in $ROOT.new and renamed when it works, so a failed run leaves
# no half root.  Idempotent: nothing is done when the root exists, was
# made from this package list (a stamp), and both interpreters start in
# it.  The log goes to $CACHE/unstable-root.log; one summary line is
# printed.
#
# Knobs: PYPERF_CACHE, UNSTABLE_ROOT_FORCE=1 (make it again),
#        UNSTABLE_MIRROR (a Debian mirror URI; default: the machine's).
set -euo pipefail

cache=${PYPERF_CACHE:-$HOME/.cache/pyperf-run}
root=$cache/unstable-root
aptdir=$cache/unstable-apt
log=$cache/unstable-root.log

# The packages, each unpacked as is.  Keep the list sorted by purpose:
# the stamp is its text, so changing it makes the root again.
base="libc6 libgcc-s1 libstdc++6 zlib1g libexpat1 libffi8 libzstd1 \
liblzma5 libbz2-1.0 libssl3t64 libsqlite3-0 libcrypt1 libmpdec4 \
libuuid1 libncursesw6 libtinfo6 libreadline8t64 tzdata media-types \
netbase"
pys=
for v in 3.14 3.15; do
	pys="$pys python$v python$v-minimal libpython$v-minimal \
libpython$v-stdlib libpython$v python$v-dev libpython$v-dev \
python$v-dbg libpython$v-dbg"
done
extras="python3-pytest python3-iniconfig python3-packaging \
python3-pluggy python3-pygments python3-sympy python3-mpmath"
stamp_text="base: $base
pythons: $pys
extras: $extras"

# works DIR: both interpreters start in DIR, with what the tests use.
works() {
	test -x "$1/usr/bin/python3.14" && test -x "$1/usr/bin/python3.15" ||
		return 1
	chroot "$1" /usr/bin/python3.14 -c \
		'import sys, ssl, sqlite3, lzma, bz2, zlib, ctypes, decimal, threading, asyncio; assert sys.version_info[:2] == (3, 14)' \
		>/dev/null 2>&1 &&
	chroot "$1" /usr/bin/python3.15 -c \
		'import sys, ssl, sqlite3, lzma, bz2, zlib, ctypes, decimal, threading, asyncio, profiling.sampling; assert sys.version_info[:2] == (3, 15)' \
		>/dev/null 2>&1 &&
	test -f "$1/usr/include/python3.14/internal/pycore_debug_offsets.h" &&
	test -f "$1/usr/include/python3.15/internal/pycore_debug_offsets.h" &&
	test -c "$1/dev/null"
}

# devices DIR: the device nodes programs open by name (pytest opens
# /dev/null; os.urandom falls back to /dev/urandom), made when missing.
devices() {
	local spec name
	for spec in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
		name=${spec%%:*}
		test -c "$1/dev/$name" && continue
		rm -f "$1/dev/$name"
		mknod -m 666 "$1/dev/$name" c $(echo "${spec#*:}" | tr : ' ')
	done
}

# summary DIR: the one line.
summary() {
	local v14 v15 ex
	v14=$(chroot "$1" /usr/bin/python3.14 -c 'import sys; print(sys.version.split()[0])')
	v15=$(chroot "$1" /usr/bin/python3.15 -c 'import sys; print(sys.version.split()[0])')
	ex=$(cat "$1/.pyperf-extras" 2>/dev/null || echo none)
	echo "unstable-root: $1: python $v14 and $v15 (Debian unstable), pytest+sympy: $ex"
}

if test "${UNSTABLE_ROOT_FORCE:-}" != 1 &&
   test "$(cat "$root/.pyperf-stamp" 2>/dev/null)" = "$stamp_text" &&
   { test "$(id -u)" != 0 || devices "$root"; } &&
   works "$root"; then
	summary "$root" | sed 's/^unstable-root: /unstable-root: already made: /'
	exit 0
fi

if test "$(id -u)" != 0; then
	echo "unstable-root: needs root (chroot, and dpkg -x keeps owners)" >&2
	exit 1
fi

mkdir -p "$cache"
: >"$log"
start=$(date +%s)
fail() {
	echo "unstable-root: FAILED ($1); see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
}

# 1. The mirror: the first Debian archive (not the security one) among
#    the machine's own sources, deb822 or one-line.
mirror=${UNSTABLE_MIRROR:-}
if test -z "$mirror"; then
	mirror=$(
		{
			cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
				sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
			cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
				2>/dev/null |
				sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\([^[:space:]]*\).*/\2/p'
		} | grep -E '^(https?|file)://.*/debian/?$' | head -n 1
	) || :
fi
test -n "$mirror" || fail "no Debian mirror in /etc/apt/sources.list(.d); set UNSTABLE_MIRROR"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
test -f "$keyring" || fail "no $keyring (package debian-archive-keyring)"

# 2. apt's private state.  Every Dir apt writes to is under $aptdir; the
#    system's apt.conf.d is still read (a proxy setting applies here too).
mkdir -p "$aptdir/etc/apt.conf.d" "$aptdir/etc/preferences.d" \
	"$aptdir/etc/sources.list.d" "$aptdir/lists/partial" \
	"$aptdir/cache/archives/partial" "$aptdir/debs"
echo "deb [signed-by=$keyring] ${mirror%/} sid main" \
	>"$aptdir/etc/sources.list"
touch "$aptdir/status"
aptopts=(
	-o "Dir::Etc=$aptdir/etc"
	-o "Dir::Etc::sourcelist=$aptdir/etc/sources.list"
	-o "Dir::Etc::sourceparts=$aptdir/etc/sources.list.d"
	-o "Dir::Etc::preferencesparts=$aptdir/etc/preferences.d"
	-o "Dir::State=$aptdir"
	-o "Dir::State::lists=$aptdir/lists"
	-o "Dir::State::status=$aptdir/status"
	-o "Dir::Cache=$aptdir/cache"
	-o "APT::Architecture=$(dpkg --print-architecture)"
	-o "APT::Architectures::=$(dpkg --print-architecture)"
	-o "Debug::NoLocking=1"
)
echo "+ apt-get update ($mirror sid)" >>"$log"
apt-get "${aptopts[@]}" -qq update >>"$log" 2>&1 || fail "apt-get update of $mirror sid"

# fetch PKG...: into $aptdir/debs (apt-get download writes to the current
# directory and skips a file it already has with the right hash).
fetch() {
	(cd "$aptdir/debs" && apt-get "${aptopts[@]}" -qq download "$@") \
		>>"$log" 2>&1
}
# unpack DIR PKG...: the fetched version of each PKG, into DIR.
unpack() {
	local dir=$1 p v f
	shift
	for p in "$@"; do
		v=$(apt-cache "${aptopts[@]}" show --no-all-versions "$p" |
			sed -n 's/^Version: //p' | head -n 1)
		# The file name encodes an epoch's colon as %3a.
		f=$(ls "$aptdir/debs/${p}_${v/:/%3a}_"*.deb 2>/dev/null | head -n 1)
		test -n "$f" || { echo "no file for $p $v" >>"$log"; return 1; }
		dpkg -x "$f" "$dir" >>"$log" 2>&1 || return 1
	done
}

# 3. The root, built aside.
new=$root.new
rm -rf "$new"
mkdir -p "$new/usr/bin" "$new/usr/sbin" "$new/usr/lib" "$new/usr/lib64" \
	"$new/etc" "$new/dev" "$new/proc" "$new/tmp" "$new/root"
chmod 1777 "$new/tmp"
for d in bin sbin lib lib64; do
	ln -s "usr/$d" "$new/$d"
done
echo "+ apt-get download $base $pys" >>"$log"
# shellcheck disable=SC2086
fetch $base $pys || fail "apt-get download"
# shellcheck disable=SC2086
unpack "$new" $base $pys || fail "dpkg -x"

# A few files the packages' maintainer scripts would have made.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$new/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$new/etc/group"
ln -sf /usr/share/zoneinfo/Etc/UTC "$new/etc/localtime"
devices "$new"

works "$new" || {
	chroot "$new" /usr/bin/python3.14 -c 'import sys' >>"$log" 2>&1 || :
	chroot "$new" /usr/bin/python3.15 -c 'import profiling.sampling' >>"$log" 2>&1 || :
	fail "the interpreters do not start in the root"
}

# 4. pytest and sympy, from unstable too: optional.
echo "+ apt-get download $extras" >>"$log"
# shellcheck disable=SC2086
if fetch $extras && unpack "$new" $extras &&
   chroot "$new" /usr/bin/python3.14 -c 'import pytest, sympy' >>"$log" 2>&1 &&
   chroot "$new" /usr/bin/python3.15 -c 'import pytest, sympy' >>"$log" 2>&1; then
	chroot "$new" /usr/bin/python3.14 -c \
		'import pytest, sympy; print("pytest", pytest.__version__, "sympy", sympy.__version__)' \
		>"$new/.pyperf-extras"
else
	echo none >"$new/.pyperf-extras"
fi

printf '%s\n' "$stamp_text" >"$new/.pyperf-stamp"
rm -rf "$root"
mv "$new" "$root"
end=$(date +%s)
summary "$root" | sed "s/\$/ (made in $((end - start)) s)/"
