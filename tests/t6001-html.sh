#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report --format html: an interactive flame graph that
opens offline in Chromium'
. ./test-lib.sh

# Which subtests use none or only some of the ones before them, for
# make sanitize-set (tests/sanitize-set.py; numbered as the sanitizer
# pass runs them):
# sanitize-set: alone 1,8,10-11
# sanitize-set: 2-6 needs 1
# sanitize-set: 7 needs 2
# sanitize-set: 9 needs 8
# sanitize-set: 12-15 needs 11
. "$TEST_DIR/lib-flame.sh"

# --- a synthetic profile: every kind of frame -------------------------------
test_expect_success 'html of a synthetic profile' '
	flame_synth 300 html >small.html &&
	test_grep "^<!DOCTYPE html>" small.html &&
	! grep -E "(src|href)=\"|https?://" small.html
'

test_expect_success CHROMIUM 'it renders in Chromium without a request' '
	flame_browser html small.html --zoom "mod1.func_1 (/src/pkg/mod1.py)" \
		--search "\\.func_3 " --hover "mod0.func_0 (/src/pkg/mod0.py)" \
		--inverted >out &&
	! grep -E "^(request|pageerror|console_error|error)=" out &&
	test_grep "^label=mod0.func_0 \(/src/pkg/mod0.py\)$" out &&
	test_grep "^legend=.*Python .*libpython .*C extension .*system library .*kernel" out &&
	test_grep "^header=.*python3.13 synthetic.py.*mode.*jit.*Python 3.13.0.*samples" out
'

test_expect_success CHROMIUM 'a click zooms, reset zooms out' '
	test "$(flame_kv zoomed out)" = "mod1.func_1 (/src/pkg/mod1.py)" &&
	flame_close "$(flame_kv width_after out)" 1 0.01 &&
	awk -v w="$(flame_kv width_before out)" "BEGIN { exit !(w < 0.6) }" &&
	test_grep "^crumbs=Zoomed: .*mod1.func_1" out &&
	test "$(flame_kv zoomed_after_reset out)" = null
'

test_expect_success CHROMIUM 'hovering shows name, file, samples and shares' '
	test_grep "^tooltip=mod0.func_0 \(/src/pkg/mod0.py\)kind Pythonfile /src/pkg/mod0.pysamples [0-9,]+ \(100.0% of all\)" out &&
	test "$(flame_kv tooltip_visible out)" = true
'

test_expect_success CHROMIUM 'a search highlights and shows the matched share' '
	test_grep "^matched=Matched: [0-9.]+% \([0-9,]+ samples\)" out &&
	test_grep "^highlighted=mod3.func_3 " out &&
	! grep "^highlighted=" out | grep -v "func_3 "
'

test_expect_success CHROMIUM 'the inverted view puts leaf functions first' '
	test "$(flame_kv inverted out)" = true &&
	test_grep "^inv_label=" out
'

# --- warnings and the first screen ---------------------------------------------
test_expect_success CHROMIUM 'no warnings: no banner' '
	! grep "^warning=" out &&
	test "$(flame_kv warnings_in_view out)" = false
'

test_expect_success CHROMIUM 'warnings: a banner on the first screen with each' '
	flame_synth 300 html sliver warn >warn.html &&
	flame_browser html warn.html --viewport 1400x900 --in-view all \
		--in-view "main (/src/app.py)" --first-screen warn.png >w &&
	! grep -E "^(request|pageerror|console_error|error)=" w &&
	test "$(grep -c "^warning=" w)" = 2 &&
	test_grep "^warning=30% of the samples have incomplete stacks \(<cut> at \"depth\"\)$" w &&
	test_grep "^warning=12 damaged map records were dropped & not shown$" w &&
	test "$(flame_kv warnings_in_view w)" = true
'

