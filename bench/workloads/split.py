# SPDX-License-Identifier: GPL-2.0-only
"""Accuracy workload (pyperf-run bench): spends CPU time in alpha, beta
and gamma in a known split, measures that split itself with
time.process_time, and writes it as JSON to argv[1].

Shares are inclusive and relative to main(): alpha/beta/gamma get about
50/30/20 % of main's CPU time; the rounds interleave them so that any
drift of the sampling over time does not favour one function.
"""
import json
import sys
import time


def work(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def spend(budget):
    t0 = time.process_time()
    while time.process_time() - t0 < budget:
        work(2000)


def alpha(budget):
    spend(budget)


def beta(budget):
    spend(budget)


def gamma(budget):
    spend(budget)


def main(total, out):
    spent = {"alpha": 0.0, "beta": 0.0, "gamma": 0.0}
    plan = (("alpha", alpha, 0.5), ("beta", beta, 0.3),
            ("gamma", gamma, 0.2))
    rounds = 20
    t_main = time.process_time()
    for _ in range(rounds):
        for name, fn, share in plan:
            t0 = time.process_time()
            fn(total * share / rounds)
            spent[name] += time.process_time() - t0
    t_main = time.process_time() - t_main
    with open(out, "w") as f:
        json.dump({"main": t_main, "functions": spent}, f)


main(float(sys.argv[2]) if len(sys.argv) > 2 else 1.5, sys.argv[1])
