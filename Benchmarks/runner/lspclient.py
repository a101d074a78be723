"""A minimal LSP client over a server's pipes, for the language-server
benchmarks (lsp-bench.py, lsp-project-bench.py): frames, requests by id,
messages kept until asked for, percentiles."""
import json
import time


class Client:
    def __init__(self, server):
        self.server = server
        self.pending = []
        self.next_id = 1

    def send(self, message):
        message["jsonrpc"] = "2.0"
        body = json.dumps(message).encode()
        self.server.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.server.stdin.flush()

    def receive(self):
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            header += self.server.stdout.read(1)
        length = int(header.split(b":")[1].split(b"\r")[0])
        return json.loads(self.server.stdout.read(length))

    def wait(self, predicate):
        """The first message (kept or new) that `predicate` accepts."""
        for index, message in enumerate(self.pending):
            if predicate(message):
                return self.pending.pop(index)
        while True:
            message = self.receive()
            if predicate(message):
                return message
            self.pending.append(message)

    def request(self, method, params):
        ident = self.next_id
        self.next_id += 1
        self.send({"id": ident, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == ident and "method" not in m)

    def timed(self, method, uri, line, character):
        """Milliseconds from sending a position request on `uri` to its answer."""
        start = time.perf_counter()
        response = self.request(method, {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
        assert "error" not in response, response
        return (time.perf_counter() - start) * 1000


def shut_down(client, server):
    """The server's memory (VmRSS and VmHWM, as /proc says them), then a
    clean shutdown and exit."""
    status = open(f"/proc/{server.pid}/status").read()
    memory = {line.split(":")[0]: line.split(":")[1].strip() for line in status.splitlines() if line.startswith(("VmRSS", "VmHWM"))}
    client.request("shutdown", None)
    client.send({"method": "exit"})
    server.wait()
    return memory


def print_table(results):
    """A Markdown table of each request's count and percentiles (ms)."""
    print("| request | n | p50 ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for name, values in results.items():
        print(f"| {name} | {len(values)} | {percentile(values, 50):.1f} | {percentile(values, 95):.1f} | {max(values):.1f} |")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
