#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# doctor and record name the package holding the debug symbols of
# Debian's stripped python3 (its code shows as [python3.11] without
# them), proved by the interpreter's build-id.  What they say is checked
# against the same facts found here with readelf, dpkg, apt-cache show
# (Build-Ids per version) and apt-get -s, so the test holds whether the
# debug file is installed, a package lists the build-id, the debug
# package exists only for another version of the interpreter, or none.
test_description='doctor, record: the package of the interpreter'"'"'s debug symbols'
. ./test-lib.sh

# DEBIAN_PY: Debian's /usr/bin/python3, from a package dpkg knows, and
# apt to ask.  $EXE: its real path, $BID: its build-id, $OWNER: its
# package.
test_prereq_DEBIAN_PY() {
	for c in readelf dpkg dpkg-query apt-cache apt-get; do
		command -v $c >/dev/null || { echo "no $c (not Debian?)"; return 1; }
	done
	test -x /usr/bin/python3 || { echo "no /usr/bin/python3"; return 1; }
	EXE=$(readlink -f /usr/bin/python3)
	BID=$(readelf -n "$EXE" | sed -n 's/.*Build ID: //p')
	test -n "$BID" || { echo "$EXE has no build-id"; return 1; }
	OWNER=$(dpkg -S "$EXE" 2>/dev/null | grep -v '^diversion by' |
		sed -n "s|: $EXE\$||p" | sed 's/,.*//' | head -n 1)
	test -n "$OWNER" || { echo "no package owns $EXE"; return 1; }
}

# What apt and dpkg say, found here: $VERDICT (symtab, installed,
# available, other_version, none), and $PKG, $VER, $UPGRADE, $INSTALL as
# they apply, also written to expect.env for the later tests (each body
# runs in a subshell).
expect() {
	expect_ &&
	cat >expect.env <<-EOF
	VERDICT='$VERDICT' PKG='$PKG' VER='$VER' UPGRADE='$UPGRADE'
	INSTALL='$INSTALL' dbgfile='$dbgfile'
	EOF
}

expect_() {
	VERDICT= PKG= VER= UPGRADE= INSTALL=
	dbgfile=/usr/lib/debug/.build-id/$(echo "$BID" | cut -c1-2)/$(echo "$BID" | cut -c3-).debug
	if readelf -S -W "$EXE" | grep -q ' \.symtab '; then
		VERDICT=symtab
		return 0
	fi
	if test -r "$dbgfile"; then
		VERDICT=installed
		return 0
	fi
	name=${OWNER%%:*}
	src=$(dpkg-query -W -f='${source:Package}' "$OWNER") &&
	over=$(dpkg-query -W -f='${Version}' "$OWNER") || return 1
	# every version of each candidate whose Build-Ids lists $BID
	: >listed && : >known &&
	for cand in $name-dbgsym $src-dbg $name-dbg; do
		LC_ALL=C apt-cache show "$cand" 2>/dev/null >show.$cand || :
		awk -v id="$BID" -v c="$cand" '
			/^Version:/ { v = $2 }
			/^Build-Ids:/ { for (i = 2; i <= NF; i++) if ($i == id) print c, v }
		' show.$cand >>listed
		grep -q '^Version:' show.$cand && echo "$cand" >>known
	done
	echo "listed: $(cat listed)"
	if test -s listed; then
		VERDICT=available
		read -r PKG VER <listed
		if test "$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$PKG" 2>/dev/null)" = "ii $VER"; then
			INSTALL="apt-get install --reinstall $PKG"
		elif LC_ALL=C apt-get -s install "$PKG=$VER" >/dev/null 2>&1; then
			INSTALL="apt-get install $PKG=$VER"
		fi
		return 0
	fi
	VERDICT=none
	PKG=$(head -n 1 known)
	test -n "$PKG" || return 0
	LC_ALL=C apt-get -s install "$PKG" >sim 2>&1 || return 0
	UPGRADE=$(sed -n "s/^Inst $name\(:[a-z0-9]*\)\? \[[^]]*\] (\([^ )]*\).*/\2/p" sim)
	if test -n "$UPGRADE" && test "$UPGRADE" != "$over"; then
		VERDICT=other_version
		VER=$(sed -n "s/^Inst $PKG\(:[a-z0-9]*\)\? \(\[[^]]*\] \)\?(\([^ )]*\).*/\3/p" sim)
		INSTALL="apt-get install $PKG"
	fi
}

