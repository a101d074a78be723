#!/usr/bin/env python3
"""Issue 19's matrix, from a process of its own: steps whose processes
leave their process group (a `setsid` child, a double fork into a new
session, `nohup` with `disown`, a `setsid` child that ignores SIGTERM), each
ended every way a step ends (SIGTERM or SIGINT to the runner, a step
timeout, a group timeout, fail-fast, a lost race, the normal end of the
run, SIGKILL to the runner), and 8 such steps in parallel. Each case runs
`sleep` under a name of its own, and passes when no process with that name
is left once the runner is gone (for SIGKILL: once its watchdog is done).
Prints a line per failure, then `done CASES FAILURES`.

    escapees.py BINARY FOLDER [REPEAT] [PARALLEL]
"""
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

# The shared module is read from this folder: no __pycache__ left in it.
sys.dont_write_bytecode = True
from runner_fixtures import live_processes, on_threads, read

binary, folder = sys.argv[1], sys.argv[2]
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 1
parallel = int(sys.argv[4]) if len(sys.argv) > 4 else 4

KINDS = {
    "setsid": "setsid {m} 300 &",
    "double-fork": "sh -c 'setsid sh -c \\\"{m} 300 &\\\" &'",
    "nohup-disown": "bash -c 'nohup {m} 300 >/dev/null 2>&1 & disown'",
    "setsid-ignoring-term": "setsid sh -c \\\"trap '' TERM; {m} 300; true\\\" &",
}
ENDINGS = ["sigterm", "sigint", "step-timeout", "group-timeout", "fail-fast", "lost-race", "normal-end", "sigkill"]


def workflow(kind, ending, marked):
    escape = KINDS[kind].format(m=marked)
    step = 'a: sh "%s %s 300"' % (escape, marked) if ending != "normal-end" else 'a: sh "%s"' % escape
    if ending == "step-timeout":
        return 'workflow "w"\n%s {\n  timeout 1s\n}\n' % step
    if ending == "group-timeout":
        return 'workflow "w"\nsequence {\n  timeout 1s\n  %s\n}\n' % step
    if ending == "fail-fast":
        return 'workflow "w"\nparallel {\n  %s\n  b: sh "sleep 1; exit 1"\n}\n' % step
    if ending == "lost-race":
        return 'workflow "w"\nrace {\n  %s\n  sleep 1s\n}\n' % step
    if ending == "parallel-8":
        return 'workflow "w"\nforeach i in range(1, 8) parallel {\n  %s\n}\n' % step.replace("a: ", "")
    return 'workflow "w"\n%s\n' % step


def marked_left(name):
    return live_processes(lambda pid: name.encode() in read(pid, "cmdline"))


def describe(pid):
    """A left process as a failure names it: pid, state, parent, group,
    session, command line, and its step mark."""
    try:
        fields = read(pid, "stat").rsplit(b")", 1)[1].split()
        command = read(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()
        marks = [entry.decode(errors="replace") for entry in read(pid, "environ").split(b"\0")
                 if entry.startswith(b"PROMISE_RUN_STEP=")]
        return "%s (state %s, parent %s, group %s, session %s, %s, %s)" % (
            pid, fields[0].decode(), fields[1].decode(), fields[2].decode(), fields[3].decode(), command,
            marks[0] if marks else "no mark")
    except OSError:
        return "%s (gone)" % pid


def run_case(kind, ending, failures):
    name = "escapee-%s" % uuid.uuid4().hex[:12]
    marked = os.path.join(folder, name)
    shutil.copy("/bin/sleep", marked)
    path = os.path.join(folder, name + ".workflow")
    with open(path, "w") as f:
        f.write(workflow(kind, "parallel-8" if ending == "parallel-8" else ending, marked))
    process = subprocess.Popen([binary, "-q", "--color", "never", path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    if ending in ("sigterm", "sigint", "sigkill", "parallel-8"):
        wanted = 16 if ending == "parallel-8" else 2
        deadline = time.monotonic() + 20
        while len(marked_left(name)) < wanted and time.monotonic() < deadline:
            time.sleep(0.05)
        sig = {"sigterm": signal.SIGTERM, "sigint": signal.SIGINT, "sigkill": signal.SIGKILL,
               "parallel-8": signal.SIGTERM}[ending]
        process.send_signal(sig)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        failures.append("%s / %s: the runner did not end" % (kind, ending))
        return
    # The runner ended everything before it exited; after SIGKILL its
    # watchdog does, a moment later.
    deadline = time.monotonic() + (5 if ending == "sigkill" else 1)
    left = marked_left(name)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = marked_left(name)
    if left:
        failures.append("%s / %s: %d process(es) left: %s" % (kind, ending, len(left), "; ".join(describe(pid) for pid in left)))
        for pid in left:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


cases = [(kind, ending) for _ in range(repeat) for kind in KINDS for ending in ENDINGS]
cases += [("setsid", "parallel-8")] * repeat


def case(item):
    found = []
    run_case(item[0], item[1], found)
    return found


failures = [failure for found in on_threads(reversed(cases), parallel, case) for failure in found]
for failure in failures:
    print(failure)
print("done %d %d" % (len(cases), len(failures)))
