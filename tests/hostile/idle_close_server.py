#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
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

from loopback_http import listen

PORTFILE, COUNTFILE, EVERY = sys.argv[1], sys.argv[2], int(sys.argv[3])
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
lock = threading.Lock()
state = {"requests": 0}
answered = {}              # answers so far on each open connection
BODY = json.dumps({"wrappedBlob": base64.b64encode(b"\x01" * 60).decode()}).encode()


def on_request(conn, head):
    with lock:
        state["requests"] += 1
        with open(COUNTFILE, "w") as f:
            f.write("%d\n" % state["requests"])
    n = answered.get(conn, 0) + 1
    answered[conn] = n
    last = n % EVERY == 0
    if last:
        # The answer and the end of the connection in one segment: the
        # client holds the connection idle, closed, as it reads.
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY)
    if last:
        conn.shutdown(socket.SHUT_WR)
        time.sleep(0.5)         # then closed for good (a late request is reset)
        answered.pop(conn, None)
        return False
    return True


if __name__ == "__main__":
    listen(PORTFILE, SECONDS, on_request)
