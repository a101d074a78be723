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
exited, /proc is read for live processes with that tag: there must be
none. One still running promise-run's program is its watchdog (a fork
that sweeps for a moment, then ends) or a child caught before its exec,
and is followed until it ends or execs (`left_behind`). No try starts after BUDGET seconds. One line per problem,
then `done RAN FAILURES LEFT ENSURED SECONDS` (RAN: tries made; LEFT:
tries that left processes; ENSURED: tries whose ensure had to run and
did).

    signal-at-spawn.py BINARY FOLDER TRIES [SEED] [WORKERS] [BUDGET]
"""
import os
import random
import signal
import sys
import time
import uuid

# The shared module is read from this folder: no __pycache__ left in it.
sys.dont_write_bytecode = True
from runner_fixtures import handler_in_place, live_processes, on_threads, read

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


def program_of(pid):
    """Whether `pid` runs promise-run's program; None when that cannot be
    read (it is exiting, or gone)."""
    try:
        return os.path.realpath("/proc/%s/exe" % pid, strict=True) == os.path.realpath(binary)
    except OSError:
        return None


def alive(pid):
    try:
        return read(pid, "stat").rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def command_of(pid):
    try:
        return read(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def tagged(tag):
    """Live processes whose environment holds `tag`: (pid, whether it runs
    promise-run's program). One that cannot be told is passed over."""
    wanted = ("SIGNAL_AT_SPAWN=" + tag).encode()
    found = [(pid, program_of(pid)) for pid in live_processes(lambda pid: wanted in read(pid, "environ").split(b"\0"))]
    return [(pid, runner) for pid, runner in found if runner is not None]


def left_behind(tag):
    """What the try left, once promise-run has exited. A process still
    running promise-run's program is its watchdog (a fork that sweeps for
    a moment, then exits), or a child whose start was under way, before
    its exec: each is followed (2 s at most) until it ends or execs, and
    one that execs was left behind."""
    found = tagged(tag)
    left = ["%s %s" % (pid, command_of(pid)) for pid, runner in found if not runner]
    pending = [pid for pid, runner in found if runner]
    deadline = time.monotonic() + 2
    while pending and time.monotonic() < deadline:
        time.sleep(0.005)
        for pid in list(pending):
            if not alive(pid):
                pending.remove(pid)
            elif program_of(pid) is False:
                left.append("%s %s (it was starting)" % (pid, command_of(pid)))
                pending.remove(pid)
    return left + ["%s %s (neither ended nor exec'd)" % (pid, command_of(pid)) for pid in pending]


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
    if not handler_in_place(pid):
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
    left = left_behind(tag)
    printed = open(output, errors="replace").read()
    if left:
        # Whether the watchdog, which sweeps once promise-run is gone,
        # ended them a moment later (a test that looks at once sees them).
        time.sleep(1)
        later = sum(1 for _, runner in tagged(tag) if not runner)
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
results = on_threads(range(tries), workers, one_try, budget)
problems = [problem for found, _, _ in results for problem in found]
for problem in problems:
    print(problem)
failed = sum(1 for found, _, _ in results if found)
left = sum(1 for _, left, _ in results if left)
ensured = sum(1 for _, _, ensured in results if ensured)
print("done %d %d %d %d %.1f" % (len(results), failed, left, ensured, time.monotonic() - started))
