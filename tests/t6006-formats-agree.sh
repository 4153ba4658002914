#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time: about 2 minutes on a loaded 2-core machine (110-155 s here, for
# 16-22 s of CPU), 1 s of it recording: each format is read by the tool
# users read it with, two chromium sessions (html, svg), node with ajv on
# speedscope's schema and go tool pprof, whose start-ups are the rest.
test_description='one recorded session in every format: the shares of the
Python functions agree'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

funcs="alpha beta Gamma.inner"

test_expect_success SESSION 'record a session and report every format' '
	flame_session sess 0.3 &&
	formats="collapsed json html svg speedscope" &&
	if test_have_prereq PPROF; then formats="$formats pprof"; fi &&
	for f in $formats; do
		ppr report -i sess --format $f -o prof.$f || return 1
	done &&
	ppr report -i sess >prof.text
'

# share of $1 (percent; 3 decimals in collapsed, the reference) in each format, one "FORMAT SHARE" line
test_expect_success SESSION 'collapsed' '
	for f in $funcs; do
		echo "$f $(flame_collapsed_share "^$f \\(.*prog.py\\)\$" prof.collapsed)"
	done >collapsed.shares &&
	cat collapsed.shares &&
	while read f s; do
		flame_close "$s" 33 12 || return 1
	done <collapsed.shares
'

check() {
	while read f s; do
		want=$(awk -v f="$f" "\$1 == f { print \$2 }" collapsed.shares)
		echo "$f: $1 $s, collapsed $want"
		flame_close "$s" "$want" "$2" || return 1
	done <"$1.shares"
}

test_expect_success SESSION 'json (total_share)' '
	for f in $funcs; do
		node -e "
			const d = require(\"./prof.json\");
			const fn = d.functions.find((x) => x.function === \"$f\" &&
				/prog\\.py\$/.test(x.file));
			console.log(\"$f\", (100 * fn.total_share).toFixed(1));
		" || return 1
	done >json.shares &&
	check json 0.11
'

test_expect_success SESSION 'text report (Total%)' '
	for f in $funcs; do
		awk -v f="$f" "/by total/ { t = 1 }
			t && \$4 == f && \$1 ~ /%\$/ { sub(/%/, \"\", \$1); print f, \$1; exit }" \
			prof.text || return 1
	done >text.shares &&
	test $(wc -l <text.shares) = 3 &&
	check text 0.11
'

test_expect_success SESSION,AJV 'speedscope' '
	for f in $funcs; do
		flame_speedscope prof.speedscope "^$f\$" >out &&
		test "$(flame_kv valid out)" = true &&
		echo "$f $(flame_kv share out)" || return 1
	done >speedscope.shares &&
	check speedscope 0.1
'

test_expect_success SESSION,PPROF,GO_PPROF 'pprof (go tool pprof -top cum%)' '
	go tool pprof -top -nodecount=1000 prof.pprof >top 2>err &&
	for f in $funcs; do
		awk -v f="$f" "\$6 == f { sub(/%/, \"\", \$5); print f, \$5; exit }" top
	done >pprof.shares &&
	test $(wc -l <pprof.shares) = 3 &&
	check pprof 0.06
'

test_expect_success SESSION,CHROMIUM 'html (search: matched share)' '
	flame_browser html prof.html --search "^alpha " --search "^beta " \
		--search "^Gamma\\.inner " >h &&
	! grep -E "^(request|pageerror|console_error|error)=" h &&
	sed -n "s/^matched_for=^\\([^ ]*\\) |Matched: \\([0-9.]*\\)%.*/\\1 \\2/p" h |
		sed "s/\\\\//" >html.shares &&
	test $(wc -l <html.shares) = 3 &&
	check html 0.06
'

test_expect_success SESSION,CHROMIUM 'svg (search: matched share)' '
	flame_browser svg prof.svg --search "^alpha " --search "^beta " \
		--search "^Gamma\\.inner " >s &&
	! grep -E "^(request|pageerror|console_error|error)=" s &&
	sed -n "s/^matched_for=^\\([^ ]*\\) |Matched: \\([0-9.]*\\)%.*/\\1 \\2/p" s |
		sed "s/\\\\//" >svg.shares &&
	test $(wc -l <svg.shares) = 3 &&
	check svg 0.06
'

test_done
