# SPDX-License-Identifier: GPL-2.0-only
"""Mixed benchmark: objects, sorting, json, regex (pyperf-run bench)."""
import json
import os
import re
import sys


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm2(self):
        return self.x * self.x + self.y * self.y


def objects(n):
    pts = [Point(i % 97, i % 89) for i in range(n)]
    return sum(p.norm2() for p in pts)


def sorting(n):
    data = [(i * 7919) % 10007 for i in range(n)]
    data.sort()
    words = ["w%05d" % ((i * 31) % 9973) for i in range(n // 4)]
    return sorted(words, key=lambda w: (w[-1], w))[0]


def json_roundtrip(n):
    doc = {"items": [{"id": i, "name": "item%d" % i, "tags": ["a", "b"],
                      "price": i * 0.5} for i in range(n)]}
    return len(json.loads(json.dumps(doc))["items"])


WORD = re.compile(r"([a-z]+)(\d+)")


def regex(n):
    text = " ".join("abc%d xyz%d" % (i, i * 3) for i in range(n))
    return sum(len(m.group(1)) for m in WORD.finditer(text))


def one_round(scale):
    objects(2000 * scale)
    sorting(3000 * scale)
    json_roundtrip(300 * scale)
    regex(1000 * scale)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    for _ in range(rounds):
        one_round(1)


if os.environ.get("BENCH_PIDFILE"):
    with open(os.environ["BENCH_PIDFILE"], "a") as f:
        f.write("%d\n" % os.getpid())
main()
