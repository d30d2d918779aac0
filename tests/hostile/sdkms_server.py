#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/hostile/sdkms_server.py - an SDKMS server that answers with values
meant to be sent back in a request and made to break it (issue 23, item 3):
an access_token or a kid carrying CR LF and a header after it, a kid that
would climb out of /crypto/v1/keys/ or end the path with ? and #.

    sdkms_server.py PORTFILE LOGFILE MODE [SECONDS [DELETE_SECONDS]]

Listens on 127.0.0.1, port 0, writes the port to PORTFILE, and appends one
JSON line per request to LOGFILE: {"method", "path", "headers": [[name,
value], ...]} as received, so a test can assert no request carried an
injected header.  Ends by itself after SECONDS (default 60).  MODE:

  good          every value well-formed
  token-crlf    the access_token is "abc\\r\\nX-Injected: yes"
  reauth-crlf   logins are good until the 6th operation answers 401
                (session gone); every later login answers token-crlf's
  kid-crlf      the key's kid is "k1\\r\\nX-Injected: yes"
  kid-path      the key's kid is "../../sys/v1/session/terminate?x=1#f"
  iv-crlf       encrypt answers an iv of "AAAA\\r\\nX-Injected: yes"
  slow-delete   every key its own kid (k1, k2, ...); a DELETE answers after
                DELETE_SECONDS (default 1), and only then is the key deleted, logged as
                {"deleted": KID}; a DELETE whose client closed the
                connection first is not done (the key stays)
"""
import json
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, LOGFILE, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
DELETE_SECONDS = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
BAD = "\r\nX-Injected: yes"
lock = threading.Lock()
state = {"ops": 0, "gone": False}


def client_gone(sock):
    """Has the client closed its end (an end of file waiting to be read)?
    A server that deletes a key only for a client still there, as one that
    rolls back a request whose client left: the key stays, and only the
    client's list can say so."""
    r, _, _ = select.select([sock], [], [], 0)
    if not r:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, doc=None):
        body = json.dumps(doc).encode() if doc is not None else b""
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            self.rfile.read(n)
        with lock:
            with open(LOGFILE, "a") as f:
                f.write(json.dumps({"method": self.command, "path": self.path,
                                    "headers": [[k, v] for k, v in self.headers.items()]}) + "\n")
        p = self.path
        if p == "/sys/v1/session/auth":
            with lock:
                gone = state["gone"]
            tok = "abc" + BAD if MODE == "token-crlf" or gone else "good-token"
            return self.answer(200, {"access_token": tok, "entity_id": "e", "expires_in": 600,
                                     "token_type": "Bearer"})
        if p == "/sys/v1/session/terminate":
            return self.answer(204)
        if p == "/crypto/v1/keys" and self.command == "POST":
            kid = {"kid-crlf": "k1" + BAD, "kid-path": "../../sys/v1/session/terminate?x=1#f"}.get(MODE, "k1")
            if MODE == "slow-delete":
                with lock:
                    state["made"] = state.get("made", 0) + 1
                    kid = "k%d" % state["made"]
            return self.answer(201, {"kid": kid, "name": "n", "obj_type": "EC"})
        if p.startswith("/crypto/v1/keys/") and self.command == "DELETE":
            if MODE == "slow-delete":
                time.sleep(DELETE_SECONDS)
                if client_gone(self.connection):
                    return None           # the client gave up: the key stays
                try:
                    self.answer(204)
                    self.wfile.flush()
                except OSError:
                    return None
                with lock:
                    with open(LOGFILE, "a") as f:
                        f.write(json.dumps({"deleted": p.rsplit("/", 1)[1]}) + "\n")
                return None
            return self.answer(204)
        if p.startswith("/crypto/v1/"):
            with lock:
                state["ops"] += 1
                ops = state["ops"]
            if MODE == "reauth-crlf" and ops == 6:
                with lock:
                    state["gone"] = True
                return self.answer(401, {"message": "Session does not exist"})
            iv = "AAAA" + BAD if MODE == "iv-crlf" else "AAAAAAAAAAAAAAAAAAAAAA=="
            return self.answer(200, {"signature": "AAAA", "cipher": "AAAA", "iv": iv, "tag": "AAAA",
                                     "mac": "AAAA", "plain": "AAAA", "result": True, "kid": "k1"})
        return self.answer(404, {"message": "no such route"})

    do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = handle_any


srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
srv.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.replace(PORTFILE + ".tmp", PORTFILE)
threading.Thread(target=lambda: (time.sleep(SECONDS), srv.shutdown()), daemon=True).start()
srv.serve_forever()
