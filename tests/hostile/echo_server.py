#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/hostile/echo_server.py - a server that answers every request with
an error whose body echoes the request, headers and all, as a careless
proxy or a debugging endpoint does: the credentials it was sent come back
in the answer, so a client that quotes answers must take them out
(issue 38, item 5).

    echo_server.py PORTFILE STATUS MODE [SECONDS]

STATUS: the answer's status (401, 500).  MODE: text (the request as it
came), json ({"message": the request}) or tail (164 bytes of padding,
then the Authorization line: a quote cut short ends inside its token).  Ends by
itself after SECONDS (default 60)."""
import json
import sys

from loopback_http import listen

PORTFILE, STATUS, MODE = sys.argv[1], int(sys.argv[2]), sys.argv[3]
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0


def on_request(conn, head):
    text = head.decode("latin-1")
    if MODE == "json":
        body = json.dumps({"message": text}).encode()
    elif MODE == "tail":
        # The Authorization line where a quote of 196 characters ends 10
        # characters into its token.
        lines = text.split("\r\n")
        auth = [l for l in lines if l.lower().startswith("authorization:")]
        line = auth[0] if auth else lines[0]
        body = ("x" * 164 + line + " " + " ".join(lines)).encode("latin-1")
    else:
        body = head
    conn.sendall(b"HTTP/1.1 %d Echo\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                 % (STATUS, b"application/json" if MODE == "json" else b"text/plain", len(body)) + body)
    return True


listen(PORTFILE, SECONDS, on_request)
