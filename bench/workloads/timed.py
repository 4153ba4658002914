# SPDX-License-Identifier: GPL-2.0-only
"""Run a script and print its own run time (pyperf-run bench, table i).

    python timed.py SCRIPT [ARGS...]

Prints "elapsed SECONDS" on stderr: the script's time inside the
interpreter, without start-up and without the recorder's own setup and
finish, so that a profiler's cost to the program is what is compared.
Then "span START END": the same stretch in time.monotonic() (the
system's CLOCK_MONOTONIC), so that a caller that timed the whole
command on that clock can split it into start, program and end.
"""
import runpy
import sys
import time

script = sys.argv[1]
sys.argv = sys.argv[1:]
m0 = time.monotonic()
t0 = time.perf_counter()
try:
    runpy.run_path(script, run_name="__main__")
finally:
    t1 = time.perf_counter()
    m1 = time.monotonic()
    sys.stderr.write("elapsed %.6f\n" % (t1 - t0))
    sys.stderr.write("span %.6f %.6f\n" % (m0, m1))
