"""What the fixtures that start the runner and signal it share (imported
from their own folder): whether its handler is in place, which processes
are left, and tries run a few at a time.
"""
import os
import signal
import threading
import time


def handler_in_place(pid):
    """Waits (30 s at most) until the runner's handler is in place: the
    kernel shows SIGTERM caught. Before that, in the dynamic loader's first
    millisecond, no program can catch anything. False if it never is."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/status" % pid) as status:
                for line in status:
                    if line.startswith("SigCgt:") and int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)):
                        return True
        except OSError:
            return False
        time.sleep(0.0002)
    return False


def read(pid, name):
    """/proc/PID/NAME, as bytes."""
    with open("/proc/%s/%s" % (pid, name), "rb") as f:
        return f.read()


def live_processes(matches):
    """The pids (text) of the live processes, zombies aside, for which
    `matches(pid)` holds; one that ends meanwhile is passed over."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if matches(pid) and read(pid, "stat").rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                found.append(pid)
        except OSError:
            pass
    return found


def on_threads(items, count, body, budget=None):
    """Calls `body(item)` for each item, on `count` threads, in the order
    given; none begins after `budget` seconds. Returns what the calls
    returned."""
    started = time.monotonic()
    lock = threading.Lock()
    queue = list(items)
    results = []

    def worker():
        while True:
            with lock:
                if not queue or (budget is not None and time.monotonic() - started > budget):
                    return
                item = queue.pop(0)
            result = body(item)
            with lock:
                results.append(result)

    threads = [threading.Thread(target=worker) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
