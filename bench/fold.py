#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""fold.py: fold `perf script` output (default fields, with callchains)
into collapsed stacks, "comm;root;...;leaf count" lines, like
FlameGraph's stackcollapse-perf.pl.  The straightforward baseline the
report benchmark compares `pyperf-run report --format collapsed` with.

    perf script -i perf.data | python3 bench/fold.py > out.folded
"""
import re
import sys

HEADER = re.compile(r"^(\S.*?)\s+(\d+)(?:/\d+)?\s")
FRAME = re.compile(r"^\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)$")
OFFSET = re.compile(r"\+0x[0-9a-f]+$")


def main():
    counts = {}
    comm = None
    frames = []
    inp = sys.stdin.buffer
    for raw in inp:
        line = raw.decode("utf-8", "replace").rstrip("\n")
        if not line:
            if comm is not None:
                key = ";".join([comm] + frames[::-1])
                counts[key] = counts.get(key, 0) + 1
            comm = None
            frames = []
            continue
        if line[0] in " \t":
            m = FRAME.match(line)
            if m and comm is not None:
                sym = OFFSET.sub("", m.group(1))
                if sym == "[unknown]":
                    dso = m.group(2).rsplit("/", 1)[-1]
                    sym = dso if dso.startswith("[") else "[%s]" % dso
                frames.append(sym.replace(";", "_"))
            continue
        m = HEADER.match(line)
        if m:
            comm = m.group(1).replace(";", "_")
            frames = []
    if comm is not None:
        key = ";".join([comm] + frames[::-1])
        counts[key] = counts.get(key, 0) + 1
    out = sys.stdout
    for key in sorted(counts):
        out.write("%s %d\n" % (key, counts[key]))


if __name__ == "__main__":
    main()
