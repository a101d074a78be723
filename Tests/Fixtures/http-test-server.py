#!/usr/bin/env python3
"""The HTTP server of the Steps tests: 127.0.0.1 only, on a free port that
it writes to the file named by its first argument. It exits when its parent
(the test process) goes away. With `--tls CERT KEY` it speaks HTTPS with
that (self-signed) certificate instead.

Routes:
  /hello                 200, "hello"
  /retry-after?key=K&after=S[&status=N][&date=1][&value=V]
                         first request of K: N (429) with Retry-After S
                         (or an HTTP date S+1 s ahead, or V as it is);
                         then 200 with the seconds since the first
  /json                  200, a fixed JSON document
  /orders                200, a page of orders as JSON (items, next), with
                         X-Total and Link headers (docs/language.md's example)
  /headers               200, with X-Custom and ETag headers
  /status/N              status N, body "status N"
  /slow?ms=N             waits N ms, then 200 "slow"
  /hang                  never answers
  /hold                  never answers; the handler ends when the client
                         closes the connection
  /trickle               sends headers, then a byte every 100 ms, forever
  /reset                 closes the connection with a TCP reset, no answer
  /redirect/N            302 to /redirect/N-1; /redirect/0 answers "arrived"
  /large?bytes=N         N bytes of 'x' (Content-Length, or chunked=1;
                         ms=M: a pause of M ms between the head and the body)
  /echo                  any method: the request as JSON (path as sent)
  /mirror                any method: the request's body, as application/json
  /follow-redirect/relative/foo  302 to ../bar (RFC 3986: /follow-redirect/bar)
  /follow-redirect/bar   200, "bar"
  /redirect-to?status=N&location=URL   status N with that Location
  /self-redirect         302 to itself, forever
  /cookies/set?NAME=VALUE...   200, a Set-Cookie (Path=/) for each
  /cookies               200, {"cookie": the Cookie header or null}
  /page.html             200, an HTML page (text/html) with unclosed tags
  /feed.xml              200, an XML document (application/xml)
  /broken.xml            200, XML that does not parse (application/xml)
  /cookie-attributes     200, Set-Cookie sid (Max-Age, Path, Secure, HttpOnly,
                         SameSite) and theme (Path)
  /gather?key=K&n=N[&ms=M]   waits until N requests of K are in the server at
                         once (at most M ms, 5000 by default), then 200 with
                         how many were; the most at once is noted
  /gathered?key=K        200, {"most": the most requests of K in at once,
                         "requests": how many came}
  /latin1                200, "café" in ISO-8859-1, saying so
  /duplicate-headers     200, X-Dup sent twice
  /fruit                 200, X-Fruit sent four times (Apple, Banana, Cherry, Date)
  /encoded/CODING        200, a text compressed with gzip, deflate, br or zstd
  /bomb?mb=N             200, N MB of zeros gzip-compressed (about 1,030 to 1),
                         Content-Encoding: gzip

With `--tls CERT KEY` it speaks HTTPS; `--client-ca CA` then also requires
a client certificate signed by CA. With `--unix PATH` it listens on a Unix
domain socket at PATH instead (and writes 0 as its port).
"""
import ctypes
import gzip
import json
import os
import zlib
import socket
import socketserver
import ssl
import struct
import sys
import threading
import time
from hashlib import sha256
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

RETRY_FIRST = {}
ARRIVALS = {}
GATHERINGS = {}
GATHER_CONDITION = threading.Condition()
RETRY_LOCK = threading.Lock()

COMPRESSED_TEXT = ("hello, compressed world! " * 40).encode()


def brotli_compress(data):
    library = ctypes.CDLL("libbrotlienc.so.1")
    size = ctypes.c_size_t(len(data) + 1024)
    out = ctypes.create_string_buffer(size.value)
    ok = library.BrotliEncoderCompress(11, 22, 0, ctypes.c_size_t(len(data)), data, ctypes.byref(size), out)
    assert ok == 1
    return out.raw[: size.value]


def zstd_compress(data):
    library = ctypes.CDLL("libzstd.so.1")
    library.ZSTD_compressBound.restype = ctypes.c_size_t
    library.ZSTD_compress.restype = ctypes.c_size_t
    bound = library.ZSTD_compressBound(ctypes.c_size_t(len(data)))
    out = ctypes.create_string_buffer(bound)
    size = library.ZSTD_compress(out, ctypes.c_size_t(bound), data, ctypes.c_size_t(len(data)), 3)
    return out.raw[:size]


def encoded(coding):
    if coding == "gzip":
        return gzip.compress(COMPRESSED_TEXT)
    if coding == "deflate":
        return zlib.compress(COMPRESSED_TEXT)
    if coding == "br":
        return brotli_compress(COMPRESSED_TEXT)
    if coding == "zstd":
        return zstd_compress(COMPRESSED_TEXT)
    return None

