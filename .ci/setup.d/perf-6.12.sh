#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# perf-6.12.sh: build perf 6.12 from Debian's linux-source-6.12 in two
# variants for the perf-matrix tests (t8xxx and the record/report tests
# that loop over tests/test-lib.sh's ppr_perfs):
#   $CACHE/perf-6.12/libunwind/perf  DWARF unwinding with libunwind
#   $CACHE/perf-6.12/libdw/perf      NO_LIBUNWIND=1: DWARF unwinding
#                                    with libdw (what Fedora ships)
# where CACHE is ${PYPERF_CACHE:-$HOME/.cache/pyperf-run}.
#
# Only the part of the kernel tree perf's build reads is extracted (into
# $CACHE/perf-6.12/src, kept so that tools/lib/perf can be built from it
# later); each variant builds in its own output directory (O=), removed
# once its binary is installed.  Idempotent: a variant whose binary runs
# `perf version --build-options` is not rebuilt.  The build log goes to
# $CACHE/perf-6.12-build.log; one summary line per variant is printed.
#
# Knobs: PYPERF_CACHE, PERF_612_JOBS (make -j, default 2),
#        PERF_612_FORCE=1 (rebuild both variants).
set -euo pipefail

cache=${PYPERF_CACHE:-$HOME/.cache/pyperf-run}
top=$cache/perf-6.12
src=$top/src
log=$cache/perf-6.12-build.log
jobs=${PERF_612_JOBS:-2}
tarball=/usr/src/linux-source-6.12.tar.xz

SUDO=
if test "$(id -u)" != 0; then
	SUDO=sudo
fi

# works VARIANT: the cached binary exists and runs.
works() {
	local p=$top/$1/perf
	test -x "$p" && "$p" version --build-options >/dev/null 2>&1
}

# unwinder_ok VARIANT: the binary was built with the unwinder of VARIANT.
unwinder_ok() {
	local opts
	opts=$("$top/$1/perf" version --build-options 2>/dev/null) || return 1
	case $1 in
	libunwind)
		printf '%s\n' "$opts" | grep -Eq 'libunwind: +\[ on'
		;;
	libdw)
		printf '%s\n' "$opts" | grep -Eq 'libunwind: +\[ OFF' &&
			printf '%s\n' "$opts" | grep -Eq 'libdw-dwarf-unwind: +\[ on'
		;;
	esac
}

todo=
for v in libunwind libdw; do
	if test "${PERF_612_FORCE:-}" = 1 || ! works "$v" || ! unwinder_ok "$v"
	then
		todo="$todo $v"
	else
		echo "perf-6.12: $top/$v/perf already built ($("$top/$v/perf" version 2>/dev/null))"
	fi
done
test -n "$todo" || exit 0

mkdir -p "$top"
: >"$log"
fail() {
	echo "perf-6.12: FAILED ($1); see $log" >&2
	tail -n 20 "$log" >&2
	exit 1
}

# 1. The kernel source and what perf's build needs (flex and bison are
#    required; libelf/libdw/libunwind for the two unwinders;
#    libtraceevent because 6.12 refuses to build without it unless told;
#    python3-dev comes from .ci/apt-packages).
deps="linux-source-6.12 build-essential flex bison pkg-config \
libelf-dev libdw-dev libunwind-dev libtraceevent-dev libzstd-dev \
libcap-dev zlib1g-dev liblzma-dev"
want=
for p in $deps; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || want="$want $p"
done
if test -n "$want"; then
	if ! apt-cache show linux-source-6.12 >/dev/null 2>&1; then
		$SUDO apt-get update -qq -o DPkg::Lock::Timeout=900 >>"$log" 2>&1 ||
			fail "apt-get update"
	fi
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		-o DPkg::Lock::Timeout=900 \
		--no-install-recommends $want >>"$log" 2>&1 ||
		fail "apt-get install$want"
fi
test -f "$tarball" || fail "no $tarball"

# 2. The minimal tree.  A stamp names the tarball it came from, so a new
#    linux-source-6.12 upload re-extracts.
stamp=$src/.pyperf-extracted
tarid=$(stat -c '%s %Y' "$tarball")
if ! test -f "$stamp" || test "$(cat "$stamp")" != "$tarid"; then
	start=$(date +%s)
	rm -rf "$src"
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1 \
		--wildcards \
		'linux-source-6.12/tools' \
		'linux-source-6.12/Makefile' \
		'linux-source-6.12/arch/x86/Makefile' \
		'linux-source-6.12/arch/arm64/tools/gen-sysreg.awk' \
		'linux-source-6.12/arch/arm64/tools/sysreg' \
		'linux-source-6.12/scripts/Kbuild.include' \
		'linux-source-6.12/scripts/Makefile.extrawarn' \
		'linux-source-6.12/scripts/subarch.include' \
		'linux-source-6.12/scripts/bpf_doc.py' \
		>>"$log" 2>&1 || fail "extracting $tarball"
	printf '%s\n' "$tarid" >"$stamp"
	echo "perf-6.12: extracted the minimal tree into $src in $(($(date +%s) - start)) s"
fi

# 3. Each variant in its own output directory.  PYTHON pins the system
#    interpreter: with pyenv on PATH perf would link pyenv's libpython.
for v in $todo; do
	start=$(date +%s)
	out=$top/$v/build
	rm -rf "$out" "$top/$v/perf"
	mkdir -p "$out"
	extra=
	test "$v" = libdw && extra=NO_LIBUNWIND=1
	echo "=== $v: make -C tools/perf O=$out NO_LIBPERL=1 BUILD_BPF_SKEL=0 $extra" >>"$log"
	# shellcheck disable=SC2086
	env -u MAKEFLAGS -u PYTHONPATH make -C "$src/tools/perf" -j"$jobs" \
		O="$out" NO_LIBPERL=1 BUILD_BPF_SKEL=0 \
		PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config \
		$extra >>"$log" 2>&1 || fail "building the $v variant"
	install -m 755 "$out/perf" "$top/$v/perf"
	# the objects are ~120 MB a variant and nothing runs from them
	rm -rf "$out"
	works "$v" || fail "$top/$v/perf does not run 'perf version --build-options'"
	unwinder_ok "$v" || fail "$top/$v/perf was built with the wrong unwinder"
	echo "perf-6.12: built $("$top/$v/perf" version) ($v) at $top/$v/perf in $(($(date +%s) - start)) s"
done
