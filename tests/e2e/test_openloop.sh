#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_openloop.sh - open-loop verdicts (issue 22, item 1): a
# fixed-rate run whose schedule was not kept is failed, "target saturated",
# with its counts and achieved rate, exit 1; its latency accounts for every
# scheduled request (the ones that never started at the lower bound of
# theirs, from when each was due to the end, as wrk2 counts them), its
# latency_us is marked incomplete and every latency threshold fails; the
# per-second target is the schedule's, not what was issued.  The mock HSM
# with two 1 ms cores carries 2000/s: 5000/s is 2.5 times that, 500/s a
# quarter.  The same core under rest ekm against hsmbench serve --latency.
# timed: the verdicts hang on the mock's own service times and cores keeping their pace
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

need_mock || exit 0
mock() {
    cfg=$1
    shift
    run env HSMBENCH_MOCK="$cfg" "$HSMBENCH" "$@"
}
SVC='service=fixed:1ms;cores=2'

# ---- 2.5 x capacity: failed, the counts, exit 1, p99<1s fails ---------------------------
mock "$SVC" run --module "$MOCK" --test sha256-digest --mode nonblocking --rate 5000 --threads 2 \
    --duration 2 --threshold 'p99<1s' --json "$T/sat.json" --html "$T/sat.html"
check "5000/s on 2000/s of mock: exit 1, failed: target saturated with the counts" 1 \
    '^ +status\.+: failed: target saturated: [0-9]+ of [0-9]+ scheduled requests never started \([0-9.]+ %\); achieved [0-9]+/s of 5000/s scheduled$'
file_has "the saturated run's p99<1s threshold fails: latency incomplete, with the counts" "$T/out" \
    "✗ 'p99<1s' latency incomplete: [0-9]+ of [0-9]+ scheduled requests never started$"
file_has "the summary gives the unstarted requests' latency, a lower bound" "$T/out" \
    '^ +unstarted, at least\.+: avg='
file_has "and every scheduled request's, the unstarted at their lower bound" "$T/out" \
    '^ +all requests, at least: avg='
json_check "the results file: failed, the reason's counts are the schedule's, latency_complete false" "$T/sat.json" \
    'runs[0]["status"] == "failed" and runs[0]["reason"].startswith("target saturated: %d of %d scheduled requests never started" % (runs[0]["schedule"]["dropped"], runs[0]["schedule"]["scheduled"])) and runs[0]["latency_complete"] is False and runs[0]["schedule"]["max_unstarted_pct"] == 1'
json_check "every scheduled request is a success, an error or unstarted; each unstarted one in its histogram once" "$T/sat.json" \
    'abs(runs[0]["schedule"]["scheduled"] - 10000) <= 2 and runs[0]["schedule"]["dropped"] > 4000 and runs[0]["schedule"]["dropped"] == runs[0]["schedule"]["scheduled"] - runs[0]["attempts"] and runs[0]["schedule"]["unstarted_latency_us"]["count"] == runs[0]["schedule"]["dropped"] and runs[0]["schedule"]["scheduled_latency_us"]["count"] == runs[0]["schedule"]["scheduled"] and runs[0]["latency_us"]["count"] == runs[0]["ops"]'
json_check "the unstarted requests' lower bounds lie within the run, and they are the longest waits" "$T/sat.json" \
    '0 <= runs[0]["schedule"]["unstarted_latency_us"]["max"] <= 2.01e6 and runs[0]["schedule"]["scheduled_latency_us"]["p99"] >= runs[0]["schedule"]["unstarted_latency_us"]["p50"]'
json_check "the threshold is recorded failed, nothing observed" "$T/sat.json" \
    'runs[0]["thresholds"] == [{"expr": "p99<1s", "test": None, "ok": False, "observed": None, "unit": "us"}]'
json_check "per-second targets are the schedule's 5000/s, not what the waiting dispatcher issued" "$T/sat.json" \
    'all(4900 <= s["target"] <= 5100 for s in runs[0]["per_second"] if s["span_s"] > 0.9) and abs(sum(s["target"] for s in runs[0]["per_second"]) - runs[0]["schedule"]["scheduled"]) <= 2'
# Every whole second's line says target 4900 to 5100 (before: what was issued,
# 2700 once the queue was full) beside the successes achieved.
if awk '/^OPERATIONS\/second +[0-9]+\/1 +target / { n++; if ($4 < 4900 || $4 > 5100) bad++ }
        END { exit !(n >= 2 && !bad) }' "$T/out"; then
    pass "per-second lines: the schedule's target beside what was achieved"
