#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='every warning reaches every report format, and the html
opens with the root in view'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

# A program shaped like the one that hid both: examples/busy.py, after a
# start-up chain 60 Python frames deep that takes about 3 % of the time.
# In jit mode that chain is deeper than the default stack dump, so record
# finds truncated stacks and writes a "truncated" share into the meta.
deep_program() {
	cat >"$1" <<'EOF'
import sys, time
sys.path.insert(0, sys.argv[1])
import busy

def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        sum(i * i for i in range(500))

def chain(n, seconds):
    if n == 0:
        return spin(seconds)
    return chain(n - 1, seconds)

chain(60, 0.03 * float(sys.argv[2]))
busy.main(float(sys.argv[2]) / 2)
EOF
}

test_expect_success SESSION 'record a session with truncated stacks' '
	deep_program deep.py &&
	# the trampoline of CPython 3.13 itself: context trampolines (the default)
	# would leave no stack cut
	ppr record -q --python "$(ppr_python 3.13)" --trampoline native \
		-o sess deep.py \
		"$PPR_SRCDIR/examples" 0.6 >/dev/null 2>record.err &&
	truncated=$(flame_kv truncated sess/meta) &&
	echo "# meta truncated=$truncated" &&
	awk -v t="$truncated" "BEGIN { exit !(t >= 0.01) }"
'

test_expect_success SESSION 'text: a "# warning:" header line per warning' '
	ppr report -i sess --no-tree >r.txt &&
	sed -n "s/^# warning:  //p" r.txt >want &&
	cat want &&
	test_grep "incomplete stacks" want &&
	test "$(wc -l <want)" -ge 1
'

test_expect_success SESSION 'json: the same warnings and the quality counts' '
	ppr report -i sess --format json >r.json &&
	python3 - r.json >got <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	q = d["quality"]
	assert all(isinstance(q[k], int) for k in
	           ("judged", "complete", "unnamed", "bad_names")), q
	assert q["complete"] + sum(q["cut"].values()) <= q["judged"], q
	for w in d["warnings"]:
	    print(w)
	EOF
	test_cmp want got
'

test_expect_success SESSION 'svg: a line per warning under the title' '
	ppr report -i sess --format svg -o r.svg &&
	python3 - r.svg >got <<-\EOF &&
	import sys, xml.etree.ElementTree as ET
	ns = "{http://www.w3.org/2000/svg}"
	for t in ET.parse(sys.argv[1]).getroot().iter(ns + "text"):
	    if t.get("class") == "warning":
	        print(t.text.split("warning: ", 1)[1])
	EOF
	test_cmp want got
'

test_expect_success SESSION,AJV 'speedscope: in the names; the file still validates' '
	ppr report -i sess --format speedscope -o r.speedscope.json &&
	flame_speedscope r.speedscope.json >out &&
	test "$(flame_kv valid out)" = true &&
	test_grep "^profile=\[([0-9]+ warnings|warning): " out &&
	python3 - r.speedscope.json >got <<-\EOF &&
	import json, sys
	name = json.load(open(sys.argv[1]))["name"]
	while name.startswith("[warning: "):
	    # a warning may itself hold brackets: cut at the next "] [warning: "
	    rest = name[len("[warning: "):]
	    nxt = rest.find("] [warning: ")
	    if nxt < 0:
	        nxt = rest.rfind("] ")
	    print(rest[:nxt])
	    name = rest[nxt + 2:]
	EOF
	test_cmp want got
'

test_expect_success SESSION,PPROF,GO_PPROF 'pprof: a comment per warning' '
	ppr report -i sess --format pprof -o r.pb.gz &&
	go tool pprof -comments r.pb.gz 2>err | sed -n "s/^warning: //p" >got &&
	test_cmp want got
'

test_expect_success SESSION 'collapsed: stack lines only; the warnings on stderr' '
	ppr report -i sess --format collapsed >r.folded 2>err &&
	! grep -v " [0-9][0-9]*\$" r.folded &&
	sed -n "s/^pyperf-run report: warning: //p" err >got &&
	test_cmp want got
'

test_expect_success SESSION,CHROMIUM 'html: a banner with every warning; root and main in view at 1400x900' '
	ppr report -i sess --format html -o r.html &&
	main=$(grep -o "main ([^)]*busy.py)" r.folded | head -n 1) &&
	flame_browser html r.html --viewport 1400x900 --in-view all \
		--in-view "$main" --first-screen first.png >out &&
	! grep -E "^(request|pageerror|console_error|error)=" out &&
	sed -n "s/^warning=//p" out >got &&
	test_cmp want got &&
	test "$(flame_kv warnings_in_view out)" = true &&
	test_grep "^in_view=all\|true$" out &&
	test_grep "^in_view=main \(.*busy.py\)\|true$" out
'

test_expect_success SESSION,CHROMIUM 'html --inverted: the root on top, in view' '
	ppr report -i sess --inverted --format html -o inv.html &&
	flame_browser html inv.html --viewport 1400x900 \
		--in-view "all (leaf functions above)" >out &&
	test_grep "^in_view=all \(leaf functions above\)\|true$" out
'

test_done
