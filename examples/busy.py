# SPDX-License-Identifier: GPL-2.0-only
"""A small program with a known split of CPU time, for trying pyperf-run.

    pyperf-run record examples/busy.py && pyperf-run report

About half the time is spent in parse_numbers(), a third in
Matrix.multiply() and the rest in checksum(), all called from main().
"""
import sys
import time


def parse_numbers(text):
    return [int(tok) for tok in text.split()]


class Matrix:
    def __init__(self, n):
        self.n = n
        self.rows = [[(i * n + j) % 7 for j in range(n)] for i in range(n)]

    def multiply(self, other):
        n = self.n
        cols = list(zip(*other.rows))
        return [[sum(a * b for a, b in zip(row, col)) for col in cols]
                for row in self.rows]


def checksum(data):
    h = 0
    for x in data:
        h = (h * 31 + x) & 0xFFFFFFFF
    return h


def spin(fn, seconds):
    """Call fn() repeatedly for about `seconds` of CPU time."""
    end = time.process_time() + seconds
    n = 0
    while time.process_time() < end:
        fn()
        n += 1
    return n


def main(scale=1.0):
    text = " ".join(str(i) for i in range(2000))
    m = Matrix(24)
    data = list(range(5000))
    spin(lambda: parse_numbers(text), 1.0 * scale)
    spin(lambda: m.multiply(m), 0.6 * scale)
    spin(lambda: checksum(data), 0.4 * scale)
    print("busy.py: done")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
