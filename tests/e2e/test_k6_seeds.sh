#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_k6_seeds.sh - the two k6 seeds replayed against hsmbench
# serve: 000, the CipherTrust EKM package (k6 run --stage 5s:70,30s:70,5s:0
# ekm_wrap.js, whose check is "status code" 200, read against k6's
# summary), and 003, OPA's TLS test (k6 run --no-connection-reuse
# --duration 5s, read from its "running (05.0s), 0/1 VUs, N complete and 0
# interrupted iterations" line).  k6's durations in every TIME, thresholds
# on every metric of k6's summary with its tags and abortOnFail, one check
# a request, the closing running line, --quiet naming the failed
# thresholds, and k6's exit status 99 for them.
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

TOKEN="k6-seed-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export G_TOKEN="$TOKEN" EKM_SERVER_TOKEN="$TOKEN"
start_serve k6seed --ekm-token-env EKM_SERVER_TOKEN || exit 0
# the package's ENDPOINT_URL, and a plain route for OPA's script
ENDPOINT_URL="$URL/ekm/k1"
PLAIN=$URL
ekm() { run "$HSMBENCH" rest ekm --endpoint "$ENDPOINT_URL" --token-env G_TOKEN --op wrap "$@"; }

# ---- k6 durations (seed 000's --stage, seed 003's --duration) --------------------------
# the package's profile, 5s:70,30s:70,5s:0, at a test's scale, in k6's forms
ekm --stages 0m0.2s:2,0.5s:2,0h0m0.3s:0 --quiet --json "$T/st.json"
check "--stages 0m0.2s:2,0.5s:2,0h0m0.3s:0 (k6's compound durations): exit 0" 0
json_check "--stages in k6's forms: the profile lasts 1 s" "$T/st.json" \
    'runs[0]["settings"]["duration_s"] == 1.0 and runs[0]["settings"]["stages"] == "0m0.2s:2,0.5s:2,0h0m0.3s:0"'
ekm --duration 0s500ms --quiet --json "$T/d.json"
check "--duration 0s500ms: exit 0" 0
json_check "--duration 0s500ms is 0.5 s" "$T/d.json" 'runs[0]["settings"]["duration_s"] == 0.5'
# 1m30s, as the issue's user typed it: taken, then stopped by SIGTERM
"$HSMBENCH" rest ekm --endpoint "$ENDPOINT_URL" --token-env G_TOKEN --op wrap --duration 1m30s --quiet \
    --json "$T/long.json" >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "--duration 1m30s taken (stopped by SIGTERM: exit 130)" 130
json_check "--duration 1m30s is 90 s" "$T/long.json" 'runs[0]["settings"]["duration_s"] == 90.0'
for bad in 1m30 30s1m 1m1m 1m-30s '1m 30s' 5x; do
    ekm --duration "$bad"
    check_one_line_error "--duration '$bad' refused with one line: exit 2" 2 "^hsmbench: error: --duration: '$bad'"
done
ekm --stages 1m30:2
check_one_line_error "--stages 1m30:2 refused with one line: exit 2" 2 "^hsmbench: error: --stages: '1m30' has a number without a unit"
ekm --timeout 2m0s --iterations 4 --quiet
check "--timeout 2m0s: exit 0" 0

# ---- one check a request, as ekm_wrap.js makes it; k6's running line --------------------
ekm --iterations 84 --summary k6 --json "$T/c.json"
check "rest ekm --op wrap --iterations 84 --summary k6: exit 0" 0
file_has "84 requests: checks ✓ 84 (k6's package: one check, status 200)" "$T/out" \
    '^     checks\.{25}: 100\.00% ✓ 84 ✗ 0$'
file_has "the one check, named as ekm_wrap.js names it" "$T/out" '^     ✓ status code$'
file_lacks "no second check of k6's for the answer" "$T/out" '✓ answer'
json_check "http.k6.checks: 84 passes, the answers verified apart" "$T/c.json" \
    'runs[0]["http"]["k6"]["checks"]["passes"] == 84 and runs[0]["http"]["k6"]["checks"]["verified"]["passes"] == 84'
