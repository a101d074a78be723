"""A minimal LSP client over a server's pipes, for the language-server
benchmarks (lsp-bench.py, lsp-project-bench.py): frames, requests by id,
messages kept until asked for, percentiles."""
import json


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


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
