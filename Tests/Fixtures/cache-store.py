#!/usr/bin/env python3
"""A shared-cache store for the cache tests that misbehaves on
purpose: 127.0.0.1 only, on a free port written to the file named by the
first argument; every request is appended, one line each
("METHOD PATH AUTHORIZATION"), to the file named by the second. It exits
when its parent (the test process) goes away.

Objects live in memory, per route prefix:
  /ok/...       a store that works (GET, HEAD, PUT)
  /token/...    as /ok, but every request needs "Authorization: Bearer
                sekret-token-42" (else 401)
  /refuse/...   GET and HEAD answer 404; PUT answers 403
  /hang/...     never answers
  /corrupt/...  as /ok, but a GET of a cas/ object answers other bytes
  /badentry/... as /ok, but a GET of an ac/ entry answers text that is not
                an entry
  /endless/...  as /ok, but a GET of a cas/ object answers zeros without
                end (no Content-Length) until the client goes away
  /bomb/...     as /ok, but a GET of a cas/ object from a client that
                accepts gzip answers a gzip bomb (50 MB of zeros in 48 KB,
                Content-Encoding: gzip) instead of the object
"""
import gzip
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port_file, log_file = sys.argv[1], sys.argv[2]
objects = {}
lock = threading.Lock()
TOKEN = "Bearer sekret-token-42"
BOMB = []


def bomb():
    with lock:
        if not BOMB:
            BOMB.append(gzip.compress(bytes(50 * 1024 * 1024)))
        return BOMB[0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self):
        with lock, open(log_file, "a") as log:
            log.write(f"{self.command} {self.path} {self.headers.get('Authorization', '-')}\n")

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def route(self):
        self.record()
        parts = self.path.split("/", 2)
        mode = parts[1] if len(parts) > 1 else ""
        if mode == "hang":
            time.sleep(3600)
            return None
        if mode == "token" and self.headers.get("Authorization") != TOKEN:
            self.answer(401, b"token needed")
            return None
        return mode

    def do_GET(self):
        mode = self.route()
        if mode is None:
            return
        if mode == "refuse":
            return self.answer(404)
        with lock:
            body = objects.get(self.path)
        if body is None:
            return self.answer(404)
        if mode == "corrupt" and "/cas/" in self.path:
            body = b"not what was stored\n"
        if mode == "endless" and "/cas/" in self.path and self.command == "GET":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            zeros = bytes(1 << 16)
            try:
                for _ in range(1 << 16):  # at most 4 GiB, then the test has failed anyway
                    self.wfile.write(zeros)
            except OSError:
                pass
            self.close_connection = True
            return None
        if mode == "bomb" and "/cas/" in self.path and "gzip" in self.headers.get("Accept-Encoding", ""):
            return self.answer(200, bomb(), [("Content-Encoding", "gzip")])
        if mode == "badentry" and "/ac/" in self.path:
            body = b'{"format": "promise-run-cache/2", "files": [{"path": "../../etc/evil", "mode": 420, "sha256": "' + b"0" * 64 + b'", "size": 1}]}'
        self.answer(200, body)

    do_HEAD = do_GET

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        mode = self.route()
        if mode is None:
            return
        if mode == "refuse":
            return self.answer(403, b"read-only")
        with lock:
            objects[self.path] = body
        self.answer(201)


def watch_parent():
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=watch_parent, daemon=True).start()
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
