#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_k6.sh - k6's end-of-test summary (seeds 000 and 003):
# every k6 metric name in the REST summary, in --summary k6 (k6's order and
# layout) and in the results' http.k6, for rest ekm, sdkms and http; the
# figures agree with the run (checks, iterations, vus, bytes); and the EKM
# package's verify_setup.sh step: rest ekm|sdkms --check passing and failing.
# tsan: no (k6's summary is formatted after the workers end; their threads are test_rest's)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

TOKEN="ekm-token-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
KEY=$(printf 'app-%s:secret-%s' "$$" "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" | base64 | tr -d '\n')
export G_TOKEN="$TOKEN" EKM_SERVER_TOKEN="$TOKEN" SDKMS_API_KEY="$KEY" SERVER_API_KEY="$KEY"
export BAD_TOKEN="not-the-token" BAD_KEY="$(printf 'x:y' | base64)"

start_serve k6 --ekm-token-env EKM_SERVER_TOKEN --api-key-env SERVER_API_KEY || exit 0
EP=$URL

K6_NAMES="checks data_received data_sent http_req_blocked http_req_connecting http_req_duration
    http_req_failed http_req_receiving http_req_sending http_req_tls_handshaking http_req_waiting
    http_reqs iteration_duration iterations vus vus_max"

# k6_names NAME FILE: every k6 metric name is a line of FILE's summary.
k6_names() {
    miss=
    for m in $K6_NAMES; do
        grep -Eq "^ +$m\.+: " "$2" || miss="$miss $m"
    done
    grep -Eq '^ +\{ expected_response:true \}\.*: avg=' "$2" || miss="$miss {expected_response:true}"
    if [ -z "$miss" ]; then pass "$1"; else fail "$1" "missing:$miss"; fi
}

# k6_json NAME FILE: every k6 metric is in runs[0].http.k6.
k6_json() {
    json_check "$1" "$2" "set('''$K6_NAMES'''.split()) | {'http_req_duration{expected_response:true}'} <= set(runs[0]['http']['k6'])"
}

# ---- rest ekm: the default summary, --summary k6, the JSON ---------------------
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env G_TOKEN --op wrap-unwrap --threads 3 \
    --iterations 60 --think 2ms --json "$T/ekm.json" --summary k6
check "ekm wrap-unwrap --summary k6: exit 0" 0
cp "$T/out" "$T/ekm.out"
k6_names "ekm: every k6 metric in the summary" "$T/ekm.out"
k6_json "ekm: every k6 metric in http.k6" "$T/ekm.json"
# k6's layout: five spaces, names dotted to 31 columns, the checks above
file_has "--summary k6: checks in k6's layout, one a request (120 requests)" "$T/ekm.out" \
    '^     checks\.{25}: 100\.00% ✓ 120 ✗ 0$'
file_has "--summary k6: the check names with ✓" "$T/ekm.out" '^     ✓ status code$'
file_has "--summary k6: http_reqs count and rate" "$T/ekm.out" '^     http_reqs\.{22}: 120 [0-9.]+/s$'
file_has "--summary k6: iterations count and rate" "$T/ekm.out" '^     iterations\.{21}: 60 [0-9.]+/s$'
file_has "--summary k6: data_received in k6's units" "$T/ekm.out" \
    '^     data_received\.{18}: [0-9.]+ (B|kB|MB) [0-9.]+ (B|kB|MB)/s$'
file_has "--summary k6: the expected_response line indented under duration" "$T/ekm.out" \
    '^       \{ expected_response:true \}\.\.\.: avg='
file_has "--summary k6: vus and vus_max are the threads" "$T/ekm.out" '^     vus_max\.{24}: 3 min=3 max=3$'
file_has "--summary k6: http_req_failed as k6 counts it" "$T/ekm.out" '^     http_req_failed\.{16}: 0\.00% ✓ 0 ✗ 120$'
# k6's order: alphabetical, as k6 prints them
python3 - "$T/ekm.out" >"$T/order" 2>&1 <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
start = max(i for i, l in enumerate(lines) if l.startswith("     checks...."))
names = [re.match(r"^ +([a-z_]+|\{ expected_response:true \})\.*:", l).group(1)
         for l in lines[start:] if re.match(r"^ +([a-z_]+|\{ expected_response:true \})\.*:", l)]
