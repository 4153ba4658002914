#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='doctor: usage, exit codes, JSON shape, interpreters that cannot be used'
. ./test-lib.sh

test_expect_success '-h prints the usage on stdout' '
	ppr doctor -h >out 2>err &&
	test_grep "^usage: pyperf-run doctor \[--python <path>\] \[--perf <path>\] \[--json\] \[--probe\]$" out &&
	test_grep "^    --probe " out &&
	! test -s err
'

test_expect_success 'an unknown option is a usage error (2) with a hint' '
	test_expect_code 2 ppr doctor --frobnicate >out 2>err &&
	test_grep "^pyperf-run doctor: unknown option .--frobnicate.$" err &&
	test_grep "^hint: " err &&
	! test -s out
'

test_expect_success 'a stray argument is a usage error' '
	test_expect_code 2 ppr doctor extra 2>err &&
	test_grep "unexpected argument .extra." err
'

test_expect_success '--python without a value is a usage error' '
	test_expect_code 2 ppr doctor --python 2>err &&
	test_grep "^pyperf-run doctor: option .--python. needs a value$" err &&
	test_expect_code 2 ppr doctor --python= 2>err &&
	test_grep "needs a path" err
'

test_expect_success '--json --python <missing file>: one object, ok false, exit 1' '
	test_expect_code 1 ppr doctor --json --python "$TRASH/no-such-python" >out 2>err &&
	! test -s err &&
	python3 -m json.tool out >/dev/null &&
	test "$(json_get out ok)" = false &&
	test "$(json_get out perf_mode.name)" = none &&
	test "$(json_get out perf_mode.trampoline)" = none &&
	json_get out problems >problems &&
	test_grep "cannot run .*no-such-python.*No such file or directory" problems
'

test_expect_success '--python <a directory> is a clear problem' '
	mkdir adir &&
	test_expect_code 1 ppr doctor --python "$TRASH/adir" >out 2>err &&
	! test -s err &&
	test_grep "^  problem  .*/adir. is a directory, not a Python interpreter$" out &&
	test_grep "^Python frames will not work" out
'

test_expect_success '--python /bin/true is not a Python interpreter' '
	test_expect_code 1 ppr doctor --python /bin/true >out &&
	test_grep "problem  ./bin/true. is not a Python interpreter" out &&
	test_grep "fix: " out
'

test_expect_success 'a script that is not Python is not a Python interpreter' '
	printf "#!/bin/sh\necho hello\n" >fakepy && chmod +x fakepy &&
	test_expect_code 1 ppr doctor --json --python ./fakepy >out &&
	json_get out problems >problems &&
	test_grep "is not a Python interpreter" problems
'

test_expect_success PY313 '--json has every documented key' '
	py=$(ppr_python 3.13) &&
	ppr doctor --json --python "$py" >out; code=$? &&
	test $code = 0 -o $code = 1 &&
	for k in python.executable python.version python.native_perf \
		python.native_perf_jit python.frame_pointers perf.path \
		perf.version perf.jit_fix kernel.perf_event_paranoid \
		perf_mode.name perf_mode.trampoline perf_mode.call_graph problems ok \
		warnings commands.record housekeeping.stale_files \
		housekeeping.tmp_free_bytes housekeeping.buildid_dir checks \
		reader.libdw reader.libperf reader.perf_libtraceevent \
		reader.kallsyms.readable reader.kallsyms.addresses mode.name mode.walker
	do
		json_get out $k >/dev/null || { echo "missing $k"; return 1; }
	done &&
	test "$(json_get out python.executable)" = "$(readlink -f "$py")" -o \
	     "$(json_get out python.executable)" = "$py" &&
	test "$(json_get out kernel.perf_event_paranoid)" = \
	     "$(cat /proc/sys/kernel/perf_event_paranoid)" &&
	case $(json_get out perf.jit_fix) in yes|no|unknown) ;; *) false ;; esac