BOMBS = {}


def bomb(megabytes):
    with RETRY_LOCK:
        if megabytes not in BOMBS:
            BOMBS[megabytes] = gzip.compress(bytes(megabytes * 1024 * 1024))
        return BOMBS[megabytes]


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

ORDERS = {
    "items": [{"id": 1, "name": "ink"}, {"id": 2, "name": "paper"}],
    "next": "%2Forders%3Fpage%3D2",
}


# Browsers' tag soup: <p> and <li> left open, an attribute without quotes.
HTML_PAGE = """<!DOCTYPE html>
<html><head><title>Café menu</title></head>
<body>
<h1 class=title>Menu</h1>
<ul id="items"><li>Tea<li>Coffee<li>Cake</ul>
<p>First<p>Second
<a href="/order?item=tea&amp;n=2">order</a>
</body></html>
"""

XML_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed>
  <title>Releases</title>
  <entry id="1"><version>1.0</version><size>10</size></entry>
  <entry id="2"><version>1.1</version><size>20</size></entry>
  <entry id="3"><version>2.0</version><size>12.5</size></entry>
</feed>
"""


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
        elif url.path == "/retry-after":
            # The first request of a key: `status` (429) with Retry-After,
            # `after` seconds (or, with date=1, an HTTP date that far ahead);
            # every later one: 200 with the seconds since the first.
            key = query.get("key", [""])[0]
            with RETRY_LOCK:
                first = RETRY_FIRST.get(key)
                if first is None:
                    RETRY_FIRST[key] = time.time()
            if first is None:
                after = int(query.get("after", ["1"])[0])
                if "value" in query:
                    value = query["value"][0]
                elif query.get("date", ["0"])[0] == "1":
                    value = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + after + 1))
                else:
                    value = str(after)
                self.send_body(int(query.get("status", ["429"])[0]), "slow down", headers=[("Retry-After", value)])
            else:
                self.send_body(200, "%.3f" % (time.time() - first))
        elif url.path == "/arrive":
            # Notes when each request of a key arrived (monotonic seconds);
            # with stall=N, the N-th request of the key waits `ms` first.
            key = query.get("key", [""])[0]
            with RETRY_LOCK:
                times = ARRIVALS.setdefault(key, [])
                times.append(time.monotonic())
                number = len(times) - 1
            if query.get("stall", [None])[0] == str(number):
                time.sleep(int(query.get("ms", ["1000"])[0]) / 1000)
            self.send_body(200, "arrived %d" % number)
        elif url.path == "/arrivals":
            # The arrival times of a key, in seconds after its first (with
            # absolute=1: the server's monotonic clock, to compare keys).
            with RETRY_LOCK:
                times = list(ARRIVALS.get(query.get("key", [""])[0], []))
            origin = 0 if query.get("absolute") == ["1"] or not times else times[0]
            self.send_body(200, json.dumps([t - origin for t in times]), "application/json")
        elif url.path == "/gather":
            # A barrier that counts: the most requests of a key in the
            # server at once is what a client's concurrency really was.
            key = query.get("key", [""])[0]
            wanted = int(query.get("n", ["1"])[0])
            deadline = time.monotonic() + int(query.get("ms", ["5000"])[0]) / 1000
            with GATHER_CONDITION:
                state = GATHERINGS.setdefault(key, {"now": 0, "most": 0, "requests": 0, "released": False})
                state["now"] += 1
                state["requests"] += 1
                state["most"] = max(state["most"], state["now"])
                if state["now"] >= wanted:
                    state["released"] = True
                    GATHER_CONDITION.notify_all()
                while not state["released"] and time.monotonic() < deadline:
                    GATHER_CONDITION.wait(max(0.0, deadline - time.monotonic()))
                seen = state["most"]
                state["now"] -= 1
            self.send_body(200, str(seen))
        elif url.path == "/gathered":
            with GATHER_CONDITION:
                state = GATHERINGS.get(query.get("key", [""])[0], {"most": 0, "requests": 0})
                answer = {"most": state["most"], "requests": state["requests"]}
            self.send_body(200, json.dumps(answer), "application/json")
        elif url.path == "/json":
            self.send_body(200, json.dumps(JSON_DOCUMENT), "application/json")
        elif url.path == "/orders":
            self.send_body(200, json.dumps(ORDERS), "application/json",
                           headers=[("X-Total", "2"), ("Link", '</orders?page=2>; rel="next"')])
        elif url.path == "/headers":
            self.send_body(200, "with headers", headers=[("X-Custom", "custom value"), ("ETag", '"v1"')])
        elif len(parts) == 2 and parts[0] == "status":
            self.send_body(int(parts[1]), "status " + parts[1])
        elif url.path == "/slow":
            time.sleep(int(query.get("ms", ["500"])[0]) / 1000)
            self.send_body(200, "slow")
        elif url.path == "/hang":
            time.sleep(3600)
        elif url.path == "/hold":
            self.close_connection = True
            try:
                while self.connection.recv(65536):
                    pass
            except OSError:
                pass
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
            pause = int(query.get("ms", ["0"])[0])
            if pause:
                self.wfile.flush()
                time.sleep(pause / 1000)
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
        elif url.path == "/follow-redirect/relative/foo":
            self.send_body(302, "moved", headers=[("Location", "../bar")])
        elif url.path == "/follow-redirect/bar":
            self.send_body(200, "bar")
        elif url.path == "/redirect-to":
            status = int(query.get("status", ["302"])[0])
            self.send_body(status, "moved", headers=[("Location", query["location"][0])])
        elif url.path == "/self-redirect":
            self.send_body(302, "again", headers=[("Location", "/self-redirect")])
        elif url.path == "/cookies/set":
            cookies = [("Set-Cookie", "%s=%s; Path=/" % (name, values[0])) for name, values in query.items()]
            self.send_body(200, "set", headers=cookies)
        elif url.path == "/page.html":
            self.send_body(200, HTML_PAGE, "text/html; charset=utf-8")
        elif url.path == "/feed.xml":
            self.send_body(200, XML_FEED, "application/xml")
        elif url.path == "/broken.xml":
            self.send_body(200, "<feed><entry>unclosed</feed>", "application/xml")
        elif url.path == "/cookie-attributes":
            self.send_body(200, "set", headers=[
                ("Set-Cookie", "sid=abc123; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Lax"),
                ("Set-Cookie", "theme=dark; Path=/")])
        elif url.path == "/cookies":
            self.send_body(200, json.dumps({"cookie": self.headers.get("Cookie")}), "application/json")
        elif url.path == "/latin1":
            self.send_body(200, "café".encode("latin-1"), "text/plain; charset=iso-8859-1")
        elif url.path == "/duplicate-headers":
            self.send_body(200, "two", headers=[("X-Dup", "one"), ("X-Dup", "two")])
        elif url.path == "/fruit":
            self.send_body(200, "fruit", headers=[("X-Fruit", name) for name in ("Apple", "Banana", "Cherry", "Date")])
        elif len(parts) == 2 and parts[0] == "encoded" and encoded(parts[1]) is not None:
            self.send_body(200, encoded(parts[1]), headers=[("Content-Encoding", parts[1])])
        elif url.path == "/bomb":
            self.send_body(200, bomb(int(query.get("mb", ["50"])[0])), "application/octet-stream",
                           headers=[("Content-Encoding", "gzip")])
        elif url.path == "/multipart":
            # The parts as a server reads them: name, filename, type, content.
            from email.parser import BytesParser
            from email.policy import HTTP
            head = b"Content-Type: " + self.headers.get("Content-Type", "").encode() + b"\r\n\r\n"
            message = BytesParser(policy=HTTP).parsebytes(head + request_body)
            parts = []
            for part in message.iter_parts():
                parts.append({
                    "name": part.get_param("name", header="content-disposition"),
                    "filename": part.get_filename(),
                    "type": part.get_content_type() if part.get("Content-Type") else None,
                    "content": part.get_payload(decode=True).decode("utf-8", "replace"),
                })
            self.send_body(200, json.dumps({"parts": parts}), "application/json")
        elif url.path == "/big-numbers":
            self.send_body(200, '{"big": 1000000000000000000000, "next": 1000000000000000000001, "tags": ["test", "fast", 3, true]}',
                           "application/json")
        elif url.path == "/mirror":
            self.send_body(200, request_body.decode("utf-8", "replace"), "application/json")
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
    do_PURGE = do_PROPFIND = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024


def exit_with_parent(parent):
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.2)


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    request_queue_size = 1024


def main():
    parent = os.getppid()
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    if len(sys.argv) >= 4 and sys.argv[2] == "--unix":
        server = UnixServer(sys.argv[3], Handler)
        port_file = sys.argv[1]
        with open(port_file + ".tmp", "w") as f:
            f.write("0")
        os.rename(port_file + ".tmp", port_file)
        server.serve_forever()
        return
    server = Server(("127.0.0.1", 0), Handler)
    if len(sys.argv) >= 5 and sys.argv[2] == "--tls":
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[3], sys.argv[4])
        if len(sys.argv) == 7 and sys.argv[5] == "--client-ca":
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(sys.argv[6])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    port_file = sys.argv[1]
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
