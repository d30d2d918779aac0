#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_faults.sh - bad answers and broken servers: each class
# of failure is counted under its own name in errors_by_code and the run
# finishes (exit 1); a server that cannot be reached at set-up is one clear
# error (exit 3).  Loopback only; every run and every helper server is
# bounded in time.
# tsan: yes (errors by code counted from four workers at once, a server gone under two, both non-blocking engines failing)
# asan: yes (both engines' error paths on every broken answer serve can give: resets, truncated bodies, bad statuses)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

export G_TOKEN="fault-token-$$" EKM_SERVER_TOKEN="fault-token-$$"
export SDKMS_API_KEY="ZmF1bHQ6a2V5LSQk" SERVER_API_KEY="ZmF1bHQ6a2V5LSQk"

# ---- every answer-level class, from one faulty server -----------------------
# The first 5 operations are spared: the client's set-up must succeed.  The
# faults add up to about a quarter of the answers, well under the half that
# makes a run "failed".
start_serve faulty --ekm-token-env EKM_SERVER_TOKEN --fault-after 5 --fault-delay 3s \
    --fault 503:0.05,429:0.03,timeout:0.02,badjson:0.04,truncate:0.04,nofield:0.04,badb64:0.04 ||
    exit 0
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --threads 4 --duration 2 \
    --timeout 1 --json "$T/faults.json"
check "faults: the run finishes, exit 1 (operations failed)" 1 '^ +errors\.+: [0-9.]+% +[1-9]'
for class in "HTTP 503" "HTTP 429" TIMEOUT BAD_JSON TRUNCATED MISSING_FIELD BAD_BASE64; do
    json_check "faults: $class counted in errors_by_code" "$T/faults.json" \
        "runs[0][\"errors_by_code\"].get(\"$class\", 0) > 0"
    file_has "faults: $class in the summary" "$T/out" "^ +$class\\.+: [1-9]"
done
json_check "faults: status errors, errors add up, some operations succeed" "$T/faults.json" \
    'runs[0]["status"] == "errors" and sum(runs[0]["errors_by_code"].values()) == runs[0]["errors"] and 0 < runs[0]["errors"] < runs[0]["attempts"] and runs[0]["attempts"] == runs[0]["ops"] + runs[0]["errors"]'
json_check "faults: http.failed_pct counts 4xx/5xx and transport failures" "$T/faults.json" \
    'runs[0]["http"]["failed_pct"] > 0 and runs[0]["http"]["status_counts"].get("503", 0) == runs[0]["errors_by_code"]["HTTP 503"]'

# The same classes from the non-blocking engines (the lean engine's epoll
# loop, the default, and curl multi handles), where a timed-out request
# must not hold up the others on its thread.
for eng in lean libcurl; do
    start_serve nbfaulty --ekm-token-env EKM_SERVER_TOKEN --fault-after 5 --fault-delay 3s \
        --fault 503:0.08,429:0.04,timeout:0.03,badjson:0.08,truncate:0.08,nofield:0.08,badb64:0.08 ||
        exit 0
    ename=$([ $eng = lean ] && echo "lean epoll" || echo "curl multi")
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --mode nonblocking \
        --rate 150 --threads 2 --duration 2 --timeout 1 --engine $eng --json "$T/nbfaults.json"
    check "faults, non-blocking ($ename): the run finishes, exit 1" 1 '^ +errors\.+: [0-9.]+% +[1-9]'
    json_check "faults, non-blocking ($ename): every class counted, the rest on schedule" "$T/nbfaults.json" \
        "runs[0]['settings']['engine'] == '$ename' and all(runs[0]['errors_by_code'].get(c, 0) > 0 for c in ['HTTP 503', 'TIMEOUT', 'BAD_JSON', 'TRUNCATED', 'MISSING_FIELD', 'BAD_BASE64']) and sum(runs[0]['errors_by_code'].values()) == runs[0]['errors'] and runs[0]['attempts'] >= 240"
    stop_serve nbfaulty
done

