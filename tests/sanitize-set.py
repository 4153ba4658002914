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
  "TEST.sh all SECONDS BY..."   the sanitizer pass leaves the test out;
  "TEST.sh only LIST SECONDS CK"  it runs the subtests of LIST (1-3,7)
                                only (SECONDS: the time of those it
                                leaves), while the file's cksum is CK.
A subtest may use what the ones before it made: keeping one keeps every
subtest before it, unless the test file says it stands alone or which
ones it needs, in lines

    # sanitize-set: alone LIST
    # sanitize-set: LIST needs LIST

(LIST as above, numbered as the sanitizer pass numbers the subtests;
several such lines add up).  The test's code outside subtests runs
whatever is kept.

ASan and UBSan check the code a test runs: a subtest that runs no line or
branch the kept ones do not run adds only other data through the same
code.  That is the part this leaves to the plain pass.

    sanitize-set.py BUILD_DIR STATE_FILE TIMES OUT
    sanitize-set.py --verify BUILD_DIR VERIFY_DIR

STATE_FILE: prove's saved times of that run (tests/.prove-coverage), the
test's whole time; TIMES: test-lib.sh's subtest times of the same run
(tests/.times).  Tests with no counters at all (they run no binary of the
build) are never listed here: OWN_BUILD_TESTS in Makefile.in handles
those.  The first form also keeps what the whole run ran in
BUILD_DIR/sanitize-union.json; --verify (make sanitize-verify) reads the
counters of a run made as the sanitizer pass runs (VERIFY_DIR, laid out
as above) and says what of that it did not run, and which subtests ran
it in the whole run: a kept subtest that needed one left out, a
"stands alone" that was wrong, or a branch that runs by chance (which of
two processes is first, what a cache already holds: the debug-package
cache, shared by every test, is one).  It fails when anything is
missing; what a second run still misses is the list's fault.
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


def ranges(ns):
    """[1, 2, 3, 7] -> "1-3,7" """
    out, ns = [], sorted(ns)
    i = 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        out.append(str(ns[i]) if i == j else "%d-%d" % (ns[i], ns[j]))
        i = j + 1
    return ",".join(out)


def parse_ranges(text):
    got = set()
    for r in text.split(","):
        r = r.strip()
        if not r:
            continue
        a, _, b = r.partition("-")
        got.update(range(int(a), int(b or a) + 1))
    return got


def needs_of(test_path):
    """{subtest: the subtests it needs} of the subtests the test file says
    stand alone (needing none) or need only some before them"""
    got = {}
    for line in open(test_path):
        if not line.startswith("# sanitize-set: "):
            continue
        words = line.split()[2:]
        if words[:1] == ["alone"]:
            for n in parse_ranges("".join(words[1:])):
                got.setdefault(n, set())
        elif len(words) >= 3 and words[1] == "needs":
            for n in parse_ranges(words[0]):
                got.setdefault(n, set()).update(parse_ranges("".join(words[2:])))
    return got


def feature_key(x):
    return "%s:%d%s" % (x[0], x[1], "" if len(x) == 2 else "/b%d" % x[2])


def load_features(build, covdir, ids):
    """{test.sh: {subtest: set of feature ids}} of a coverage run"""
    feats = {}
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
    return feats


def verify(build, vdir):
    # gcov runs in the build directory: paths that hold from there
    build = os.path.abspath(build)
    vdir = os.path.abspath(vdir)
    saved = json.load(open(os.path.join(build, "sanitize-union.json")))
    ids = {}
    got = set()
    for per in load_features(build, vdir, ids).values():
        for f in per.values():
            got |= f
    have = {feature_key(x) for x in ids if ids[x] in got}
    missing = [k for k in saved["features"] if k not in have]
    print("sanitize-verify: the sanitizer pass's subtests ran %d of the %d "
          "lines and branches the whole suite ran"
          % (len(saved["features"]) - len(missing), len(saved["features"])))
    if not missing:
        return 0
    by = {}
    for k in missing:
        for ts in saved["by"].get(k, []):
            by.setdefault(ts, []).append(k)
    for ts in sorted(by, key=lambda x: -len(by[x]))[:40]:
        print("  %s ran %d of them, e.g. %s" % (ts, len(by[ts]),
                                                 ", ".join(sorted(by[ts])[:4])))
    return 1


