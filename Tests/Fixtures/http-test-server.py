#!/usr/bin/env python3
"""The HTTP server of the Steps tests: 127.0.0.1 only, on a free port that
it writes to the file named by its first argument. It exits when its parent
(the test process) goes away. With `--tls CERT KEY` it speaks HTTPS with
that (self-signed) certificate instead.

Routes:
  /hello                 200, "hello"
  /json                  200, a fixed JSON document
  /headers               200, with X-Custom and ETag headers
  /status/N              status N, body "status N"
  /slow?ms=N             waits N ms, then 200 "slow"
  /hang                  never answers
  /trickle               sends headers, then a byte every 100 ms, forever
  /reset                 closes the connection with a TCP reset, no answer
  /redirect/N            302 to /redirect/N-1; /redirect/0 answers "arrived"
  /large?bytes=N         N bytes of 'x' (Content-Length, or chunked=1)
  /echo                  any method: the request as JSON
"""
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
from hashlib import sha256
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

JSON_DOCUMENT = {
    "token": "abc123",
    "ok": True,
    "count": 3,
    "ratio": 0.5,
    "big": 12345678901234567890,
    "missing": None,
    "items": [{"id": 42, "name": "first"}, {"id": 7, "name": "second"}],
    "odd key": "odd value",
    "nested": {"a": {"b": "deep"}},
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, status, body, content_type="text/plain", headers=()):
        data = body if isinstance(body, bytes) else body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        parts = [p for p in url.path.split("/") if p]
        length = int(self.headers.get("Content-Length") or 0)
        request_body = self.rfile.read(length) if length else b""

        if url.path == "/hello":
            self.send_body(200, "hello")
        elif url.path == "/json":
            self.send_body(200, json.dumps(JSON_DOCUMENT), "application/json")
        elif url.path == "/headers":
            self.send_body(200, "with headers", headers=[("X-Custom", "custom value"), ("ETag", '"v1"')])
        elif len(parts) == 2 and parts[0] == "status":
            self.send_body(int(parts[1]), "status " + parts[1])
        elif url.path == "/slow":
            time.sleep(int(query.get("ms", ["500"])[0]) / 1000)
            self.send_body(200, "slow")
        elif url.path == "/hang":
            time.sleep(3600)
        elif url.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "1000000")
            self.end_headers()
            for _ in range(1000000):
                self.wfile.write(b"t")
                self.wfile.flush()
                time.sleep(0.1)
        elif url.path == "/reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            self.close_connection = True
        elif len(parts) == 2 and parts[0] == "redirect":
            remaining = int(parts[1])
            if remaining == 0:
                self.send_body(200, "arrived")
            else:
                self.send_body(302, "moved", headers=[("Location", "/redirect/%d" % (remaining - 1))])
        elif url.path == "/large":
            size = int(query.get("bytes", ["1000"])[0])
            chunked = query.get("chunked", ["0"])[0] == "1"
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(size))
            self.end_headers()
            block = b"x" * 65536
            sent = 0
            while sent < size:
                piece = block[: min(len(block), size - sent)]
                if chunked:
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                else:
                    self.wfile.write(piece)
                sent += len(piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        elif url.path == "/echo":
            answer = {
                "method": self.command,
                "path": self.path,
                "headers": {name.lower(): value for name, value in self.headers.items()},
                "body_length": len(request_body),
                "body_sha256": sha256(request_body).hexdigest(),
                "body": request_body.decode("utf-8", "replace") if len(request_body) < 100000 else "",
            }
            self.send_body(200, json.dumps(answer), "application/json")
        else:
            self.send_body(404, "no route " + url.path)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def exit_with_parent(parent):
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.2)


def main():
    parent = os.getppid()
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) == 5 and sys.argv[2] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    port_file = sys.argv[1]
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
