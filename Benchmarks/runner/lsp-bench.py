#!/usr/bin/env python3
"""The language server's figures (issue 32, spec §18): on a workflow file
of 5,000 lines, the latency of completion, hover and definition (p50, p95,
max), also right after an edit; how long diagnostics take to follow a
change (the server's debounce included); and the server's memory with ten
such files open.

    Benchmarks/runner/lsp-bench.py PROMISE_RUN_BINARY

Prints a Markdown table. The binary is the release build (`make release`).
"""
import os
import random
import subprocess
import sys
import tempfile
import time

from lspclient import Client, percentile, print_table, shut_down

binary = sys.argv[1]
folder = tempfile.mkdtemp(prefix="lsp-bench-")


def workflow(lines_wanted=5000):
    out = ['workflow "big"', 'var base = "http://127.0.0.1:8080"']
    n = 0
    while len(out) < lines_wanted - 6:
        previous = f"step{n - 1}" if n else "base"
        reference = f"{{{{{previous}.stdout}}}}" if n else "{{base}}"
        out += [f'step{n}: sh "echo {reference} {n}" {{',
                '  timeout 30s',
                f"  capture v{n} = stdout matches '([0-9]+)'",
                '  expect exit 0',
                '}']
        n += 1
    return "\n".join(out) + "\n", n


text, steps = workflow()
lines = text.split("\n")
server = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=folder)
client = Client(server)
send, wait, request = client.send, client.wait, client.request


def uri(n):
    return f"file://{folder}/big{n}.workflow"



request("initialize", {"processId": None, "capabilities": {}})
send({"method": "initialized", "params": {}})
for n in range(10):
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri(n), "languageId": "promise-run", "version": 1, "text": text}}})
    wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(n))

random.seed(7)
# Positions: a label used in a command (definition, hover), inside a step's
# block (completion of attributes), after `{{label.` (fields).
uses = [(i, line.index("{{step") + 2) for i, line in enumerate(lines) if "{{step" in line]
blocks = [(i, 2) for i, line in enumerate(lines) if line.strip().startswith("timeout")]
fields = [(i, line.index(".stdout") + 1) for i, line in enumerate(lines) if ".stdout" in line]


def timed(method, line, character, n=0):
    return client.timed(method, uri(n), line, character)


results = {}
for name, method, places in [("completion (attributes)", "textDocument/completion", blocks),
                             ("completion ({{label.)", "textDocument/completion", fields),
                             ("hover (a label)", "textDocument/hover", uses),
                             ("definition (a label)", "textDocument/definition", uses)]:
    results[name] = [timed(method, *random.choice(places)) for _ in range(200)]

# Right after an edit: the request waits for the new analysis.
after_edit = []
diagnostics = []
version = 1
for round_number in range(40):
    line = random.choice(blocks)[0]
    version += 1
    sent = time.perf_counter()
    send({"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri(0), "version": version},
        "contentChanges": [{"range": {"start": {"line": line, "character": 10},
                                      "end": {"line": line, "character": 11}}, "text": "0"}]}})
    method, places = random.choice([("textDocument/completion", blocks), ("textDocument/hover", uses),
                                    ("textDocument/definition", uses)])
    after_edit.append(timed(method, *random.choice(places)))
    wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(0)
         and m["params"].get("version") == version)
    diagnostics.append((time.perf_counter() - sent) * 1000)
results["any of the three, right after an edit"] = after_edit
results["diagnostics after a change (40 ms debounce included)"] = diagnostics

memory = shut_down(client, server)

print(f"file: {len(lines) - 1} lines, {steps} steps; ten such files open")
print()
print_table(results)
print()
print(f"server memory with ten files open: VmRSS {memory['VmRSS']}, peak (VmHWM) {memory['VmHWM']}")
