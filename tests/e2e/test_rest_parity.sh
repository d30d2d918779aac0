#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_parity.sh - the lean HTTP/1.1 engine (--engine lean,
# rest/transport/lean.c) against libcurl's: the same scenarios run through
# both, and both must say the same thing.  Each fault of hsmbench serve, at
# probability 1 after the set-up's requests, gives the same exit code,
# errors by code, statuses and bytes; TLS verification, mutual TLS and the
# host name give the same answer or the same one-line error; an injected
# latency is seen by both; a server that closes kept connections while
# they are idle costs neither a request nor a re-send; unusual and broken
# HTTP answers read the same; SDKMS keys made are deleted; Ctrl-C ends a
# held request at once.  The faults, bytes, latency, the idle-closing
# server and TLS run through the non-blocking engines too (the lean
# engine's epoll loop against curl multi handles).  Where they differ by design (libcurl sends a request
# again on a reset connection, the lean engine never does) the difference is
# asserted.  Loopback only; every run is bounded by --iterations or --duration.
# asan: yes (the lean engine's parser, epoll loop and connections on every fault serve injects,
# beside libcurl's; the unusual and broken answers run in the plain build alone: the fuzzer
# fuzz_lean reads every such answer, cut every way, under ASan)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

export G_TOKEN="parity-token-$$" EKM_SERVER_TOKEN="parity-token-$$"
ENGINES="libcurl lean"

# (Variables of their own: start_serve sets $name.)
# ekm_both NAME SERVE_ARGS -- CLIENT_ARGS: for each engine a fresh serve
# with SERVE_ARGS (so that --fault-after counts this run's requests only)
# and rest ekm against it with CLIENT_ARGS; $T/NAME-ENGINE.json, .rc, .err.
ekm_both() {
    eb=$1
    shift
    sargs=""
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sargs="$sargs $1"; shift; done
    shift
    for e in $ENGINES; do
        # shellcheck disable=SC2086
        start_serve "$eb-$e" --ekm-token-env EKM_SERVER_TOKEN $sargs || return 1
        timeout -s INT 120 "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN \
            --engine "$e" --json "$T/$eb-$e.json" "$@" >"$T/$eb-$e.out" 2>"$T/$eb-$e.err" </dev/null
        echo $? >"$T/$eb-$e.rc"
        stop_serve "$eb-$e"
    done
}

# same NAME WHAT PYEXPR: PYEXPR of run r (the lean engine's) equals it of
# run c (libcurl's); both runs' files must exist.
same() {
    if python3 - "$T/$1-libcurl.json" "$T/$1-lean.json" "$3" >"$T/jerr" 2>&1 <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["runs"][0]
l = json.load(open(sys.argv[2]))["runs"][0]
f = eval("lambda r: " + sys.argv[3])
a, b = f(c), f(l)
if a != b:
    print("libcurl:", a, " lean:", b)
    sys.exit(1)
PY
    then pass "$1: $2 the same through both engines"
    else fail "$1: $2 the same through both engines" "$(head -c 300 "$T/jerr")"; fi
}

same_rc() {
    a=$(cat "$T/$1-libcurl.rc") b=$(cat "$T/$1-lean.rc")
    if [ "$a" = "$2" ] && [ "$b" = "$2" ]; then pass "$1: exit $2 through both engines"
    else fail "$1: exit $2 through both engines" "libcurl $a, lean $b: $(head -c 200 "$T/$1-lean.err")"; fi
}