# The debug_package object of $EXE's symbols entry in doctor's JSON.
debug_package() {
	python3 - "$1" "$EXE" <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	for y in d["python"]["symbols"]:
	    if y["path"] == sys.argv[2]:
	        print(json.dumps(y["debug_package"]))
	        print(y["build_id"], file=open("json.bid", "w"))
	        for c in d["checks"]:
	            if c["id"] == "python.symbols" and sys.argv[2] + " " in c["text"] + " ":
	                print(c["fix"] or "", file=open("json.fix", "w"))
	PY
}

# $1 as an extended regular expression matching itself.
re() {
	printf '%s' "$1" | sed 's/[][\\.*^$+?(){}|]/\\&/g'
}

dp_get() {
	python3 -c 'import json, sys; v = json.load(open(sys.argv[1]))[sys.argv[2]]; print("" if v is None else v)' "$1" "$2"
}

XDG_CACHE_HOME=$TRASH/cache
export XDG_CACHE_HOME

test_expect_success DEBIAN_PY 'doctor --json: the verdict is what apt and dpkg say' '
	expect &&
	echo "expect: $VERDICT pkg=$PKG ver=$VER upgrade=$UPGRADE install=$INSTALL" &&
	ppr doctor --json --python /usr/bin/python3 >out 2>err &&
	! test -s err &&
	debug_package out >dp &&
	cat dp &&
	cp json.fix fix.real &&
	test "$(cat json.bid)" = "$BID" &&
	if test $VERDICT = symtab; then
		test "$(cat dp)" = null
	else
		test "$(dp_get dp verdict)" = $VERDICT &&
		test "$(dp_get dp cached)" = False &&
		test "$(dp_get dp debug_file)" = "$dbgfile" &&
		case $VERDICT in
		installed) ;;
		available)
			test "$(dp_get dp package)" = "$PKG" &&
			test "$(dp_get dp version)" = "$VER" &&
			test "$(dp_get dp install)" = "$INSTALL" ;;
		other_version)
			test "$(dp_get dp owner)" = "$OWNER" &&
			test "$(dp_get dp package)" = "$PKG" &&
			test "$(dp_get dp version)" = "$VER" &&
			test "$(dp_get dp upgrade_version)" = "$UPGRADE" &&
			test "$(dp_get dp install)" = "$INSTALL" ;;
		none)
			test "$(dp_get dp package)" = "$PKG" ;;
		esac
	fi
'

test_expect_success DEBIAN_PY 'doctor: the text says the same' '
	. ./expect.env &&
	ppr doctor --python /usr/bin/python3 >text 2>err &&
	! test -s err &&
	grep -A1 "symbols: $EXE " text >sym &&
	cat sym &&
	e=$(re "$EXE") b=$(re "$BID") o=$(re "$OWNER") p=$(re "$PKG") &&
	v=$(re "$VER") i=$(re "$INSTALL") u=$(re "$UPGRADE") &&
	case $VERDICT in
	symtab)
		test_grep "^  ok       symbols: $e names all its code$" sym ;;
	installed)
		test_grep "^  ok       symbols: $e names all its code \(debug file $(re "$dbgfile")" sym ;;
	available)
		test_grep "^  warning  symbols: $e has only its exported symbols" sym &&
		if test -n "$INSTALL"; then
			test_grep "fix: install its debug symbols: $i \($p $v lists build-id $b" sym
		else
			test_grep "fix: $p $v lists build-id $b, but apt refuses to install it now" sym
		fi ;;
	other_version)
		test_grep "^  warning  symbols: $e has only its exported symbols" sym &&
		test_grep "fix: no debug package apt has \(of .*\) lists build-id $b of $o " sym &&
		test_grep "apt has $p only at .*: .$i. would also upgrade $o to $u" sym ;;
	none)
		test_grep "^  warning  symbols: $e has only its exported symbols" sym &&
		test_grep "build-id $b of $o .*: fetch it with debuginfod" sym ;;
	esac