else
    fail "per-second lines: the schedule's target beside what was achieved" "$(grep OPERATIONS "$T/out" | tr '\n' ' ')"
fi

dropped=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["schedule"]["dropped"])' "$T/sat.json")
file_has "the HTML page: the scheduled, late and never started requests" "$T/sat.html" \
    "<th>never started</th><td class=\"n\">$dropped</td>"
file_has "the HTML page: the unstarted requests' latency at least, and the latency marked incomplete" "$T/sat.html" \
    "<th>latency incomplete</th><td colspan=\"5\">$dropped of [0-9]+ scheduled requests never started"
file_has "the HTML page: the unstarted p99, a lower bound" "$T/sat.html" '<th>unstarted p99, at least</th>'

# ---- the saved file says the same: report and its thresholds -------------------------------
run "$HSMBENCH" report "$T/sat.json" --threshold 'p99<1s' --threshold 'rate>100'
check "report: the saturated run's latency threshold fails (exit 99), its rate threshold holds" 99 \
    "✗ 'p99<1s' latency incomplete: [0-9]+ of [0-9]+ scheduled requests never started"
file_has "report: the rate threshold still judged" "$T/out" "✓ 'rate>100' rate="
run "$HSMBENCH" report "$T/sat.json"
check "report: the run's status, failed" 0 '^ +sha256-digest .* failed +[0-9]+'
file_has "report: the saturated run named under latency incomplete, with its counts" "$T/out" \
    "^    sha256-digest · 2 threads: $dropped of [0-9]+ scheduled requests never started$"

run "$HSMBENCH" compare "$T/sat.json" "$T/sat.json"
check "compare: the saturated run's row says its latency is incomplete" 0 \
    "⚠ latency incomplete: $dropped of [0-9]+ scheduled requests never started"

# ---- merged generators: the schedules add up, the hole in the latency stays -----------------------
# a second generator: the same run under another generator name (merge
# refuses one run given twice)
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["fleet"]["generator"] = "2"; json.dump(d, open(sys.argv[2], "w"))' \
    "$T/sat.json" "$T/sat2.json"
run "$HSMBENCH" merge "$T/sat.json" "$T/sat2.json" -o "$T/merged.json"
json_check "merge: the schedules' counts add up, latency_complete stays false" "$T/merged.json" \
    'runs[0]["latency_complete"] is False and runs[0]["schedule"]["dropped"] == 2 * '"$dropped"' and runs[0]["schedule"]["scheduled"] >= 19990'
run "$HSMBENCH" report "$T/merged.json" --threshold 'p99<1s'
check "merge: the merged run's latency threshold fails, with the merged counts: exit 99" 99 \
    "✗ 'p99<1s' latency incomplete: $((2 * dropped)) of [0-9]+ scheduled requests never started"

# ---- a quarter of capacity: ok ----------------------------------------------------------------
mock "$SVC" run --module "$MOCK" --test sha256-digest --mode nonblocking --rate 500 --threads 2 \
    --duration 2 --threshold 'p99<1s' --json "$T/ok.json"
check "500/s on 2000/s of mock: ok, exit 0, p99<1s holds" 0 "✓ 'p99<1s' p\(99\)="
file_has "500/s: status ok" "$T/out" '^ +status\.+: ok$'
json_check "500/s: the schedule kept, latency complete" "$T/ok.json" \
    'runs[0]["status"] == "ok" and runs[0]["latency_complete"] is True and runs[0]["schedule"]["dropped"] <= 2 and runs[0]["schedule"]["unstarted_latency_us"]["count"] == runs[0]["schedule"]["dropped"]'

# ---- the final Prometheus counters: the schedule's requests and those never started ----------------
HSMBENCH_MOCK="$SVC" "$HSMBENCH" run --module "$MOCK" --test sha256-digest --mode nonblocking --rate 5000 \
    --threads 2 --duration 1 --quiet --json "$T/prom.json" --metrics-listen 127.0.0.1:0 --metrics-linger 5 \
    >"$T/prom.out" 2>"$T/prom.err" </dev/null &
