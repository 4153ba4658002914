#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""pyperf-run benchmarks (`make bench`).

Six tables, measured side by side in one run, printed as markdown and
written to bench/results/<date>.md and bench/results/latest.md:

  (a) overhead of the profiled program per interpreter and backend
      (plain / native -X perf / native -X perf_jit / embedded perf /
      embedded jit / embedded context trampolines), recursive fib and a
      mixed workload;
  (b) end to end: pyperf-run record + report vs the documented manual
      perf record / perf inject --jit / perf report --stdio pipeline;
      and record's fixed cost: `-c pass` plain, under perf record (with
      and without --no-bpf-event) and under pyperf-run record;
  (c) report speed: report --format collapsed vs perf script alone and
      vs perf script piped into a plain folding script (bench/fold.py),
      on a session of >= 100k samples;
  (d) data: perf.data bytes per sample and stack completeness per
      --stack-size, and for the automatic choice;
  (e) accuracy: largest difference (percentage points) between the
      CPU split a program measures itself and the profiled shares;
  (f) complete stacks by depth (10 to 900 Python frames), mode and
      interpreter, with bytes per sample and record and report times.
  (g) the perf.data readers: report time and peak memory of `report
      --reader native`, `--reader perf-script`, `perf script --no-inline`
      and hotspot's perfparser (when installed), on a DWARF and a
      frame-pointer session.
  (w) record --wall: the program's own time plain, under record and
      under record --wall on a switch-heavy workload
      (bench/workloads/switch.py), perf.data bytes per switch, and
      report's time on a session of a million switches (100,000 with
      --quick).
  (k) record --wall --wakers against record --wall (both --mode bpf):
      the program's own time on table w's workload (switch.py), the
      session bytes per waker sample, and the requests/s of gunicorn
      serving tests/fixtures/flask-app.py (one gthread worker of 4
      threads) under wrk with each recorder attached by -p, in
      interleaved runs (min / median, best / median).
  (s) CPython 3.14 and 3.15 (Debian unstable's, in the root that
      .ci/setup.d/unstable-root.sh builds): the program's cost under
      record --mode bpf, and CPython 3.15's own sampler side by side (its
      cost, both tools' shares against split.py's own measure, and what
      each shows that the other does not).
  (l) a long attach (only with BENCH_PARTS=l: ten minutes, or
      BENCH_LONG_MINUTES): record --mode bpf -p on a gunicorn+Flask sync
      worker under wrk, the recorder's RSS and CPU each minute, the
      session's bytes per sample, report's time, requests/s.
  (v) with BENCH_BEFORE=REV (only then: not in the default parts):
      this build against revision REV's, built in a git worktree, the
      same commands interleaved: the program's own time under record
      (bpf and jit mode), record's whole time, report's time by format.

A cell that cannot be measured says "n/a (why)"; nothing is estimated.
Every command is spawned with an argument vector.

Usage: run.py --build BUILD [--out DIR] [--parts abcdefghiwks] [--reps N]
                            [--quick] [--before REV]
Environment: BENCH_PYTHONS (space-separated interpreter paths instead of
discovery), PYPERF_CACHE (frame-pointer build), BENCH_KEEP=1 (keep the
scratch directory).
"""

import argparse
import datetime
import glob
import json
import mmap
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
WL = os.path.join(HERE, "workloads")
DEVNULL = subprocess.DEVNULL


def log(msg):
    sys.stderr.write("bench: %s\n" % msg)
    sys.stderr.flush()


def na(reason):
    return "n/a (%s)" % reason


def first_line(text, limit=90):
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("hint:"):
            continue
        line = re.sub(r"^pyperf-run( \w+)?: ", "", line)
        line = line.replace("|", "/")
        return line if len(line) <= limit else line[:limit - 1] + "…"
    return "no message"


# --- running things -------------------------------------------------------

class Result:
    def __init__(self, code, wall, cpu, err, pid, rss=0.0, start=None):
        self.code = code
        self.wall = wall
        self.start = start  # time.monotonic() at the spawn (run())
        self.cpu = cpu
        self.err = err
        self.pid = pid
        self.rss = rss      # peak RSS (MB) of the command's largest process


def _status(status):
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    return -1


def run(argv, env=None, cwd=None, stdout=None, timeout=300):
    """Run argv; return Result with wall time, the child's CPU time
    (user + system, from wait4) and its stderr."""
    errf = tempfile.TemporaryFile()
    out = stdout if stdout is not None else DEVNULL
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=DEVNULL,
                         stdout=out, stderr=errf)
    timer = threading.Timer(timeout, lambda: p.kill())
    timer.start()
    try:
        _, status, ru = os.wait4(p.pid, 0)
    finally:
        timer.cancel()
    wall = time.monotonic() - t0
    p.returncode = _status(status)
    errf.seek(0)
    err = errf.read().decode("utf-8", "replace")
    errf.close()
    return Result(p.returncode, wall, ru.ru_utime + ru.ru_stime, err,
                  p.pid, ru.ru_maxrss / 1024.0, t0)


def run_pipe(argv1, argv2, env=None, cwd=None, timeout=300):
    """argv1 | argv2 > /dev/null; wall time and both CPU times."""
    errf = tempfile.TemporaryFile()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p1 = subprocess.Popen(argv1, env=env, cwd=cwd, stdin=DEVNULL,
                          stdout=subprocess.PIPE, stderr=errf)
    p2 = subprocess.Popen(argv2, env=env, cwd=cwd, stdin=p1.stdout,
                          stdout=DEVNULL, stderr=errf)
    p1.stdout.close()
    try:
        p2.wait(timeout)
        p1.wait(timeout)
    except subprocess.TimeoutExpired:
        p1.kill()
        p2.kill()
        p1.wait()
        p2.wait()
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + \
        (after.ru_stime - before.ru_stime)
    errf.seek(0)
    err = errf.read().decode("utf-8", "replace")
    code = p1.returncode or p2.returncode
    return Result(code, wall, cpu, err, p1.pid)


def clean_env(extra=None):
    env = dict(os.environ)
    for k in ("PYTHONPERFSUPPORT", "PYTHON_PERF_JIT_SUPPORT",
              "PYPERF_TRAMPOLINE", "PYTHONSTARTUP", "PYTHONPATH",
              "PYTHONDEVMODE"):
        env.pop(k, None)
    env["LC_ALL"] = "C"
    if extra:
        env.update(extra)
    return env


# --- interpreters ---------------------------------------------------------

PROBE = r"""
import json, sys, sysconfig
flags = (sysconfig.get_config_var("CFLAGS") or "").split()
fp = None
leaf = False
for f in flags:
    if f == "-fno-omit-frame-pointer":
        fp = True
    elif f == "-fomit-frame-pointer":
        fp = False
    elif f == "-mno-omit-leaf-frame-pointer":
        leaf = True
print(json.dumps({
    "version": "%d.%d" % sys.version_info[:2],
    "full": sys.version.split()[0],
    "exe": sys.executable,
    "tramp": bool(sysconfig.get_config_var("PY_HAVE_PERF_TRAMPOLINE")),
    "fp": bool(fp) and leaf,
}))
"""


class Python:
    def __init__(self, path, origin, info):
        self.path = path
        self.origin = origin
        self.version = info["version"]
        self.full = info["full"]
        self.tramp = info["tramp"]
        self.fp = info["fp"]
        self.minor = int(self.version.split(".")[1])

    @property
    def label(self):
        return "%s (%s)" % (self.full, self.origin)


def probe(path, origin):
    try:
        r = subprocess.run([path, "-c", PROBE], stdout=subprocess.PIPE,
                           stderr=DEVNULL, env=clean_env(), timeout=30)
        if r.returncode != 0:
            return None
        return Python(path, origin, json.loads(r.stdout.decode()))
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def fp_python_path():
    cache = os.environ.get("PYPERF_CACHE") or \
        os.path.join(os.path.expanduser("~"), ".cache", "pyperf-run")
    return os.path.join(cache, "fp-python", "bin", "python3.11")


def discover():
    found = []
    seen = set()

    def add(path, origin):
        if not os.access(path, os.X_OK):
            return
        real = os.path.realpath(path)
        if real in seen:
            return
        py = probe(path, origin)
        if py is None or not (8 <= py.minor <= 13) or \
                not py.version.startswith("3."):
            return
        seen.add(real)
        found.append(py)

    if os.environ.get("BENCH_PYTHONS"):
        for p in os.environ["BENCH_PYTHONS"].replace(":", " ").split():
            add(p, "given")
        return found
    fp = fp_python_path()
    add(fp, "frame pointers")
    root = os.environ.get("PYENV_ROOT")
    try:
        r = subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE,
                           stderr=DEVNULL, timeout=10)
        if r.returncode == 0 and r.stdout.strip():
            root = r.stdout.decode().strip()
    except OSError:
        pass
    pyenv_paths = []
    if root:
        for d in sorted(glob.glob(os.path.join(root, "versions", "*",
                                               "bin"))):
            for p in sorted(glob.glob(os.path.join(d, "python3.[0-9]*"))):
                if re.search(r"python3\.\d+$", p):
                    pyenv_paths.append(p)
    for d in os.environ.get("PATH", "").split(":"):
        if not d or "pyenv" in d:
            continue
        for p in sorted(glob.glob(os.path.join(d, "python3.[0-9]*"))):
            if re.search(r"python3\.\d+$", p):
                add(p, "system")
    for p in pyenv_paths:
        add(p, "pyenv")
    found.sort(key=lambda py: (py.minor, {"pyenv": 0, "system": 1}.get(
        py.origin, 2)))
    return found


# --- the tool under test --------------------------------------------------

class Tool:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.ppr = os.path.join(self.build, "pyperf-run")
        self.wrapper = os.path.join(self.build, "wrappers", "pyperf-python")
        self.have_ppr = os.access(self.ppr, os.X_OK)
        self.have_wrapper = os.access(self.wrapper, os.X_OK)
        self._have = {}

    def has(self, sub):
        """Is `pyperf-run SUB` implemented in this build?"""
        if sub not in self._have:
            ok = False
            if self.have_ppr:
                r = run([self.ppr, sub, "-h"], timeout=30)
                ok = r.code == 0 and "not implemented" not in r.err
            self._have[sub] = ok
        return self._have[sub]

    def embedded_env(self, py, mode):
        """The environment pyperf-python and record give an interpreter
        for the embedded trampoline (`pyperf-run trampoline env`), as a
        dict, or why there is none."""
        if not self.have_ppr:
            return "no pyperf-run in build"
        try:
            r = subprocess.run([self.ppr, "trampoline", "env", "--python",
                                py.path, "--mode", mode],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
        if r.returncode != 0:
            return first_line(r.stderr.decode("utf-8", "replace"), 50)
        env = {}
        for line in r.stdout.decode().splitlines():
            k, sep, v = line.partition("=")
            if sep:
                env[k] = v
        return env or "trampoline env printed nothing"

    def missing(self, sub):
        if not self.have_ppr:
            return "no %s" % os.path.relpath(self.ppr, SRCDIR)
        return "no `%s` yet" % sub


def perf_version():
    try:
        r = subprocess.run(["perf", "version"], stdout=subprocess.PIPE,
                           stderr=DEVNULL, timeout=30)
        return r.stdout.decode().strip()
    except OSError:
        return None


# --- markdown -------------------------------------------------------------

def table(headers, rows):
    out = ["| " + " | ".join(headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def ratio(x, base):
    return "%.2f×" % (x / base)


def ms(x):
    return "%.0f ms" % (x * 1000)


def secs(x):
    return "%.2f s" % x


# --- (a) overhead -----------------------------------------------------------

OVERHEAD_COLS = ["native perf", "native perf_jit", "embedded perf",
                 "embedded jit", "embedded ctx"]


def trampoline_files(pid, dirs):
    names = ("perf-%d.map" % pid, "jit-%d.dump" % pid)
    return [os.path.join(d, n) for d in dirs for n in names
            if os.path.exists(os.path.join(d, n))]


def overhead_configs(py, tool):
    """{column: argv-prefix or n/a string} for one interpreter."""
    cfg = {}
    if py.tramp:
        cfg["native perf"] = [py.path, "-X", "perf"]
    else:
        cfg["native perf"] = na("%s has no trampoline" % py.version)
    if py.tramp and py.minor >= 13:
        cfg["native perf_jit"] = [py.path, "-X", "perf_jit"]
    else:
        cfg["native perf_jit"] = na("3.13+ only")
    # embedded ctx: what record runs (perf maps + context trampolines)
    for col, x in (("embedded perf", "perf"), ("embedded jit", "perf_jit"),
                   ("embedded ctx", "ctx")):
        if not 8 <= py.minor <= 13:
            cfg[col] = na("the embedded trampoline serves 3.8-3.13")
            continue
        env = tool.embedded_env(py, "jit" if x == "perf_jit" else "perf")
        if isinstance(env, dict):
            if x == "ctx":
                env = dict(env, PYPERF_TRAMPOLINE_CONTEXTS="1")
            cfg[col] = (env, [py.path])
        elif tool.have_wrapper and x != "ctx":
            cfg[col] = [tool.wrapper, "--python", py.path, "-X", x]
        else:
            cfg[col] = na(env)
    return cfg


def check_active(argv, env, dumpdir):
    """Does this command line activate a trampoline?  None or why not."""
    code = ("import sys\n"
            "f = getattr(sys, 'is_stack_trampoline_active', None)\n"
            "sys.stderr.write('active' if f and f() else 'inactive')\n")
    r = run(argv + ["-c", code], env=env)
    for f in trampoline_files(r.pid, ["/tmp", dumpdir]):
        os.unlink(f)
    if r.code != 0:
        return "fails: %s" % first_line(r.err, 60)
    if not r.err.rstrip().endswith("active") or \
            r.err.rstrip().endswith("inactive"):
        return "not activated"
    return None


def part_a(args, pythons, tool, scratch):
    dumpdir = os.path.join(scratch, "dumps")
    os.makedirs(dumpdir, exist_ok=True)
    env = clean_env({"PYPERF_TRAMPOLINE_DIR": dumpdir})
    workloads = [("fib", [os.path.join(WL, "fib.py")]),
                 ("mixed", [os.path.join(WL, "mixed.py")])]
    plan = []          # (py, wl, col, argv)
    cells = {}         # (py.label, wl, col) -> str (n/a)
    times = {}         # (py.label, wl, col) -> [cpu seconds]
    for py in pythons:
        cfg = overhead_configs(py, tool)
        for col in OVERHEAD_COLS:
            c = cfg[col]
            if isinstance(c, tuple):
                e = dict(env)
                e.update(c[0])
                e["PYPERF_TRAMPOLINE_DIR"] = dumpdir
                cfg[col] = c = (e, c[1])
            if not isinstance(c, str):
                argv, e = (c[1], c[0]) if isinstance(c, tuple) else (c, env)
                why = check_active(argv, e, dumpdir)
                if why:
                    cfg[col] = na(why)
        cfg["plain"] = [py.path]
        for wname, wargv in workloads:
            for col in ["plain"] + OVERHEAD_COLS:
                c = cfg[col]
                if isinstance(c, str):
                    cells[(py.label, wname, col)] = c
                    continue
                argv, e = (c[1], c[0]) if isinstance(c, tuple) else (c, env)
                plan.append((py, wname, col, argv + wargv, e))
                times[(py.label, wname, col)] = []
    log("(a) %d configurations x %d runs" % (len(plan), args.reps))
    failed = {}
    for rep in range(args.reps):
        for py, wname, col, argv, e in plan:
            key = (py.label, wname, col)
            if key in failed:
                continue
            r = run(argv, env=e)
            files = trampoline_files(r.pid, ["/tmp", dumpdir])
            for f in files:
                try:
                    os.unlink(f)
                except OSError:
                    pass
            for f in glob.glob(os.path.join(dumpdir, "*")):
                shutil.rmtree(f, ignore_errors=True) if os.path.isdir(f) \
                    else os.unlink(f)
            if r.code != 0:
                failed[key] = na("exit %d: %s" % (r.code, first_line(r.err,
                                                                      50)))
            elif col != "plain" and not files:
                failed[key] = na("no map/dump written")
            else:
                times[key].append(r.cpu)
    rows = []
    for py in pythons:
        for wname, _ in workloads:
            base_key = (py.label, wname, "plain")
            if base_key in failed:
                rows.append([py.label, wname, failed[base_key]] +
                            ["n/a (no baseline)"] * len(OVERHEAD_COLS))
                continue
            base = min(times[base_key])
            row = [py.label, wname, ms(base)]
            for col in OVERHEAD_COLS:
                key = (py.label, wname, col)
                if key in cells:
                    row.append(cells[key])
                elif key in failed:
                    row.append(failed[key])
                else:
                    row.append(ratio(min(times[key]), base))
            rows.append(row)
    text = ("### (a) Profiled-program overhead (no perf running)\n\n"
            "CPU time (user+sys) of the whole process, minimum of %d "
            "interleaved runs; ratios are to `plain`. Embedded columns: "
            "the interpreter run directly with the environment "
            "`pyperf-python` and `record` give it (`pyperf-run trampoline "
            "env`), so this is the library's own cost; the wrapper's "
            "start-up is in the table below. A backend counts only if "
            "its map/dump file was written. `embedded jit` is one "
            "trampoline per code object (pyperf-python); `embedded ctx` "
            "is what record runs, context trampolines (one per call "
            "path). Goals on fib: ctx ≤ 1.10× on 3.8-3.10, ≤ native "
            "`-X perf` on 3.12 and 3.13.\n\n" % args.reps)
    text += table(["interpreter", "workload", "plain"] + OVERHEAD_COLS,
                  rows)
    text += "\n\n" + wrapper_startup(args, pythons, tool, env)
    return text


def wrapper_startup(args, pythons, tool, env):
    """CPU time of `pyperf-python --python P -X perf -c pass` vs
    `P -c pass` (the wrapper probes the interpreter on every start)."""
    head = "`pyperf-python` start-up (`-c pass`, CPU ms, min of %d): " % (
        args.reps)
    if not tool.have_wrapper:
        return head + "n/a (no pyperf-python in build)\n"
    cells = []
    for py in pythons:
        if py.minor >= 13:
            continue
        x = "perf" if py.minor < 12 else "perf_jit"
        plain, wrapped = [], []
        for _ in range(args.reps):
            r = run([py.path, "-c", "pass"], env=env)
            plain.append(r.cpu)
            r = run([tool.wrapper, "--python", py.path, "-X", x, "-c",
                     "pass"], env=env)
            for f in trampoline_files(r.pid, ["/tmp",
                                             env["PYPERF_TRAMPOLINE_DIR"]]):
                os.unlink(f)
            if r.code != 0:
                wrapped = None
                break
            wrapped.append(r.cpu)
        cells.append("%s %s → %s" % (
            py.label, ms(min(plain)),
            ms(min(wrapped)) if wrapped else "n/a (fails)"))
    return head + "; ".join(cells) + ".\n"


# --- recording helpers ------------------------------------------------------

def wall_intervals(meta):
    """The off-CPU intervals a --wall session holds, from its meta:
    perf record's route counts its switches; bpf mode, its samples
    besides the walker's cpu-clock ones.  None when it says neither."""
    if meta.get("switches"):
        return meta["switches"]
    try:
        n = int(meta["samples"]) - int(meta["walker_samples"])
    except (KeyError, ValueError):
        return None
    return str(n) if n > 0 else None


