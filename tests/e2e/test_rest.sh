#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest.sh - hsmbench rest ekm against hsmbench serve on the
# loopback: wrap, unwrap and wrap-unwrap over TLS, mutual TLS, certificate
# verification, connection reuse, credentials, and that no secret leaks.
# Every run is bounded (--iterations or a 1-second --duration).  The load
# profiles and the non-blocking engine's rates are test_rest_timing.sh's.
# tsan: yes (the REST engines: worker threads with their own connections, the non-blocking loops, shared TLS set-up)
# asan: yes (the REST engines over TLS and mutual TLS, connections reused and refused, serve's EKM routes)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"
# (serve's EKM routes are under test here too: its sanitizer build's server)
SERVE_BIN=$HSMBENCH

ekm_tls_server || exit 0
EP="$URL/ekm/k1"
file_has "serve prints that it is a test server" "$T/tls.out" 'a test and validation server, not a product'
case $URL in https://127.0.0.1:*) pass "serve listens on https://127.0.0.1:PORT" ;;
*) fail "serve listens on https://127.0.0.1:PORT" "$URL" ;; esac

ekm() {
    run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN "$@"
}

# ---- the three operations over verified TLS -------------------------------
ekm --cacert "$P/ca.pem" --op wrap --threads 2 --duration 1 --json "$T/wrap.json"
check "ekm wrap over TLS: exit 0" 0 '^ +http_req_duration\.+: avg=' && cp "$T/out" "$T/wrap.out"
file_has "ekm wrap: summary names the test" "$T/out" '^ +ekm-wrap · EKM :wrap'
file_has "ekm wrap: k6 phase lines" "$T/out" '^ +http_req_tls_handshaking\.+: avg='
file_has "ekm wrap: status counts" "$T/out" '^ +http_status\.+: 200=[0-9]+$'
json_check "ekm wrap: ops > 0, no errors" "$T/wrap.json" \
    'runs[0]["test"] == "ekm-wrap" and runs[0]["ops"] > 0 and runs[0]["errors"] == 0'
json_check "ekm wrap: http.status_counts is {\"200\": ops}" "$T/wrap.json" \
    'runs[0]["http"]["status_counts"] == {"200": runs[0]["ops"]}'
# The lean engine's workers, two at once over TLS (this script runs under
# ThreadSanitizer too); its parity with libcurl is test_rest_parity.sh's.
ekm --cacert "$P/ca.pem" --op wrap-unwrap --threads 2 --duration 1 --engine lean --json "$T/lean.json"
check "ekm wrap-unwrap --engine lean, 2 threads over TLS: exit 0" 0 '^ +http_req_duration\.+: avg='
json_check "ekm --engine lean: ops > 0, no errors, the engine named" "$T/lean.json" \
    'runs[0]["ops"] > 0 and runs[0]["errors"] == 0 and runs[0]["rest"]["http_engine"] == "lean"'
json_check "ekm wrap: phases_us has every k6 phase with the percentile keys" "$T/wrap.json" \
    'all(set(runs[0]["http"]["phases_us"][p]) >= {"min","mean","stddev","p50","p90","p95","p99","p999","max"} for p in ["blocked","connecting","tls_handshaking","sending","waiting","receiving","duration"])'
json_check "ekm wrap: tls_handshaking p50 >= 0, duration p50 > 0" "$T/wrap.json" \
    'runs[0]["http"]["phases_us"]["tls_handshaking"]["p50"] >= 0 and runs[0]["http"]["phases_us"]["duration"]["p50"] > 0'
json_check "ekm wrap: failed_pct 0" "$T/wrap.json" 'runs[0]["http"]["failed_pct"] == 0'
json_check "ekm wrap: environment names the endpoint, TLS verified" "$T/wrap.json" \
    'doc["environment"]["endpoint"]["url"].endswith("/ekm/k1") and doc["environment"]["endpoint"]["tls"]["verify"] is True'