# ---- each fault of hsmbench serve, every operation ---------------------------
# The set-up's probe is spared (--fault-after 1); the 6 operations all draw
# the fault; one thread, so the order is the same.  --abort-on-errors off:
# six 1-s timeouts would otherwise stop the run after "several seconds" of
# nothing but failures, after 4 attempts or 5 by how the seconds fell (CI
# saw libcurl make 5 and lean 4), and the counts compared would be the
# clock's, not the engines'.
# --timeout 1 for the held answers alone: the other faults answer at once,
# and there a bound of 1 s timed out the set-up's probe on a busy machine
# (under ASan at load 25: exit 3 from one engine, not the fault's 1).
for kind in 503 badjson truncate nofield badb64 timeout; do
    to=10
    [ "$kind" = timeout ] && to=1
    ekm_both "f-$kind" --fault-after 1 --fault-delay 3s --fault "$kind:1" -- \
        --op wrap --iterations 6 --threads 1 --timeout $to --abort-on-errors off || exit 0
    same_rc "f-$kind" 1
    same "f-$kind" "errors by code, attempts, status" \
        '(r["errors_by_code"], r["attempts"], r["ops"], r["status"])'
    same "f-$kind" "requests, statuses, retries, bytes sent and received" \
        '(r["http"]["requests"], r["http"]["status_counts"], r["http"]["retried"], r["http"]["k6"]["data_sent"]["count"], r["http"]["k6"]["data_received"]["count"])'
done
json_check "f-503: every operation failed as HTTP 503" "$T/f-503-lean.json" \
    'runs[0]["errors_by_code"] == {"HTTP 503": 6} and runs[0]["http"]["status_counts"] == {"503": 6}'
json_check "f-timeout: each of the 6 held requests a TIMEOUT after --timeout 1s" "$T/f-timeout-lean.json" \
    'runs[0]["errors_by_code"] == {"TIMEOUT": 6} and runs[0]["errors"] == runs[0]["attempts"] == 6'
file_has "f-timeout: the lean engine's message is libcurl's" "$T/f-timeout-lean.out" \
    '^ +TIMEOUT\.+: [1-9]'

# A reset before any byte of answer: the same class; libcurl sends the
# request again on a new connection (counted as retried, the server saw it
# twice), the lean engine never does.
ekm_both f-reset --fault-after 1 --fault reset:1 -- --op wrap --iterations 6 --threads 1 || exit 0
same_rc f-reset 1
same f-reset "errors by code" 'r["errors_by_code"]'
json_check "f-reset: the lean engine sends each request once (retried 0)" "$T/f-reset-lean.json" \
    'runs[0]["errors_by_code"] == {"EMPTY_REPLY": 6} and runs[0]["http"]["retried"] == 0'

# ---- the data the requests carry: counted once ------------------------------
# libcurl counted a small POST body twice in data_sent (it is in both
# REQUEST_SIZE and SIZE_UPLOAD); the lean engine counts what it writes.
ekm_both bytes -- --op wrap-unwrap --iterations 20 --threads 1 || exit 0
same_rc bytes 0
same bytes "requests, statuses, bytes sent and received" \
    '(r["ops"], r["http"]["requests"], r["http"]["status_counts"], r["http"]["k6"]["data_sent"]["count"], r["http"]["k6"]["data_received"]["count"])'
json_check "bytes: the results file names the engine" "$T/bytes-lean.json" \
    'runs[0]["rest"]["http_engine"] == "lean"'
json_check "bytes: libcurl's named too" "$T/bytes-libcurl.json" \
    'runs[0]["rest"]["http_engine"] == "libcurl"'
no_secret "bytes: the token in no results file" "$G_TOKEN" "$T/bytes-lean.json" "$T/bytes-lean.out" \
    "$T/bytes-lean.err"

# ---- an injected latency ------------------------------------------------------
ekm_both slow --latency 20ms -- --op wrap --iterations 10 --threads 1 || exit 0
same_rc slow 0
for e in $ENGINES; do
    json_check "slow ($e): p50 at least the server's 20 ms, under 200 ms" "$T/slow-$e.json" \
        '20000 <= runs[0]["latency_us"]["p50"] < 200000'
done

