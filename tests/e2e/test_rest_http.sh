#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_http.sh - hsmbench rest http against hsmbench serve on
# the loopback: methods and bodies, headers reaching the server, expected
# statuses, --expect-body and --expect-json, JMeter's summary line, the TLS
# matrix (handshake time only where a handshake happened, mTLS only with
# --cert/--key), and that no credential leaks.  Every run is bounded
# (--iterations, or a --duration of 2 s at most).
# tsan: no (rest http's bodies and checks are each request's own, in the workers and loops test_rest runs under TSan; ASan runs it)
# asan: yes (rest http's bodies, headers and --expect-body/--expect-json checks over TLS and mutual TLS)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

SECRET="hdr-secret-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
TOKEN="bearer-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export EKM_SERVER_TOKEN="$TOKEN" G_BEARER="$TOKEN"
P="$T/pki"
if ! make_certs "$P"; then
    fail "test certificates" "$(tail -c 300 "$T/openssl.log")"
    exit 0
fi

# TLS, client certificates checked when sent (so one server serves the
# matrix's TLS and mTLS variants), a plain-HTTP listener beside it, and an
# EKM route that checks the bearer token.
start_serve srv --tls-cert "$P/server.pem" --tls-key "$P/server.key" --client-ca "$P/ca.pem" \
    --client-cert-optional --plain-listen 127.0.0.1:0 --ekm-token-env EKM_SERVER_TOKEN || exit 0
PLAIN=$(sed -n 's/^hsmbench serve: plain HTTP on \([^ ]*\).*/\1/p' "$T/srv.out")
PPORT=${PLAIN##*:}
case $PLAIN in http://127.0.0.1:[0-9]*) pass "serve --plain-listen: a plain-HTTP listener beside TLS" ;;
*) fail "serve --plain-listen: a plain-HTTP listener beside TLS" "'$PLAIN'"; exit 0 ;; esac

http() {
    run "$HSMBENCH" rest http "$@"
}
JMETER='^summary = +[0-9]+ in [0-9]{2}:[0-9]{2}:[0-9]{2} = +[0-9]+\.[0-9]/s Avg: +[0-9]+ Min: +[0-9]+ Max: +[0-9]+ Err: +[0-9]+ \([0-9]+\.[0-9]{2}%\)$'

# ---- GET over TLS, JMeter's line --------------------------------------------
http --url "$URL/hello" --cacert "$P/ca.pem" --threads 2 --duration 1 --expect-json .hello \
    --summary jmeter --json "$T/get.json"
check "GET /hello over TLS: exit 0" 0 '^ +http-get · GET https://127\.0\.0\.1:[0-9]+/hello'
file_has "--summary jmeter: the enclave write-up's line, after the usual summary" "$T/out" "$JMETER"
file_has "the usual summary is there too" "$T/out" '^ +http_req_duration\.+: '
json_check "GET: ops > 0, all 200, no errors, rest object without secrets" "$T/get.json" \
    'runs[0]["test"] == "http-get" and runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["http"]["status_counts"] == {"200": runs[0]["ops"]} and runs[0]["rest"]["method"] == "GET" and runs[0]["rest"]["url"].endswith("/hello") and runs[0]["rest"]["expect_json"] == ".hello" and runs[0]["rest"]["expect_status"] == "200-399"'
line=$(grep -E "$JMETER" "$T/out")
json_check "--summary jmeter: its count, duration, rate and errors are the run's" "$T/get.json" \
    "'$line'.startswith('summary = %6d in 00:00:01 = ' % runs[0]['ops']) and abs(float('$line'.split(' = ')[2].split('/s')[0]) - runs[0]['ops_per_s']) < 0.2 and '$line'.endswith('Err:     0 (0.00%)')"
cp "$T/out" "$T/get.out"

