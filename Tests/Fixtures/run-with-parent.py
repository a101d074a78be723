#!/usr/bin/env python3
"""Runs a command (its arguments) and ends it when this script's parent
(the test process) goes away: for servers, such as nginx, that do not
watch their parent themselves."""
import os
import signal
import subprocess
import sys
import time

parent = os.getppid()
child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL)
while child.poll() is None:
    if os.getppid() != parent:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
        break
    time.sleep(0.2)
sys.exit(child.returncode or 0)