def read_meta(session):
    meta = {}
    try:
        with open(os.path.join(session, "meta"), encoding="utf-8",
                  errors="replace") as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    meta[k] = v
    except OSError:
        pass
    return meta


def ppr_record(tool, session, script_argv, python=None, mode=None,
               freq=None, stack=None, env=None):
    argv = [tool.ppr, "record", "-q", "-o", session]
    if python:
        argv += ["--python", python]
    if mode:
        argv += ["--mode", mode]
    if freq:
        argv += ["-F", str(freq)]
    if stack:
        argv += ["--stack-size", str(stack)]
    return run(argv + script_argv, env=env, timeout=600)


def ppr_collapsed(tool, session, env=None):
    """The collapsed stacks of a session: [(frames, count)] or a str."""
    outf = tempfile.TemporaryFile()
    r = run([tool.ppr, "report", "-i", session, "--format", "collapsed"],
            env=env, stdout=outf, timeout=600)
    if r.code != 0:
        outf.close()
        return na("report: %s" % first_line(r.err, 60))
    outf.seek(0)
    stacks = parse_collapsed(raw.decode("utf-8", "replace") for raw in outf)
    outf.close()
    return stacks


def parse_collapsed(lines):
    """[(frames, count)] of collapsed-stack lines ("a;b;c COUNT")."""
    stacks = []
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack and count.isdigit():
            stacks.append((stack.split(";"), int(count)))
    return stacks


def collapsed_shares(stacks, funcs, is_frame):
    """Inclusive shares (percent) of funcs among the samples whose stack
    holds main() or one of them; stacks: [(frames, count)]; is_frame(f,
    fn): is frame name f the function fn of the workload.  (shares,
    samples) or (None, 0)."""
    counts = dict.fromkeys(funcs, 0)
    denom = 0
    for frames, c in stacks:
        hit = [fn for fn in funcs if any(is_frame(f, fn) for f in frames)]
        if hit or any(is_frame(f, "main") for f in frames):
            denom += c
        for fn in hit:
            counts[fn] += c
    if not denom:
        return None, 0
    return [100.0 * counts[fn] / denom for fn in funcs], denom


def pyframe(name, func, script):
    """Is collapsed frame name the Python function func of script?"""
    return name.startswith(func + " (") and \
        name.rstrip(")").endswith(os.path.basename(script))


# --- (b) end to end ---------------------------------------------------------

def part_b(args, pythons, tool, scratch):
    freq, stack = 999, 16384
    script = os.path.join(WL, "mixed.py")
    wl = [script, "120"]
    cases = []
    py313 = next((p for p in pythons if p.minor == 13 and p.tramp), None)
    sys311 = next((p for p in pythons if p.minor == 11 and
                   p.origin == "system"), None)
    fp = next((p for p in pythons if p.fp), None)
    cases.append(("jit", py313, "native -X perf_jit",
                  lambda py: [py.path, "-X", "perf_jit"]))
    cases.append(("jit", sys311, "pyperf-python -X perf_jit",
                  lambda py: [tool.wrapper, "--python", py.path,
                              "-X", "perf_jit"]))
    cases.append(("perf", fp, "pyperf-python -X perf",
                  lambda py: [tool.wrapper, "--python", py.path,
                              "-X", "perf"]))
    rows = []
    for mode, py, how, cmd in cases:
        if py is None:
            rows.append([mode, "n/a (no such interpreter)"] + [""] * 8)
            continue
        label = "%s, %s" % (mode, py.label)
        pidfile = os.path.join(scratch, "b.pids")
        env = clean_env({"PERF_BUILDID_DIR": os.path.join(scratch,
                                                          "b-buildid"),
                         "BENCH_PIDFILE": pidfile})
        ours = {"rec": [], "rep": []}
        manual = {"rec": [], "inj": [], "rep": []}
        ours_na = None
        manual_na = None
        if not tool.has("record") or not tool.has("report"):
            ours_na = na(tool.missing("record" if not tool.has("record")
                                      else "report"))
        if "pyperf-python" in how and not tool.have_wrapper:
            manual_na = na("no pyperf-python in build")
        log("(b) %s" % label)
        for rep in range(args.reps_e2e):
            if manual_na is None:
                d = os.path.join(scratch, "b-manual")
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                data = os.path.join(d, "perf.data")
                rec = ["perf", "record", "-q", "-F", str(freq),
                       "-e", "cpu-clock", "-o", data]
                if mode == "jit":
                    rec += ["-k", "1", "--call-graph", "dwarf,%d" % stack]
                else:
                    rec += ["-g"]
                r = run(rec + ["--"] + cmd(py) + wl, env=env, cwd=d)
                if r.code != 0:
                    manual_na = na("perf record: %s" % first_line(r.err, 50))
                    continue
                manual["rec"].append(r.wall)
                rep_in = data
                if mode == "jit":
                    rep_in = os.path.join(d, "perf.jit.data")
                    r = run(["perf", "inject", "-i", data, "--jit", "-o",
                             rep_in], env=env, cwd=d)
                    if r.code != 0:
                        manual_na = na("perf inject: %s" % first_line(r.err,
                                                                     50))
                        continue
                    manual["inj"].append(r.wall)
                r = run(["perf", "report", "--stdio", "-i", rep_in],
                        env=env, cwd=d)
                if r.code != 0:
                    manual_na = na("perf report: %s" % first_line(r.err, 50))
                    continue
                manual["rep"].append(r.wall)
                cleanup_pids(pidfile)
                shutil.rmtree(d, ignore_errors=True)
            if ours_na is None:
                d = os.path.join(scratch, "b-ours")
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
                session = os.path.join(d, "session")
                r = ppr_record(tool, session, wl, python=py.path,
                               mode=mode, freq=freq, stack=stack
                               if mode == "jit" else None, env=env)
                if r.code != 0:
                    ours_na = na("record: %s" % first_line(r.err, 60))
                    continue
                ours["rec"].append(r.wall)
                r = run([tool.ppr, "report", "-i", session], env=env)
                if r.code != 0:
                    ours_na = na("report: %s" % first_line(r.err, 60))
                    continue
                ours["rep"].append(r.wall)
                cleanup_pids(pidfile)
                shutil.rmtree(d, ignore_errors=True)
        row = [label, how]
        if ours_na:
            row += [ours_na, "", ""]
            t_ours = None
        else:
            a, b = min(ours["rec"]), min(ours["rep"])
            t_ours = a + b
            row += [secs(a), secs(b), secs(t_ours)]
        if manual_na:
            row += [manual_na, "", "", ""]
            t_manual = None
        else:
            a = min(manual["rec"])
            b = min(manual["inj"]) if manual["inj"] else 0.0
            c = min(manual["rep"])
            t_manual = a + b + c
            row += [secs(a), secs(b) if manual["inj"] else "—", secs(c),
                    secs(t_manual)]
        if t_ours and t_manual:
            row.append(ratio(t_ours, t_manual))
        else:
            row.append("n/a")
        rows.append(row)
    text = ("### (b) End to end: pyperf-run vs the manual pipeline\n\n"
            "Wall time, minimum of %d runs, `-F %d`, dwarf stack %d "
            "(jit), workload `mixed.py 120`. Manual: `perf record` "
            "(`-k 1 --call-graph dwarf,%d` or `-g`), `perf inject --jit` "
            "(jit), `perf report --stdio`. Goal: ratio < 1.\n\n"
            % (args.reps_e2e, freq, stack, stack))
    text += table(["mode, interpreter", "manual Python side",
                   "ppr record", "ppr report", "ppr total",
                   "perf record", "perf inject", "perf report",
                   "manual total", "ppr / manual"], rows)
    text += "\n" + fixed_cost(args, pythons, tool, scratch)
    return text


def fixed_cost(args, pythons, tool, scratch):
    """record's own cost around a program that does nothing: `-c pass`
    plain, under the documented perf record (with and without
    --no-bpf-event, which record passes when perf takes it) and under
    pyperf-run record, interleaved so that the machine's load falls on
    every row alike."""
    reps = 3 if args.quick else 5
    py = next((p for p in pythons if p.minor == 11 and
               p.origin == "system"), None) or \
        next((p for p in pythons if p.tramp), None)
    if py is None:
        return "#### (b2) record's fixed cost\n\nn/a (no interpreter)\n"
    d = os.path.join(scratch, "b-fixed")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = clean_env({"PERF_BUILDID_DIR": os.path.join(scratch, "b-buildid")})
    prog = [py.path, "-c", "pass"]
    data = os.path.join(d, "perf.data")
    perf_rec = ["perf", "record", "-q", "-F", "999", "-e", "cpu-clock",
                "-k", "1", "--call-graph", "dwarf,16384", "-N", "-o", data]
    # ask perf, as record does (lib/perfcmd.h)
    takes = run(["perf", "record", "--dry-run", "--no-bpf-event"],
                env=env).code == 0
    rows = [("`python -c pass`", prog),
            ("`perf record ... python -c pass`", perf_rec + ["--"] + prog),
            ("`perf record --no-bpf-event ...`",
             perf_rec + ["--no-bpf-event", "--"] + prog if takes else None),
            ("`pyperf-run record -c pass`", None)]
    times = [[] for _ in rows]
    why = [None] * len(rows)
    if not takes:
        why[2] = na("this perf does not take --no-bpf-event")
    if not tool.has("record"):
        why[3] = na(tool.missing("record"))
    log("(b2) fixed cost, %s" % py.label)
    for rep in range(reps):
        for i, (_, argv) in enumerate(rows):
            if why[i]:
                continue
            if i == 3:
                session = os.path.join(d, "session")
                r = ppr_record(tool, session, ["-c", "pass"],
                               python=py.path, env=env)
                shutil.rmtree(session, ignore_errors=True)
                shutil.rmtree(session + ".old", ignore_errors=True)
            else:
                r = run(argv, env=env, cwd=d)
            if r.code != 0:
                why[i] = na(first_line(r.err, 60) or "exit %d" % r.code)
                continue
            times[i].append(r.wall)
    shutil.rmtree(d, ignore_errors=True)
    base = min(times[0]) if times[0] and not why[0] else None
    out = []
    for i, (label, _) in enumerate(rows):
        if why[i]:
            out.append([label, why[i], ""])
            continue
        t = min(times[i])
        out.append([label, ms(t), ratio(t, base) if base else "n/a"])
    text = ("#### (b2) record's fixed cost\n\n"
            "Wall time of a program that does nothing (%s), minimum of %d "
            "runs taken in turn. perf record: `-F 999 -e cpu-clock -k 1 "
            "--call-graph dwarf,16384 -N`; pyperf-run record: its own "
            "choice (it passes `--no-bpf-event` when perf takes it). "
            "Ratio: to the plain run.\n\n" % (py.label, reps))
    text += table(["command", "wall", "vs plain"], out)
    return text


