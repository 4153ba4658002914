#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# fp-python.sh: build a frame-pointer CPython 3.11 for the perf-backend
# tests and the benchmarks.
#
# Source: Debian's python3.11 source package (same archive as the
# machine's binary packages), configured with
#   -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
# and installed to ${PYPERF_CACHE:-$HOME/.cache/pyperf-run}/fp-python.
# Idempotent: when that interpreter exists and its sysconfig CFLAGS show
# both flags, nothing is done.  The build log goes to
# $CACHE/fp-python-build.log; one summary line is printed.
#
# Knobs: PYPERF_CACHE, FP_PYTHON_JOBS (make -j, default 2),
#        FP_PYTHON_FORCE=1 (rebuild).
set -euo pipefail

cache=${PYPERF_CACHE:-$HOME/.cache/pyperf-run}
prefix=$cache/fp-python
py=$prefix/bin/python3.11
log=$cache/fp-python-build.log
jobs=${FP_PYTHON_JOBS:-2}
fpflags='-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer'

SUDO=
if test "$(id -u)" != 0; then
	SUDO=sudo
fi

has_flags() {
	test -x "$py" || return 1
	"$py" - <<-'EOF' >/dev/null 2>&1
	import sysconfig, sys
	f = (sysconfig.get_config_var("CFLAGS") or "").split()
	ok = "-fno-omit-frame-pointer" in f and \
		"-mno-omit-leaf-frame-pointer" in f
	sys.exit(0 if ok else 1)
	EOF
}

if test "${FP_PYTHON_FORCE:-}" != 1 && has_flags; then
	echo "fp-python: $py already built with frame pointers"
	exit 0
fi

mkdir -p "$cache"
: >"$log"
start=$(date +%s)
fail() {
	echo "fp-python: FAILED ($1); see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
}

# 1. A deb-src entry for the archives the machine already uses.  We copy
#    the deb822 stanzas of the Debian sources, changing only Types.
src_list=/etc/apt/sources.list.d/pyperf-run-src.sources
need_update=
if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list \
	/etc/apt/sources.list.d/; then
	tmp=$(mktemp)
	for f in /etc/apt/sources.list.d/*.sources; do
		test -f "$f" || continue
		grep -q 'debian' "$f" || continue
		sed -e 's/^Types:.*/Types: deb-src/' "$f" >>"$tmp"
		printf '\n' >>"$tmp"
	done
	if test -f /etc/apt/sources.list; then
		sed -n -e 's/^deb \(.*debian.*\)$/deb-src \1/p' \
			/etc/apt/sources.list >"$tmp.list"
		if test -s "$tmp.list"; then
			$SUDO install -m 644 "$tmp.list" \
				/etc/apt/sources.list.d/pyperf-run-src.list
		fi
		rm -f "$tmp.list"
	fi
	if test -s "$tmp"; then
		$SUDO install -m 644 "$tmp" "$src_list"
	fi
	rm -f "$tmp"
	need_update=1
fi
if test -n "$need_update" ||
	! apt-cache showsrc python3.11 2>/dev/null | grep -q '^Package:'; then
	$SUDO apt-get update -qq >>"$log" 2>&1 || fail "apt-get update"
fi

# 2. Build dependencies (a minimal list: what the stdlib modules the
#    tests and benchmarks use need).
deps="dpkg-dev build-essential libssl-dev zlib1g-dev libffi-dev \
libbz2-dev liblzma-dev libsqlite3-dev libreadline-dev libexpat1-dev \
uuid-dev libncurses-dev"
want=
for p in $deps; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || want="$want $p"
done
if test -n "$want"; then
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends $want >>"$log" 2>&1 ||
		fail "apt-get install$want"
fi

# 3. Source, outside the repository.
build=$cache/fp-python-build
rm -rf "$build"
mkdir -p "$build"
# Every version the archives list, newest first: a mirror may lack the
# newest one (the security archive's sources are not always mirrored).
got=
for v in $(apt-cache showsrc python3.11 2>/dev/null |
	sed -n 's/^Version: //p' | sort -u -r -V); do
	rm -rf "$build"/*
	if (cd "$build" && apt-get source -qq "python3.11=$v") >>"$log" 2>&1
	then
		got=$v
		break
	fi
done
test -n "$got" || fail "apt-get source python3.11"
srcdir=
for d in "$build"/python3.11-*/; do
	test -f "$d/configure" && srcdir=${d%/}
done
test -n "$srcdir" || fail "no unpacked source in $build"

# 4. Configure, build, install.  No PGO/LTO (fast build); no ensurepip.
rm -rf "$prefix"
(
	cd "$srcdir" &&
	./configure --prefix="$prefix" --with-ensurepip=no \
		--without-static-libpython \
		CFLAGS="-O2 -g $fpflags" LDFLAGS="-Wl,-rpath,$prefix/lib" &&
	make -j"$jobs" &&
	make install
) >>"$log" 2>&1 || fail "build"

has_flags || fail "installed interpreter lacks the frame-pointer flags"
rm -rf "$build"
end=$(date +%s)
echo "fp-python: built $("$py" -c 'import sys; print(sys.version.split()[0])') (Debian $got) with frame pointers at $py in $((end - start)) s"
