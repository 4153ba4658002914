#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# libperf.sh: build libperf (tools/lib/perf) and the libapi it needs
# (tools/lib/api) from the linux-source-6.12 tree that perf-6.12.sh
# extracts, for `pyperf-run top`.  Debian 12 ships neither.
#
# Installs into $CACHE/libperf (CACHE is ${PYPERF_CACHE:-$HOME/.cache/pyperf-run}):
#   include/perf/*.h          libperf's public headers
#   lib/libperf.a lib/libapi.a
#   lib/pkgconfig/libperf.pc  prefix=$CACHE/libperf, Libs: -lperf -lapi
# which ./configure finds by itself (or: --with-libperf=$CACHE/libperf).
#
# libperf's own install step is not used: it does not copy libapi.a,
# which libperf.a needs, and its libperf.pc takes its paths from the
# build's prefix= and omits -lapi.  The libraries are built static only.
#
# Idempotent: nothing is done when the installed libraries exist and
# were built from the current tree (a stamp names the source stamp of
# perf-6.12.sh's extraction).  When the tree is missing, perf-6.12.sh
# runs first (it extracts the tree; it is idempotent, and .ci/install
# --tests runs it anyway).  The build log goes to $CACHE/libperf-build.log.
#
# Knobs: PYPERF_CACHE, LIBPERF_FORCE=1 (rebuild).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${PYPERF_CACHE:-$HOME/.cache/pyperf-run}
src=$cache/perf-6.12/src
dest=$cache/libperf
log=$cache/libperf-build.log
srcstamp=$src/.pyperf-extracted
stamp=$dest/.pyperf-built

fail() {
	echo "libperf: FAILED ($1); see $log" >&2
	test -f "$log" && tail -n 20 "$log" >&2
	exit 1
}

# The tree: perf-6.12.sh extracts it (and writes its stamp last, so a
# half-extracted tree has none).
if ! test -f "$srcstamp"; then
	echo "libperf: no kernel tree in $src; running perf-6.12.sh to extract it"
	bash "$here/perf-6.12.sh" || fail "perf-6.12.sh"
fi
test -f "$srcstamp" || fail "perf-6.12.sh left no tree in $src"
want="source $(cat "$srcstamp")"

if test "${LIBPERF_FORCE:-}" != 1 && test -f "$stamp" &&
   test "$(cat "$stamp")" = "$want" &&
   test -f "$dest/lib/libperf.a" && test -f "$dest/lib/libapi.a" &&
   test -f "$dest/include/perf/evlist.h" &&
   test -f "$dest/lib/pkgconfig/libperf.pc"; then
	echo "libperf: $dest already built"
	exit 0
fi

mkdir -p "$cache"
: >"$log"
start=$(date +%s)
out=$(mktemp -d "$cache/libperf-build.XXXXXX")
trap 'rm -rf "$out"' EXIT

# O= keeps the objects out of the shared tree.  libperf's Makefile builds
# libapi.a into the same O= directory when it builds the shared library;
# the static library alone does not, so libapi is asked for explicitly.
# EXTRA_CFLAGS: the kernel's warning set is strict (-Werror) and stays.
for lib in perf api; do
	target=
	test "$lib" = perf && target=libperf.a
	test "$lib" = api && target=libapi.a
	echo "=== make -C tools/lib/$lib O=$out/ $target" >>"$log"
	env -u MAKEFLAGS make -C "$src/tools/lib/$lib" O="$out/" \
		"$out/$target" >>"$log" 2>&1 ||
		fail "building $target"
done
test -f "$out/libperf.a" && test -f "$out/libapi.a" ||
	fail "the build left no libperf.a or libapi.a in $out"

# Install into a fresh directory next to the final one, then swap, so an
# interrupted run never leaves a half-installed $dest.
new=$dest.new
rm -rf "$new"
mkdir -p "$new/lib/pkgconfig" "$new/include/perf"
install -m 644 "$out/libperf.a" "$out/libapi.a" "$new/lib/"
install -m 644 "$src"/tools/lib/perf/include/perf/*.h "$new/include/perf/"
version=$(sed -n -e 's/^LIBPERF_VERSION = //p' -e 's/^LIBPERF_PATCHLEVEL = //p' \
	-e 's/^LIBPERF_EXTRAVERSION = //p' "$src/tools/lib/perf/Makefile" |
	paste -sd.)
cat >"$new/lib/pkgconfig/libperf.pc" <<PC
# Written by pyperf-run's .ci/setup.d/libperf.sh: static libperf from
# linux-source-6.12 ($want), with the libapi it needs.
prefix=$dest
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: libperf
Description: perf library (static, from linux-source-6.12)
Version: ${version:-0.0.1}
Libs: -L\${libdir} -lperf -lapi
Cflags: -I\${includedir}
PC
printf '%s\n' "$want" >"$new/.pyperf-built"
rm -rf "$dest"
mv "$new" "$dest"
echo "libperf: built libperf.a and libapi.a into $dest in $(($(date +%s) - start)) s"