def cleanup_pids(pidfile):
    """Remove what CPython's native backends left in /tmp for our pids."""
    try:
        with open(pidfile) as f:
            pids = [int(x) for x in f.read().split() if x.isdigit()]
        os.unlink(pidfile)
    except OSError:
        return
    for pid in pids:
        for f in ("/tmp/perf-%d.map" % pid, "/tmp/jit-%d.dump" % pid):
            try:
                os.unlink(f)
            except OSError:
                pass


# --- (c) report speed -------------------------------------------------------

def part_c(args, pythons, tool, scratch):
    nproc = 2
    try:
        with open("/proc/sys/kernel/perf_event_max_sample_rate") as f:
            cap = int(f.read())
    except (OSError, ValueError):
        cap = 20000
    freq = max(1000, min(20000, cap))
    # enough CPU seconds for args.busy_samples samples, at most 10 s each
    budget = min(10.0, args.busy_samples / float(freq * nproc) * 1.05)
    head = ("### (c) Report speed on a large session\n\n")
    if not tool.has("record") or not tool.has("report"):
        return head + "n/a (%s)\n" % tool.missing(
            "record" if not tool.has("record") else "report")
    fp = next((p for p in pythons if p.fp), None)
    py = fp or next((p for p in pythons if p.minor == 13), None)
    if py is None:
        return head + "n/a (no frame-pointer build and no 3.13)\n"
    mode = "perf" if py.fp else "jit"
    session = os.path.join(scratch, "c-session")
    env = clean_env()
    log("(c) recording %d processes x %.1f CPU s at -F %d (%s mode, %s)"
        % (nproc, budget, freq, mode, py.label))
    r = ppr_record(tool, session, [os.path.join(WL, "busy.py"), str(nproc),
                                   str(budget)],
                   python=py.path, mode=mode, freq=freq,
                   stack=8192 if mode == "jit" else None, env=env)
    if r.code != 0:
        return head + na("record: %s" % first_line(r.err)) + "\n"
    meta = read_meta(session)
    data = os.path.join(session, "perf.data")
    size = os.path.getsize(data) if os.path.exists(data) else 0
    buildid = ["--buildid-dir", os.path.join(session, "buildid")]
    fields = "comm,pid,tid,time,period,event,ip,sym,dso"
    cmds = [
        ("`pyperf-run report --format collapsed`", "one",
         [tool.ppr, "report", "-i", session, "--format", "collapsed"]),
        ("`perf script --no-inline` (default fields)", "one",
         ["perf"] + buildid + ["script", "-i", data, "--no-inline"]),
        ("`perf script --no-inline -F %s` (what report runs)" % fields,
         "one",
         ["perf"] + buildid + ["script", "-i", data, "--no-inline",
                               "-F", fields]),
        ("`perf script` (default) piped to `bench/fold.py`", "pipe",
         (["perf"] + buildid + ["script", "-i", data],
          [sys.executable, os.path.join(HERE, "fold.py")])),
    ]
    res = {}
    samples = meta.get("samples")
    for rep in range(args.reps_report):
        for name, kind, argv in cmds:
            if kind == "one":
                r = run(argv, env=env)
            else:
                r = run_pipe(argv[0], argv[1], env=env)
            if r.code != 0:
                res[name] = na(first_line(r.err, 60))
                continue
            if isinstance(res.get(name), str):
                continue
            res.setdefault(name, []).append((r.wall, r.cpu))
    if not samples:
        st = ppr_collapsed(tool, session, env)
        if isinstance(st, list):
            samples = str(sum(c for _, c in st))
    base_name = cmds[1][0]
    base = res.get(base_name)
    rows = []
    for name, _, _ in cmds:
        v = res.get(name)
        if isinstance(v, str) or v is None:
            rows.append([name, v or "n/a", "", "", ""])
            continue
        wall = min(x[0] for x in v)
        cpu = min(x[1] for x in v)
        if isinstance(base, list):
            bw = min(x[0] for x in base)
            bc = min(x[1] for x in base)
            rows.append([name, secs(wall), secs(cpu), ratio(wall, bw),
                         ratio(cpu, bc)])
        else:
            rows.append([name, secs(wall), secs(cpu), "n/a", "n/a"])
    text = head + ("Session: %s samples, perf.data %.1f MB, %s mode on %s, "
                   "`-F %d` (the kernel's cap here: %d), %d processes. "
                   "Minimum of %d runs; CPU = user+"
                   "sys of all processes of the command. Goal: report ≤ "
                   "1.2× `perf script --no-inline`.\n\n"
                   % (samples or "?", size / 1e6, meta.get("mode", mode),
                      py.label, freq, cap, nproc, args.reps_report))
    text += table(["command", "wall", "CPU", "wall ×", "CPU ×"], rows)
    return text



# --- (g) readers ------------------------------------------------------------

def run_rss(argv, env=None, timeout=600):
    """run() for table g: (code, wall, cpu, peak RSS in MB of the
    largest process of the command, stderr)."""
    r = run(argv, env=env, timeout=timeout)
    return r.code, r.wall, r.cpu, r.rss, r.err


def perfparser_path():
    """hotspot's perfparser, when installed (Debian: hotspot)."""
    for name in ("hotspot-perfparser", "perfparser"):
        path = shutil.which(name)
        if path:
            return path
    for d in ("/usr/lib/x86_64-linux-gnu/libexec", "/usr/libexec",
              "/usr/lib/hotspot"):
        path = os.path.join(d, "hotspot-perfparser")
        if os.access(path, os.X_OK):
            return path
    return None


def cached_perf(kind):
    """perf 6.12 as .ci/setup.d/perf-6.12.sh builds it (kind: libdw or
    libunwind), or None."""
    cache = os.environ.get("PYPERF_CACHE") or \
        os.path.join(os.path.expanduser("~"), ".cache", "pyperf-run")
    path = os.path.join(cache, "perf-6.12", kind, "perf")
    return path if os.access(path, os.X_OK) else None


def frames_per_sample(argv, samples, env=None):
    """Frame lines perf script prints per sample (a run outside the
    timed ones), or None."""
    if not samples:
        return None
    outf = tempfile.TemporaryFile()
    r = run(argv, env=env, stdout=outf, timeout=600)
    n = 0
    if r.code == 0:
        outf.seek(0)
        for raw in outf:
            if raw[:1] in (b"\t", b" ") and raw.strip():
                n += 1
    outf.close()
    return n / float(samples) if r.code == 0 else None


def part_g(args, pythons, tool, scratch):
    head = ("### (g) Readers: the native perf.data reader, `perf script`, "
            "hotspot's perfparser\n\n")
    if not tool.has("record") or not tool.has("report"):
        return head + "n/a (%s)\n" % tool.missing(
            "record" if not tool.has("record") else "report")
    env = clean_env()
    seconds = 2.0 if args.quick else 8.0
    sessions = []
    jitpy = next((p for p in pythons if p.minor == 13), None) or \
        next((p for p in pythons if not p.fp), None)
    # (label, name, python, mode, dump size, perf that records)
    if jitpy:
        sessions.append(("DWARF (jit mode, 32 KiB dumps, %s)" % jitpy.label,
                         "g-dwarf", jitpy, "jit", 32768, None))
    # With context trampolines perf script stops at the innermost one
    # (it has no unwind table for it): it does a fraction of the native
    # reader's work.  Recorded by a perf that unwinds with libdw, the
    # session has one trampoline per function and a jitdump, and perf
    # script unwinds the whole dump as the native reader does.
    dwperf = cached_perf("libdw")
    if jitpy and dwperf:
        sessions.append(("DWARF, whole stacks for perf too (jit mode, "
                         "one trampoline per function and a jitdump, as "
                         "record does for a libdw perf; 32 KiB dumps, %s)"
                         % jitpy.label, "g-dwarf-whole", jitpy, "jit",
                         32768, dwperf))
    fp = next((p for p in pythons if p.fp), None)
    if fp:
        sessions.append(("frame pointers (perf map mode, %s)" % fp.label,
                         "g-fp", fp, "perf", None, None))
    if not sessions:
        return head + "n/a (no interpreter)\n"
    pp = perfparser_path()
    fields = "comm,pid,tid,time,period,event,ip,sym,dso"
    text = head + ("Report time of the same perf.data through each reader "
                   "(minimum of %d runs; CPU = user+sys of the whole "
                   "command; RSS = peak resident size of its largest "
                   "process). `--reader perf-script` runs with the "
                   "session's cache removed. Goals (issue 14): DWARF "
                   "report ≤ 0.2× `perf script --no-inline` and ≤ 0.5× "
                   "perfparser; frame pointers ≤ 0.3× perf script.\n\n"
                   % args.reps_report)
    for label, name, py, mode, stack, rec_perf in sessions:
        session = os.path.join(scratch, name)
        log("(g) recording %s" % label)
        extra = ["--perf", rec_perf] if rec_perf else []
        r = ppr_record(tool, session, extra +
                       [os.path.join(WL, "busy.py"), "2", str(seconds)],
                       python=py.path, mode=mode, stack=stack, env=env)
        if r.code != 0:
            text += "%s: %s\n\n" % (label,
                                     na("record: %s" % first_line(r.err)))
            continue
        meta = read_meta(session)
        data = os.path.join(session, "perf.data")
        size = os.path.getsize(data) if os.path.exists(data) else 0
        buildid = os.path.join(session, "buildid")
        perf = rec_perf or "perf"
        pname = "" if not rec_perf else " (6.12, libdw)"
        script = [perf, "--buildid-dir", buildid, "script", "-i", data,
                  "--no-inline", "--max-stack", "65535", "-F", fields]
        # (name, argv, environment for it)
        cmds = [
            ("`pyperf-run report --reader native`",
             [tool.ppr, "report", "--reader", "native", "-i", session,
              "-o", os.devnull], env),
            ("`pyperf-run report --reader perf-script`%s" % pname,
             [tool.ppr, "report", "--reader", "perf-script", "-i",
              session, "-o", os.devnull],
             dict(env, PYPERF_PERF=rec_perf) if rec_perf else env),
            ("`perf script --no-inline -F ...`%s" % pname, script, env),
        ]
        unw = cached_perf("libunwind") if rec_perf else None
        if unw:
            cmds.append(("`perf script --no-inline -F ...` (6.12, "
                         "libunwind)", [unw] + script[1:], env))
        if pp:
            # Debian's perfparser (hotspot 1.3) has no --buildid-dir:
            # it reads the objects where the records say, as the
            # session was recorded on this machine
            cmds.append(("hotspot's perfparser",
                         [pp, "--input", data, "--output", os.devnull],
                         env))
        res = {}
        for _ in range(args.reps_report):
            for cname, argv, cenv in cmds:
                shutil.rmtree(os.path.join(session, "cache"),
                              ignore_errors=True)
                code, wall, cpu, rss, err = run_rss(argv, env=cenv)
                if code != 0:
                    res[cname] = na(first_line(err, 60))
                if isinstance(res.get(cname), str):
                    continue
                res.setdefault(cname, []).append((wall, cpu, rss))
        base = res.get(cmds[2][0])
        rows = []
        for cname, _, _ in cmds:
            v = res.get(cname)
            if not isinstance(v, list):
                rows.append([cname, v or "n/a", "", "", "", ""])
                continue
            wall = min(x[0] for x in v)
            cpu = min(x[1] for x in v)
            rss = max(x[2] for x in v)
            if isinstance(base, list):
                rows.append([cname, secs(wall), secs(cpu),
                             ratio(wall, min(x[0] for x in base)),
                             ratio(cpu, min(x[1] for x in base)),
                             "%.0f MB" % rss])
            else:
                rows.append([cname, secs(wall), secs(cpu), "n/a", "n/a",
                             "%.0f MB" % rss])
        if not pp:
            rows.append(["hotspot's perfparser",
                         "n/a (not installed: Debian package hotspot)",
                         "", "", "", ""])
        fps = frames_per_sample(script, meta.get("samples"), env)
        text += ("%s: %s samples, perf.data %.1f MB; perf script prints "
                 "%s frames per sample.\n\n"
                 % (label, meta.get("samples", "?"), size / 1e6,
                    "%.1f" % fps if fps is not None else "n/a"))
        text += table(["command", "wall", "CPU", "wall ×", "CPU ×",
                       "peak RSS"], rows) + "\n"
    return text

# --- (h) top -----------------------------------------------------------------

def part_h(args, pythons, tool, scratch):
    head = "### (h) `pyperf-run top`: its own CPU use at 999 Hz\n\n"
    if not tool.has("top"):
        return head + "n/a (%s)\n" % tool.missing("top")
    env = clean_env()
    seconds = 3.0 if args.quick else 10.0
    configs = []
    jitpy = next((p for p in pythons if not p.fp and
                  8 <= p.minor <= 13 and p.minor != 12), None)
    if jitpy:
        configs.append(("jit mode, context trampolines, %s" % jitpy.label,
                        jitpy, []))
    fp = next((p for p in pythons if p.fp), None)
    if fp:
        configs.append(("frame-pointer mode, %s" % fp.label, fp,
                        ["--mode", "perf"]))
    if not configs:
        return head + "n/a (no interpreter)\n"
    text = head + ("`pyperf-run top --batch --duration %.0f` on "
                   "bench/workloads/busy.py (one busy thread; the "
                   "program is stopped at the end). top's CPU = its own "
                   "user+sys time (getrusage of top alone, start-up "
                   "included) over the run's wall time, as the table "
                   "header prints it; goal (issue 14) <= 5%% of one "
                   "core.\n\n" % seconds)
    rows = []
    for label, py, extra in configs:
        out = os.path.join(scratch, "h-top.txt")
        log("(h) top, %s" % label)
        r = run([tool.ppr, "top", "-q", "--batch", "--duration",
                 str(seconds), "-o", out, "--python", py.path] + extra +
                [os.path.join(WL, "busy.py"), "1", str(seconds * 3)],
                env=env, timeout=seconds * 10 + 60)
        if r.code != 0 or not os.path.exists(out):
            rows.append([label, na(first_line(r.err)), "", "", ""])
            continue
        with open(out, encoding="utf-8") as f:
            hdr = f.read()
        m = re.search(r"# samples:  (\d+) in ([0-9.]+) s; top's own CPU "
                      r"([0-9.]+)% of one core", hdr)
        c = re.search(r"# stacks:   ([0-9.]+)% complete", hdr)
        lost = re.search(r"# warning:  (\d+) samples lost", hdr)
        if not m:
            rows.append([label, na("no header in the table"), "", "", ""])
            continue
        rows.append([label, "%s%%" % m.group(3),
                     "%.0f" % (int(m.group(1)) / float(m.group(2))),
                     lost.group(1) if lost else "0",
                     "%s%%" % c.group(1) if c else "n/a"])
    text += table(["configuration", "top's CPU", "samples/s", "lost",
                   "complete stacks"], rows) + "\n"
    return text

