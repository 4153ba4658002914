#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Which tests, and which of their subtests, the sanitizer pass needs: the
fewest seconds that run every line and every branch of this project's C
code that the whole pass would run.

`make sanitize-set` builds with gcov's counters (COVERAGE=1, build/cov),
runs the suite with each subtest's counters in build/cov/coverage/<test>/<N>/
(test-lib.sh sets GCOV_PREFIX; 0/ is what runs outside any subtest), as
the sanitizer pass runs it (PPR_SANITIZE=1: the tests that run fewer
cases there run those), then runs this script, which writes
tests/sanitize-skip:
  "TEST.sh all SECONDS BY..."  the sanitizer pass leaves the test out;
  "TEST.sh after M SECONDS CK" it runs the test's subtests 1 to M only
                               (SECONDS: the time of those it leaves),
                               while the file's cksum is CK.
A test keeps a prefix of its subtests, never a choice from the middle: a
subtest may use what the ones before it made.

ASan and UBSan check the code a test runs: a subtest that runs no line or
branch the kept ones do not run adds only other data through the same
code.  That is the part this leaves to the plain pass.

    sanitize-set.py BUILD_DIR STATE_FILE TIMES OUT

STATE_FILE: prove's saved times of that run (tests/.prove-coverage), the
test's whole time; TIMES: test-lib.sh's subtest times of the same run
(tests/.times).  Tests with no counters at all (they run no binary of the
build) are never listed here: OWN_BUILD_TESTS in Makefile.in handles
those.
"""
import json
import os
import subprocess
import sys


def prove_times(path):
    """{test file: seconds} from prove's --state file (YAML, read by
    hand: two-level keys, 'elapsed:' under each test)."""
    times, name = {}, None
    for line in open(path):
        s = line.strip()
        if line.startswith("  t") and s.endswith(":"):
            name = s[:-1]
        elif s.startswith("elapsed:") and name:
            times[name] = float(s.split()[1])
    return times


def gcov_features(build, tdir):
    """The set of (source, line) and (source, line, branch) a test ran,
    from the .gcda files under tdir (GCOV_PREFIX kept their absolute
    paths below it)."""
    feats = set()
    gcdas = []
    for root, _dirs, files in os.walk(tdir):
        gcdas += [os.path.join(root, f) for f in files if f.endswith(".gcda")]
    for gcda in gcdas:
        # the build's own path, below tdir (or tdir/nobody: as_nobody)
        at = gcda.rfind(build + "/")
        if at < 0:
            continue
        orig = gcda[at:]
        gcno = orig[:-5] + ".gcno"
        if not os.path.exists(gcno):
            continue
        link = gcda[:-5] + ".gcno"
        if not os.path.lexists(link):
            os.symlink(gcno, link)
    # gcov reads each .gcda with the .gcno beside it; -t prints the
    # JSON documents one after the other
    for i in range(0, len(gcdas), 64):
        out = subprocess.run(["gcov", "-t", "-j", "-b"] + gcdas[i:i + 64],
                             cwd=build, capture_output=True, text=True,
                             check=False).stdout
        dec, pos = json.JSONDecoder(), 0
        while True:
            while pos < len(out) and out[pos].isspace():
                pos += 1
            if pos >= len(out):
                break
            doc, pos = dec.raw_decode(out, pos)
            for f in doc.get("files", []):
                src = os.path.normpath(f["file"])
                if "/usr/" in src or src.startswith("/usr"):
                    continue
                for ln in f.get("lines", []):
                    if ln["count"] > 0:
                        feats.add((src, ln["line_number"]))
                    for k, b in enumerate(ln.get("branches", [])):
                        if b["count"] > 0:
                            feats.add((src, ln["line_number"], k))
    return feats


def subtest_times(path):
    """{test name: {subtest number: wall seconds}} from test-lib.sh's
    tests/.times (test, number, wall seconds, CPU times)."""
    t = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 3 and f[1].isdigit():
            t.setdefault(f[0], {})[int(f[1])] = float(f[2])
    return t


def main():
    build, state, tfile, out = sys.argv[1:5]
    build = os.path.abspath(build)
    covdir = os.path.join(build, "coverage")
    whole = prove_times(state)
    subs = subtest_times(tfile)
    # feats[test][n]: what subtest n ran (0: outside any subtest)
    feats, ids = {}, {}
    for t in sorted(os.listdir(covdir)):
        tdir = os.path.join(covdir, t)
        per = {}
        for n in os.listdir(tdir):
            if n.isdigit():
                f = gcov_features(build, os.path.join(tdir, n))
                # features as small ints: sets of them are cheap
                per[int(n)] = {ids.setdefault(x, len(ids)) for x in f}
        if any(per.values()):
            feats[t + ".sh"] = per
    nsub = {t: max([0] + list(subs.get(t[:-3], {})) + list(feats[t]))
            for t in feats}

    def sub_s(t, n):
        # a subtest is at least a second: rounding gives many 0s
        return max(subs.get(t[:-3], {}).get(n, 0.0), 1.0)

    def fixed_s(t):
        # the test's time outside its subtests (test-lib, set-up)
        return max(whole.get(t, 0.0) -
                   sum(subs.get(t[:-3], {}).values()), 1.0)

    def run_of(t, m):
        # what running subtests 1..m of t (and its set-up) runs
        r = set(feats[t].get(0, ()))
        for n in range(1, m + 1):
            r |= feats[t].get(n, set())
        return r

    union = set()
    for per in feats.values():
        for f in per.values():
            union |= f
    # A feature only one test runs forces that test to run up to the
    # first subtest that runs it.
    first = {}
    for t, per in feats.items():
        for n in sorted(per):
            for x in per[n]:
                first.setdefault(x, {}).setdefault(t, n)
    keep = {t: 0 for t in feats}
    for x, ts in first.items():
        if len(ts) == 1:
            (t, n), = ts.items()
            keep[t] = max(keep[t], max(n, 1))
    covered = set()
    for t, m in keep.items():
        if m:
            covered |= run_of(t, m)
    # Then, greedily, the longer prefix that adds the most not yet run
    # per second, until everything is run.
    while not union <= covered:
        best, best_r = None, -1.0
        for t in feats:
            m0 = keep[t]
            cost = 0.0 if m0 else fixed_s(t)
            new = set()
            for m in range(m0 + 1, nsub[t] + 1):
                cost += sub_s(t, m)
                new |= (feats[t].get(m, set()) |
                        (feats[t].get(0, set()) if not m0 else set()))
                gain = len(new - covered)
                if gain and gain / cost > best_r:
                    best, best_r = (t, m), gain / cost
        t, m = best
        keep[t] = m
        covered |= run_of(t, m)
    rows, saved, total = [], 0.0, 0.0
    for t in sorted(feats):
        m, n = keep[t], nsub[t]
        total += whole.get(t, 0.0)
        if m == 0:
            by = sorted((k for k in feats if keep[k]),
                        key=lambda k: -len(run_of(t, n) & run_of(k, keep[k])))[:3]
            rows.append("%s all %.0f %s" % (t, whole.get(t, 0.0),
                                            " ".join(b[:5] for b in by)))
            saved += whole.get(t, 0.0)
        elif m < n:
            left = sum(subs.get(t[:-3], {}).get(k, 0.0)
                       for k in range(m + 1, n + 1))
            # the test file's cksum: once it changes (a subtest added,
            # moved), test-lib.sh runs the whole test again
            ck = subprocess.run(["cksum"], stdin=open(os.path.join(
                os.path.dirname(os.path.abspath(__file__)), t)),
                capture_output=True, text=True, check=True).stdout.split()
            rows.append("%s after %d %.0f %s-%s" % (t, m, left, ck[0], ck[1]))
            saved += left
    with open(out, "w") as o:
        o.write("# What `make check SANITIZE=1` leaves to the plain pass:\n"
                "# the kept tests' kept subtests run every line and branch\n"
                "# of pyperf-run that these run (gcov, %d lines and\n"
                "# branches in all).  Written by `make sanitize-set`\n"
                "# (tests/sanitize-set.py, which says more).\n"
                "# TEST.sh all SECONDS BY...: the whole test (its seconds;\n"
                "#   the kept tests that run the most of what it runs)\n"
                "# TEST.sh after M SECONDS CKSUM: its subtests after the\n"
                "#   M-th (their seconds), while the test file's cksum is\n"
                "#   CKSUM (an edited test runs whole)\n" % len(union))
        for r in rows:
            o.write(r + "\n")
    print("sanitize-set: %d of %d tests kept, %d of them cut short; "
          "%.0f of %.0f s left out"
          % (sum(1 for t in keep if keep[t]), len(feats),
             sum(1 for r in rows if " after " in r), saved, total))


if __name__ == "__main__":
    main()