want = ["checks", "data_received", "data_sent", "http_req_blocked", "http_req_connecting",
        "http_req_duration", "{ expected_response:true }", "http_req_failed", "http_req_receiving",
        "http_req_sending", "http_req_tls_handshaking", "http_req_waiting", "http_reqs",
        "iteration_duration", "iterations", "vus", "vus_max"]
sys.exit(0 if names == want else print(names) or 1)
PY
if [ $? -eq 0 ]; then pass "--summary k6: k6's order"; else fail "--summary k6: k6's order" "$(head -c 400 "$T/order")"; fi
json_check "ekm http.k6: checks 120 passed (the status of each of the 120 answers, as the package's script)" "$T/ekm.json" \
    'runs[0]["http"]["k6"]["checks"]["passes"] == 120 and runs[0]["http"]["k6"]["checks"]["fails"] == 0 and list(runs[0]["http"]["k6"]["checks"]["by_check"]) == ["status"]'
json_check "ekm http.k6: the answers verified apart, out of the count" "$T/ekm.json" \
    'runs[0]["http"]["k6"]["checks"]["verified"]["passes"] == 120'
json_check "ekm http.k6: iterations are the operations, http_reqs the requests" "$T/ekm.json" \
    'runs[0]["http"]["k6"]["iterations"]["count"] == 60 and runs[0]["http"]["k6"]["http_reqs"]["count"] == 120'
json_check "ekm http.k6: iteration_duration = latency + --think 2ms" "$T/ekm.json" \
    'abs(runs[0]["http"]["k6"]["iteration_duration"]["p50"] - runs[0]["latency_us"]["p50"] - 2000) < 1'
json_check "ekm http.k6: bytes on the wire, headers included, more than the bodies" "$T/ekm.json" \
    'runs[0]["http"]["k6"]["data_sent"]["count"] > 120 * 100 and runs[0]["http"]["k6"]["data_received"]["count"] > 120 * 100'
json_check "ekm http.k6: vus 3, vus_max 3" "$T/ekm.json" \
    'runs[0]["http"]["k6"]["vus"] == {"value": 3, "min": 3, "max": 3} and runs[0]["http"]["k6"]["vus_max"]["value"] == 3'
json_check "ekm http.k6: expected_response covers every request" "$T/ekm.json" \
    'runs[0]["http"]["k6"]["http_req_duration{expected_response:true}"]["count"] == 120'

# --quiet --summary k6: only k6's block on standard output
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env G_TOKEN --iterations 10 --quiet --summary k6
check "--quiet --summary k6: exit 0" 0
if grep -q 'Running\|status\.\.\.' "$T/out"; then fail "--quiet --summary k6: only the k6 block" "$(head -c 200 "$T/out")"
else pass "--quiet --summary k6: only the k6 block"; fi
k6_names "--quiet --summary k6: every k6 metric" "$T/out"

# ---- rest sdkms, staged: vus follow the stage targets -------------------------
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --op encrypt \
    --stages 1s:2,1s:2 --json "$T/sd.json" --summary k6
check "sdkms encrypt --stages --summary k6: exit 0" 0
k6_names "sdkms: every k6 metric in the summary" "$T/out"
k6_json "sdkms: every k6 metric in http.k6" "$T/sd.json"
json_check "sdkms http.k6: vus_max is the highest stage target, vus within it" "$T/sd.json" \
    'runs[0]["http"]["k6"]["vus_max"]["value"] == 2 and 0 <= runs[0]["http"]["k6"]["vus"]["min"] <= runs[0]["http"]["k6"]["vus"]["max"] <= 2'
json_check "sdkms http.k6: one check per operation (status), the answers verified apart" "$T/sd.json" \
    'runs[0]["http"]["k6"]["checks"]["passes"] == runs[0]["ops"] and runs[0]["http"]["k6"]["checks"]["by_check"]["status"]["passes"] == runs[0]["ops"] and runs[0]["http"]["k6"]["checks"]["verified"]["passes"] == runs[0]["ops"]'

# ---- rest http: checks follow --expect-*, failed statuses ----------------------
run "$HSMBENCH" rest http --url "$EP/status/503" --expect-status 200 --iterations 10 \
    --json "$T/h.json" --summary k6 --summary jmeter
