#!/usr/bin/env python3
"""Issue 20's start-up race, driven from a process of its own (the test
process's own child reaping would interfere): starts BINARY on a workflow
whose step sleeps, N times; each time waits until the runner's handler is
in place (the kernel shows SIGTERM caught: before that, in the dynamic
loader's first millisecond, no program can catch anything), then sends
SIGTERM, SIGINT or SIGHUP after a random delay across the first 45 ms.
Prints one line per try: `ok` or what went wrong, then `done OK STARTED`
(STARTED: how many tries stopped the step once it had started, whose
ensure must then have run).

    signal-race.py BINARY FOLDER N
"""
import json
import os
import random
import signal
import sys
import time

# The shared module is read from this folder: no __pycache__ left in it.
sys.dont_write_bytecode = True
from runner_fixtures import handler_in_place

binary, folder, tries = sys.argv[1], sys.argv[2], int(sys.argv[3])
workflow = os.path.join(folder, "s.workflow")
with open(workflow, "w") as f:
    f.write('workflow "sig"\na: sh "sleep 5"\nensure {\n  log "=ensure ran"\n}\n')


ok = 0
started = 0
signals = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]
for index in range(tries):
    sig = signals[index % 3]
    delay = random.uniform(0, 0.045)
    report = os.path.join(folder, "r%d.json" % index)
    output = os.path.join(folder, "out%d" % index)
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    pid = os.posix_spawn(binary, [binary, "--report", "json=" + report, workflow], dict(os.environ),
                         file_actions=[(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2)],
                         setsigdef=set(range(1, 32)) - {signal.SIGKILL, signal.SIGSTOP}, setsigmask=set(),
                         setpgroup=0)
    os.close(out)
    what = "try %d, %s after %.1f ms" % (index, signal.Signals(sig).name, delay * 1000)
    if not handler_in_place(pid):
        print("%s: the runner never caught SIGTERM" % what)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        continue
    time.sleep(delay)
    os.kill(pid, sig)
    _, status = os.waitpid(pid, 0)
    printed = open(output).read()
    if os.WIFSIGNALED(status):
        print("%s: died of signal %d" % (what, os.WTERMSIG(status)))
        continue
    code = os.WEXITSTATUS(status)
    if code != 128 + sig:
        print("%s: exit %d; printed: %s" % (what, code, printed[-300:].replace("\n", " / ")))
        continue
    try:
        with open(report) as f:
            parsed = json.load(f)
    except (OSError, ValueError) as error:
        print("%s: no report (%s)" % (what, error))
        continue
    if parsed.get("status") != "interrupted":
        print("%s: report status %s" % (what, parsed.get("status")))
        continue
    step = next((s for s in parsed.get("steps", []) if s.get("id") == "a"), None)
    if step is not None and step.get("status") == "cancelled":
        started += 1
        if "=ensure ran" not in printed:
            print("%s: the ensure did not run" % what)
            continue
    ok += 1
    print("ok")
print("done %d %d" % (ok, started))