# 3 % of the samples 70 frames deep used to set the canvas height, and
# the root and main() opened below the fold.
test_expect_success CHROMIUM 'a deep sliver leaves the root and main in view at 1400x900' '
	test_grep "^in_view=all\|true$" w &&
	test_grep "^in_view=main \(/src/app.py\)\|true$" w &&
	flame_synth 300 html sliver inverted >inv-sliver.html &&
	flame_browser html inv-sliver.html --viewport 1400x900 \
		--in-view "all (leaf functions above)" >iw &&
	test_grep "^in_view=all \(leaf functions above\)\|true$" iw
'

# --- 100k distinct stacks ---------------------------------------------------
test_expect_success CHROMIUM 'stays responsive with 100k distinct stacks' '
	flame_synth 100000 html >big.html &&
	size=$(wc -c <big.html) &&
	flame_browser html big.html --zoom "mod2.func_2 (/src/pkg/mod2.py)" \
		--search "^kernel_fn_1\$" --inverted >big &&
	! grep -E "^(request|pageerror|error)=" big &&
	nodes=$(flame_kv nodes big) && test "$nodes" -gt 1000000 &&
	echo "# 100k stacks: $size bytes, $nodes nodes, render $(flame_kv render_ms big) ms, zoom $(flame_kv zoom_ms big) ms, search $(flame_kv search_ms big) ms, inverted $(flame_kv inverted_ms big) ms" >measure &&
	test "$(flame_kv render_ms big)" -lt 20000 &&
	test "$(flame_kv zoom_ms big)" -lt 3000 &&
	test "$(flame_kv zoomed big)" = "mod2.func_2 (/src/pkg/mod2.py)" &&
	test_grep "^matched=Matched: " big
'
test -f measure && cat measure

# --- a real session -----------------------------------------------------------
test_expect_success SESSION 'record a session' '
	flame_session sess 0.3
'

test_expect_success SESSION 'report --format html -o FILE' '
	ppr report -i sess --format html -o prof.html &&
	test_grep "\"titleCode\":\"[^\"]*prog.py 0.3\"" prof.html
'

test_expect_success SESSION,CHROMIUM '--inverted starts bottom-up; --title' '
	ppr report -i sess --inverted --title "My <app>" --format html \
		-o inv.html &&
	flame_browser html inv.html >inv &&
	test "$(flame_kv start_inverted inv)" = true &&
	test "$(flame_kv title inv)" = "My <app>" &&
	test_grep "^inv_label=|^label=spin \(" inv
'

test_expect_success SESSION '--per-thread: a frame per thread under the root' '
	ppr report -i sess --per-thread --format html -o thr.html &&
	test_grep "\"python3.13-[0-9]+/[0-9]+\"" thr.html
'

# Python records the script's path as it ran it: take the names from the
# collapsed output.
fname() {
	grep -o "$1 ([^)]*prog.py)" c | head -n 1
}

test_expect_success SESSION,CHROMIUM 'the recorded profile names its functions' '
	ppr report -i sess --format collapsed >c &&
	alpha=$(fname alpha) && gamma=$(fname Gamma.inner) &&
	flame_browser html prof.html --zoom "$alpha" --search "^beta " \
		--hover "$gamma" >real &&
	! grep -E "^(request|pageerror|console_error|error)=" real &&
	test_grep "^label=main \(.*prog.py\)$" real &&
	test_grep "^label=alpha \(.*prog.py\)$" real &&
	test_grep "^label=beta \(.*prog.py\)$" real &&
	test_grep "^label=Gamma.inner \(.*prog.py\)$" real &&
	test "$(flame_kv zoomed real)" = "$alpha" &&
	test_grep "^tooltip=Gamma.inner \(.*prog.py\)kind Pythonfile .*prog.pysamples [0-9,]+ \([0-9.]+% of all\)" real &&
	test_grep "^header=.*mode.*jit.*Python 3.13" real
'

test_expect_success SESSION,CHROMIUM 'the matched share is the share of the function' '
	want=$(flame_collapsed_share "^beta \\(.*prog.py\\)\$" c) &&
	got=$(flame_kv matched real | sed "s/Matched: \([0-9.]*\)%.*/\1/") &&
	flame_close "$got" "$want" 0.1 &&
	flame_close "$got" 33 12
'

test_done
