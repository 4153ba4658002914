#!/bin/sh
# Regenerate lib/pprof.pb-c.c and lib/pprof.pb-c.h from lib/pprof.proto
# with protoc-c (Debian: protobuf-c-compiler).  Owned by the flame helper.
# The generated files are committed, so building needs only libprotobuf-c.
set -e
cd "$(dirname "$0")/.."
protoc-c --c_out=. pprof.proto
