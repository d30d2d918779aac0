#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_reports.sh - what compare, merge, report and the HTML
# page make of REST results files (rest ekm against hsmbench serve):
# environment.target, different URLs flagged, two REST generators merged
# exactly with a warning when their targets differ, the endpoint, phases and
# statuses on the page, thresholds on k6's HTTP metrics; and older files
# without environment.target, whose target the readers derive.
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

ekm_tls_server || exit 0

# Three generators at once: two on key k1, one on key k2 (another URL).
ekm_bg() {
    "$HSMBENCH" rest ekm --endpoint "$URL/ekm/$1" --token-env G_TOKEN --cacert "$P/ca.pem" --threads 1 \
        --duration 2 --quiet --json "$T/$2.json" </dev/null >"$T/$2.out" 2>&1
}
ekm_bg k1 a &
pa=$!
ekm_bg k1 c &
pc=$!
ekm_bg k2 b
wait $pa $pc
if [ -s "$T/a.json" ] && [ -s "$T/b.json" ] && [ -s "$T/c.json" ]; then
    pass "three rest ekm generators at once (k1, k1, k2)"
else
    fail "three rest ekm generators at once" "$(cat "$T/a.out" "$T/b.out" "$T/c.out" | head -c 300)"
    exit 0
fi

# ---- environment.target -------------------------------------------------------------
json_check "REST target: kind rest, name 'ekm URL', id 'ekm:URL'" "$T/a.json" \
    'doc["environment"]["target"] == {"kind": "rest", "name": "ekm " + doc["environment"]["endpoint"]["url"], "id": "ekm:" + doc["environment"]["endpoint"]["url"]}'
json_check "REST target: beside endpoint, client and host" "$T/a.json" \
    'list(doc["environment"]) == ["target", "endpoint", "client", "host"]'

# ---- compare ---------------------------------------------------------------------------
run "$HSMBENCH" compare "$T/a.json" "$T/b.json"
check "compare two REST files: exit 0" 0 '^  A  .*a\.json  \(ekm https://127\.0\.0\.1:[0-9]+/ekm/k1 · host '
file_has "compare: the different URL is flagged at the top" "$T/out" \
    '^  ⚠ B: different target: ekm https://127\.0\.0\.1:[0-9]+/ekm/k2 vs ekm https://127\.0\.0\.1:[0-9]+/ekm/k1$'
file_has "compare: and on the run's row" "$T/out" '^  B .*  ⚠ different target$'
file_lacks "compare: no '? · token ?' for REST files" "$T/out" 'token \?'
run "$HSMBENCH" compare "$T/a.json" "$T/c.json"
check "compare two files of one URL: exit 0" 0
file_lacks "compare two files of one URL: no target flagged" "$T/out" 'different target'

# ---- merge -----------------------------------------------------------------------------
run "$HSMBENCH" merge "$T/a.json" "$T/b.json" -o "$T/m.json"
check "merge two REST generators: exit 0, warns that the targets differ" 0 '^merged 2 files into ' \
    'warning: .*b\.json: target ekm https://[^ ]*/ekm/k2 is not .*a\.json.s ekm https://[^ ]*/ekm/k1; merging anyway'
if python3 "$TOP/tests/e2e/merge_exact.py" "$T/a.json" "$T/b.json" "$T/m.json" >"$T/py" 2>&1; then
    pass "merge of REST files: histograms added exactly, percentiles those of the summed histogram"
else
    fail "merge of REST files: exact" "$(tail -n 3 "$T/py" | tr '\n' ' ')"