ekm --cacert "$P/ca.pem" --op unwrap --iterations 40 --threads 2 --json "$T/unwrap.json"
check "ekm unwrap (blobs wrapped at set-up): exit 0" 0
json_check "ekm unwrap: 40 ops, 40 requests, all 200" "$T/unwrap.json" \
    'runs[0]["ops"] == 40 and runs[0]["http"]["status_counts"] == {"200": 40}'

ekm --cacert "$P/ca.pem" --op wrap-unwrap --data-size 32 --aad 00112233445566778899 \
    --iterations 30 --json "$T/wu.json"
check "ekm wrap-unwrap with --aad: exit 0" 0
json_check "ekm wrap-unwrap: two requests an operation, round trip checked" "$T/wu.json" \
    'runs[0]["ops"] == 30 and runs[0]["errors"] == 0 and runs[0]["http"]["status_counts"] == {"200": 60}'

# A warm-up of N operations per worker is left out of the request figures as
# it is out of the operations (it once was counted in them).
ekm --cacert "$P/ca.pem" --op wrap --warmup 5it --iterations 20 --threads 2 --json "$T/warmit.json"
check "--warmup 5it: exit 0" 0
json_check "--warmup 5it: 20 operations and 20 requests recorded (the 10 warm-up ones not)" \
    "$T/warmit.json" 'runs[0]["ops"] == 20 and runs[0]["http"]["requests"] == 20'

# ---- connection reuse -----------------------------------------------------
json_check "keep-alive: tls_handshaking p50 == 0 (handshake once per worker)" "$T/wrap.json" \
    'runs[0]["http"]["phases_us"]["tls_handshaking"]["p50"] == 0'
ekm --cacert "$P/ca.pem" --no-connection-reuse --iterations 30 --json "$T/noreuse.json"
check "--no-connection-reuse: exit 0" 0
json_check "--no-connection-reuse: a TLS handshake on every request (p50 > 0, min > 0)" "$T/noreuse.json" \
    'runs[0]["http"]["phases_us"]["tls_handshaking"]["p50"] > 0 and runs[0]["http"]["phases_us"]["tls_handshaking"]["min"] > 0 and runs[0]["http"]["phases_us"]["connecting"]["min"] > 0'
json_check "--no-connection-reuse: environment says so" "$T/noreuse.json" \
    'doc["environment"]["endpoint"]["connection_reuse"] is False'

# ---- certificate verification ---------------------------------------------
ekm --iterations 5
check_one_line_error "no --cacert: the server's certificate is not trusted: exit 3" 3 'TLS: .*certificate'
ekm --cacert "$P/rogue-ca.pem" --iterations 5
check_one_line_error "--cacert of another CA: exit 3" 3 'TLS'
ekm --insecure --iterations 5 --json "$T/insecure.json"
check "--insecure: works" 0 '' 'warning: --insecure'
json_check "--insecure: environment says not verified" "$T/insecure.json" \
    'doc["environment"]["endpoint"]["tls"]["verify"] is False'

# ---- credentials ----------------------------------------------------------
G_TOKEN=wrong-token run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN \
    --cacert "$P/ca.pem" --iterations 5
check_one_line_error "wrong bearer token: exit 3, one line" 3 'HTTP 401.*bearer token'
run env -u G_TOKEN "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" --iterations 5
check_one_line_error "--token-env of an unset variable: exit 2" 2 'G_TOKEN'
run env -u G_TOKEN "$HSMBENCH" rest ekm --endpoint "$EP" --cacert "$P/ca.pem" --iterations 5 </dev/null
check_one_line_error "no token and no terminal: exit 2" 2 'needs a bearer token'
printf '%s\n' "$TOKEN" >"$T/token"
chmod 600 "$T/token"
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-file "$T/token" --cacert "$P/ca.pem" --iterations 5
check "--token-file: works" 0
run "$HSMBENCH" rest ekm --endpoint "$EP" --token "$TOKEN" --cacert "$P/ca.pem" --iterations 5 \
    --json "$T/cmdline.json"
