#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/hostile/http_answers.py - an EKM endpoint whose answers are legal
but unusual HTTP/1.1, or broken, so that two HTTP clients (libcurl and the
lean engine) can be held to the same reading of each
(tests/e2e/test_rest_parity.sh).

    http_answers.py PORTFILE MODE [SECONDS]

Listens on 127.0.0.1, port 0, writes the port to PORTFILE, answers every
request (head and Content-Length body read) the MODE's way, and ends by
itself after SECONDS (default 60).  The body of a good answer is an EKM
wrap answer.  MODE:

  chunked     Transfer-Encoding: chunked, the body in three chunks
  continue    an interim "100 Continue" before the 200
  dribble     the answer written five bytes at a time
  eof         no Content-Length: the body ends with the connection
  bigheader   a header line of 90 KiB (under libcurl's limit of 100 KiB a line)
  hugeheader  a header line of 200 KiB
  badstatus   a status line that is not one ("HTTP/1.1 OK")
  cut         Content-Length 200, 20 bytes of body, then the connection closes
  bigstatus   a status line of 1 MiB
  status000   the status "000"
  status1000  the status "1000"
  chunk-zzzz  a chunk size "ZZZZ"
  chunk-neg   a chunk size "-5"
  chunk-long  a chunk size of 17 "F"s (past 2^64)
  version99   the status line "HTTP/9.9 200 OK"
  contbody    a "100 Continue" with a Content-Length and 3 bytes after it
  clchunked   Content-Length beside Transfer-Encoding: chunked (chunked frames it)
  ctlvalue    a header value holding ESC and BEL
  wraponly    an endpoint that wraps and has no :unwrap (404 to it)
"""
import base64
import json
import socket
import sys
import time

from loopback_http import listen

PORTFILE, MODE = sys.argv[1], sys.argv[2]
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
BODY = json.dumps({"wrappedBlob": base64.b64encode(b"\x02" * 60).decode()}).encode()


def answer(head):
    """(bytes to send, close the connection after them)."""
    ok = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    if MODE == "wraponly" and b":unwrap" in head.split(b"\r\n", 1)[0]:
        err = json.dumps({"code": 5, "message": "not found", "details": []}).encode()
        return (b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n" % len(err) + err), False
    if MODE == "chunked":
        a, b = BODY[:10], BODY[10:30]
        c = BODY[30:]
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(x), x) for x in (a, b, c)) + b"0\r\n\r\n"
        return ok + b"Transfer-Encoding: chunked\r\n\r\n" + chunks, False
    if MODE == "continue":
        return (b"HTTP/1.1 100 Continue\r\n\r\n" + ok +
                b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY), False
    if MODE == "eof":
        return ok + b"Connection: close\r\n\r\n" + BODY, True
    if MODE in ("bigheader", "hugeheader"):
        return ok + b"X-Huge: " + b"h" * ((90 if MODE == "bigheader" else 200) * 1024) + b"\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY, False
    if MODE == "badstatus":
        return b"HTTP/1.1 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY, True
    if MODE == "cut":
        return ok + b"Content-Length: 200\r\n\r\n" + BODY[:20], True
    if MODE == "bigstatus":
        return b"HTTP/1.1 200 " + b"O" * (1 << 20) + b"\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY, True
    if MODE in ("status000", "status1000"):
        return (b"HTTP/1.1 %s X\r\nContent-Length: %d\r\n\r\n" % (MODE[6:].encode(), len(BODY)) + BODY), True
    if MODE == "version99":
        return b"HTTP/9.9 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY, True
    if MODE == "contbody":
        return (b"HTTP/1.1 100 Continue\r\nContent-Length: 3\r\n\r\nabc" + ok +
                b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY), True
    if MODE == "ctlvalue":
        return ok + b"X-Ctl: a\x1bb\x07c\r\nContent-Length: %d\r\n\r\n" % len(BODY) + BODY, False
    if MODE == "clchunked":
        return (ok + b"Content-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(BODY) +
                BODY + b"\r\n0\r\n\r\n"), False
    if MODE.startswith("chunk-"):
        size = {"chunk-zzzz": b"ZZZZ", "chunk-neg": b"-5", "chunk-long": b"F" * 17}[MODE]
        return ok + b"Transfer-Encoding: chunked\r\n\r\n" + size + b"\r\n" + BODY + b"\r\n0\r\n\r\n", True
    return ok + b"Content-Length: %d\r\n\r\n" % len(BODY) + BODY, False


def on_request(conn, head):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data, close = answer(head)
    if MODE == "dribble":
        for i in range(0, len(data), 5):
            conn.sendall(data[i:i + 5])
            time.sleep(0.0002)
    else:
        conn.sendall(data)
    return not close


if __name__ == "__main__":
    listen(PORTFILE, SECONDS, on_request)
