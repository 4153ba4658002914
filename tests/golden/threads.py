# SPDX-License-Identifier: GPL-2.0-only
# a small threaded program: two worker threads and the main thread, some sleeping
import threading, time

def work(n):
    s = 0
    end = time.process_time() + 0.25
    while time.process_time() < end:
        for i in range(n):
            s += i * i
    return s

def sleeper():
    time.sleep(0.2)
    work(500)

ts = [threading.Thread(target=work, args=(1000,), name="worker-%d" % i) for i in range(2)]
ts.append(threading.Thread(target=sleeper, name="sleeper"))
for t in ts: t.start()
work(300)
for t in ts: t.join()