check "--token on the command line: works, with a warning" 0 '' 'warning: --token puts the secret'
json_check "--token: the results file's command has *** in its place" "$T/cmdline.json" \
    '"***" in doc["command"] and doc["command"][:3] == ["hsmbench", "rest", "ekm"]'
cp "$T/out" "$T/cmdline.out"
cp "$T/err" "$T/cmdline.err"
run "$HSMBENCH" rest ekm --endpoint "$EP" "--token=$TOKEN" --cacert "$P/ca.pem" --iterations 5 \
    --json "$T/cmdline2.json"
json_check "--token=VALUE: written as --token=***" "$T/cmdline2.json" '"--token=***" in doc["command"]'
ekm --cacert "$P/ca.pem" --iterations 3 -v
check "-v: logs requests" 0 '' '> POST /ekm/k1:wrap'
file_has "-v: Authorization shown redacted" "$T/err" 'Authorization: Bearer \*\*\*$'
cp "$T/err" "$T/verbose.err"
no_secret "the bearer token is in no output or results file" "$TOKEN" \
    "$T/wrap.out" "$T/wrap.json" "$T/unwrap.json" "$T/wu.json" "$T/noreuse.json" \
    "$T/cmdline.out" "$T/cmdline.err" "$T/cmdline.json" "$T/cmdline2.json" "$T/verbose.err" \
    "$T/out" "$T/err" "$T/tls.out" "$T/tls.err"

# ---- mutual TLS -----------------------------------------------------------
start_serve mtls --tls-cert "$P/server.pem" --tls-key "$P/server.key" --client-ca "$P/ca.pem" \
    --ekm-token-env EKM_SERVER_TOKEN || exit 0
file_has "serve --client-ca says client certificates are required" "$T/mtls.out" 'client certificates required'
EP="$URL/ekm/k1"
ekm --cacert "$P/ca.pem" --iterations 5
check_one_line_error "mTLS without a client certificate: TLS failure at set-up, exit 3" 3 'TLS: .*certificate required'
ekm --cacert "$P/ca.pem" --cert "$P/rogue.pem" --key "$P/rogue.key" --iterations 5
check_one_line_error "mTLS with a certificate from another CA: exit 3" 3 'TLS'
ekm --cacert "$P/ca.pem" --cert "$P/client.pem" --key "$P/client.key" --op wrap-unwrap \
    --threads 2 --iterations 20 --json "$T/mtls.json"
check "mTLS with --cert/--key: exit 0" 0
json_check "mTLS: client certificate recorded, all requests 200" "$T/mtls.json" \
    'doc["environment"]["endpoint"]["tls"]["client_cert"] is True and runs[0]["http"]["status_counts"] == {"200": 40}'

# ---- usage ----------------------------------------------------------------
run "$HSMBENCH" rest nosuch --endpoint "$EP"
check_one_line_error "rest with an unknown service: exit 2" 2 'unknown service'
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --stages 5s:x
check_one_line_error "rest --stages with a bad target: exit 2" 2 'target'
run "$HSMBENCH" rest ekm --endpoint "ftp://x/k" --token-env G_TOKEN
check_one_line_error "a non-HTTP endpoint: exit 2" 2 'not an http'
run "$HSMBENCH" rest ekm --endpoint "https://u:p@127.0.0.1/k" --token-env G_TOKEN
check_one_line_error "credentials in the URL are refused: exit 2" 2 'credentials in the URL'
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --op sign
check_one_line_error "an unknown EKM op: exit 2" 2 'wrap, unwrap and wrap-unwrap'
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --alg AES
check_one_line_error "an SDKMS flag on ekm: exit 2" 2 'rest sdkms'
run "$HSMBENCH" rest --help
check "rest --help: exit 0" 0 'hsmbench rest ekm'
run "$HSMBENCH" serve --help
check "serve --help says it is a test server" 0 'not a product'

stop_serve tls
file_has "serve stops on SIGTERM and says how many requests it answered" "$T/tls.out" '^hsmbench serve: stopped after [0-9]+ requests'
