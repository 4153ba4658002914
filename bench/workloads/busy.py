# SPDX-License-Identifier: GPL-2.0-only
"""Load for the report benchmark (pyperf-run bench): NPROC processes
(argv[1], default 2) each running a mix of Python code for argv[2] CPU
seconds (default 2.8), so that a recording at a high frequency holds a
known number of samples whatever else runs on the machine.
"""
import json
import os
import re
import sys
import time


def parse(n):
    return len(json.loads(json.dumps([{"k": i, "v": str(i)}
                                       for i in range(n)])))


def match(n):
    return sum(1 for _ in re.finditer(r"\d+", " ".join(map(str, range(n)))))


def compute(n):
    return sum(sorted((i * 7919) % 1009 for i in range(n)))


def layer3(k):
    return (parse, match, compute)[k % 3](300)


def layer2(k):
    return layer3(k) + layer3(k + 1)


def layer1(k):
    return layer2(k)


def child(budget):
    t0 = time.process_time()
    k = 0
    while time.process_time() - t0 < budget:
        layer1(k)
        k += 1


def main():
    nproc = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 2.8
    pids = []
    for _ in range(nproc):
        pid = os.fork()
        if pid == 0:
            child(budget)
            os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)


main()