# --- (w) record --wall ------------------------------------------------------

def switch_time(r):
    """switch.py's own seconds from its output, or None."""
    m = re.search(r"switch: \d+ round trips in ([0-9.]+) s", r.out or "")
    return float(m.group(1)) if m else None


def part_w(args, pythons, tool, scratch):
    head = "### (w) `record --wall` on a switch-heavy workload\n\n"
    py = next((p for p in pythons if not p.fp and p.minor == 11), None) or \
        next((p for p in pythons if not p.fp), None)
    if not py:
        return head + "n/a (no interpreter)\n"
    env = clean_env()
    wl = os.path.join(WL, "switch.py")
    trips = "20000"
    text = head + ("bench/workloads/switch.py %s on %s: two threads pass a "
                   "byte over pipes, each round trip blocking each thread "
                   "once; the program's own perf_counter() time, median of "
                   "%d runs.\n\n" % (trips, py.label, args.reps))
    rows = []
    times = {}
    sizes = {}
    switches = None
    for label, extra in (("plain", None), ("record", []),
                         ("record --wall", ["--wall"])):
        got = []
        for i in range(args.reps):
            out = os.path.join(scratch, "w-out.txt")
            if extra is None:
                argv = [py.path, wl, trips]
            else:
                sess = os.path.join(scratch, "w-%d" % len(extra))
                shutil.rmtree(sess, ignore_errors=True)
                argv = [tool.ppr, "record", "-q", "-o", sess, "--python",
                        py.path] + extra + [wl, trips]
            log("(w) %s, run %d" % (label, i + 1))
            with open(out, "w") as f:
                r = run(argv, env=env, stdout=f, timeout=600)
            with open(out, encoding="utf-8") as f:
                r.out = f.read()
            t = switch_time(r)
            if r.code != 0 or t is None:
                break
            got.append(t)
            if extra is not None:
                sizes[label] = os.path.getsize(
                    os.path.join(sess, "perf.data"))
                if extra:
                    switches = wall_intervals(read_meta(sess))
        if not got:
            rows.append([label, na(first_line(r.err)), ""])
            continue
        times[label] = statistics.median(got)
        rows.append([label, secs(times[label]),
                     ratio(times[label], times.get("plain"))
                     if "plain" in times else ""])
    text += table(["program", "its time", "vs plain"], rows) + "\n\n"
    if switches and "record" in sizes and "record --wall" in sizes:
        per = (sizes["record --wall"] - sizes["record"]) / float(switches)
        text += ("perf.data: %d bytes plain record, %d with --wall for %s "
                 "off-CPU intervals: **%.0f bytes per switch** (the "
                 "record of each interval with its stack: perf record's "
                 "route, the switch records and a stack dump; bpf mode, "
                 "the stack unwound as recorded, compressed).\n\n"
                 % (sizes["record"],
                                            sizes["record --wall"],
                                            switches, per))
    else:
        text += ("bytes per switch: n/a (a recording failed, or its meta "
                 "has no count of its intervals)\n\n")
    want = 100000 if args.quick else 1000000
    sess = os.path.join(scratch, "w-big")
    log("(w) a session of about %d switches" % want)
    r = run([tool.ppr, "record", "-q", "-o", sess, "--wall", "--python",
             py.path, wl, str(want // 2)], env=env, timeout=3600)
    meta = read_meta(sess)
    intervals = wall_intervals(meta)
    if r.code != 0 or not intervals:
        return text + "report on %d switches: n/a (%s)\n" % (
            want, first_line(r.err) if r.code else "no count of its "
            "intervals")
    size = os.path.getsize(os.path.join(sess, "perf.data"))
    rep = []
    for i in range(args.reps_report):
        os.unlink(os.path.join(sess, "w.col")) if os.path.exists(
            os.path.join(sess, "w.col")) else None
        rr = run([tool.ppr, "report", "-i", sess, "--reader", "native",
                  "--format", "collapsed", "-o",
                  os.path.join(scratch, "w.col")], env=env, timeout=3600)
        if rr.code != 0:
            return text + "report: n/a (%s)\n" % first_line(rr.err)
        rep.append(rr)
    best = min(rep, key=lambda x: x.wall)
    lost = re.search(r"perf lost ([0-9,]+ of [0-9,]+ samples \([^)]*\))",
                     best.err)
    text += ("`report --clock wall --format collapsed` on a session of "
             "%s off-CPU intervals from %d round trips (%s samples, "
             "perf.data %.0f MB%s): **%s** wall, %s CPU, %.0f MB peak "
             "memory (best of %d).\n"
             % (intervals, want // 2, meta.get("samples", "?"),
                size / 1e6, "; perf lost " + lost.group(1) if lost else "",
                secs(best.wall), secs(best.cpu), best.rss, len(rep)))
    return text


# --- (k) record --wall --wakers: its cost ----------------------------------

def wake_stats(err):
    """What record says of a session on stderr (without -q): its
    off-CPU intervals, wakeups (waking events from the walker), waker
    samples written (intervals that have their waker), and the walker's
    lost events, as a dict of ints (missing lines: 0)."""
    st = {"offcpu": 0, "wakeups": 0, "wakers": 0, "lost": 0}
    m = re.search(r"(\d+) off-CPU intervals, ", err)
    if m:
        st["offcpu"] = int(m.group(1))
    m = re.search(r"(\d+) wakeups; (\d+) of the off-CPU intervals have "
                  r"their waker", err)
    if m:
        st["wakeups"], st["wakers"] = int(m.group(1)), int(m.group(2))
    m = re.search(r"(\d+) events were lost: the walker's ring buffer", err)
    if m:
        st["lost"] = int(m.group(1))
    return st


def event_bytes(data):
    """{event name: [samples, bytes]} of a perf.data file: its sample
    records (PERF_RECORD_SAMPLE) summed by the event that each one's
    sample id (PERF_SAMPLE_IDENTIFIER, the first u64 after the record
    header, as the walker's sessions write them) belongs to, the events
    named in the order of the file's attrs section (as `perf evlist`
    lists them).  A str (why not) when the file cannot be read so."""
    r = subprocess.run(["perf", "evlist", "-i", data], stdout=subprocess.PIPE,
                       stderr=DEVNULL, timeout=120)
    names = r.stdout.decode().split()
    try:
        f = open(data, "rb")
    except OSError as e:
        return str(e)
    with f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        if m[:8] != b"PERFILE2":
            return "not a perf.data file"
        attr_size, a_off, a_size, d_off, d_size = struct.unpack_from(
            "<5Q", m, 16)
        ids = {}
        # attr_size is a whole entry: the attr, then its ids' section
        entry = attr_size
        if len(names) != a_size // entry:
            return "perf evlist names %d events, the file has %d" % (
                len(names), a_size // entry)
        for i in range(a_size // entry):
            i_off, i_size = struct.unpack_from(
                "<2Q", m, a_off + i * entry + entry - 16)
            for j in range(i_size // 8):
                ids[struct.unpack_from("<Q", m, i_off + 8 * j)[0]] = \
                    names[i]
        sums = {n: [0, 0] for n in names}
        pos, end = d_off, d_off + d_size
        while pos + 8 <= end:
            rtype, _, size = struct.unpack_from("<IHH", m, pos)
            if size < 8:
                return "a record of %d bytes at %d" % (size, pos)
            if rtype == 81:     # PERF_RECORD_COMPRESSED
                return "compressed records"
            if rtype == 9:      # PERF_RECORD_SAMPLE
                name = ids.get(struct.unpack_from("<Q", m, pos + 8)[0])
                if name in sums:
                    sums[name][0] += 1
                    sums[name][1] += size
            pos += size
    return sums


def size_diff(sw, sk):
    """Session bytes per waker sample from the sizes: (size with --wakers
    - size without) / the waker samples, of two recordings of the same
    work; None when the walker lost events in either (their other
    records then differ too)."""
    if sw[2]["lost"] or sk[2]["lost"] or not sk[2]["wakers"]:
        return None
    return (sk[0] - sw[0]) / float(sk[2]["wakers"])


def mmm(xs, fmt):
    """min / median of xs, formatted."""
    return "%s / %s" % (fmt(min(xs)), fmt(statistics.median(xs)))


def part_k(args, pythons, tool, scratch):
    head = ("### (k) `record --wall --wakers` against `record --wall` "
            "(bpf mode)\n\n")
    if not tool.has("record"):
        return head + na(tool.missing("record")) + "\n"
    py = next((p for p in pythons if not p.fp and p.minor == 11), None) or \
        next((p for p in pythons if not p.fp), None)
    if not py:
        return head + "n/a (no interpreter)\n"
    return head + wakers_switch(args, py, tool, scratch) + "\n" + \
        wakers_server(args, tool, scratch)


def wakers_switch(args, py, tool, scratch):
    """Table w's workload, switch.py, plain, under record --wall and
    under record --wall --wakers (both --mode bpf), interleaved."""
    env = clean_env()
    wl = os.path.join(WL, "switch.py")
    trips = "5000" if args.quick else "20000"
    reps = max(3, args.reps)
    conds = (("plain", None), ("--wall", ["--wall"]),
             ("--wall --wakers", ["--wall", "--wakers"]))
    times = {c: [] for c, _ in conds}
    stats = {c: [] for c, _ in conds}   # (bytes, records, wake_stats)
    why = {}
    for i in range(reps):
        # interleaved, so that a change of the machine's load hits every
        # condition alike
        for label, extra in conds:
            if label in why:
                continue
            if extra is None:
                argv = [py.path, wl, trips]
            else:
                sess = os.path.join(scratch, "k-%d" % len(extra))
                shutil.rmtree(sess, ignore_errors=True)
                argv = [tool.ppr, "record", "-o", sess, "--mode", "bpf",
                        "--python", py.path] + extra + [wl, trips]
            log("(k) switch.py, %s, run %d of %d" % (label, i + 1, reps))
            out = os.path.join(scratch, "k-out.txt")
            with open(out, "w") as f:
                r = run(argv, env=env, stdout=f, timeout=600)
            with open(out, encoding="utf-8") as f:
                r.out = f.read()
            t = switch_time(r)
            if r.code != 0 or t is None:
                why[label] = na(first_line(r.err, 60))
                continue
            times[label].append(t)
            if extra is not None:
                data = os.path.join(sess, "perf.data")
                stats[label].append((
                    os.path.getsize(data),
                    int(read_meta(sess).get("samples", "0")),
                    wake_stats(r.err),
                    event_bytes(data) if "--wakers" in extra else None))
    text = ("bench/workloads/switch.py %s (table w's workload: two threads "
            "pass a byte over pipes, each round trip blocking each thread "
            "once) on %s: the program's own perf_counter() time, min / "
            "median of %d interleaved runs (plain, --wall, --wall "
            "--wakers, plain, ...). Both recordings `record --mode bpf`. "
            "Goal: --wakers / --wall <= 1.3x.\n\n" % (trips, py.label, reps))
    rows = []
    for label, _ in conds:
        xs = times[label]
        if label in why or not xs:
            rows.append([label, why.get(label, "n/a"), "", ""])
            continue
        base = times["plain"]
        rows.append([label, mmm(xs, secs),
                     "%s / %s" % (ratio(min(xs), min(base)),
                                  ratio(statistics.median(xs),
                                        statistics.median(base)))
                     if base else "", ""])
    w, k = times["--wall"], times["--wall --wakers"]
    if w and k:
        rows[2][3] = "**%s** / **%s**" % (
            ratio(min(k), min(w)),
            ratio(statistics.median(k), statistics.median(w)))
    text += table(["program", "its time (min / median)",
                   "vs plain (min / median)",
                   "--wakers vs --wall (min / median)"], rows) + "\n\n"
    if times["plain"] and w and min(w) < min(times["plain"]):
        text += ("The program ran faster recorded than plain (not "
                 "investigated here): compare the two recordings with "
                 "each other.\n\n")
    # the session sizes, run by run (the two recordings of a run are of
    # the same work)
    srows = []
    diffs = []
    exact = []
    for i, (sw, sk) in enumerate(zip(stats["--wall"],
                                     stats["--wall --wakers"])):
        d = size_diff(sw, sk)
        if d is not None:
            diffs.append(d)
        ev = sk[3]
        wk = ev.get("waker") if isinstance(ev, dict) else None
        if wk and wk[0]:
            exact.append(wk[1] / float(wk[0]))
        srows.append([str(i + 1), "%.1f MB" % (sw[0] / 1e6),
                      "%d / %d" % (sw[2]["offcpu"], sw[2]["lost"]),
                      "%.1f MB" % (sk[0] / 1e6),
                      "%d / %d" % (sk[2]["offcpu"], sk[2]["lost"]),
                      "%d / %d" % (sk[2]["wakeups"], sk[2]["wakers"]),
                      "%.0f" % d if d is not None else
                      "n/a (events lost)",
                      "%d, %.0f" % (wk[0], wk[1] / float(wk[0]))
                      if wk and wk[0] else
                      na(ev if isinstance(ev, str) else "no waker event")])
    text += ("Sessions (perf.data) of each run's two recordings. Waker "
             "events: the walker's wakeups (ring events) / the waker "
             "samples the session keeps (one per off-CPU interval whose "
             "waker is known): record's \"N wakeups; M of the off-CPU "
             "intervals have their waker\". Size difference: (size with "
             "--wakers - size without) / M, only where the walker lost no "
             "event in either recording (else their other records differ "
             "too). In the session: the `waker` event's sample records "
             "in the --wakers perf.data, counted and summed by their "
             "sample id (each holds the waker's registers, kernel stack, "
             "Python frames and at most 2 KiB of its user stack).\n\n")
    text += table(["run", "--wall", "its intervals / lost events",
                   "--wall --wakers", "its intervals / lost events",
                   "wakeups / waker samples",
                   "bytes per waker sample, size difference",
                   "waker samples, bytes each, in the session"], srows)
    lost_w = [x[2]["lost"] for x in stats["--wall"]]
    lost_k = [x[2]["lost"] for x in stats["--wall --wakers"]]
    text += "\n\n**Bytes per waker sample: %s by the size difference, %s " \
        "in the session** (medians).%s\n" % (
            "%.0f (%d runs)" % (statistics.median(diffs), len(diffs))
            if diffs else "n/a (every run lost events)",
            "%.0f (%d runs)" % (statistics.median(exact), len(exact))
            if exact else "n/a",
            " The walker lost events (its ring buffer full: the "
            "recorder did not keep up) in %d of %d runs with --wall and "
            "%d with --wakers (median %d and %d events). A lost event "
            "still cost the program its walk and stack copy in the "
            "kernel, but not the recorder's work on it, which shares "
            "the CPUs with the program: those runs' times leave that "
            "out." % (sum(1 for x in lost_w if x), len(lost_w),
                          sum(1 for x in lost_k if x),
                          statistics.median(lost_w),
                          statistics.median(lost_k))
            if any(lost_w) or any(lost_k) else "")
    return text


def wait_attached(rpid, limit=15.0):
    """Has recorder rpid attached within limit seconds: a sampling event
    on every online CPU and the walker's links (walker_attach()'s last
    step before it polls; as tests/fixtures/walker-lib.sh's attached)?"""
    ncpu = os.sysconf("SC_NPROCESSORS_ONLN")
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            fds = [os.readlink("/proc/%d/fd/%s" % (rpid, f))
                   for f in os.listdir("/proc/%d/fd" % rpid)]
        except OSError:
            fds = []
        ev = sum(1 for f in fds if f == "anon_inode:[perf_event]")
        ln = sum(1 for f in fds if f == "anon_inode:bpf_link")
        if ev >= ncpu and ln >= ncpu + 3:
            return True
        time.sleep(0.05)
    return False


def wrk_rate(text):
    """wrk's Requests/sec, or None when a request failed or none was
    answered."""
    m = re.search(r"^Requests/sec:\s+([0-9.]+)$", text, re.M)
    if not m or re.search(r"Non-2xx|Socket errors", text):
        return None
    return float(m.group(1))


def gunicorn_ready(log_path, limit=30.0):
    """(port, worker pid) as strings once gunicorn's log (log_path) says
    it listens and has booted its worker, or (None, None) after limit
    seconds."""
    port = worker = None
    end = time.monotonic() + limit
    while time.monotonic() < end and not (port and worker):
        time.sleep(0.2)
        with open(log_path, encoding="utf-8", errors="replace") as f:
            log_text = f.read()
        m = re.search(r"Listening at: http://127\.0\.0\.1:(\d+) ", log_text)
        port = m.group(1) if m else None
        m = re.search(r"Booting worker with pid: (\d+)", log_text)
        worker = m.group(1) if m else None
    return port, worker


def server_windows(tool, scratch, url, worker, conds, window, reps,
                   conns, tag, on_session=None):
    """Requests/s of `wrk -t1 -cCONNS -dWINDOWs URL` windows, interleaved:
    REPS rounds of one window under each of CONDS, (label, record
    options or None for no recorder), in turn.  Each recording is
    `record --mode bpf OPTIONS -p WORKER --duration WINDOW+1`, attached
    before its window and detached after it; on_session(label, round,
    session, stderr) is called for each.  A warm-up window comes first.
    Returns ({label: [requests/s]}, why): why is None, "warm-up" (a
    request failed then), or what stopped the rounds."""
    rates = {c: [] for c, _ in conds}

    def load(secs_):
        outf = tempfile.TemporaryFile()
        run(["wrk", "-t1", "-c%d" % conns, "-d%ds" % secs_, url],
            stdout=outf, timeout=60 + secs_)
        outf.seek(0)
        text = outf.read().decode("utf-8", "replace")
        outf.close()
        return text

    # warm the worker up (imports, first requests)
    if wrk_rate(load(1)) is None:
        return rates, "warm-up"
    for i in range(reps):
        for c, opts in conds:
            log("(%s) server, %s, window %d of %d" % (tag, c, i + 1, reps))
            rec = None
            if opts is not None:
                sess = os.path.join(scratch, "%s-srv-%d" % (tag, len(c)))
                shutil.rmtree(sess, ignore_errors=True)
                errf = tempfile.TemporaryFile()
                rec = subprocess.Popen(
                    [tool.ppr, "record", "--mode", "bpf"] + opts +
                    ["-p", worker, "--duration", str(window + 1),
                     "-o", sess], stdin=DEVNULL, stdout=DEVNULL,
                    stderr=errf)
                if not wait_attached(rec.pid):
                    rec.kill()
                    rec.wait()
                    return rates, "record -p did not attach within 15 s"
            rate = wrk_rate(load(window))
            if rec:
                # the whole window was recorded: still attached
                attached = rec.poll() is None
                rec.wait(timeout=120)
                errf.seek(0)
                err = errf.read().decode("utf-8", "replace")
                errf.close()
                if rec.returncode != 0 or not attached:
                    return rates, "record -p: %s" % first_line(err, 60)
                if on_session:
                    on_session(c, i, sess, err)
            if rate is None:
                return rates, "wrk: a request failed (%s)" % c
            rates[c].append(rate)
    return rates, None


def wakers_server(args, tool, scratch):
    """Debian's gunicorn serving tests/fixtures/flask-app.py with one
    gthread worker of 4 threads (as t3511), loaded by wrk: requests/s
    with no recorder, with record --wall -p WORKER and with record
    --wall --wakers -p WORKER attached, interleaved windows."""
    sub = "#### (k2) A server under load\n\n"
    py = "/usr/bin/python3"
    env = clean_env()
    for mod in ("gunicorn", "flask"):
        if run([py, "-c", "import " + mod], env=env, timeout=60).code:
            return sub + na("Debian's %s is not installed" % mod) + "\n"
    if not shutil.which("wrk"):
        return sub + na("no wrk") + "\n"
    window = 2 if args.quick else 3
    reps = max(3, args.reps)
    log_path = os.path.join(scratch, "k-server.log")
    logf = open(log_path, "w")
    server = subprocess.Popen(
        [py, "-m", "gunicorn", "--chdir", os.path.join(SRCDIR, "tests",
                                                       "fixtures"),
         "--workers", "1", "--worker-class", "gthread", "--threads", "4",
         "--bind", "127.0.0.1:0", "flask-app:app"],
        env=env, stdin=DEVNULL, stdout=logf, stderr=logf)
    conds = ("none", "--wall", "--wall --wakers")
    sizes = {}      # round -> {cond: (bytes, samples, wake_stats, events)}
    why = None

    def on_session(c, rnd, sess, err):
        data = os.path.join(sess, "perf.data")
        sizes.setdefault(rnd, {})[c] = (
            os.path.getsize(data), int(read_meta(sess).get("samples", "0")),
            wake_stats(err), event_bytes(data) if "--wakers" in c else None)

    try:
        port, worker = gunicorn_ready(log_path)
        if not (port and worker):
            return sub + na("gunicorn did not start") + "\n"
        rates, why = server_windows(
            tool, scratch, "http://127.0.0.1:%s/work" % port, worker,
            [(c, None if c == "none" else c.split()) for c in conds],
            window, reps, 8, "k", on_session)
        if why == "warm-up":
            return sub + na("wrk: a request failed while warming up") + \
                "\n"
        # the rounds every recording of finished
        sizes = [sizes[r] for r in sorted(sizes)
                 if len(sizes[r]) == len(conds) - 1]
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        logf.close()
    text = sub + ("Debian's gunicorn serving tests/fixtures/flask-app.py "
                  "(`--workers 1 --worker-class gthread --threads 4`; "
                  "GET /work runs about a millisecond of pure Python), "
                  "loaded by `wrk -t1 -c8 -d%ds` over 127.0.0.1. Windows "
                  "interleaved (no recorder, `record --mode bpf --wall -p "
                  "WORKER`, the same with `--wakers`, no recorder, ...), "
                  "%d of each; each recording attached before its window "
                  "and detached after it (`--duration %d`). Requests/s: "
                  "the best window (the one other programs disturbed "
                  "least) / the median.\n\n" % (window, len(rates["none"]),
                                               window + 1))
    if why:
        text += na(why) + "\n\n"
    if not all(rates[c] for c in conds):
        return text
    best = {c: max(rates[c]) for c in conds}
    med = {c: statistics.median(rates[c]) for c in conds}
    rows = []
    for c in conds:
        rows.append([c if c == "none" else "record " + c,
                     "%.0f / %.0f" % (best[c], med[c]),
                     "%.3f / %.3f" % (best[c] / best["none"],
                                      med[c] / med["none"]),
                     "**%.3f** / **%.3f**" % (best[c] / best["--wall"],
                                              med[c] / med["--wall"])
                     if c == "--wall --wakers" else ""])
    text += table(["recorder", "requests/s (best / median)",
                   "vs none (best / median)",
                   "--wakers vs --wall (best / median)"], rows) + "\n\n"
    per = []
    for p in sizes:
        if "--wall" in p and "--wall --wakers" in p:
            sw, sk = p["--wall"], p["--wall --wakers"]
            ev = sk[3]
            wk = ev.get("waker") if isinstance(ev, dict) else None
            per.append((sw[0], sk[0], sk[2],
                        wk[1] / float(wk[0]) if wk and wk[0] else None))
    if per:
        exact = [x[3] for x in per if x[3] is not None]
        text += ("Sessions of the windows (median of %d): %.0f MB with "
                 "--wall, %.0f MB with --wakers, %d wakeups and %d waker "
                 "samples a window; the walker lost %d events a window "
                 "with --wakers. **Bytes per waker sample in the "
                 "session: %s** (the waker event's sample records, as "
                 "above; the windows' sizes are not compared: their work "
                 "differs with their throughput).\n"
                 % (len(per),
                    statistics.median(x[0] for x in per) / 1e6,
                    statistics.median(x[1] for x in per) / 1e6,
                    statistics.median(x[2]["wakeups"] for x in per),
                    statistics.median(x[2]["wakers"] for x in per),
                    statistics.median(x[2]["lost"] for x in per),
                    "%.0f" % statistics.median(exact) if exact else "n/a"))
    return text


# --- (l) a long attach ------------------------------------------------------

def proc_rss_cpu(pid):
    """(VmRSS, RssAnon, RssFile in MB, user + system CPU seconds) of a
    live process, or None when it is gone.  RssAnon is its own memory
    (heap, caches); RssFile the pages of files it maps (the programs'
    objects whose unwinding tables and symbols it reads): those grow
    with the code the samples reach, up to the files' sizes."""
    kb = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for l in f:
                k = l.split(":")[0]
                if k in ("VmRSS", "RssAnon", "RssFile"):
                    kb[k] = int(l.split()[1])
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return (kb.get("VmRSS", 0) / 1024.0, kb.get("RssAnon", 0) / 1024.0,
            kb.get("RssFile", 0) / 1024.0,
            (int(st[11]) + int(st[12])) / float(tick))


def part_l(args, pythons, tool, scratch):
    """record --mode bpf -p on a gunicorn+Flask sync worker under wrk
    for BENCH_LONG_MINUTES (default 10) minutes at 999 Hz: the
    recorder's RSS and CPU each minute, the session's size and bytes
    per sample, the walker's lost events, report's time and peak
    memory, and the requests/s while attached against a window
    without it."""
    head = "### (l) A long attach: a server watched for minutes\n\n"
    minutes = int(os.environ.get("BENCH_LONG_MINUTES", "10"))
    if args.quick:
        minutes = 1
    py = "/usr/bin/python3"
    env = clean_env()
    for mod in ("gunicorn", "flask"):
        if run([py, "-c", "import " + mod], env=env, timeout=60).code:
            return head + na("Debian's %s is not installed" % mod) + "\n"
    if not shutil.which("wrk"):
        return head + na("no wrk") + "\n"
    if not tool.has("record"):
        return head + na(tool.missing("record")) + "\n"
    log_path = os.path.join(scratch, "l-server.log")
    logf = open(log_path, "w")
    server = subprocess.Popen(
        [py, "-m", "gunicorn", "--chdir", os.path.join(SRCDIR, "tests",
                                                       "fixtures"),
         "--workers", "1", "--bind", "127.0.0.1:0", "flask-app:app"],
        env=env, stdin=DEVNULL, stdout=logf, stderr=logf)
    sess = os.path.join(scratch, "l-session")
    per_minute = []     # (minute, RSS MB, CPU s in that minute)
    why = None
    rate_plain = rate_rec = None
    res = None
    wrates, wwhy, wreps, wwin = None, None, max(5, args.reps), 4
    try:
        port, worker = gunicorn_ready(log_path)
        if not (port and worker):
            return head + na("gunicorn did not start") + "\n"
        url = "http://127.0.0.1:%s/work" % port
        window = 15 if not args.quick else 5

        def load(secs_):
            return subprocess.Popen(
                ["wrk", "-t1", "-c4", "-d%ds" % secs_, url],
                stdin=DEVNULL, stdout=subprocess.PIPE, stderr=DEVNULL)

        def rate_of(p):
            out = p.communicate(timeout=120 + minutes * 60)[0]
            return wrk_rate(out.decode("utf-8", "replace"))

        # the throughput's cost, in interleaved windows first
        wrates, wwhy = server_windows(
            tool, scratch, url, worker,
            [("none", None), ("record -p", [])], wwin, wreps, 4, "l")
        # warm up, then a window without the recorder
        rate_of(load(2))
        log("(l) %d s of wrk without the recorder" % window)
        rate_plain = rate_of(load(window))
        log("(l) record -p for %d minutes" % minutes)
        secs = minutes * 60
        wrk = load(secs + 10)
        time.sleep(2)
        errf = tempfile.TemporaryFile()
        t0 = time.monotonic()
        rec = subprocess.Popen(
            [tool.ppr, "record", "--mode", "bpf", "-p", worker,
             "--duration", str(secs), "-o", sess], stdin=DEVNULL,
            stdout=DEVNULL, stderr=errf)
        last_cpu = 0.0
        for mnt in range(1, minutes + 1):
            while time.monotonic() < t0 + 60 * mnt - 1 and \
                    rec.poll() is None:
                time.sleep(0.5)
            rc = proc_rss_cpu(rec.pid)
            if rc is None:
                break
            per_minute.append((mnt, rc[0], rc[1], rc[2], rc[3] - last_cpu))
            last_cpu = rc[3]
        _, status, ru = os.wait4(rec.pid, 0)
        rec.returncode = _status(status)
        rec_wall = time.monotonic() - t0
        rec_cpu = ru.ru_utime + ru.ru_stime
        rec_peak = ru.ru_maxrss / 1024.0
        rate_rec = rate_of(wrk)
        errf.seek(0)
        err = errf.read().decode("utf-8", "replace")
        errf.close()
        if rec.returncode != 0:
            why = "record -p: %s" % first_line(err, 60)
        else:
            lost = wake_stats(err)["lost"]
            data = os.path.join(sess, "perf.data")
            size = os.path.getsize(data)
            samples = int(read_meta(sess).get("samples", "0"))
            log("(l) report of the session")
            res = run([tool.ppr, "report", "-i", sess, "-f", "collapsed",
                       "-o", os.path.join(scratch, "l.col")], env=env,
                      timeout=600)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        logf.close()
    text = head + (
        "`record --mode bpf -p WORKER --duration %d` on Debian's gunicorn "
        "serving tests/fixtures/flask-app.py with one sync worker, loaded "
        "by `wrk -t1 -c4` for the whole recording (GET /work: about a "
        "millisecond of pure Python); the recorder's resident memory and "
        "CPU read from /proc at the end of each minute.\n\n" % (minutes * 60))
    if why:
        return text + na(why) + "\n"
    if not per_minute or res is None:
        return text + na("the recording ended early") + "\n"
    rows = [[str(m), "%.1f" % r, "%.1f" % a, "%.1f" % fl,
             "%.2f s (%.1f %%)" % (c, 100.0 * c / 60)]
            for m, r, a, fl, c in per_minute]
    text += table(["minute", "recorder RSS (MB)", "of it anonymous",
                   "of it files' pages",
                   "recorder CPU in that minute (% of a core)"], rows)
    span = max(1, per_minute[-1][0] - 1)

    def grew(i):
        return per_minute[-1][i] - per_minute[0][i] \
            if len(per_minute) > 1 else 0.0
    text += ("\n\nFrom minute 1 to %d: RSS %+.1f MB (%+.2f MB a minute), "
             "anonymous %+.1f MB (%+.2f a minute), files' pages %+.1f MB. "
             "The whole recording: %.0f s, %.1f s of CPU (**%.1f %% of a "
             "core**, start and finish included), peak RSS %.0f MB.\n\n"
             % (per_minute[-1][0], grew(1), grew(1) / span, grew(2),
                grew(2) / span, grew(3), rec_wall, rec_cpu,
                100.0 * rec_cpu / rec_wall, rec_peak))
    text += ("Session: **%.1f MB** for %d samples, **%.0f bytes a "
             "sample**; the walker lost %d events. `report -f collapsed`: "
             "**%.2f s** wall, %.2f s CPU, peak RSS %.0f MB%s.\n\n"
             % (size / 1e6, samples, size / max(1, samples), lost,
                res.wall, res.cpu, res.rss,
                "" if res.code == 0 else " (exit %d)" % res.code))
    if rate_plain and rate_rec:
        text += ("Requests/s: %.0f in a %d s window without the recorder, "
                 "%.0f over the recording: %.3fx (one window each, not "
                 "interleaved: see below).\n"
                 % (rate_plain, window, rate_rec, rate_rec / rate_plain))
    text += ("\n#### (l2) Throughput while attached, interleaved\n\n"
             "The same server before the long recording: `wrk -t1 -c4 "
             "-d%ds` windows, interleaved (no recorder, `record --mode bpf "
             "-p WORKER --duration %d` attached before its window and "
             "detached after it, no recorder, ...), %d of each. "
             "Requests/s: the best window (the one other programs "
             "disturbed least) / the median. Goal: >= 0.97x.\n\n"
             % (wwin, wwin + 1, wreps))
    if wwhy:
        text += na("wrk: a request failed while warming up"
                   if wwhy == "warm-up" else wwhy) + "\n"
    elif wrates and all(wrates[c] for c in ("none", "record -p")):
        best = {c: max(v) for c, v in wrates.items()}
        med = {c: statistics.median(v) for c, v in wrates.items()}
        text += table(["recorder", "requests/s (best / median)",
                       "vs none (best / median)"],
                      [[c, "%.0f / %.0f" % (best[c], med[c]),
                        "**%.3f** / **%.3f**" % (best[c] / best["none"],
                                                 med[c] / med["none"])]
                       for c in ("none", "record -p")]) + "\n"
    return text


# --- (d) data ---------------------------------------------------------------

def completeness(stacks, script):
    """(complete, total) samples among those that reached script code."""
    base = os.path.basename(script)
    total = complete = 0
    for frames, count in stacks:
        if not any(f.rstrip(")").endswith(base) for f in frames):
            continue
        total += count
        if any(pyframe(f, "<module>", script) for f in frames):
            complete += count
    return complete, total


def deep_frames(depth):
    """Python frames on the stack at deep.py's leaf (see deep.py)."""
    frames = 2 + 1 + 2          # <module>, main; descend(0); leaf, genexpr
    for n in range(depth, 0, -1):
        frames += 3 if n % 5 == 0 else 2 if n % 3 == 0 else 1
    return frames


def part_d(args, pythons, tool, scratch):
    head = "### (d) Data size and stack completeness (jit mode)\n\n"
    if not tool.has("record") or not tool.has("report"):
        return head + "n/a (%s)\n" % tool.missing(
            "record" if not tool.has("record") else "report")
    script = os.path.join(WL, "deep.py")
    wl = [script, str(args.deep_depth), str(args.deep_seconds)]
    cands = [next((p for p in pythons if p.minor == 11 and
                   p.origin == "system"), None),
             next((p for p in pythons if p.minor == 13 and p.tramp), None)]
    rows = []
    env = clean_env()
    for py in cands:
        if py is None:
            continue
        for size in [8192, 16384, 32768, 65528, None]:
            label = str(size) if size else "auto"
            log("(d) %s stack %s" % (py.label, label))
            session = os.path.join(scratch, "d-session")
            shutil.rmtree(session, ignore_errors=True)
            r = ppr_record(tool, session, wl, python=py.path, mode="jit",
                           stack=size, env=env)
            if r.code != 0:
                rows.append([py.label, label,
                             na("record: %s" % first_line(r.err, 60)),
                             "", "", ""])
                continue
            meta = read_meta(session)
            if size is None:
                label = "auto (%s)" % meta.get("stack_size", "?")
            st = ppr_collapsed(tool, session, env)
            if isinstance(st, str):
                rows.append([py.label, label, st, "", "", ""])
                continue
            complete, total = completeness(st, script)
            nsamples = int(meta.get("samples") or
                           sum(c for _, c in st) or 0)
            dsize = os.path.getsize(os.path.join(session, "perf.data"))
            trunc = meta.get("truncated")
            try:
                trunc = "%.1f %%" % (100.0 * float(trunc))
            except (TypeError, ValueError):
                trunc = "n/a (not in meta)"
            rows.append([py.label, label,
                         "%.0f" % (dsize / nsamples) if nsamples else "n/a",
                         "%.1f %%" % (100.0 * complete / total)
                         if total else "n/a (no samples in the script)",
                         trunc, str(nsamples)])
            shutil.rmtree(session, ignore_errors=True)
            for old in glob.glob(session + ".old"):
                shutil.rmtree(old, ignore_errors=True)
    if not rows:
        return head + "n/a (no system 3.11 and no 3.13)\n"
    text = head + ("Workload `deep.py %d`: %d levels of recursion (plain "
                   "calls, methods, a lambda called back from `sorted`; "
                   "about %d Python frames at the leaf), %.1f CPU s "
                   "at the default frequency. Complete = the stack reaches "
                   "the script's `<module>` frame, among samples with a "
                   "frame of the script. Goal: the automatic size keeps "
                   "≥ 99%% complete at the smallest size that does. "
                   "`truncated` is record's own count over all samples "
                   "(meta).\n\n"
                   % (args.deep_depth, args.deep_depth,
                      deep_frames(args.deep_depth),
                      args.deep_seconds))
    text += table(["interpreter", "--stack-size", "bytes/sample",
                   "complete stacks", "record's `truncated`", "samples"],
                  rows)
    return text


# --- (e) accuracy -----------------------------------------------------------

def part_e(args, pythons, tool, scratch):
    head = "### (e) Accuracy: measured vs profiled CPU split\n\n"
    if not tool.has("record") or not tool.has("report"):
        return head + "n/a (%s)\n" % tool.missing(
            "record" if not tool.has("record") else "report")
    script = os.path.join(WL, "split.py")
    want = []
    for pick in (lambda p: p.fp, lambda p: p.minor == 11 and
                 p.origin == "system", lambda p: p.minor == 12,
                 lambda p: p.minor == 13, lambda p: p.minor == 8):
        py = next((p for p in pythons if pick(p)), None)
        if py is not None and py not in want:
            want.append(py)
    rows = []
    env = clean_env()
    funcs = ("alpha", "beta", "gamma")
    for py in want:
        for mode in ("perf", "jit"):
            log("(e) %s, %s mode" % (py.label, mode))
            session = os.path.join(scratch, "e-session")
            shutil.rmtree(session, ignore_errors=True)
            out = os.path.join(scratch, "e-split.json")
            r = ppr_record(tool, session, [script, out,
                                           str(args.split_seconds)],
                           python=py.path, mode=mode, env=env)
            if r.code != 0:
                rows.append([mode, py.label,
                             na("record: %s" % first_line(r.err, 70)),
                             "", "", ""])
                continue
            with open(out) as f:
                m = json.load(f)
            st = ppr_collapsed(tool, session, env)
            if isinstance(st, str):
                rows.append([mode, py.label, st, "", "", ""])
                continue
            prof, denom = collapsed_shares(
                st, funcs, lambda f, fn: pyframe(f, fn, script))
            measured = [100.0 * m["functions"][fn] / m["main"]
                        for fn in funcs]
            if prof is None:
                rows.append([mode, py.label, "/".join(
                    "%.1f" % x for x in measured),
                    "n/a (no Python frames of the script%s)" % (
                        "" if py.fp else "; no frame pointers"), "", ""])
                continue
            diff = max(abs(a - b) for a, b in zip(measured, prof))
            rows.append([mode, py.label,
                         "/".join("%.1f" % x for x in measured),
                         "/".join("%.1f" % x for x in prof),
                         "%.1f" % diff, str(denom)])
            shutil.rmtree(session, ignore_errors=True)
    text = head + ("Workload `split.py`: alpha/beta/gamma take about 50/30/"
                   "20 %% of main()'s CPU time (%.1f s, measured by the "
                   "program with `time.process_time`); profiled share = "
                   "samples whose stack holds the function / samples "
                   "holding main() or any of them, from `report --format "
                   "collapsed`. Goal: max diff ≤ 3 points.\n\n"
                   % args.split_seconds)
    text += table(["mode", "interpreter", "measured α/β/γ %",
                   "profiled α/β/γ %", "max diff (pp)", "samples"], rows)
    return text


# --- main -------------------------------------------------------------------

def perf_tmp_files():
    """The perf map, jitdump and jitted-object files in /tmp."""
    return (glob.glob("/tmp/perf-[0-9]*.map") +
            glob.glob("/tmp/jit-[0-9]*.dump") +
            glob.glob("/tmp/jitted-[0-9]*-[0-9]*.so"))


# --- (f) complete stacks by depth -------------------------------------------

def levels_for(frames):
    """deep.py's recursion levels whose leaf has at least frames frames."""
    n = 0
    while deep_frames(n) < frames:
        n += 1
    return n


def part_f(args, pythons, tool, scratch):
    head = "### (f) Complete stacks by depth, mode and interpreter\n\n"
    if not tool.has("record") or not tool.has("report"):
        return head + "n/a (%s)\n" % tool.missing(
            "record" if not tool.has("record") else "report")
    script = os.path.join(WL, "deep.py")
    env = clean_env()
    rows = []
    for py in pythons:
        if not 8 <= py.minor <= 13:
            continue
        modes = ["jit"] + (["perf"] if py.fp else [])
        for mode in modes:
            for frames in args.depths:
                levels = levels_for(frames)
                label = "%d (%d)" % (frames, deep_frames(levels))
                log("(f) %s %s depth %s" % (py.label, mode, label))
                session = os.path.join(scratch, "f-session")
                shutil.rmtree(session, ignore_errors=True)
                wl = [script, str(levels), str(args.depth_seconds)]
                t0 = time.monotonic()
                r = ppr_record(tool, session, wl, python=py.path,
                               mode=mode, env=env)
                t_rec = time.monotonic() - t0
                if r.code != 0:
                    rows.append([py.label, mode, label,
                                 na("record: %s" % first_line(r.err, 60)),
                                 "", "", "", ""])
                    continue
                # cold: record already read the session back once
                shutil.rmtree(os.path.join(session, "cache"),
                              ignore_errors=True)
                t0 = time.monotonic()
                st = ppr_collapsed(tool, session, env)
                t_rep = time.monotonic() - t0
                if isinstance(st, str):
                    rows.append([py.label, mode, label, st, "", "", "",
                                 ""])
                    continue
                complete, total = completeness(st, script)
                meta = read_meta(session)
                nsamples = int(meta.get("samples") or
                               sum(c for _, c in st) or 0)
                size = sum(os.path.getsize(os.path.join(d, f))
                           for d, _, fs in os.walk(session) for f in fs)
                rows.append([py.label, mode, label,
                             "%.1f %%" % (100.0 * complete / total)
                             if total else "n/a (no samples in the script)",
                             "%.0f" % (size / nsamples) if nsamples
                             else "n/a", secs(t_rec), secs(t_rep),
                             str(nsamples)])
                shutil.rmtree(session, ignore_errors=True)
    if not rows:
        return head + "n/a (no interpreter 3.8-3.13)\n"
    text = head + ("Workload `deep.py LEVELS %.1f` (plain calls, methods, "
                   "a lambda called back from `sorted`), LEVELS chosen so "
                   "that the leaf has at least the Python frames asked "
                   "(in brackets: exactly). Default settings: `pyperf-run "
                   "record --mode MODE`. Complete = the stack reaches the "
                   "script's `<module>` frame, among samples with a frame "
                   "of the script (goal: 99 %%). Bytes/sample = the whole "
                   "session (perf.data, maps, context tables) over the "
                   "samples. Record time is wall time (the program runs "
                   "%.1f CPU s); report time is `report --format "
                   "collapsed`, cache cold. perf mode only for "
                   "frame-pointer builds.\n\n"
                   % (args.depth_seconds, args.depth_seconds))
    text += table(["interpreter", "mode", "Python frames",
                   "complete stacks", "bytes/sample", "record",
                   "report", "samples"], rows)
    return text


# --- (i) the frame walker ---------------------------------------------------

def split_of(r):
    """A run of timed.py: (start, program, end) in seconds, from the
    spawn to the script's first line, its run, from its end to the
    command's exit; None without timed.py's "span" line."""
    for line in r.err.splitlines():
        if line.startswith("span ") and r.start is not None:
            try:
                m0, m1 = (float(x) for x in line.split()[1:3])
            except ValueError:
                return None
            return (m0 - r.start, m1 - m0, r.start + r.wall - m1)
    return None


def elapsed_of(text):
    """timed.py's "elapsed SECONDS" line of a stderr text, or None."""
    for line in text.splitlines():
        if line.startswith("elapsed "):
            try:
                return float(line.split()[1])
            except ValueError:
                return None
    return None


def proc_cpu(pid):
    """utime + stime of a live process in seconds, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / \
            os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def part_i(args, pythons, tool, scratch):
    """The in-kernel frame walker (record --mode bpf, record -p): the
    program's own slowdown, the recorder's CPU, bytes per sample, the
    time from attach to the first sample."""
    freq = 999
    reps = max(3, args.reps)
    dist = "/usr/lib/python3/dist-packages"
    fib = os.path.join(WL, "fib.py")
    rst = os.path.join(WL, "rst.py")
    timed = os.path.join(WL, "timed.py")
    picks = []
    for minor in (8, 11, 13):
        py = next((p for p in pythons if p.minor == minor and
                   p.origin == "system"), None) or \
            next((p for p in pythons if p.minor == minor and not p.fp),
                 None)
        if py:
            picks.append(py)
    loads = [("fib(35)", [fib, "35"] if not args.quick else [fib, "27"]),
             ("docutils, 600 sections", [rst, "600" if not args.quick
                                         else "150"])]
    rows = []
    size_rows = []
    whole_rows = []
    if not tool.has("record"):
        return "### (i) The frame walker\n\n%s\n" % na(tool.missing("record"))
    for py in picks:
        env = clean_env({"PYTHONPATH": dist})
        for name, wl in loads:
            log("(i) %s, %s" % (py.label, name))
            res = {"plain": [], "bpf": [], "jit": []}
            splits = {"plain": [], "bpf": [], "jit": []}
            # bpf: the walker's own time in the kernel over the
            # program's run time, per run (meta walker_kernel_ns)
            kshare = []
            why = {}
            for rep in range(reps):
                # interleaved, so that a change of the machine's load
                # hits every column alike
                r = run([py.path, timed] + wl, env=env)
                e = elapsed_of(r.err)
                if r.code == 0 and e:
                    res["plain"].append(e)
                    sp = split_of(r)
                    if sp:
                        splits["plain"].append(sp)
                for mode in ("bpf", "jit"):
                    if mode in why:
                        continue
                    sess = os.path.join(scratch, "i-%s" % mode)
                    shutil.rmtree(sess, ignore_errors=True)
                    r = ppr_record(tool, sess, [timed] + wl,
                                   python=py.path, mode=mode, freq=freq,
                                   env=env)
                    e = elapsed_of(r.err)
                    if r.code != 0 or not e:
                        why[mode] = na(first_line(r.err, 60))
                        continue
                    res[mode].append(e)
                    sp = split_of(r)
                    if sp:
                        splits[mode].append(sp)
                    meta = read_meta(sess)
                    if mode == "bpf":
                        try:
                            kns = int(meta["walker_kernel_ns"])
                            kruns = int(meta["walker_kernel_runs"])
                            kshare.append((kns / 1e9 / e, kns / kruns
                                           if kruns else 0))
                        except (KeyError, ValueError):
                            pass
                    if rep == 0:
                        try:
                            size = os.path.getsize(os.path.join(
                                sess, "perf.data"))
                            n = int(meta.get("samples", "0"))
                        except (OSError, ValueError):
                            size, n = 0, 0
                        if n:
                            size_rows.append(["%s, %s" % (py.label, name),
                                              mode, str(n),
                                              "%d bytes" % round(size / n)])
            base = min(res["plain"]) if res["plain"] else None
            row = ["%s, %s" % (py.label, name),
                   secs(base) if base else "n/a"]
            for mode in ("bpf", "jit"):
                if mode in why or not res[mode] or not base:
                    row += [why.get(mode, "n/a"), ""]
                else:
                    t = min(res[mode])
                    row += [secs(t), ratio(t, base)]
                if mode == "bpf":
                    if kshare:
                        kshare.sort()
                        sh, per = kshare[len(kshare) // 2]
                        row.append("%.1f %% (%.1f us a run)"
                                   % (100 * sh, per / 1e3))
                    else:
                        row.append("n/a")
            rows.append(row)
            whole_rows.append(whole_row("%s, %s" % (py.label, name),
                                        splits))
    text = ("### (i) The frame walker: the program's cost\n\n"
            "The program's own run time (timed.py: inside the "
            "interpreter, without start-up or the recorder's setup and "
            "finish), minimum of %d interleaved runs, `-F %d`. bpf: "
            "`record --mode bpf` (no trampoline, frames walked in the "
            "kernel); jit: `record --mode jit` (the embedded context "
            "trampolines, today's default). Goal for bpf: <= 1.05x. "
            "walker in the kernel: the walker's programs' own run time "
            "(the kernel's BPF statistics, meta walker_kernel_ns, on "
            "every CPU) over the program's run time, and per run; the "
            "median of the runs. It is the part of bpf's cost that is "
            "the walk itself: the rest is the sampling interrupt, the "
            "recorder on the other CPU, and this machine's noise.\n\n"
            % (reps, freq))
    text += table(["interpreter, program", "plain", "bpf", "bpf / plain",
                   "walker in the kernel", "jit", "jit / plain"], rows)
    text += ("\n#### (i2) Bytes per sample\n\nperf.data's size over its "
             "samples, first run of each cell above.\n\n")
    text += table(["interpreter, program", "mode", "samples",
                   "bytes per sample"], size_rows)
    text += ("\n#### (i4) What the user waits for: the whole command\n\n"
             "The same runs, each split on one clock (CLOCK_MONOTONIC): "
             "start = from the spawn to the script's first line (the "
             "interpreter's start-up; under record also record's setup: "
             "the walker's programs loaded, perf started), program = the "
             "script's own run, end = from its last line to the "
             "command's exit (the interpreter's teardown; under record "
             "also record's finish: the session written and judged). "
             "Median of %d, whole = the three; ratio = whole over the "
             "plain run's. Goal: <= 1.1x.\n\n" % reps)
    text += table(["interpreter, program", "plain: start / program / end",
                   "bpf: start / program / end", "bpf whole",
                   "jit: start / program / end", "jit whole"], whole_rows)
    text += "\n" + walker_attach(args, pythons, tool, scratch)
    return text


def whole_row(label, splits):
    """A row of table i4: each column's median start / program / end,
    and the whole command's median against the plain run's."""
    med = statistics.median

    def cell(runs):
        return " / ".join(secs(med([s[i] for s in runs])) for i in range(3))

    row = [label]
    plain = splits["plain"]
    base = med([sum(s) for s in plain]) if plain else None
    row.append(cell(plain) if plain else "n/a")
    for mode in ("bpf", "jit"):
        runs = splits[mode]
        if not runs:
            row += ["n/a", ""]
            continue
        whole = med([sum(s) for s in runs])
        row += [cell(runs), "%s (%s)" % (secs(whole), ratio(whole, base))
                if base else secs(whole)]
    return row


def walker_attach(args, pythons, tool, scratch):
    """record -p on 50 threads 100 frames deep: the recorder's CPU while
    it records, and the time from the command to the first sample."""
    py = next((p for p in pythons if p.minor == 11 and
               p.origin == "system"), None)
    if py is None:
        return "#### (i3) Attach\n\nn/a (no system 3.11)\n"
    secs_run = 8.0 if not args.quick else 4.0
    target = subprocess.Popen([py.path, os.path.join(WL, "threads.py"),
                               "50", "100", str(secs_run + 4)],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    line = target.stdout.readline().decode()
    rows = []
    try:
        if not line.startswith("ready "):
            return "#### (i3) Attach\n\nn/a (the target did not start)\n"
        sess = os.path.join(scratch, "i-attach")
        shutil.rmtree(sess, ignore_errors=True)
        t0 = time.monotonic()
        rec = subprocess.Popen([tool.ppr, "record", "-q", "-p",
                                str(target.pid), "--duration",
                                str(secs_run), "-o", sess],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
        time.sleep(1.5)
        c1, w1 = proc_cpu(rec.pid), time.monotonic()
        time.sleep(secs_run - 2.5)
        c2, w2 = proc_cpu(rec.pid), time.monotonic()
        err = rec.communicate(timeout=600)[1].decode("utf-8", "replace")
        total = time.monotonic() - t0
        if rec.returncode != 0:
            return "#### (i3) Attach\n\nn/a (record -p: %s)\n" % \
                first_line(err, 60)
        meta = read_meta(sess)
        share = "n/a"
        if c1 is not None and c2 is not None and w2 > w1:
            share = "%.1f %%" % (100.0 * (c2 - c1) / (w2 - w1))
        rows.append(["50 threads, 100 frames, %s" % py.label,
                     meta.get("samples", "?"), share,
                     "%s ms" % meta.get("first_sample_ms", "?"),
                     secs(total)])
    finally:
        target.kill()
        target.wait()
    text = ("#### (i3) Attach: the recorder's own CPU and the first "
            "sample\n\n`record -p PID --duration %g` on a process of 50 "
            "threads 100 Python frames deep, all running (2 CPUs). CPU: "
            "the recorder's utime+stime over wall time while it records "
            "(from 1.5 s to 1 s before the end: not its start or its "
            "finish). First sample: from the recorder's start to the "
            "first sample (meta first_sample_ms). Goals: <= 5 %% of a "
            "core, <= 1 s.\n\n" % secs_run)
    text += table(["target", "samples", "recorder CPU",
                   "to the first sample", "record -p, wall"], rows)
    return text


# --- (s) CPython 3.14/3.15 in their own root, and 3.15's own sampler -------

def unstable_root():
    """The root of Debian unstable's packages that .ci/setup.d/
    unstable-root.sh builds (its 3.14 and 3.15 need unstable's glibc)."""
    cache = os.environ.get("PYPERF_CACHE") or \
        os.path.join(os.path.expanduser("~"), ".cache", "pyperf-run")
    return os.path.join(cache, "unstable-root")


def read_collapsed(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_collapsed(f)


def part_s(args, pythons, tool, scratch):
    """CPython 3.14 and 3.15 (Debian unstable's, in their own root): the
    program's cost under the frame walker, and 3.15's own sampler
    (`python3.15 -m profiling.sampling`) side by side: its cost at the
    same rate and both tools' shares against the split the program
    measures itself."""
    head = ("### (s) CPython 3.14 and 3.15 in another root, and 3.15's "
            "own sampler\n\n")
    root = unstable_root()
    vers = [v for v in ("3.14", "3.15")
            if os.access(os.path.join(root, "usr", "bin", "python" + v),
                         os.X_OK)]
    if not vers:
        return head + na("no %s/usr/bin/python3.14 or 3.15: "
                         ".ci/setup.d/unstable-root.sh builds them" % root) \
            + "\n"
    if os.geteuid() != 0:
        return head + na("chroot and the proc mount need root") + "\n"
    if not tool.has("record") or not tool.has("report"):
        return head + na(tool.missing("record" if not tool.has("record")
                                      else "report")) + "\n"
    # the workloads, where the root's programs see them
    inner = tempfile.mkdtemp(prefix="pyperf-bench-",
                             dir=os.path.join(root, "tmp"))
    os.chmod(inner, 0o700)
    seen = "/tmp/" + os.path.basename(inner)
    for w in ("timed.py", "fib.py", "split.py"):
        shutil.copy(os.path.join(WL, w), inner)
    # the sampler reads the target's /proc/PID: mount proc in the root
    # for this table, and unmount it after (only if this table did)
    proc = os.path.join(root, "proc")
    mounted = False
    if not os.path.ismount(proc):
        r = run(["mount", "-t", "proc", "proc", proc], timeout=30)
        mounted = r.code == 0
    try:
        return head + sampler_tables(args, tool, scratch, root, vers,
                                     inner, seen)
    finally:
        if mounted:
            run(["umount", proc], timeout=30)
        shutil.rmtree(inner, ignore_errors=True)


def sampler_tables(args, tool, scratch, root, vers, inner, seen):
    reps = max(3, args.reps)
    n = "30" if args.quick else "35"
    env = clean_env()
    # the root has no C.UTF-8 locale: the sampler's setlocale() fails
    env["LC_ALL"] = "C"
    rate = 1000

    def in_root(v):
        return ["chroot", root, "/usr/bin/python" + v]

    def sampler(v, out):
        return in_root(v) + ["-m", "profiling.sampling", "run", "--mode",
                             "cpu", "-r", "%dhz" % rate, "--collapsed",
                             "-o", out]

    fib = [seen + "/timed.py", seen + "/fib.py", n]
    cols = ["plain", "bpf"] + (["sampler"] if "3.15" in vers else [])
    own = {(v, c): [] for v in vers for c in cols}
    whole = {(v, c): [] for v in vers for c in cols}
    why = {}
    sess = os.path.join(scratch, "s-session")
    for rep in range(reps):
        for v in vers:
            log("(s) python %s, fib(%s), run %d of %d" % (v, n, rep + 1,
                                                          reps))
            for c in cols:
                if (v, c) in why or (c == "sampler" and v != "3.15"):
                    continue
                if c == "plain":
                    r = run(in_root(v) + fib, env=env)
                elif c == "bpf":
                    shutil.rmtree(sess, ignore_errors=True)
                    r = ppr_record(tool, sess, ["--"] + in_root(v) + fib,
                                   mode="bpf", freq=rate - 1, env=env)
                else:
                    r = run(sampler(v, seen + "/fib.txt") + fib, env=env)
                e = elapsed_of(r.err)
                if r.code != 0 or e is None:
                    why[(v, c)] = na(first_line(r.err, 60))
                    continue
                own[(v, c)].append(e)
                whole[(v, c)].append(r.wall)
    rows = []
    for v in vers:
        base = own[(v, "plain")]
        row = ["%s (Debian unstable, chroot)" % v,
               why.get((v, "plain")) or secs(min(base))]
        for c in cols[1:]:
            xs = own[(v, c)]
            if c == "sampler" and v != "3.15":
                row += ["n/a (3.15+ only)", ""]
            elif (v, c) in why or not xs or not base:
                row += [why.get((v, c), "n/a"), ""]
            else:
                row += ["%s (%s)" % (secs(min(xs)), ratio(min(xs),
                                                        min(base))),
                        "%s (%s)" % (secs(min(whole[(v, c)])),
                                     ratio(min(whole[(v, c)]),
                                           min(whole[(v, "plain")])))]
        rows.append(row)
    text = ("fib(%s) through `timed.py` (the program's own time, inside "
            "the interpreter) and the whole command's wall time; minimum "
            "of %d interleaved runs, ratios to the plain run. bpf: "
            "`pyperf-run record --mode bpf -F %d -- chroot ROOT "
            "/usr/bin/python3.X ...` (no hook; frames read in the kernel). "
            "sampler: `chroot ROOT /usr/bin/python3.15 -m profiling.sampling "
            "run --mode cpu -r %dhz --collapsed -o FILE ...` (reads the "
            "process's memory from another process; proc is mounted in "
            "the root for it). Goal for bpf: <= 1.05x.\n\n"
            % (n, reps, rate - 1, rate))
    hdr = ["interpreter", "plain, own time", "bpf, own time",
           "bpf, whole command"]
    if "sampler" in cols:
        hdr += ["sampler, own time", "sampler, whole command"]
    text += table(hdr, rows)
    # accuracy: both tools against the split the program measures
    funcs = ("alpha", "beta", "gamma")
    secs_split = "1.0" if args.quick else "3.0"
    arows = []

    def ours(f, fn):
        return re.match(r"%s \((?:.*/)?split\.py(?::\d+)?\)$"
                        % re.escape(fn), f) is not None

    def theirs(f, fn):
        return re.match(r"(?:.*/)?split\.py:%s:\d+$" % re.escape(fn),
                        f) is not None

    for v in vers:
        for c in ("bpf", "sampler"):
            if c == "sampler" and v != "3.15":
                continue
            log("(s) python %s, split.py, %s" % (v, c))
            truth = os.path.join(inner, "split.json")
            argv_in = [seen + "/split.py", seen + "/split.json", secs_split]
            if c == "bpf":
                shutil.rmtree(sess, ignore_errors=True)
                r = ppr_record(tool, sess, ["--"] + in_root(v) + argv_in,
                               mode="bpf", freq=rate - 1, env=env)
                st = ppr_collapsed(tool, sess, env) if r.code == 0 else \
                    na("record: %s" % first_line(r.err, 60))
                match = ours
            else:
                r = run(sampler(v, seen + "/split.txt") + argv_in, env=env)
                st = read_collapsed(os.path.join(inner, "split.txt")) \
                    if r.code == 0 else na(first_line(r.err, 60))
                match = theirs
            label = "pyperf-run bpf" if c == "bpf" else \
                "profiling.sampling cpu"
            if isinstance(st, str):
                arows.append([v, label, st, "", "", ""])
                continue
            with open(truth) as f:
                m = json.load(f)
            measured = [100.0 * m["functions"][fn] / m["main"]
                        for fn in funcs]
            prof, denom = collapsed_shares(st, funcs, match)
            if prof is None:
                arows.append([v, label, "/".join("%.1f" % x
                                                 for x in measured),
                              "n/a (no frames of split.py)", "", ""])
                continue
            arows.append([v, label,
                          "/".join("%.1f" % x for x in measured),
                          "/".join("%.1f" % x for x in prof),
                          "%.1f" % max(abs(a - b) for a, b in
                                       zip(measured, prof)),
                          str(denom)])
    text += ("\n\nAccuracy: `split.py` (%s CPU s) measures its own split "
             "with `time.process_time` (alpha/beta/gamma about 50/30/20 %% "
             "of main()); each tool's share = samples whose stack holds the "
             "function / samples holding main() or any of them, at %d Hz."
             "\n\n" % (secs_split, rate))
    text += table(["interpreter", "tool", "measured α/β/γ %",
                   "profiled α/β/γ %", "max diff (pp)", "samples"], arows)
    text += ("\n\nWhat each shows that the other does not (from their "
             "documentation and the runs above):\n\n")
    text += table(["", "pyperf-run (bpf mode)",
                   "python3.15 -m profiling.sampling"], [
        ["interpreters", "CPython 3.8-3.15, also in another root or mount "
         "namespace", "the 3.15 it ships with"],
        ["native C frames", "named, between the Python frames",
         "`--native`: a `<native>` marker, unnamed"],
        ["kernel frames", "yes", "no"],
        ["off-CPU time", "`--wall`: where and why (sleep, io, lock, gil, "
         "idle, runqueue)", "`--mode wall`: where, not why"],
        ["GIL", "gil waits as an off-CPU reason", "`--mode gil`: samples "
         "of the thread holding it"],
        ["asyncio", "no task view", "`--async-aware`: stacks by task"],
        ["below the line", "lines", "lines; `--opcodes`: bytecode "
         "instructions"],
        ["privileges", "root or CAP_BPF+CAP_PERFMON (jit mode: none)",
         "ptrace access to the target"],
        ["formats", "text, collapsed, json, html, svg, speedscope, pprof, "
         "perf.data", "pstats, collapsed, flamegraph html, gecko, heatmap, "
         "jsonl, binary"],
    ])
    return text


# --- (v) one revision against another ---------------------------------------

def build_revision(rev, scratch):
    """Check out REV of this repository in a git worktree under scratch
    and build it as a user would (./configure && make): (worktree, its
    build directory) or (worktree or None, why not)."""
    wt = os.path.join(scratch, "before")
    r = run(["git", "-C", SRCDIR, "worktree", "add", "--detach", wt, rev],
            timeout=120)
    if r.code != 0:
        return None, na("git worktree add %s: %s" % (rev, first_line(r.err,
                                                                        60)))
    for argv, limit in ((["./configure"], 300),
                        (["make", "-j%d" % (os.cpu_count() or 1)], 1800)):
        r = run(argv, cwd=wt, timeout=limit)
        if r.code != 0:
            return wt, na("%s in %s: %s" % (argv[0], rev,
                                            first_line(r.err, 60)))
    return wt, os.path.join(wt, "build", "plain")


def spread(xs):
    """The runs' spread: (max - min) / min, in percent."""
    return "%.0f %%" % (100.0 * (max(xs) - min(xs)) / min(xs))


def part_v(args, pythons, tool, scratch):
    """The same commands with the build of another revision
    (BENCH_BEFORE) and with this one, interleaved in one run: the
    program's own time under record (bpf and jit mode), record's wall
    time, and report's time per format on one session."""
    head = "### (v) This build against revision %s\n\n" % (
        args.before or "(none)")
    if not args.before:
        return head + na("no revision given: make bench BENCH_PARTS=v "
                         "BENCH_BEFORE=REV") + "\n"
    if not tool.has("record") or not tool.has("report"):
        return head + na(tool.missing("record" if not tool.has("record")
                                      else "report")) + "\n"
    py = next((p for p in pythons if p.minor == 11 and
               p.origin == "system"), None) or \
        next((p for p in pythons if 8 <= p.minor <= 13 and not p.fp), None)
    if py is None:
        return head + na("no CPython 3.8-3.13 found") + "\n"
    log("(v) building %s" % args.before)
    wt, built = build_revision(args.before, scratch)
    try:
        if built.startswith("n/a"):
            return head + built + "\n"
        return head + compare_builds(args, py, Tool(built), tool, scratch)
    finally:
        if wt:
            run(["git", "-C", SRCDIR, "worktree", "remove", "--force", wt],
                timeout=120)


def compare_builds(args, py, before, after, scratch):
    reps = max(3, args.reps)
    env = clean_env({"PYTHONPATH": "/usr/lib/python3/dist-packages"})
    timed = os.path.join(WL, "timed.py")
    fib = [os.path.join(WL, "fib.py"), "27" if args.quick else "32"]
    builds = (("before", before), ("after", after))
    # label -> {build: [seconds]}, and why a cell has no number
    res = {}
    why = {}

    def add(label, which, value, err):
        cell = res.setdefault(label, {"before": [], "after": []})
        if value is None:
            why[(label, which)] = na(first_line(err, 60))
        else:
            cell[which].append(value)

    # A session of many samples, recorded once by this build, that both
    # builds report: report's own time is what is compared.
    sess = os.path.join(scratch, "v-report")
    budget = 1.0 if args.quick else 4.0
    log("(v) recording the session both builds report (%s)" % py.label)
    r = ppr_record(after, sess, [os.path.join(WL, "busy.py"), "2",
                                 str(budget)], python=py.path, freq=4999,
                   env=env)
    samples = read_meta(sess).get("samples", "?") if r.code == 0 else None
    formats = ["text", "collapsed", "json", "html", "speedscope"]
    for rep in range(reps):
        log("(v) run %d of %d" % (rep + 1, reps))
        for mode in ("bpf", "jit"):
            for which, tl in builds:
                s = os.path.join(scratch, "v-%s-%s" % (mode, which))
                shutil.rmtree(s, ignore_errors=True)
                r = ppr_record(tl, s, [timed] + fib, python=py.path,
                               mode=mode, freq=999, env=env)
                ok = r.code == 0
                add("program's own time, record --mode %s, fib(%s)"
                    % (mode, fib[1]), which,
                    elapsed_of(r.err) if ok else None, r.err)
                add("record --mode %s, whole command, fib(%s)"
                    % (mode, fib[1]), which, r.wall if ok else None, r.err)
        if samples is None:
            continue
        for fmt in formats:
            for which, tl in builds:
                argv = [tl.ppr, "report", "-i", sess]
                if fmt != "text":
                    argv += ["--format", fmt]
                r = run(argv, env=env, timeout=600)
                add("report --format %s (%s samples)" % (fmt, samples),
                    which, r.wall if r.code == 0 else None, r.err)
    rows = []
    for label, cell in res.items():
        row = [label]
        for which in ("before", "after"):
            xs = cell[which]
            row.append(why.get((label, which)) if (label, which) in why
                       or not xs else "%s (%s)" % (secs(min(xs)),
                                                   spread(xs)))
        b, a = cell["before"], cell["after"]
        row.append(ratio(min(a), min(b)) if a and b and
                   (label, "before") not in why and
                   (label, "after") not in why else "")
        rows.append(row)
    text = ("`before` is revision %s built by `./configure && make` in a "
            "git worktree, `after` is `%s`. Each cell: the minimum of %d "
            "interleaved runs (before, after, before, ...) and, in "
            "brackets, the runs' spread, (max - min) / min: a ratio "
            "within that spread is noise. %s, `-F 999`; the reports are "
            "of one default-route session of busy.py (2 processes, %g CPU "
            "s each, `-F 4999`) recorded by `after`.%s\n\n"
            % (args.before, os.path.relpath(after.build, SRCDIR), reps,
               py.label, budget,
               "" if samples is not None else
               " The session could not be recorded: %s."
               % first_line(r.err, 80)))
    text += table(["command", "before", "after", "after / before"], rows)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build/plain")
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--parts", default="abcdefghiwks")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--before", default=os.environ.get("BENCH_BEFORE"),
                    help="table v: the revision this build is compared to")
    ap.add_argument("--quick", action="store_true",
                    help="fewer runs and shorter recordings (a smoke test)")
    args = ap.parse_args()
    args.reps_e2e = 2
    args.reps_report = 2
    args.busy_samples = 105000
    args.deep_seconds = 1.5
    args.deep_depth = 10
    args.split_seconds = 2.0
    args.depths = [10, 50, 150, 400, 900]
    args.depth_seconds = 1.0
    if args.quick:
        args.depths = [50, 400]
        args.depth_seconds = 0.5
        args.reps = 2
        args.reps_e2e = 1
        args.reps_report = 1
        args.busy_samples = 10000
        args.deep_seconds = 0.5
        args.split_seconds = 1.0

    t_start = time.monotonic()
    tool = Tool(args.build)
    pythons = discover()
    pv = perf_version()
    scratch = tempfile.mkdtemp(prefix="pyperf-bench-")
    os.chmod(scratch, 0o700)
    now = datetime.datetime.now(datetime.timezone.utc)
    head = ["# pyperf-run benchmarks, %s" % now.strftime("%Y-%m-%d %H:%M UTC"),
            "",
            "- machine: %s, %d CPUs, Linux %s, load average at start %s"
            % (platform.machine(), os.cpu_count() or 0, platform.release(),
               " ".join("%.2f" % x for x in os.getloadavg())),
            "- perf: %s" % (pv or "not found"),
            "- build: `%s`; pyperf-python: %s" % (
                os.path.relpath(tool.build, SRCDIR),
                "yes" if tool.have_wrapper else "no"),
            "- interpreters: %s" % ", ".join(
                "%s%s" % (p.label, " [fp]" if p.fp else "")
                for p in pythons),
            "- command: `make bench%s%s`%s" % (
                "" if args.parts == "abcdefghiwks" else
                " BENCH_PARTS=%s" % args.parts,
                " BENCH_BEFORE=%s" % args.before if args.before else "",
                " (quick)" if args.quick else ""),
            ""]
    print("\n".join(head))
    sys.stdout.flush()
    parts = {"a": part_a, "b": part_b, "c": part_c, "d": part_d,
             "e": part_e, "f": part_f, "g": part_g, "h": part_h,
             "i": part_i, "w": part_w, "k": part_k, "v": part_v,
             "s": part_s, "l": part_l}
    body = []
    tmp_before = set(perf_tmp_files())
    old_int = signal.getsignal(signal.SIGINT)
    try:
        if pv is None and set(args.parts) - {"a"}:
            log("perf not found: parts b-e will be n/a")
        for p in args.parts:
            if p not in parts:
                continue
            t0 = time.monotonic()
            try:
                text = parts[p](args, pythons, tool, scratch)
            except Exception as e:      # report, do not hide, go on
                text = "### (%s)\n\nn/a (bench error: %s: %s)\n" % (
                    p, type(e).__name__, e)
            text += "\n\n_(%s took %.0f s)_\n" % (p, time.monotonic() - t0)
            print(text)
            sys.stdout.flush()
            body.append(text)
    finally:
        signal.signal(signal.SIGINT, old_int)
        # The manual pipelines and native -X perf runs leave their files
        # in /tmp, as they do for users: take away what this run made.
        for f in set(perf_tmp_files()) - tmp_before:
            try:
                os.unlink(f)
            except OSError:
                pass
        if os.environ.get("BENCH_KEEP") != "1":
            shutil.rmtree(scratch, ignore_errors=True)
        else:
            log("scratch kept in %s" % scratch)
    total = time.monotonic() - t_start
    tail = "Total: %.0f s.\n" % total
    print(tail)
    md = "\n".join(head) + "\n" + "\n".join(body) + "\n" + tail
    os.makedirs(args.out, exist_ok=True)
    name = now.strftime("%Y-%m-%d") + ".md"
    for n in (name, "latest.md"):
        with open(os.path.join(args.out, n), "w", encoding="utf-8") as f:
            f.write(md)
    log("written to %s" % os.path.join(os.path.relpath(args.out, SRCDIR),
                                       name))


if __name__ == "__main__":
    main()
