#!/usr/bin/env python3
"""Issue 39 item 23: a stopping signal at a random moment of a step's start,
driven from a process of its own (as signal-race.py). Each try starts
BINARY on one of four workflows (one `sh` step; six in parallel; a parallel
foreach whose short steps keep the spawning threads busy; a chain of short
steps started one after another), waits until its handler is in place, and
sends SIGINT or SIGTERM after a delay spread over 0-80 ms; a third of the
tries send a second signal 0-20 ms later (the stop at once). The delays
come from a fixed seed, so a failure can be run again.

Every process of a try carries SIGNAL_AT_SPAWN=<try's tag> in its
environment (promise-run's own, which steps inherit). When promise-run has
exited, /proc is read for live processes with that tag (promise-run's
watchdog, a fork of promise-run that ends a moment later, aside): there
must be none. No try starts after BUDGET seconds. One line per problem,
then `done RAN FAILURES LEFT ENSURED SECONDS` (RAN: tries made; LEFT:
tries that left processes; ENSURED: tries whose ensure had to run and
did).

    signal-at-spawn.py BINARY FOLDER TRIES [SEED] [WORKERS] [BUDGET]
"""
import os
import random
import signal
import sys
import threading
import time
import uuid

binary, folder, tries = sys.argv[1], sys.argv[2], int(sys.argv[3])
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 23
workers = int(sys.argv[5]) if len(sys.argv) > 5 else 2
budget = float(sys.argv[6]) if len(sys.argv) > 6 else 600

ENSURE = 'ensure {\n  log "=ensure ran"\n}\n'
SHAPES = {
    "one": 'workflow "one"\na: sh "sleep 30; true"\n' + ENSURE,
    "parallel": 'workflow "parallel"\nparallel {\n'
    + "".join('  a%d: sh "sleep 30; true"\n' % index for index in range(6)) + "}\n" + ENSURE,
    "stream": 'workflow "stream"\nforeach i in range(1, 2000) parallel {\n  sh "sleep 0.01; true"\n}\n' + ENSURE,
    "chain": 'workflow "chain"\nforeach i in range(1, 2000) {\n  sh "true; true"\n}\n' + ENSURE,
}
for name, text in SHAPES.items():
    with open(os.path.join(folder, name + ".workflow"), "w") as f:
        f.write(text)


def caught(pid):
    """Whether the runner's handler is in place (SIGTERM caught)."""
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


def tagged(tag):
    """Live processes whose environment holds `tag`, but the watchdog."""
    wanted = ("SIGNAL_AT_SPAWN=" + tag).encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                if wanted not in f.read().split(b"\0"):
                    continue
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[0] in ("Z", "X"):
                continue
            # The watchdog: promise-run forked into a session of its own;
            # it sweeps for a moment after promise-run is gone, then exits.
            if fields[3] == pid and os.path.realpath("/proc/%s/exe" % pid) == os.path.realpath(binary):
                continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                found.append("%s %s" % (pid, f.read().replace(b"\0", b" ").decode(errors="replace").strip()))
        except OSError:
            pass
    return found


def one_try(index):
    rng = random.Random(seed * 100003 + index)
    shape = list(SHAPES)[index % len(SHAPES)]
    first = rng.choice([signal.SIGINT, signal.SIGTERM])
    delay = rng.uniform(0, 0.080)
    second = rng.uniform(0, 0.020) if rng.random() < 1 / 3 else None
    tag = uuid.uuid4().hex
    output = os.path.join(folder, "out%d" % index)
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    environment = dict(os.environ, SIGNAL_AT_SPAWN=tag)
    pid = os.posix_spawn(binary, [binary, "-j", "8", "--color", "never", os.path.join(folder, shape + ".workflow")],
                         environment, file_actions=[(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2)],
                         setsigdef=set(range(1, 32)) - {signal.SIGKILL, signal.SIGSTOP}, setsigmask=set(),
                         setpgroup=0)
    os.close(out)
    what = "try %d (%s), %s after %.1f ms%s" % (index, shape, signal.Signals(first).name, delay * 1000,
                                                "" if second is None else ", again %.1f ms later" % (second * 1000))
    problems = []
    if not caught(pid):
        problems.append("%s: the runner never caught SIGTERM" % what)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return problems, False, False
    time.sleep(delay)
    os.kill(pid, first)
    if second is not None:
        time.sleep(second)
        try:
            os.kill(pid, first)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    left = tagged(tag)
    printed = open(output, errors="replace").read()
    if left:
        # Whether the watchdog, which sweeps once promise-run is gone,
        # ended them a moment later (a test that looks at once sees them).
        time.sleep(1)
        later = len(tagged(tag))
        problems.append("%s: %d process(es) left (%d a second later): %s" % (what, len(left), later, "; ".join(left)))
        for entry in left:
            try:
                os.kill(int(entry.split()[0]), signal.SIGKILL)
            except OSError:
                pass
    code = os.waitstatus_to_exitcode(status)
    if code != 128 + first:
        problems.append("%s: exit %d; printed: %s" % (what, code, printed[-300:].replace("\n", " / ")))
    # Once the run started (its header printed), the first signal runs the
    # ensure; a second may stop it at once.
    ensured = False
    if second is None and "▶" in printed:
        if "=ensure ran" in printed:
            ensured = True
        else:
            problems.append("%s: the ensure did not run; printed: %s" % (what, printed[-300:].replace("\n", " / ")))
    return problems, bool(left), ensured


started = time.monotonic()
lock = threading.Lock()
queue = list(range(tries))
problems = []
counts = {"ran": 0, "left": 0, "ensured": 0}


def worker():
    while True:
        with lock:
            if not queue or time.monotonic() - started > budget:
                return
            index = queue.pop(0)
            counts["ran"] += 1
        found, left, ensured = one_try(index)
        with lock:
            problems.extend(found)
            counts["left"] += left
            counts["ensured"] += ensured


threads = [threading.Thread(target=worker) for _ in range(workers)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
for problem in problems:
    print(problem)
failed = len(set(problem.split(":")[0] for problem in problems))
print("done %d %d %d %d %.1f" % (counts["ran"], failed, counts["left"], counts["ensured"], time.monotonic() - started))
