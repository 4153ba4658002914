#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report --format svg: a FlameGraph-style SVG that works
when opened directly in Chromium'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

test_expect_success 'svg of a synthetic profile' '
	flame_synth 300 svg >small.svg &&
	sed -n 2p small.svg | grep "^<svg " &&
	tail -n 1 small.svg | grep "^</svg>$" &&
	! grep -E "(src|href)=\"" small.svg
'

test_expect_success CHROMIUM 'it renders in Chromium: title, frames, legend' '
	flame_browser svg small.svg --zoom "mod1.func_1 (/src/pkg/mod1.py)" \
		--search "^kernel_fn" >out &&
	! grep -E "^(request|pageerror|console_error|error)=" out &&
	test "$(flame_kv title out)" = "Flame graph" &&
	test_grep "^subtitle=command: python3.13 synthetic.py" out &&
	test_grep "^label=mod0.func_0 \(/src/pkg/mod0.py\)$" out &&
	test "$(flame_kv frames out)" -gt 1000
'

test_expect_success CHROMIUM 'a click zooms the frame to the full width' '
	test "$(flame_kv zoomed out)" = "mod1.func_1 (/src/pkg/mod1.py)" &&
	awk -v a="$(flame_kv width_before out)" -v b="$(flame_kv width_after out)" \
		"BEGIN { exit !(a < 700 && b > 1170) }" &&
	test "$(flame_kv unzoom_visible out)" = true &&
	test "$(flame_kv zoomed_after_reset out)" = null
'

test_expect_success CHROMIUM 'a search highlights and shows the matched share' '
	test_grep "^matched=Matched: [0-9.]+%$" out &&
	test "$(flame_kv highlighted out)" -gt 0
'

test_expect_success CHROMIUM 'warnings: a visible line each under the title' '
	flame_synth 300 svg warn >warn.svg &&
	flame_browser svg warn.svg >w &&
	! grep -E "^(request|pageerror|console_error|error)=" w &&
	test "$(grep -c "^warning=" w)" = 2 &&
	test_grep "^warning=.* warning: 30% of the samples have incomplete stacks \(<cut> at \"depth\"\)\|true$" w &&
	test_grep "^warning=.* warning: 12 damaged map records were dropped & not shown\|true$" w &&
	! grep "^warning=" out
'

test_expect_success 'inverted: an icicle graph' '
	flame_synth 50 svg inverted >inv.svg &&
	test_grep "<text id=\"title\"[^>]*>Icicle graph" inv.svg
'

test_expect_success 'big profiles stay small: frames under 0.1 px are left out' '
	flame_synth 20000 svg >big.svg &&
	n=$(grep -c "<g class=\"f\"" big.svg) &&
	size=$(wc -c <big.svg) &&
	echo "# 20k stacks: $n frames drawn, $size bytes" >measure &&
	test "$n" -lt 60000
'
test -f measure && cat measure

test_expect_success SESSION 'record a session' '
	flame_session sess 0.3 &&
	ppr report -i sess --format collapsed >c &&
	ppr report -i sess --format svg -o prof.svg
'

test_expect_success SESSION,CHROMIUM 'the recorded profile: names, zoom, search share' '
	alpha=$(grep -o "alpha ([^)]*prog.py)" c | head -n 1) &&
	flame_browser svg prof.svg --zoom "$alpha" --search "^beta " >real &&
	! grep -E "^(request|pageerror|console_error|error)=" real &&
	test_grep "^label=alpha \(.*prog.py\)$" real &&
	test_grep "^label=Gamma.inner \(.*prog.py\)$" real &&
	test "$(flame_kv zoomed real)" = "$alpha" &&
	want=$(flame_collapsed_share "^beta \\(.*prog.py\\)\$" c) &&
	got=$(flame_kv matched real | sed "s/Matched: \([0-9.]*\)%.*/\1/") &&
	flame_close "$got" "$want" 0.1
'

test_done
