# SPDX-License-Identifier: GPL-2.0-only
"""Run a script and print its own run time (pyperf-run bench, table i).

    python timed.py SCRIPT [ARGS...]

Prints "elapsed SECONDS" on stderr: the script's time inside the
interpreter, without start-up and without the recorder's own setup and
finish, so that a profiler's cost to the program is what is compared.
"""
import runpy
import sys
import time

script = sys.argv[1]
sys.argv = sys.argv[1:]
t0 = time.perf_counter()
try:
    runpy.run_path(script, run_name="__main__")
finally:
    sys.stderr.write("elapsed %.6f\n" % (time.perf_counter() - t0))
