# SPDX-License-Identifier: GPL-2.0-only
# lib-flame.sh: what the report-format tests (t6xxx) share.  Source it
# after test-lib.sh.
#
#   flame_session DIR [SECONDS [FA FB FC]]  record the tests' known
#                                 program with `pyperf-run record`
#                                 (python 3.13)
#   flame_synth N FORMAT          a synthetic profile of N distinct stacks
#                                 (tests/unit/t-fmt-flame synth) on stdout
#   flame_browser ARGS...         node lib-browser.js ARGS (see there)
#   flame_kv KEY FILE             the first value of KEY in a key=value file
# Prerequisites: CHROMIUM, AJV, GO_PPROF, SESSION (perf + python 3.13).

FLAME_SYNTH=$PPR_BUILD/tests/unit/t-fmt-flame
FLAME_NODE_MODULES=$TEST_DIR/node_modules
export NODE_PATH=$FLAME_NODE_MODULES

flame_missing_setup='run .ci/setup.d/browser.sh'

# The browser: Debian's chromium-headless-shell (the same Blink, without
# the full browser around it: 3.4 s of CPU a page where chromium took
# 7.0 in the same minute here; a suite run opens about twenty pages),
# else chromium, unless PPR_CHROMIUM names one.
if test -z "${PPR_CHROMIUM:-}"; then
	for c_ in /usr/bin/chromium-headless-shell /usr/bin/chromium; do
		if test -x "$c_"; then
			PPR_CHROMIUM=$c_
			break
		fi
	done
	export PPR_CHROMIUM
fi

test_prereq_NODE() {
	command -v node >/dev/null || { echo "node is not installed"; return 1; }
}

test_prereq_CHROMIUM() {
	test_prereq_NODE || return 1
	test -x "${PPR_CHROMIUM:-/usr/bin/chromium-headless-shell}" ||
		{ echo "no browser: neither chromium-headless-shell nor chromium is installed (apt-get install chromium-headless-shell)"; return 1; }
	test -d "$FLAME_NODE_MODULES/playwright-core" ||
		{ echo "no playwright-core in tests/node_modules ($flame_missing_setup)"; return 1; }
}

test_prereq_AJV() {
	test_prereq_NODE || return 1
	test -d "$FLAME_NODE_MODULES/ajv" &&
	test -f "$FLAME_NODE_MODULES/speedscope/dist/release/file-format-schema.json" ||
		{ echo "no ajv / speedscope schema in tests/node_modules ($flame_missing_setup)"; return 1; }
}

test_prereq_GO_PPROF() {
	command -v go >/dev/null ||
		{ echo "go is not installed (apt-get install golang-go)"; return 1; }
	go tool pprof -h >/dev/null 2>&1 ||
		{ echo "'go tool pprof' does not run"; return 1; }
}

# (ppr_python and test_have_prereq share variable names: subshells.)
test_prereq_PY313() {
	py=$(ppr_python 3.13) || { echo "no python 3.13 found"; return 1; }
}

test_prereq_SESSION() {
	(test_prereq_PERF) || { (test_prereq_PERF); return 1; }
	test_prereq_PY313
}

# The known program: a third of the time in each of alpha, beta and
# Gamma.inner, all under main() (prog.py SECONDS [FA FB FC] scales them).
flame_program() {
	cat >"$1" <<'EOF'
import sys, time

def spin(seconds):
    end = time.process_time() + seconds
    x = 0
    while time.process_time() < end:
        for i in range(2000):
            x += i * i
    return x

def alpha(s):
    return spin(s)

def beta(s):
    return spin(s)

class Gamma:
    def inner(self, s):
        return spin(s)

def main():
    s = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
    f = [float(a) for a in sys.argv[2:5]] or [1, 1, 1]
    alpha(s * f[0])
    beta(s * f[1])
    Gamma().inner(s * f[2])

main()
EOF
}

flame_session() {
	dir=$1
	shift
	test $# -gt 0 || set -- 0.4
	flame_program prog.py &&
	ppr record -q --trampoline auto --python "$(ppr_python 3.13)" -o "$dir" prog.py "$@" \
		>/dev/null
}

flame_synth() {
	"$FLAME_SYNTH" synth "$@"
}

flame_browser() {
	node "$TEST_DIR/lib-browser.js" "$@"
}

flame_kv() {
	sed -n "s/^$1=//p" "$2" | head -n 1
}

# Share (percent, 3 decimals) of stacks whose frames match the extended
# regex $1 in a collapsed file $2 (each stack counted once). Not rounded
# to the formats' 1 decimal: 31.25 is 31.3 in JavaScript's toFixed and
# 31.2 in awk's printf (round half to even), so a rounded reference can
# be 0.1 off a right answer; an unrounded one is within 0.05 of it.
flame_collapsed_share() {
	awk -v re="$1" '
	{
		n = $NF; total += n
		line = $0; sub(/ [0-9]+$/, "", line)
		k = split(line, fr, ";")
		for (i = 1; i <= k; i++)
			if (fr[i] ~ re) { hit += n; break }
	}
	END { printf "%.3f\n", total ? 100 * hit / total : 0 }' "$2"
}

# |a - b| <= tol (decimals: 31.3 - 31.2 is 0.1000000000000014 in
# binary floating point, which a plain d > t would call past 0.1).
flame_close() {
	awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
		d = a - b; if (d < 0) d = -d
		if (d > t + 1e-9) { printf "%s and %s differ by more than %s\n", a, b, t; exit 1 }
	}'
}

# Validate a speedscope file against speedscope's own JSON schema (from
# the npm package) with ajv and print "valid=...", "profiles=N",
# "samples=TOTAL WEIGHT" and, with a regex, "share=PERCENT" (samples
# with a matching frame name, each counted once) and "names=..." lines.
flame_speedscope() {
	node - "$@" <<'EOF_JS'
const fs = require("fs");
const Ajv = require("ajv");
const schema = require("speedscope/dist/release/file-format-schema.json");
const [file, re] = process.argv.slice(2);
const data = JSON.parse(fs.readFileSync(file, "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);
const ok = validate(data);
console.log("valid=" + ok);
if (!ok)
	console.log("errors=" + JSON.stringify(validate.errors.slice(0, 5)));
console.log("profiles=" + data.profiles.length);
let total = 0, hit = 0;
const rx = re ? new RegExp(re) : null;
const frames = data.shared.frames;
for (const p of data.profiles) {
	console.log("profile=" + p.name);
	p.samples.forEach((st, i) => {
		const w = p.weights[i];
		total += w;
		if (rx && st.some((f) => rx.test(frames[f].name)))
			hit += w;
	});
}
console.log("samples=" + total);
if (rx) {
	console.log("share=" + (100 * hit / total).toFixed(1));
	for (const f of frames)
		if (rx.test(f.name))
			console.log("name=" + f.name + "|" + (f.file || ""));
}
EOF_JS
}
