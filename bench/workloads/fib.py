# SPDX-License-Identifier: GPL-2.0-only
"""Call-heavy benchmark: recursive fib (pyperf-run bench)."""
import os
import sys


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 29
    fib(n)


if os.environ.get("BENCH_PIDFILE"):
    with open(os.environ["BENCH_PIDFILE"], "a") as f:
        f.write("%d\n" % os.getpid())
main()