'

test_expect_success PY313 'exit status follows ok, problems list follows checks' '
	py=$(ppr_python 3.13) &&
	ppr doctor --json --python "$py" >out; code=$? &&
	python3 - out $code <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	code = int(sys.argv[2])
	assert d["ok"] == (code == 0), (d["ok"], code)
	probs = [c["text"] for c in d["checks"] if c["level"] == "problem"]
	assert probs == d["problems"], (probs, d["problems"])
	assert d["ok"] == (not probs)
	for c in d["checks"]:
	    assert c["level"] in ("ok", "warning", "problem"), c
	    if c["level"] != "ok":
	        assert c["fix"] or c["id"].startswith("mode"), c
	PY
'

test_expect_success PY313 'the text report: sections, levels, a verdict, nothing on stderr' '
	py=$(ppr_python 3.13) &&
	ppr doctor --trampoline native --python "$py" >out 2>err; code=$? &&
	! test -s err &&
	for s in perf kernel python decision housekeeping reader; do
		test_grep "^$s$" out || return 1
	done &&
	test_grep -v "^probe$" out &&
	! grep -v -E "^(perf|kernel|python|decision|housekeeping|reader|  (ok      |warning |problem ) .*|           .*|)$|^Python frames will (not )?work" out &&
	test_grep "record runs:" out &&
	test_grep "^ +PYTHON_PERF_JIT_SUPPORT=1 PYPERF_TRAMPOLINE=native /.*perf --buildid-dir pyperf.data/buildid record -e cpu-clock -F [0-9]+ -k 1 --call-graph dwarf,[0-9]+ -N (--no-bpf-event )?-o pyperf.data/perf.raw -- .*python3.13 script.py$" out &&
	test_grep "^ +/.*perf --buildid-dir pyperf.data/buildid inject --jit -i pyperf.data/perf.raw -o pyperf.data/perf.data$" out &&
	if test $code = 0; then
		test_grep "^Python frames will work: jit mode, native trampoline" out
	else
		test_grep "^Python frames will not work: [0-9]+ problem" out
	fi
'

test_expect_success PERF,PY313 'record runs exactly the perf record command doctor shows' '
	py=$(ppr_python 3.13) &&
	realperf=$(command -v perf) &&
	cat >perf <<-EOF &&
	#!/bin/sh
	case " \$* " in
	*" record "*) printf "%s\n" "\$0" "\$@" >"$PWD/perf-argv" ;;
	esac
	exec "$realperf" "\$@"
	EOF
	chmod +x perf &&
	echo "sum(range(1000))" >small.py &&
	ppr doctor --json --trampoline native --perf "$PWD/perf" --python "$py" \
		>doctor.json 2>/dev/null;
	ppr record -q --trampoline native --perf "$PWD/perf" --python "$py" \
		-o rec small.py 2>err &&
	"$py" - doctor.json perf-argv <<-\PY
	import json, os, sys
	shown = None
	def find(o):
	    global shown
	    if isinstance(o, dict):
	        if "record_argv" in o:
	            shown = o["record_argv"]
	        for v in o.values():
	            find(v)
	find(json.load(open(sys.argv[1])))
	ran = open(sys.argv[2]).read().split("\n")[:-1]
	# the session directory and the program differ; the rest may not
	def norm(argv):
	    argv = argv[:argv.index("--")]
	    return ["SESSION/" + os.path.basename(a) if "/" in a and
	            os.path.basename(a) in ("buildid", "perf.raw", "perf.data")
	            else a for a in argv]
	assert shown, "doctor shows no record_argv"
	assert norm(shown) == norm(ran), (norm(shown), norm(ran))
	assert "-q" not in ran, ran
	PY
'

test_expect_success 'no color when stdout is not a terminal' '
	ppr doctor --python /bin/true >out 2>&1;
	! grep -q "$(printf "\033")" out
'

test_done