# The engine keeps --timeout itself (libcurl holds no timer for it): on a
# server that holds every request after the set-up's one for 20 s, each
# transfer ends at its 300 ms, one after another on the same 4 slots (about
# 27 in 2 s; a timeout kept a second late or early would give 8, or 50).
for eng in lean libcurl; do
    start_serve holding --ekm-token-env EKM_SERVER_TOKEN --fault-after 1 --fault-delay 20s \
        --fault timeout:1 || exit 0
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --mode nonblocking \
        --inflight 4 --threads 1 --duration 2 --timeout 300ms --engine $eng --json "$T/held.json"
    check "held requests, non-blocking --engine $eng --timeout 300ms: exit 1" 1 '^ +TIMEOUT\.+: '
    json_check "held requests ($eng): every one ends as TIMEOUT after its 300 ms, 4 at a time" "$T/held.json" \
        'runs[0]["errors_by_code"] == {"TIMEOUT": runs[0]["attempts"]} and runs[0]["errors"] == runs[0]["attempts"] and runs[0]["ops"] == 0 and 16 <= runs[0]["attempts"] <= 36'
    stop_serve holding
done
# Ctrl-C abandons the requests in flight at once (they would wait out a
# --timeout of a minute): exit 130 within seconds, the file written.
for eng in lean libcurl; do
    start_serve holding2 --ekm-token-env EKM_SERVER_TOKEN --fault-after 1 --fault-delay 20s \
        --fault timeout:1 || exit 0
    : >"$T/out"
    "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --mode nonblocking \
        --inflight 4 --threads 1 --duration 30 --timeout 60 --engine $eng --json "$T/heldint.json" \
        >"$T/out" 2>"$T/err" </dev/null &
    interrupt_bg $! '^OPERATIONS/second' "SIGINT with held requests in flight ($eng)"
    # Abandoned, the 4 in flight count as INTERRUPTED (waited for, they would
    # end uncounted when the drain gives up after a second).
    json_check "SIGINT with held requests ($eng): the 4 in flight counted INTERRUPTED, status interrupted" "$T/heldint.json" \
        'runs[0]["status"] == "interrupted" and set(runs[0]["errors_by_code"]) == {"INTERRUPTED"} and runs[0]["errors_by_code"]["INTERRUPTED"] >= 4'
    stop_serve holding2
done

# ---- connections closed without an answer ------------------------------------
# On a kept connection libcurl takes a close before any answer for a stale
# connection and sends the request again on a new one (as any keep-alive
# client must); on a new connection it is an error: EMPTY_REPLY.
start_serve resets --ekm-token-env EKM_SERVER_TOKEN --fault-after 2 --fault reset:0.3 || exit 0
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --no-connection-reuse \
    --iterations 60 --json "$T/resets.json"
check "resets on new connections: exit 1" 1 '^ +EMPTY_REPLY\.+: [1-9]'
json_check "resets: EMPTY_REPLY counted" "$T/resets.json" \
    'runs[0]["errors_by_code"].get("EMPTY_REPLY", 0) > 0 and runs[0]["attempts"] == 60'

# On kept connections libcurl sends a request that was reset again on a new
# connection without a word: each such retry is counted (http.retried), so
# the errors and the retries add up to the resets the server made.
start_serve resetka -v --ekm-token-env EKM_SERVER_TOKEN --fault-after 2 --fault reset:0.2 || exit 0
# libcurl's silent re-sends (the lean engine, the default here, never
# re-sends: its reconciliation follows).
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --iterations 300 \
    --engine libcurl --json "$T/resetka.json"
stop_serve resetka
resets=$(grep -c -- '-> reset (fault)' "$T/resetka.err")
served=$(grep -c '^serve: POST .*/ekm/k1:wrap' "$T/resetka.err")
if python3 - "$T/resetka.json" "$resets" "$served" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
resets, served = int(sys.argv[2]), int(sys.argv[3])
h = r["http"]
# the server saw: one request per operation, plus one per retry (the first
# request, before the measured ones, is the set-up check)
ok = resets > 10 and h["retried"] > 0 and h["retried"] + r["errors"] == resets
ok = ok and served == r["attempts"] + h["retried"] + 1
sys.exit(0 if ok else 1)
PY
then pass "resets on kept connections: errors + http.retried == the server's resets ($resets)"
else fail "resets on kept connections: errors + http.retried == the server's resets" "server resets $resets, requests $served: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]; print(r["attempts"], r["errors"], r["errors_by_code"], r["http"]["retried"])' "$T/resetka.json" 2>&1)"; fi
file_has "resets on kept connections: the summary shows http_req_retried" "$T/out" '^ +http_req_retried\.+: [1-9]'
# The lean engine: every reset is the request's error, each request sent once.
start_serve resetlean -v --ekm-token-env EKM_SERVER_TOKEN --fault-after 2 --fault reset:0.2 || exit 0
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --iterations 300 \
    --json "$T/resetlean.json"
