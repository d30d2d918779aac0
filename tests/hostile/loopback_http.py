# SPDX-License-Identifier: Apache-2.0
"""tests/hostile/loopback_http.py - what the raw-socket hostile HTTP servers
share (idle_close_server.py, http_answers.py): reading one request off a
connection, and a loopback listener that hands each connection to a thread
and ends by itself."""
import socket
import threading
import time


def read_request(conn, buf):
    """One request (head and Content-Length body) from conn, after the bytes
    in buf: (head, the bytes after the request), or (None, buf) at EOF."""
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


def _connection(conn, on_request):
    buf = b""
    try:
        while True:
            head, buf = read_request(conn, buf)
            if head is None or not on_request(conn, head):
                return
    except OSError:
        pass
    finally:
        conn.close()


def listen(portfile, seconds, on_request):
    """Listen on 127.0.0.1, port 0, write the port to portfile, and for each
    connection, in a thread, call on_request(conn, head) for each request
    read off it (head: its request line and headers) until it returns False
    (then the connection is closed) or the client ends it; return after
    seconds."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.2)
    with open(portfile, "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        threading.Thread(target=_connection, args=(conn, on_request), daemon=True).start()
    srv.close()