# ---- the same through the non-blocking engines ----------------------------------
# The lean engine's epoll loop against curl multi handles: 4 slots on one
# thread, 10 operations on a schedule (5/s for 2 s), each fault at
# probability 1; a reset ends its connection, so every request after one
# connects again from the loop.
NB="--mode nonblocking --inflight 4 --threads 1 --rate 5 --duration 2"
for kind in 503 badjson truncate nofield badb64 timeout reset; do
    to=10
    [ "$kind" = timeout ] && to=1
    # shellcheck disable=SC2086
    ekm_both "nb-$kind" --fault-after 1 --fault-delay 3s --fault "$kind:1" -- \
        --op wrap $NB --timeout $to || exit 0
    same_rc "nb-$kind" 1
    # (The schedule holds 10 or 11 operations, by when the run began: what
    # is compared is what each of them came to.)
    same "nb-$kind" "non-blocking: errors by code, every attempt failed, status" \
        '(list(r["errors_by_code"]), r["errors"] == r["attempts"], 10 <= r["attempts"] <= 11, r["ops"], r["status"], r["settings"]["slots"])'
    same "nb-$kind" "non-blocking: requests, statuses, retries, bytes sent and received a request" \
        '(r["http"]["requests"] == r["attempts"], sorted(r["http"]["status_counts"]), sum(r["http"]["status_counts"].values()) in (0, r["attempts"]), r["http"]["retried"], r["http"]["k6"]["data_sent"]["count"] / r["attempts"], r["http"]["k6"]["data_received"]["count"] / r["attempts"])'
done
json_check "nb-503: the epoll loop ran it, every operation an HTTP 503" "$T/nb-503-lean.json" \
    'runs[0]["settings"]["engine"] == "lean epoll" and runs[0]["errors_by_code"] == {"HTTP 503": runs[0]["attempts"]}'
json_check "nb-503: curl multi ran libcurl's" "$T/nb-503-libcurl.json" \
    'runs[0]["settings"]["engine"] == "curl multi"'
json_check "nb-reset: every request connected anew and failed once, none re-sent" "$T/nb-reset-lean.json" \
    'runs[0]["errors_by_code"] == {"EMPTY_REPLY": runs[0]["attempts"]} and runs[0]["http"]["retried"] == 0'
# shellcheck disable=SC2086
ekm_both nb-bytes -- --op wrap-unwrap $NB || exit 0
same_rc nb-bytes 0
same nb-bytes "non-blocking: requests, statuses, bytes sent and received an operation" \
    '(10 <= r["ops"] <= 11, r["errors"], r["http"]["requests"] == 2 * r["ops"], r["http"]["status_counts"] == {"200": 2 * r["ops"]}, r["http"]["k6"]["data_sent"]["count"] / r["ops"], r["http"]["k6"]["data_received"]["count"] / r["ops"])'
# shellcheck disable=SC2086
ekm_both nb-slow --latency 20ms -- --op wrap $NB || exit 0
same_rc nb-slow 0
for e in $ENGINES; do
    json_check "nb-slow ($e): p50 at least the server's 20 ms, under 200 ms" "$T/nb-slow-$e.json" \
        '10 <= runs[0]["ops"] <= 11 and 20000 <= runs[0]["latency_us"]["p50"] < 200000'
done

# ---- connection refused ----------------------------------------------------------
for e in $ENGINES; do
    run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:1/ekm/k1" --token-env G_TOKEN \
        --engine "$e" --iterations 3
    cp "$T/err" "$T/refused-$e.err"
    check_one_line_error "connection refused ($e): one line, exit 3" 3 'CONNECT.*[Cc]onnection refused|[Cc]ouldn.t connect'
done

# ---- TLS -----------------------------------------------------------------------
P="$T/pki"   # ekm_tls_server makes the certificates there
ekm_tls_server --client-ca "$P/ca.pem" --client-cert-optional || exit 0
TLS_URL=$URL
# A certificate for 127.0.0.1 only, served on another port: "localhost" is
# not its name.
(
    cd "$P" || exit 1
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ip.key -out ip.csr \
        -subj "/CN=127.0.0.1" &&
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >ip.ext &&
    openssl x509 -req -in ip.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out ip.pem -days 2 -extfile ip.ext
) >>"$T/openssl.log" 2>&1 || { fail "an IP-only certificate" "$(tail -c 200 "$T/openssl.log")"; exit 0; }
start_serve iponly --tls-cert "$P/ip.pem" --tls-key "$P/ip.key" --ekm-token-env EKM_SERVER_TOKEN || exit 0
IP_URL=$URL

