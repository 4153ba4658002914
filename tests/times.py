#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where the suite's time goes: test-lib.sh appends a line a subtest to
tests/.times (test, number, wall seconds, then the shell's children's
user and system CPU time before and after it); make check starts it
afresh.  This prints the tests and the subtests by wall time.

    python3 tests/times.py [tests/.times] [N]
"""
import collections
import sys


def seconds(t):
    m, s = t.rstrip("s").split("m")
    return int(m) * 60 + float(s)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/.times"
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    rows = []
    for line in open(path):
        f = line.split()
        if len(f) != 7:
            continue
        cpu = seconds(f[5]) + seconds(f[6]) - seconds(f[3]) - seconds(f[4])
        rows.append((f[0], int(f[1]), int(f[2]), cpu))
    per = collections.defaultdict(lambda: [0, 0.0, 0])
    for name, _n, wall, cpu in rows:
        per[name][0] += wall
        per[name][1] += cpu
        per[name][2] += 1
    print("%d subtests: %d s of wall time, %.0f s of CPU time"
          % (len(rows), sum(r[2] for r in rows), sum(r[3] for r in rows)))
    print("  wall    cpu  subtests  test")
    for name, (w, c, n) in sorted(per.items(), key=lambda x: -x[1][0])[:top]:
        print("%6d %6.0f %9d  %s" % (w, c, n, name))
    print("  wall    cpu  subtest")
    for name, n, wall, cpu in sorted(rows, key=lambda r: -r[2])[:top]:
        print("%6d %6.0f  %s %d" % (wall, cpu, name, n))


if __name__ == "__main__":
    main()