check "http 503 with --summary k6 --summary jmeter: exit 1 (operations failed)" 1
k6_names "http: every k6 metric in the summary" "$T/out"
file_has "http: JMeter's line beside k6's block" "$T/out" '^summary = +10 in '
file_has "http: the status check fails, k6's style" "$T/out" '^     ✗ status code$'
k6_json "http: every k6 metric in http.k6" "$T/h.json"
json_check "http http.k6: 10 failed status checks, http_req_failed 100%" "$T/h.json" \
    'runs[0]["http"]["k6"]["checks"]["fails"] == 10 and runs[0]["http"]["k6"]["http_req_failed"]["rate"] == 1.0 and runs[0]["http"]["k6"]["http_req_duration{expected_response:true}"]["count"] == 0'
run "$HSMBENCH" rest http --url "$EP/hello" --expect-body hello --iterations 10 --json "$T/h2.json"
check "http --expect-body: exit 0" 0
json_check "http http.k6: status and body checks" "$T/h2.json" \
    'runs[0]["http"]["k6"]["checks"]["passes"] == 20'
run "$HSMBENCH" rest http --url "$EP/hello" --mode nonblocking --rate 50 --inflight 4 --duration 1 \
    --json "$T/h3.json"
check "http non-blocking: exit 0" 0
json_check "http non-blocking http.k6: vus_max the in-flight slots" "$T/h3.json" \
    'runs[0]["http"]["k6"]["vus_max"]["value"] == 4 and runs[0]["http"]["k6"]["vus"]["max"] <= 4'
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env G_TOKEN --summary csv
check_one_line_error "rest ekm --summary csv: exit 2" 2 "'k6'"

# ---- --check -----------------------------------------------------------------
rm -f "$T/chk.json"
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env G_TOKEN --check --json "$T/chk.json"
check "ekm --check: exit 0" 0 '^check: ok$'
file_has "ekm --check: the wrap's HTTP status" "$T/out" '^wrap: +HTTP 200$'
file_has "ekm --check: the wrappedBlob" "$T/out" '^wrappedBlob: +[A-Za-z0-9+/=_-]{20,}$'
file_has "ekm --check: the unwrap's HTTP status" "$T/out" '^unwrap: +HTTP 200$'
file_has "ekm --check: the round trip returned the plaintext" "$T/out" '^round trip: +ok'
if [ -e "$T/chk.json" ]; then fail "ekm --check: no results file" "chk.json written"
else pass "ekm --check: no results file"; fi
no_secret "ekm --check: the token is not printed" "$TOKEN" "$T/out" "$T/err"
run "$HSMBENCH" rest ekm --endpoint "$EP/ekm/k1" --token-env BAD_TOKEN --check
check "ekm --check with a wrong token: exit 3" 3 '^check: FAILED$'
file_has "ekm --check with a wrong token: HTTP 401" "$T/out" '^wrap: +HTTP 401$'
file_has "ekm --check with a wrong token: the round trip failed" "$T/out" '^round trip: +FAILED'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --check
check "sdkms --check: exit 0" 0 '^check: ok$'
file_has "sdkms --check: authenticated" "$T/out" '^auth: +ok'
file_has "sdkms --check: a key made" "$T/out" '^key made: +ok: AES 256, kid '
file_has "sdkms --check: the key deleted" "$T/out" '^key deleted: +ok$'
file_has "sdkms --check: the session ended" "$T/out" '^session ended: +ok'
no_secret "sdkms --check: the API key is not printed" "$KEY" "$T/out" "$T/err"
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env SDKMS_API_KEY --check --alg EC --curve SecP256K1 --transient
check "sdkms --check --alg EC --curve SecP256K1 --transient: exit 0" 0 'key made: +ok: EC SecP256K1'
run "$HSMBENCH" rest sdkms --endpoint "$EP" --api-key-env BAD_KEY --check
check "sdkms --check with a wrong API key: exit 3" 3 '^check: FAILED$'
file_has "sdkms --check with a wrong API key: auth failed, 401" "$T/out" '^auth: +FAILED: .*HTTP 401'
run "$HSMBENCH" rest ekm --endpoint "http://127.0.0.1:1/ekm/k1" --token-env G_TOKEN --check
check "ekm --check, nothing listening: exit 3" 3 '^check: FAILED$'
stop_serve k6
