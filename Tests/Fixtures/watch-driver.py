#!/usr/bin/env python3
"""Drives `promise-run --watch` as a person would: starts it, waits for a
line, edits a file, waits for another line, then sends SIGINT; prints
one JSON object: the output, the exit code, and the milliseconds from
each edit to the next run's first step starting.

    watch-driver.py BINARY FOLDER WORKFLOW SCRIPT_JSON
SCRIPT_JSON: [["wait", "text"], ["edit", "path", "text to append"], ["sleep", seconds], ["interrupt"],
              ["write", "path", "new text"] (in place, as vim's default),
              ["replace", "path", "new text"] (a new file renamed over the old, as many editors save)]
"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

binary, folder, workflow, script = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
process = subprocess.Popen([binary, "--watch", "--color", "never", workflow], cwd=folder,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
lines = []
cond = threading.Condition()


def reader():
    for line in process.stdout:
        with cond:
            lines.append((time.monotonic(), line.rstrip("\n")))
            cond.notify_all()
    with cond:
        cond.notify_all()


threading.Thread(target=reader, daemon=True).start()
position = 0
edits = []
failed = None
for step in script:
    if step[0] == "wait":
        deadline = time.monotonic() + 20
        found = False
        with cond:
            while time.monotonic() < deadline:
                for index in range(position, len(lines)):
                    if step[1] in lines[index][1]:
                        position = index + 1
                        found = True
                        break
                if found or process.poll() is not None:
                    break
                cond.wait(0.05)
        if not found:
            failed = "no line with %r" % step[1]
            break
    elif step[0] == "edit":
        with open(os.path.join(folder, step[1]), "a") as f:
            f.write(step[2])
        edits.append((time.monotonic(), position))
    elif step[0] == "write":
        with open(os.path.join(folder, step[1]), "w") as f:
            f.write(step[2])
        edits.append((time.monotonic(), position))
    elif step[0] == "replace":
        target = os.path.join(folder, step[1])
        with open(target + ".tmp~", "w") as f:
            f.write(step[2])
        os.rename(target + ".tmp~", target)
        edits.append((time.monotonic(), position))
    elif step[0] == "sleep":
        time.sleep(step[1])
    elif step[0] == "interrupt":
        process.send_signal(signal.SIGINT)
try:
    code = process.wait(timeout=20)
except subprocess.TimeoutExpired:
    process.kill()
    code = "hung"
# From each edit to the first step line ("[" or "✓" or "≡") of the next run.
latencies = []
for at, after in edits:
    starts = [t for t, line in lines[after:] if line.startswith("▶")]
    later = [t for t in starts if t >= at]
    if later:
        latencies.append(round((later[0] - at) * 1000, 1))
print(json.dumps({"failed": failed, "code": code, "output": [line for _, line in lines], "latencies": latencies}))