'

test_expect_success DEBIAN_PY 'the answer is cached: 0600 in a 0700 directory' '
	. ./expect.env &&
	case $VERDICT in symtab|installed) return 0 ;; esac &&
	ppr doctor --json --python /usr/bin/python3 >out2 &&
	debug_package out2 >dp2 &&
	test "$(dp_get dp2 cached)" = True &&
	sed "s/\"cached\": false/\"cached\": true/" dp >want &&
	test_cmp want dp2 &&
	test "$(stat -c %a "$XDG_CACHE_HOME/pyperf-run")" = 700 &&
	test "$(stat -c %a "$XDG_CACHE_HOME/pyperf-run/debugpkg-cache")" = 600
'

# Fields: v2 BUILD_ID STATUS_NS LISTS_NS VERDICT OWNER ... PACKAGE(9) ...
test_expect_success DEBIAN_PY 'an entry for another dpkg state is not used; one for this state is' '
	. ./expect.env &&
	case $VERDICT in symtab|installed) return 0 ;; esac &&
	f=$XDG_CACHE_HOME/pyperf-run/debugpkg-cache &&
	cp "$f" good &&
	awk -F "\t" -v OFS="\t" "{ \$3 = 1; \$9 = \"stale-dbg\"; print }" good >"$f" &&
	ppr doctor --json --python /usr/bin/python3 >out3 &&
	debug_package out3 >dp3 &&
	test "$(dp_get dp3 cached)" = False &&
	test "$(dp_get dp3 verdict)" = "$VERDICT" &&
	! grep stale-dbg dp3 &&
	awk -F "\t" -v OFS="\t" "{ \$9 = \"forged-dbg\"; print }" good >"$f" &&
	ppr doctor --json --python /usr/bin/python3 >out4 &&
	debug_package out4 >dp4 &&
	test "$(dp_get dp4 cached)" = True &&
	test "$(dp_get dp4 package)" = forged-dbg &&
	cp good "$f"
'

# load-gc.py spends a third of its time in the collector, code without
# symbols in a stripped python3.11 (t3011): record warns, then hints.
test_expect_success DEBIAN_PY,PERF 'record: the hint after the warning says what doctor says' '
	. ./expect.env &&
	ppr record --python /usr/bin/python3 --mode jit -o gc \
		"$PPR_SRCDIR/tests/fixtures/load-gc.py" 2 >out 2>err &&
	cat err &&
	case $VERDICT in
	symtab|installed)
		! grep "^hint: \[$(basename "$EXE")\]" err ;;
	*)
		test_grep "warning: .* ran in code without symbols" err &&
		grep -n "warning: .* ran in code without symbols" err | cut -d: -f1 >wline &&
		grep -n "^hint: \[$(basename "$EXE")\] ($EXE): " err >hint &&
		test $(wc -l <hint) = 1 &&
		test "$(cut -d: -f1 hint)" -gt "$(cat wline)" &&
		sed "s|^[0-9]*:hint: \[$(basename "$EXE")\] ($EXE): ||" hint >advice &&
		test -s advice &&
		# doctor adds only what it knows of perf to the same words
		case "$(cat fix.real)" in
		"$(cat advice)"*) ;;
		*) echo "doctor: $(cat fix.real)"; echo "record: $(cat advice)"; return 1 ;;
		esac
	esac
'

test_done
