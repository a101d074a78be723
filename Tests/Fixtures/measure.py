#!/usr/bin/env python3
"""Runs a command (its arguments), its output to the file named by the
first argument, and prints `EXIT SECONDS PEAK_KIB`: its exit code, wall
time and peak resident memory (of it and what it waited for).

    measure.py OUTPUT COMMAND...
"""
import resource
import subprocess
import sys
import time

with open(sys.argv[1], "wb") as output:
    start = time.monotonic()
    code = subprocess.run(sys.argv[2:], stdout=output, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - start
print("%d %.3f %d" % (code, wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
