#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What the report-format tests (t6xxx) drive:
# Debian's chromium-headless-shell (from .ci/apt-packages-tests) through playwright-core, ajv
# and speedscope's file-format schema (tests/package.json, installed
# into tests/node_modules with `npm ci`), and `go tool pprof` (Debian's
# golang-go, also from .ci/apt-packages).  Idempotent: does nothing when
# tests/node_modules already matches tests/package-lock.json.
set -euo pipefail
tests=$(cd "$(dirname "$0")/../../tests" && pwd)

for cmd in chromium-headless-shell go node npm; do
	command -v "$cmd" >/dev/null ||
		echo "browser.sh: warning: '$cmd' is not installed" >&2
done

stamp=$tests/node_modules/.pyperf-lock
if test -f "$stamp" && cmp -s "$stamp" "$tests/package-lock.json"; then
	exit 0
fi
cd "$tests"
# Never download a browser of its own: we use Debian's.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund \
	--loglevel=error
cp package-lock.json "$stamp"
