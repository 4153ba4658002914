# SPDX-License-Identifier: GPL-2.0-only
"""A switch-heavy workload for `record --wall` (bench table w).

    python3 switch.py N

Two threads pass a byte back and forth over two pipes N times: each
round trip blocks each thread once (two off-CPU intervals).  Prints
"switch: N round trips in S s" with its own perf_counter() time.
"""
import os
import sys
import threading
import time


def main():
    n = int(sys.argv[1])
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()

    def echo():
        for _ in range(n):
            os.read(a_r, 1)
            os.write(b_w, b"y")
    t = threading.Thread(target=echo)
    t0 = time.perf_counter()
    t.start()
    for _ in range(n):
        os.write(a_w, b"x")
        os.read(b_r, 1)
    t.join()
    print("switch: %d round trips in %.6f s" % (n, time.perf_counter() - t0))


main()
