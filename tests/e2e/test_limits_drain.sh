#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/e2e/test_limits_drain.sh - a REST run's total time is bounded by
# --duration plus the drain (--timeout), and a request that times out is
# counted once, in the per-second series and the totals alike (issue 23,
# item 9): hsmbench serve holds every request after the set-up's for 60 s
# (--fault timeout:1 --fault-delay 60s); the client's --timeout is 1.5 s.
# timed: it times a run against the delay the server injects (wide tolerance)
# asan: yes (a transfer torn down by its timeout during the drain)
. "$TOP/tests/e2e/lib.sh"
REST_LIB_SOURCE=1 . "$TOP/tests/e2e/test_rest_lib.sh"

start_serve held --fault timeout:1 --fault-after 3 --fault-delay 60s || exit 0
export I23_TOKEN=x
# One thread: the first held request times out at 1.5 s, the second, sent
# then, is in flight at the end and times out 1 s into the drain.
t0=$(date +%s)
run "$HSMBENCH" rest ekm --endpoint "$URL/ekm/k1" --token-env I23_TOKEN --timeout 1500ms --duration 2 \
    --json "$T/r.json" --quiet </dev/null
t1=$(date +%s)
check "rest ekm with every measured request held past --timeout: exit 1 (errors)" 1
took=$((t1 - t0))
# 2 s measured + at most 1.5 s of drain, with 3 s of slack for a loaded machine.
if [ "$took" -ge 3 ] && [ "$took" -le 6 ]; then pass "the run took ${took}s: --duration 2 plus at most --timeout 1.5s of drain"
else fail "the run took ${took}s: --duration 2 plus at most --timeout 1.5s of drain" "not 3 to 6 s"; fi
json_check "both held requests timed out: the drain's too" "$T/r.json" 'runs[0]["errors"] == 2' 
json_check "the timed-out request is an error of the run, TIMEOUT" "$T/r.json" \
    'runs[0]["errors"] >= 1 and runs[0]["errors_by_code"].get("TIMEOUT", 0) == runs[0]["errors"]'
json_check "the per-second series adds up to the totals (ops and errors)" "$T/r.json" \
    'sum(s["ops"] for s in runs[0]["per_second"]) == runs[0]["ops"]'
json_check "the per-second errors add up to the run's" "$T/r.json" \
    'sum(s["errors"] for s in runs[0]["per_second"]) == runs[0]["errors"]'
json_check "no second past --duration: the drain's endings are in the last second" "$T/r.json" \
    'max(s["t"] for s in runs[0]["per_second"]) <= 2 and runs[0]["duration_s"] <= 2.5'
stop_serve held