tls_case() {  # NAME WANT_RC URL ARGS...
    tc=$1 tc_want=$2 tc_url=$3
    shift 3
    for e in $ENGINES; do
        # shellcheck disable=SC2086
        run "$HSMBENCH" rest ekm --endpoint "$tc_url/ekm/k1" --token-env G_TOKEN --engine "$e" \
            ${TC_LOAD:---iterations 20} --threads 1 --json "$T/$tc-$e.json" "$@"
        cp "$T/err" "$T/$tc-$e.err"
        echo "$rc" >"$T/$tc-$e.rc"
        check "$tc ($e): exit $tc_want" "$tc_want"
    done
    # The one error line, the same words from both (the engine is not named).
    a=$(grep -v '^hsmbench: warning:' "$T/$tc-libcurl.err") b=$(grep -v '^hsmbench: warning:' "$T/$tc-lean.err")
    if [ "$a" = "$b" ]; then pass "$tc: the same messages from both engines"
    else fail "$tc: the same messages from both engines" "libcurl: $a | lean: $b"; fi
}
tls_case tls-verified 0 "$TLS_URL" --cacert "$P/ca.pem"
same tls-verified "operations, statuses, bytes" \
    '(r["ops"], r["http"]["status_counts"], r["http"]["k6"]["data_sent"]["count"], r["http"]["k6"]["data_received"]["count"])'
json_check "tls-verified: one TLS handshake (keep-alive)" "$T/tls-verified-lean.json" \
    'runs[0]["ops"] == 20 and runs[0]["errors"] == 0'
tls_case tls-mtls 0 "$TLS_URL" --cacert "$P/ca.pem" --cert "$P/client.pem" --key "$P/client.key"
tls_case tls-localhost 0 "$(echo "$TLS_URL" | sed 's/127\.0\.0\.1/localhost/')" --cacert "$P/ca.pem"
tls_case tls-rogue-ca 3 "$TLS_URL" --cacert "$P/rogue-ca.pem"
tls_case tls-no-ca 3 "$TLS_URL"
tls_case tls-wrong-name 3 "$(echo "$IP_URL" | sed 's/127\.0\.0\.1/localhost/')" --cacert "$P/ca.pem"
file_has "tls-wrong-name: the host name named" "$T/tls-wrong-name-lean.err" "localhost"
tls_case tls-insecure 0 "$TLS_URL" --insecure
file_has "tls-insecure: warns" "$T/tls-insecure-lean.err" '^hsmbench: warning: .*insecure'
tls_case tls-rogue-client 3 "$TLS_URL" --cacert "$P/ca.pem" --cert "$P/rogue.pem" --key "$P/rogue.key"
# A server that never answers the handshake: --timeout ends it, in the same
# words from both engines (issue 38, item 14: the lean engine said "SSL
# connection timeout", libcurl "Connection timed out after N milliseconds").
start_hostile flood_server.py "$T/silent.count" silent 60
for e in $ENGINES; do
    run "$HSMBENCH" rest ekm --endpoint "https://127.0.0.1:$HOSTILE_PORT/ekm/k1" --token-env G_TOKEN \
        --engine "$e" --insecure --iterations 1 --timeout 1s
    check_one_line_error "TLS handshake timeout ($e): one line, exit 3" 3 \
        'TIMEOUT: Connection timed out after [0-9]+ milliseconds$'
done
stop_hostile
# Non-blocking over TLS and mutual TLS: the set-up's handshake is blocking,
# the requests after it go through the epoll loop on the kept connections.
TC_LOAD="--mode nonblocking --inflight 4 --rate 20 --duration 1" \
    tls_case tls-nb 0 "$TLS_URL" --cacert "$P/ca.pem" --cert "$P/client.pem" --key "$P/client.key"
same tls-nb "non-blocking over mutual TLS: errors, statuses, bytes an operation" \
    '(20 <= r["ops"] <= 21, r["errors"], r["http"]["status_counts"] == {"200": r["ops"]}, r["http"]["k6"]["data_sent"]["count"] / r["ops"], r["http"]["k6"]["data_received"]["count"] / r["ops"])'
# TLS handshakes from the epoll loop: a server that resets 30 % of the
# requests ends their connections, and the next request on each slot
# connects and shakes hands again without blocking (resuming the session).
start_serve tlsreset -v --tls-cert "$P/server.pem" --tls-key "$P/server.key" \
    --ekm-token-env EKM_SERVER_TOKEN --fault-after 1 --fault reset:0.3 || exit 0
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --cacert "$P/ca.pem" \
    --engine lean --op wrap --mode nonblocking --inflight 4 --threads 1 --rate 40 --duration 2 \
    --json "$T/tlsreset.json"
