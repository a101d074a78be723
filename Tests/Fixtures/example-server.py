#!/usr/bin/env python3
"""A server for the example workflows (workflows/*.workflow) in the tests:
127.0.0.1 only, on a free port written to the file named by its first
argument; it exits when its parent (the test process) goes away.

Routes:
  /items/N, /users/NAME   200, JSON {"id": ..., "name": ...}
  /health                 200 "ok"
  /ready                  200, JSON {"ready": true, "version": "1.4.2"}
  /releases/NAME          200, a fixed 64 KiB file (application/gzip)
  /down/...               503 "mirror down"
  POST /login             200, JSON {"token": ...} for {"user": NAME}
  /api/items/N            200, JSON as /items/N with "Authorization: Bearer"
                          the token /login gave; 401 without
  anything else           404
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RELEASE = bytes((i * 7 + 3) % 256 for i in range(64 * 1024))
TOKEN = "tok-" + os.urandom(8).hex()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if len(parts) == 2 and parts[0] in ("items", "users"):
            document = {"id": parts[1], "name": f"{parts[0][:-1]} {parts[1]}"}
            self.send(200, json.dumps(document).encode(), "application/json")
        elif parts == ["health"]:
            self.send(200, b"ok", "text/plain")
        elif parts == ["ready"]:
            self.send(200, json.dumps({"ready": True, "version": "1.4.2"}).encode(), "application/json")
        elif len(parts) == 2 and parts[0] == "releases":
            self.send(200, RELEASE, "application/gzip")
        elif parts and parts[0] == "down":
            self.send(503, b"mirror down", "text/plain")
        elif len(parts) == 3 and parts[:2] == ["api", "items"]:
            if self.headers.get("Authorization") != "Bearer " + TOKEN:
                self.send(401, b"log in first", "text/plain")
            else:
                self.send(200, json.dumps({"id": parts[2], "name": "item " + parts[2]}).encode(), "application/json")
        else:
            self.send(404, b"not found", "text/plain")

    do_HEAD = do_GET

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path == "/login":
            try:
                user = json.loads(body or b"{}").get("user")
            except ValueError:
                user = None
            if user:
                self.send(200, json.dumps({"token": TOKEN, "user": user}).encode(), "application/json")
            else:
                self.send(400, b"say who you are: {\"user\": NAME}", "text/plain")
        else:
            self.send(404, b"not found", "text/plain")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256


def exit_with_parent(parent):
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.2)


def main():
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()
    server = Server(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    server.serve_forever()


if __name__ == "__main__":
    main()