def main():
    if sys.argv[1] == "--verify":
        sys.exit(verify(sys.argv[2], sys.argv[3]))
    build, state, tfile, out = sys.argv[1:5]
    build = os.path.abspath(build)
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    covdir = os.path.join(build, "coverage")
    whole = prove_times(state)
    subs = subtest_times(tfile)
    ids = {}
    feats = load_features(build, covdir, ids)
    nsub = {t: max([0] + list(subs.get(t[:-3], {})) + list(feats[t]))
            for t in feats}
    needs = {t: needs_of(os.path.join(tests_dir, t)) for t in feats}

    def sub_s(t, n):
        # a subtest is at least a second: rounding gives many 0s
        return max(subs.get(t[:-3], {}).get(n, 0.0), 1.0)

    def fixed_s(t):
        # the test's time outside its subtests (test-lib, set-up)
        return max(whole.get(t, 0.0) -
                   sum(subs.get(t[:-3], {}).values()), 1.0)

    def closure(t, n):
        # what keeping subtest n keeps: what it needs, and what they need
        if n not in needs[t]:
            return set(range(1, n + 1))
        got = {n}
        for k in needs[t][n]:
            if k < n:
                got |= closure(t, k)
        return got

    union = set()
    for per in feats.values():
        for f in per.values():
            union |= f
    keep = {t: set() for t in feats}
    covered = set()

    def take(t, ns):
        nonlocal covered
        if not keep[t]:
            covered |= feats[t].get(0, set())
        keep[t] |= ns
        for n in ns:
            covered |= feats[t].get(n, set())

    def offer(t, n):
        # (new features, seconds) of keeping subtest n of t
        ns = closure(t, n) - keep[t]
        cost = sum(sub_s(t, k) for k in ns) + (0.0 if keep[t] else fixed_s(t))
        new = set()
        for k in ns:
            new |= feats[t].get(k, set())
        if not keep[t]:
            new |= feats[t].get(0, set())
        return new - covered, cost

    # A feature only one test runs forces that test to keep the cheapest
    # of its subtests that runs it (with what that one needs).
    where = {}
    for t, per in feats.items():
        for n, f in per.items():
            for x in f:
                where.setdefault(x, {}).setdefault(t, []).append(n)
    for x, ts in sorted(where.items()):
        if len(ts) != 1 or x in covered:
            continue
        (t, ns), = ts.items()
        ns = [n for n in ns if n]
        if not ns:
            # run outside any subtest: by the test's set-up, which runs
            # with whichever subtest is kept
            take(t, closure(t, 1))
            continue
        best = min(ns, key=lambda n: offer(t, n)[1])
        take(t, closure(t, best))
    # Then, greedily, the subtest that adds the most not yet run per
    # second, until everything is run.
    while not union <= covered:
        best, best_r = None, -1.0
        for t in feats:
            for n in range(1, nsub[t] + 1):
                if n in keep[t]:
                    continue
                new, cost = offer(t, n)
                if new and len(new) / cost > best_r:
                    best, best_r = (t, n), len(new) / cost
        t, n = best
        take(t, closure(t, n))
    # Leave out again what the rest covers: a kept subtest standing
    # alone, the dearest first, that no other kept subtest needs
    for t, n in sorted(((t, n) for t in feats for n in keep[t]
                        if n in needs[t]), key=lambda tn: -sub_s(*tn)):
        if any(n in closure(t, k) for k in keep[t] if k != n):
            continue
        rest = set()
        for u in feats:
            ks = keep[u] - ({n} if u == t else set())
            if ks:
                rest |= feats[u].get(0, set())
            for k in ks:
                rest |= feats[u].get(k, set())
        if union <= rest:
            keep[t].discard(n)
    # what the verify run compares with: every feature, and the subtests
    # of the whole run that ran it
    names = {v: k for k, v in ids.items()}
    by = {}
    for t, per in feats.items():
        for n, f in per.items():
            for x in f:
                by.setdefault(feature_key(names[x]), []).append("%s %d" % (t, n))
    with open(os.path.join(build, "sanitize-union.json"), "w") as o:
        json.dump({"features": sorted(feature_key(names[x]) for x in union),
                   "by": by}, o)

    rows, saved, total = [], 0.0, 0.0
    for t in sorted(feats):
        ks, n = keep[t], nsub[t]
        total += whole.get(t, 0.0)
        left = sum(subs.get(t[:-3], {}).get(k, 0.0)
                   for k in range(1, n + 1) if k not in ks)
        if not ks:
            def shared(k):
                mine = set(feats[t].get(0, set()))
                for f in feats[t].values():
                    mine |= f
                theirs = set(feats[k].get(0, set()))
                for j in keep[k]:
                    theirs |= feats[k].get(j, set())
                return len(mine & theirs)
            by3 = sorted((k for k in feats if keep[k]), key=lambda k: -shared(k))[:3]
            rows.append("%s all %.0f %s" % (t, whole.get(t, 0.0),
                                            " ".join(b[:5] for b in by3)))
            saved += whole.get(t, 0.0)
            continue
        if ks == set(range(1, n + 1)):
            continue
        # the test file's cksum: once it changes (a subtest added,
        # moved), test-lib.sh runs the whole test again
        ck = subprocess.run(["cksum"], stdin=open(os.path.join(tests_dir, t)),
                            capture_output=True, text=True,
                            check=True).stdout.split()
        rows.append("%s only %s %.0f %s-%s" % (t, ranges(ks), left, ck[0], ck[1]))
        saved += left
    with open(out, "w") as o:
        o.write("# What `make check SANITIZE=1` leaves to the plain pass:\n"
                "# the kept tests' kept subtests run every line and branch\n"
                "# of pyperf-run that these run (gcov, %d lines and\n"
                "# branches in all).  Written by `make sanitize-set`\n"
                "# (tests/sanitize-set.py, which says more).\n"
                "# TEST.sh all SECONDS BY...: the whole test (its seconds;\n"
                "#   the kept tests that run the most of what it runs)\n"
                "# TEST.sh only LIST SECONDS CKSUM: only the subtests of\n"
                "#   LIST (as 1-3,7; SECONDS: the others'), while the test\n"
                "#   file's cksum is CKSUM (an edited test runs whole)\n" % len(union))
        for r in rows:
            o.write(r + "\n")
    print("sanitize-set: %d of %d tests kept, %d of them cut short; "
          "%.0f of %.0f s left out"
          % (sum(1 for t in keep if keep[t]), len(feats),
             sum(1 for r in rows if " only " in r),
             saved, total))


if __name__ == "__main__":
    main()
