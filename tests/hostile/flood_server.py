#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/hostile/flood_server.py - an HTTP endpoint that never stops
talking (issue 38, items 1, 2, 8 and 9): whatever a client reads, more
follows, so only a bound of the client's own (bytes, --timeout, Ctrl-C)
ends the request.

    flood_server.py PORTFILE COUNTFILE MODE [SECONDS [GOOD]]

Listens on 127.0.0.1, port 0, writes the port to PORTFILE and, after every
request received, the number received so far to COUNTFILE.  The first GOOD
requests (default 1: a client's set-up probe) get a well-formed EKM wrap
answer, every later one the MODE's.  Ends by itself after SECONDS (default
60); every flood ends then too.  MODE:

  1xx          "100 Continue" answers, one after the other, forever
  1xx-slow     the same, one every 20 ms (about 1.3 KB/s: no byte cap
               is reached for minutes, only --timeout ends it)
  headers      a status line, then header lines forever
  trailers     a chunked 200 whose last chunk is followed by trailer lines
               forever
  chunkext     a chunked 200 whose first chunk size line carries an
               extension forever
  unsolicited  every answer is followed, 2 ms later, by a second, unasked one
  silent       reads, never answers: a TLS client's handshake waits for
               ever (its ClientHello never ends as a request does)
  sdkms-delete an SDKMS server (logins, keys, encrypt) that answers every
               DELETE with a 1xx flood
"""
import base64
import json
import os
import socket
import sys
import threading
import time

from loopback_http import listen

PORTFILE, COUNTFILE, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
GOOD = int(sys.argv[5]) if len(sys.argv) > 5 else 1
END = time.monotonic() + SECONDS
lock = threading.Lock()
state = {"requests": 0}
BLOCK = 16384


def count():
    """The requests received so far, this one included."""
    with lock:
        state["requests"] += 1
        with open(COUNTFILE + ".tmp", "w") as f:
            f.write("%d\n" % state["requests"])
        # (renamed: a reader never sees a half-written number)
        os.replace(COUNTFILE + ".tmp", COUNTFILE)
        return state["requests"]


def answer(status, doc=None):
    body = json.dumps(doc).encode() if doc is not None else b""
    return (b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % (status, len(body)) + body)


def flood(conn, first, unit, pause=0.0):
    """first, then unit over and over until the client goes or SECONDS end."""
    conn.sendall(first)
    block = unit * max(1, BLOCK // len(unit)) if not pause else unit
    while time.monotonic() < END:
        conn.sendall(block)
        if pause:
            time.sleep(pause)
    return False


def sdkms(conn, head):
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    method, path = line.split(" ")[0], line.split(" ")[1]
    if method == "DELETE":
        return flood(conn, b"", b"HTTP/1.1 100 Continue\r\n\r\n")
    if path == "/sys/v1/session/auth":
        doc = {"access_token": "good-token", "entity_id": "e", "expires_in": 600,
               "token_type": "Bearer"}
        conn.sendall(answer(200, doc))
    elif path == "/sys/v1/session/terminate":
        conn.sendall(answer(204))
    elif path == "/crypto/v1/keys" and method == "POST":
        with lock:
            n = state["requests"]
        conn.sendall(answer(201, {"kid": "k%d" % n, "name": "n%d" % n, "obj_type": "AES"}))
    else:
        conn.sendall(answer(200, {"cipher": "AAAA", "iv": "AAAAAAAAAAAAAAAAAAAAAA==", "kid": "k1",
                                  "plain": "AAAA", "tag": "AAAA"}))
    return True


WRAP = json.dumps({"wrappedBlob": base64.b64encode(b"\x02" * 60).decode()}).encode()


def on_request(conn, head):
    n = count()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    one = ok + b"Content-Length: %d\r\n\r\n" % len(WRAP) + WRAP
    if n <= GOOD and MODE != "sdkms-delete":
        conn.sendall(one)
        return True
    if MODE == "1xx":
        return flood(conn, b"", b"HTTP/1.1 100 Continue\r\n\r\n")
    if MODE == "1xx-slow":
        return flood(conn, b"", b"HTTP/1.1 100 Continue\r\n\r\n", 0.02)
    if MODE == "headers":
        return flood(conn, ok, b"X-Flood: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n")
    if MODE == "trailers":
        return flood(conn, ok + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n",
                     b"X-Trailer: tttttttttttttttttttttttttttttttttttttttttttttt\r\n")
    if MODE == "chunkext":
        return flood(conn, ok + b"Transfer-Encoding: chunked\r\n\r\n2;x=", b"y" * 64)
    if MODE == "unsolicited":
        # The second a moment after the first, in a segment of its own: it
        # comes while the client sends its next request, or just before.
        conn.sendall(one)
        time.sleep(0.002)
        conn.sendall(one)
        return True
    if MODE == "sdkms-delete":
        return sdkms(conn, head)
    if MODE == "silent":
        time.sleep(max(0.0, END - time.monotonic()))
        return False
    raise SystemExit("flood_server.py: no mode " + MODE)


if __name__ == "__main__":
    listen(PORTFILE, SECONDS, on_request)
