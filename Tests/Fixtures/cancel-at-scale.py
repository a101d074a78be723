#!/usr/bin/env python3
"""Issue 20's cancelling at scale, from a process of its own: runs BINARY
on a workflow of N parallel `sleep 30` steps (-j N), waits until all N
started, sends SIGTERM and prints `EXIT SECONDS`: the exit code and how
long the runner took to end everything after the signal.

    cancel-at-scale.py BINARY FOLDER N
"""
import os
import signal
import sys
import time

binary, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
workflow = os.path.join(folder, "scale%d.workflow" % count)
with open(workflow, "w") as f:
    f.write('workflow "scale"\nforeach i in range(1, %d) parallel {\n  s: sh "echo started; exec sleep 30"\n}\n' % count)
output = os.path.join(folder, "scale%d.out" % count)
out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
pid = os.posix_spawn(binary, [binary, "--color", "never", "-j", str(count), workflow], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2)],
                     setsigdef=set(range(1, 32)) - {signal.SIGKILL, signal.SIGSTOP}, setsigmask=set(), setpgroup=0)
os.close(out)
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    with open(output) as f:
        if f.read().count(" started") >= count:
            break
    time.sleep(0.05)
time.sleep(0.2)
start = time.monotonic()
os.kill(pid, signal.SIGTERM)
_, status = os.waitpid(pid, 0)
print("%d %.3f" % (os.waitstatus_to_exitcode(status), time.monotonic() - start))
