#!/usr/bin/env python3
"""The language server on a project split with include (issue 44, spec
§22): 50 files of 1,000 lines under the workspace folder, 25 main files
each including two of 25 libraries (each library included by two mains,
and using its includers' variable). Ten files open (five mains, their
libraries). Measured by the client: completion, hover and definition in a
library (analysed in its includer's context), also right after an edit
to it; how long after a library's edit its open includers' diagnostics
are republished; the server's memory.

    Benchmarks/runner/lsp-project-bench.py PROMISE_RUN_BINARY

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
folder = tempfile.mkdtemp(prefix="lsp-project-bench-")


def steps(prefix, lines_wanted, variable):
    out = []
    n = 0
    while len(out) < lines_wanted - 5:
        out += [f'{prefix}{n}: sh "echo {{{{{variable}}}}} {n}" {{', '  timeout 30s',
                f"  capture v{n} = stdout matches '([0-9]+)'", '  expect exit 0', '}']
        n += 1
    return out


texts = {}
for i in range(25):
    texts[f"lib{i}.workflow"] = "\n".join(steps(f"lib{i}_", 1000, "project")) + "\n"
for i in range(25):
    head = ['var project = "p"', f'include "lib{i}.workflow"', f'include "lib{(i + 1) % 25}.workflow"']
    texts[f"main{i}.workflow"] = "\n".join(head + steps(f"main{i}_", 1000 - 3, "project")) + "\n"
for name, text in texts.items():
    with open(os.path.join(folder, name), "w") as file:
        file.write(text)

server = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=folder)
client = Client(server)
send, wait, request = client.send, client.wait, client.request


def uri(name):
    return f"file://{folder}/{name}"


def published(name, version=None):
    return lambda m: (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(name)
                      and (version is None or m["params"].get("version") == version))



request("initialize", {"processId": None, "capabilities": {},
                       "workspaceFolders": [{"uri": f"file://{folder}", "name": "bench"}]})
send({"method": "initialized", "params": {}})
open_files = [f"main{i}.workflow" for i in range(5)] + [f"lib{i}.workflow" for i in range(5)]
false_errors = 0
for name in open_files:
    send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri(name), "languageId": "promise-run", "version": 1, "text": texts[name]}}})
for name in open_files:
    message = wait(published(name))
    false_errors += len(message["params"]["diagnostics"])
client.pending.clear()

random.seed(7)
lib_lines = texts["lib1.workflow"].split("\n")
uses = [(i, line.index("{{project") + 3) for i, line in enumerate(lib_lines) if "{{project" in line]
blocks = [(i, 2) for i, line in enumerate(lib_lines) if line.strip().startswith("timeout")]


def timed(method, line, character, name="lib1.workflow"):
    return client.timed(method, uri(name), line, character)


results = {}
for label, method, places in [("completion in a library (attributes)", "textDocument/completion", blocks),
                              ("hover in a library (the includer's var)", "textDocument/hover", uses),
                              ("definition in a library (the includer's var)", "textDocument/definition", uses)]:
    results[label] = [timed(method, *random.choice(places)) for _ in range(100)]

after_edit, republish = [], []
version = 1
for round_number in range(20):
    line = random.choice(blocks)[0]
    version += 1
    client.pending.clear()
    sent = time.perf_counter()
    send({"method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri("lib1.workflow"), "version": version},
        "contentChanges": [{"range": {"start": {"line": line, "character": 10},
                                      "end": {"line": line, "character": 11}}, "text": "0"}]}})
    method, places = random.choice([("textDocument/completion", blocks), ("textDocument/hover", uses),
                                    ("textDocument/definition", uses)])
    after_edit.append(timed(method, *random.choice(places)))
    # lib1 is included by main0 and main1, both open.
    wait(published("main0.workflow"))
    wait(published("main1.workflow"))
    republish.append((time.perf_counter() - sent) * 1000)
results["any of the three, right after an edit of the library"] = after_edit
results["both open includers republished after a library edit (40 ms debounce included)"] = republish

memory = shut_down(client, server)

print(f"50 files of 1,000 lines (25 mains each including two of 25 libraries); {len(open_files)} open; "
      f"diagnostics at open: {false_errors}")
print()
print_table(results)
print()
print(f"server memory: VmRSS {memory['VmRSS']}, peak (VmHWM) {memory['VmHWM']}")
