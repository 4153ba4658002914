#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Which tests the sanitizer pass needs: the fewest seconds of tests that
run every line and every branch of this project's C code that the whole
suite runs.

`make sanitize-set` builds with gcov's counters (COVERAGE=1, build/cov),
runs the suite with each test's counters in build/cov/coverage/<test>/
(test-lib.sh sets GCOV_PREFIX), then runs this script, which writes
tests/sanitize-skip: the tests whose lines and branches the others all
run, with their seconds and the tests that cover them.  `make check
SANITIZE=1` leaves those out (the plain pass runs them) and says so.

ASan and UBSan check the code a test runs: a test that runs no line or
branch the others do not run adds only other data through the same
code.  That is the part this leaves to the plain pass.

    sanitize-set.py BUILD_DIR STATE_FILE OUT

STATE_FILE: prove's saved times (tests/.prove), the weights.  Tests with
no counters at all (they run no binary of the build) are never skipped
here: OWN_BUILD_TESTS in Makefile.in handles those.
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


def main():
    build, state, out = sys.argv[1:4]
    build = os.path.abspath(build)
    covdir = os.path.join(build, "coverage")
    times = prove_times(state)
    feats = {}
    for t in sorted(os.listdir(covdir)):
        f = gcov_features(build, os.path.join(covdir, t))
        if f:
            feats[t + ".sh"] = f
    union = set().union(*feats.values())
    # Tests that alone run something: always kept.  Then, greedily, the
    # test that adds the most not yet run per second, until everything
    # the suite runs is run.
    owners = {}
    for t, f in feats.items():
        for x in f:
            owners.setdefault(x, []).append(t)
    kept = {t for x, ts in owners.items() if len(ts) == 1 for t in ts}
    covered = set().union(*(feats[t] for t in kept)) if kept else set()
    while covered != union:
        best = max((t for t in feats if t not in kept),
                   key=lambda t: len(feats[t] - covered) /
                   max(times.get(t, 1.0), 1.0))
        kept.add(best)
        covered |= feats[best]
    skipped = sorted(t for t in feats if t not in kept)
    with open(out, "w") as o:
        o.write("# Tests `make check SANITIZE=1` leaves out: every line and\n"
                "# branch of pyperf-run each runs, the kept tests run too\n"
                "# (gcov, %d lines and branches in all).  Written by `make\n"
                "# sanitize-set` (tests/sanitize-set.py); a test not named\n"
                "# here runs in both passes.\n"
                "# test, its seconds in the plain pass, the kept tests that\n"
                "# run the most of what it runs\n" % len(union))
        for t in skipped:
            by = sorted(kept, key=lambda k: -len(feats[t] & feats[k]))[:3]
            o.write("%s %.0f %s\n" % (t, times.get(t, 0),
                                      " ".join(b[:5] for b in by)))
    saved = sum(times.get(t, 0) for t in skipped)
    total = sum(times.get(t, 0) for t in feats)
    print("sanitize-set: %d of %d tests kept; %.0f of %.0f s left out"
          % (len(kept), len(feats), saved, total))


if __name__ == "__main__":
    main()
