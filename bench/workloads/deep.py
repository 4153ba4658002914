# SPDX-License-Identifier: GPL-2.0-only
"""Deep-stack workload (pyperf-run bench): recursion DEPTH Python frames
deep (argv[1], default 60) through a few kinds of calls (plain calls,
methods, a C function calling back into Python), with the CPU work at
the bottom; runs for argv[2] CPU seconds (default 1.5).
"""
import sys
import time


class Walker:
    def step(self, n, budget):
        return descend(n - 1, budget)


def leaf(budget):
    t0 = time.process_time()
    s = 0
    while time.process_time() - t0 < budget:
        s += sum(i * i for i in range(5000))
    return s


def via_sorted(n, budget):
    out = []
    sorted([1], key=lambda x: out.append(descend(n - 1, budget)))
    return out[0]


def descend(n, budget):
    if n <= 0:
        return leaf(budget)
    if n % 5 == 0:
        return via_sorted(n, budget)
    if n % 3 == 0:
        return Walker().step(n, budget)
    return descend(n - 1, budget)


def main():
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    # a level is up to three Python frames (via_sorted's lambda)
    sys.setrecursionlimit(max(1000, 3 * depth + 100))
    total = float(sys.argv[2]) if len(sys.argv) > 2 else 1.5
    for _ in range(30):
        descend(depth, total / 30)


main()
