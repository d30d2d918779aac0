#!/usr/bin/env python3
"""tests/hostile/idle_close_server.py - an EKM endpoint that closes kept
connections while they are idle, as a server's keep-alive timeout or a load
balancer's does: after every EVERY-th answer on a connection it closes the
connection without a word (no "Connection: close"), so the client finds the
connection it kept dead when it next sends.  A client must notice that
before it sends (a new connection, the request sent once) or fail the
request; it must never send a request twice without saying so.

    idle_close_server.py PORTFILE COUNTFILE EVERY [SECONDS]

Listens on 127.0.0.1, port 0, writes the port to PORTFILE and, after every
request, the number of requests received so far to COUNTFILE.  Answers any
POST with a well-formed EKM wrap answer.  Ends by itself after SECONDS
(default 60).
"""
import base64
import json
import socket
import sys
import threading
import time

PORTFILE, COUNTFILE, EVERY = sys.argv[1], sys.argv[2], int(sys.argv[3])
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
lock = threading.Lock()
state = {"requests": 0}
BODY = json.dumps({"wrappedBlob": base64.b64encode(b"\x01" * 60).decode()}).encode()


def read_request(conn, buf):
    """One request (head and Content-Length body) from conn; (None, buf) at EOF."""
    while b"\r\n\r\n" not in buf:
        chunk = conn.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None, rest
        rest += chunk
    return head, rest[length:]


def serve(conn):
    buf = b""
    answered = 0
    try:
        while True:
            head, buf = read_request(conn, buf)
            if head is None:
                return
            with lock:
                state["requests"] += 1
                with open(COUNTFILE, "w") as f:
                    f.write("%d\n" % state["requests"])
            answered += 1
            last = answered % EVERY == 0
            if last:
                # The answer and the end of the connection in one segment:
                # the client holds the connection idle, closed, as it reads.
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY)
            if last:
                conn.shutdown(socket.SHUT_WR)
                time.sleep(0.5)         # then closed for good (a late request is reset)
                return
    except OSError:
        pass
    finally:
        conn.close()


def main():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.2)
    with open(PORTFILE, "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    end = time.monotonic() + SECONDS
    while time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve, args=(conn,), daemon=True).start()
    srv.close()


if __name__ == "__main__":
    main()
