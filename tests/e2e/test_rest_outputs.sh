#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_rest_outputs.sh - REST runs go through the same run driver
# as "hsmbench run": --csv, --html, --threshold and --start-at mean the same
# there, with the same exit statuses; the REST figures are side metrics of
# the core (one warm-up rule); several generators started together merge.
# Every run is bounded (--iterations or a short --duration).
# tsan: no (files and thresholds written after the workers end; their threads are test_rest's)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

TOKEN="ekm-token-$$-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
export G_TOKEN="$TOKEN" EKM_SERVER_TOKEN="$TOKEN" SDKMS_KEY="app:secret-$$"
P="$T/pki"
if ! make_certs "$P"; then
    fail "test certificates" "$(tail -c 300 "$T/openssl.log")"
    exit 0
fi
start_serve tls --tls-cert "$P/server.pem" --tls-key "$P/server.key" \
    --ekm-token-env EKM_SERVER_TOKEN --plain-listen 127.0.0.1:0 || exit 0
EP="$URL/ekm/k1"

ekm() {
    run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" "$@"
}

# ---- results files ----------------------------------------------------------
ekm --op wrap --iterations 40 --threads 2 --json "$T/w.json" --csv "$T/w.csv" --html "$T/w.html"
check "rest ekm --json --csv --html: exit 0" 0
json_check "the JSON names the run and has its http object" "$T/w.json" \
    'runs[0]["test"] == "ekm-wrap" and runs[0]["ops"] == 40 and runs[0]["http"]["requests"] == 40'
if [ -s "$T/w.csv" ] && head -1 "$T/w.csv" | grep -q '^operation,threads' && grep -q '^ekm-wrap,2,' "$T/w.csv"; then
    pass "--csv: a header and the ekm-wrap row"
else
    fail "--csv: a header and the ekm-wrap row" "$(head -c 300 "$T/w.csv" 2>/dev/null | tr '\n' ' ')"
fi
file_has "--html: a page with the run" "$T/w.html" 'ekm-wrap'
file_has "--html: a complete document" "$T/w.html" '</html>'
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" \
    --iterations 5 --quiet --csv -
check "--csv - writes the rows to standard output" 0 'ekm-wrap'

# Output paths are checked before anything is sent.
ekm --iterations 5 --html "$T/no/such/dir/x.html"
check_one_line_error "--html into a missing directory: exit 2 before the run" 2 '--html'

# ---- thresholds -----------------------------------------------------------------
ekm --iterations 30 --threshold 'p99<10s' --threshold 'errors<1%' --threshold 'ekm-wrap:rate>0'
check "thresholds that hold: exit 0, the block printed" 0 'THRESHOLDS'
file_has "a held threshold is ticked" "$T/out" "✓ 'p99<10s'"
ekm --iterations 30 --threshold 'p50<1ns'
check "a threshold that fails: exit 99 (k6's)" 99 "✗ 'p50<1ns'"
ekm --iterations 5 --threshold 'p99<<5ms'
check_one_line_error "a threshold that does not parse: exit 2 before the run" 2 'threshold'
ekm --iterations 5 --threshold 'rsa-pkcs-sign:p99<5ms'
check_one_line_error "a threshold for a test this run lacks: exit 2" 2 'rsa-pkcs-sign'
ekm --iterations 20 --threshold 'p99<10s' --json "$T/th.json"
json_check "thresholds are recorded in the run" "$T/th.json" \
    'runs[0]["thresholds"][0]["expr"] == "p99<10s" and runs[0]["thresholds"][0]["ok"] is True'

# ---- --start-at: generators begin together ----------------------------------------
# (5 s ahead: a generator not ready by then would join at the next second)
at=$(($(date +%s) + 5))
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" \
    --duration 0.3s --start-at "$at" --json "$T/g1.json" &
