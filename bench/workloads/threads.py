# SPDX-License-Identifier: GPL-2.0-only
"""Many deep Python threads (pyperf-run bench, table i).

    python threads.py THREADS DEPTH SECONDS

THREADS threads each DEPTH Python frames deep run pure-Python work for
SECONDS of wall time; prints "ready PID" once they all run.
"""
import os
import sys
import threading
import time


# Each thread waits here, at its deepest frame, until all have started:
# started one by one while the others already spun, the 50th waited for
# the GIL behind 49 (8 to 11 s before "ready"; the attach then found the
# process gone).
GO = threading.Event()


def work(end):
    s = 0
    GO.wait()
    while time.monotonic() < end:
        for i in range(500):
            s += i * i
    return s


def down(n, end):
    if n <= 1:
        return work(end)
    return down(n - 1, end)


def main():
    nthreads, depth, secs = int(sys.argv[1]), int(sys.argv[2]), \
        float(sys.argv[3])
    end = time.monotonic() + secs
    threads = [threading.Thread(target=down, args=(depth, end))
               for _ in range(nthreads)]
    for t in threads:
        t.start()
    GO.set()
    print("ready %d" % os.getpid(), flush=True)
    for t in threads:
        t.join()


main()