fi
if python3 - "$T/a.json" "$T/b.json" "$T/m.json" >"$T/py" 2>&1 <<'PY'
import json, sys
a, b, m = (json.load(open(p))["runs"][0]["http"] for p in sys.argv[1:4])
assert m["requests"] == a["requests"] + b["requests"], m
assert m["status_counts"] == {"200": a["requests"] + b["requests"]}, m
assert m["failed"] == a["failed"] + b["failed"] and m["failed_pct"] == 0, m
assert "phases_us" not in m, m
PY
then pass "merge: the HTTP counts add up (requests, statuses, failed); no phases (no histograms to merge)"
else fail "merge: the HTTP counts add up" "$(tail -n 2 "$T/py" | tr '\n' ' ')"; fi
run "$HSMBENCH" report "$T/m.json" --threshold 'http_req_failed<1%' --threshold 'http_reqs:count>1' --html "$T/m.html"
check "thresholds on a merged REST file's HTTP counts: exit 0" 0 "✓ 'http_reqs:count>1' count=[0-9]+$"
file_has "HTML of a merged REST file: the statuses, and why there are no phases" "$T/m.html" 'No phase figures: a merged file keeps none'
run "$HSMBENCH" report "$T/m.json" --threshold 'http_req_duration:p95<10s'
check "a phase threshold on a merged file fails, named: exit 99" 99 "✗ 'http_req_duration:p95<10s' no phase figures \(a merged file keeps none\)"
json_check "merge: the merged file keeps the first file's target" "$T/m.json" \
    'doc["environment"]["target"]["id"].endswith("/ekm/k1") and len(doc["merged_environments"]) == 2'
run "$HSMBENCH" merge "$T/a.json" "$T/c.json" -o "$T/m2.json"
check "merge two generators of one URL: exit 0" 0 '^merged 2 files into '
file_lacks "merge two generators of one URL: no target warning" "$T/err" 'target'

# ---- report and the HTML page ---------------------------------------------------------------
run "$HSMBENCH" report "$T/a.json"
check "report: the header names the REST target" 0 \
    '^.*a\.json: hsmbench\.result/3 · ekm https://127\.0\.0\.1:[0-9]+/ekm/k1 · host '
run "$HSMBENCH" report "$T/a.json" --html "$T/a.html"
check "report --html of a REST file: exit 0" 0
file_has "HTML: the target" "$T/a.html" '<th>target</th><td><b>ekm https://127\.0\.0\.1:[0-9]+/ekm/k1</b>'
file_has "HTML: the endpoint" "$T/a.html" '<th>endpoint</th><td><code>https://127\.0\.0\.1:[0-9]+/ekm/k1</code>'
file_has "HTML: the TLS settings" "$T/a.html" 'certificate verified: yes · own CA \(--cacert\): yes · client certificate: no'
file_has "HTML: the HTTP client" "$T/a.html" '<th>client</th><td>libcurl '
for ph in blocked connecting tls_handshaking sending waiting receiving duration; do
    if ! grep -q "<tr><td><code>http_req_$ph</code></td>" "$T/a.html"; then
        fail "HTML: a row for every k6 phase" "no http_req_$ph"
        break
    fi
done && pass "HTML: a row for every k6 phase"
file_has "HTML: the phases stacked per statistic" "$T/a.html" 'HTTP phases by statistic'
file_has "HTML: requests by status" "$T/a.html" 'Requests by HTTP status'
file_has "HTML: the status counts" "$T/a.html" '<th>statuses</th><td>200: [0-9]+</td>'
nsvg=$(grep -o '<svg ' "$T/a.html" | wc -l)
# a 2 s run: no per-second charts (two dots each), and the page says why
if [ "$nsvg" -eq 4 ]; then pass "HTML: 4 charts for a 2 s REST run (percentiles, errors, phases, statuses)"
else fail "HTML: 4 charts for a 2 s REST run" "$nsvg"; fi
file_has "HTML: a 2 s run says why it has no per-second charts" "$T/a.html" 'No per-second charts: the run measured 2 seconds'
file_has "HTML: an https run says its certificate was verified" "$T/a.html" '<th>TLS</th><td>certificate verified: yes'
file_lacks "HTML: the bearer token is not on the page" "$T/a.html" "$TOKEN"

# ---- thresholds on HTTP metrics -----------------------------------------------------------
run "$HSMBENCH" report "$T/a.json" --threshold 'http_req_duration:p95<10s' --threshold 'http_reqs>1' \
    --threshold 'ekm-wrap:http_req_waiting:p(99)<10000' --threshold 'http_req_failed:rate<0.5'
check "report --threshold on HTTP metrics, all passing: exit 0" 0 \
    "✓ 'http_req_duration:p95<10s' p\(95\)=[0-9.e-]+s$"