stop_serve resetlean
resets=$(grep -c -- '-> reset (fault)' "$T/resetlean.err")
served=$(grep -c '^serve: POST .*/ekm/k1:wrap' "$T/resetlean.err")
json_check "resets, lean engine (the default): errors == the server's resets, requests == attempts + the set-up's" \
    "$T/resetlean.json" \
    "runs[0]['rest']['http_engine'] == 'lean' and $resets > 10 and runs[0]['errors'] == $resets and runs[0]['http']['retried'] == 0 and $served == runs[0]['attempts'] + 1"

# ---- round trips that come back wrong ----------------------------------------
start_serve mismatch --ekm-token-env EKM_SERVER_TOKEN --api-key-env SERVER_API_KEY \
    --fault-after 10 --fault mismatch:0.3 || exit 0
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --op wrap-unwrap \
    --iterations 60 --json "$T/rt.json"
check "wrap-unwrap with altered plaintexts: exit 1" 1
json_check "wrap-unwrap: ROUNDTRIP_MISMATCH counted" "$T/rt.json" \
    'runs[0]["errors_by_code"].get("ROUNDTRIP_MISMATCH", 0) > 0'
run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op verify --alg EC \
    --iterations 60 --json "$T/vf.json"
check "sdkms verify answered false: exit 1" 1
json_check "sdkms verify: VERIFY_FALSE counted" "$T/vf.json" \
    'runs[0]["errors_by_code"].get("VERIFY_FALSE", 0) > 0'
run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --op decrypt \
    --iterations 60 --json "$T/dm.json"
json_check "sdkms decrypt: ROUNDTRIP_MISMATCH counted" "$T/dm.json" \
    'runs[0]["errors_by_code"].get("ROUNDTRIP_MISMATCH", 0) > 0'

# ---- a server that goes away during the run ----------------------------------
# It answers 300 requests, and those that come before it looks at its count
# (every 20 ms) and stops: 300 to 950 here.  Of 10 000 attempts, the rest
# meet a closed port (a 2-s run made 90 000 to 140 000 such attempts).
start_serve brief --ekm-token-env EKM_SERVER_TOKEN --max-requests 300 || exit 0
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --threads 2 --iterations 10000 \
    --timeout 1 --json "$T/gone.json"
check "server gone mid-run: the run finishes, exit 1" 1
json_check "server gone mid-run: CONNECT_REFUSED counted" "$T/gone.json" \
    'runs[0]["errors_by_code"].get("CONNECT_REFUSED", 0) > 0 and runs[0]["http"]["status_counts"].get("200", 0) > 0'

# ---- nothing there, or nothing answering, at set-up ---------------------------
# A port with no listener: port 1 (a port freed by another script could be
# taken again by one running beside this one).
run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:1/k" --token-env G_TOKEN --iterations 5
check_one_line_error "closed port at set-up: exit 3, one line" 3 'CONNECT_REFUSED'

# A listener that accepts and never answers (it ends by itself after 20 s).
python3 - "$T/silent.port" <<'PY' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(20)
held = []
end = time.time() + 20
try:
    while time.time() < end:
        c, _ = s.accept()
        held.append(c)          # keep it open, say nothing
except OSError:
    pass
PY
silent_pid=$!
i=0
while [ ! -s "$T/silent.port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
start=$(date +%s)
run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$(cat "$T/silent.port")/k" --token-env G_TOKEN \
    --iterations 5 --timeout 1
took=$(($(date +%s) - start))
check_one_line_error "a server that never answers, --timeout 1: exit 3, one line" 3 'TIMEOUT'
if [ "$took" -le 8 ]; then pass "--timeout 1 bounds the wait (${took}s for 3 tries)"
else fail "--timeout 1 bounds the wait" "took ${took}s"; fi
kill "$silent_pid" 2>/dev/null
wait "$silent_pid" 2>/dev/null

# ---- the serve side: bad --fault values ----------------------------------------
run "$HSMBENCH" serve --fault 200:0.1
check_one_line_error "serve --fault 200: exit 2" 2 'status must be 400 to 599'
run "$HSMBENCH" serve --fault timeout:0.7,badjson:0.7
check_one_line_error "serve --fault adding up to more than 1: exit 2" 2 'more than 1'
run "$HSMBENCH" serve --listen 127.0.0.1
check_one_line_error "serve --listen without a port: exit 2" 2 'ADDRESS:PORT'
run "$HSMBENCH" serve --latency 2m
check_one_line_error "serve --latency over 60s: exit 2, flag named" 2 '--latency'
run "$HSMBENCH" serve --latency soon
check_one_line_error "serve --latency not a time: exit 2, flag named" 2 '--latency'
