#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_metrics_slow.sh - the metrics endpoint cannot be locked out
# (issue 23, item 4): 70 connections that each send a byte a second and
# never a whole request, each opened again when dropped, for 12 s, while a
# scraper (Prometheus) scrapes every 0.5 s: every scrape answers within 3 s
# (the oldest waiting connection makes room); then 10 such connections,
# under the limit: each is dropped 5 s after its accept however many bytes
# it sent, not kept while it dribbles.  Bounded: each client phase 12 s and
# 1000 connections; the run is ended (SIGINT) once both are over, and lasts
# 120 s at most (a fixed 30 s ended it before the second phase on a busy
# machine, where each phase's python3 took seconds to start: its scrapes
# were refused).
# timed: asserts scrape times and a drop deadline while 70 connections are held
# asan: yes (connections that trickle bytes, held and dropped, against the metrics endpoint)
. "$TOP/tests/e2e/lib.sh"
need_mock || exit 0

HSMBENCH_MOCK='service=fixed:5ms' "$HSMBENCH" run --module "$MOCK" --test sha256-digest \
    --duration 120 --quiet --metrics-listen 127.0.0.1:0 --metrics-linger 0 >"$T/run.out" 2>"$T/run.err" &
rpid=$!
URL=$(metrics_url "$T/run.err") || { fail "the run prints its metrics URL" "$(head -c 300 "$T/run.err")"; kill -INT $rpid; exit 0; }
pass "the run prints its metrics URL"

# clients N AGAIN OUT: N slow connections (opened again when dropped if
# AGAIN is 1) for 12 s, a scrape every 0.5 s; what happened in OUT.
clients() {
python3 - "$URL" "$3" "$1" "$2" <<'PY'
import json, socket, sys, time, urllib.parse, urllib.request
url, out, n, again = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
u = urllib.parse.urlsplit(url)
addr = (u.hostname, u.port)
start = time.time()
slow = []                               # [socket, connected at, dropped at, bytes sent]
def connect():
    try:
        s = socket.create_connection(addr, timeout=2)
    except OSError:
        return
    s.setblocking(False)
    slow.append([s, time.time(), None, 0])
for _ in range(n):
    connect()
scrapes = []                            # [ok, seconds(, why)]
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
next_scrape = time.time()
while time.time() - start < 12:
    now = time.time()
    held = [c for c in slow if c[2] is None]
    # the attack goes on: each dropped connection is opened again (bounded)
    for _ in range(min(n - len(held), 1000 - len(slow)) if again else 0):
        connect()
    for c in slow:
        if c[2] is not None:
            continue
        try:
            if c[0].recv(1) == b"":
                c[2] = now              # closed by the server
                continue
        except BlockingIOError:
            pass
        except OSError:
            c[2] = now
            continue
        k = int(now - c[1]) + 1         # one byte a second, never the whole request
        if c[3] < k and c[3] < len(req):
            try:
                c[0].send(req[c[3]:c[3] + 1])
                c[3] += 1
            except BlockingIOError:
                pass
            except OSError:
                c[2] = now
    if now >= next_scrape:
        t0 = time.time()
        try:
            body = urllib.request.urlopen(url, timeout=3).read()
            scrapes.append([b"hsmbench_" in body, time.time() - t0])
        except Exception as e:
            scrapes.append([False, time.time() - t0, str(e)])
        next_scrape = t0 + 0.5
    time.sleep(0.05)
end = time.time()
for c in slow:
    c[0].close()
# a connection opened in the last 9 s may still be held at the end
json.dump({"scrapes": scrapes, "connections": len(slow),
           "dropped_after": [None if c[2] is None else c[2] - c[1] for c in slow if c[1] < end - 9]},
          open(out, "w"))
PY
}
clients 70 1 "$T/slow.json"
clients 10 0 "$T/dribble.json"
kill -INT $rpid 2>/dev/null
wait $rpid 2>/dev/null

# slow NAME EXPR [FILE]: EXPR over doc (the clients' record in FILE, slow.json)
# holds; a summary if not.
slow() {
    if python3 - "$T/${3:-slow.json}" "$2" >"$T/why" 2>&1 <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2])
s, d = doc["scrapes"], doc["dropped_after"]
print("%d scrapes, %d failed %s, slowest %.2f s; %d connections, %d of the first held to the end, "
      "dropped after %s s" % (len(s), sum(not x[0] for x in s), [x[2:] for x in s if not x[0]][:2],
      max([x[1] for x in s] or [0]), doc["connections"], sum(x is None for x in d),
      sorted(round(x, 1) for x in d if x is not None)[::10]))
sys.exit(0 if ok else 1)
PY
    then pass "$1"; else fail "$1" "$(tr '\n' ' ' <"$T/why" | head -c 600)"; fi
}
slow "70 slow connections held: every scrape answers (at least 15 tried)" \
    'len(doc["scrapes"]) >= 15 and all(x[0] for x in doc["scrapes"])'
slow "70 slow connections held: every scrape within 3 s" 'all(x[1] < 3 for x in doc["scrapes"])'
slow "70 slow connections opened again as dropped: each dropped within 9 s of its accept" \
    'all(x is not None and x < 9 for x in doc["dropped_after"])'
slow "10 connections sending a byte a second: each dropped 5 s after its accept (4.5 to 9 s), not kept while it sends" \
    'len(doc["dropped_after"]) == 10 and all(x is not None and 4.5 <= x < 9 for x in doc["dropped_after"])' dribble.json
slow "10 connections sending a byte a second: every scrape answers meanwhile" \
    'all(x[0] for x in doc["scrapes"])' dribble.json