http --url "$PLAIN/hello" --iterations 20 --quiet --summary jmeter
check "--quiet --summary jmeter: exit 0" 0 "$JMETER"
lines=$(wc -l <"$T/out")
if [ "$lines" -eq 1 ]; then pass "--quiet --summary jmeter: that line alone"
else fail "--quiet --summary jmeter: that line alone" "$lines lines: $(head -c 200 "$T/out")"; fi
file_has "JMeter line: 20 requests" "$T/out" '^summary = +20 in 00:00:0[0-9] = '

# --http2 is HTTP/2 through TLS's ALPN only: over plain HTTP it would run
# HTTP/1.1 (and h2c breaks on a reused connection with Debian's libcurl).
http --url "$PLAIN/hello" --http2 --iterations 2
check_one_line_error "--http2 with an http:// --url: refused, exit 2" 2 '^hsmbench: error: --http2 with a plain http:// --url: .*HTTP/1\.1'
http --url "$URL/hello" --cacert "$P/ca.pem" --http2 --tls-matrix --plain-port "$PPORT" --iterations 2
check_one_line_error "--http2 with --tls-matrix: refused, exit 2" 2 '^hsmbench: error: --http2 with --tls-matrix: '
EKM_TOKEN=t run "$HSMBENCH" rest ekm --endpoint "$PLAIN/ekm" --token-env EKM_TOKEN --http2 --iterations 2
check_one_line_error "rest ekm --http2 with an http:// --endpoint: refused, exit 2" 2 '^hsmbench: error: --http2 with a plain http:// --endpoint: '

