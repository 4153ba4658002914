#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Regenerate lib/report/pprof.pb-c.c and pprof.pb-c.h from pprof.proto
# with protoc-c (Debian: protobuf-c-compiler), each with our SPDX line
# first.  The generated files are committed, so building needs only
# libprotobuf-c.  Usage: gen-pprof.sh [DIR] (a directory holding
# pprof.proto; default: lib/report/).
set -e
cd "${1:-$(dirname "$0")/..}"
protoc-c --c_out=. pprof.proto
for f in pprof.pb-c.c pprof.pb-c.h; do
	{ echo '/* SPDX-License-Identifier: GPL-2.0-only */'; cat "$f"; } >"$f.tmp"
	mv "$f.tmp" "$f"
done