stop_serve tlsreset
resets=$(grep -c -- '-> reset (fault)' "$T/tlsreset.err")
check "TLS resets, non-blocking lean: exit 1" 1
# (The schedule holds 80 or 81 requests, by the clock.  A machine too busy
# to start them all before the run ends leaves a few unstarted, counted in
# schedule.dropped: at load 30 the attempts fell under 80.  Fewer than a
# quarter may be; what is held is that every reset was one error, the rest
# answered.)
json_check "TLS resets, non-blocking lean: each reset one EMPTY_REPLY ($resets), the rest answered" \
    "$T/tlsreset.json" \
    "$resets > 5 and runs[0]['errors_by_code'] == {'EMPTY_REPLY': $resets} and runs[0]['ops'] == runs[0]['attempts'] - $resets and 80 <= runs[0]['schedule']['scheduled'] <= 81 and runs[0]['schedule']['dropped'] < 20"

# ---- a server that closes idle kept connections -----------------------------------
# Every third answer on a connection is its last: the client finds the
# connection it kept closed.  Neither engine fails a request or sends one
# twice (the server counts what it received: the set-up's probe and the 30);
# the lean engine says how many connections it replaced.
for e in $ENGINES; do
    rm -f "$T/ic.count"
    start_hostile idle_close_server.py "$T/ic.count" 3 60
    run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$HOSTILE_PORT/ekm/k1" \
        --token-env G_TOKEN --engine "$e" --op wrap --iterations 30 --threads 1 --json "$T/ic-$e.json"
    check "idle-closing server ($e): exit 0, no error" 0 '^ +errors\.+: 0\.00%'
    got=$(cat "$T/ic.count" 2>/dev/null)
    if [ "$got" = 31 ]; then pass "idle-closing server ($e): each request received once (31)"
    else fail "idle-closing server ($e): each request received once (31)" "the server received $got"; fi
    stop_hostile
done
json_check "idle-closing server (lean): the connections replaced counted, none re-sent" "$T/ic-lean.json" \
    'runs[0]["http"]["reconnected"] >= 5 and runs[0]["http"]["retried"] == 0'
file_has "idle-closing server (lean): the summary says so" "$T/out" '^ +http_req_reconnected\.+: [1-9]'
# The same from the non-blocking engines, 2 slots, 20 operations: the epoll
# loop sees the close while the connection is idle, or at its next request.
for e in $ENGINES; do
    rm -f "$T/ic.count"
    start_hostile idle_close_server.py "$T/ic.count" 3 60
    run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$HOSTILE_PORT/ekm/k1" \
        --token-env G_TOKEN --engine "$e" --op wrap --mode nonblocking --inflight 2 --threads 1 \
        --rate 10 --duration 2 --json "$T/icnb-$e.json"
    check "idle-closing server, non-blocking ($e): exit 0, no error" 0 '^ +errors\.+: 0\.00%'
    got=$(cat "$T/ic.count" 2>/dev/null)
    json_check "idle-closing server, non-blocking ($e): each request received once ($got)" "$T/icnb-$e.json" \
        "20 <= runs[0]['ops'] <= 21 and runs[0]['attempts'] + 1 == int('${got:-0}')"
    stop_hostile
done
json_check "idle-closing server, non-blocking (lean): connections replaced counted, none re-sent" \
    "$T/icnb-lean.json" 'runs[0]["http"]["reconnected"] >= 3 and runs[0]["http"]["retried"] == 0'

# ---- Ctrl-C in a held request -----------------------------------------------------
start_serve held --ekm-token-env EKM_SERVER_TOKEN --fault-after 1 --fault-delay 20s --fault timeout:1 ||
    exit 0
: >"$T/out"
"$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --engine lean --threads 1 \
    --duration 30 --timeout 60 --json "$T/held.json" >"$T/out" 2>"$T/err" </dev/null &