file_has "threshold: the value in the expression's unit (no unit: ms)" "$T/out" \
    "✓ 'ekm-wrap:http_req_waiting:p\(99\)<10000' p\(99\)=[0-9.]+ms$"
file_has "threshold: http_reqs is requests per second" "$T/out" "✓ 'http_reqs>1' rate=[0-9.]+/s$"
run "$HSMBENCH" report "$T/a.json" --threshold 'http_req_failed<0%'
check "report --threshold 'http_req_failed<0%': exit 99" 99 "✗ 'http_req_failed<0%' http_req_failed=0\.00%" \
    'threshold check failed'
run "$HSMBENCH" report "$T/a.json" --threshold 'http_req_duration<1s'
check_one_line_error "an HTTP threshold without a statistic: exit 2" 2 \
    "--threshold 'http_req_duration<1s': http_req_duration needs a statistic"
run "$HSMBENCH" report "$T/a.json" --threshold 'http_req_failed<1'
check_one_line_error "http_req_failed without %: exit 2" 2 "--threshold 'http_req_failed<1': .*percentage"

# ---- PKCS#11 files: their target, and HTTP thresholds on them ---------------------------------------
"$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 2000 --quiet --json "$T/p.json" </dev/null >/dev/null 2>&1
json_check "PKCS#11 target: kind pkcs11, id module base name and token serial" "$T/p.json" \
    'doc["environment"]["target"]["kind"] == "pkcs11" and doc["environment"]["target"]["id"] == "libhsmbench-null.so serial=" + doc["environment"]["token"]["serial"] and doc["environment"]["target"]["name"].endswith(" · token " + doc["environment"]["token"]["label"])'
json_check "PKCS#11 files keep environment.module and token" "$T/p.json" \
    'set(doc["environment"]) >= {"target", "module", "token", "host"}'
run "$HSMBENCH" report "$T/p.json" --threshold 'http_req_duration:p95<10s'
check "an HTTP threshold on a PKCS#11 run fails, named: exit 99" 99 \
    "✗ 'http_req_duration:p95<10s' no HTTP requests \(not a REST run\)"
run "$HSMBENCH" compare "$T/p.json" "$T/a.json"
check "compare a PKCS#11 and a REST file: the targets differ" 0 '⚠ B: different target: ekm https://'

# ---- older files, without environment.target -------------------------------------------------------
python3 - "$T/a.json" "$T/old.json" "$T/p.json" "$T/oldp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["environment"]["target"]
# a hand-made URL with what must never reach a target: credentials, a query, a fragment
d["environment"]["endpoint"]["url"] = "https://user:pw@EXAMPLE.test:443/ekm/k9?sig=SEKRIT#frag"
json.dump(d, open(sys.argv[2], "w"))
p = json.load(open(sys.argv[3]))
del p["environment"]["target"]
json.dump(p, open(sys.argv[4], "w"))
PY
run "$HSMBENCH" report "$T/old.json"
check "an older REST file: the target derived from environment.endpoint" 0 \
    'old\.json: hsmbench\.result/3 · ekm https://example\.test/ekm/k9\?… · host '
file_lacks "the derived target drops credentials and the query" "$T/out" 'SEKRIT|pw@'
run "$HSMBENCH" compare "$T/old.json" "$T/a.json"
check "compare an older REST file: the different target flagged" 0 \
    '⚠ B: different target: ekm https://127\.0\.0\.1:[0-9]+/ekm/k1 vs ekm https://example\.test/ekm/k9\?…'
file_lacks "compare: the derived target drops credentials and the query" "$T/out" 'SEKRIT|pw@'
run "$HSMBENCH" compare "$T/oldp.json" "$T/p.json"
check "an older PKCS#11 file: the same target as the new one" 0
file_lacks "an older PKCS#11 file: nothing flagged" "$T/out" '⚠'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["environment"]["target"]={"kind": "rest", "name": 3}; json.dump(d, open(sys.argv[2], "w"))' \
    "$T/a.json" "$T/badt.json"
run "$HSMBENCH" report "$T/badt.json"
check_one_line_error "a malformed environment.target: exit 2" 2 'badt\.json: environment\.target\.name: is not a string'