file_has "k6's closing line: running (...), 0/1 VUs, 84 complete and 0 interrupted iterations" "$T/out" \
    '^running \([0-9]{2}\.[0-9]s\), 0/1 VUs, 84 complete and 0 interrupted iterations$'
# seed 003: k6 run --no-vu-connection-reuse --no-connection-reuse --duration 5s (here 1s)
run "$HSMBENCH" rest http --url "$PLAIN/hello" --no-connection-reuse --duration 1s --summary k6 --json "$T/o.json"
check "rest http --no-connection-reuse --duration 1s --summary k6: exit 0" 0
file_has "OPA's line: running (01.0s), 0/1 VUs, N complete and 0 interrupted iterations" "$T/out" \
    '^running \(01\.0s\), 0/1 VUs, [0-9]+ complete and 0 interrupted iterations$'
n=$(sed -n 's/^running (01\.0s), 0\/1 VUs, \([0-9]*\) complete.*/\1/p' "$T/out")
json_check "its count is the run's iterations" "$T/o.json" "runs[0][\"http\"][\"k6\"][\"iterations\"][\"count\"] == ${n:-0}"

# ---- thresholds on k6's metrics, in rest and in report -----------------------------------
ekm --iterations 40 --threshold 'checks:rate>0.99' --threshold 'iteration_duration:p(95)<600' \
    --threshold 'http_req_failed:rate<0.01' --threshold 'http_reqs:count>10' \
    --threshold 'http_req_duration{expected_response:true}:p(95)<200' --json "$T/th.json"
check "the issue's thresholds hold: exit 0" 0 "✓ 'checks:rate>0.99' rate=1\.0000$"
file_has "iteration_duration:p(95)<600, in ms" "$T/out" "✓ 'iteration_duration:p\(95\)<600' p\(95\)=[0-9.]+ms$"
file_has "the tagged duration" "$T/out" "✓ 'http_req_duration\{expected_response:true\}:p\(95\)<200' p\(95\)=[0-9.]+ms$"
file_has "http_reqs:count" "$T/out" "✓ 'http_reqs:count>10' count=40$"
json_check "every threshold recorded as held" "$T/th.json" \
    'len(runs[0]["thresholds"]) == 5 and all(t["ok"] for t in runs[0]["thresholds"])'
run "$HSMBENCH" report "$T/th.json" --threshold 'checks:rate>0.99' --threshold 'iteration_duration:p(95)<600'
check "report: checks and iteration_duration judged from http.k6: exit 0" 0 "✓ 'checks:rate>0.99' rate=1\.0000$"
file_lacks "report: no 'no run of this test'" "$T/out" 'no run of this test'
run "$HSMBENCH" report "$T/th.json" --threshold 'http_reqs{status:200}:count==40' \
    --threshold 'http_reqs{status:503}:count==0' --threshold 'http_reqs{expected_response:true}:count==40' \
    --threshold 'checks{check:status code}:rate==1' --threshold 'iterations:count==40' \
    --threshold 'vus_max:value==1' --threshold 'vus:max<=1' --threshold 'data_sent:count>1000' \
    --threshold 'dropped_iterations:count==0'
check "report: tags status, expected_response and check; counters and gauges: exit 0" 0 \
    "✓ 'http_reqs\{status:200\}:count==40' count=40$"
file_has "a gauge's figure" "$T/out" "✓ 'vus_max:value==1' value=1$"
run "$HSMBENCH" report "$T/th.json" --threshold 'http_req_duration{expected_response:false}:p95<1s'
check "report: {expected_response:false} with no failed request has no data: exit 99" 99 \
    "✗ 'http_req_duration\{expected_response:false\}:p95<1s' no data"
run "$HSMBENCH" report "$T/th.json" --threshold 'http_req_duration{method:GET}:p(95)<200'
check_one_line_error "an unknown tag refused, named: exit 2" 2 "http_req_duration is not split by tag 'method' \(its tags: expected_response\)"
run "$HSMBENCH" report "$T/th.json" --threshold 'http_req_waiting{status:200}:p95<1'
check_one_line_error "a tag a metric is not split by refused: exit 2" 2 "http_req_waiting is not split by tag 'status'"
run "$HSMBENCH" report "$T/th.json" --threshold 'http_req_duration{expected_response:maybe}:p95<1'
check_one_line_error "expected_response's values: exit 2" 2 "expected_response is true or false, not 'maybe'"
run "$HSMBENCH" report "$T/th.json" --threshold 'checks{check:nope}:rate>0.9'
check_one_line_error "an unknown check refused: exit 2" 2 "check 'nope' is not one hsmbench makes"