interrupt_bg $! '^Running ekm-wrap' "lean: SIGINT in a held request"
json_check "lean: the held request counted INTERRUPTED" "$T/held.json" \
    'runs[0]["errors_by_code"].get("INTERRUPTED", 0) == 1 and runs[0]["status"] == "interrupted"'
stop_serve held

# ---- unusual and broken HTTP answers (tests/hostile/http_answers.py) ----------------
# Legal answers both engines must read (chunked, an interim 100, five bytes
# at a time, a body ended by the connection, a 90 KiB header line), and
# broken ones both must refuse the same way, in the same words, at the
# set-up's probe (a 200 KiB header line, a status line that is not one, a
# body cut short).
# (The plain build alone: see the asan line above.)
if all_cases; then
    answers_both() {  # MODE ITERATIONS
        for e in $ENGINES; do
            start_hostile http_answers.py "$1" 60
            timeout -s INT 120 "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:$HOSTILE_PORT/ekm/k1" \
                --token-env G_TOKEN --engine "$e" --op wrap --iterations "$2" --threads 1 --timeout 5 \
                --json "$T/ha-$1-$e.json" >"$T/ha-$1-$e.out" 2>"$T/ha-$1-$e.err" </dev/null
            echo $? >"$T/ha-$1-$e.rc"
            stop_hostile
        done
    }
    for mode in chunked continue dribble eof bigheader clchunked ctlvalue; do
        answers_both "$mode" 20
        same_rc "ha-$mode" 0
        same "ha-$mode" "operations, errors, statuses" '(r["ops"], r["errors"], r["http"]["status_counts"])'
    done
    # Bytes: the same but for chunked, whose framing libcurl leaves out of its
    # count (SIZE_DOWNLOAD is the decoded body) and the lean engine, counting
    # what it read, does not.
    for mode in continue dribble eof bigheader ctlvalue; do
        same "ha-$mode" "bytes received" 'r["http"]["k6"]["data_received"]["count"]'
    done
    json_check "ha-chunked: the lean engine counts the chunks' framing too" "$T/ha-chunked-lean.json" \
        "runs[0]['http']['k6']['data_received']['count'] > $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["http"]["k6"]["data_received"]["count"])' "$T/ha-chunked-libcurl.json" 2>/dev/null || echo 0)"
    for mode in hugeheader badstatus cut bigstatus status000 status1000 chunk-zzzz chunk-neg chunk-long \
        version99 contbody; do
        answers_both "$mode" 5
        same_rc "ha-$mode" 3
        # (each engine had its own server: the ports differ)
        a=$(sed 's/127\.0\.0\.1:[0-9]*/127.0.0.1:PORT/' "$T/ha-$mode-libcurl.err")
        b=$(sed 's/127\.0\.0\.1:[0-9]*/127.0.0.1:PORT/' "$T/ha-$mode-lean.err")
        if [ "$a" = "$b" ]; then pass "ha-$mode: the same error line from both engines"
        else fail "ha-$mode: the same error line from both engines" "libcurl: $a | lean: $b"; fi
    done
    file_has "ha-hugeheader: HEADER_TOO_LARGE, and why" "$T/ha-hugeheader-lean.err" \
        'HEADER_TOO_LARGE: Response header too large \(a line over 100 KiB\)'
    file_has "ha-badstatus: libcurl's class and words" "$T/ha-badstatus-lean.err" \
        'CURLE_UNSUPPORTED_PROTOCOL: Unsupported HTTP version in response'
    file_has "ha-cut: TRUNCATED" "$T/ha-cut-lean.err" 'TRUNCATED: transfer closed with 180 bytes remaining to read'
    # (issue 38, item 8) libcurl's receive errors by what they are, not
    # CONNECTION_RESET; lean's status 000 not "code 1000", a 1 MiB status line
    # not CURLE_OUT_OF_MEMORY.
    file_has "ha-bigstatus: HEADER_TOO_LARGE" "$T/ha-bigstatus-lean.err" 'HEADER_TOO_LARGE: '
    for mode in status000 status1000; do
        file_has "ha-$mode: libcurl's class and words" "$T/ha-$mode-lean.err" \
            'CURLE_UNSUPPORTED_PROTOCOL: Unsupported response code in HTTP response'
    done
    file_has "ha-chunk-zzzz: BAD_CHUNK" "$T/ha-chunk-zzzz-lean.err" \
        'BAD_CHUNK: Illegal or missing hexadecimal sequence in chunked-encoding'
    file_has "ha-chunk-neg: BAD_CHUNK" "$T/ha-chunk-neg-lean.err" 'BAD_CHUNK: Illegal or missing hexadecimal'
    file_has "ha-chunk-long: BAD_CHUNK" "$T/ha-chunk-long-lean.err" 'BAD_CHUNK: Too long hexadecimal number'
    # (item 7) One framing policy: a version other than HTTP/1.0 and 1.1 is
    # refused, a 100 Continue has no body (what follows it is no status line),
    # Content-Length beside chunked is read by chunked (clchunked, above).
    file_has "ha-version99: refused by both" "$T/ha-version99-lean.err" \
        'CURLE_UNSUPPORTED_PROTOCOL: Unsupported HTTP version \(9\.9\) in response'
    file_has "ha-contbody: a 1xx's body is not the final answer's" "$T/ha-contbody-lean.err" \
        'CURLE_UNSUPPORTED_PROTOCOL: Received HTTP/0\.9 when not allowed'