pid1=$!
run2_out="$T/g2.out"
"$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" \
    --duration 0.3s --start-at "$at" --json "$T/g2.json" >"$run2_out" 2>&1
rc2=$?
wait "$pid1"
if [ "$rc2" -eq 0 ] && grep -q 'waiting .* for --start-at' "$run2_out"; then
    pass "--start-at: the run waits for the given time"
else
    fail "--start-at: the run waits for the given time" "exit $rc2: $(head -c 300 "$run2_out" | tr '\n' ' ')"
fi
json_check "--start-at: the measured run began at the given second" "$T/g2.json" \
    'doc["started_at_epoch_ms"] >= '"$at"' * 1000 and doc["started_at_epoch_ms"] < ('"$at"' + 1) * 1000'
if python3 - "$T/g1.json" "$T/g2.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if abs(a["started_at_epoch_ms"] - b["started_at_epoch_ms"]) < 500 else 1)
PY
then pass "--start-at: two generators start within half a second of each other"
else fail "--start-at: two generators start within half a second of each other" "$(grep -h started_at_epoch_ms "$T/g1.json" "$T/g2.json" | tr '\n' ' ')"; fi
# The non-blocking engine times each request from its start, not from the
# slots' set-up: a wait at the gate longer than --timeout times nothing out.
at=$(($(date +%s) + 3))
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" \
    --mode nonblocking --inflight 2 --threads 1 --timeout 1 --duration 0.3s --start-at "$at" \
    --json "$T/gnb.json"
check "--start-at, non-blocking, 2 s at the gate with --timeout 1: exit 0" 0
json_check "--start-at, non-blocking: no request timed out for the wait at the gate" "$T/gnb.json" \
    'runs[0]["errors"] == 0 and runs[0]["ops"] > 0'
run "$HSMBENCH" merge "$T/g1.json" "$T/g2.json" -o "$T/g.json"
check "merge of two REST generators' files: exit 0" 0
if python3 - "$T/g1.json" "$T/g2.json" "$T/g.json" <<'PY'
import json, sys
a, b, m = (json.load(open(p)) for p in sys.argv[1:4])
ok = m["runs"][0]["ops"] == a["runs"][0]["ops"] + b["runs"][0]["ops"]
sys.exit(0 if ok else 1)
PY
then pass "merged REST files: operations add up"
else fail "merged REST files: operations add up" "$(head -c 300 "$T/g.json" | tr '\n' ' ')"; fi
ekm --iterations 5 --start-at 12
check_one_line_error "--start-at in the past: exit 2" 2 '--start-at'

# ---- one warm-up rule for the HTTP figures -----------------------------------------
ekm --warmup 1s --duration 0.3s --json "$T/warm.json"
check "--warmup 1s: exit 0" 0
json_check "--warmup 1s: the requests recorded are the measured operations' (one each)" \
    "$T/warm.json" 'runs[0]["http"]["requests"] == runs[0]["ops"] and runs[0]["ops"] > 0'
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" \
    --mode nonblocking --rate 50 --warmup 1s --duration 1 --json "$T/warmnb.json"
check "non-blocking --warmup 1s: exit 0" 0
json_check "non-blocking --warmup 1s: requests recorded == measured operations" "$T/warmnb.json" \
    'runs[0]["http"]["requests"] == runs[0]["ops"] and 35 <= runs[0]["ops"] <= 65'
run "$HSMBENCH" rest ekm --endpoint "$EP" --token-env G_TOKEN --cacert "$P/ca.pem" --op wrap-unwrap \
    --mode nonblocking --inflight 4 --warmup 1s --duration 0.3s --json "$T/warmwu.json"
check "non-blocking wrap-unwrap with a warm-up: exit 0" 0
json_check "wrap-unwrap: two requests per measured operation, none of the warm-up" "$T/warmwu.json" \
    'runs[0]["http"]["requests"] == 2 * runs[0]["ops"] and runs[0]["ops"] > 0'