ppid=$!
if PURL=$(metrics_url "$T/prom.err"); then
    i=0
    while [ ! -s "$T/prom.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    sleep 0.5
    python3 -c 'import sys,urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
        "$PURL" >"$T/prom.txt" 2>"$T/prom.perr"
    want=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["runs"][0]["schedule"]; print(s["scheduled"], s["dropped"])' "$T/prom.json")
    got=$(sed -n 's/^hsmbench_scheduled_requests_total{.*} \([0-9]*\)$/\1/p; s/^hsmbench_unstarted_requests_total{.*} \([0-9]*\)$/\1/p' "$T/prom.txt" | tr '\n' ' ' | sed 's/ $//')
    if [ -n "$got" ] && [ "$got" = "$want" ]; then
        pass "Prometheus: scheduled and unstarted requests are the results file's ($got)"
    else
        fail "Prometheus: scheduled and unstarted requests are the results file's" "scraped '$got', file '$want'"
    fi
else
    fail "the saturated run's metrics listener" "$(head -c 300 "$T/prom.err")"
fi
wait $ppid

# ---- the bound is the user's: --max-unstarted 100% never fails a run for it ---------------------
mock "$SVC" run --module "$MOCK" --test sha256-digest --mode nonblocking --rate 5000 --threads 2 \
    --duration 1 --max-unstarted 100% --json "$T/all.json"
check "--max-unstarted 100%: the saturated run is ok, exit 0" 0 '^ +status\.+: ok$'
json_check "--max-unstarted 100%: the bound recorded, the counts still there" "$T/all.json" \
    'runs[0]["schedule"]["max_unstarted_pct"] == 100 and runs[0]["schedule"]["dropped"] > 1000 and runs[0]["latency_complete"] is True'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode nonblocking --rate 100 --duration 1 \
    --max-unstarted 101
check_one_line_error "--max-unstarted 101: exit 2, one line naming the flag" 2 '^hsmbench: error: --max-unstarted 101: a percentage'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --duration 1 --max-unstarted 5%
check_one_line_error "--max-unstarted in a blocking run: exit 2, one line" 2 \
    '^hsmbench: error: --max-unstarted .*--mode nonblocking with --rate or --stages$'
run "$HSMBENCH" run --module "$NULLP11" --test sha256-digest --mode nonblocking --inflight 4 --duration 1 \
    --max-unstarted 5%
check_one_line_error "--max-unstarted with a window alone (no schedule): exit 2, one line" 2 \
    '^hsmbench: error: --max-unstarted '

# ---- REST: the same core, the same verdict --------------------------------------------------------
# hsmbench serve answers 20 ms after each request; 2 threads of 16 curl
# slots keep 32 in flight: 1600/s at most.  4000/s is 2.5 times that.
export G_TOKEN="openloop-$$" EKM_SERVER_TOKEN="openloop-$$"
if start_serve plain --ekm-token-env EKM_SERVER_TOKEN --latency 20ms; then
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --mode nonblocking --rate 4000 \
        --threads 2 --duration 2 --threshold 'p99<1s' --json "$T/rest.json"
    check "rest ekm at 4000/s on 1600/s: exit 1 (a failed run before the failed threshold's 99), failed: target saturated" 1 \
        '^ +status\.+: failed: target saturated: [0-9]+ of [0-9]+ scheduled requests never started'
    json_check "rest ekm saturated: the same figures (unstarted counted once each, latency incomplete)" "$T/rest.json" \
        'runs[0]["status"] == "failed" and runs[0]["latency_complete"] is False and runs[0]["schedule"]["unstarted_latency_us"]["count"] == runs[0]["schedule"]["dropped"] > 0 and runs[0]["thresholds"][0]["ok"] is False'
    json_check "rest ekm saturated: k6's dropped_iterations are the unstarted requests" "$T/rest.json" \
        'runs[0]["http"]["k6"]["dropped_iterations"]["count"] == runs[0]["schedule"]["dropped"]'
    file_has "rest ekm saturated: the k6 lines give dropped_iterations" "$T/out" '^ +dropped_iterations\.+: [0-9]+ '
    run "$HSMBENCH" report "$T/rest.json" --threshold 'http_req_duration:p99<1s'
    check "rest ekm saturated: a side latency threshold fails too (latency incomplete): exit 99" 99 \
        "✗ 'http_req_duration:p99<1s' latency incomplete: [0-9]+ of [0-9]+ scheduled requests never started"
    run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env G_TOKEN --mode nonblocking --rate 200 \
        --threads 2 --duration 2 --json "$T/rest-ok.json"
    check "rest ekm at 200/s: ok, exit 0" 0 '^ +status\.+: ok$'
fi
rest_stop_all