fi

# ---- SDKMS: sessions, keys made and deleted ------------------------------------------
# The tear-down deletes each key with a URL made for that request: the lean
# engine must not reuse the head it built for the last one (it did: the
# first key deleted five times, four left on the server).
export SDKMS_API_KEY="cGFyaXR5OmtleS0kJA==" SERVER_API_KEY="cGFyaXR5OmtleS0kJA=="
for e in $ENGINES; do
    start_serve "sdkms-$e" -v --api-key-env SERVER_API_KEY --session-ttl 400ms || exit 0
    run "$HSMBENCH" rest sdkms --endpoint "$URL" --api-key-env SDKMS_API_KEY --engine "$e" \
        --op keygen --alg AES --iterations 30 --threads 2 --json "$T/sdkms-$e.json"
    check "sdkms keygen ($e): exit 0" 0 '^ +errors\.+: 0\.00%'
    stop_serve "sdkms-$e"
    made=$(grep -c 'POST /crypto/v1/keys -> 201' "$T/sdkms-$e.err")
    deleted=$(grep -c 'DELETE /crypto/v1/keys/[0-9a-f-]* -> 204' "$T/sdkms-$e.err")
    if [ "$made" = 30 ] && [ "$deleted" = 30 ]; then pass "sdkms keygen ($e): the 30 keys made, each deleted"
    else fail "sdkms keygen ($e): the 30 keys made, each deleted" "made $made, deleted $deleted"; fi
done
# (Sessions end every 400 ms: how many 401s and re-authentications a run
# sees depends on its pace, so only the keys made are compared.)
same sdkms "operations and keys made" '(r["ops"], r["errors"], r["http"]["status_counts"].get("201"))'

# ---- what the lean engine refuses: one line, exit 2 ----------------------------------
run "$HSMBENCH" rest ekm --endpoint "$TLS_URL/ekm/k1" --token-env G_TOKEN --engine lean --http2 --iterations 1
check_one_line_error "--engine lean --http2: one line, exit 2" 2 '^hsmbench: error: --engine lean: .*--http2'
run "$HSMBENCH" rest ekm --endpoint "$TLS_URL/ekm/k1" --token-env G_TOKEN --engine lean \
    --no-connection-reuse --iterations 1
check_one_line_error "--engine lean --no-connection-reuse: one line, exit 2" 2 '^hsmbench: error: --engine lean: .*--no-connection-reuse'
run "$HSMBENCH" rest http --url "$TLS_URL/hello" --engine lean --iterations 1
check_one_line_error "rest http --engine lean: one line, exit 2" 2 '^hsmbench: error: --engine lean: rest http runs through libcurl'
run "$HSMBENCH" rest ekm --endpoint "$TLS_URL/ekm/k1" --token-env G_TOKEN --engine curl --iterations 1
check_one_line_error "--engine curl: one line naming the engines, exit 2" 2 '^hsmbench: error: --engine curl: not an engine \(libcurl or lean\)'
