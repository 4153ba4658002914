#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report --diff OLD NEW: what got slower or faster'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

test_expect_success 'a synthetic diff: difffolded lines' '
	flame_synth 300 diff-collapsed >d &&
	test $(wc -l <d) -ge 300 &&
	! grep -v -E "^[^ ].* [0-9]+ [0-9]+$" d
'

test_expect_success CHROMIUM 'a synthetic diff as html renders' '
	flame_synth 300 diff-html >d.html &&
	flame_browser html d.html --hover "mod2.func_2 (/src/pkg/mod2.py)" >out &&
	! grep -E "^(request|pageerror|console_error|error)=" out &&
	test_grep "^legend=more samples in NEW.*fewer samples in NEW" out &&
	test_grep "^tooltip=mod2.func_2 .*old [0-9,]+ \([0-9.]+%\)change \+[0-9.]+ points" out
'

test_expect_success SESSION 'record two sessions: alpha doubles, Gamma.inner halves' '
	flame_session old 0.2 1 1 1 &&
	flame_session new 0.2 2 1 0.5 &&
	ppr report -i old --format collapsed >old.c &&
	ppr report -i new --format collapsed >new.c
'

test_expect_success SESSION 'report --diff --format collapsed' '
	ppr report --diff old new --format collapsed >d &&
	! grep -v -E "^[^ ].* [0-9]+ [0-9]+$" d &&
	test "$(awk "{ n += \$(NF - 1) } END { print n }" d)" = \
		"$(awk "{ n += \$NF } END { print n }" old.c)" &&
	test "$(awk "{ n += \$NF } END { print n }" d)" = \
		"$(awk "{ n += \$NF } END { print n }" new.c)"
'

# share (percent) of stacks through $1 in column $2 (1: old, 2: new)
diff_share() {
	awk -v re="$1" -v col="$2" "{
		n = col == 1 ? \$(NF - 1) : \$NF; t += n
		line = \$0; sub(/ [0-9]+ [0-9]+\$/, \"\", line)
		k = split(line, fr, \";\")
		for (i = 1; i <= k; i++) if (fr[i] ~ re) { h += n; break }
	} END { printf \"%.1f\n\", 100 * h / t }" d
}

test_expect_success SESSION 'the diff shows alpha slower and Gamma.inner faster' '
	a_old=$(diff_share "^alpha " 1) && a_new=$(diff_share "^alpha " 2) &&
	g_old=$(diff_share "^Gamma.inner " 1) &&
	g_new=$(diff_share "^Gamma.inner " 2) &&
	echo "alpha $a_old -> $a_new, Gamma.inner $g_old -> $g_new" &&
	awk -v a="$a_old" -v b="$a_new" "BEGIN { exit !(b > a + 10) }" &&
	awk -v a="$g_old" -v b="$g_new" "BEGIN { exit !(b < a - 10) }" &&
	flame_close "$a_old" "$(flame_collapsed_share "^alpha " old.c)" 0.1 &&
	flame_close "$a_new" "$(flame_collapsed_share "^alpha " new.c)" 0.1
'

test_expect_success SESSION 'report --diff --format html' '
	ppr report --diff old new --format html -o d.html &&
	test_grep "\"diff\":1," d.html
'

test_expect_success SESSION,CHROMIUM 'the differential flame graph in Chromium' '
	alpha=$(grep -o "alpha ([^)]*prog.py)" new.c | head -n 1) &&
	flame_browser html d.html --hover "$alpha" --zoom "$alpha" >real &&
	! grep -E "^(request|pageerror|console_error|error)=" real &&
	test_grep "^tooltip=alpha .*old [0-9,]+ \([0-9.]+%\)change \+[0-9.]+ points of all samples" real &&
	test "$(flame_kv zoomed real)" = "$alpha"
'

test_expect_success SESSION 'report --diff refuses other formats' '
	test_expect_code 2 ppr report --diff old new --format pprof 2>err ||
	test_must_fail ppr report --diff old new --format pprof 2>err
'

test_done