# data_received is every byte of every answer, header lines included, to
# the byte (the header lines are counted as they arrive, not asked of
# libcurl): one answer of /hello read off a raw socket, times the requests.
one=$(python3 - "$PPORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5)
s.sendall(b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n")
data = b""
while b"\r\n\r\n" not in data:
    data += s.recv(65536)
head, body = data.split(b"\r\n\r\n", 1)
n = int([l.split(b":")[1] for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")][0])
while len(body) < n:
    body += s.recv(65536)
print(len(head) + 4 + n)
PY
)
for mode in blocking nonblocking; do
    load="--iterations 12 --threads 2"
    [ $mode = blocking ] || load="--duration 0.3s --threads 2 --mode nonblocking --inflight 4"
    # shellcheck disable=SC2086
    http --url "$PLAIN/hello" $load --quiet --json "$T/bytes-$mode.json"
    check "data_received, $mode: exit 0" 0
    json_check "data_received, $mode: every answer's $one bytes, headers included" "$T/bytes-$mode.json" \
        "runs[0]['ops'] >= 12 and runs[0]['http']['k6']['http_reqs']['count'] == runs[0]['ops'] and runs[0]['http']['k6']['data_received']['count'] == runs[0]['ops'] * int('${one:-0}')"
done

# ---- methods, bodies, headers --------------------------------------------------
http --url "$PLAIN/echo" --body '{"q":[1,2]}' -H 'X-Trace: t-42' --iterations 10 \
    --expect-body '"method":"POST"' --expect-json '.headers.x-trace' --json "$T/post.json"
check "--body: POST by default, X-Trace reaches the server" 0
http --url "$PLAIN/echo" --body '{"q":[1,2]}' --iterations 5 \
    --expect-body '"content-type":"application/json"'
check "--body JSON: Content-Type application/json by default" 0
http --url "$PLAIN/echo" --body '{"q":[1,2]}' --iterations 5 --expect-body '"body":"{\"q\":[1,2]}"'
check "--body: sent as it is" 0
json_check "POST: test http-post, data_size is the body's length" "$T/post.json" \
    'runs[0]["test"] == "http-post" and runs[0]["data_size"] == 11 and runs[0]["rest"]["body_size"] == 11 and runs[0]["rest"]["headers"] == ["X-Trace: t-42"]'
printf 'plain body 123' >"$T/body.txt"
http --url "$PLAIN/echo" --method PUT --body-file "$T/body.txt" --iterations 5 \
    --expect-body '"method":"PUT","path":"/echo"'
check "--method PUT --body-file: the method reaches the server" 0
http --url "$PLAIN/echo" --method PUT --body-file "$T/body.txt" --iterations 5 \
    --expect-body '"body":"plain body 123"'
check "--body-file: the file's bytes are the body" 0
http --url "$PLAIN/echo" --method PATCH --body-file "$T/body.txt" \
    --header 'Content-Type: text/x-test' --iterations 5 --expect-body '"content-type":"text/x-test"'
check "--header Content-Type replaces the default" 0
http --url "$PLAIN/echo" --method DELETE --iterations 5 --expect-body '"method":"DELETE"' \
    --expect-json .body_len
check "--method DELETE without a body" 0
http --url "$PLAIN/hello" --method HEAD --iterations 5 --timeout 3 --json "$T/head.json"
check "--method HEAD: answers without waiting for a body" 0
json_check "HEAD: 5 requests, all 200, well under the timeout" "$T/head.json" \
    'runs[0]["http"]["status_counts"] == {"200": 5} and runs[0]["latency_us"]["max"] < 1000000'
http --url "$PLAIN/echo" --header 'User-Agent:' --iterations 3 --expect-json '.headers.user-agent'
check "'Name:' removes a header libcurl would send" 1 '^ +EXPECT_JSON\.+: 3$'

# ---- expected statuses -----------------------------------------------------------
http --url "$PLAIN/nosuch" --iterations 15 --json "$T/404.json"
check "a 404 path: the run goes on, exit 1" 1 '^ +HTTP 404\.+: 15$' 'warning: .*first request failed.*HTTP 404'
json_check "a 404 path: errors_by_code {\"HTTP 404\": 15}, failed: every request failed" "$T/404.json" \
    'runs[0]["errors_by_code"] == {"HTTP 404": 15} and runs[0]["status"] == "failed" and "100.0 % HTTP 404" in runs[0]["reason"]'
http --url "$PLAIN/status/404" --expect-status 404 --iterations 10 --json "$T/404.json"
check "--expect-status 404 on a 404: exit 0" 0
# http_req_failed follows the expected statuses, as k6's expectedStatuses
# (it once counted every status outside 200..399).
json_check "--expect-status 404: the 404s are not http_req_failed" "$T/404.json" \
    'runs[0]["http"]["failed"] == 0 and runs[0]["http"]["status_counts"] == {"404": 10}'
http --url "$PLAIN/status/204" --expect-status 200,204 --iterations 10
check "--expect-status 200,204 on a 204: exit 0" 0
http --url "$PLAIN/status/201" --expect-status 2xx --iterations 10
check "--expect-status 2xx on a 201: exit 0" 0
http --url "$PLAIN/status/302" --iterations 10
check "default 200-399: a 302 passes (redirects are not followed)" 0
http --url "$PLAIN/status/503" --expect-status 200-299 --iterations 10 --json "$T/503.json"
check "--expect-status 200-299 on a 503: exit 1" 1 '^ +HTTP 503\.+: 10$'
http --url "$PLAIN/hello" --expect-status 201 --iterations 10 --json "$T/not201.json"
check "--expect-status 201 on a 200: counted as HTTP 200, exit 1" 1 '^ +HTTP 200\.+: 10$'
json_check "--expect-status 201: the 200s are http_req_failed" "$T/not201.json" \
    'runs[0]["http"]["failed"] == 10'

# ---- body checks -----------------------------------------------------------------
http --url "$PLAIN/hello" --expect-body '"hello":"world"' --iterations 10
check "--expect-body present: exit 0" 0
http --url "$PLAIN/hello" --expect-body 'goodbye' --iterations 10 --json "$T/eb.json"
check "--expect-body absent: EXPECT_BODY, exit 1" 1 '^ +EXPECT_BODY\.+: 10$'
json_check "EXPECT_BODY in errors_by_code" "$T/eb.json" 'runs[0]["errors_by_code"] == {"EXPECT_BODY": 10}'
http --url "$PLAIN/echo" --body '{"items":[{"id":7}]}' --expect-json '.body_len' --iterations 5
check "--expect-json on a field: exit 0" 0
http --url "$PLAIN/hello" --expect-json '.nope.deeper' --iterations 10 --json "$T/ej.json"
check "--expect-json missing: EXPECT_JSON, exit 1" 1 '^ +EXPECT_JSON\.+: 10$'
http --url "$PLAIN/status/200" --expect-json '.hello' --iterations 10 --json "$T/bj.json"
check "--expect-json on a text answer: BAD_JSON, exit 1" 1 '^ +BAD_JSON\.+: 10$'
json_check "BAD_JSON and EXPECT_JSON are classes of their own" "$T/ej.json" \
    'runs[0]["errors_by_code"] == {"EXPECT_JSON": 10}'

# ---- mutual TLS, bearer tokens ----------------------------------------------------
http --url "$URL/echo" --cacert "$P/ca.pem" --cert "$P/client.pem" --key "$P/client.key" \
    --iterations 5 --expect-body '"client_cert":"verified"'
check "--cert/--key: the server verified the client certificate" 0
http --url "$URL/echo" --cacert "$P/ca.pem" --iterations 5 --expect-body '"client_cert":"none"'
check "without --cert: no client certificate sent" 0
printf '%s\n' "$TOKEN" >"$T/token"
chmod 600 "$T/token"
http --url "$URL/ekm/k1:wrap" --cacert "$P/ca.pem" --bearer-file "$T/token" \
    --body '{"plaintext":"AAECAwQFBgc="}' --expect-json .wrappedBlob --iterations 10 -v \
    --json "$T/bearer.json"
check "--bearer-file: the EKM route accepts the token (a real wrap)" 0 '' 'Authorization: Bearer \*\*\*$'
cp "$T/err" "$T/bearer.err"
cp "$T/out" "$T/bearer.out"
json_check "--bearer-file: the rest object shows it redacted" "$T/bearer.json" \
    '"Authorization: Bearer ***" in runs[0]["rest"]["headers"]'
G_BEARER=wrong-token http --url "$URL/ekm/k1:wrap" --cacert "$P/ca.pem" --bearer-env G_BEARER \
    --body '{"plaintext":"AAECAwQFBgc="}' --iterations 3
check_one_line_error "--bearer-env with a wrong token: HTTP 401 at set-up, exit 3" 3 'HTTP 401.*token'
http --url "$PLAIN/status/401" --expect-status 401 --iterations 3
check "an expected 401 is no set-up failure" 0

# ---- an Authorization header on the command line -------------------------------------
http --url "$URL/echo" --cacert "$P/ca.pem" -H "Authorization: Bearer $SECRET" --iterations 5 -v \
    --expect-body '"authorization":"Bearer ***"' --json "$T/hdr.json"
check "-H Authorization: sent, with a warning" 0 '' 'warning: --header Authorization puts a secret'
file_has "-H Authorization: -v shows it redacted" "$T/err" 'Authorization: Bearer \*\*\*$'
cp "$T/out" "$T/hdr.out"
cp "$T/err" "$T/hdr.err"
json_check "-H Authorization: the results file's command has 'Authorization: ***'" "$T/hdr.json" \
    '"Authorization: ***" in doc["command"] and runs[0]["rest"]["headers"] == ["Authorization: ***"]'
http --url "$URL/echo" --cacert "$P/ca.pem" "--header=Cookie: s=$SECRET" --iterations 3 \
    --json "$T/hdr2.json"
check "--header=Cookie: a secret too" 0 '' 'warning: --header Cookie'
json_check "--header=Cookie: written as --header=Cookie: ***" "$T/hdr2.json" '"--header=Cookie: ***" in doc["command"]'
cp "$T/err" "$T/hdr2.err"
# (--think: the check wants the process alive at 1 s, not busy)
"$HSMBENCH" rest http --url "$PLAIN/hello" -H "Authorization: Bearer $SECRET" --duration 2 \
    --think 0.1s --quiet >/dev/null 2>&1 &
bgpid=$!
sleep 1
if [ -r "/proc/$bgpid/cmdline" ]; then
    if tr '\0' ' ' <"/proc/$bgpid/cmdline" | grep -Fq -- "$SECRET"; then
        fail "the header's value is hidden from ps once read" "in /proc/$bgpid/cmdline"
    else
        pass "the header's value is hidden from ps once read"
    fi
else
    skip "the header's value is hidden from ps once read" "/proc/$bgpid/cmdline not readable: the 2 s run had ended within 1 s"
fi
wait "$bgpid"

# ---- the TLS matrix ------------------------------------------------------------------
http --url "$URL/hello" --cacert "$P/ca.pem" --cert "$P/client.pem" --key "$P/client.key" \
    --tls-matrix --plain-url "$PLAIN/hello" --iterations 30 --json "$T/matrix.json"
check "--tls-matrix with --cert/--key: exit 0" 0 '^TLS matrix: GET https://'
cp "$T/out" "$T/matrix.out"
file_has "matrix table: header" "$T/out" '^  VARIANT +REQ/S +CHANGE +P50 +CHANGE +P95 +P99 +TLS P50 +ERR%$'
file_has "matrix: plain first, no handshake" "$T/out" '^  plain +[0-9]+\.[0-9]{2} +- +[0-9.]+[µm]?s +- +[0-9.]+[µm]?s +[0-9.]+[µm]?s +0s +0\.00$'
file_has "matrix: TLS keep-alive, p50 of handshakes 0" "$T/out" '^  tls +[0-9]+\.[0-9]{2} +[-+][0-9.]+% +[0-9.]+[µm]?s +[-+][0-9.]+% +[0-9.]+[µm]?s +[0-9.]+[µm]?s +0s +0\.00$'
file_has "matrix: TLS without reuse, a handshake every request" "$T/out" '^  tls-no-reuse +[0-9]+\.[0-9]{2} +[-+][0-9.]+% +[0-9.]+[µm]?s +[-+][0-9.]+% +[0-9.]+[µm]?s +[0-9.]+[µm]?s +[0-9.]+[µm]?s +0\.00$'
file_has "matrix: mTLS present with --cert/--key" "$T/out" '^  mtls +[0-9]+\.[0-9]{2} '
json_check "matrix JSON: four runs, one per variant, in order" "$T/matrix.json" \
    '[r["variant"] for r in runs] == ["plain", "tls", "tls-no-reuse", "mtls"] and all(r["status"] == "ok" and r["ops"] > 0 and r["errors"] == 0 for r in runs)'
json_check "matrix JSON: handshake time only where a handshake happened" "$T/matrix.json" \
    'runs[0]["http"]["phases_us"]["tls_handshaking"]["max"] == 0 and runs[1]["http"]["phases_us"]["tls_handshaking"]["p50"] == 0 and runs[2]["http"]["phases_us"]["tls_handshaking"]["p50"] > 0 and runs[2]["http"]["phases_us"]["tls_handshaking"]["min"] > 0 and runs[3]["http"]["phases_us"]["tls_handshaking"]["p50"] == 0'
json_check "matrix JSON: each run's rest object says what it was" "$T/matrix.json" \
    'runs[0]["rest"]["tls"] is False and runs[0]["rest"]["url"].startswith("http://") and runs[2]["rest"]["connection_reuse"] is False and [r["rest"]["client_cert"] for r in runs] == [False, False, False, True]'
json_check "matrix JSON: same test in every run (comparable), the plain URL recorded" "$T/matrix.json" \
    'len({r["test"] for r in runs}) == 1 and doc["environment"]["endpoint"]["plain_url"].endswith("/hello")'

# The matrix's file in every view names each run's variant (issue 39, item
# 11: report showed four identical http-get rows)
run "$HSMBENCH" report "$T/matrix.json"
check "report of a --tls-matrix file: exit 0" 0
for v in plain tls tls-no-reuse mtls; do
    file_has "report: the $v variant's row is named" "$T/out" "^  http-get $v +- +0 B +1 ok "
done
run "$HSMBENCH" report --csv - "$T/matrix.json"
check "report --csv of a --tls-matrix file: exit 0" 0
if [ "$(cut -d, -f1 "$T/out" | tail -n +2 | tr -d '\r' | tr '\n' '|')" = "http-get plain|http-get tls|http-get tls-no-reuse|http-get mtls|" ]; then
    pass "report --csv: one row per variant, named, in the matrix's order"
else fail "report --csv: one row per variant, named, in the matrix's order" "$(cut -d, -f1 "$T/out" | tr '\n' ' ')"; fi
run "$HSMBENCH" report --csv-layout tidy --csv - "$T/matrix.json"
if [ "$(cut -d, -f1,2 "$T/out" | tr -d '\r' | tr '\n' '|')" = "test,variant|http-get,plain|http-get,tls|http-get,tls-no-reuse|http-get,mtls|" ]; then
    pass "report --csv-layout tidy: the variant in its own column"
else fail "report --csv-layout tidy: the variant in its own column" "$(cut -d, -f1,2 "$T/out" | tr '\n' ' ')"; fi
run "$HSMBENCH" report --html "$T/matrix.html" "$T/matrix.json"
if [ "$(grep -o 'http-get tls-no-reuse' "$T/matrix.html" | wc -l)" -ge 2 ]; then pass "report --html: the variant names its row and its section"
else fail "report --html: the variant names its row and its section" "$(grep -c 'http-get' "$T/matrix.html") http-get"; fi
# the environment's TLS is the endpoint's (--url https://), not the first
# variant's (plain): it said "none (plain HTTP)"
file_has "report --html: the environment's TLS is the https:// endpoint's" "$T/matrix.html" '<th>TLS</th><td>certificate verified: yes'

# The OPA write-up's runs, each its own file (k6 --no-connection-reuse): plain
# HTTP, then TLS, on one service's same path.  compare takes TLS on as a
# setting of the same endpoint, not another target, and shows k6's
# http_req_duration (no connect, no handshake) beside hsmbench's latency,
# as the write-up compares it.
http --url "$PLAIN/hello" --no-connection-reuse --iterations 200 --json "$T/opa1.json"
http --url "$URL/hello" --cacert "$P/ca.pem" --no-connection-reuse --iterations 200 --json "$T/opa2.json"
run "$HSMBENCH" compare "$T/opa1.json" "$T/opa2.json" --json "$T/opa.json"
check "compare plain vs TLS of one endpoint: exit 0" 0 '^  B: the same endpoint with TLS on \(http https://127\.0\.0\.1:[0-9]+/hello vs http http://127\.0\.0\.1:[0-9]+/hello\): compared as a setting$'
file_lacks "compare plain vs TLS of one endpoint: no 'different target'" "$T/out" "different target"
json_check "compare plain vs TLS: the pair is comparable, not another target" "$T/opa.json" \
    'doc["comparisons"][0]["comparable"] is True and doc["comparisons"][0]["different_target"] is False'
python3 - "$T/opa1.json" "$T/opa2.json" "$T/out" >"$T/peer" 2>&1 <<'PY'
import json, re, sys
lines = [l for l in open(sys.argv[3]) if "k6 http_req_duration" in l]
want = []
for f in sys.argv[1:3]:
    d = json.load(open(f))["runs"][0]["http"]["phases_us"]["duration"]
    want.append(d["p50"])
def us(t):
    v, u = re.match(r"([0-9.]+)(µs|ms|s|ns)", t).groups()
    return float(v) * {"ns": 0.001, "µs": 1, "ms": 1000, "s": 1e6}[u]
got = [us(re.search(r"p50 ([0-9.]+(?:µs|ms|ns|s))", l).group(1)) for l in lines]
print(got, want)
ok = len(got) == 2 and all(abs(g - w) <= max(0.01 * w, 0.1) for g, w in zip(got, want)) and "%" in lines[1]
sys.exit(0 if ok else 1)
PY
if [ $? -eq 0 ]; then pass "compare: k6's http_req_duration p50 under each row, as the files hold it, B's change against A's"
else fail "compare: k6's http_req_duration p50 under each row, as the files hold it, B's change against A's" "$(head -c 300 "$T/peer")"; fi

http --url "$URL/hello" --cacert "$P/ca.pem" --tls-matrix --plain-port "$PPORT" --iterations 30 \
    --json "$T/matrix2.json"
check "--tls-matrix --plain-port, no client certificate: exit 0" 0
if grep -Eq '^  mtls' "$T/out"; then fail "matrix: no mTLS row without --cert/--key" "$(grep -E '^  mtls' "$T/out")"
else pass "matrix: no mTLS row without --cert/--key"; fi
json_check "matrix --plain-port: same host and path over http:// on that port" "$T/matrix2.json" \
    "[r['variant'] for r in runs] == ['plain', 'tls', 'tls-no-reuse'] and runs[0]['rest']['url'] == 'http://127.0.0.1:$PPORT/hello'"

http --url "$URL/hello" --cacert "$P/ca.pem" --cert "$P/client.pem" --key "$P/client.key" \
    --tls-matrix --no-connection-reuse --iterations 30 --json "$T/matrix3.json"
check "--tls-matrix without a plain URL: exit 0" 0 '^  plain-no-reuse +skipped: no --plain-url or --plain-port$'
json_check "matrix: plain skipped with its reason; mTLS without reuse handshakes every time" "$T/matrix3.json" \
    '[r["variant"] for r in runs] == ["plain-no-reuse", "tls", "tls-no-reuse", "mtls-no-reuse"] and runs[0]["status"] == "skipped" and runs[3]["http"]["phases_us"]["tls_handshaking"]["min"] > 0'

http --url "$URL/hello" --tls-matrix --plain-port "$PPORT" --iterations 10 --json "$T/matrix4.json"
check "matrix, TLS not trusted: the TLS variants fail at set-up, exit 3" 3 '' 'tls: .*TLS: '
json_check "matrix, TLS not trusted: plain measured, the others failed with the reason" "$T/matrix4.json" \
    'runs[0]["status"] == "ok" and [r["status"] for r in runs[1:]] == ["failed", "failed"] and "TLS" in runs[1]["reason"]'

# ---- the CA, certificate and key read once for the run (issue 39, item 3) -------
# libcurl, given file names, read each file again for every new connection,
# inside the handshake timed (11 opens of each in 10 requests).  The files
# are removed while a run without connection reuse goes on: every request's
# handshake still has them.  They go once the run's first second is written
# (--out jsonl), so after its set-up however slow the machine (a fixed
# 0.5 s came before an ASan build's set-up at a load of 12); for the run's
# second second, every new connection's handshake does without them.
mkdir -p "$T/once"
cp "$P/ca.pem" "$P/client.pem" "$P/client.key" "$T/once/"
"$HSMBENCH" rest http --url "$URL/hello" --cacert "$T/once/ca.pem" --cert "$T/once/client.pem" \
    --key "$T/once/client.key" --no-connection-reuse --duration 2 --quiet --json "$T/once.json" \
    --out jsonl="$T/once.jsonl" >"$T/once.out" 2>"$T/once.err" </dev/null &
opid=$!
i=0
while [ ! -s "$T/once.jsonl" ] && kill -0 "$opid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
rm -f "$T/once/ca.pem" "$T/once/client.pem" "$T/once/client.key"
wait "$opid"
orc=$?
if [ "$orc" = 0 ]; then pass "files removed mid-run: exit 0, they were read once"
else fail "files removed mid-run: exit 0, they were read once" "exit $orc: $(head -c 300 "$T/once.err")"; fi
json_check "files removed mid-run: every new connection's handshake had them (no errors)" "$T/once.json" \
    'runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["http"]["phases_us"]["tls_handshaking"]["min"] > 0'

# ---- reports and comparisons from the saved files ----------------------------------------
run "$HSMBENCH" report "$T/matrix.json" --csv - --quiet
check "hsmbench report --csv on a matrix file" 0 '^http-get plain,1,'
run "$HSMBENCH" compare "$T/404.json" "$T/get.json"
check "hsmbench compare reads rest http files" 0

# ---- load modes come from the shim -------------------------------------------------------
http --url "$PLAIN/hello" --mode nonblocking --rate 100 --threads 2 --duration 1 --json "$T/nb.json"
check "--mode nonblocking --rate 100: exit 0" 0
json_check "non-blocking: about 100 requests on schedule" "$T/nb.json" \
    '85 <= runs[0]["ops"] <= 110 and "schedule" in runs[0]'

# ---- secrets never leak ---------------------------------------------------------------------
no_secret "the header secret is in no output or results file" "$SECRET" \
    "$T/hdr.out" "$T/hdr.err" "$T/hdr.json" "$T/hdr2.json" "$T/hdr2.err" "$T/srv.out" "$T/srv.err"
no_secret "the bearer token is in no output or results file" "$TOKEN" \
    "$T/bearer.out" "$T/bearer.err" "$T/bearer.json" "$T/srv.out" "$T/srv.err"

# ---- usage and set-up errors --------------------------------------------------------------
http --iterations 1
check_one_line_error "no --url: exit 2" 2 '--url is required'
http --url "$PLAIN/hello" --expect-status 2000
check_one_line_error "--expect-status 2000: exit 2" 2 'expect-status'
http --url "$PLAIN/hello" --expect-json 'result'
check_one_line_error "--expect-json without a leading dot: exit 2" 2 'expect-json'
http --url "$PLAIN/hello" --body x --body-file "$T/body.txt"
check_one_line_error "--body with --body-file: exit 2" 2 'give only one'
http --url "$PLAIN/hello" --method HEAD --body x
check_one_line_error "HEAD with a body: exit 2" 2 'HEAD takes no body'
http --url "$PLAIN/hello" --header 'no colon here'
check_one_line_error "a header without a colon: exit 2" 2 "Name: value"
http --url "$PLAIN/hello" --bearer-env G_BEARER -H 'Authorization: Basic x'
check_one_line_error "--bearer-env and an Authorization header: exit 2" 2 'give only one'
http --url "$PLAIN/hello" --plain-port 80
check_one_line_error "--plain-port without --tls-matrix: exit 2" 2 'tls-matrix'
http --url "$PLAIN/hello" --tls-matrix
check_one_line_error "--tls-matrix on an http:// URL: exit 2" 2 'https://'
http --url "$PLAIN/hello" --expect-body a --expect-body b
check_one_line_error "--expect-body twice: exit 2" 2 '--expect-body given twice'
http --url "$PLAIN/hello" --summary csv
check_one_line_error "--summary csv: exit 2" 2 'jmeter'
http --url "$PLAIN/hello" --method 'GE T'
check_one_line_error "a bad method: exit 2" 2 'not an HTTP method'
http --url "http://127.0.0.1:1/x" --iterations 3
check_one_line_error "nothing listening: exit 3" 3 'CONNECT_REFUSED'
http --url "$URL/hello" --iterations 3
check_one_line_error "an untrusted certificate: exit 3 with a hint" 3 'TLS: .*--cacert'
run "$HSMBENCH" rest http --help
check "rest http --help: exit 0" 0 'tls-matrix'
run "$HSMBENCH" rest --help
check "rest --help names rest http" 0 'hsmbench rest http'

stop_serve srv
file_has "serve stops on SIGTERM" "$T/srv.out" '^hsmbench serve: stopped after [0-9]+ requests'
