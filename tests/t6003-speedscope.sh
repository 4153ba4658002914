#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='report --format speedscope: valid against speedscope'"'"'s
file-format schema'
. ./test-lib.sh
. "$TEST_DIR/lib-flame.sh"

test_expect_success AJV 'a synthetic profile validates' '
	flame_synth 500 speedscope >s.json &&
	flame_speedscope s.json "^kernel_fn_1\$" >out &&
	test "$(flame_kv valid out)" = true &&
	test "$(flame_kv profiles out)" = 1 &&
	test_grep "^name=kernel_fn_1\|\[kernel.kallsyms\]$" out
'

test_expect_success AJV 'the schema rejects a broken file (the check is real)' '
	sed "s/\"type\":\"sampled\"/\"type\":\"sampledx\"/" s.json >bad.json &&
	flame_speedscope bad.json >out &&
	test "$(flame_kv valid out)" = false
'

test_expect_success AJV 'warnings: in the names, and the file still validates' '
	flame_synth 500 speedscope warn >w.json &&
	flame_speedscope w.json >out &&
	test "$(flame_kv valid out)" = true &&
	test_grep "^profile=\[2 warnings: 30% of the samples have incomplete stack…\] python3.13 synthetic.py$" out &&
	grep -F "\"name\":\"[warning: 30% of the samples have incomplete stacks (<cut> at \\\"depth\\\")] [warning: 12 damaged map records were dropped & not shown] python3.13 synthetic.py\"" w.json
'

test_expect_success SESSION 'record a session' '
	flame_session sess 0.3 &&
	ppr report -i sess --format collapsed >c &&
	ppr report -i sess --format speedscope -o prof.json
'

test_expect_success SESSION,AJV 'the recorded profile validates, with its functions' '
	flame_speedscope prof.json "^beta\$" >out &&
	test "$(flame_kv valid out)" = true &&
	test_grep "^name=beta\|.*prog.py$" out &&
	total=$(awk "{ n += \$NF } END { print n }" c) &&
	test "$(flame_kv samples out)" = "$total" &&
	want=$(flame_collapsed_share "^beta \\(.*prog.py\\)\$" c) &&
	flame_close "$(flame_kv share out)" "$want" 0.1
'

test_expect_success SESSION,AJV '--per-thread: one profile per thread' '
	ppr report -i sess --per-thread --format speedscope -o thr.json &&
	flame_speedscope thr.json >out &&
	test "$(flame_kv valid out)" = true &&
	total=$(awk "{ n += \$NF } END { print n }" c) &&
	test "$(flame_kv samples out)" = "$total" &&
	test_grep "^profile=.*\(pid [0-9]+, tid [0-9]+\)$" out
'

test_expect_success SESSION,AJV,CHROMIUM 'speedscope itself opens it, at the busiest thread' '
	flame_browser speedscope thr.json >app &&
	! grep -E "^(request|pageerror|console_error|error)=" app &&
	test_grep "^import=Importing as speedscope json file" app &&
	test_grep "^title=.*prog.py 0.3 - speedscope$" app &&
	test_grep "^body=.*Sandwich(\[.*\] )?python3.13 \(pid [0-9]+, tid [0-9]+\)" app
'

test_done
