#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='generated sources of the report formats are up to date'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

src=$PPR_SRCDIR/lib/report

test_expect_success 'lib/report/flame_assets.h matches lib/report/flame/*' '
	sh "$src/flame/gen-assets.sh" "$TRASH/assets.h" &&
	test_cmp "$src/flame_assets.h" "$TRASH/assets.h"
'

test_prereq_PROTOC_C() {
	command -v protoc-c >/dev/null ||
		{ echo "protoc-c is not installed (apt-get install protobuf-c-compiler)"; return 1; }
}

test_expect_success PROTOC_C 'lib/report/pprof.pb-c.[ch] match lib/report/pprof.proto' '
	mkdir gen &&
	cp "$src/pprof.proto" gen/ &&
	sh "$src/flame/gen-pprof.sh" gen &&
	test_cmp "$src/pprof.pb-c.c" gen/pprof.pb-c.c &&
	test_cmp "$src/pprof.pb-c.h" gen/pprof.pb-c.h
'

test_expect_success NODE 'the page and SVG scripts parse' '
	node --check "$src/flame/flame.js" &&
	node --check "$src/flame/flame-svg.js"
'

test_expect_success 'the page loads nothing from the network' '
	! grep -n -E "(src|href)=|@import|url\\(|https?://" \
		"$src/flame/flame.html" "$src/flame/flame.css" \
		"$src/flame/flame.js"
'

test_done
