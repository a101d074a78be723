#!/usr/bin/env python3
"""Starts a command (the arguments after the first two), sends it SIGNAL
after SECONDS, and prints its exit code (or -N for death by signal N).
Its output goes to standard error.

    signal-after.py SECONDS SIGNAL COMMAND...
"""
import os
import signal
import sys
import time

delay, number = float(sys.argv[1]), int(sys.argv[2])
pid = os.posix_spawn(sys.argv[3], sys.argv[3:], dict(os.environ),
                     file_actions=[(os.POSIX_SPAWN_DUP2, 2, 1)],
                     setsigdef=set(range(1, 32)) - {signal.SIGKILL, signal.SIGSTOP}, setsigmask=set(), setpgroup=0)
time.sleep(delay)
os.kill(pid, number)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