# ---- failed thresholds: exit 99, --quiet names them on standard error ---------------------
ekm --iterations 20 --threshold 'http_reqs:count>1000000' --threshold 'checks:rate>0.99' --quiet
check "a failed threshold: exit 99 (k6's), not 1" 99
file_has "--quiet: the failed threshold on standard error, one line" "$T/err" \
    "^hsmbench: threshold failed: ekm-wrap 'http_reqs:count>1000000' count=20$"
file_lacks "--quiet: the held one not named" "$T/err" "checks:rate"
if [ -s "$T/out" ]; then fail "--quiet: nothing on standard output" "$(head -c 200 "$T/out")"
else pass "--quiet: nothing on standard output"; fi
run "$HSMBENCH" report "$T/th.json" --threshold 'iterations:count>1000' --quiet
check "report --quiet, a failed threshold: exit 99" 99 '' \
    "^hsmbench: threshold failed: ekm-wrap 'iterations:count>1000' count=40$"
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --iterations 200 --threshold 'rate>1e15' --quiet
check "hsmbench run --quiet, a failed threshold: exit 99, named on standard error" 99 '' \
    "^hsmbench: threshold failed: sha256-digest 'rate>1e15' rate=[0-9.]+/s$"
# errors and a failed threshold together: 99 (k6's rule); errors alone stay 1
if start_serve k6fault --ekm-token-env EKM_SERVER_TOKEN --fault 503:0.2 --fault-after 5; then
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --op wrap --iterations 60 \
        --threshold 'checks:rate>0.99' --json "$T/f.json"
    check "20 % 503s and checks:rate>0.99: exit 99, the threshold before the errors" 99 \
        "✗ 'checks:rate>0.99' rate=0\.[0-9]+$"
    json_check "one check a request: the 503s failed theirs" "$T/f.json" \
        'runs[0]["http"]["k6"]["checks"]["fails"] == runs[0]["errors"] > 0 and runs[0]["http"]["k6"]["checks"]["passes"] + runs[0]["http"]["k6"]["checks"]["fails"] == 60'
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --op wrap --iterations 60 --quiet
    check "the same errors without a threshold: exit 1" 1
fi

# ---- abortOnFail: :abort and :abort=TIME ---------------------------------------------------
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --duration 10 --threshold 'p99<1ns:abort' \
    --json "$T/ab.json"
check "p99<1ns:abort: the run stops at its first second, exit 99" 99 \
    "^stopped: threshold 'p99<1ns:abort' failed at 1 s \(p\(99\)=[0-9.]+.?s\): aborted by threshold"
json_check "aborted_by_threshold recorded; the run measured up to the stop" "$T/ab.json" \
    'runs[0]["aborted_by_threshold"]["threshold"] == "p99<1ns:abort" and runs[0]["aborted_by_threshold"]["at_s"] <= 2 and runs[0]["duration_s"] < 3 and runs[0]["settings"]["duration_s"] == 10 and runs[0]["thresholds"][0]["ok"] is False'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --duration 10 --threshold 'p99<1ns:abort=2s' \
    --quiet --json "$T/ab2.json"
check "p99<1ns:abort=2s (delayAbortEval): exit 99" 99
json_check "delayAbortEval: not judged before 2 s" "$T/ab2.json" \
    '2 <= runs[0]["aborted_by_threshold"]["at_s"] <= 3 and runs[0]["duration_s"] < 4'
ekm --iterations 5 --threshold 'checks:rate>0.99:abort'
check_one_line_error ":abort on a metric known only at the end: refused, exit 2" 2 ":abort judges the run's own figures"
ekm --iterations 5 --threshold 'p99<1s:abort=soon'
check_one_line_error ":abort=TIME with a bad TIME: exit 2" 2 "delayAbortEval"
stop_serve k6seed
