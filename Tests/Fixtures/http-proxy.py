#!/usr/bin/env python3
"""A forward HTTP proxy for the tests, on 127.0.0.1 only, on a free port
that it writes to the file named by its first argument. Each request line
it receives (`GET http://...` or `CONNECT host:port`) is appended to the
file named by its second argument. It relays absolute-form requests (one
per connection) and tunnels CONNECT. It exits when its parent goes away.
"""
import os
import select
import socket
import sys
import threading
import time
from urllib.parse import urlsplit


def read_head(connection):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def pipe(a, b):
    sockets = [a, b]
    while True:
        readable, _, _ = select.select(sockets, [], [], 60)
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (b if source is a else a).sendall(data)


def handle(client, log):
    try:
        head, rest = read_head(client)
        if head is None:
            return
        lines = head.split("\r\n")
        method, target, version = lines[0].split(" ", 2)
        with open(log, "a") as f:
            f.write("%s %s\n" % (method, target))
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host, int(port)))
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
            pipe(client, upstream)
            upstream.close()
            return
        url = urlsplit(target)
        upstream = socket.create_connection((url.hostname, url.port or 80))
        path = url.path or "/"
        if url.query:
            path += "?" + url.query
        headers = [line for line in lines[1:] if not line.lower().startswith(("proxy-connection:", "connection:"))]
        request = "%s %s %s\r\n%s\r\nConnection: close\r\nVia: 1.1 test-proxy\r\n\r\n" % (method, path, version, "\r\n".join(headers))
        upstream.sendall(request.encode("latin-1") + rest)
        pipe(client, upstream)
        upstream.close()
    except OSError:
        pass
    finally:
        client.close()


def exit_with_parent(parent):
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.2)


def main():
    parent = os.getppid()
    threading.Thread(target=exit_with_parent, args=(parent,), daemon=True).start()
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    port_file, log = sys.argv[1], sys.argv[2]
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    while True:
        client, _ = server.accept()
        threading.Thread(target=handle, args=(client, log), daemon=True).start()


if __name__ == "__main__":
    main()
